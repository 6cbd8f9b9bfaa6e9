/* SPDX-License-Identifier: ISC */
/* A /proc/PID/stat line's controlling terminal (oto.h). Pure. */
#include <errno.h>
#include <string.h>

#include "oto.h"

int tty_stat_parse(const char *buf, size_t n, unsigned long *tty)
{
	const char *p = NULL, *end = buf + n;
	unsigned long v = 0;
	int field = 0;

	/* The command's name, in parentheses, may hold any byte, ')' too. */
	for (size_t i = n; i > 0; i--)
		if (buf[i - 1] == ')') {
			p = buf + i;
			break;
		}
	if (!p)
		goto bad;
	/* After it: state (3), ppid, pgrp, session, tty_nr (7). */
	while (field < 5) {
		if (p == end || *p != ' ')
			goto bad;
		p++;
		field++;
		if (field < 5) {
			while (p < end && *p != ' ')
				p++;
			continue;
		}
		if (p == end || *p < '0' || *p > '9')
			goto bad;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (v > 0xffffffffUL / 10)
				goto bad;
			v = v * 10 + (unsigned long)(*p - '0');
		}
		if (p == end || *p != ' ' || v > 0xffffffffUL)
			goto bad;
	}
	*tty = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
