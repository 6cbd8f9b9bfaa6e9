/* SPDX-License-Identifier: ISC */
/* The values of otonet's options. Pure: no system call, no exit. */
#include <errno.h>
#include <string.h>

#include "oto.h"
#include "otonet.h"

int rule_split(const char *spec, int *proto, char *host, size_t hsize, uint16_t *port)
{
	const char *p1 = strchr(spec, ':'), *p2 = strrchr(spec, ':');
	unsigned long n;
	size_t hl;

	if (!p1 || p1 == p2)
		goto bad;
	if ((size_t)(p1 - spec) == 3 && !strncmp(spec, "tcp", 3))
		*proto = PROTO_TCP;
	else if ((size_t)(p1 - spec) == 3 && !strncmp(spec, "udp", 3))
		*proto = PROTO_UDP;
	else
		goto bad;
	hl = (size_t)(p2 - p1 - 1);
	if (!hl || hl >= hsize)
		goto bad;
	memcpy(host, p1 + 1, hl);
	host[hl] = 0;
	/* A bare IPv6 address would be ambiguous with the port: brackets only. */
	if (strchr(host, ':') && host[0] != '[')
		goto bad;
	if (opt_ulong(p2 + 1, 65535, &n) < 0 || n == 0)
		goto bad;
	*port = (uint16_t)n;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
