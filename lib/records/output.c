#include "output.h"
#include "../core/msg.h"
#include "errorrec.h"

#include "../core/partial.h"
#include "../core/source.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Writes go out in pieces of OUTPUT_BUFFER bytes (output_write() cuts
 * larger ones).  Into a pipe, a write blocks until the whole piece fits, so
 * a piece as large as the pipe would make writer and reader take turns: the
 * pipe is grown to 1 MB (source_grow_pipe), sixteen pieces.  The pieces are
 * small because the kernel gives each 4 KB of a write that does not fit a
 * page it has recycled a page of its own, allocated, charged and touched for
 * the first time, and frees it when the reader is done: 1 GB through a pipe
 * here took 0.9-1.6 s in 256 KB writes and 0.2-0.5 s in 8-64 KB ones
 * (dd | cat).  Smaller pieces cost more calls and wake-ups; the three-tool
 * pipeline of make bench was fastest at 64 KB (2.25 s at 256 KB, 2.17 at
 * 128, 2.00 at 64, 2.03 at 32, 2.10 at 8: medians of 6, alternating).
 */
#define OUTPUT_BUFFER (64 * 1024)

static char *buffer;

/* What an interruption does to stdout (see on_signal); set before the handler can run. */
static enum { ON_SIGNAL_NOTHING, ON_SIGNAL_RECORD, ON_SIGNAL_TRUNCATE } on_signal_do;
static char signal_record[256];
static size_t signal_record_len;
static off_t discard_to; /* ON_SIGNAL_TRUNCATE: stdout's size when the tool started */

/* Async-signal-safe: only write, pread, lseek, fstat and ftruncate. */
static void on_signal(int sig)
{
	struct stat st;
	bool file = !fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode);
	if (on_signal_do == ON_SIGNAL_TRUNCATE) {
		if (ftruncate(STDOUT_FILENO, discard_to) == 0)
			lseek(STDOUT_FILENO, discard_to, SEEK_SET);
	} else if (on_signal_do == ON_SIGNAL_RECORD) {
		/* bytes still in stdio's buffer are lost: the record starts a line of its own */
		char last = '\n';
		off_t at = file ? lseek(STDOUT_FILENO, 0, SEEK_CUR) : -1;
		if (!file || (at > 0 && pread(STDOUT_FILENO, &last, 1, at - 1) != 1))
			last = 0;
		if (at != 0 && last != '\n' && write(STDOUT_FILENO, "\n", 1) < 0)
			return;
		if (write(STDOUT_FILENO, signal_record, signal_record_len) < 0)
			return;
	}
	(void)sig;
}

void output_init(void)
{
	partial_init();
	partial_on_signal(on_signal);
	signal(SIGPIPE, SIG_DFL);
	source_grow_pipe(STDOUT_FILENO);
	buffer = malloc(OUTPUT_BUFFER);
	if (buffer)
		setvbuf(stdout, buffer, _IOFBF, OUTPUT_BUFFER);
}

static void NORETURN write_failed(void)
{
	if (errno == EPIPE) {
		/* SIGPIPE was blocked: end as if it had been delivered */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		exit(PROBE_TROUBLE);
	}
	if (on_signal_do == ON_SIGNAL_RECORD)
		msg_set_die_hook(NULL); /* an error record could not be written either */
	die_errno("write error on standard output");
}

void output_write(const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		size_t n = len < OUTPUT_BUFFER ? len : OUTPUT_BUFFER;
		if (fwrite(p, 1, n, stdout) != n)
			write_failed();
		p += n;
		len -= n;
	}
}

void output_flush_strbuf(struct strbuf *sb, size_t threshold)
{
	if (sb->len > threshold) {
		output_write(sb->buf, sb->len);
		strbuf_reset(sb);
	}
}

void output_close(void)
{
	if (fflush(stdout) || ferror(stdout))
		write_failed();
	if (fclose(stdout)) {
		errno = errno ? errno : EIO;
		write_failed();
	}
	free(buffer);
	buffer = NULL;
}

static void write_error_record(const char *message)
{
	struct strbuf sb = STRBUF_INIT;
	if (isatty(STDOUT_FILENO))
		return; /* a person reads the message on stderr; no tool reads this stream */
	errorrec_add(&sb, message);
	/* best effort: the message is already on stderr */
	if (fwrite(sb.buf, 1, sb.len, stdout) == sb.len)
		fflush(stdout);
	strbuf_release(&sb);
}

void output_mark_incomplete_on_die(void)
{
	struct strbuf sb = STRBUF_INIT, msg = STRBUF_INIT;
	strbuf_addf(&msg, "%s: interrupted: the output ends here, incomplete", msg_progname());
	errorrec_add(&sb, msg.buf);
	if (sb.len < sizeof(signal_record)) {
		memcpy(signal_record, sb.buf, sb.len);
		signal_record_len = sb.len;
		on_signal_do = ON_SIGNAL_RECORD;
	}
	strbuf_release(&sb);
	strbuf_release(&msg);
	msg_set_die_hook(write_error_record);
}

void output_no_error_record(void)
{
	if (on_signal_do == ON_SIGNAL_RECORD)
		on_signal_do = ON_SIGNAL_NOTHING;
	msg_set_die_hook(NULL);
}

static void discard_output(const char *message)
{
	int null;
	(void)message;
	fflush(stdout);
	if (ftruncate(STDOUT_FILENO, discard_to) == 0)
		lseek(STDOUT_FILENO, discard_to, SEEK_SET);
	/* whatever stdio still holds (a failed write keeps it) must not land after the cut at exit() */
	null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

void output_discard_on_failure(void)
{
	struct stat st;
	int flags = fcntl(STDOUT_FILENO, F_GETFL);
	if (fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode) || flags < 0)
		return;
	/* appending (>>): what was there before stays */
	discard_to = (flags & O_APPEND) ? st.st_size : lseek(STDOUT_FILENO, 0, SEEK_CUR);
	if (discard_to < 0)
		return;
	on_signal_do = ON_SIGNAL_TRUNCATE;
	msg_set_die_hook(discard_output);
}
