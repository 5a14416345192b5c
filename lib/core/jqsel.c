#include "jqsel.h"
#include "textesc.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jq.h>
#include <jv.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	SHOWN = 60,            /* bytes of the filter quoted in a message */
	REPLY_MAX = 1024,      /* bytes of jq's message sent back */
	SLICE_MS = 20,         /* how often a running filter is looked at */
	MAX_NESTING = 200,     /* string interpolations inside each other */
	DEFAULT_SECONDS = 10,
	DEFAULT_MB = 1024,
};

struct jqsel {
	jq_state *jq;
	struct strbuf messages; /* what jq reported while compiling or running */
	struct strbuf shown;    /* the filter, quoted and cut, for messages */
	pid_t pid;              /* the evaluator, or 0 */
	int fd;                 /* its socket */
	long base_pages;        /* its resident pages once ready */
	unsigned seconds, mb;
	bool failed;            /* the evaluator was stopped: no further records */
};

/* ---- the filter's text, read as jq's lexer reads it ---- */

/* The builtins and directives a filter may not name: modules, and whatever reads input or writes beside the result. */
static const char *const refused[] = {
	"include", "import", "modulemeta", "get_search_list", "input", "inputs", "input_filename", "debug", "stderr",
};

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int scan_code(const char *f, size_t *i, size_t n, int depth, bool in_interp, struct strbuf *err);

/* A string from its opening quote; \( ... ) inside is code. */
static int scan_string(const char *f, size_t *i, size_t n, int depth, struct strbuf *err)
{
	for ((*i)++; *i < n; (*i)++) {
		if (f[*i] == '"')
			return 0;
		if (f[*i] != '\\')
			continue;
		if (++*i >= n)
			break;
		if (f[*i] == '(') {
			(*i)++;
			if (scan_code(f, i, n, depth + 1, true, err))
				return -1;
		}
	}
	return 0; /* unterminated: jq refuses it */
}

/*
 * Code up to the end (or the ")" closing an interpolation): comments and
 * strings skipped as jq skips them (a comment ends at the newline even where
 * jq 1.7 would continue it: reading more code than jq does only refuses more).
 * A word directly after "." (a field) or "$" (a variable) is not the builtin.
 */
static int scan_code(const char *f, size_t *i, size_t n, int depth, bool in_interp, struct strbuf *err)
{
	int parens = 0;
	if (depth > MAX_NESTING) {
		strbuf_addstr(err, "strings inside interpolations nested too deep");
		return -1;
	}
	while (*i < n) {
		char c = f[*i];
		if (c == '#') {
			while (*i < n && f[*i] != '\n')
				(*i)++;
		} else if (c == '"') {
			if (scan_string(f, i, n, depth, err))
				return -1;
			(*i)++;
		} else if (c == '(') {
			parens++;
			(*i)++;
		} else if (c == ')') {
			if (in_interp && !parens)
				return 0;
			parens--;
			(*i)++;
		} else if (is_ident_start(c)) {
			size_t b = *i;
			while (*i < n && (is_ident(f[*i]) || (f[*i] == ':' && *i + 1 < n && f[*i + 1] == ':'
								      && (*i)++)))
				(*i)++;
			if (b && (f[b - 1] == '.' || f[b - 1] == '$'))
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(refused); k++)
				if (*i - b == strlen(refused[k]) && !memcmp(f + b, refused[k], *i - b)) {
					strbuf_addf(err, "'%s' is not allowed in a filter here (%s)", refused[k],
						    k < 4 ? "no modules are loaded" : "a filter sees one record and writes nothing");
					return -1;
				}
		} else {
			(*i)++;
		}
	}
	return 0;
}

static int check_text(const char *filter, struct strbuf *err)
{
	size_t i = 0;
	return scan_code(filter, &i, strlen(filter), 0, false, err);
}

/* ---- the environment's bounds ---- */

static int env_bound(const char *var, unsigned def, unsigned most, unsigned *v, struct strbuf *err)
{
	const char *env = getenv(var);
	char *end;
	unsigned long x;
	if (!env || !*env) {
		*v = def;
		return 0;
	}
	errno = 0;
	x = strtoul(env, &end, 10);
	if (*end || env[0] < '0' || env[0] > '9' || errno || !x || x > most) {
		strbuf_addf(err, "%s=%s: not a whole number from 1 to %u", var, env, most);
		return -1;
	}
	*v = (unsigned)x;
	return 0;
}

/* ---- jq's callbacks ---- */

/* jq's messages (compile errors, runtime errors) are collected, not printed. */
static void collect(void *data, jv msg)
{
	struct jqsel *s = data;
	jv text = jv_get_kind(msg) == JV_KIND_STRING ? msg : jv_dump_string(msg, 0);
	if (s->messages.len)
		strbuf_addstr(&s->messages, "; ");
	if (s->messages.len < REPLY_MAX)
		strbuf_add(&s->messages, jv_string_value(text), strnlen(jv_string_value(text), REPLY_MAX));
	jv_free(text);
}

/* input and debug are refused by name; should one be reached anyway, nothing is read and nothing written. */
static jv no_input(jq_state *jq, void *data)
{
	(void)jq;
	(void)data;
	return jv_invalid_with_msg(jv_string("a --where filter reads no input"));
}

static void no_debug(void *data, jv msg)
{
	(void)data;
	jv_free(msg);
}

/* ---- the evaluator: a child process that runs the filter on each record it is sent ---- */

static int io_full(int fd, void *buf, size_t len, bool writing)
{
	char *p = buf;
	while (len) {
		ssize_t k = writing ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* The filter's first output on one record: 1 chosen, 0 not, -1 with the reason in msg. */
static int evaluate(struct jqsel *s, const char *json, size_t len, struct strbuf *msg)
{
	jv in, out;
	int ret;
	if (len > INT_MAX) {
		strbuf_addstr(msg, "the record is too long for jq");
		return -1;
	}
	in = jv_parse_sized(json, (int)len);
	if (!jv_is_valid(in)) {
		jv m = jv_invalid_get_msg(in);
		strbuf_addf(msg, "jq cannot read the record: %.*s", REPLY_MAX,
			    jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "invalid JSON");
		jv_free(m);
		return -1;
	}
	strbuf_reset(&s->messages);
	jq_start(s->jq, in, 0);
	out = jq_next(s->jq);
	if (jv_is_valid(out)) {
		jv_kind k = jv_get_kind(out);
		ret = k != JV_KIND_FALSE && k != JV_KIND_NULL;
	} else if (jq_halted(s->jq)) {
		strbuf_addstr(msg, "jq: the filter halted");
		ret = -1;
	} else if (jv_invalid_has_msg(jv_copy(out))) {
		jv m = jv_invalid_get_msg(jv_copy(out));
		jv text = jv_get_kind(m) == JV_KIND_STRING ? m : jv_dump_string(m, 0);
		strbuf_addf(msg, "jq: %.*s", REPLY_MAX, jv_string_value(text));
		jv_free(text);
		ret = -1;
	} else {
		ret = 0; /* no output: not chosen */
	}
	jv_free(out);
	return ret;
}

static void NORETURN evaluator_loop(struct jqsel *s, int fd)
{
	struct strbuf rec = STRBUF_INIT, msg = STRBUF_INIT;
	char ready = 'r';
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) { /* the evaluator holds none of the tool's input or output open */
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	if (io_full(fd, &ready, 1, true))
		_exit(0);
	for (;;) {
		uint64_t len;
		uint32_t mlen;
		int8_t r;
		if (io_full(fd, &len, sizeof(len), false))
			_exit(0);
		strbuf_reset(&rec);
		strbuf_grow(&rec, (size_t)len);
		if (io_full(fd, rec.buf, (size_t)len, false))
			_exit(0);
		strbuf_reset(&msg);
		r = (int8_t)evaluate(s, rec.buf, (size_t)len, &msg);
		mlen = (uint32_t)(msg.len > REPLY_MAX ? REPLY_MAX : msg.len);
		if (io_full(fd, &r, 1, true) || io_full(fd, &mlen, sizeof(mlen), true) ||
		    io_full(fd, msg.buf, mlen, true))
			_exit(0);
	}
}

static long resident_pages(pid_t pid)
{
	char path[64], buf[128];
	long size, rss;
	ssize_t k;
	int fd;
	snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = 0;
	return sscanf(buf, "%ld %ld", &size, &rss) == 2 ? rss : -1;
}

static void stop_evaluator(struct jqsel *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	s->pid = 0;
}

static int start_evaluator(struct jqsel *s, struct strbuf *err)
{
	int sv[2];
	char ready;
	pid_t parent = getpid();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		strbuf_addf(err, "cannot start the filter's process: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		strbuf_addf(err, "cannot start the filter's process: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		s->pid = 0;
		return -1;
	}
	if (!s->pid) {
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		evaluator_loop(s, sv[1]);
	}
	close(sv[1]);
	s->fd = sv[0];
	if (io_full(s->fd, &ready, 1, false)) {
		strbuf_addstr(err, "the filter's process did not start");
		stop_evaluator(s);
		return -1;
	}
	s->base_pages = resident_pages(s->pid);
	return 0;
}

struct jqsel *jqsel_new(const char *filter, struct strbuf *err)
{
	struct jqsel *s = xcalloc(1, sizeof(*s));
	strbuf_init(&s->messages, 0);
	strbuf_init(&s->shown, 0);
	s->fd = -1;
	text_quote_cut(&s->shown, filter, strlen(filter), SHOWN);
	if (env_bound("PROBE_WHERE_SECONDS", DEFAULT_SECONDS, 86400, &s->seconds, err) ||
	    env_bound("PROBE_WHERE_MB", DEFAULT_MB, 1u << 20, &s->mb, err) || check_text(filter, err)) {
		jqsel_free(s);
		return NULL;
	}
	s->jq = jq_init();
	if (!s->jq) {
		strbuf_addstr(err, "libjq could not start");
		jqsel_free(s);
		return NULL;
	}
	jq_set_error_cb(s->jq, collect, s);
	jq_set_input_cb(s->jq, no_input, NULL);
	jq_set_debug_cb(s->jq, no_debug, NULL);
	jq_set_attr(s->jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
	if (!jq_compile(s->jq, filter)) {
		strbuf_addf(err, "not a jq filter: %s", s->messages.len ? s->messages.buf : filter);
		jqsel_free(s);
		return NULL;
	}
	if (start_evaluator(s, err)) {
		jqsel_free(s);
		return NULL;
	}
	return s;
}

void jqsel_free(struct jqsel *s)
{
	if (!s)
		return;
	stop_evaluator(s);
	if (s->jq)
		jq_teardown(&s->jq);
	strbuf_release(&s->messages);
	strbuf_release(&s->shown);
	free(s);
}

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Wait for the evaluator's reply within the bounds: 0 when it is there, -1 (evaluator stopped) with the reason in err. */
static int await_reply(struct jqsel *s, struct strbuf *err)
{
	struct timespec t0;
	long page = sysconf(_SC_PAGESIZE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		int k = poll(&p, 1, SLICE_MS);
		long rss;
		if (k > 0)
			return 0;
		if (k < 0 && errno != EINTR) {
			strbuf_addf(err, "--where: cannot wait for the filter %s: %s", s->shown.buf, strerror(errno));
			return -1;
		}
		if (since(&t0) > s->seconds) {
			strbuf_addf(err, "--where: the filter %s took more than %u s on this record "
				    "(PROBE_WHERE_SECONDS raises the limit)", s->shown.buf, s->seconds);
			return -1;
		}
		rss = resident_pages(s->pid);
		if (rss > 0 && s->base_pages > 0 && page > 0 &&
		    (double)(rss - s->base_pages) * (double)page > (double)s->mb * 1048576.0) {
			strbuf_addf(err, "--where: the filter %s used more than %u MB on this record "
				    "(PROBE_WHERE_MB raises the limit)", s->shown.buf, s->mb);
			return -1;
		}
	}
}

int jqsel_match(struct jqsel *s, const char *json, size_t len, struct strbuf *err)
{
	uint64_t n = len;
	uint32_t mlen;
	int8_t r;
	char msg[REPLY_MAX];
	int status = 0;
	if (s->failed || s->fd < 0) {
		strbuf_addf(err, "--where: the filter %s was stopped on an earlier record", s->shown.buf);
		return -1;
	}
	if (io_full(s->fd, &n, sizeof(n), true) || io_full(s->fd, (void *)json, len, true) || await_reply(s, err) ||
	    io_full(s->fd, &r, 1, false) || io_full(s->fd, &mlen, sizeof(mlen), false) || mlen > REPLY_MAX ||
	    io_full(s->fd, msg, mlen, false)) {
		if (!err->len) {
			kill(s->pid, SIGKILL);
			while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
				;
			s->pid = 0;
			if (WIFSIGNALED(status))
				strbuf_addf(err, "--where: jq stopped (signal %d) running the filter %s on this record",
					    WTERMSIG(status), s->shown.buf);
			else
				strbuf_addf(err, "--where: jq stopped running the filter %s on this record", s->shown.buf);
		}
		s->failed = true;
		stop_evaluator(s);
		return -1;
	}
	if (r < 0) {
		strbuf_addstr(err, "--where: ");
		strbuf_add(err, msg, mlen);
	}
	return r;
}
