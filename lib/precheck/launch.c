#include "launch.h"
#include "textlines.h"
#include "../core/xalloc.h"

/* Python's \w on a byte: ASCII letters, digits, '_', and every byte of a non-ASCII character. */
static bool word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static bool ascii_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Python's \s (ASCII's, and 0x1c to 0x1f). */
static bool space(unsigned char c)
{
	return textlines_space(c);
}

static void set_arg(struct launch_args *a, const char *key, size_t klen, const char *value, size_t vlen, bool flag)
{
	struct launch_arg *e = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (strlen(a->v[i].key) == klen && !memcmp(a->v[i].key, key, klen)) {
			e = &a->v[i];
			free(e->value);
			break;
		}
	if (!e) {
		if (a->n == a->alloc) {
			a->alloc = a->alloc ? 2 * a->alloc : 16;
			a->v = xrealloc(a->v, st_mult(a->alloc, sizeof(*a->v)));
		}
		e = &a->v[a->n++];
		e->key = xmemdupz(key, klen);
	}
	e->value = flag ? NULL : xmemdupz(value, vlen);
}

void launch_release(struct launch_args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].key);
		free(a->v[i].value);
	}
	free(a->v);
	*a = (struct launch_args)LAUNCH_ARGS_INIT;
}

/* ---- rule 1: comments and blank lines */

static void drop_comments_msprobe(struct strbuf *out, const char *data, size_t len)
{
	struct textlines t;
	const char *s;
	size_t n;
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		const char *hash, *b = s;
		size_t bn = n;
		while (bn && space((unsigned char)*b))
			b++, bn--;
		if (bn && *b == '#')
			continue;
		if ((hash = memchr(s, '#', n)))
			n = (size_t)(hash - s);
		while (n && space((unsigned char)s[n - 1]))
			n--;
		b = s, bn = n;
		textlines_strip(&b, &bn);
		if (!bn)
			continue;
		strbuf_add(out, s, n);
		strbuf_addch(out, '\n');
	}
}

/* The shell's comments: '#' at the start of a word, outside quotes (which may span lines). */
static void drop_comments_shell(struct strbuf *out, const char *data, size_t len)
{
	char quote = 0;
	bool word_start = true;
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (!quote && c == '#' && word_start) {
			while (i < len && data[i] != '\n' && data[i] != '\r')
				i++;
			if (i < len)
				strbuf_addch(out, '\n');
			if (i + 1 < len && data[i] == '\r' && data[i + 1] == '\n')
				i++;
			word_start = true;
			continue;
		}
		if (c == '\r') {
			if (i + 1 < len && data[i + 1] == '\n')
				i++;
			c = '\n';
		}
		if (quote == '"' && c == '\\' && i + 1 < len) {
			strbuf_addch(out, c);
			strbuf_addch(out, data[++i]);
			continue;
		}
		if (quote && c == quote)
			quote = 0;
		else if (!quote && (c == '"' || c == '\''))
			quote = c;
		word_start = !quote && (space((unsigned char)c) || c == ';' || c == '|' || c == '&');
		strbuf_addch(out, c);
	}
}

/* ---- rule 2: the command */

static bool at(const char *s, size_t n, size_t p, const char *w)
{
	size_t l = strlen(w);
	return p + l <= n && !memcmp(s + p, w, l);
}

/* "python[D] -m torch?distributed?<tail>" then a blank, at p: its length, or 0. */
static size_t python_m(const char *s, size_t n, size_t p, const char *tail)
{
	size_t q = p + 6, tl = strlen(tail);
	if (!at(s, n, p, "python"))
		return 0;
	if (q < n && s[q] >= '0' && s[q] <= '9')
		q++;
	if (!at(s, n, q, " -m torch") || q + 9 + 1 + 11 + 1 + tl >= n)
		return 0;
	q += 9;
	if (memcmp(s + q + 1, "distributed", 11) || memcmp(s + q + 13, tail, tl))
		return 0;
	q += 13 + tl;
	return q < n && space((unsigned char)s[q]) ? q + 1 - p : 0;
}

static bool launcher_at(const char *s, size_t n, size_t p, enum launch_rules rules)
{
	if ((at(s, n, p, "msrun") && p + 5 < n && space((unsigned char)s[p + 5])) ||
	    (at(s, n, p, "torchrun") && p + 8 < n && space((unsigned char)s[p + 8])) || python_m(s, n, p, "launch"))
		return true;
	if (rules == LAUNCH_MSPROBE)
		return false;
	if (p > 0 && word_char((unsigned char)s[p - 1]))
		return false;
	return python_m(s, n, p, "run") || (at(s, n, p, "deepspeed") && p + 9 < n && space((unsigned char)s[p + 9]));
}

/* probe's last resort: "python[D.D] SCRIPT.py" at p, the start of a word. */
static bool python_script_at(const char *s, size_t n, size_t p)
{
	size_t q = p + 6, w;
	if ((p > 0 && !space((unsigned char)s[p - 1])) || !at(s, n, p, "python"))
		return false;
	while (q < n && ((s[q] >= '0' && s[q] <= '9') || s[q] == '.'))
		q++;
	if (q >= n || !space((unsigned char)s[q]))
		return false;
	while (q < n && space((unsigned char)s[q]))
		q++;
	for (w = q; w < n && !space((unsigned char)s[w]); w++)
		;
	return w - q > 3 && !memcmp(s + w - 3, ".py", 3);
}

/* The command's text [*from, *to), false when there is none. */
static bool find_command(const char *s, size_t n, enum launch_rules rules, size_t *from, size_t *to)
{
	size_t p;
	for (p = 0; p < n && !launcher_at(s, n, p, rules); p++)
		;
	if (p == n && rules == LAUNCH_PROBE)
		for (p = 0; p < n && !python_script_at(s, n, p); p++)
			;
	if (p == n)
		return false;
	*from = p;
	for (*to = p; *to < n && s[*to] != '|'; (*to)++)
		;
	return true;
}

bool launch_sniff(const char *data, size_t len)
{
	struct strbuf text = STRBUF_INIT;
	size_t from, to;
	bool found;
	drop_comments_msprobe(&text, data, len);
	found = find_command(text.buf, text.len, LAUNCH_MSPROBE, &from, &to);
	strbuf_release(&text);
	return found;
}

/* ---- rule 3: the NAME_ARGS="..." blocks */

static void replace_all(struct strbuf *s, const char *from, size_t flen, const char *to, size_t tlen, bool whole_name)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0;
	while (i < s->len) {
		if (i + flen <= s->len && !memcmp(s->buf + i, from, flen) &&
		    (!whole_name || i + flen == s->len || !ascii_word_char((unsigned char)s->buf[i + flen]))) {
			strbuf_add(&out, to, tlen);
			i += flen;
		} else {
			strbuf_addch(&out, s->buf[i++]);
		}
	}
	strbuf_release(s);
	*s = out;
}

/* A block found: its name [n0, n1) and its content [c0, c1). */
struct block {
	size_t n0, n1, c0, c1;
};

/*
 * The next block at or after *pos (msprobe: re.findall of ([a-zA-Z0-9_]{1,20}_ARGS)="(.*?)"; probe: a
 * whole name, double or single quotes, escapes in double quotes).
 */
static bool next_block(const char *s, size_t n, size_t *pos, enum launch_rules rules, struct block *b)
{
	size_t p = *pos;
	while (p < n) {
		size_t r = p, q;
		char quote;
		if (!ascii_word_char((unsigned char)s[p])) {
			p++;
			continue;
		}
		while (r < n && ascii_word_char((unsigned char)s[r]))
			r++;
		quote = r + 1 < n && s[r] == '=' ? s[r + 1] : 0;
		if (r - p < 6 || memcmp(s + r - 5, "_ARGS", 5) || !(quote == '"' || (quote == '\'' && rules == LAUNCH_PROBE))) {
			p = r;
			continue;
		}
		if (rules == LAUNCH_MSPROBE && r - 5 - p > 20)
			p = r - 25; /* the regex starts later in the word: a name of 20 characters and _ARGS */
		if (rules == LAUNCH_PROBE && p > 0 && s[p - 1] == '$') {
			p = r;
			continue;
		}
		for (q = r + 2; q < n && s[q] != quote; q++)
			if (rules == LAUNCH_PROBE && quote == '"' && s[q] == '\\' && q + 1 < n)
				q++;
		if (q >= n) {
			p = r;
			continue;
		}
		*b = (struct block){ p, r, r + 2, q };
		*pos = q + 1;
		return true;
	}
	*pos = n;
	return false;
}

static void substitute_blocks(struct strbuf *cmd, const char *s, size_t n, enum launch_rules rules)
{
	struct block b;
	size_t pos = 0;
	while (next_block(s, n, &pos, rules, &b)) {
		struct strbuf name = STRBUF_INIT, content = STRBUF_INIT;
		strbuf_addch(&name, '$');
		strbuf_add(&name, s + b.n0, b.n1 - b.n0);
		for (size_t i = b.c0; i < b.c1; i++) {
			if (rules == LAUNCH_PROBE && s[i] == '\\' && i + 1 < b.c1 && s[i + 1] == '\n')
				i++; /* a line continued inside the quotes */
			strbuf_addch(&content, s[i] == '\n' ? ' ' : s[i]);
		}
		replace_all(cmd, name.buf, name.len, content.buf, content.len, rules == LAUNCH_PROBE);
		if (rules == LAUNCH_PROBE) {
			strbuf_reset(&name);
			strbuf_addf(&name, "${%.*s}", (int)(b.n1 - b.n0), s + b.n0);
			replace_all(cmd, name.buf, name.len, content.buf, content.len, false);
		}
		strbuf_release(&name);
		strbuf_release(&content);
	}
}

/* ---- rule 5: $VAR */

/* msprobe: the last match of re.findall(VAR + r'=\s*(.+)', script). */
static bool var_value_msprobe(const char *s, size_t n, const char *var, size_t vl, const char **v, size_t *vn)
{
	bool found = false;
	size_t p = 0;
	while (p + vl + 1 <= n) {
		size_t e, k;
		if (memcmp(s + p, var, vl) || s[p + vl] != '=') {
			p++;
			continue;
		}
		for (e = p + vl + 1; e < n && space((unsigned char)s[e]); e++)
			;
		/* \s* backs off until .+ (no newline) can take at least one character */
		for (k = e + 1; k-- > p + vl + 1;)
			if (k < n && s[k] != '\n')
				break;
		if (k < p + vl + 1 || k >= n || s[k] == '\n') {
			p++;
			continue;
		}
		*v = s + k;
		for (e = k; e < n && s[e] != '\n'; e++)
			;
		*vn = e - k;
		found = true;
		p = e;
	}
	return found;
}

/* A shell word at s (quotes removed, escapes in double quotes resolved) into out; returns its end. */
static size_t shell_word(const char *s, size_t n, size_t p, struct strbuf *out)
{
	char quote = 0;
	for (; p < n; p++) {
		char c = s[p];
		if (!quote && space((unsigned char)c))
			break;
		if (!quote && c == '\\' && p + 1 < n) {
			if (s[p + 1] == '\n') {
				p++;
				break; /* a line continued: the word ends */
			}
			strbuf_addch(out, s[++p]);
		} else if (quote == '"' && c == '\\' && p + 1 < n && strchr("\"\\$`", s[p + 1])) {
			strbuf_addch(out, s[++p]);
		} else if (quote && c == quote) {
			quote = 0;
		} else if (!quote && (c == '"' || c == '\'')) {
			quote = c;
		} else {
			strbuf_addch(out, c);
		}
	}
	return p;
}

/* probe: the value of the last assignment VAR=... of the script (VAR a whole name), unquoted. */
static bool var_value_probe(const char *s, size_t n, const char *var, size_t vl, struct strbuf *out)
{
	bool found = false;
	for (size_t p = 0; p + vl + 1 <= n; p++) {
		if (memcmp(s + p, var, vl) || s[p + vl] != '=' || (p > 0 && ascii_word_char((unsigned char)s[p - 1])) ||
		    (p > 0 && s[p - 1] == '$'))
			continue;
		strbuf_reset(out);
		shell_word(s, n, p + vl + 1, out);
		found = true;
	}
	return found;
}

/* $VAR or ${VAR} at the start of value: VAR's length and start, or 0. */
static size_t var_name(const char *v, size_t vn, const char **name, bool whole)
{
	size_t i = 1, k;
	if (!vn || v[0] != '$')
		return 0;
	if (i < vn && v[i] == '{')
		i++;
	for (k = i; k < vn && (whole ? ascii_word_char((unsigned char)v[k]) : word_char((unsigned char)v[k])); k++)
		;
	*name = v + i;
	if (whole && (i == 2 ? !(k + 1 == vn && v[k] == '}') : k != vn))
		return 0;
	return k - i;
}

/* ---- rule 4: the keys */

static void keys_msprobe(struct launch_args *a, const char *cmd, size_t n, const char *script, size_t sn)
{
	size_t p = 0;
	while (p + 2 < n) {
		size_t k0 = p + 2, k1, v0, v1, nl;
		const char *val, *name;
		size_t vn;
		if (cmd[p] != '-' || cmd[p + 1] != '-' || !(word_char((unsigned char)cmd[k0]) || cmd[k0] == '-')) {
			p++;
			continue;
		}
		for (k1 = k0; k1 < n && (word_char((unsigned char)cmd[k1]) || cmd[k1] == '-'); k1++)
			;
		for (v0 = k1; v0 < n && space((unsigned char)cmd[v0]); v0++)
			;
		for (v1 = v0; v1 < n && !space((unsigned char)cmd[v1]) && cmd[v1] != '\\'; v1++)
			;
		if (v0 == k1 || v1 == v0) { /* (?:\s+([^\s\\]+))? did not match */
			set_arg(a, cmd + k0, k1 - k0, NULL, 0, true);
			p = k1;
			continue;
		}
		val = cmd + v0;
		vn = v1 - v0;
		if ((nl = var_name(val, vn, &name, false))) {
			char *var = xmemdupz(name, nl);
			var_value_msprobe(script, sn, var, nl, &val, &vn);
			free(var);
		}
		set_arg(a, cmd + k0, k1 - k0, val, vn, false);
		p = v1;
	}
}

/* The value of a probe-rules argument: $VAR resolved. */
static void resolve_probe(struct strbuf *val, const char *script, size_t sn)
{
	const char *name;
	size_t nl = var_name(val->buf, val->len, &name, true);
	struct strbuf v = STRBUF_INIT;
	if (nl) {
		char *var = xmemdupz(name, nl);
		if (var_value_probe(script, sn, var, nl, &v)) {
			strbuf_release(val);
			*val = v;
			v = (struct strbuf)STRBUF_INIT;
		}
		free(var);
	}
	strbuf_release(&v);
}

static bool is_key_word(const struct strbuf *w)
{
	return w->len > 2 && w->buf[0] == '-' && w->buf[1] == '-' && (word_char((unsigned char)w->buf[2]) || w->buf[2] == '-');
}

static void keys_probe(struct launch_args *a, const char *cmd, size_t n, const char *script, size_t sn)
{
	struct strbuf *words = NULL;
	size_t nw = 0, alloc = 0, p = 0;
	while (p < n) {
		while (p < n && (space((unsigned char)cmd[p]) || (cmd[p] == '\\' && p + 1 < n && cmd[p + 1] == '\n')))
			p += cmd[p] == '\\' ? 2 : 1;
		if (p >= n)
			break;
		if (nw == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			words = xrealloc(words, st_mult(alloc, sizeof(*words)));
		}
		strbuf_init(&words[nw], 0);
		p = shell_word(cmd, n, p, &words[nw++]);
	}
	for (size_t i = 0; i < nw; i++) {
		struct strbuf *w = &words[i];
		char *eq;
		size_t k = 2;
		if (!is_key_word(w))
			continue;
		while (k < w->len && (word_char((unsigned char)w->buf[k]) || w->buf[k] == '-'))
			k++;
		eq = k < w->len && w->buf[k] == '=' ? w->buf + k : NULL;
		if (k < w->len && !eq)
			continue; /* --a.b, --a/b: not an option of the form msprobe reads */
		if (eq) {
			struct strbuf v = STRBUF_INIT;
			strbuf_add(&v, eq + 1, w->len - k - 1);
			resolve_probe(&v, script, sn);
			set_arg(a, w->buf + 2, k - 2, v.buf, v.len, false);
			strbuf_release(&v);
		} else if (i + 1 < nw && !is_key_word(&words[i + 1]) && strcmp(words[i + 1].buf, "\\")) {
			resolve_probe(&words[i + 1], script, sn);
			set_arg(a, w->buf + 2, k - 2, words[i + 1].buf, words[i + 1].len, false);
			i++;
		} else {
			set_arg(a, w->buf + 2, k - 2, NULL, 0, true);
		}
	}
	for (size_t i = 0; i < nw; i++)
		strbuf_release(&words[i]);
	free(words);
}

void launch_parse(struct launch_args *out, const char *data, size_t len, enum launch_rules rules)
{
	struct strbuf script = STRBUF_INIT, cmd = STRBUF_INIT;
	size_t from, to;
	if (rules == LAUNCH_MSPROBE)
		drop_comments_msprobe(&script, data, len);
	else
		drop_comments_shell(&script, data, len);
	out->found = find_command(script.buf, script.len, rules, &from, &to);
	if (out->found) {
		strbuf_add(&cmd, script.buf + from, to - from);
		substitute_blocks(&cmd, script.buf, script.len, rules);
		if (rules == LAUNCH_MSPROBE)
			keys_msprobe(out, cmd.buf, cmd.len, script.buf, script.len);
		else
			keys_probe(out, cmd.buf, cmd.len, script.buf, script.len);
	}
	strbuf_release(&script);
	strbuf_release(&cmd);
}
