/* SPDX-License-Identifier: ISC */
#include <stdio.h>

#include "oto.h"

size_t json_str(char *buf, size_t size, size_t at, const char *s, size_t len)
{
	if (at >= size - 1)
		return 0;
	buf[at++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c == '"' || c == '\\' ? 2 : c < 0x20 || c > 0x7e ? 6 : 1;

		if (at + k + 1 >= size)
			return 0;
		if (k == 2) {
			buf[at++] = '\\';
			buf[at++] = (char)c;
		} else if (k == 6) {
			snprintf(buf + at, 7, "\\u%04x", c);
			at += 6;
		} else {
			buf[at++] = (char)c;
		}
	}
	buf[at++] = '"';
	buf[at] = 0;
	return at;
}
