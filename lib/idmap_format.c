/* SPDX-License-Identifier: ISC */
#include <stdio.h>

#include "oto.h"

size_t idmap_format(char *buf, size_t size, unsigned int inside, unsigned int outside,
		    unsigned int count)
{
	int r = snprintf(buf, size, "%u %u %u\n", inside, outside, count);

	return r < 0 || (size_t)r >= size ? 0 : (size_t)r;
}
