/* SPDX-License-Identifier: ISC */
/* An entry name: [A-Za-z_][A-Za-z0-9_]*, 1 to STORE_MAX_NAME bytes. Pure. */

#include "oto.h"

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
