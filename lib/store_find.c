/* SPDX-License-Identifier: ISC */
/* The index of an entry by name in a parsed store, or -1. Pure. */
#include <string.h>

#include "oto.h"

int store_find(const struct store_view *v, const char *name)
{
	size_t nl = strlen(name);

	for (uint32_t i = 0; i < v->count; i++)
		if (v->e[i].name_len == nl && !memcmp(v->e[i].name, name, nl))
			return (int)i;
	return -1;
}
