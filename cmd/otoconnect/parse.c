/* SPDX-License-Identifier: ISC */
/* The values of otoconnect's options. Pure: no system call, no exit. */
#include <errno.h>
#include <string.h>
#include <sys/un.h>

#include "oto.h"
#include "otoconnect.h"

int connect_path_ok(const char *p)
{
	size_t n = strlen(p);

	if (!n || strchr(p, '\n')) {
		errno = EINVAL;
		return -1;
	}
	if (n >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int connect_parse_mode(const char *s, mode_t *out)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 4)
		goto bad;
	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			goto bad;
		v = v * 8 + (unsigned long)(*s - '0');
	}
	if (v > 0777)
		goto bad;
	*out = (mode_t)v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
