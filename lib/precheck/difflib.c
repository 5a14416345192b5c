#include "difflib.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"

/* b's index: each element's positions in b, ascending, as runs of a sorted array. */
struct b2j {
	uint64_t *pairs; /* element << 32 | position, sorted */
	size_t n;
	bool *popular;   /* per pair: its element is popular (autojunk) */
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The first pair of element e, or n when e is not in b. */
static size_t b2j_find(const struct b2j *m, uint32_t e)
{
	size_t lo = 0, hi = m->n;
	uint64_t key = (uint64_t)e << 32;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->pairs[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && (uint32_t)(m->pairs[lo] >> 32) == e ? lo : m->n;
}

static void b2j_build(struct b2j *m, const uint32_t *b, size_t nb)
{
	m->n = nb;
	m->pairs = xmalloc(st_mult(nb ? nb : 1, sizeof(*m->pairs)));
	m->popular = xcalloc(nb ? nb : 1, sizeof(*m->popular));
	for (size_t j = 0; j < nb; j++)
		m->pairs[j] = (uint64_t)b[j] << 32 | (uint64_t)j;
	qsort(m->pairs, nb, sizeof(*m->pairs), cmp_u64);
	if (nb < 200) /* SequenceMatcher's autojunk applies from 200 elements */
		return;
	for (size_t s = 0, e; s < nb; s = e) {
		for (e = s + 1; e < nb && m->pairs[e] >> 32 == m->pairs[s] >> 32; e++)
			;
		if (e - s > nb / 100 + 1)
			for (size_t k = s; k < e; k++)
				m->popular[k] = true;
	}
}

struct matcher {
	const uint32_t *a, *b;
	struct b2j idx;
	size_t *prev, *cur;       /* j2len of the last row and of this one, 0 where unset */
	size_t *prev_set, *cur_set; /* the positions set in each */
	size_t nprev, ncur;
};

struct block {
	size_t i, j, k;
};

/* find_longest_match(alo, ahi, blo, bhi) of difflib, without junk. */
static struct block longest_match(struct matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi)
{
	struct block best = { alo, blo, 0 };
	for (size_t i = alo; i < ahi; i++) {
		size_t p = b2j_find(&m->idx, m->a[i]);
		for (; p < m->idx.n && (uint32_t)(m->idx.pairs[p] >> 32) == m->a[i] && !m->idx.popular[p]; p++) {
			size_t j = (size_t)(m->idx.pairs[p] & 0xffffffffu), k;
			if (j < blo)
				continue;
			if (j >= bhi)
				break;
			k = (j > 0 ? m->prev[j - 1] : 0) + 1;
			m->cur[j] = k;
			m->cur_set[m->ncur++] = j;
			if (k > best.k)
				best = (struct block){ i - k + 1, j - k + 1, k };
		}
		for (size_t q = 0; q < m->nprev; q++)
			m->prev[m->prev_set[q]] = 0;
		{
			size_t *t = m->prev, *ts = m->prev_set;
			m->prev = m->cur, m->prev_set = m->cur_set, m->nprev = m->ncur;
			m->cur = t, m->cur_set = ts, m->ncur = 0;
		}
	}
	for (size_t q = 0; q < m->nprev; q++)
		m->prev[m->prev_set[q]] = 0;
	m->nprev = 0;
	/* extended over equal elements on both ends (popular ones included: they are not junk) */
	while (best.i > alo && best.j > blo && m->a[best.i - 1] == m->b[best.j - 1])
		best.i--, best.j--, best.k++;
	while (best.i + best.k < ahi && best.j + best.k < bhi && m->a[best.i + best.k] == m->b[best.j + best.k])
		best.k++;
	return best;
}

/* get_matching_blocks(): the ranges left and right of each block searched in turn; only the sizes are summed. */
size_t difflib_matches(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	struct range {
		size_t alo, ahi, blo, bhi;
	} *q;
	struct matcher m = { .a = a, .b = b };
	size_t nq = 0, cap = 16, total = 0;
	if (!na || !nb)
		return 0;
	b2j_build(&m.idx, b, nb);
	m.prev = xcalloc(nb, sizeof(size_t));
	m.cur = xcalloc(nb, sizeof(size_t));
	m.prev_set = xmalloc(st_mult(nb, sizeof(size_t)));
	m.cur_set = xmalloc(st_mult(nb, sizeof(size_t)));
	q = xmalloc(cap * sizeof(*q));
	q[nq++] = (struct range){ 0, na, 0, nb };
	while (nq) {
		struct range r = q[--nq];
		struct block x = longest_match(&m, r.alo, r.ahi, r.blo, r.bhi);
		if (!x.k)
			continue;
		total += x.k;
		if (nq + 2 > cap) {
			cap *= 2;
			q = xrealloc(q, st_mult(cap, sizeof(*q)));
		}
		if (r.alo < x.i && r.blo < x.j)
			q[nq++] = (struct range){ r.alo, x.i, r.blo, x.j };
		if (x.i + x.k < r.ahi && x.j + x.k < r.bhi)
			q[nq++] = (struct range){ x.i + x.k, r.ahi, x.j + x.k, r.bhi };
	}
	free(q);
	free(m.idx.pairs);
	free(m.idx.popular);
	free(m.prev);
	free(m.cur);
	free(m.prev_set);
	free(m.cur_set);
	return total;
}

double difflib_ratio(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	if (!na && !nb)
		return 1.0;
	return 2.0 * (double)difflib_matches(a, na, b, nb) / (double)(na + nb);
}

/* Code points of a text; a byte that starts no valid sequence is 0x110000 + the byte. */
static uint32_t *decode(const char *s, size_t n, size_t *out_n)
{
	uint32_t *v = xmalloc(st_mult(n ? n : 1, sizeof(*v)));
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		int len = utf8_sequence((const unsigned char *)s + i, n - i);
		if (len > 0) {
			v[k++] = utf8_code_point((const unsigned char *)s + i, len);
			i += (size_t)len;
		} else {
			v[k++] = 0x110000u + (unsigned char)s[i];
			i++;
		}
	}
	*out_n = k;
	return v;
}

double difflib_ratio_utf8(const char *a, size_t na, const char *b, size_t nb)
{
	size_t ka, kb;
	uint32_t *va = decode(a, na, &ka), *vb = decode(b, nb, &kb);
	double r = difflib_ratio(va, ka, vb, kb);
	free(va);
	free(vb);
	return r;
}
