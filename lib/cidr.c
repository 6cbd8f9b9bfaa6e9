/* SPDX-License-Identifier: ISC */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cidr.h"
#include "oto.h"

int ipaddr_parse(const char *s, struct ipaddr *out)
{
	char buf[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);

	memset(out, 0, sizeof(*out));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			goto bad;
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = 0;
		if (inet_pton(AF_INET6, buf, out->a) != 1)
			goto bad;
		out->family = AF_INET6;
		return 0;
	}
	if (inet_pton(AF_INET, s, out->a) == 1) {
		out->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->a) == 1) {
		out->family = AF_INET6;
		return 0;
	}
bad:
	errno = EINVAL;
	return -1;
}

static void mask_bits(uint8_t *a, unsigned int len, unsigned int max)
{
	for (unsigned int i = 0; i < max / 8; i++) {
		if (len >= 8 * (i + 1))
			continue;
		if (len <= 8 * i)
			a[i] = 0;
		else
			a[i] &= (uint8_t)(0xff << (8 - (len - 8 * i)));
	}
}

int cidr_parse(const char *s, struct cidr *out)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	unsigned long len;
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int max;

	if (n >= sizeof(buf) || s[0] == '[')
		goto bad;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (ipaddr_parse(buf, &out->addr) < 0)
		goto bad;
	max = out->addr.family == AF_INET ? 32 : 128;
	if (!slash) {
		out->len = max;
		return 0;
	}
	if (opt_ulong(slash + 1, max, &len) < 0)
		goto bad;
	out->len = (unsigned int)len;
	/* A prefix with host bits set is a typo, not a range: refuse it. */
	struct ipaddr m = out->addr;
	mask_bits(m.a, out->len, max);
	if (!ipaddr_equal(&m, &out->addr))
		goto bad;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int ipaddr_equal(const struct ipaddr *x, const struct ipaddr *y)
{
	size_t n = x->family == AF_INET ? 4 : 16;

	return x->family == y->family && !memcmp(x->a, y->a, n);
}

int cidr_contains(const struct cidr *c, const struct ipaddr *a)
{
	unsigned int full, rest;

	if (c->addr.family != a->family)
		return 0;
	full = c->len / 8;
	rest = c->len % 8;
	if (memcmp(c->addr.a, a->a, full))
		return 0;
	if (rest && ((c->addr.a[full] ^ a->a[full]) & (uint8_t)(0xff << (8 - rest))))
		return 0;
	return 1;
}

const char *ipaddr_str(const struct ipaddr *a, char *buf, size_t size)
{
	if (!inet_ntop(a->family, a->a, buf, (socklen_t)size))
		snprintf(buf, size, "?");
	return buf;
}

const char *cidr_str(const struct cidr *c, char *buf, size_t size)
{
	char t[INET6_ADDRSTRLEN];

	snprintf(buf, size, "%s/%u", ipaddr_str(&c->addr, t, sizeof(t)), c->len);
	return buf;
}

/* A table, aligned by hand. */
/* clang-format off */
#define V4(a, b, c, d, l)                                                                  \
	{                                                                                  \
		#a "." #b "." #c "." #d "/" #l, { { AF_INET, { a, b, c, d } }, l }         \
	}
#define V6(t, l, ...)                                                                      \
	{                                                                                  \
		t, { { AF_INET6, { __VA_ARGS__ } }, l }                                    \
	}

/*
 * The IANA IPv4 and IPv6 special-purpose address registries (RFC 6890 and
 * successors), every entry that is not globally reachable, plus the IPv6
 * forms that carry an IPv4 address: judging them by the embedded address
 * would mean trusting a translator somewhere on the path, so they are refused
 * whole. More specific entries come first so the log names the narrowest one.
 */
static const struct cidr_special_range SPECIAL[] = {
	V4(0, 0, 0, 0, 8),	  /* "this network" */
	V4(10, 0, 0, 0, 8),	  /* RFC 1918 */
	V4(100, 64, 0, 0, 10),	  /* shared address space, CGNAT */
	V4(127, 0, 0, 0, 8),	  /* loopback */
	V4(169, 254, 0, 0, 16),	  /* link-local, cloud metadata 169.254.169.254 */
	V4(172, 16, 0, 0, 12),	  /* RFC 1918 */
	V4(192, 0, 0, 0, 24),	  /* IETF protocol assignments */
	V4(192, 0, 2, 0, 24),	  /* documentation TEST-NET-1 */
	V4(192, 88, 99, 0, 24),	  /* deprecated 6to4 relay anycast */
	V4(192, 168, 0, 0, 16),	  /* RFC 1918 */
	V4(198, 18, 0, 0, 15),	  /* benchmarking */
	V4(198, 51, 100, 0, 24),  /* documentation TEST-NET-2 */
	V4(203, 0, 113, 0, 24),	  /* documentation TEST-NET-3 */
	V4(224, 0, 0, 0, 4),	  /* multicast */
	V4(255, 255, 255, 255, 32), /* limited broadcast */
	V4(240, 0, 0, 0, 4),	  /* reserved */
	V6("::/128", 128),						  /* unspecified */
	V6("::1/128", 128, [15] = 1),					  /* loopback */
	V6("::ffff:0:0/96", 96, [10] = 0xff, [11] = 0xff),		  /* IPv4-mapped */
	V6("::/96", 96),						  /* IPv4-compatible */
	V6("64:ff9b::/96", 96, 0, 0x64, 0xff, 0x9b),			  /* NAT64 */
	V6("64:ff9b:1::/48", 48, 0, 0x64, 0xff, 0x9b, 0, 1),		  /* local NAT64 */
	V6("100::/64", 64, 1, 0),					  /* discard-only */
	V6("2001::/32", 32, 0x20, 0x01),				  /* Teredo */
	V6("2001:db8::/32", 32, 0x20, 0x01, 0x0d, 0xb8),		  /* documentation */
	V6("2001::/23", 23, 0x20, 0x01),				  /* IETF protocol assignments */
	V6("2002::/16", 16, 0x20, 0x02),				  /* 6to4 */
	V6("3fff::/20", 20, 0x3f, 0xff),				  /* documentation (RFC 9637) */
	V6("5f00::/16", 16, 0x5f, 0x00),				  /* SRv6 SIDs */
	V6("fc00::/7", 7, 0xfc),					  /* unique local */
	V6("fe80::/10", 10, 0xfe, 0x80),				  /* link-local */
	V6("fec0::/10", 10, 0xfe, 0xc0),				  /* site-local (deprecated) */
	V6("ff00::/8", 8, 0xff),					  /* multicast */
};
/* clang-format on */

static const struct cidr GLOBAL6 = { { AF_INET6, { 0x20 } }, 3 };

const struct cidr_special_range *cidr_special_table(size_t *n)
{
	*n = ARRAY_SIZE(SPECIAL);
	return SPECIAL;
}

const char *cidr_special(const struct ipaddr *a)
{
	for (size_t i = 0; i < ARRAY_SIZE(SPECIAL); i++)
		if (cidr_contains(&SPECIAL[i].range, a))
			return SPECIAL[i].text;
	if (a->family == AF_INET6 && !cidr_contains(&GLOBAL6, a))
		return "not-2000::/3";
	if (a->family != AF_INET && a->family != AF_INET6)
		return "unknown-family";
	return NULL;
}
