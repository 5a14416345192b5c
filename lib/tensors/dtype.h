/*
 * dtype.h: the element types of saved tensors, and their conversions.
 *
 * One table for the .pt and .npy readers, the writers, and the tensor
 * metrics: each type's size, its torch and numpy spellings, and how its
 * elements become floats.  Conversions are exact where the target type can
 * hold the value (every float16, bfloat16 and float8 value is a float32);
 * float32 -> bfloat16/float16/float8 rounds to nearest even, as torch does.
 */
#ifndef PROBE_DTYPE_H
#define PROBE_DTYPE_H

#include "../core/compat.h"

enum dtype {
	DT_FLOAT64,
	DT_FLOAT32,
	DT_FLOAT16,
	DT_BFLOAT16,
	DT_FLOAT8_E4M3FN,
	DT_FLOAT8_E5M2,
	DT_INT64,
	DT_INT32,
	DT_INT16,
	DT_INT8,
	DT_UINT64,
	DT_UINT32,
	DT_UINT16,
	DT_UINT8,
	DT_BOOL,
	DT_COMPLEX64,  /* two float32: real, imaginary */
	DT_COMPLEX128, /* two float64 */
	DT_COUNT
};

enum dtype_class { DTC_FLOAT, DTC_SIGNED, DTC_UNSIGNED, DTC_BOOL, DTC_COMPLEX };

struct dtype_info {
	const char *name;         /* numpy's name: "float32", "bfloat16" (not numpy's), "bool" */
	const char *torch;        /* "torch.float32"; NULL when torch has no such type */
	const char *storage;      /* torch's legacy typed-storage class: "FloatStorage"; NULL: none (torch 2.x
				     saves those types as an untyped storage with the dtype beside it) */
	const char *npy;          /* numpy descr without byte order: "f4", "b1"; NULL: not in numpy */
	unsigned size;            /* bytes per element */
	enum dtype_class cls;
};

extern const struct dtype_info dtype_table[DT_COUNT];

static inline const struct dtype_info *dtype_info(enum dtype d)
{
	return &dtype_table[d];
}

/* By name ("float32", "torch.float32", "FloatStorage", or an npy descr such as "<f4"); -1 when unknown. */
int dtype_from_torch(const char *s, size_t n);
int dtype_from_storage(const char *s, size_t n);
int dtype_from_npy(const char *descr, size_t n, bool *big_endian); /* "<f4", ">i8", "|b1", "f4" */

float dtype_half_to_float(uint16_t h);
float dtype_bf16_to_float(uint16_t b);
float dtype_f8e4m3fn_to_float(uint8_t v);
float dtype_f8e5m2_to_float(uint8_t v);
uint16_t dtype_float_to_half(float f);
uint16_t dtype_float_to_bf16(float f);
uint8_t dtype_float_to_f8e4m3fn(float f);
uint8_t dtype_float_to_f8e5m2(float f);

/*
 * One element (in this machine's byte order) as a double: floats exactly,
 * integers exactly up to 2^53, bool as 0/1, complex as its real part (what
 * numpy's astype(float) keeps).
 */
double dtype_to_double(enum dtype d, const void *elem);

/* n elements of type d into the other byte order, in place (complex: each half on its own). */
void dtype_swap(void *data, size_t n, enum dtype d);

#endif
