/*
 * gdata.h: what a node of msprobe's graph holds of its dump entry: the
 * input_data and output_data of the vis.db (../shared/reference/msprobe-graph.md;
 * msprobe 26.0.0's get_input_output, gen_op_item and format_node_data).
 *
 * Each leaf of an entry (dump.h's rows) becomes one member of input_data
 * (inputs and parameters) or output_data (outputs), keyed by its tensor
 * file name without the suffix, or by its row name when it has none.  Its
 * fields are the leaf object's own members and msprobe's additions
 * (data_name "-1", requires_grad and the four statistics null when
 * absent; dtype and shape of a scalar argument; Max..Norm of a scalar its
 * value), every value written as Python's str() of it, with msprobe's
 * touches: quotes removed and None made null in strings, a decimal string
 * with more than six decimals rounded to six, None written null; `state`,
 * `full_op_name` and (outside md5 mode) `md5` left out; a leaf whose Max
 * is null becomes {"value": "null"}; a ProcessGroup keeps type,
 * group_ranks, group_id and data_name.
 *
 * On the target side of a compare, a leaf that has a golden counterpart
 * (the same position among the inputs, parameters, outputs or parameter
 * gradients of the matched golden node: msprobe's get_accuracy) gets the
 * columns of msprobe's table: in statistics mode the four differences as
 * plain float64 target - golden and the four relative errors (str of
 * |diff / golden| * 100 with '%', N/A against 0 or a non-number), and in
 * every mode Requires_grad Consistent, and the Result and Err_message
 * (and in tensor mode the metric columns) that the caller's results give
 * for the leaf's row name: msprobe's Result rules as probe-metric applies
 * them.  A target leaf beyond the golden node's count gets " " differences,
 * Requires_grad Consistent False and Result pass, as msprobe writes them.
 *
 * Memory: the rendered fields of every leaf (about 250 bytes for a tensor
 * leaf in statistics mode) and its four statistics; entry names once.
 * Errors follow msg.h.
 */
#ifndef PROBE_GDATA_H
#define PROBE_GDATA_H

#include "../core/arena.h"
#include "../core/strbuf.h"
#include "../core/strmap.h"

enum gdata_mode { GDATA_STATISTICS, GDATA_TENSOR, GDATA_MD5 };

struct gleaf {
	const char *key;     /* its member name in input_data / output_data */
	size_t key_len;
	const char *row;     /* msprobe's row name (full_op_name), for the results */
	size_t row_len;
	const char *fields;  /* the JSON members, "\"dtype\": \"torch.float32\", ...", without braces */
	size_t fields_len;
	unsigned group;      /* 0 inputs, 1 parameters, 2 outputs, 3 parameter gradients, 4 debug */
	bool output;         /* goes into output_data */
	bool all_null;       /* written {"value": "null"} */
	bool process_group;  /* a torch.ProcessGroup: its four fields only, no compare columns either */
	bool stat_is_num[4]; /* Max, Min, Mean, Norm: an int or float (not a bool) */
	bool stat_is_int[4]; /* ... written as an integer (Python int arithmetic) */
	double stat[4];
	const char *requires_grad; /* str() of it as msprobe compares it; NULL for None */
};

struct gentry {
	const char *name;      /* the dump entry */
	size_t name_len;
	uint32_t first, count; /* its leaves */
};

struct gdata {
	struct gleaf *leaves;
	size_t n, alloc;
	struct gentry *entries;
	size_t nentries, ealloc;
	struct strmap by_entry; /* entry name -> index + 1 */
	char *dump_data_dir;    /* tensor mode: the dump's folder (absolute) and dump_tensor_data in it; else NULL */
	enum gdata_mode mode;
	struct arena arena;
};

/*
 * Read dump_path's leaves.  mode decides whether md5 stays.  0, or
 * PROBE_ERR with the dump reader's "FILE:LINE:COL: what" in err.
 * Release with gdata_release().
 */
int gdata_load(struct gdata *d, const char *dump_path, enum gdata_mode mode, struct strbuf *err);
void gdata_release(struct gdata *d);

/* The entry named name, or NULL. */
const struct gentry *gdata_entry(const struct gdata *d, const char *name, size_t len);

/* What the caller knows of one target row (probe-metric's msprobe member). */
struct grow_result {
	const char *result;      /* "pass", "warning", "error", ...; NULL: none known */
	const char *err_message; /* JSON list text, or NULL */
	const char *metrics;     /* tensor mode: JSON members of the metric columns, or NULL */
};
typedef bool (*gdata_lookup_fn)(void *ctx, const char *row, size_t len, struct grow_result *out);

/*
 * The input_data and output_data of one node, each a JSON object appended
 * to in and out.  e is its entry (NULL: {} and {}); with golden != NULL
 * (the matched golden node's entry in gd, possibly NULL for a node without
 * one) the target's leaves get the compare columns, lookup telling each
 * row's Result.  *worst receives the node's worst Result (0 pass, 0.5
 * warning, 1 error; -1 when no row had one).
 */
void gdata_render(const struct gdata *d, const struct gentry *e, const struct gdata *gd, const struct gentry *golden,
		  bool compared, gdata_lookup_fn lookup, void *ctx, struct strbuf *in, struct strbuf *out, double *worst);

#endif
