/*
 * plain.h: the files people have instead of a pack, read into one
 * (pack.h), each providing one check:
 *
 *   PLAIN_PIP     pip freeze, pip list, or msprobe's pip member (piplist.h)   -> pip
 *   PLAIN_ENV     an environment dump: env / printenv (NAME=value lines,
 *                 a line without '=' continuing the value before it),
 *                 export -p / declare -x (quotes removed), or the JSON
 *                 object msprobe packs as "env"                           -> env
 *   PLAIN_CONFIG  a YAML or JSON config, flattened to dotted keys
 *                 (model.hidden_size) as msprobe's YamlParser does        -> hyperparameters
 *   PLAIN_SCRIPT  a launch script's arguments (launch.h)                  -> hyperparameters
 *
 * A config or script gives the hyperparameters msprobe's packer files as
 * hyperparameters_static.json: pack_json.value by probe's reading (YAML
 * nulls and dates kept, a launch script read by launch.h's probe rules),
 * pack_json.ms_value by msprobe's (nulls and dates dropped, a non-string
 * key anywhere leaving nothing, its ShellParser rules).
 *
 * YAML is read as PyYAML's safe_load reads it (YAML 1.1): a plain scalar
 * is null (~, null, empty), a bool (yes, no, on, off, true, false in three
 * cases), an int (decimal, 0b, 0x, 0 octal, sexagesimal 1:30, '_'
 * ignored), a float (a '.' needed, an exponent only with its sign:
 * "1e-5" and "1.0e5" stay strings; .inf, .nan), a date (kept as its
 * text), else a string; "<<" merges mappings.  Quoted scalars are strings.
 *
 * plain_detect() tells the kind from the name and the content (see
 * probe-config(1)); plain_read_file() reads an operand ("-": standard
 * input, gzip inflated) whole.  Errors follow msg.h: "FILE:LINE: what".
 */
#ifndef PROBE_PLAIN_H
#define PROBE_PLAIN_H

#include "pack.h"

enum plain_kind { PLAIN_PACK, PLAIN_PIP, PLAIN_ENV, PLAIN_CONFIG, PLAIN_SCRIPT, PLAIN_UNKNOWN };

/* The names of the kinds, as --kind takes them: "pack", "pip", "env", "config", "script". */
const char *plain_kind_name(enum plain_kind k);

/* The kind of a file from its name (path) and its first bytes. */
enum plain_kind plain_detect(const char *path, const char *data, size_t len);

/* The whole of path (at most PACK_MAX_FILE bytes) into out. 0, or -1 with err set. */
int plain_read_file(const char *path, struct strbuf *out, struct strbuf *err);

/* A file of kind k (not PLAIN_PACK) into p. 0, or -1 with err set. */
int plain_read(struct pack *p, enum plain_kind k, const char *data, size_t len, struct strbuf *err);

#endif
