#include "mscell.h"

#include <strings.h>

#include <zlib.h>

static const char *arena_str(struct arena *a, const struct strbuf *sb)
{
	return arena_memdupz(a, sb->buf, sb->len);
}

/* Scratch text for the hot paths: one per thread, kept for the process's life. */
static _Thread_local struct strbuf scratch = { 0, 0, strbuf_empty };

void mscell_release_thread(void)
{
	strbuf_release(&scratch);
}

static const char *span_text(const struct span *s, struct arena *a)
{
	const char *p;
	size_t n;
	if (s->kind != SPAN_STRING)
		return NULL;
	if (span_plain_string(s, &p, &n))
		return arena_memdupz(a, p, n);
	strbuf_reset(&scratch);
	span_string(s, &scratch);
	return arena_str(a, &scratch);
}

/* The Python value of a field (None when absent). */
static struct pyval *field_value(const struct leafrec *r, enum leaf_field f, unsigned flags, struct arena *a)
{
	static const struct span none = { "null", 4, SPAN_NULL };
	return pyval_parse(r->f[f].kind == SPAN_NONE ? &none : &r->f[f], flags, a);
}

static struct pyval *make_str(struct arena *a, const char *s, size_t n)
{
	struct pyval *v = arena_alloc(a, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = PY_STR;
	v->text = arena_memdupz(a, s, n);
	v->len = n;
	return v;
}

/* msprobe's clean-up of a statistic: None -> "None", str(x).lower() == "nan" -> "Nan". */
static struct pyval *clean_stat(struct pyval *v, struct arena *a)
{
	if (v->kind == PY_NONE)
		return make_str(a, "None", 4);
	if (v->kind == PY_INT || v->kind == PY_BOOL || (v->kind == PY_FLOAT && !pyval_is_nan(v)))
		return v; /* str() of these is never "nan" */
	strbuf_reset(&scratch);
	pyval_str(&scratch, v);
	if (scratch.len == 3 && (scratch.buf[0] | 32) == 'n' && (scratch.buf[1] | 32) == 'a' &&
	    (scratch.buf[2] | 32) == 'n')
		return make_str(a, "Nan", 3);
	return v;
}

static const char *crc_of_text(const char *s, size_t n, struct arena *a)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = arena_alloc(a, 9);
	uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)s, (uInt)n);
	for (int i = 7; i >= 0; i--, crc >>= 4)
		hex[i] = digits[crc & 15];
	hex[8] = '\0';
	return hex;
}

/* str(np.shape(np.array(v))) for the nested lists of a slice value. */
static void numpy_shape(struct strbuf *out, const struct pyval *v)
{
	size_t dims[32], nd = 0;
	const struct pyval *cur = v;
	while (cur->kind == PY_LIST && nd < ARRAY_SIZE(dims)) {
		dims[nd++] = cur->n;
		if (!cur->n)
			break;
		/* rectangular only while every item is a list of the same length */
		for (size_t i = 1; i < cur->n; i++)
			if (cur->items[i]->kind != cur->items[0]->kind ||
			    (cur->items[0]->kind == PY_LIST && cur->items[i]->n != cur->items[0]->n))
				goto done;
		cur = cur->items[0];
	}
done:
	strbuf_addch(out, '(');
	for (size_t i = 0; i < nd; i++)
		strbuf_addf(out, i ? ", %zu" : "%zu", dims[i]);
	if (nd == 1)
		strbuf_addch(out, ',');
	strbuf_addch(out, ')');
}

static bool is_truthy_str(const struct span *s)
{
	return s->kind == SPAN_STRING && s->n > 2;
}

static bool type_is(const struct leafrec *r, const char *t)
{
	return span_str_eq(&r->f[LF_TYPE], t, strlen(t));
}

static bool name_ends_in_src_or_dst(const struct leafrec *r)
{
	const struct span *n = &r->f[LF_NAME];
	static const char *const parts[] = { ".src\"", ".dst\"", ".group_src\"", ".group_dst\"" };
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		size_t k = strlen(parts[i]);
		/* also a name that is just "src" (no dot): msprobe looks at the last component */
		if (n->n >= k && !memcmp(n->p + n->n - k, parts[i], k))
			return true;
		if (n->n == k && !memcmp(n->p + 1, parts[i] + 1, k - 1))
			return true;
	}
	return false;
}

enum ms_kind mscell_kind_of(const struct leafrec *r)
{
	if (r->f[LF_TYPE].kind != SPAN_STRING)
		return MS_NULL;
	if (is_truthy_str(&r->f[LF_DTYPE]))
		return MS_TENSOR;
	if (type_is(r, "torch.Size"))
		return MS_SIZE;
	if (type_is(r, "slice"))
		return MS_SLICE;
	if (type_is(r, "ellipsis"))
		return MS_ELLIPSIS;
	if (name_ends_in_src_or_dst(r))
		return MS_SRCDST;
	if (type_is(r, "torch.ProcessGroup"))
		return MS_GROUP;
	return MS_SCALAR;
}

/* Python's type name of the value json.load() makes of a scalar's "value". */
static const char *value_type_name(const struct leafrec *r)
{
	const struct span *v = &r->f[LF_VALUE];
	switch (v->kind) {
	case SPAN_NONE:
	case SPAN_NULL: return "NoneType";
	case SPAN_TRUE:
	case SPAN_FALSE: return "bool";
	case SPAN_ARRAY: return "list";
	case SPAN_OBJECT: return "dict";
	case SPAN_NUMBER:
		for (size_t i = 0; i < v->n; i++)
			if (v->p[i] == '.' || v->p[i] == 'e' || v->p[i] == 'E')
				return "float";
		return "int";
	case SPAN_STRING:
		if (!type_is(r, "str") && (span_str_eq(v, "nan", 3) || span_str_eq(v, "inf", 3) ||
					   span_str_eq(v, "-inf", 4)))
			return "float";
		return "str";
	}
	return "NoneType";
}

void mscell_dtype(const struct leafrec *r, struct strbuf *out)
{
	strbuf_reset(out);
	switch (mscell_kind_of(r)) {
	case MS_NULL:
		strbuf_addstr(out, "None");
		return;
	case MS_TENSOR:
		span_string(&r->f[LF_DTYPE], out);
		return;
	case MS_SCALAR:
		strbuf_addf(out, "<class '%s'>", value_type_name(r));
		return;
	default:
		span_string(&r->f[LF_TYPE], out);
		return;
	}
}

/*
 * str() of a shape that is a JSON array of plain whole numbers ([32,64,56,56]
 * -> "[32, 64, 56, 56]", [] -> "[]") without building its value; false,
 * leaving out as it was, for anything else (the general path decides).
 */
static bool plain_shape(const struct span *s, struct strbuf *out)
{
	const char *p = s->p, *end = s->p + s->n;
	size_t start = out->len;
	if (s->kind != SPAN_ARRAY || s->n < 2 || p[0] != '[' || end[-1] != ']')
		return false;
	strbuf_addch(out, '[');
	for (p++; p < end - 1;) {
		const char *q = p;
		while (q < end - 1 && *q >= '0' && *q <= '9')
			q++;
		/* digits, no leading zero but "0", then ',' or the end */
		if (q == p || (*p == '0' && q - p > 1) || (q < end - 1 && *q != ',') || (*q == ',' && q + 1 == end - 1)) {
			strbuf_setlen(out, start);
			return false;
		}
		if (out->len > start + 1)
			strbuf_add(out, ", ", 2);
		strbuf_add(out, p, (size_t)(q - p));
		p = *q == ',' ? q + 1 : q;
	}
	strbuf_addch(out, ']');
	return true;
}

int mscell_from_record(struct msleaf *m, const struct leafrec *r, struct arena *a, const char **why)
{
	struct strbuf sb = STRBUF_INIT;
	struct pyval *value;
	bool has_value = r->f[LF_VALUE].kind != SPAN_NONE;

	memset(m, 0, sizeof(*m));
	m->name = span_text(&r->f[LF_NAME], a);
	m->output_row = m->name && strstr(m->name, ".output.") != NULL;
	m->entry = span_text(&r->f[LF_ENTRY], a);
	m->state = span_text(&r->f[LF_STATE], a);
	m->data_name = is_truthy_str(&r->f[LF_DATA_NAME]) ? span_text(&r->f[LF_DATA_NAME], a) : "-1";

	enum ms_kind kind = mscell_kind_of(r);
	mscell_dtype(r, &sb);
	m->dtype = arena_str(a, &sb);
	strbuf_reset(&sb);
	if (kind == MS_NULL) {
		/* a null slot: msprobe's default item */
		m->null_leaf = true;
		m->shape = "None";
		for (int i = 0; i < 4; i++)
			m->stat[i] = make_str(a, "None", 4);
		strbuf_release(&sb);
		return 0;
	}
	/* a value the leaf's type says is not a str may be a spelled-out non-finite float */
	value = field_value(r, LF_VALUE, type_is(r, "str") ? 0 : PYV_NONFINITE_STRINGS, a);
	if (!value) {
		strbuf_release(&sb);
		*why = "\"value\" is not valid JSON";
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		m->stat[i] = field_value(r, (enum leaf_field)(LF_MAX + i), PYV_NONFINITE_STRINGS, a);
		if (!m->stat[i]) {
			strbuf_release(&sb);
			*why = "a statistic is not valid JSON";
			return -1;
		}
	}
	if (r->f[LF_REQUIRES_GRAD].kind == SPAN_TRUE || r->f[LF_REQUIRES_GRAD].kind == SPAN_FALSE)
		m->req_grad = r->f[LF_REQUIRES_GRAD].kind == SPAN_TRUE ? "True" : "False";
	else if (r->f[LF_REQUIRES_GRAD].kind != SPAN_NONE && r->f[LF_REQUIRES_GRAD].kind != SPAN_NULL) {
		struct pyval *rg = field_value(r, LF_REQUIRES_GRAD, 0, a);
		if (rg)
			pyval_str(&sb, rg);
		m->req_grad = arena_str(a, &sb);
		strbuf_reset(&sb);
	}
	m->md5 = is_truthy_str(&r->f[LF_MD5]) ? span_text(&r->f[LF_MD5], a) : NULL;

	switch (kind) {
	case MS_TENSOR:
		if (r->f[LF_SHAPE].kind == SPAN_NONE) {
			m->shape = "None";
		} else if (plain_shape(&r->f[LF_SHAPE], &sb)) {
			m->shape = arena_str(a, &sb);
			strbuf_reset(&sb);
		} else {
			struct pyval *shape = field_value(r, LF_SHAPE, 0, a);
			if (!shape) {
				strbuf_release(&sb);
				*why = "\"shape\" is not valid JSON";
				return -1;
			}
			pyval_str(&sb, shape);
			m->shape = arena_str(a, &sb);
			strbuf_reset(&sb);
		}
		break;
	case MS_SIZE:
		pyval_str(&sb, value);
		m->shape = arena_str(a, &sb);
		strbuf_reset(&sb);
		break;
	case MS_SLICE:
		numpy_shape(&sb, value);
		m->shape = arena_str(a, &sb);
		strbuf_reset(&sb);
		break;
	case MS_ELLIPSIS:
		m->shape = "[]";
		for (int i = 0; i < 4; i++)
			m->stat[i] = value;
		break;
	case MS_SRCDST:
		m->shape = "[]";
		pyval_str(&sb, value);
		for (int i = 0; i < 4; i++)
			m->stat[i] = make_str(a, sb.buf, sb.len);
		m->md5 = arena_str(a, &sb);
		strbuf_reset(&sb);
		break;
	case MS_GROUP: {
		struct pyval *ranks = NULL;
		if (r->f[LF_ATTRS].kind == SPAN_OBJECT) {
			struct pyval *attrs = field_value(r, LF_ATTRS, 0, a);
			for (size_t i = 0; attrs && i < attrs->n; i++)
				if (attrs->items[2 * i]->len == 11 && !memcmp(attrs->items[2 * i]->text, "group_ranks", 11))
					ranks = attrs->items[2 * i + 1];
		}
		m->shape = "[]";
		if (ranks)
			pyval_str(&sb, ranks);
		else
			strbuf_addstr(&sb, "None");
		for (int i = 0; i < 4; i++)
			m->stat[i] = make_str(a, sb.buf, sb.len);
		m->md5 = arena_str(a, &sb);
		strbuf_reset(&sb);
		break;
	}
	default:
		/* any other scalar: the value four times */
		m->shape = "[]";
		for (int i = 0; i < 4; i++)
			m->stat[i] = value;
		break;
	}
	if (!m->md5) {
		/* no md5 of its own: CRC-32 of str(value), of '' when there is no value at all */
		if (has_value)
			pyval_str(&sb, value);
		m->md5 = crc_of_text(sb.buf, sb.len, a);
		strbuf_reset(&sb);
	}
	for (int i = 0; i < 4; i++)
		m->stat[i] = clean_stat(m->stat[i], a);
	strbuf_release(&sb);
	return 0;
}

/* ---- the dtype gate ------------------------------------------------------------------- */

static bool in_list(const char *d, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d, v[i]))
			return true;
	return false;
}

/* msprobe's cross-framework kind of a dtype name of either framework, or the name itself. */
static const char *dtype_kind(const char *d)
{
	static const char *const ints[] = { "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64",
					    "UInt64", "torch.int8", "torch.uint8", "torch.int16", "torch.uint16",
					    "torch.int32", "torch.uint32", "torch.int64", "torch.uint64" };
	static const char *const floats[] = { "Float16", "Float32", "Float64", "BFloat16", "torch.float16",
					      "torch.float32", "torch.float64", "torch.bfloat16" };
	static const char *const bools[] = { "Bool", "torch.bool" };
	static const char *const complexes[] = { "Complex64", "Complex128", "torch.complex64", "torch.complex128" };
	if (in_list(d, ints, ARRAY_SIZE(ints)))
		return "int";
	if (in_list(d, floats, ARRAY_SIZE(floats)))
		return "float";
	if (in_list(d, bools, ARRAY_SIZE(bools)))
		return "bool";
	if (in_list(d, complexes, ARRAY_SIZE(complexes)))
		return "complex";
	return d;
}

bool mscell_dtype_gate(const char *t, const char *g, bool cross)
{
	static const char *const torch_floats[] = { "torch.float16", "torch.float32", "torch.bfloat16" };
	static const char *const ms_floats[] = { "Float16", "Float32", "BFloat16" };
	if (!strcmp(t, g))
		return true;
	if ((in_list(t, torch_floats, 3) && in_list(g, torch_floats, 3)) || (in_list(t, ms_floats, 3) && in_list(g, ms_floats, 3)))
		return true;
	return cross && !strcmp(dtype_kind(t), dtype_kind(g));
}

static bool ms_and_torch_same(const char *ms, const char *pt)
{
	if (strncmp(pt, "torch.", 6) || !strncmp(ms, "torch.", 6) || !*ms)
		return false;
	return !strcasecmp(ms, pt + 6);
}

bool mscell_dtype_same_across(const char *a, const char *b)
{
	return ms_and_torch_same(a, b) || ms_and_torch_same(b, a);
}
