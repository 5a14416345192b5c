#include "msg.h"
#include "strbuf.h"
#include "textesc.h"

static const char *progname = "probe";
static void (*die_hook)(const char *message);
static void (*before_hook)(void);
static bool quiet;
static char *upstream;        /* the message of a producer that failed (msg_upstream_failed()) */
static bool upstream_quiet;

void msg_set_progname(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	progname = slash ? slash + 1 : argv0;
}

const char *msg_progname(void)
{
	return progname;
}

void msg_set_die_hook(void (*hook)(const char *message))
{
	die_hook = hook;
}

void msg_set_before_message(void (*hook)(void))
{
	before_hook = hook;
}

void msg_set_quiet(bool q)
{
	quiet = q;
}

bool msg_is_quiet(void)
{
	return quiet;
}

/*
 * Print "prog: prefix body[: strerror]" and, when copy is given, keep "prog: body[: ...]" there.
 * What goes to the terminal has its control characters made visible (textesc.h): a name
 * from a dump in a message must not drive the terminal; the copy (for an error record) is
 * as it was, JSON escapes it.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap, int errnum, struct strbuf *copy)
{
	struct strbuf body = STRBUF_INIT, shown = STRBUF_INIT;
	strbuf_vaddf(&body, fmt, ap);
	if (errnum)
		strbuf_addf(&body, ": %s", strerror(errnum));
	strbuf_addf(&shown, "%s: %s", progname, prefix);
	text_escape(&shown, body.buf, body.len, TEXT_KEEP_NL | TEXT_KEEP_TAB);
	strbuf_addch(&shown, '\n');
	if (before_hook)
		before_hook();
	fwrite(shown.buf, 1, shown.len, stderr);
	if (copy)
		strbuf_addf(copy, "%s: %s", progname, body.buf);
	strbuf_release(&body);
	strbuf_release(&shown);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0, NULL);
	va_end(ap);
}

int msg_fail(struct strbuf *err, const char *subject, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s: ", subject);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return PROBE_ERR;
}

int msg_place(struct strbuf *err, const char *fmt, ...)
{
	struct strbuf whole = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&whole, fmt, ap);
	va_end(ap);
	strbuf_addf(&whole, ": %s", err->buf);
	strbuf_reset(err);
	strbuf_addbuf(err, &whole);
	strbuf_release(&whole);
	return PROBE_ERR;
}

void msg_report(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0, NULL);
	va_end(ap);
}

void msg_upstream_failed(const char *message, bool quiet_here)
{
	free(upstream);
	upstream = strdup(message);
	upstream_quiet = quiet_here;
}

void msg_run_die_hook(const char *message)
{
	if (die_hook) {
		void (*hook)(const char *) = die_hook;
		die_hook = NULL; /* a failing hook must not recurse */
		hook(upstream ? upstream : message);
	}
}

/* Run the hook with "prog: message" (once; the producer's message when it failed) and exit. */
static void NORETURN finish_die(struct strbuf *copy)
{
	msg_run_die_hook(copy->buf);
	exit(PROBE_TROUBLE);
}

void die(const char *fmt, ...)
{
	struct strbuf copy = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	if (upstream && upstream_quiet) /* said once, by the tool that failed */
		strbuf_vaddf(&copy, fmt, ap);
	else
		vreport("", fmt, ap, 0, &copy);
	va_end(ap);
	finish_die(&copy);
}

void die_errno(const char *fmt, ...)
{
	int errnum = errno;
	struct strbuf copy = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, errnum, &copy);
	va_end(ap);
	finish_die(&copy);
}
