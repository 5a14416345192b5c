#include "pair.h"

static int not_a_pair(struct strbuf *err, const char *why)
{
	strbuf_addf(err, "not a pair record (see probe-match(1)): %s", why);
	return -1;
}

int pair_parse(struct pair *p, const char *line, size_t len, struct strbuf *err)
{
	struct rs_iter iter;
	struct span k, v;
	const char *why = NULL;
	bool seen_t = false, seen_g = false;
	int got;

	/* the leaves are cleared by their parse, or below when they stay absent */
	p->line = line;
	p->len = len;
	p->has_t = p->has_g = p->gated = p->partial = false;
	p->verdict = p->reason = p->metrics = p->msprobe = (struct span){ 0 };
	if (rs_begin(&iter, line, len) < 0)
		goto bad;
	while ((got = rs_key(&iter, &k)) == 1) {
		bool is_t = span_key_is(&k, "t", 1), is_g = span_key_is(&k, "g", 1);
		if ((is_t || is_g) && iter.p < iter.end && *iter.p == '{') {
			const char *after;
			if (leafrec_parse_at(is_t ? &p->t : &p->g, iter.p, iter.end, &after, &why) < 0) {
				strbuf_addf(err, "a leaf of this pair: %s", why);
				return -1;
			}
			rs_resume(&iter, after);
			*(is_t ? &p->has_t : &p->has_g) = true;
			*(is_t ? &seen_t : &seen_g) = true;
			continue;
		}
		if (rs_value(&iter, &v) < 0)
			goto bad;
		if (is_t || is_g) {
			if (v.kind != SPAN_NULL)
				return not_a_pair(err, "\"t\" and \"g\" must be leaf records or null");
			*(is_t ? &seen_t : &seen_g) = true;
		} else if (span_key_is(&k, "msprobe_unmatched", 17)) {
			p->gated = v.kind == SPAN_STRING;
		} else if (span_key_is(&k, "partial", 7)) {
			p->partial = v.kind == SPAN_TRUE;
		} else if (span_key_is(&k, "verdict", 7)) {
			p->verdict = v;
		} else if (span_key_is(&k, "reason", 6)) {
			p->reason = v;
		} else if (span_key_is(&k, "metrics", 7)) {
			p->metrics = v;
		} else if (span_key_is(&k, "msprobe", 7)) {
			p->msprobe = v;
		}
	}
	if (got < 0)
		goto bad;
	if (!p->has_t)
		memset(&p->t, 0, sizeof(p->t));
	if (!p->has_g)
		memset(&p->g, 0, sizeof(p->g));
	if (!seen_t || !seen_g || (!p->has_t && !p->has_g))
		return not_a_pair(err, "\"t\" and \"g\" must be leaf records or null, not both null");
	return 0;
bad:
	strbuf_addf(err, "not a pair record: %s (at byte %zu)", iter.error, iter.error_at + 1);
	return -1;
}

bool pair_line_is_leaf(const char *line, size_t len)
{
	struct leafrec r;
	const char *why;
	return leafrec_parse(&r, line, len, &why) == 0;
}
