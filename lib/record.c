#include "record.h"
#include "layout.h"
#include "jsonw.h"
#include "xalloc.h"

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

/* Leaf members with a field of their own, in record order. */
enum field {
	F_DTYPE, F_SHAPE, F_MAX, F_MIN, F_MEAN, F_NORM, F_REQUIRES_GRAD, F_MD5, F_VALUE,
	F_NFIELDS,
	F_TYPE = F_NFIELDS, F_DATA_NAME, F_OTHER,
};

static const char *const field_name[F_NFIELDS] = {
	"dtype", "shape", "max", "min", "mean", "norm", "requires_grad", "md5", "value",
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

static void add_members(struct strbuf *out, const struct jnode *obj)
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
	if (type)
		jsonw_tree(out, type);
	else
		strbuf_add(out, "null", 4);
	for (int f = 0; f < F_NFIELDS; f++) {
		if (!field[f])
			continue;
		strbuf_addch(out, ',');
		jsonw_str(out, field_name[f]);
		strbuf_addch(out, ':');
		jsonw_tree(out, field[f]);
	}
	if (!attrs)
		return;
	strbuf_add(out, ",\"attrs\":{", 10);
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

void record_add_leaf(struct strbuf *out, struct record_source *src, const struct leaf *leaf)
{
	if (src->entry_seq != leaf->entry_seq + 1) {
		strbuf_reset(&src->entry_json);
		jsonw_str(&src->entry_json, leaf->entry);
		src->entry_seq = leaf->entry_seq + 1;
	}
	strbuf_addbuf(out, &src->head);
	strbuf_addu(out, leaf->seq);
	strbuf_add(out, ",\"entry\":", 9);
	strbuf_addbuf(out, &src->entry_json);
	strbuf_add(out, ",\"name\":", 8);
	jsonw_str(out, leaf->name);
	strbuf_add(out, ",\"key\":", 7);
	jsonw_str(out, leaf->key);
	strbuf_add(out, ",\"state\":", 9);
	jsonw_str(out, leaf_state_name(leaf->state));
	if (leaf->obj)
		add_members(out, leaf->obj);
	else
		strbuf_add(out, ",\"type\":null", 12);
	if (leaf->p2p)
		add_p2p(out, leaf->p2p);
	if (leaf->data_name) {
		strbuf_add(out, ",\"data_name\":", 13);
		jsonw_str(out, leaf->data_name);
		if (src->tensor_dir) {
			struct strbuf path = STRBUF_INIT;
			strbuf_addstr(&path, src->tensor_dir);
			strbuf_addstr(&path, leaf->data_name);
			strbuf_add(out, ",\"data\":", 8);
			jsonw_string(out, path.buf, path.len);
			strbuf_release(&path);
		}
	}
	strbuf_addbuf(out, &src->tail);
	if (leaf->msprobe_skips)
		strbuf_add(out, ",\"msprobe_skips\":true", 21);
	strbuf_add(out, "}\n", 2);
}

void record_add_dump_file(struct strbuf *out, const struct dump_file *df, int64_t rank, int64_t step)
{
	strbuf_add(out, "{\"dump\":", 8);
	jsonw_str(out, df->path);
	strbuf_add(out, ",\"rank\":", 8);
	add_int_or_null(out, rank);
	strbuf_add(out, ",\"step\":", 8);
	add_int_or_null(out, step);
	strbuf_addstr(out, df->debug ? ",\"kind\":\"debug\"}\n" : ",\"kind\":\"dump\"}\n");
}

void record_add_error(struct strbuf *out, const char *message)
{
	strbuf_add(out, "{\"error\":", 9);
	jsonw_str(out, message);
	strbuf_add(out, "}\n", 2);
}
