/*
 * yamlmap.h: msprobe's mapping files (-dm data_mapping, -cm cell_mapping).
 *
 * Both are a YAML mapping of strings to strings, read with libyaml:
 *   data_mapping:  target row name -> golden row name
 *   cell_mapping:  target cell (module) name -> golden module name
 * Pairs keep file order (the cell mapping applies them in order).  Errors
 * (a syntax error, a document that is not a flat mapping of scalars, a
 * key given twice) are returned as "FILE:LINE:COL: what".
 */
#ifndef PROBE_YAMLMAP_H
#define PROBE_YAMLMAP_H

#include "strbuf.h"
#include "strmap.h"

#include <yaml.h>

struct yamlmap {
	char **keys, **values; /* owned */
	size_t nr, alloc;
	struct strmap index;   /* key -> position */
};

#define YAMLMAP_INIT { NULL, NULL, 0, 0, STRMAP_INIT }

int yamlmap_load(struct yamlmap *m, const char *path, struct strbuf *err);

/*
 * The first YAML document of path as a tree, into doc (the caller
 * yaml_document_delete()s it; the file is closed).  Returns 0, or -1 with
 * "FILE: cannot open: why" or "FILE:LINE:COL: what" in err.  Every loader
 * here reads a regular file only: a FIFO or a device is refused with
 * source_fopen_regular()'s message, never waited on.  Before anything is
 * built, a first pass over the file's events refuses a document nested
 * more than YAML_MAX_DEPTH deep ("FILE:LINE:COL: nested more than 64
 * deep") and one whose aliases expand to more than YAML_NODES_PER_EVENT
 * nodes per event read so far ("FILE:LINE:COL: aliases expand to more
 * than N nodes ..."; the environment's PROBE_MAX_YAML_NODES, a count,
 * raises that bound), so that memory and time follow the file's size,
 * not what its aliases expand to (msprobe's mapping files use none).
 */
#define YAML_MAX_DEPTH 64
#define YAML_NODES_PER_EVENT 64
int yaml_load_file(const char *path, yaml_document_t *doc, struct strbuf *err);
/* The value of key, or NULL. */
const char *yamlmap_get(const struct yamlmap *m, const char *key, size_t len);
/* Map key to value (copies of both); a key already there keeps its place and takes the new value. */
void yamlmap_set(struct yamlmap *m, const char *key, const char *value);
void yamlmap_release(struct yamlmap *m);

/*
 * A YAML mapping of names to lists of names (msprobe merge_result's config:
 * api, compare_index).  A name mapped to null (or nothing) has an empty
 * list; one mapped to another scalar is kept as not a list, for the
 * caller's message.  Errors as yamlmap_load()'s.
 */
struct yamllists {
	char **keys;        /* owned, file order */
	char ***items;      /* per key, owned */
	size_t *nitems;
	bool *scalar;       /* per key: mapped to a scalar that is not null */
	size_t nr, alloc;
};

#define YAMLLISTS_INIT { NULL, NULL, NULL, NULL, 0, 0 }

int yamllists_load(struct yamllists *l, const char *path, struct strbuf *err);
/* The position of key, or -1. */
ssize_t yamllists_find(const struct yamllists *l, const char *key);
void yamllists_release(struct yamllists *l);

#endif
