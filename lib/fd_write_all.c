/* SPDX-License-Identifier: ISC */
/* Writes that finish: a short write is written on (oto.h). */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "oto.h"

int fd_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
