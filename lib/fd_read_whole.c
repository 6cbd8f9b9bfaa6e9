/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "oto.h"

char *fd_read_whole(int fd, size_t max, size_t *len)
{
	/* Room for max bytes and the NUL; the buffer grows as bytes come, so a
	 * large max costs nothing for a small file. */
	size_t lim = max < SIZE_MAX ? max + 1 : SIZE_MAX, cap = 0, n = 0;
	char *buf = NULL, *p;
	ssize_t r;
	int e;

	for (;;) {
		if (n + 1 >= cap && cap < lim) {
			cap = cap == 0 ? 4096 : cap > lim / 2 ? lim : cap * 2;
			if (cap > lim)
				cap = lim;
			p = realloc(buf, cap);
			if (!p)
				goto fail;
			buf = p;
		}
		/* Once cap is lim, the last byte read is the one over max. */
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	buf[n] = 0;
	*len = n;
	return buf;
fail:
	e = errno;
	free(buf);
	errno = e;
	return NULL;
}
