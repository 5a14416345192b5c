#include "comm.h"

static bool has(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++)
		if (s[i] == word[0] && !memcmp(s + i, word, w))
			return true;
	return false;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);
	return n >= p && !memcmp(s, prefix, p);
}

bool comm_is_communication(const char *entry, size_t len)
{
	/* the shorter words cover their longer forms (reduce: all_reduce, reduce_scatter, ...) */
	static const char *const words[] = { "send", "recv", "broadcast", "reduce", "gather", "scatter", "all_to_all" };
	if (!starts(entry, len, "Distributed") && !starts(entry, len, "MintDistributed") &&
	    !starts(entry, len, "communication.comm_func"))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (has(entry, len, words[i]))
			return true;
	return false;
}

bool comm_is_ignored_op(const char *entry, size_t len)
{
	return has(entry, len, "Torch.empty") || has(entry, len, "Torch.fill") || has(entry, len, "Tensor.__setitem__");
}
