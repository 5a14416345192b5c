/*
 * dump.h: reading a msprobe dump.json as a stream of leaves.
 *
 * A dump.json is {"task", "level", "framework", "dump_data_dir", "data"},
 * where "data" maps entry names (one per API or module call) to the
 * structure of their arguments.  dump_read() streams "data" one entry at
 * a time and calls back once per leaf (a tensor, a scalar argument, a null
 * slot) with the name msprobe's compare gives the row, the compare key,
 * the state, and the leaf's JSON object.  Leaves come in msprobe's row
 * order: entries in file order; within an entry its inputs (input_args,
 * input_kwargs, backward input), then parameters, then outputs
 * (reference: msprobe-compare.md sections 1.2-1.6).
 *
 * Memory: one entry's tree at a time (an arena reset per entry), the
 * header fields, and one counter per backward base name; never the file.
 * One entry may take at most DUMP_MAX_ENTRY_BYTES of it (its tree of
 * values, its rows and their names, counted as they are made: about 360
 * bytes for a scalar leaf of 25 bytes of text, 1.2 KB for a tensor leaf):
 * a larger entry is an error naming it and the limit, before it takes more.
 *
 * Unlike msprobe, nothing is dropped silently: entries whose names have no
 * forward/backward/parameters_grad part (which msprobe's compare ignores)
 * are read and flagged `msprobe_skips`, with a warning; bare numbers or
 * strings where a leaf object belongs are reported with a warning.
 *
 * Errors (a non-dump JSON, no "data", no entries, malformed JSON, an entry
 * that is not an object, ...) make dump_read() return -1 with the message,
 * "FILE:LINE:COL: what is wrong", in d->err; nothing is printed.
 */
#ifndef PROBE_DUMP_H
#define PROBE_DUMP_H

#include "../core/arena.h"
#include "../json/jtree.h"
#include "../msprobe/naming.h"
#include "../core/strbuf.h"

/* msprobe's depth limit for structures inside an entry (Const.MAX_DEPTH). */
#define DUMP_MAX_DEPTH 400

/*
 * The most memory one entry may take while it is read: 256 MiB, some
 * 200,000 tensor leaves or 700,000 scalar ones in one API or module call
 * (msprobe's largest, a big module's parameters_grad, hold thousands).
 */
#define DUMP_MAX_ENTRY_BYTES ((size_t)256 << 20)

enum leaf_state {
	STATE_INPUT,
	STATE_PARAMETERS,
	STATE_OUTPUT,
	STATE_PARAMS_GRAD,
	STATE_DEBUG,
};

const char *dump_leaf_state_name(enum leaf_state s);

struct leaf {
	const char *entry;         /* "Functional.conv2d.0.forward" */
	const char *name;          /* msprobe's row name */
	const char *key;           /* msprobe's compare key */
	enum leaf_state state;
	const struct jnode *obj;   /* the leaf object; NULL for a null slot */
	const struct jnode *p2p;   /* the P2POp object the leaf is the tensor of, or NULL */
	const char *data_name;     /* tensor file name; NULL when absent or empty */
	uint64_t seq;              /* row index in this dump, from 0 */
	uint64_t entry_seq;        /* entry index in this dump, from 0 */
	bool msprobe_skips;        /* msprobe's compare drops this entry (no direction in its name) */
	uint64_t line, col;        /* where the leaf is in the dump */
};

struct dump_meta {
	char *task;          /* NULL when absent */
	char *level;
	char *framework;
	char *dump_data_dir;
};

struct dump_reader;

/*
 * Called once per leaf.  Everything the leaf points to lives until the
 * callback returns.  A nonzero return stops the reading; dump_read()
 * then returns that value.
 */
typedef int (*dump_leaf_fn)(const struct dump_reader *d, const struct leaf *leaf, void *ctx);

/*
 * Called once per entry, before its leaves (an entry may have none): its
 * name, which lives until the callback returns.  Nonzero stops as above.
 */
typedef int (*dump_entry_fn)(const char *entry, void *ctx);

struct dump_reader {
	/* set before dump_read() */
	const char *path;      /* "-" is stdin */
	dump_entry_fn on_entry; /* NULL: none */
	void *entry_ctx;
	bool debug_file;       /* a debug.json: no backward renumbering */
	size_t buffer_size;    /* 0: the JSON reader's default */
	size_t max_chunk;      /* tests: limit reads to this many bytes (0: none) */
	size_t max_entry_bytes; /* 0: DUMP_MAX_ENTRY_BYTES (tests: less) */

	/* results */
	struct dump_meta meta;
	uint64_t entries, rows;
	uint64_t skipped_entries;  /* entries msprobe ignores (see msprobe_skips) */
	uint64_t bare_values;      /* bare numbers/strings reported and not turned into rows */
	struct strbuf err;
};

void dump_reader_init(struct dump_reader *d, const char *path);
/* Returns 0 on success, -1 on error (message in d->err), or the callback's stop value. */
int dump_read(struct dump_reader *d, dump_leaf_fn fn, void *ctx);
void dump_reader_release(struct dump_reader *d);

#endif
