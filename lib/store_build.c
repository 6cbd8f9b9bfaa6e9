/* SPDX-License-Identifier: ISC */
/*
 * Seal entries into a new store (the format: store_parse.c), each under a
 * fresh random nonce: a store sealed twice never repeats a nonce.
 */
#include <string.h>

#include <sodium.h>

#include "oto.h"

int store_build(const uint8_t id[STORE_ID_BYTES], const struct store_plain *pe, uint32_t n,
		const uint8_t *key, uint8_t *out, size_t outsz)
{
	size_t need = store_size(pe, n), off = STORE_HDR_BYTES;
	uint8_t ad[STORE_AD_MAX];

	if (!need || outsz < need)
		return -1;
	memcpy(out, STORE_MAGIC, 8);
	out[8] = STORE_VERSION;
	out[9] = out[10] = out[11] = 0;
	memcpy(out + 12, id, STORE_ID_BYTES);
	le32_put(out + 28, n);
	for (uint32_t i = 0; i < n; i++) {
		size_t nl = strlen(pe[i].name), vl = pe[i].value_len, adl;
		uint8_t *nonce = out + off + 5, *ct = out + off + STORE_ENTRY_FIXED + nl;

		out[off] = (uint8_t)nl;
		le32_put(out + off + 1, (uint32_t)vl);
		randombytes_buf(nonce, STORE_NONCE_BYTES);
		memcpy(out + off + STORE_ENTRY_FIXED, pe[i].name, nl);
		adl = store_ad(out, i, pe[i].name, nl, ad);
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(ct, ct + vl, NULL, pe[i].value,
								    vl, ad, adl, NULL, nonce, key);
		off += STORE_ENTRY_FIXED + nl + vl + STORE_TAG_BYTES;
	}
	return 0;
}
