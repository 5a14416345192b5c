#include "xalloc.h"
#include "msg.h"

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
