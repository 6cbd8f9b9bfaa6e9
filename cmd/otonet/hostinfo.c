/* SPDX-License-Identifier: ISC */
/* What the filter needs from the host, read once at start. */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

static void add_host(struct filter *f, const struct sockaddr *sa)
{
	struct ipaddr a = { .family = sa->sa_family };

	if (sa->sa_family == AF_INET)
		memcpy(a.a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(a.a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	else
		return;
	for (size_t i = 0; i < f->nhost; i++)
		if (ipaddr_equal(&f->host[i], &a))
			return;
	if (f->nhost < NET_MAX_HOST)
		f->host[f->nhost++] = a;
	else
		warnx("more than %d host addresses: the rest are refused as special ranges only",
		      NET_MAX_HOST);
}

static void xadd_rule(struct filter *f, int proto, const struct ipaddr *a, uint16_t port,
		      const char *spec)
{
	if (f->nallow == NET_MAX_ALLOW)
		die_usage("--allow %s: its name resolves to too many addresses", spec);
	f->allow[f->nallow].proto = proto;
	f->allow[f->nallow].addr = *a;
	f->allow[f->nallow].port = port;
	f->nallow++;
}

void xotonet_filter_build(const struct otonet_opts *o, struct filter *f, struct ipaddr *resolver)
{
	struct ifaddrs *ifa, *i;
	static char text[65536];
	ssize_t n;
	int fd, err;

	memset(f, 0, sizeof(*f));
	memset(resolver, 0, sizeof(*resolver));
	ipaddr_parse("10.0.2.3", &f->dns4);
	ipaddr_parse("fd00::3", &f->dns6);
	ipaddr_parse("10.0.2.4", &f->gw4);
	ipaddr_parse("fd00::4", &f->gw6);
	memcpy(f->gw_port, o->gw_port, sizeof(f->gw_port));
	f->ngw = o->ngw;
	memcpy(f->gates, o->gates, sizeof(f->gates));
	f->ngates = o->ngates;
	f->no_public = o->no_public;
	memcpy(f->names, o->names, sizeof(f->names));
	f->nnames = o->nnames;
	for (size_t k = 0; k < o->npub; k++) {
		char t[64];

		f->pub[f->npub++] = o->pub[k];
		warnx("--public %s: this range is treated as public internet",
		      cidr_str(&o->pub[k], t, sizeof(t)));
	}
	if (getifaddrs(&ifa) < 0)
		die(EXIT_SYS, errno, "unable to list the host's addresses");
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr)
			add_host(f, i->ifa_addr);
	freeifaddrs(ifa);

	for (size_t k = 0; k < o->nallow; k++) {
		char host[256];
		int proto;
		uint16_t port;
		struct ipaddr a;
		struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res, *r;
		int e;

		rule_split(o->allow_spec[k], &proto, host, sizeof(host), &port);
		if (ipaddr_parse(host, &a) == 0) {
			xadd_rule(f, proto, &a, port, o->allow_spec[k]);
			continue;
		}
		/*
		 * A name is resolved once, here, and pinned: DNS cannot move it
		 * later. The agent may still ask for it under --allow-name rules.
		 */
		if (f->nexc_names < NET_MAX_ALLOW) {
			char *x = f->exc_names[f->nexc_names++];

			for (size_t j = 0; j < sizeof(f->exc_names[0]) - 1 && host[j]; j++)
				x[j] = host[j] >= 'A' && host[j] <= 'Z' ? (char)(host[j] + 32)
									: host[j];
			if (*x && x[strlen(x) - 1] == '.')
				x[strlen(x) - 1] = 0;
		}
		e = getaddrinfo(host, NULL, &hints, &res);
		if (e)
			die(EXIT_REJECT, 0,
			    "--allow %s: unable to resolve %s: %s (names are resolved at start: "
			    "add %s to /etc/hosts, or write its address in place of the name)",
			    o->allow_spec[k], host, gai_strerror(e), host);
		for (r = res; r; r = r->ai_next) {
			struct ipaddr b = { .family = r->ai_family };
			const char *no;
			char t[64];

			if (r->ai_family == AF_INET)
				memcpy(b.a, &((struct sockaddr_in *)r->ai_addr)->sin_addr, 4);
			else if (r->ai_family == AF_INET6)
				memcpy(b.a, &((struct sockaddr_in6 *)r->ai_addr)->sin6_addr, 16);
			else
				continue;
			/*
			 * The resolver is not the operator: a name that lands on the
			 * host or its metadata service is refused, and an address
			 * written out is the operator's word that it is meant.
			 */
			no = filter_pin_refused(f, &b);
			if (no)
				die(EXIT_REJECT, 0,
				    "--allow %s: %s resolves to %s, %s: write the address itself "
				    "if it is meant",
				    o->allow_spec[k], host, ipaddr_str(&b, t, sizeof(t)), no);
			xadd_rule(f, proto, &b, port, o->allow_spec[k]);
		}
		freeaddrinfo(res);
	}

	if (o->dns) {
		ipaddr_parse(o->dns, resolver);
		return;
	}
	fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : fd_read_all(fd, text, sizeof(text) - 1);
	err = errno;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		log_msg(LOG_WARN, err,
			"unable to read /etc/resolv.conf, and no --dns: DNS is refused");
		return;
	}
	text[n] = 0;
	if (resolv_first(text, resolver) < 0)
		warnx("no nameserver in /etc/resolv.conf and no --dns: DNS is refused");
}
