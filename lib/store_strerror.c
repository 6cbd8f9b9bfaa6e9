/* SPDX-License-Identifier: ISC */
/* The message of each enum store_err (the store is in store_parse.c). Pure. */
#include "oto.h"

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
	[STORE_EVERIFY] =
	    "the key does not open this store (another key, or the store was altered)",
};
_Static_assert(ARRAY_SIZE(STORE_ERR) == STORE_NUM_ERR, "a message for each enum store_err");

const char *store_strerror(int err)
{
	if (err < 0 || (size_t)err >= ARRAY_SIZE(STORE_ERR))
		return "unknown store error";
	return STORE_ERR[err];
}
