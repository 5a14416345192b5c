/*
 * piplist.h: the installed packages of a run, from the text pip or
 * msprobe's packer writes.
 *
 * piplist_parse() reads, line by line, any mix of:
 *
 *   name==version                  pip freeze (also ===)
 *   name @ URL                     pip freeze of a package installed from a URL (version "@ URL")
 *   -e URL#egg=name                pip freeze of an editable install (version "-e URL")
 *   Name=version                   msprobe's pack member "pip"
 *   Package   Version  [Location]  pip list: a header, a line of dashes, then name and version columns
 *
 * Blank lines, comments (#) and pip's options (-r, -c, --index-url, ...) are
 * skipped; any other line is an error naming the file and line.  A name
 * listed twice keeps its first place and takes its last version.
 *
 * piplist_parse_msprobe() is msprobe's own reading of its member
 * (pip_checker.load_pip_txt): each line stripped and split on '=', the
 * first part the name, the second the version when there are exactly two
 * parts, else "" (so that "name==version" reads as an empty version).
 *
 * Memory: a list owns its strings (piplist_release()).
 */
#ifndef PROBE_PIPLIST_H
#define PROBE_PIPLIST_H

#include "../core/strbuf.h"

struct piplist_entry {
	char *name;    /* as written */
	char *version;
	size_t line;   /* 1-based, in its file */
};

struct piplist {
	struct piplist_entry *v;
	size_t n, alloc;
};

#define PIPLIST_INIT { NULL, 0, 0 }

/* 0, or -1 with "WHERE:LINE: what" in err. */
int piplist_parse(struct piplist *l, const char *where, const char *data, size_t len, struct strbuf *err);
void piplist_parse_msprobe(struct piplist *l, const char *data, size_t len);
/* The entry of exactly this name (msprobe's dict lookup), or NULL. */
const struct piplist_entry *piplist_get(const struct piplist *l, const char *name);
/* Set name to version: a new entry at the end, or the version of the one there. */
void piplist_set(struct piplist *l, const char *name, size_t nlen, const char *version, size_t vlen, size_t line);
/* PEP 503's normalised name: lower case, each run of '-', '_' and '.' one '-'. */
void piplist_normalize(struct strbuf *out, const char *name);
/*
 * How much the text looks like a pip list: the number of its lines that
 * only a pip list has (name==version, name @ URL, the pip list header),
 * or -1 when a line is no line of a pip list at all.
 */
long piplist_sniff(const char *data, size_t len);
void piplist_release(struct piplist *l);

#endif
