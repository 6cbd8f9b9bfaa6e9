/* SPDX-License-Identifier: ISC */
#include "oto.h"

int status_fd_parse(const char *s)
{
	unsigned long v;

	/* 0, 1 and 2 are not status fds: a launcher never wants the line on stdout. */
	if (!s || opt_ulong(s, 1U << 20, &v) < 0 || v < 3)
		return -1;
	return (int)v;
}
