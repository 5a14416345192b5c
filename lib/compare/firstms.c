/* firstms.c: probe-first --msprobe, msprobe's answer to -da (firstmodel.h). */
#include "firstmodel.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"

/*
 * msprobe's three phases (msprobe-firstdiff.md 4.4-4.6, 5.3) over the
 * entries each rank flagged: before the first communication operator, each
 * rank's first flagged entry; else, round by round over the communication
 * operators (taken to connect every rank at the same index: msprobe's own
 * peer matching, with its bugs, is not reproduced), the flagged entries at
 * the smallest (layer, position since the last communication operator);
 * else each rank's first flagged entry after its last one.
 */
struct pick {
	size_t rank, entry;
};

static void add_pick(struct pick **out, size_t *n, size_t *alloc, size_t rank, size_t entry)
{
	ALLOC_GROW(*out, *n + 1, *alloc);
	(*out)[(*n)++] = (struct pick){ rank, entry };
}

/* Index in rs->ms of the k-th communication operator of a rank (from 0), or SIZE_MAX. */
static size_t nth_comm(const struct rank_state *rs, size_t k)
{
	for (size_t e = 0; e < rs->nms; e++)
		if (rs->ms[e].comm && !k--)
			return e;
	return SIZE_MAX;
}

/*
 * Phase 2, one layer: the k-th communication operator of each rank with
 * the flagged entries between it and the one before; each candidate's
 * position is its index among those entries (the communication operator's:
 * their count).  Keeps the candidates at the smallest position.  Returns
 * whether any rank has a k-th communication operator.
 */
static bool ms_layer(const struct first_stream *f, size_t k, struct pick **out, size_t *n, size_t *alloc)
{
	size_t best = SIZE_MAX;
	bool exists = false;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t r = 0; r < f->nranks; r++) {
			const struct rank_state *rs = &f->ranks[r];
			size_t end = nth_comm(rs, k), start = k ? nth_comm(rs, k - 1) + 1 : 0;
			if (end == SIZE_MAX)
				continue;
			exists = true;
			for (size_t e = start; e <= end; e++) {
				size_t pos = e - start;
				if (!rs->ms[e].flagged || (pass ? pos != best : pos >= best))
					continue;
				if (pass)
					add_pick(out, n, alloc, r, e);
				else
					best = pos;
			}
		}
	}
	return exists;
}

static void ms_pick(const struct first_stream *f, struct pick **out, size_t *nout)
{
	size_t alloc = 0;
	*out = NULL;
	*nout = 0;
	/* phase 1: before the first communication operator */
	for (size_t r = 0; r < f->nranks; r++) {
		const struct rank_state *rs = &f->ranks[r];
		for (size_t e = 0; e < rs->nms && !rs->ms[e].comm; e++)
			if (rs->ms[e].flagged) {
				add_pick(out, nout, &alloc, r, e);
				break;
			}
	}
	if (*nout)
		return;
	/* phase 2: communication layer by layer */
	for (size_t k = 0; ms_layer(f, k, out, nout, &alloc) && !*nout; k++)
		;
	if (*nout)
		return;
	/* phase 3: after the last communication operator */
	for (size_t r = 0; r < f->nranks; r++) {
		const struct rank_state *rs = &f->ranks[r];
		size_t last = SIZE_MAX;
		for (size_t e = 0; e < rs->nms; e++)
			if (rs->ms[e].comm)
				last = e;
		for (size_t e = last == SIZE_MAX ? rs->nms : last + 1; e < rs->nms; e++)
			if (rs->ms[e].flagged) {
				add_pick(out, nout, &alloc, r, e);
				break;
			}
	}
}

size_t first_write_msprobe(const struct first_stream *f, struct strbuf *out)
{
	struct pick *picks;
	size_t n;
	ms_pick(f, &picks, &n);
	strbuf_addch(out, '{');
	for (size_t r = 0, shown = 0; r < f->nranks; r++) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const struct ms_entry *e;
			if (picks[i].rank != r)
				continue;
			e = &f->ranks[r].ms[picks[i].entry];
			if (!any) {
				strbuf_addf(out, "%s\n  \"rank_", shown++ ? "," : "");
				if (f->ranks[r].rank < 0)
					strbuf_addch(out, '0');
				else
					strbuf_addf(out, "%lld", (long long)f->ranks[r].rank);
				strbuf_addstr(out, "\": [");
			}
			strbuf_addstr(out, any ? ",\n    {\"op_name\": " : "\n    {\"op_name\": ");
			jsonw_str(out, e->entry);
			strbuf_addstr(out, ", \"data_info\": ");
			strbuf_addstr(out, e->data_info ? e->data_info : "{}");
			if (f->opts.nonfinite) {
				strbuf_addstr(out, ", \"construct_info\": ");
				strbuf_addstr(out, e->construct ? e->construct : "[]");
				strbuf_addstr(out, ", \"stack_info\": ");
				strbuf_addstr(out, e->stack ? e->stack : "{}");
			} else {
				strbuf_addstr(out, ", \"stack_info\": ");
				strbuf_addstr(out, e->stack ? e->stack : "null");
			}
			strbuf_addch(out, '}');
			any = true;
		}
		if (any)
			strbuf_addstr(out, "\n  ]");
	}
	strbuf_addstr(out, n ? "\n}\n" : "}\n");
	free(picks);
	return n;
}

