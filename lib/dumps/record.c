#include "record.h"
#include "../records/leafrec.h"
#include "layout.h"
#include "../json/jsonw.h"
#include "../core/xalloc.h"

char *record_tensor_dir(const char *dump_path, const char *dump_data_dir)
{
	struct strbuf sb = STRBUF_INIT;
	if (!strcmp(dump_path, "-")) {
		if (!dump_data_dir || !*dump_data_dir)
			return NULL;
		strbuf_addstr(&sb, dump_data_dir);
	} else {
		const char *slash = strrchr(dump_path, '/');
		if (slash)
			strbuf_add(&sb, dump_path, (size_t)(slash - dump_path) + 1);
		strbuf_addstr(&sb, "dump_tensor_data");
	}
	if (sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb, NULL);
}

static void add_int_or_null(struct strbuf *out, int64_t v)
{
	if (v < 0)
		strbuf_add(out, "null", 4);
	else
		strbuf_addi(out, v);
}

void record_source_prepare(struct record_source *src)
{
	strbuf_reset(&src->head);
	strbuf_add(&src->head, "{\"rank\":", 8);
	add_int_or_null(&src->head, src->rank);
	strbuf_add(&src->head, ",\"step\":", 8);
	add_int_or_null(&src->head, src->step);
	if (src->exec_mode != LEAF_EXEC_NONE) {
		strbuf_add(&src->head, ",\"exec_mode\":", 13);
		jsonw_str(&src->head, leaf_exec_mode_names[src->exec_mode]);
	}
	strbuf_add(&src->head, ",\"seq\":", 7);
	strbuf_reset(&src->tail);
	if (src->task) {
		strbuf_add(&src->tail, ",\"task\":", 8);
		jsonw_str(&src->tail, src->task);
	}
	strbuf_add(&src->tail, ",\"dump\":", 8);
	jsonw_str(&src->tail, src->dump);
	strbuf_reset(&src->entry_json);
	src->entry_seq = 0;
}

void record_source_release(struct record_source *src)
{
	strbuf_release(&src->head);
	strbuf_release(&src->tail);
	strbuf_release(&src->entry_json);
}

/* Where each field's value was written: offsets into the output, for the caller's leafrec. */
struct marks {
	size_t start[LF_NFIELDS], end[LF_NFIELDS];
	bool set[LF_NFIELDS];
};

static void mark(struct marks *mk, enum leaf_field f, size_t start, const struct strbuf *out)
{
	if (!mk)
		return;
	mk->start[f] = start;
	mk->end[f] = out->len;
	mk->set[f] = true;
}

static enum span_kind kind_of_text(char c)
{
	switch (c) {
	case '"': return SPAN_STRING;
	case '{': return SPAN_OBJECT;
	case '[': return SPAN_ARRAY;
	case 't': return SPAN_TRUE;
	case 'f': return SPAN_FALSE;
	case 'n': return SPAN_NULL;
	default: return SPAN_NUMBER;
	}
}

/* Leaf members with a field of their own, in record order. */
enum field {
	F_DTYPE, F_SHAPE, F_MAX, F_MIN, F_MEAN, F_NORM, F_REQUIRES_GRAD, F_MD5, F_VALUE,
	F_NFIELDS,
	F_TYPE = F_NFIELDS, F_DATA_NAME, F_OTHER,
};

/* Each field as it starts a member of the record: the comma, the quoted name and the colon. */
static const struct {
	const char *text;
	size_t len;
} field_member[F_NFIELDS] = {
#define MEMBER(name) { ",\"" name "\":", sizeof(",\"" name "\":") - 1 }
	MEMBER("dtype"), MEMBER("shape"), MEMBER("max"), MEMBER("min"), MEMBER("mean"),
	MEMBER("norm"), MEMBER("requires_grad"), MEMBER("md5"), MEMBER("value"),
#undef MEMBER
};

static bool key_is(const struct jnode *m, const char *s, size_t n)
{
	return m->key_len == n && !memcmp(m->key, s, n);
}

static enum field member_field(const struct jnode *m)
{
	switch (m->key_len) {
	case 3:
		if (key_is(m, "Max", 3)) return F_MAX;
		if (key_is(m, "Min", 3)) return F_MIN;
		if (key_is(m, "md5", 3)) return F_MD5;
		break;
	case 4:
		if (key_is(m, "type", 4)) return F_TYPE;
		if (key_is(m, "Mean", 4)) return F_MEAN;
		if (key_is(m, "Norm", 4)) return F_NORM;
		break;
	case 5:
		if (key_is(m, "dtype", 5)) return F_DTYPE;
		if (key_is(m, "shape", 5)) return F_SHAPE;
		if (key_is(m, "value", 5)) return F_VALUE;
		break;
	case 9:
		if (key_is(m, "data_name", 9)) return F_DATA_NAME;
		break;
	case 13:
		if (key_is(m, "requires_grad", 13)) return F_REQUIRES_GRAD;
		break;
	}
	return F_OTHER;
}

static const enum leaf_field field_to_leaf[] = {
	LF_DTYPE, LF_SHAPE, LF_MAX, LF_MIN, LF_MEAN, LF_NORM, LF_REQUIRES_GRAD, LF_MD5, LF_VALUE,
};

static void add_members(struct strbuf *out, const struct jnode *obj, struct marks *mk)
{
	const struct jnode *field[F_NFIELDS] = { NULL };
	const struct jnode *type = NULL;
	bool attrs = false;

	for (const struct jnode *m = obj->child; m; m = m->next) {
		enum field f = member_field(m);
		if (f < F_NFIELDS)
			field[f] = m;
		else if (f == F_TYPE)
			type = m;
		else if (f == F_OTHER)
			attrs = true;
	}
	strbuf_add(out, ",\"type\":", 8);
	size_t at = out->len;
	if (type)
		jsonw_tree(out, type);
	else
		strbuf_add(out, "null", 4);
	mark(mk, LF_TYPE, at, out);
	for (int f = 0; f < F_NFIELDS; f++) {
		if (!field[f])
			continue;
		strbuf_add(out, field_member[f].text, field_member[f].len);
		at = out->len;
		jsonw_tree(out, field[f]);
		mark(mk, field_to_leaf[f], at, out);
	}
	if (!attrs)
		return;
	strbuf_add(out, ",\"attrs\":", 9);
	at = out->len;
	strbuf_addch(out, '{');
	bool first = true;
	for (const struct jnode *m = obj->child; m; m = m->next) {
		if (member_field(m) != F_OTHER)
			continue;
		if (!first)
			strbuf_addch(out, ',');
		first = false;
		jsonw_string(out, m->key, m->key_len);
		strbuf_addch(out, ':');
		jsonw_tree(out, m);
	}
	strbuf_addch(out, '}');
	mark(mk, LF_ATTRS, at, out);
}

static void add_p2p(struct strbuf *out, const struct jnode *p2p)
{
	bool first = true;
	strbuf_add(out, ",\"p2p\":{", 8);
	for (const struct jnode *m = p2p->child; m; m = m->next) {
		if (key_is(m, "tensor", 6))
			continue;
		if (!first)
			strbuf_addch(out, ',');
		first = false;
		jsonw_string(out, m->key, m->key_len);
		strbuf_addch(out, ':');
		jsonw_tree(out, m);
	}
	strbuf_addch(out, '}');
}

/* A string field "k":"v" with its mark. */
static void add_str_field(struct strbuf *out, const char *key, size_t key_len, const char *v, struct marks *mk,
			  enum leaf_field f)
{
	size_t at;
	strbuf_add(out, key, key_len);
	at = out->len;
	jsonw_str(out, v);
	mark(mk, f, at, out);
}

static void fill_leafrec(struct leafrec *rec, const struct strbuf *out, const struct marks *mk,
			 const struct record_source *src, const struct leaf *leaf)
{
	memset(rec->f, 0, sizeof(rec->f));
	for (int f = 0; f < LF_NFIELDS; f++)
		if (mk->set[f])
			rec->f[f] = (struct span){ out->buf + mk->start[f], mk->end[f] - mk->start[f],
						   kind_of_text(out->buf[mk->start[f]]) };
	rec->text = out->buf;
	rec->len = out->len - 1; /* without the newline */
	rec->rank = src->rank;
	rec->step = src->step;
	rec->exec_mode = src->exec_mode;
	rec->seq = (int64_t)leaf->seq;
}

void record_add_leaf(struct strbuf *out, struct record_source *src, const struct leaf *leaf, struct leafrec *rec)
{
	struct marks marks, *mk = rec ? &marks : NULL;
	size_t at, begin = out->len;
	if (rec)
		memset(&marks, 0, sizeof(marks));
	if (src->entry_seq != leaf->entry_seq + 1) {
		strbuf_reset(&src->entry_json);
		jsonw_str(&src->entry_json, leaf->entry);
		src->entry_seq = leaf->entry_seq + 1;
	}
	strbuf_addbuf(out, &src->head);
	if (src->exec_mode != LEAF_EXEC_NONE && mk) {
		/* the head ends "exec_mode":"<name>","seq": */
		size_t n = strlen(leaf_exec_mode_names[src->exec_mode]) + 2;
		mk->start[LF_EXEC_MODE] = out->len - 7 - n;
		mk->end[LF_EXEC_MODE] = out->len - 7;
		mk->set[LF_EXEC_MODE] = true;
	}
	at = out->len;
	strbuf_addu(out, leaf->seq);
	mark(mk, LF_SEQ, at, out);
	strbuf_add(out, ",\"entry\":", 9);
	at = out->len;
	strbuf_addbuf(out, &src->entry_json);
	mark(mk, LF_ENTRY, at, out);
	add_str_field(out, ",\"name\":", 8, leaf->name, mk, LF_NAME);
	add_str_field(out, ",\"key\":", 7, leaf->key, mk, LF_KEY);
	add_str_field(out, ",\"state\":", 9, dump_leaf_state_name(leaf->state), mk, LF_STATE);
	if (leaf->obj) {
		add_members(out, leaf->obj, mk);
	} else {
		strbuf_add(out, ",\"type\":", 8);
		at = out->len;
		strbuf_add(out, "null", 4);
		mark(mk, LF_TYPE, at, out);
	}
	if (leaf->p2p)
		add_p2p(out, leaf->p2p);
	if (leaf->data_name) {
		add_str_field(out, ",\"data_name\":", 13, leaf->data_name, mk, LF_DATA_NAME);
		if (src->tensor_dir) {
			struct strbuf path = STRBUF_INIT;
			strbuf_addstr(&path, src->tensor_dir);
			strbuf_addstr(&path, leaf->data_name);
			strbuf_add(out, ",\"data\":", 8);
			at = out->len;
			jsonw_string(out, path.buf, path.len);
			mark(mk, LF_DATA, at, out);
			strbuf_release(&path);
		}
	}
	strbuf_addbuf(out, &src->tail);
	if (leaf->msprobe_skips)
		strbuf_add(out, ",\"msprobe_skips\":true", 21);
	strbuf_add(out, "}\n", 2);
	if (rec) {
		/* the spans are relative to this record's start */
		for (int f = 0; f < LF_NFIELDS; f++)
			if (marks.set[f])
				marks.start[f] -= begin, marks.end[f] -= begin;
		struct strbuf view = { out->alloc, out->len - begin, out->buf + begin };
		fill_leafrec(rec, &view, &marks, src, leaf);
	}
}

void record_add_dump_file(struct strbuf *out, const struct dump_file *df, int64_t rank, int64_t step)
{
	strbuf_add(out, "{\"dump\":", 8);
	jsonw_str(out, df->path);
	strbuf_add(out, ",\"rank\":", 8);
	add_int_or_null(out, rank);
	strbuf_add(out, ",\"step\":", 8);
	add_int_or_null(out, step);
	if (df->exec_mode != LEAF_EXEC_NONE) {
		strbuf_add(out, ",\"exec_mode\":", 13);
		jsonw_str(out, leaf_exec_mode_names[df->exec_mode]);
	}
	strbuf_addstr(out, df->csv ? ",\"kind\":\"csv\"}\n" : df->atb ? ",\"kind\":\"atb\"}\n" : df->ckpt ? ",\"kind\":\"checkpoint\"}\n" : df->debug ? ",\"kind\":\"debug\"}\n" : ",\"kind\":\"dump\"}\n");
}
