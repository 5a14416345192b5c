/*
 * .npy files (lib/tensors/tensor.c): tensor_open() on the input, then every
 * element read back (see fuzz_tensor.h).
 */
#include "fuzz_tensor.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_tensor_bytes(data, size, XXH3_64bits(data, size));
	return 0;
}
