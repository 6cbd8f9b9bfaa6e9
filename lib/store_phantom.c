/* SPDX-License-Identifier: ISC */
/*
 * Entry i's phantom: "oto-phantom-" and letters, as long as the value, the
 * same at every session of this store and this name, and computed from what
 * the store shows without its key. Stable, so that a CLI which remembers an
 * approved key (Claude Code keeps its last 20 characters) keeps it.
 *
 * From the store's id, the name and the value's length only: a keyed
 * BLAKE2b (the id is the key) of a domain string, the name and the length
 * gives a ChaCha20 key, whose stream gives the letters. Not from the sealed
 * bytes: seal draws fresh nonces for every entry whenever one is added or
 * replaced, which would give every grant of the store a new phantom. Not
 * from the key: otogate reads it only once the gateway is in its own user
 * namespace, after the chain's environment (and so the phantom) is set.
 * Nothing of the value goes in, so nothing of it can come out. Pure.
 */
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "oto.h"

/* The domain: a change here changes every phantom, and undoes every approval. */
static const char DOMAIN[] = "oto phantom 1";

int store_phantom(const struct store_view *v, uint32_t i, char *out)
{
	static const char ALNUM[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const uint8_t NONCE[crypto_stream_chacha20_NONCEBYTES];
	const size_t pre = sizeof(STORE_PHANTOM) - 1;
	const struct store_entry *e;
	uint8_t seed[crypto_stream_chacha20_KEYBYTES], nl, len[4];
	crypto_generichash_state st;
	size_t n;

	if (i >= v->count || v->e[i].value_len <= pre) {
		errno = EINVAL;
		return -1;
	}
	e = &v->e[i];
	n = e->value_len;
	_Static_assert(STORE_ID_BYTES >= crypto_generichash_KEYBYTES_MIN, "the id keys BLAKE2b");
	nl = (uint8_t)e->name_len;
	le32_put(len, (uint32_t)n);
	if (crypto_generichash_init(&st, v->id, STORE_ID_BYTES, sizeof(seed)) ||
	    crypto_generichash_update(&st, (const uint8_t *)DOMAIN, sizeof(DOMAIN)) ||
	    crypto_generichash_update(&st, &nl, 1) ||
	    crypto_generichash_update(&st, (const uint8_t *)e->name, e->name_len) ||
	    crypto_generichash_update(&st, len, sizeof(len)) ||
	    crypto_generichash_final(&st, seed, sizeof(seed))) {
		errno = EINVAL;
		return -1;
	}
	memcpy(out, STORE_PHANTOM, pre);
	crypto_stream_chacha20((uint8_t *)out + pre, n - pre, NONCE, seed);
	/* 256 = 7 * 36 + 4: a byte below 252 maps evenly; the few others fold (a small bias). */
	for (size_t k = pre; k < n; k++)
		out[k] = ALNUM[(uint8_t)out[k] % 36];
	out[n] = 0;
	sodium_memzero(seed, sizeof(seed));
	return 0;
}
