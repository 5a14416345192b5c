/*
 * torch .pt files, a zip archive around a pickle (lib/tensors/tensor.c):
 * tensor_open() on the input, then every element read back (see
 * fuzz_tensor.h).
 *
 * data.pkl carries a CRC that almost every mutation of the pickle breaks,
 * which would keep the fuzzer out of the pickle machine.  So when the
 * input's stored data.pkl fails its CRC, the input is opened a second time
 * with the CRC made right, in the central directory and the local header.
 */
#include "fuzz_tensor.h"

#include <zlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Make the CRC of every stored .../data.pkl right; true when something changed. */
static bool fix_pickle_crc(uint8_t *z, size_t size)
{
	static const char suffix[] = "data.pkl";
	const size_t slen = sizeof(suffix) - 1;
	bool changed = false;
	for (size_t i = 0; i + 46 <= size; i++) {
		size_t n, local, ln, lx, start;
		uint32_t usize, crc;
		if (memcmp(z + i, "PK\1\2", 4))
			continue;
		n = le16(z + i + 28);
		if (i + 46 + n > size || n < slen || memcmp(z + i + 46 + n - slen, suffix, slen))
			continue;
		if (le16(z + i + 10) != 0)
			continue; /* deflated: leave it */
		usize = le32(z + i + 24);
		local = le32(z + i + 42);
		if (local > size || size - local < 30 || memcmp(z + local, "PK\3\4", 4))
			continue;
		ln = le16(z + local + 26);
		lx = le16(z + local + 28);
		start = local + 30 + ln + lx;
		if (start > size || usize > size - start)
			continue;
		crc = (uint32_t)crc32(0, z + start, usize);
		if (le32(z + i + 16) != crc || le32(z + local + 14) != crc) {
			put32(z + i + 16, crc);
			put32(z + local + 14, crc);
			changed = true;
		}
	}
	return changed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = XXH3_64bits(data, size);
	uint8_t *fixed;
	fuzz_tensor_bytes(data, size, seed);
	fixed = fuzz_xmalloc(size);
	memcpy(fixed, data, size);
	if (fix_pickle_crc(fixed, size))
		fuzz_tensor_bytes(fixed, size, seed);
	free(fixed);
	return 0;
}
