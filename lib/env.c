/* SPDX-License-Identifier: ISC */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"

void env_unset_prefix(const char *prefix)
{
	size_t pl = strlen(prefix);
	char name[256];

	/* unsetenv shifts environ, so restart the scan after each removal. */
	for (char **e = environ; e && *e;) {
		const char *eq = strchr(*e, '=');
		size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);

		if (nl >= pl && nl < sizeof(name) && !strncmp(*e, prefix, pl)) {
			memcpy(name, *e, nl);
			name[nl] = 0;
			unsetenv(name);
			e = environ;
			continue;
		}
		e++;
	}
}
