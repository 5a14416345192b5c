/*
 * Model checkpoints (lib/ckpt, lib/tensors/ptobj.c): ckpt_open() on a file
 * made of the input, then every parameter opened and read back (see
 * fuzz_tensor.h), and the input opened as a tensor of its own too.
 *
 * The first byte says what the rest is, so that the fuzzer reaches each
 * parser without first having to get a zip directory or a CRC right:
 *
 *   0  the file as it is (a .pt's zip archive, a safetensors file, or neither)
 *   1  data.pkl of a .pt, put into an archive with the storages data/0 ..
 *      data/3 of 256 bytes each (the archive made with its CRCs right)
 *   2  a safetensors header: its length, it, then 1024 bytes of data
 *
 * Invariants: ckpt_open() succeeds or says why, naming the file; a
 * parameter it lists opens (its place was checked when the file was
 * read; a deflated storage may still fail to inflate, saying so) and
 * holds the dtype and shape it was listed with.
 */
#include "fuzz_tensor.h"
#include "../unit/ckzip.h"
#include "../../lib/ckpt/ckptio.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static void check_checkpoint(const char *path, uint64_t seed)
{
	struct strbuf err = STRBUF_INIT;
	struct ckpt *ck;
	if (ckpt_open(&ck, path, &err)) {
		FUZZ_CHECK(err.len && strstr(err.buf, path), "a failure that does not name the file: %s", err.buf);
		strbuf_release(&err);
		return;
	}
	FUZZ_CHECK(ckpt_count(ck) > 0, "a checkpoint of no parameter opened");
	for (size_t i = 0; i < ckpt_count(ck) && i < 64; i++) {
		const struct ckpt_param *p = ckpt_param(ck, i);
		struct tensor t;
		strbuf_reset(&err);
		FUZZ_CHECK(ckpt_find(ck, p->name, strlen(p->name)) == (long)i, "parameter %zu is not found by its name", i);
		if (ckpt_tensor(ck, i, &t, &err)) {
			/* only a deflated storage is read no sooner than when it is opened */
			bool deflated = false;
			for (uint32_t k = 0; k < p->npieces; k++)
				deflated |= ck->pieces[p->first + k].place.deflated != 0;
			FUZZ_CHECK(deflated && strstr(err.buf, path), "parameter %s was listed but does not open: %s", p->name,
				   err.buf);
			continue;
		}
		FUZZ_CHECK(t.dtype == p->dtype && t.ndim == p->ndim && !memcmp(t.shape, p->shape, sizeof(*p->shape) * (size_t)p->ndim),
			   "parameter %s opens with another dtype or shape", p->name);
		check_tensor(&t, seed);
		tensor_close(&t);
	}
	ckpt_close(ck);
	strbuf_release(&err);
}

static void check_file(const void *data, size_t size, uint64_t seed)
{
	struct fuzz_file f;
	fuzz_file_open(&f, data, size);
	check_checkpoint(f.path, seed);
	fuzz_file_close(&f);
}

/* data.pkl in an archive with four storages of 256 bytes. */
static void check_pickle(const uint8_t *pkl, size_t size, uint64_t seed)
{
	static unsigned char storage[256];
	struct ckzip_member m[5] = { { "archive/data.pkl", pkl, size } };
	struct strbuf z = STRBUF_INIT;
	static const char *const names[] = { "archive/data/0", "archive/data/1", "archive/data/2", "archive/data/3" };
	for (size_t i = 0; i < sizeof(storage); i++)
		storage[i] = (unsigned char)(i * 37 + 11);
	for (int i = 0; i < 4; i++)
		m[i + 1] = (struct ckzip_member){ names[i], storage, sizeof(storage) };
	ckzip_stored(&z, m, 5);
	check_file(z.buf, z.len, seed);
	strbuf_release(&z);
}

static void check_header(const uint8_t *header, size_t size, uint64_t seed)
{
	struct strbuf s = STRBUF_INIT;
	ckzip_le(&s, size, 8);
	strbuf_add(&s, header, size);
	for (int i = 0; i < 1024; i++)
		strbuf_addch(&s, (char)(i * 13 + 5));
	check_file(s.buf, s.len, seed);
	strbuf_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = XXH3_64bits(data, size);
	fuzz_quiet();
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		check_file(data + 1, size - 1, seed);
		fuzz_tensor_bytes(data + 1, size - 1, seed);
		break;
	case 1:
		check_pickle(data + 1, size - 1, seed);
		break;
	default:
		check_header(data + 1, size - 1, seed);
		break;
	}
	return 0;
}
