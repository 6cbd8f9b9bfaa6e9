/* SPDX-License-Identifier: ISC */
/*
 * The associated data of entry i (store_parse.c): the 32 header bytes, i as
 * 4 bytes, the name's length as 1, then the name. Built from the header and
 * the name, so sealing and opening share it. Pure.
 */
#include <string.h>

#include "oto.h"

size_t store_ad(const uint8_t *hdr, uint32_t i, const char *name, size_t nl,
		uint8_t ad[STORE_AD_MAX])
{
	memcpy(ad, hdr, STORE_HDR_BYTES);
	le32_put(ad + STORE_HDR_BYTES, i);
	ad[STORE_HDR_BYTES + 4] = (uint8_t)nl;
	memcpy(ad + STORE_HDR_BYTES + 5, name, nl);
	return STORE_HDR_BYTES + 5 + nl;
}
