#include "xalloc.h"
#include "msg.h"

#include <sys/mman.h>
#include <unistd.h>

static void NORETURN out_of_memory(size_t size)
{
	die("out of memory (%zu bytes)", size);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		out_of_memory(st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xmemdupz(s, strlen(s));
}

char *xmemdupz(const void *data, size_t len)
{
	char *p = xmalloc(st_add(len, 1));
	if (len)
		memcpy(p, data, len);
	p[len] = '\0';
	return p;
}

void prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	static uintptr_t page;
	uintptr_t start, end;
	if (!page) {
		long sz = sysconf(_SC_PAGESIZE);
		page = sz > 0 ? (uintptr_t)sz : 4096;
	}
	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + n) & ~(page - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE); /* EINVAL on older kernels: faults as before */
#else
	(void)p, (void)n;
#endif
}

size_t st_add(size_t a, size_t b)
{
	if (a > SIZE_MAX - b)
		die("size overflow: %zu + %zu", a, b);
	return a + b;
}

size_t st_mult(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		die("size overflow: %zu * %zu", a, b);
	return a * b;
}
