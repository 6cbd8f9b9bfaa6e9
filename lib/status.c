/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oto.h"

int status_fd_parse(const char *s)
{
	unsigned long v;

	/* 0, 1 and 2 are not status fds: a launcher never wants the line on stdout. */
	if (!s || opt_ulong(s, 1U << 20, &v) < 0 || v < 3)
		return -1;
	return (int)v;
}

size_t status_format(char *buf, size_t size, const char *stage, int code, int err,
		     const char *msg)
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

void status_report(int code, int err, const char *msg)
{
	int fd = status_fd_parse(getenv("OTO_STATUS_FD"));
	char buf[1100];
	size_t n;
	ssize_t w;

	if (fd < 0)
		return;
	n = status_format(buf, sizeof(buf), log_prog, code, err, msg);
	do
		w = write(fd, buf, n);
	while (w < 0 && errno == EINTR);
}
