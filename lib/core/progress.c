#include "progress.h"
#include "msg.h"

#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_bool on;
static atomic_uint_fast64_t done;
static atomic_int_fast64_t next_ns;   /* when the line may be drawn next */
static uint64_t total;
static int64_t start_ns;
static atomic_bool drawn;

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

void progress_start(uint64_t expected)
{
	const char *env = getenv("PROBE_PROGRESS");
	total = expected;
	atomic_store(&done, 0);
	start_ns = now_ns();
	bool asked = env && *env && strcmp(env, "0");
	/* on a terminal nothing for the first second; asked for, from the start */
	atomic_store(&next_ns, asked ? start_ns : start_ns + 1000000000);
	atomic_store(&drawn, false);
	atomic_store(&on, env && *env ? asked : isatty(2));
}

static void human(char *buf, size_t n, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, n, "%.1f GB", bytes / 1e9);
	else
		snprintf(buf, n, "%.0f MB", bytes / 1e6);
}

static void draw(uint64_t d, int64_t t)
{
	char a[32], b[32], line[160];
	double secs = (double)(t - start_ns) / 1e9;
	human(a, sizeof(a), (double)d);
	if (total) {
		human(b, sizeof(b), (double)total);
		snprintf(line, sizeof(line), "\r%s: %3.0f%% (%s of %s, %.0f MB/s) ", msg_progname(),
			 100.0 * (double)d / (double)total, a, b, (double)d / 1e6 / secs);
	} else {
		snprintf(line, sizeof(line), "\r%s: %s read (%.0f MB/s) ", msg_progname(), a, (double)d / 1e6 / secs);
	}
	(void)!write(2, line, strlen(line));
	atomic_store(&drawn, true);
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
	if (t < due || !atomic_compare_exchange_strong(&next_ns, &due, t + 200000000))
		return;
	draw(d, t);
}

void progress_end(void)
{
	if (atomic_exchange(&on, false) && atomic_load(&drawn)) {
		char blank[82];
		memset(blank, ' ', sizeof(blank));
		blank[0] = '\r';
		blank[sizeof(blank) - 1] = '\r';
		(void)!write(2, blank, sizeof(blank));
	}
}
