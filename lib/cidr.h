/* SPDX-License-Identifier: ISC */
/*
 * cidr: IPv4 and IPv6 prefixes, and the special-purpose address classes that
 * a filtered network must never reach. Pure code: no system calls.
 */
#ifndef CIDR_H
#define CIDR_H

#include <stddef.h>
#include <stdint.h>

/* An address: family AF_INET (bytes 0..3 used) or AF_INET6. */
struct ipaddr {
	int family;
	uint8_t a[16];
};

struct cidr {
	struct ipaddr addr; /* bits beyond len are zero */
	unsigned int len;   /* 0..32 or 0..128 */
};

/* "10.0.0.0/8", "fd00::/8", or a bare address (a host prefix). -1/EINVAL. */
int cidr_parse(const char *s, struct cidr *out);
/* A bare IPv4 or IPv6 address (IPv6 may be in brackets). -1/EINVAL. */
int ipaddr_parse(const char *s, struct ipaddr *out);
int cidr_contains(const struct cidr *c, const struct ipaddr *a);
int ipaddr_equal(const struct ipaddr *x, const struct ipaddr *y);
/* Text of a / c into buf (INET6_ADDRSTRLEN + 4 is enough). */
const char *ipaddr_str(const struct ipaddr *a, char *buf, size_t size);
const char *cidr_str(const struct cidr *c, char *buf, size_t size);

/*
 * The special-purpose range a belongs to, as text ("10.0.0.0/8"), or NULL
 * when a is a global unicast address. IPv6 forms that embed an IPv4 address
 * (mapped, compatible, NAT64, 6to4, Teredo) are refused outright, and every
 * IPv6 address outside 2000::/3 is refused as not global unicast.
 */
const char *cidr_special(const struct ipaddr *a);

/* The table behind cidr_special, for the kernel layer (prohibit routes). */
struct cidr_special_range {
	const char *text;
	struct cidr range;
};
const struct cidr_special_range *cidr_special_table(size_t *n);

#endif
