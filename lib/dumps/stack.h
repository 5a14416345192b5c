/*
 * stack.h: msprobe's stack.json, entry name -> Python call stack.
 *
 * Two formats (reference: msprobe-firstdiff.md section 2):
 *   old  {"<entry>": ["<frame>", ...], ...}
 *   new  {"0": [["<entry>", ...], ["<frame>", ...]], "1": ...}, each distinct
 *        stack once with every entry that has it
 * The new format is recognised by a first key "0" whose value is such a
 * pair; values that fit neither are skipped, as msprobe does.  A frame is
 * "File <path>, line <n>, in <func>, \n <source line>".
 *
 * Memory: the frames of each distinct stack once, and one map slot per
 * entry name.  A stack map lives until stack_map_free().
 */
#ifndef PROBE_STACK_H
#define PROBE_STACK_H

#include "../core/arena.h"
#include "../core/strbuf.h"
#include "../core/strmap.h"

struct stack {
	const char **frames;   /* innermost first, as msprobe lists them */
	size_t n;
	const char *repr;      /* Python repr of the list, made on first use (stack_repr()) */
	size_t repr_len;
	const char *json;      /* the frames as a JSON array, made on first use (stack_json()) */
	size_t json_len;
	const char *csv;       /* the repr as a CSV cell, quoted, made on first use (stack_csv()) */
	size_t csv_len;
	bool special;          /* a frame msprobe refuses while parsing (mscsv.h: mscsv_special) */
};

struct stack_map {
	struct arena arena;
	struct strmap by_entry; /* entry -> struct stack * */
	size_t nstacks;
	bool new_format;
};

/* Returns NULL with "FILE:LINE:COL: what" in err. */
struct stack_map *stack_map_load(const char *path, struct strbuf *err);
void stack_map_free(struct stack_map *m);
const struct stack *stack_map_get(const struct stack_map *m, const char *entry, size_t len);

/* "['File ..., \n ...', ...]", as msprobe's CSV shows it (cached in the stack). */
const char *stack_repr(const struct stack_map *m, const struct stack *s, size_t *len);
/* The repr as a CSV cell, quoted as pandas quotes it (cached). */
const char *stack_csv(const struct stack_map *m, const struct stack *s, size_t *len);
/* ["File ...", ...] as JSON (cached). */
const char *stack_json(const struct stack_map *m, const struct stack *s, size_t *len);

/* One frame taken apart: "File <file>, line <line>, in <function>, \n <code>". */
struct frame {
	const char *file, *function, *code;
	size_t file_len, function_len, code_len;
	long line;
};

/* false when the frame is not in that form (then only file holds the text). */
bool stack_frame_parse(const char *text, struct frame *out);

/*
 * Frames of the framework rather than the user's own code: files under
 * site-packages or dist-packages (torch, torch_npu, msprobe, torchvision,
 * ...), the Python standard library, frozen modules; or whose path holds
 * one of the extra patterns.
 */
bool stack_frame_is_framework(const struct frame *f, const char *const *extra, size_t nextra);

#endif
