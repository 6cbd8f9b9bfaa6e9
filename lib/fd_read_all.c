/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <unistd.h>

#include "oto.h"

ssize_t fd_read_all(int fd, void *buf, size_t size)
{
	char *p = buf, extra;
	size_t n = 0;
	ssize_t r;

	/*
	 * A read may return less than asked for (a pipe, a socket, a /proc
	 * file a page at a time, a signal): only 0 is the end. Once buf is
	 * full, one more byte read says the fd holds more than size bytes.
	 */
	for (;;) {
		if (n < size)
			r = read(fd, p + n, size - n);
		else
			r = read(fd, &extra, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return (ssize_t)n;
		if (n == size) {
			errno = EFBIG;
			return -1;
		}
		n += (size_t)r;
	}
}
