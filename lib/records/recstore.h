/*
 * recstore.h: leaf record texts kept in little memory, for an index that
 * holds every leaf of a run (the golden side of probe-match).
 *
 * A record is cut in two: its shape, which is the text without the values
 * that differ from leaf to leaf (the member names, the punctuation, and
 * the values a run repeats: rank, step, state, type, dtype, requires_grad,
 * task, dump, ...), and its values (seq, name, key, shape, the statistics,
 * md5, ..., every field of leafrec.h but those).  A shape is kept once, the
 * values of each record after it; a key that repeats the name, and an entry
 * the name starts with, are kept as references to the name.  On the golden
 * side of the big statistics pair (846,600 leaves) a record of about 400
 * bytes keeps about 130.
 *
 * recstore_text() gives the record back byte for byte: the shape and the
 * values are cut from the text as it was, never re-encoded.  A record whose
 * fields the cut cannot use (more than RECSTORE_MAX_HOLES of them), and
 * every record once the shapes stop being shared (more than 1024 of them
 * and one for fewer than 8 records), is kept whole.
 *
 * Ownership and threads: everything lives in the store until
 * recstore_release().  A kept record (struct recref and what it points to)
 * never moves, so another thread may read it while records are still being
 * kept, once it got the recref from the keeping thread under a lock.  Only
 * one thread may keep records at a time.
 */
#ifndef PROBE_RECSTORE_H
#define PROBE_RECSTORE_H

#include "leafrec.h"
#include "../core/arena.h"
#include "../core/strmap.h"

#define RECSTORE_MAX_HOLES 32

struct recshape;

/* One record kept. */
struct recref {
	const struct recshape *shape;
	const char *vals;  /* its values, encoded (recstore.c) */
	const char *key;   /* the "key" value's JSON text (quotes included), inside the store */
	uint32_t key_len;
};

struct recstore {
	struct arena arena;     /* shapes and values */
	struct strmap shapes;   /* a shape's bytes -> its struct recshape */
	const struct recshape *whole; /* the shape of a record kept whole: one value, the text */
	size_t nshapes, nkept, nwhole;
	size_t value_bytes;     /* of the values kept */
	struct strbuf scratch;
};

void recstore_init(struct recstore *s);
void recstore_release(struct recstore *s);

/*
 * Keep text[0..len), a record that r holds the fields of (leafrec_parse()
 * of those bytes, or of bytes they start: every span of r that lies in
 * text[0..len) is used, the others are not).  The key field must lie in
 * it; r->f[LF_KEY] of a parsed leaf record always does.
 */
void recstore_keep(struct recstore *s, const char *text, size_t len, const struct leafrec *r, struct recref *out);

/* The record's text, appended to out. */
void recstore_text(const struct recref *ref, struct strbuf *out);

#endif
