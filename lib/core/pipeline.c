/* pipeline.c: a pipeline of programs (pipeline.h). */
#include "pipeline.h"
#include "msg.h"
#include "textesc.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: stdin from in, stdout to out, then the program; 127 when it cannot be started. */
static void NORETURN exec_stage(char *const *argv, int in, int out, int out_fd)
{
	if (out_fd >= 0 && out_fd != out)
		close(out_fd); /* only the last stage writes there */
	if ((in != STDIN_FILENO && dup2(in, STDIN_FILENO) < 0) || (out != STDOUT_FILENO && dup2(out, STDOUT_FILENO) < 0))
		_exit(127);
	if (in != STDIN_FILENO)
		close(in);
	if (out != STDOUT_FILENO)
		close(out);
	signal(SIGPIPE, SIG_DFL); /* as a shell starts it: a closed pipe ends it quietly */
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s: cannot run: %s\n", msg_progname(), argv[0], strerror(errno));
	_exit(127);
}

static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 127;
}

int pipeline_run(char *const *const *stages, size_t n, int out_fd, int *status, struct strbuf *err)
{
	pid_t pid[PIPELINE_MAX_STAGES];
	int in = STDIN_FILENO, ret = 0;
	size_t started = 0;
	if (n == 0 || n > PIPELINE_MAX_STAGES) {
		strbuf_addf(err, "a pipeline of %zu stages (1 to %d)", n, PIPELINE_MAX_STAGES);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	for (size_t i = 0; i < n; i++) {
		int fds[2] = { -1, -1 }, out = out_fd >= 0 ? out_fd : STDOUT_FILENO;
		if (i + 1 < n) {
			if (pipe(fds) < 0) {
				ret = msg_fail(err, "pipe", "%s", strerror(errno));
				break;
			}
			out = fds[1];
		}
		pid[i] = fork();
		if (pid[i] < 0) {
			ret = msg_fail(err, stages[i][0], "cannot start: %s", strerror(errno));
			if (fds[0] >= 0)
				close(fds[0]), close(fds[1]);
			break;
		}
		if (pid[i] == 0) {
			if (fds[0] >= 0)
				close(fds[0]);
			exec_stage(stages[i], in, out, out_fd);
		}
		started++;
		if (in != STDIN_FILENO)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
	}
	if (in != STDIN_FILENO && in >= 0)
		close(in);
	for (size_t i = 0; i < started; i++) {
		int ws;
		while (waitpid(pid[i], &ws, 0) < 0)
			if (errno != EINTR) {
				ws = 127 << 8;
				break;
			}
		status[i] = status_of(ws);
	}
	return ret;
}

void pipeline_text(char *const *const *stages, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, " | ");
		for (size_t k = 0; stages[i][k]; k++) {
			if (k)
				strbuf_addch(out, ' ');
			text_sh_word(out, stages[i][k]);
		}
	}
}
