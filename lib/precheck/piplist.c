#include "piplist.h"
#include "textlines.h"
#include "../core/msg.h"
#include "../core/xalloc.h"

#include <ctype.h>

void piplist_set(struct piplist *l, const char *name, size_t nlen, const char *version, size_t vlen, size_t line)
{
	struct piplist_entry *e = NULL;
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i].name) == nlen && !memcmp(l->v[i].name, name, nlen)) {
			e = &l->v[i];
			free(e->version);
			break;
		}
	if (!e) {
		if (l->n == l->alloc) {
			l->alloc = l->alloc ? 2 * l->alloc : 64;
			l->v = xrealloc(l->v, st_mult(l->alloc, sizeof(*l->v)));
		}
		e = &l->v[l->n++];
		e->name = xmemdupz(name, nlen);
	}
	e->version = xmemdupz(version, vlen);
	e->line = line;
}

const struct piplist_entry *piplist_get(const struct piplist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void piplist_release(struct piplist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].version);
	}
	free(l->v);
	*l = (struct piplist)PIPLIST_INIT;
}

void piplist_normalize(struct strbuf *out, const char *name)
{
	bool sep = false;
	for (const char *p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			sep = true;
			continue;
		}
		if (sep && out->len)
			strbuf_addch(out, '-');
		sep = false;
		strbuf_addch(out, (char)tolower((unsigned char)*p));
	}
}

void piplist_parse_msprobe(struct piplist *l, const char *data, size_t len)
{
	struct textlines t;
	const char *s;
	size_t n;
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		const char *eq, *eq2;
		textlines_strip(&s, &n);
		eq = memchr(s, '=', n);
		if (!eq) {
			piplist_set(l, s, n, "", 0, t.line);
			continue;
		}
		eq2 = memchr(eq + 1, '=', n - (size_t)(eq + 1 - s));
		if (eq2) /* three parts or more: "" */
			piplist_set(l, s, (size_t)(eq - s), "", 0, t.line);
		else
			piplist_set(l, s, (size_t)(eq - s), eq + 1, n - (size_t)(eq + 1 - s), t.line);
	}
}

/* A character of a distribution's name as pip writes it (PEP 508: letters, digits, '-', '_', '.'). */
static bool name_char(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.';
}

static size_t name_len(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && name_char((unsigned char)s[k]))
		k++;
	return k;
}

static bool all_dashes(const char *s, size_t n)
{
	bool dash = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-')
			dash = true;
		else if (s[i] != ' ' && s[i] != '\t')
			return false;
	}
	return dash;
}

/* The first two words of a line (pip list's columns). */
static bool two_words(const char *s, size_t n, const char **w1, size_t *n1, const char **w2, size_t *n2)
{
	size_t i = 0, j;
	*w1 = s;
	while (i < n && !textlines_space((unsigned char)s[i]))
		i++;
	*n1 = i;
	while (i < n && textlines_space((unsigned char)s[i]))
		i++;
	j = i;
	while (j < n && !textlines_space((unsigned char)s[j]))
		j++;
	*w2 = s + i;
	*n2 = j - i;
	return *n1 && *n2;
}

enum line_kind { L_SKIP, L_FREEZE, L_URL, L_EDITABLE, L_PACKED, L_HEADER, L_BAD };

/* What a stripped line is, and its name and version. */
static enum line_kind classify(const char *s, size_t n, const char **name, size_t *nn, const char **ver, size_t *vn)
{
	size_t k;
	if (!n || s[0] == '#')
		return L_SKIP;
	if (n > 3 && (!memcmp(s, "-e ", 3) || (n > 11 && !memcmp(s, "--editable ", 11)))) {
		const char *egg = NULL;
		for (size_t i = 0; i + 5 <= n; i++)
			if (!memcmp(s + i, "#egg=", 5))
				egg = s + i + 5;
		*ver = s;
		*vn = n;
		if (egg) {
			*name = egg;
			*nn = name_len(egg, n - (size_t)(egg - s));
		} else {
			*name = s + (s[1] == 'e' ? 3 : 11);
			*nn = n - (size_t)(*name - s);
		}
		return *nn ? L_EDITABLE : L_BAD;
	}
	if (s[0] == '-')
		return L_SKIP; /* -r FILE, -c FILE, --index-url URL, ... */
	if (n > 7 && !memcmp(s, "Package", 7) && textlines_space((unsigned char)s[7])) {
		const char *w1, *w2;
		size_t n1, n2;
		if (two_words(s, n, &w1, &n1, &w2, &n2) && n2 == 7 && !memcmp(w2, "Version", 7))
			return L_HEADER;
	}
	k = name_len(s, n);
	*name = s;
	*nn = k;
	if (!k)
		return L_BAD;
	if (k + 2 < n && !memcmp(s + k, "==", 2)) {
		*ver = s + k + 2;
		*vn = n - k - 2;
		while (*vn && **ver == '=') /* name===version */
			(*ver)++, (*vn)--;
		return L_FREEZE;
	}
	if (k + 3 < n && !memcmp(s + k, " @ ", 3)) {
		*ver = s + k + 1;
		*vn = n - k - 1;
		return L_URL;
	}
	if (k < n && s[k] == '=' && !memchr(s + k + 1, '=', n - k - 1)) {
		*ver = s + k + 1;
		*vn = n - k - 1;
		return L_PACKED;
	}
	return L_BAD;
}

/* "WHERE:LINE: what". */
static int fail_line(struct strbuf *err, const char *where, size_t line, const char *what)
{
	strbuf_addf(err, "%s:%zu: %s", where, line, what);
	return PROBE_ERR;
}

int piplist_parse(struct piplist *l, const char *where, const char *data, size_t len, struct strbuf *err)
{
	struct textlines t;
	const char *s, *name = NULL, *ver = NULL;
	size_t n, nn = 0, vn = 0;
	int table = 0; /* 1: the header seen, 2: its dashes too */
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		enum line_kind k;
		textlines_strip(&s, &n);
		if (table == 1) {
			if (!all_dashes(s, n))
				return fail_line(err, where, t.line, "a pip list header not followed by its dashes");
			table = 2;
			continue;
		}
		if (table == 2 && n && s[0] != '#') {
			if (!two_words(s, n, &name, &nn, &ver, &vn))
				return fail_line(err, where, t.line, "a row of pip list without its version");
			piplist_set(l, name, nn, ver, vn, t.line);
			continue;
		}
		k = classify(s, n, &name, &nn, &ver, &vn);
		if (k == L_HEADER) {
			table = 1;
			continue;
		}
		if (k == L_BAD)
			return fail_line(err, where, t.line,
					 "not a package of a pip list (name==version, name=version, name @ URL or pip "
					 "list's columns)");
		if (k != L_SKIP)
			piplist_set(l, name, nn, ver, vn, t.line);
	}
	if (table == 1)
		return fail_line(err, where, t.line, "a pip list header not followed by its dashes");
	return 0;
}

long piplist_sniff(const char *data, size_t len)
{
	struct textlines t;
	const char *s, *name, *ver;
	size_t n, nn, vn;
	long score = 0;
	bool table = false;
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		enum line_kind k;
		textlines_strip(&s, &n);
		if (table) {
			if (n && !all_dashes(s, n) && !two_words(s, n, &name, &nn, &ver, &vn))
				return -1;
			continue;
		}
		k = classify(s, n, &name, &nn, &ver, &vn);
		if (k == L_BAD)
			return -1;
		if (k == L_HEADER)
			table = true;
		if (k != L_SKIP && k != L_PACKED)
			score++;
	}
	return score;
}
