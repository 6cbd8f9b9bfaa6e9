/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "oto.h"

ssize_t file_read_at(int dirfd, const char *file, char *buf, size_t size)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = fd_read_all(fd, buf, size - 1);
	e = errno;
	close(fd);
	errno = e;
	if (n >= 0)
		buf[n] = 0;
	return n;
}
