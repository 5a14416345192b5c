#include "flatten.h"
#include "atb.h"
#include "ckrecord.h"
#include "dump.h"
#include "../records/leafrec.h"
#include "record.h"
#include "../core/msg.h"

#include <sys/stat.h>

struct flattening {
	struct record_source src;
	bool prepared;
	struct strbuf text;
	flatten_fn fn;
	void *ctx;
};

/* A tensor dump whose tensor directory is not there: said once, up front, not per leaf. */
static void warn_if_no_tensors(const struct dump_reader *d, const char *dir)
{
	struct stat st;
	if (!d->meta.task || strcmp(d->meta.task, "tensor") || !dir || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return;
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	warning("%.*s: no such directory: the tensor files of %s are not there, and none of its tensors can be "
		"compared element by element", (int)n, dir, d->path);
}

static int one_leaf(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	struct flattening *f = ctx;
	if (!f->prepared) {
		f->src.task = d->meta.task;
		f->src.tensor_dir = record_tensor_dir(d->path, d->meta.dump_data_dir);
		warn_if_no_tensors(d, f->src.tensor_dir);
		record_source_prepare(&f->src);
		f->prepared = true;
	}
	struct leafrec rec;
	strbuf_reset(&f->text);
	record_add_leaf(&f->text, &f->src, leaf, &rec);
	return f->fn(f->text.buf, f->text.len, &rec, f->ctx);
}

/* An ATB exec folder (atb.h): its records made whole, then passed on one by one. */
static int flatten_atb(const struct dump_file *df, int64_t rank, int64_t step, flatten_fn fn, void *ctx,
		       struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct atb_read_stats st = { 0 };
	int ret = atb_flatten_exec(df->path, rank, step, &text, &st, err);
	for (size_t at = 0; !ret && at < text.len;) {
		const char *line = text.buf + at, *nl = memchr(line, '\n', text.len - at), *why;
		size_t len = (size_t)(nl - line) + 1;
		struct leafrec rec;
		if (leafrec_parse(&rec, line, len - 1, &why) < 0) {
			/* cannot happen: atb.c writes them */
			ret = msg_fail(err, df->path, "internal error: a record of it is not a leaf record (%s)", why);
			break;
		}
		ret = fn(line, len, &rec, ctx);
		at += len;
	}
	strbuf_release(&text);
	return ret;
}

int flatten_dump(const struct dump_file *df, int64_t rank, int64_t step, flatten_fn fn, void *ctx,
		 struct strbuf *err)
{
	struct dump_reader d;
	struct flattening f = { .text = STRBUF_INIT, .fn = fn, .ctx = ctx };
	int ret;

	if (df->atb)
		return flatten_atb(df, rank, step, fn, ctx, err);
	if (df->ckpt)
		return ckrecord_flatten(df, rank, step, fn, ctx, err);
	dump_reader_init(&d, df->path);
	d.debug_file = df->debug;
	f.src.rank = rank >= 0 ? rank : df->rank;
	f.src.step = step >= 0 ? step : df->step;
	f.src.exec_mode = df->exec_mode;
	f.src.dump = df->path;
	ret = dump_read(&d, one_leaf, &f);
	if (ret < 0)
		strbuf_addbuf(err, &d.err);
	free((char *)f.src.tensor_dir);
	record_source_release(&f.src);
	strbuf_release(&f.text);
	dump_reader_release(&d);
	return ret;
}
