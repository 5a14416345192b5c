/* ckrecord.c: a checkpoint's parameters as leaf records (ckrecord.h). */
#include "ckrecord.h"
#include "../ckpt/ckpt.h"
#include "../core/msg.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"
#include "../records/leafrec.h"

#include <math.h>

#define CHUNK 4096

struct stats {
	double max, min, sum, sumsq;
	bool nan;
};

/*
 * Over all elements, a chunk at a time (under the caller's guard): the
 * sums one element after the other, in row-major order (what a plain
 * float64 sum gives); the maximum and minimum without branches.
 */
static void gather(const struct tensor *t, struct stats *s, double *restrict buf)
{
	double max = -INFINITY, min = INFINITY, sum = 0, sumsq = 0;
	bool nan = false;
	for (int64_t at = 0; at < t->numel; at += CHUNK) {
		int64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
		tensor_read_f64(t, at, n, buf);
		for (int64_t i = 0; i < n; i++) {
			double x = buf[i];
			nan |= x != x;
			max = x > max ? x : max;
			min = x < min ? x : min;
			sum += x;
			sumsq += x * x;
		}
	}
	s->max = max, s->min = min, s->sum = sum, s->sumsq = sumsq, s->nan = nan;
}

static int guarded_stats(const struct tensor *t, struct stats *s, struct strbuf *err)
{
	double *buf = xmalloc(CHUNK * sizeof(*buf));
	struct tensor_guard g;
	volatile int rc = 0;
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		gather(t, s, buf);
	} else {
		if (!tensor_fault_message(t, g.addr, err))
			strbuf_addstr(err, "a read of a checkpoint's tensor faulted (SIGBUS)");
		rc = -1;
	}
	tensor_guard_end(&g);
	free(buf);
	return rc;
}

static void add_number(struct strbuf *out, double x)
{
	if (isnan(x))
		strbuf_addstr(out, "\"nan\"");
	else if (isinf(x))
		strbuf_addstr(out, x > 0 ? "\"inf\"" : "\"-inf\"");
	else
		pyfmt_double(out, x);
}

static void add_int_or_null(struct strbuf *out, int64_t v)
{
	if (v < 0)
		strbuf_addstr(out, "null");
	else
		strbuf_addi(out, v);
}

static void add_record(struct strbuf *out, const struct ckpt *ck, const struct ckpt_param *p, size_t seq, int64_t rank,
		       int64_t step, const struct stats *s, bool empty, const char *dump)
{
	const char *dot = strrchr(p->name, '.');
	strbuf_addstr(out, "{\"rank\":");
	add_int_or_null(out, rank);
	strbuf_addstr(out, ",\"step\":");
	add_int_or_null(out, step);
	strbuf_addf(out, ",\"seq\":%zu,\"entry\":", seq);
	jsonw_string(out, p->name, dot ? (size_t)(dot - p->name) : strlen(p->name));
	strbuf_addstr(out, ",\"name\":");
	jsonw_str(out, p->name);
	strbuf_addstr(out, ",\"key\":");
	jsonw_str(out, p->name);
	strbuf_addstr(out, ",\"state\":\"parameters\",\"type\":\"torch.Tensor\",\"dtype\":");
	jsonw_str(out, dtype_info(p->dtype)->torch);
	strbuf_addstr(out, ",\"shape\":[");
	for (int d = 0; d < p->ndim; d++)
		strbuf_addf(out, "%s%lld", d ? "," : "", (long long)p->shape[d]);
	strbuf_addch(out, ']');
	if (empty) {
		strbuf_addstr(out, ",\"max\":null,\"min\":null,\"mean\":null,\"norm\":null");
	} else {
		strbuf_addstr(out, ",\"max\":");
		add_number(out, s->nan ? NAN : s->max);
		strbuf_addstr(out, ",\"min\":");
		add_number(out, s->nan ? NAN : s->min);
		strbuf_addstr(out, ",\"mean\":");
		add_number(out, s->sum / (double)p->numel);
		strbuf_addstr(out, ",\"norm\":");
		add_number(out, sqrt(s->sumsq));
	}
	strbuf_addstr(out, ",\"data\":");
	jsonw_str(out, ckpt_root(ck));
	strbuf_addstr(out, ",\"data_member\":");
	jsonw_str(out, p->name);
	strbuf_addstr(out, ",\"task\":\"tensor\",\"dump\":");
	jsonw_str(out, dump);
	strbuf_addstr(out, "}\n");
}

int ckrecord_flatten(const struct dump_file *df, int64_t rank, int64_t step, ckrecord_fn fn, void *ctx,
		     struct strbuf *err)
{
	struct ckpt *ck;
	struct strbuf text = STRBUF_INIT;
	int ret = 0;
	if (ckpt_open(&ck, df->path, err))
		return -1;
	for (size_t i = 0; i < ckpt_count(ck) && !ret; i++) {
		const struct ckpt_param *p = ckpt_param(ck, i);
		struct stats s = { 0 };
		struct tensor t;
		struct leafrec rec;
		const char *why;
		if (p->numel) {
			if (ckpt_tensor(ck, i, &t, err))
				ret = -1;
			else {
				ret = guarded_stats(&t, &s, err);
				tensor_close(&t);
			}
			if (ret)
				break;
		}
		strbuf_reset(&text);
		add_record(&text, ck, p, i, rank >= 0 ? rank : df->rank, step >= 0 ? step : df->step, &s, !p->numel,
			   df->path);
		if (leafrec_parse(&rec, text.buf, text.len - 1, &why) < 0) {
			/* cannot happen: written above */
			ret = msg_fail(err, df->path, "internal error: the record of %s is not a leaf record (%s)", p->name, why);
			break;
		}
		ret = fn(text.buf, text.len, &rec, ctx);
	}
	strbuf_release(&text);
	ckpt_close(ck);
	return ret;
}
