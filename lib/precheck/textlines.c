#include "textlines.h"

void textlines_init(struct textlines *t, const char *data, size_t len)
{
	t->p = data;
	t->end = data + len;
	t->line = 0;
}

bool textlines_next(struct textlines *t, const char **s, size_t *n)
{
	const char *q = t->p;
	if (t->p >= t->end)
		return false;
	while (q < t->end && *q != '\n' && *q != '\r')
		q++;
	*s = t->p;
	*n = (size_t)(q - t->p);
	if (q < t->end && *q == '\r' && q + 1 < t->end && q[1] == '\n')
		q++;
	t->p = q < t->end ? q + 1 : q;
	t->line++;
	return true;
}

bool textlines_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

void textlines_strip(const char **s, size_t *n)
{
	while (*n && textlines_space((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && textlines_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}
