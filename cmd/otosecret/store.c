/* SPDX-License-Identifier: ISC */
/*
 * The sealed store, version 1. All integers little-endian.
 *
 *   offset  size  field
 *   0       8     magic "OTOSECRT"
 *   8       1     version (1)
 *   9       3     reserved, zero
 *   12      16    store id (random, chosen when the store is created)
 *   28      4     entry count (at most 256)
 *   32            entries, count times, back to back:
 *     0     1     name length N (1..64)
 *     1     4     value length L (0..65536)
 *     5     24    nonce (random per entry, new at every seal)
 *     29    N     name: [A-Za-z_][A-Za-z0-9_]*, unique in the store
 *     29+N  L+16  the value sealed with XChaCha20-Poly1305 (IETF), tag last
 *
 * Associated data of entry i: the 32 header bytes (magic, version, id and
 * count), then i as 4 bytes, N as 1 byte, then the name. So an entry fails
 * to verify when any byte of it or of the header changes, when it is renamed,
 * moved to another index (swapped), or to another store. The count is in
 * every entry's AD, so a store cut short (entries removed from the end) fails
 * too: either the count no longer matches the bytes (a parse error) or it was
 * lowered and then no entry verifies. The value length is covered by the tag.
 * The store ends exactly after the last entry; a whole store is at most 1 MiB.
 *
 * Parsing is pure (a buffer in, a view of it out) and checks every length
 * against the limits and the bytes left before anything is allocated.
 */
#include <string.h>

#include <sodium.h>

#include "oto.h"
#include "otosecret.h"

static const char *const STORE_ERR[] = {
	[STORE_OK] = "ok",
	[STORE_ETOOBIG] = "store larger than 1 MiB",
	[STORE_ESHORT] = "store truncated",
	[STORE_EMAGIC] = "not an otosecret store (bad magic)",
	[STORE_EVERSION] = "unsupported store version",
	[STORE_ERESERVED] = "malformed store (reserved bytes not zero)",
	[STORE_ECOUNT] = "store holds more than 256 entries",
	[STORE_ENAME] = "malformed store (bad entry name)",
	[STORE_EVALUE] = "malformed store (value longer than 65536 bytes)",
	[STORE_EDUP] = "malformed store (a name appears twice)",
	[STORE_ETRAILING] = "malformed store (bytes after the last entry)",
	[STORE_EVERIFY] = "store does not verify (wrong key or tampered store)",
};

const char *store_strerror(int err)
{
	if (err < 0 || (size_t)err >= sizeof(STORE_ERR) / sizeof(STORE_ERR[0]))
		return "unknown store error";
	return STORE_ERR[err];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

int store_name_ok(const char *name, size_t len)
{
	if (len < 1 || len > STORE_MAX_NAME)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';

		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return 0;
	}
	return 1;
}

static int parse(const uint8_t *buf, size_t len, struct store_view *v)
{
	size_t off = STORE_HDR_BYTES;

	v->count = 0;
	if (len > STORE_MAX_SIZE)
		return STORE_ETOOBIG;
	if (len < 9)
		return len >= 8 && memcmp(buf, STORE_MAGIC, 8) ? STORE_EMAGIC : STORE_ESHORT;
	if (memcmp(buf, STORE_MAGIC, 8))
		return STORE_EMAGIC;
	if (buf[8] != STORE_VERSION)
		return STORE_EVERSION;
	if (len < STORE_HDR_BYTES)
		return STORE_ESHORT;
	if (buf[9] || buf[10] || buf[11])
		return STORE_ERESERVED;
	v->hdr = buf;
	v->id = buf + 12;
	if (get32(buf + 28) > STORE_MAX_ENTRIES)
		return STORE_ECOUNT;
	for (uint32_t i = 0, n = get32(buf + 28); i < n; i++) {
		struct store_entry *e = &v->e[i];
		size_t nl, vl;

		if (len - off < STORE_ENTRY_FIXED)
			return STORE_ESHORT;
		nl = buf[off];
		vl = get32(buf + off + 1);
		if (nl < 1 || nl > STORE_MAX_NAME)
			return STORE_ENAME;
		if (vl > STORE_MAX_VALUE)
			return STORE_EVALUE;
		e->nonce = buf + off + 5;
		off += STORE_ENTRY_FIXED;
		if (len - off < nl + vl + STORE_TAG_BYTES)
			return STORE_ESHORT;
		e->name = (const char *)buf + off;
		e->name_len = nl;
		if (!store_name_ok(e->name, nl))
			return STORE_ENAME;
		for (uint32_t j = 0; j < i; j++)
			if (v->e[j].name_len == nl && !memcmp(v->e[j].name, e->name, nl))
				return STORE_EDUP;
		e->ct = buf + off + nl;
		e->value_len = vl;
		off += nl + vl + STORE_TAG_BYTES;
		v->count = i + 1;
	}
	return off == len ? STORE_OK : STORE_ETRAILING;
}

int store_parse(const uint8_t *buf, size_t len, struct store_view *v)
{
	int err = parse(buf, len, v);

	/* A view that failed is never half-used: it has no entries. */
	if (err)
		v->count = 0;
	return err;
}

int store_find(const struct store_view *v, const char *name)
{
	size_t nl = strlen(name);

	for (uint32_t i = 0; i < v->count; i++)
		if (v->e[i].name_len == nl && !memcmp(v->e[i].name, name, nl))
			return (int)i;
	return -1;
}

/* The AD is built from the header and the name, so the same code serves both directions. */
static size_t ad_build(const uint8_t *hdr, uint32_t i, const char *name, size_t nl,
		       uint8_t ad[STORE_AD_MAX])
{
	memcpy(ad, hdr, STORE_HDR_BYTES);
	put32(ad + STORE_HDR_BYTES, i);
	ad[STORE_HDR_BYTES + 4] = (uint8_t)nl;
	memcpy(ad + STORE_HDR_BYTES + 5, name, nl);
	return STORE_HDR_BYTES + 5 + nl;
}

size_t store_ad(const struct store_view *v, uint32_t i, uint8_t ad[STORE_AD_MAX])
{
	return ad_build(v->hdr, i, v->e[i].name, v->e[i].name_len, ad);
}

int store_verify(const struct store_view *v, uint32_t i, const uint8_t *key)
{
	const struct store_entry *e = &v->e[i];
	uint8_t ad[STORE_AD_MAX];
	size_t adl = store_ad(v, i, ad);

	/* With m == NULL, libsodium checks the tag and decrypts nothing. */
	if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
		NULL, NULL, e->ct, e->value_len, e->ct + e->value_len, ad, adl, e->nonce, key))
		return STORE_EVERIFY;
	return STORE_OK;
}

int store_open(const struct store_view *v, uint32_t i, const uint8_t *key, uint8_t *out)
{
	const struct store_entry *e = &v->e[i];
	uint8_t ad[STORE_AD_MAX];
	size_t adl = store_ad(v, i, ad);

	if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
		out, NULL, e->ct, e->value_len, e->ct + e->value_len, ad, adl, e->nonce, key))
		return STORE_EVERIFY;
	return STORE_OK;
}

size_t store_size(const struct plain_entry *pe, uint32_t n)
{
	size_t total = STORE_HDR_BYTES;

	if (n > STORE_MAX_ENTRIES)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		size_t nl = strlen(pe[i].name);

		if (!store_name_ok(pe[i].name, nl) || pe[i].value_len > STORE_MAX_VALUE)
			return 0;
		total += STORE_ENTRY_FIXED + nl + pe[i].value_len + STORE_TAG_BYTES;
	}
	return total > STORE_MAX_SIZE ? 0 : total;
}

int store_build(const uint8_t id[STORE_ID_BYTES], const struct plain_entry *pe, uint32_t n,
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
	put32(out + 28, n);
	for (uint32_t i = 0; i < n; i++) {
		size_t nl = strlen(pe[i].name), vl = pe[i].value_len, adl;
		uint8_t *nonce = out + off + 5, *ct = out + off + STORE_ENTRY_FIXED + nl;

		out[off] = (uint8_t)nl;
		put32(out + off + 1, (uint32_t)vl);
		randombytes_buf(nonce, STORE_NONCE_BYTES);
		memcpy(out + off + STORE_ENTRY_FIXED, pe[i].name, nl);
		adl = ad_build(out, i, pe[i].name, nl, ad);
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(ct, ct + vl, NULL, pe[i].value,
								    vl, ad, adl, NULL, nonce, key);
		off += STORE_ENTRY_FIXED + nl + vl + STORE_TAG_BYTES;
	}
	return 0;
}
