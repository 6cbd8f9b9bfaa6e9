/* SPDX-License-Identifier: ISC */
/* A path a git config names, relative to the tree's top (oto.h). Pure. */
#include <string.h>

#include "oto.h"

int gitcfg_join(char *out, size_t size, const char *base, const char *val)
{
	size_t n = 0;
	const char *parts[2] = { base, val };

	if (!size || *val == '/' || *val == '~' || *base == '/')
		return -1;
	out[0] = 0;
	for (int i = 0; i < 2; i++) {
		for (const char *c = parts[i]; *c;) {
			const char *slash = strchr(c, '/');
			size_t m = slash ? (size_t)(slash - c) : strlen(c);

			if (m == 2 && !memcmp(c, "..", 2)) {
				if (!n)
					return -1; /* above the tree's top */
				while (n && out[n - 1] != '/')
					n--;
				if (n)
					n--;
				out[n] = 0;
			} else if (m && !(m == 1 && *c == '.')) {
				if (n + (n > 0) + m + 1 > size)
					return -1;
				if (n)
					out[n++] = '/';
				memcpy(out + n, c, m);
				n += m;
				out[n] = 0;
			}
			c += m;
			while (*c == '/')
				c++;
		}
	}
	return 0;
}
