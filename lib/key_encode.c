/* SPDX-License-Identifier: ISC */
/*
 * The key's text form: "oto-key-1:" then the 32 bytes in URL-safe base64
 * without padding (43 characters), then a newline. Letters, digits, '-' and
 * '_' only, so it survives copy and paste, a terminal, and a shell's quoting;
 * the prefix says what it is and a truncated copy fails to decode.
 * key_decode.c reads it back. Pure.
 */
#include <string.h>

#include <sodium.h>

#include "oto.h"

int key_encode(const uint8_t key[STORE_KEY_BYTES], char *out, size_t outsz)
{
	size_t pl = strlen(KEY_PREFIX);
	size_t bl =
	    sodium_base64_ENCODED_LEN(STORE_KEY_BYTES, sodium_base64_VARIANT_URLSAFE_NO_PADDING);

	if (outsz < pl + bl + 1)
		return -1;
	memcpy(out, KEY_PREFIX, pl);
	sodium_bin2base64(out + pl, bl, key, STORE_KEY_BYTES,
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	/* bl counts the NUL: the newline takes its place, and the NUL follows. */
	out[pl + bl - 1] = '\n';
	out[pl + bl] = 0;
	return (int)(pl + bl);
}
