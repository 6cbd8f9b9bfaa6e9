/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oto.h"

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
