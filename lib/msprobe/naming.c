#include "naming.h"
#include "../core/msg.h"
#include "../core/partial.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void naming_stamp_now(char out[NAMING_STAMP_SIZE])
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(out, NAMING_STAMP_SIZE, "%Y%m%d%H%M%S", &tm);
}

int naming_output_base(const char *dir, const char *prefix, struct strbuf *base, struct strbuf *err)
{
	char stamp[NAMING_STAMP_SIZE];
	if (partial_make_dirs(dir, err) < 0)
		return -1;
	if (access(dir, W_OK))
		return msg_fail(err, dir, "cannot write there: %s", strerror(errno));
	naming_stamp_now(stamp);
	strbuf_reset(base);
	strbuf_addf(base, "%s/%s_%s", dir, prefix, stamp);
	return 0;
}

bool naming_all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool part_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

void naming_parse_entry(const char *name, size_t len, struct entry_name *out)
{
	/* locate the last two dot-separated parts */
	const char *last = name, *second = NULL;
	size_t last_len, second_len = 0;
	size_t dot1 = len, dot2 = len; /* positions of the last and second-last dots */
	for (size_t i = len; i-- > 0;) {
		if (name[i] == '.') {
			if (dot1 == len)
				dot1 = i;
			else {
				dot2 = i;
				break;
			}
		}
	}
	memset(out, 0, sizeof(*out));
	if (dot1 == len) {
		last = name;
		last_len = len;
	} else {
		last = name + dot1 + 1;
		last_len = len - dot1 - 1;
		second = dot2 == len ? name : name + dot2 + 1;
		second_len = dot1 - (size_t)(second - name);
	}

	out->layout = LAYOUT_IO;
	if (part_is(last, last_len, "debug"))
		out->layout = LAYOUT_DEBUG;
	else if (part_is(last, last_len, "parameters_grad") ||
		 (second && part_is(second, second_len, "parameters_grad")))
		out->layout = LAYOUT_PARAMS_GRAD;

	if (part_is(last, last_len, "parameters_grad") ||
	    (second && part_is(second, second_len, "parameters_grad"))) {
		out->dir = DIR_PARAMS_GRAD;
		out->base_len = dot1 == len ? 0 : dot1;
		return;
	}
	for (int d = 0; d < 2; d++) {
		const char *word = d == 0 ? "forward" : "backward";
		if (part_is(last, last_len, word) || (second && part_is(second, second_len, word))) {
			out->dir = d == 0 ? DIR_FORWARD : DIR_BACKWARD;
			out->base_len = (dot2 == len || !second) ? 0 : dot2;
			out->cd_start = second ? (size_t)(second - name) : 0;
			out->head_digits = second && naming_all_digits(second, second_len);
			out->tail_digits = naming_all_digits(last, last_len);
			return;
		}
	}
	out->dir = DIR_NONE;
}

uint64_t naming_backward_next(struct backward_counter *bc, const char *entry,
			       const struct entry_name *en)
{
	struct strmap_slot *s;
	if (en->dir != DIR_BACKWARD || !en->base_len)
		return 0;
	s = strmap_put(&bc->seen, entry, en->base_len, NULL);
	return s->value.u++;
}

void naming_backward_release(struct backward_counter *bc)
{
	strmap_release(&bc->seen);
}

/* Python's str.replace(entry, ''): remove every non-overlapping occurrence. */
static void add_without(struct strbuf *out, const char *s, const char *cut)
{
	size_t n = strlen(cut);
	const char *p;
	if (!n) {
		strbuf_addstr(out, s);
		return;
	}
	while ((p = strstr(s, cut))) {
		strbuf_add(out, s, (size_t)(p - s));
		s = p + n;
	}
	strbuf_addstr(out, s);
}

void naming_compare_key(struct strbuf *out, const char *entry, const struct entry_name *en,
		 const char *row_name, uint64_t order, bool renumber)
{
	strbuf_reset(out);
	if (!renumber || en->dir != DIR_BACKWARD || !en->base_len ||
	    !(en->head_digits || en->tail_digits)) {
		strbuf_addstr(out, row_name);
		return;
	}
	/* base "." head "." tail, with the numeric part(s) replaced by order, then the suffix */
	const char *cd = entry + en->cd_start;
	const char *dot = strchr(cd, '.');
	strbuf_add(out, entry, en->base_len);
	strbuf_addch(out, '.');
	if (en->head_digits)
		strbuf_addu(out, order);
	else
		strbuf_add(out, cd, (size_t)(dot - cd));
	strbuf_addch(out, '.');
	if (en->tail_digits)
		strbuf_addu(out, order);
	else
		strbuf_addstr(out, dot + 1);
	add_without(out, row_name, entry);
}

bool naming_forward_entry(const char *entry, struct strbuf *out)
{
	size_t n = strlen(entry);
	const char *last = strrchr(entry, '.'), *second = NULL;
	static const char *const words[] = { "backward", "parameters_grad" };
	if (!last)
		return false;
	for (const char *p = last - 1; p >= entry; p--)
		if (*p == '.') {
			second = p;
			break;
		}
	for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
		size_t wl = strlen(words[w]);
		/* the direction is the last part, or the one before a trailing index */
		if ((size_t)(entry + n - (last + 1)) == wl && !memcmp(last + 1, words[w], wl)) {
			strbuf_reset(out);
			strbuf_add(out, entry, (size_t)(last + 1 - entry));
			/* API style "X.3.backward"; an old parameters_grad without its index is call 0 */
			strbuf_addstr(out, w == 0 ? "forward" : "forward.0");
			return true;
		}
		if (second && (size_t)(last - (second + 1)) == wl && !memcmp(second + 1, words[w], wl)) {
			strbuf_reset(out);
			strbuf_add(out, entry, (size_t)(second + 1 - entry));
			strbuf_addstr(out, "forward");
			strbuf_addstr(out, last);
			return true;
		}
	}
	return false;
}

void naming_fuzzy_name(struct strbuf *out, const char *name)
{
	static const char *const words[] = { "forward", "backward", "parameters_grad" };
	size_t n = strlen(name);
	strbuf_reset(out);
	for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
		size_t wl = strlen(words[w]);
		/* the first component equal to the word */
		for (size_t i = 0; i + wl <= n; i++) {
			if ((i && name[i - 1] != '.') || memcmp(name + i, words[w], wl) ||
			    (i + wl < n && name[i + wl] != '.'))
				continue;
			/* the call index: the number before the word (APIs) or after it (modules) */
			size_t before_end = i ? i - 1 : 0, before_start = before_end;
			while (before_start > 0 && name[before_start - 1] != '.')
				before_start--;
			if (i && naming_all_digits(name + before_start, before_end - before_start)) {
				strbuf_add(out, name, before_start);
				strbuf_addstr(out, name + i);
				return;
			}
			size_t after_start = i + wl + 1, after_end = after_start;
			while (after_end < n && name[after_end] != '.')
				after_end++;
			if (i + wl < n && naming_all_digits(name + after_start, after_end - after_start)) {
				strbuf_add(out, name, i + wl);
				strbuf_addstr(out, name + after_end);
				return;
			}
			strbuf_addstr(out, name);
			return;
		}
	}
	strbuf_addstr(out, name);
}
