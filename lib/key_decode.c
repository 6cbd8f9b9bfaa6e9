/* SPDX-License-Identifier: ISC */
/*
 * The key's text form (key_encode.c) read back strictly: the prefix, the 43
 * characters of 32 bytes in URL-safe base64, and nothing else but trailing
 * white space (the newline, a pasted CR). Pure.
 */
#include <string.h>

#include <sodium.h>

#include "oto.h"

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
