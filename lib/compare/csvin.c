#include "csvin.h"
#include "../json/json.h"
#include "../json/jsonw.h"
#include "../records/leafrec.h"
#include "../records/lines.h"
#include "../msprobe/pyfmt.h"
#include "../core/csvrows.h"
#include "verdict.h"
#include "../core/xalloc.h"
#include "../dumps/layout.h"

#include <ctype.h>

#define MAX_COLS 40

struct csv_reading {
	const char *path;
	int64_t rank;
	char **cells;      /* the row being read (csvrows.h) */
	size_t ncells;
	bool header_seen;
	char *header[MAX_COLS];
	size_t nheader;
	const char *mode;
	uint64_t row;
	uint64_t row_line; /* the line the row being read starts on */
	csvin_fn fn;
	void *ctx;
	int stop;
	struct strbuf *err;
	struct strbuf rec, t, g, scratch;
	struct verdict_result v;
};

static int col(const struct csv_reading *r, const char *name)
{
	for (size_t i = 0; i < r->nheader; i++)
		if (!strcmp(r->header[i], name))
			return (int)i;
	return -1;
}

static const char *cell(const struct csv_reading *r, const char *name)
{
	int i = col(r, name);
	return i >= 0 && (size_t)i < r->ncells ? r->cells[i] : NULL;
}

/* The entry of a row name: up to forward/backward/parameters_grad/debug and its number. */
static void entry_of(struct strbuf *out, const char *name)
{
	static const char *const words[] = { "forward", "backward", "parameters_grad", "debug" };
	const char *p = name;
	strbuf_reset(out);
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
			if (n != strlen(words[w]) || memcmp(p, words[w], n))
				continue;
			const char *end = p + n;
			/* modules and parameter grads put their number after the word */
			if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
				const char *q = end + 1;
				while (*q >= '0' && *q <= '9')
					q++;
				if (*q == '.' || !*q)
					end = q;
			}
			strbuf_add(out, name, (size_t)(end - name));
			return;
		}
		if (!dot)
			break;
		p = dot + 1;
	}
	strbuf_addstr(out, name);
}

static const char *state_of(const char *name)
{
	if (strstr(name, ".output."))
		return "output";
	if (strstr(name, ".parameters."))
		return "parameters";
	if (strstr(name, ".parameters_grad."))
		return "parameters_grad";
	if (strstr(name, ".debug"))
		return "debug";
	return "input";
}

static bool is_json_number(const char *s)
{
	const char *p = s;
	if (*p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return false;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

/* A statistics cell as a record value: numbers keep their text; None, Nan, inf as the contract spells them. */
static void add_stat_value(struct strbuf *out, const char *c)
{
	while (*c == ' ')
		c++;
	if (!strcmp(c, "None"))
		strbuf_addstr(out, "null");
	else if (!strcmp(c, "Nan") || !strcmp(c, "nan"))
		strbuf_addstr(out, "\"nan\"");
	else if (!strcmp(c, "inf"))
		strbuf_addstr(out, "\"inf\"");
	else if (!strcmp(c, "-inf"))
		strbuf_addstr(out, "\"-inf\"");
	else if (!strcmp(c, "True") || !strcmp(c, "False"))
		strbuf_addstr(out, c[0] == 'T' ? "true" : "false");
	else if (is_json_number(c))
		strbuf_addstr(out, c);
	else
		jsonw_str(out, c);
}

/* "[2, 3]" -> [2,3]; anything else (not a list of whole numbers) as a string. */
static void add_shape(struct strbuf *out, const char *c)
{
	const char *p = c + 1;
	size_t at = out->len;
	if (*c != '[')
		goto text;
	strbuf_addch(out, '[');
	while (*p == ' ')
		p++;
	while (*p != ']') {
		const char *d = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d || (*d == '0' && p - d > 1))
			goto text;
		strbuf_add(out, d, (size_t)(p - d));
		while (*p == ' ')
			p++;
		if (*p == ',') {
			strbuf_addch(out, ',');
			for (p++; *p == ' '; p++)
				;
			if (*p == ']')
				goto text;
		} else if (*p != ']') {
			goto text;
		}
	}
	if (p[1])
		goto text;
	strbuf_addch(out, ']');
	return;
text:
	strbuf_setlen(out, at);
	jsonw_str(out, c);
}

/* A Python list of str literals ("['a', \"b\\n\"]") as a JSON array; false when it is not one. */
static bool add_py_str_list(struct strbuf *out, const char *p)
{
	struct strbuf s = STRBUF_INIT;
	bool first = true;
	if (*p++ != '[')
		return false;
	strbuf_addch(out, '[');
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ']')
			break;
		if (*p != '\'' && *p != '"')
			goto bad;
		char q = *p++;
		strbuf_reset(&s);
		while (*p && *p != q) {
			if (*p == '\\' && p[1]) {
				p++;
				switch (*p) {
				case 'n': strbuf_addch(&s, '\n'); break;
				case 't': strbuf_addch(&s, '\t'); break;
				case 'r': strbuf_addch(&s, '\r'); break;
				case 'x': {
					unsigned v = 0;
					for (int k = 1; k <= 2; k++) {
						if (!isxdigit((unsigned char)p[k]))
							goto bad; /* also the end of the cell */
						v = v * 16 + (unsigned)(p[k] <= '9' ? p[k] - '0' : (p[k] | 32) - 'a' + 10);
					}
					strbuf_addch(&s, (char)v);
					p += 2;
					break;
				}
				default: strbuf_addch(&s, *p); break;
				}
				p++;
				continue;
			}
			strbuf_addch(&s, *p++);
		}
		if (*p != q)
			goto bad;
		p++;
		if (!first)
			strbuf_addch(out, ',');
		first = false;
		jsonw_string(out, s.buf, s.len);
	}
	strbuf_addch(out, ']');
	strbuf_release(&s);
	return true;
bad:
	strbuf_release(&s);
	return false;
}

/* The type a leaf had, from its dtype cell. */
static const char *type_of_dtype(const char *d, struct strbuf *scratch)
{
	if (!strcmp(d, "None"))
		return NULL;
	if (!strncmp(d, "<class '", 8)) {
		strbuf_reset(scratch);
		strbuf_add(scratch, d + 8, strlen(d + 8) - (strlen(d) >= 10 ? 2 : 0));
		return scratch->buf;
	}
	if (!strncmp(d, "torch.", 6) && strcmp(d, "torch.Size") && strcmp(d, "torch.ProcessGroup"))
		return "torch.Tensor";
	return d;
}

/* One side's leaf record from its columns (prefix "NPU " or "Bench "). */
static bool add_leaf(struct csv_reading *r, struct strbuf *out, bool npu)
{
	const char *name = cell(r, npu ? "NPU Name" : "Bench Name");
	const char *dtype = cell(r, npu ? "NPU Dtype" : "Bench Dtype");
	const char *shape = cell(r, npu ? "NPU Tensor Shape" : "Bench Tensor Shape");
	const char *rg = cell(r, npu ? "NPU Requires_grad" : "Bench Requires_grad");
	const char *md5 = cell(r, npu ? "NPU MD5" : "BENCH MD5");
	static const char *const stat_cols[2][4] = {
		{ "NPU max", "NPU min", "NPU mean", "NPU l2norm" },
		{ "Bench max", "Bench min", "Bench mean", "Bench l2norm" },
	};
	static const char *const stat_fields[4] = { "max", "min", "mean", "norm" };
	struct strbuf entry = STRBUF_INIT;
	const char *type;

	if (!name || !strcmp(name, "N/A"))
		return false;
	entry_of(&entry, name);
	strbuf_addstr(out, "{\"rank\":");
	if (r->rank >= 0)
		strbuf_addi(out, r->rank);
	else
		strbuf_addstr(out, "null");
	strbuf_addf(out, ",\"step\":null,\"seq\":%llu,\"entry\":", (unsigned long long)r->row);
	jsonw_str(out, entry.buf);
	strbuf_addstr(out, ",\"name\":");
	jsonw_str(out, name);
	strbuf_addstr(out, ",\"key\":");
	jsonw_str(out, name);
	strbuf_addstr(out, ",\"state\":");
	jsonw_str(out, state_of(name));
	type = dtype ? type_of_dtype(dtype, &r->scratch) : NULL;
	strbuf_addstr(out, ",\"type\":");
	if (type)
		jsonw_str(out, type);
	else
		strbuf_addstr(out, "null");
	if (type && !strcmp(type, "torch.Tensor")) {
		strbuf_addstr(out, ",\"dtype\":");
		jsonw_str(out, dtype);
		if (shape) {
			strbuf_addstr(out, ",\"shape\":");
			add_shape(out, shape);
		}
	}
	for (int i = 0; i < 4; i++) {
		const char *c = cell(r, stat_cols[!npu][i]);
		if (!c || !type)
			continue;
		if (strcmp(type, "torch.Tensor")) {
			/* scalars: msprobe shows the value four times */
			if (i == 0) {
				strbuf_addstr(out, ",\"value\":");
				add_stat_value(out, c);
			}
			continue;
		}
		strbuf_addf(out, ",\"%s\":", stat_fields[i]);
		add_stat_value(out, c);
	}
	if (rg && (!strcmp(rg, "True") || !strcmp(rg, "False")))
		strbuf_addf(out, ",\"requires_grad\":%s", rg[0] == 'T' ? "true" : "false");
	if (md5 && strcmp(md5, "N/A")) {
		strbuf_addstr(out, ",\"md5\":");
		jsonw_str(out, md5);
	}
	if (npu) {
		const char *st = cell(r, "NPU_Stack_Info");
		if (st && strcmp(st, "N/A")) {
			size_t at = out->len;
			strbuf_addstr(out, ",\"stack\":");
			if (!add_py_str_list(out, st))
				strbuf_setlen(out, at);
		}
	}
	strbuf_addstr(out, ",\"task\":");
	jsonw_str(out, !strcmp(r->mode, "tensor") ? "tensor" : "statistics");
	strbuf_addstr(out, ",\"source\":");
	jsonw_str(out, r->path);
	strbuf_addch(out, '}');
	strbuf_release(&entry);
	return true;
}

/* Whether s is one JSON array of strings on one line (as msprobe's Err_message). */
static bool is_string_list(const char *s)
{
	struct source *src;
	struct json_reader jr;
	struct json_token tok;
	enum json_type t = JSON_ERROR;
	if (strpbrk(s, "\r\n"))
		return false;
	src = source_from_memory("Err_message", s, strlen(s));
	json_reader_init(&jr, src, 0, 256);
	if (json_reader_next(&jr, &tok) == JSON_ARRAY_BEGIN)
		while ((t = json_reader_next(&jr, &tok)) == JSON_STRING)
			;
	if (t == JSON_ARRAY_END)
		t = json_reader_next(&jr, &tok);
	json_reader_release(&jr);
	source_close(src);
	return t == JSON_EOF;
}
static int emit_row(struct csv_reading *r)
{
	const char *result = cell(r, "Result"), *msg = cell(r, "Err_message");
	const char *name = cell(r, "NPU Name");
	struct leafrec lt, lg;
	const char *why;
	bool has_g;
	size_t i;

	if (!name || !result) {
		strbuf_addf(r->err, "%s:%llu: a row without NPU Name or Result", r->path, (unsigned long long)r->row_line);
		return -1;
	}
	/* the cell goes into the record as it is, so it must be what json.dumps writes */
	if (msg && msg[0] == '[' && !is_string_list(msg)) {
		strbuf_addf(r->err, "%s:%llu: Err_message is not a JSON list of strings on one line", r->path,
			    (unsigned long long)r->row_line);
		return -1;
	}
	strbuf_reset(&r->t);
	strbuf_reset(&r->g);
	add_leaf(r, &r->t, true);
	has_g = add_leaf(r, &r->g, false);
	if (leafrec_parse(&lt, r->t.buf, r->t.len, &why) < 0 ||
	    (has_g && leafrec_parse(&lg, r->g.buf, r->g.len, &why) < 0)) {
		strbuf_addf(r->err, "%s:%llu: %s", r->path, (unsigned long long)r->row_line, why);
		return -1;
	}
	verdict_pair(&lt, has_g ? &lg : NULL, &(struct verdict_options){ 0, 0, false }, &r->v);

	strbuf_reset(&r->rec);
	strbuf_addstr(&r->rec, "{\"key\":");
	jsonw_str(&r->rec, name);
	strbuf_addstr(&r->rec, ",\"t\":");
	strbuf_addbuf(&r->rec, &r->t);
	strbuf_addstr(&r->rec, ",\"g\":");
	if (has_g)
		strbuf_addbuf(&r->rec, &r->g);
	else
		strbuf_addstr(&r->rec, "null");
	strbuf_addstr(&r->rec, ",\"msprobe\":{\"mode\":");
	jsonw_str(&r->rec, r->mode);
	strbuf_addstr(&r->rec, ",\"result\":");
	jsonw_str(&r->rec, result);
	strbuf_addstr(&r->rec, ",\"err_message\":");
	if (msg && msg[0] == '[')
		strbuf_addstr(&r->rec, msg); /* msprobe wrote it with json.dumps */
	else
		strbuf_addstr(&r->rec, "[]");
	/* the metric cells: between the 8 leading columns and Requires_grad Consistent */
	for (i = 8; i < r->nheader && strcmp(r->header[i], "Requires_grad Consistent"); i++) {
		if ((!strncmp(r->header[i], "NPU ", 4) || !strncmp(r->header[i], "Bench ", 6)) &&
		    strcmp(r->header[i], "NPU MD5"))
			continue;
		strbuf_addch(&r->rec, ',');
		jsonw_str(&r->rec, r->header[i]);
		strbuf_addch(&r->rec, ':');
		jsonw_str(&r->rec, i < r->ncells ? r->cells[i] : "");
	}
	strbuf_addstr(&r->rec, "},\"verdict\":");
	jsonw_str(&r->rec, verdict_name(r->v.verdict));
	strbuf_addstr(&r->rec, ",\"reason\":");
	jsonw_string(&r->rec, r->v.reason.buf, r->v.reason.len);
	strbuf_addstr(&r->rec, "}\n");
	return r->fn(r->rec.buf, r->rec.len, r->ctx);
}

/* A row from csvrows_read(): the header first, then the rows as records. */
static int on_row(void *ctx, const struct csvrows_row *row, struct strbuf *err)
{
	struct csv_reading *r = ctx;
	(void)err;
	r->cells = row->cells;
	r->ncells = row->n;
	r->row_line = row->line;
	if (row->overflow) {
		strbuf_addf(r->err, "%s:%llu: more than %d columns: not an msprobe compare_result CSV", r->path,
			    (unsigned long long)r->row_line, MAX_COLS);
		r->stop = -1;
	} else if (!r->header_seen) {
		r->header_seen = true;
		for (size_t i = 0; i < row->n; i++)
			r->header[i] = xstrdup(row->cells[i]);
		r->nheader = row->n;
		r->mode = col(r, "Cosine") >= 0 ? "tensor" : col(r, "NPU MD5") >= 0 ? "md5" : "statistics";
		if (col(r, "NPU Name") != 0 || col(r, "Result") < 0) {
			strbuf_addf(r->err, "%s:1: not an msprobe compare_result CSV (its header has no NPU Name or Result)",
				    r->path);
			r->stop = -1;
		}
	} else if (r->ncells != r->nheader) {
		strbuf_addf(r->err, "%s:%llu: %zu cells where the header has %zu", r->path,
			    (unsigned long long)r->row_line, r->ncells, r->nheader);
		r->stop = -1;
	} else {
		r->stop = emit_row(r);
		r->row++;
	}
	r->cells = NULL;
	r->ncells = 0;
	return r->stop;
}

int csvin_read(const char *path, csvin_fn fn, void *ctx, struct strbuf *err)
{
	struct csv_reading r = { .path = path, .fn = fn, .ctx = ctx, .err = err, .row_line = 1 };
	size_t max;
	int ret;

	if (line_reader_limit(&max, err) < 0)
		return -1;
	r.rank = layout_compare_csv_rank(path);
	strbuf_init(&r.rec, 0);
	strbuf_init(&r.t, 0);
	strbuf_init(&r.g, 0);
	strbuf_init(&r.scratch, 0);
	strbuf_init(&r.v.reason, 0);
	ret = csvrows_read(path, max, MAX_COLS, on_row, &r, err);
	if (!ret && !r.row) {
		strbuf_addf(err, "%s: no rows: nothing to compare", path);
		ret = -1;
	}
	for (size_t i = 0; i < r.nheader; i++)
		free(r.header[i]);
	strbuf_release(&r.rec);
	strbuf_release(&r.t);
	strbuf_release(&r.g);
	strbuf_release(&r.scratch);
	strbuf_release(&r.v.reason);
	return ret < 0 ? -1 : ret;
}
