/*
 * Who draws the progress line (lib/core/progress.h): the table of its
 * header, case by case -- the head of a pipeline (stdin not a pipe) on a
 * terminal after a second; nobody when PROBE_PROGRESS=0; the head from the
 * start, terminal or not, when asked; every tool with "all".
 */
#include "tap.h"
#include "../../lib/core/progress.h"

int main(void)
{
	static const struct {
		bool pipe, tty;
		const char *env;
		bool shows, delayed;
		const char *what;
	} cases[] = {
		{ false, true, NULL, true, true, "the head, on a terminal: after a second" },
		{ true, true, NULL, false, true, "a tool reading a pipe, on a terminal: quiet" },
		{ false, false, NULL, false, true, "the head, stderr a file: quiet" },
		{ false, true, "", true, true, "an empty PROBE_PROGRESS is unset" },
		{ false, true, "0", false, false, "PROBE_PROGRESS=0: never" },
		{ true, true, "0", false, false, "PROBE_PROGRESS=0 in a pipe: never" },
		{ false, false, "1", true, false, "asked: the head draws from the start, no terminal needed" },
		{ true, true, "1", false, false, "asked: a tool reading a pipe stays quiet" },
		{ false, false, "yes", true, false, "any other value asks too" },
		{ true, false, "all", true, false, "all: every tool, from the start" },
		{ false, true, "all", true, false, "all: the head as well" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bool delayed = !cases[i].delayed;
		bool shows = progress_decide(cases[i].pipe, cases[i].tty, cases[i].env, &delayed);
		ok(shows == cases[i].shows, "%s: %s", cases[i].what, shows ? "draws" : "quiet");
		if (shows)
			ok(delayed == cases[i].delayed, "%s: %s", cases[i].what, delayed ? "delayed" : "at once");
	}
	return done_testing();
}
