/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"

/*
 * The order is the security claim: an exact exception first, then the one
 * DNS flow and the gateway's ports, then every non-global destination, and
 * only then the internet.
 * The host's own addresses come before --public so that a lab range that
 * contains the host never opens the host itself.
 */
void filter_decide(const struct filter *f, int proto, const struct ipaddr *dst, uint16_t port,
		   struct decision *d)
{
	const char *special;

	d->dns = 0;
	d->gateway = 0;
	for (size_t i = 0; i < f->nallow; i++) {
		const struct net_rule *r = &f->allow[i];

		if (r->proto == proto && r->port == port && ipaddr_equal(&r->addr, dst)) {
			d->verdict = V_ALLOW;
			snprintf(d->rule, sizeof(d->rule), "exception");
			return;
		}
	}
	if ((proto == PROTO_TCP || proto == PROTO_UDP) && port == 53 &&
	    (ipaddr_equal(dst, &f->dns4) || ipaddr_equal(dst, &f->dns6))) {
		d->verdict = V_ALLOW;
		d->dns = 1;
		snprintf(d->rule, sizeof(d->rule), "dns");
		return;
	}
	/* otogate's ports on its sandbox-side address: to the gateway, never a host. */
	if (proto == PROTO_TCP && (ipaddr_equal(dst, &f->gw4) || ipaddr_equal(dst, &f->gw6))) {
		for (size_t i = 0; i < f->ngw; i++) {
			if (f->gw_port[i] == port) {
				d->verdict = V_ALLOW;
				d->gateway = 1;
				snprintf(d->rule, sizeof(d->rule), "gateway");
				return;
			}
		}
	}
	d->verdict = V_DENY;
	for (size_t i = 0; i < f->nhost; i++) {
		if (ipaddr_equal(&f->host[i], dst)) {
			snprintf(d->rule, sizeof(d->rule), "host-address");
			return;
		}
	}
	for (size_t i = 0; i < f->npub; i++) {
		if (cidr_contains(&f->pub[i], dst))
			goto public;
	}
	special = cidr_special(dst);
	if (special) {
		snprintf(d->rule, sizeof(d->rule), "special:%s", special);
		return;
	}

      public:
	if (f->no_public) {
		snprintf(d->rule, sizeof(d->rule), "no-public");
		return;
	}
	d->verdict = V_ALLOW;
	snprintf(d->rule, sizeof(d->rule), "public");
}

/*
 * Where a name's answer may not pin an exception: the host itself (its own
 * addresses, loopback, "this host"), link-local, and the cloud metadata
 * services. A private range is the point of an exception, so it stays
 * allowed. An IPv4-mapped address is judged by the address it carries.
 */
const char *filter_pin_refused(const struct filter *f, const struct ipaddr *a)
{
	/* clang-format off */
	static const struct { const char *net, *what; } NO_PIN[] = {
		{ "169.254.169.254/32", "the cloud metadata address" },
		{ "100.100.100.200/32", "a cloud metadata address" },
		{ "168.63.129.16/32", "a cloud host's service address" },
		{ "fd00:ec2::254/128", "a cloud metadata address" },
		{ "127.0.0.0/8", "a loopback address" },
		{ "::1/128", "a loopback address" },
		{ "0.0.0.0/8", "an address of this host" },
		{ "::/128", "an address of this host" },
		{ "169.254.0.0/16", "a link-local address" },
		{ "fe80::/10", "a link-local address" },
	};
	/* clang-format on */
	struct ipaddr v4 = *a;
	static const uint8_t MAPPED[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (a->family == AF_INET6 && !memcmp(a->a, MAPPED, sizeof(MAPPED))) {
		memset(&v4, 0, sizeof(v4));
		v4.family = AF_INET;
		memcpy(v4.a, a->a + 12, 4);
	}
	for (size_t i = 0; i < ARRAY_SIZE(NO_PIN); i++) {
		struct cidr c;

		if (cidr_parse(NO_PIN[i].net, &c) == 0 && cidr_contains(&c, &v4))
			return NO_PIN[i].what;
	}
	for (size_t i = 0; i < f->nhost; i++)
		if (ipaddr_equal(&f->host[i], a) || ipaddr_equal(&f->host[i], &v4))
			return "an address of the host itself";
	return NULL;
}

int resolv_first(const char *text, struct ipaddr *out)
{
	const char *p = text;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char line[256], word[64], addr[128];

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			if (sscanf(line, " %63s %127s", word, addr) == 2 &&
			    !strcmp(word, "nameserver")) {
				/* A scoped IPv6 address (fe80::1%eth0) is cut at the '%'. */
				char *pct = strchr(addr, '%');

				if (pct)
					*pct = 0;
				if (ipaddr_parse(addr, out) == 0)
					return 0;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	errno = ENOENT;
	return -1;
}
