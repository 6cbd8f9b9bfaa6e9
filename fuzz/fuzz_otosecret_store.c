// FUZZ: lib/store_parse.c lib/store_verify.c lib/store_open.c lib/store_find.c lib/store_ad.c
// FUZZ: lib/store_name_ok.c
/*
 * The store parser (lib/store_parse.c, shared by otosecret and otogate) over
 * any bytes, then verification and decryption of every entry it accepts under
 * a fixed key (a seed store built with that key lets the fuzzer reach the
 * crypto path). No input may crash, read out of bounds,
 * or decrypt an entry whose tag does not verify.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "oto.h"

/* The fixed key: 32 bytes 0x01..0x20. */
static uint8_t key[STORE_KEY_BYTES];
static struct store_view v;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	static uint8_t out[STORE_MAX_VALUE];

	if (!ready) {
		if (sodium_init() < 0)
			abort();
		for (int i = 0; i < STORE_KEY_BYTES; i++)
			key[i] = (uint8_t)(i + 1);
		ready = 1;
	}
	if (store_parse(data, size, &v) != STORE_OK) {
		if (v.count != 0)
			abort();
		return 0;
	}
	for (uint32_t i = 0; i < v.count; i++) {
		const struct store_entry *e = &v.e[i];
		int ok = store_verify(&v, i, key) == STORE_OK;

		/* The view must lie inside the input. */
		if (e->ct + e->value_len + STORE_TAG_BYTES > data + size ||
		    e->name_len > STORE_MAX_NAME)
			abort();
		if ((store_open(&v, i, key, out) == STORE_OK) != ok)
			abort();
		if (store_find(&v, "X") >= (int)v.count)
			abort();
	}
	return 0;
}
