/* SPDX-License-Identifier: ISC */
/* OTO_PTY="SOCK:FDS" (ptyenv_format.c), parsed strictly: one spelling per value. Pure. */
#include <errno.h>

#include "oto.h"

int ptyenv_parse(const char *s, int *sock, unsigned int *stdio)
{
	unsigned long v = 0;
	const char *p = s;
	unsigned int m = 0;
	int last = -1;

	if (!s)
		goto bad;
	/* The socket: a plain decimal number, 3 or more (0, 1, 2 are the stdio). */
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] != ':'))
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 1U << 20)
			goto bad;
	}
	if (*p++ != ':' || v < 3)
		goto bad;
	/* Each of 0, 1, 2 at most once, in order: one spelling per value. */
	for (; *p; p++) {
		if (*p < '0' || *p > '2' || *p - '0' <= last)
			goto bad;
		last = *p - '0';
		m |= 1U << last;
	}
	*sock = (int)v;
	*stdio = m;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
