/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
