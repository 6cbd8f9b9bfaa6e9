/* SPDX-License-Identifier: ISC */
/* Decrypt entry i into out. Pure (libsodium, no system call). */
#include <sodium.h>

#include "oto.h"

int store_open(const struct store_view *v, uint32_t i, const uint8_t *key, uint8_t *out)
{
	const struct store_entry *e = &v->e[i];
	uint8_t ad[STORE_AD_MAX];
	size_t adl = store_ad(v->hdr, i, e->name, e->name_len, ad);

	if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
		out, NULL, e->ct, e->value_len, e->ct + e->value_len, ad, adl, e->nonce, key))
		return STORE_EVERIFY;
	return STORE_OK;
}
