/* SPDX-License-Identifier: ISC */
/*
 * OTO_PTY, the one value otons hands to the stage that makes the agent's pty
 * (otoexec): "SOCK:FDS". SOCK is the socket on which the stage sends the
 * pty's master to otons' supervisor; FDS names which of the fds 0, 1 and 2
 * the slave replaces (the ones otons found to be the operator's terminal),
 * as digits in increasing order, possibly none ("5:" when the terminal was
 * only the controlling one). Pure.
 */
#include <errno.h>
#include <stdio.h>

#include "oto.h"

size_t ptyenv_format(char *buf, size_t size, int sock, unsigned int stdio)
{
	int r = snprintf(buf, size, "%d:%s%s%s", sock, stdio & 1 ? "0" : "", stdio & 2 ? "1" : "",
			 stdio & 4 ? "2" : "");

	return r < 0 || (size_t)r >= size ? 0 : (size_t)r;
}

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
