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

/* A plain decimal number from 1 to max, no sign or leading 0; its end in *end. */
static int number(const char *s, unsigned long max, unsigned long *v, const char **end)
{
	unsigned long n = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > max)
			return -1;
	}
	*v = n;
	*end = p;
	return 0;
}

/* "HOST:PORT" at p (up to ',' or the end) into g: a name (no "*."), a port. 0, or -1. */
static int gate_host_parse(const char *p, const char **end, struct gate_host *g)
{
	char spec[DNS_NAME_MAX + 8];
	size_t n = strcspn(p, ",");

	if (n >= sizeof(spec))
		return -1;
	memcpy(spec, p, n);
	spec[n] = 0;
	if (name_rule_parse(spec, g->name, &g->port) < 0 || !g->port || g->name[0] == '*')
		return -1;
	*end = p + n;
	return 0;
}

int gateway_parse(const char *s, int *fd, uint16_t *ports, size_t *n, struct gate_host *gates,
		  size_t *ngates)
{
	unsigned long v;
	const char *p;
	size_t k = 0, t = 0;

	if (!s || number(s, 1UL << 20, &v, &p) < 0 || v < 3 || *p != ':')
		goto bad;
	*fd = (int)v;
	do {
		p++;
		if (k + t == NET_MAX_GATEWAY || number(p, 65535, &v, &p) < 0)
			goto bad;
		for (size_t i = 0; i < k; i++)
			if (ports[i] == v)
				goto bad;
		for (size_t i = 0; i < t; i++)
			if (gates[i].gw_port == v)
				goto bad;
		if (*p == '=') {
			if (gate_host_parse(p + 1, &p, &gates[t]) < 0)
				goto bad;
			for (size_t i = 0; i < t; i++)
				if (gates[i].port == gates[t].port &&
				    !strcmp(gates[i].name, gates[t].name))
					goto bad;
			gates[t++].gw_port = (uint16_t)v;
		} else {
			ports[k++] = (uint16_t)v;
		}
		if (*p && *p != ',')
			goto bad;
	} while (*p);
	*n = k;
	*ngates = t;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int name_rule_parse(const char *spec, char *pat, uint16_t *port)
{
	const char *colon = strchr(spec, ':'), *p = spec;
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec), o = 0, label = 0, labels = 0;
	unsigned long v;
	const char *end;

	*port = 0;
	if (colon && (number(colon + 1, 65535, &v, &end) < 0 || *end))
		goto bad;
	if (colon)
		*port = (uint16_t)v;
	if (n && spec[n - 1] == '.')
		n--; /* the root's dot: "a.test." is "a.test" */
	if (n >= 2 && p[0] == '*' && p[1] == '.') {
		pat[o++] = '*';
		pat[o++] = '.';
		p += 2;
		n -= 2;
	}
	if (!n || o + n >= DNS_NAME_MAX)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (c == '.') {
			if (!label || label > 63)
				goto bad;
			label = 0;
			labels++;
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			   c == '_') {
			label++;
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c + 32);
			label++;
		} else {
			goto bad;
		}
		pat[o++] = c;
	}
	if (!label || label > 63)
		goto bad;
	labels++;
	/* "*.test" would open a whole top-level domain: two labels at least after "*.". */
	if (pat[0] == '*' && labels < 2)
		goto bad;
	pat[o] = 0;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
