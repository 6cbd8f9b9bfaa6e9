/* SPDX-License-Identifier: ISC */
/* What each enum store_upd says, after "store FILE: " (store_update.c). Pure. */
#include "oto.h"

static const char *const STORE_UPD_MSG[] = {
	[STORE_UPD_OK] = "ok",
	[STORE_UPD_DIR] = "unable to open its directory",
	[STORE_UPD_LOCK] = "unable to lock its directory",
	[STORE_UPD_BUSY] =
	    "another writer (a seal, a session saving a login) kept its directory locked too long",
	[STORE_UPD_READ] = "unable to read it",
	[STORE_UPD_MEM] = "unable to allocate memory",
	[STORE_UPD_TEMP] = "unable to write a new store beside it",
	[STORE_UPD_OWNER] = "unable to give the new store the old one's owner",
	[STORE_UPD_RENAME] = "unable to rename the new store over it",
	[STORE_UPD_SYNC] =
	    "replaced, but its directory was not synced: a crash now may bring the old one back",
	[STORE_UPD_NOTREG] = "not a regular file",
	[STORE_UPD_MODE] = "accessible by group or others: chmod 600",
	[STORE_UPD_STORE] = "it does not verify",
	[STORE_UPD_LIMIT] = "the store would hold more than 256 entries or 1 MiB",
};
_Static_assert(ARRAY_SIZE(STORE_UPD_MSG) == STORE_UPD_NUM, "a message for each enum store_upd");

const char *store_update_strerror(int r, int detail)
{
	if (r == STORE_UPD_STORE && detail)
		return store_strerror(detail);
	if (r < 0 || (size_t)r >= ARRAY_SIZE(STORE_UPD_MSG))
		return "unknown store update error";
	return STORE_UPD_MSG[r];
}
