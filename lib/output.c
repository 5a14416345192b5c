#include "output.h"
#include "msg.h"
#include "record.h"

#include "source.h"

#include <signal.h>
#include <unistd.h>

/*
 * Writes go out in pieces of OUTPUT_BUFFER bytes.  Into a pipe, a write
 * blocks until the whole piece fits, so a piece as large as the pipe would
 * make writer and reader take turns instead of working at the same time:
 * the pipe is grown (source_grow_pipe) and pieces are a quarter of it.
 */
#define OUTPUT_BUFFER (256 * 1024)

static char *buffer;

void output_init(void)
{
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
	msg_set_die_hook(NULL);
	die_errno("write error on standard output");
}

void output_write(const void *data, size_t len)
{
	if (len && fwrite(data, 1, len, stdout) != len)
		write_failed();
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
	record_add_error(&sb, message);
	/* best effort: the message is already on stderr */
	if (fwrite(sb.buf, 1, sb.len, stdout) == sb.len)
		fflush(stdout);
	strbuf_release(&sb);
}

void output_mark_incomplete_on_die(void)
{
	msg_set_die_hook(write_error_record);
}
