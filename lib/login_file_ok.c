/* SPDX-License-Identifier: ISC */
/*
 * Checked by the profile's reader and again by otomount, which creates the
 * file in the home from OTO_LOGIN: a path that leaves the home never enters.
 */
#include <string.h>

#include "login.h"

int login_file_ok(const char *s)
{
	size_t n = strlen(s), comp = 0;

	if (!n || n > LOGIN_MAX_FILE || s[0] == '/' || s[n - 1] == '/')
		return 0;
	for (size_t i = 0; i <= n; i++) {
		char c = s[i];

		if (c == '/' || c == 0) {
			if (comp == 0 || (comp == 1 && s[i - 1] == '.') ||
			    (comp == 2 && s[i - 1] == '.' && s[i - 2] == '.'))
				return 0;
			comp = 0;
			continue;
		}
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
		comp++;
	}
	return 1;
}
