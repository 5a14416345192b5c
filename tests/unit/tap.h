/*
 * tap.h: a small TAP producer for the unit tests of lib/.
 *
 * Each check prints "ok N - what" or "not ok N - what" with the values
 * that differed, so that a failure says how to reproduce it.  done_testing()
 * prints the plan and returns the exit status (0 when all passed).
 */
#ifndef PROBE_TAP_H
#define PROBE_TAP_H

#include "../../lib/core/compat.h"

static int tap_count, tap_failed;

static MAYBE_UNUSED bool tap_ok(bool cond, const char *fmt, ...) PRINTF_LIKE(2, 3);
static MAYBE_UNUSED bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

#define ok(cond, ...) tap_ok((cond), __VA_ARGS__)

static MAYBE_UNUSED bool is_str(const char *got, const char *want, const char *what)
{
	bool same = (got == NULL && want == NULL) || (got && want && !strcmp(got, want));
	if (!tap_ok(same, "%s", what)) {
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	}
	return same;
}

static MAYBE_UNUSED bool is_int(long long got, long long want, const char *what)
{
	bool same = got == want;
	if (!tap_ok(same, "%s", what))
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return same;
}

static MAYBE_UNUSED void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static MAYBE_UNUSED int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
