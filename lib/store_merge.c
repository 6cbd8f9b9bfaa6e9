/* SPDX-License-Identifier: ISC */
/*
 * A store's entries with others replaced or added (store_update): the old
 * order is kept, a replaced entry stays where it was, a new name goes last.
 * Pure: out points into old and pe, nothing is copied.
 */
#include <string.h>

#include "oto.h"

int store_merge(struct store_plain *out, const struct store_plain *old, uint32_t nold,
		const struct store_plain *pe, uint32_t n)
{
	uint32_t count = 0, i, j;

	if (nold > STORE_MAX_ENTRIES)
		return -1;
	for (i = 0; i < nold; i++)
		out[count++] = old[i];
	for (j = 0; j < n; j++) {
		for (i = 0; i < count; i++)
			if (!strcmp(out[i].name, pe[j].name))
				break;
		if (i == count && count == STORE_MAX_ENTRIES)
			return -1;
		/* The last of two entries with one name wins, as in seal's input. */
		out[i] = pe[j];
		if (i == count)
			count++;
	}
	return (int)count;
}
