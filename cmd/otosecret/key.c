/* SPDX-License-Identifier: ISC */
/*
 * The key's text form: "oto-key-1:" then the 32 bytes in URL-safe base64
 * without padding (43 characters), then a newline. Letters, digits, '-' and
 * '_' only, so it survives copy and paste, a terminal, and a shell's quoting;
 * the prefix says what it is and a truncated copy fails to decode.
 */
#include <string.h>

#include <sodium.h>

#include "oto.h"
#include "otosecret.h"

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

int key_decode(const char *text, size_t len, uint8_t key[STORE_KEY_BYTES])
{
	size_t pl = strlen(KEY_PREFIX), bin_len = 0;
	const char *end = NULL;

	/* Trailing white space (the newline, a pasted CR) is not part of the key. */
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
			   text[len - 1] == '\t'))
		len--;
	if (len <= pl || memcmp(text, KEY_PREFIX, pl))
		return -1;
	if (sodium_base642bin(key, STORE_KEY_BYTES, text + pl, len - pl, NULL, &bin_len, &end,
			      sodium_base64_VARIANT_URLSAFE_NO_PADDING) ||
	    bin_len != STORE_KEY_BYTES || end != text + len) {
		sodium_memzero(key, STORE_KEY_BYTES);
		return -1;
	}
	return 0;
}
