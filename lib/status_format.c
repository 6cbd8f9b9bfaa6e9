/* SPDX-License-Identifier: ISC */
#include <stdio.h>

#include "oto.h"

size_t status_format(char *buf, size_t size, const char *stage, int code, int err, const char *msg)
{
	int r = snprintf(buf, size, "%s %d %d %s\n", stage, code, err, msg);

	if (r < 0 || size < 2)
		return 0;
	if ((size_t)r >= size) {
		buf[size - 2] = '\n';
		return size - 1;
	}
	return (size_t)r;
}
