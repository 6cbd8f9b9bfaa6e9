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
 * against the limits and the bytes left before anything is allocated. The
 * limits and the declarations are in oto.h; the rest of the format is
 * store_*.c, one function to a file (shared by otosecret and otogate).
 */
#include <string.h>

#include "oto.h"

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
	if (le32_get(buf + 28) > STORE_MAX_ENTRIES)
		return STORE_ECOUNT;
	for (uint32_t i = 0, n = le32_get(buf + 28); i < n; i++) {
		struct store_entry *e = &v->e[i];
		size_t nl, vl;

		if (len - off < STORE_ENTRY_FIXED)
			return STORE_ESHORT;
		nl = buf[off];
		vl = le32_get(buf + off + 1);
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
