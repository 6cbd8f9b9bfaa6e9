/* SPDX-License-Identifier: ISC */
/* The size of a store holding these entries, or 0 past a limit. Pure. */
#include <string.h>

#include "oto.h"

size_t store_size(const struct store_plain *pe, uint32_t n)
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
