#include "progress.h"
#include "msg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 512

static atomic_bool on;
static atomic_uint_fast64_t done, items;
static atomic_int_fast64_t next_ns;   /* when the line may be drawn next */
static uint64_t total;
static int64_t interval_ns = 200000000;

/* the labels, and what was drawn last; under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char what[160];
static char part_label[32];
static size_t part_i, part_n;
static const char *unit;
static size_t drawn_len;   /* columns the last drawing covered: 0 when the row is clear */

/* Before a message: the line cleared, to be drawn again after it. */
static void clear_line(void);
static void clear_for_message(void)
{
	if (atomic_load(&on))
		clear_line();
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t progress_size(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_size;
}

bool progress_decide(bool stdin_pipe, bool stderr_tty, const char *env, bool *delayed)
{
	*delayed = false;
	if (env && *env) {
		if (!strcmp(env, "0"))
			return false;
		return !strcmp(env, "all") || !stdin_pipe;
	}
	*delayed = true;
	return stderr_tty && !stdin_pipe;
}

static bool stdin_is_pipe(void)
{
	struct stat st;
	return !fstat(0, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

void progress_start(uint64_t expected)
{
	const char *env = getenv("PROBE_PROGRESS"), *ms = getenv("PROBE_PROGRESS_MS");
	bool delayed, show = progress_decide(stdin_is_pipe(), isatty(2), env, &delayed);
	int64_t start = now_ns();
	if (ms && *ms && atoll(ms) > 0)
		interval_ns = atoll(ms) * 1000000;
	pthread_mutex_lock(&lock);
	total = expected;
	what[0] = part_label[0] = '\0';
	part_i = part_n = 0;
	unit = NULL;
	drawn_len = 0;
	pthread_mutex_unlock(&lock);
	atomic_store(&done, 0);
	atomic_store(&items, 0);
	/* on a terminal nothing for the first second; asked for, from the start */
	atomic_store(&next_ns, delayed ? start + 1000000000 : start);
	atomic_store(&on, show);
	if (show)
		msg_set_before_message(clear_for_message);
}

void progress_what(const char *w)
{
	pthread_mutex_lock(&lock);
	snprintf(what, sizeof(what), "%s", w ? w : "");
	pthread_mutex_unlock(&lock);
}

void progress_part(const char *label, size_t i, size_t n)
{
	pthread_mutex_lock(&lock);
	snprintf(part_label, sizeof(part_label), "%s", label ? label : "file");
	part_i = i;
	part_n = n;
	pthread_mutex_unlock(&lock);
}

void progress_items(uint64_t n, const char *u)
{
	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return;
	if (!unit) /* set once per work, by the thread that counts */
		unit = u;
	atomic_fetch_add_explicit(&items, n, memory_order_relaxed);
}

static void human(char *buf, size_t n, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, n, "%.1f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(buf, n, "%.0f MB", bytes / 1e6);
	else
		snprintf(buf, n, "%.0f kB", bytes / 1e3);
}

/* n with a comma every three digits: 120,345. */
static void grouped(char *buf, size_t size, uint64_t n)
{
	char digits[32];
	size_t len = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n), o = 0;
	for (size_t i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* The columns of the terminal on stderr (80 when it does not say). */
static size_t terminal_width(void)
{
	struct winsize ws;
	if (!ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

/* The line's text, without the carriage return, into line (under lock). */
static size_t line_text(char *line, size_t size, uint64_t d, uint64_t n)
{
	char a[32], b[32], c[32];
	size_t len;
	human(a, sizeof(a), (double)d);
	if (total) {
		human(b, sizeof(b), (double)total);
		len = (size_t)snprintf(line, size, "%s: %.0f%% of %s%s%s%s", msg_progname(), 100.0 * (double)d / (double)total,
				       what[0] ? what : b, what[0] ? " (" : "", what[0] ? b : "", what[0] ? ")" : "");
	} else {
		len = (size_t)snprintf(line, size, "%s: %s read%s%s", msg_progname(), a, what[0] ? " of " : "", what);
	}
	if (len < size && part_n > 1)
		len += (size_t)snprintf(line + len, size - len, ": %s %zu of %zu", part_label, part_i, part_n);
	if (len < size && n && unit) {
		grouped(c, sizeof(c), n);
		len += (size_t)snprintf(line + len, size - len, "%s %s %s", part_n > 1 ? "," : ":", c, unit);
	}
	return len < size ? len : size - 1;
}

/*
 * The line, padded with spaces to the width of the terminal but one column:
 * it covers whatever any tool drew on the row before, and never wraps.
 */
static void draw(uint64_t d)
{
	char line[LINE_MAX_BYTES + 2];
	size_t len, width = terminal_width();
	if (width > LINE_MAX_BYTES)
		width = LINE_MAX_BYTES;
	pthread_mutex_lock(&lock);
	if (!atomic_load(&on)) { /* ended meanwhile */
		pthread_mutex_unlock(&lock);
		return;
	}
	line[0] = '\r';
	len = line_text(line + 1, LINE_MAX_BYTES, d, atomic_load_explicit(&items, memory_order_relaxed));
	if (len > width - 1) /* a carriage return goes back to the start of one row only */
		len = width - 1;
	memset(line + 1 + len, ' ', width - 1 - len);
	drawn_len = width - 1;
	(void)!write(2, line, width);
	pthread_mutex_unlock(&lock);
}

/* The line cleared: spaces over it, the cursor back at its start. */
static void clear_line(void)
{
	char blank[LINE_MAX_BYTES + 2];
	pthread_mutex_lock(&lock);
	if (drawn_len) {
		blank[0] = '\r';
		memset(blank + 1, ' ', drawn_len);
		blank[drawn_len + 1] = '\r';
		(void)!write(2, blank, drawn_len + 2);
		drawn_len = 0;
	}
	pthread_mutex_unlock(&lock);
}

void progress_add(uint64_t bytes)
{
	uint64_t d;
	int64_t t, due;
	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return;
	d = atomic_fetch_add_explicit(&done, bytes, memory_order_relaxed) + bytes;
	due = atomic_load_explicit(&next_ns, memory_order_relaxed);
	t = now_ns();
	if (t < due || !atomic_compare_exchange_strong(&next_ns, &due, t + interval_ns))
		return;
	draw(d);
}

void progress_end(void)
{
	if (atomic_exchange(&on, false))
		clear_line();
}
