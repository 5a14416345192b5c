/* probe-plot's model: module labels, and the per-column aggregate that must keep every extreme. */
#include "tap.h"
#include "../../lib/plot/plotmodel.h"

#include <math.h>

static void check_module_labels(void)
{
	static const char *const cases[][2] = {
		{ "Module.fc2.Linear.forward.0", "fc2 Linear" },
		{ "Module.fc1.Linear.parameters_grad.0", "fc1 Linear" },
		{ "Module.relu.ReLU.backward.3", "relu ReLU" },
		{ "Module.layers.0.ParallelMLP.forward.0", "layers.0 ParallelMLP" },
		{ "Module.module.language_model.encoder.layers.11.self_attention.CoreAttention.forward.2",
		  "self_attention CoreAttention" },
		{ "Module.root", "root" },
		{ "Module.net.forward.0", "net" },
		{ "Cell.conv1.Conv2d.forward.0", "conv1 Conv2d" },
	};
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		plot_module_label(cases[i][0], &sb);
		is_str(sb.buf, cases[i][1], cases[i][0]);
	}
	strbuf_release(&sb);
}

static uint64_t rng = 88172645463325252ull;
static double next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static bool add_record(struct plot *p, int64_t rank, int64_t seq, double rel, bool zero)
{
	bool added;
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	char leaf[256];
	snprintf(leaf, sizeof(leaf),
		 "{\"rank\":%lld,\"step\":0,\"seq\":%lld,\"entry\":\"Functional.f.%lld.forward\","
		 "\"name\":\"Functional.f.%lld.forward.output.0\",\"key\":\"Functional.f.%lld.forward.output.0\","
		 "\"state\":\"output\"}",
		 (long long)rank, (long long)seq, (long long)seq, (long long)seq, (long long)seq);
	strbuf_addf(&sb, "{\"key\":\"k%lld\",\"t\":%s,\"g\":%s,\"verdict\":\"%s\",\"metrics\":{\"max\":{\"abs\":1,\"rel\":%.17g}}}",
		    (long long)seq, leaf, leaf, zero ? "same" : "diff", zero ? 0.0 : rel);
	added = plot_add(p, sb.buf, sb.len, &err) == 0;
	if (!added)
		diag("plot_add: %s", err.buf);
	strbuf_release(&sb);
	strbuf_release(&err);
	return added;
}

/*
 * 20,000 leaves over 318 pixel columns, values spread over eight decades
 * with a few at 0: every column holds exactly its leaves' lowest and
 * highest y (worked out here from the points, not from the columns), the
 * line's vertices per column are at most four, and nothing is lost.
 */
static void check_aggregate(void)
{
	enum { N = 20000 };
	struct plot_options o;
	struct plot *p;
	struct strbuf err = STRBUF_INIT;
	size_t counted = 0, zeros = 0, bad_min = 0, bad_max = 0, bad_n = 0;
	const struct plot_rank *r;

	plot_options_init(&o);
	o.width = 418;
	o.height = 400;
	p = plot_new(&o);
	for (int i = 0; i < N; i++) {
		bool zero = next_random() < 0.05;
		double v = zero ? 0 : pow(10, -8 + 8 * next_random());
		zeros += zero;
		if (!add_record(p, 0, i, v, zero))
			break;
	}
	/* one spike and one dip, to be found */
	add_record(p, 0, N, 1e3, false);
	if (!ok(plot_finish(p, &err) == 0, "plot_finish")) {
		diag("%s", err.buf);
		return;
	}
	r = &p->ranks[0];
	is_int(p->g.ncols, 418 - 82 - 18, "columns of the data area");
	for (int c = 0; c < p->g.ncols; c++) {
		double lo = -1, hi = 1e300;
		uint32_t n = 0;
		for (size_t k = 0; k < r->n; k++) {
			const struct plot_point *pt = &r->v[k];
			int col = (int)floor(plot_x_px(p, pt->x) - p->g.left);
			double y;
			if (col != c || pt->ykind != Y_VALUE)
				continue;
			y = plot_point_y(p, pt);
			lo = fmax(lo, y); /* the lowest value is the largest y */
			hi = fmin(hi, y);
			n++;
		}
		counted += n;
		if (n != r->cols[c].n)
			bad_n++;
		if (n && fabs(r->cols[c].max_y - lo) > 1e-3)
			bad_min++;
		if (n && fabs(r->cols[c].min_y - hi) > 1e-3)
			bad_max++;
	}
	is_int((long long)counted, N + 1 - (long long)zeros, "every leaf on the scale is in one column");
	is_int((long long)bad_n, 0, "columns with the count of their leaves");
	is_int((long long)bad_min, 0, "columns keeping their lowest value");
	is_int((long long)bad_max, 0, "columns keeping their highest value");
	is_int(p->dec_hi, 3, "the spike sets the top of the scale");
	ok(p->dec_lo <= -8, "the smallest value is on the scale (10^%d)", p->dec_lo);
	plot_free(p);
	strbuf_release(&err);
}

int main(void)
{
	check_module_labels();
	check_aggregate();
	return done_testing();
}
