/* SPDX-License-Identifier: ISC */
/*
 * Private and special-purpose destinations, each of which must be refused at
 * once. The list is fixed and holds no public address: otoprobe never
 * contacts the internet on its own. All connects run at the same time, so the
 * whole check takes one timeout at most.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otoprobe.h"

#define PORT 80

static const struct dest {
	const char *addr;
	const char *what;
	int loopback;
} DESTS[] = {
	{ "10.0.0.1", "RFC 1918 private network", 0 },
	{ "172.16.0.1", "RFC 1918 private network", 0 },
	{ "192.168.1.1", "RFC 1918 private network (home router)", 0 },
	{ "169.254.169.254", "link-local: cloud metadata service", 0 },
	{ "100.64.0.1", "carrier-grade NAT (RFC 6598)", 0 },
	{ "127.0.0.1", "loopback", 1 },
	{ "198.18.0.1", "benchmarking (RFC 2544)", 0 },
	{ "192.0.0.192", "IETF protocol assignments (RFC 7335 NAT64 / DS-Lite)", 0 },
	{ "fd00::1", "IPv6 unique local", 0 },
	{ "::1", "IPv6 loopback", 1 },
	{ "::ffff:10.0.0.1", "IPv4-mapped 10.0.0.1", 0 },
	{ "64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254", 0 },
	{ "2002:a9fe:a9fe::1", "6to4 of 169.254.169.254", 0 },
};
#define NDEST ARRAY_SIZE(DESTS)

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Start a non-blocking connect: the socket (pending), or -1 with *err set. */
static int start(const struct dest *d, int *err)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fam, fd;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, d->addr, &s4->sin_addr) == 1) {
		fam = AF_INET;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(PORT);
		len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, d->addr, &s6->sin6_addr) == 1) {
		fam = AF_INET6;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(PORT);
		len = sizeof(*s6);
	} else {
		*err = EINVAL;
		return -1;
	}
	fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) == 0) {
		*err = 0;
	} else if (errno == EINPROGRESS) {
		return fd;
	} else {
		*err = errno;
	}
	close(fd);
	return -1;
}

static void report(struct report *rep, const struct otoprobe_opts *o, const struct dest *d, int err,
		   long waited)
{
	char name[80], en[24];
	enum verdict v = connect_verdict(err);
	/* Connecting to loopback in a network namespace of our own reaches only
	 * the sandbox itself (check_net ran only where ours is not the host's). */
	int own_lo = d->loopback && o->have_host_ns[NS_NET];
	snprintf(name, sizeof(name), strchr(d->addr, ':') ? "net [%s]:%d" : "net %s:%d", d->addr,
		 PORT);
	if (v == V_OK)
		report_add(rep, name, V_OK, "refused at once: %s (%s)",
			   errno_name(err, en, sizeof(en)), d->what);
	else if (err == 0)
		report_add(rep, name, own_lo ? V_INFO : V_GAP, "connected (%s%s)", d->what,
			   own_lo ? " of the sandbox's own network namespace" : "");
	else if (err == ETIMEDOUT)
		report_add(rep, name, V_GAP,
			   "no answer in %ld ms: the SYN left and nothing refused it (%s)", waited,
			   d->what);
	else
		report_add(rep, name, V_GAP, "%s, not a refusal (%s)",
			   errno_name(err, en, sizeof(en)), d->what);
}

/*
 * Where the probes may go: only where nothing can reach a real network. That
 * is a namespace whose every default route leads into the sandbox's tun0 (the
 * relay, which refuses what it must), or one with no interface but lo (every
 * connect fails inside it). Anywhere else (a container's network, the fake
 * host of a test, a namespace some launcher set up) a SYN to 10.0.0.1 or to
 * the metadata address could reach a real machine: nothing is sent. 0 when
 * probing is safe; otherwise -1 and why in buf.
 */
static int net_safe(char *buf, size_t size)
{
	char line[512], ifname[64], other[64] = "";
	int others = 0, via_tun = 0;
	FILE *f = fopen("/proc/net/dev", "re");

	if (!f) {
		snprintf(buf, size, "/proc/net/dev: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (strchr(line, ':') && sscanf(line, " %63[^:]:", ifname) == 1 &&
		    strcmp(ifname, "lo"))
			others++;
	fclose(f);
	if (!others)
		return 0;
	/* IPv4: "Iface Destination Gateway Flags RefCnt Use Metric Mask ...", hex. */
	if ((f = fopen("/proc/net/route", "re"))) {
		unsigned long dst, mask;

		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%63s %lx %*x %*x %*d %*d %*d %lx", ifname, &dst, &mask) !=
				3 ||
			    dst || mask)
				continue;
			if (!strcmp(ifname, "tun0"))
				via_tun = 1;
			else
				snprintf(other, sizeof(other), "%s", ifname);
		}
		fclose(f);
	}
	/* IPv6: "DEST PLEN SRC SPLEN NEXTHOP METRIC REF USE FLAGS IFACE"; lo: a prohibit route. */
	if ((f = fopen("/proc/net/ipv6_route", "re"))) {
		char dst6[40];
		unsigned int plen;

		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%39s %x %*s %*s %*s %*s %*s %*s %*s %63s", dst6, &plen,
				   ifname) != 3 ||
			    plen || strcmp(dst6, "00000000000000000000000000000000") ||
			    !strcmp(ifname, "lo"))
				continue;
			if (!strcmp(ifname, "tun0"))
				via_tun = 1;
			else
				snprintf(other, sizeof(other), "%s", ifname);
		}
		fclose(f);
	}
	if (via_tun && !other[0])
		return 0;
	if (other[0])
		snprintf(buf, size, "default route via %s, not the sandbox's tun0", other);
	else
		snprintf(buf, size, "interfaces besides lo, and no default route via tun0");
	return -1;
}

void xcheck_net(struct report *rep, const struct otoprobe_opts *o)
{
	char why[160];
	struct pollfd pfd[NDEST];
	int err[NDEST];
	long t0 = now_ms(), left;
	size_t pending = 0;
	unsigned long ino;

	/*
	 * In the host's network namespace these connects would reach this
	 * machine's real private networks: that is the gap, and nothing is sent.
	 */
	if (ns_inode(NS_NET, &ino) < 0) {
		report_add(rep, "net", V_GAP, "unknown network namespace (%s): no probe sent",
			   strerror(errno));
		return;
	}
	if ((o->have_host_ns[NS_NET] && ino == o->host_ns[NS_NET]) || ns_is_initial(NS_NET, ino)) {
		report_add(
		    rep, "net", V_GAP,
		    "%s network namespace: no probe sent, it would reach the host's networks",
		    ns_is_initial(NS_NET, ino) ? "the host's initial" : "the launcher's own");
		return;
	}
	if (net_safe(why, sizeof(why)) < 0) {
		report_add(rep, "net", V_GAP, "%s: no probe sent, it could reach a real network",
			   why);
		return;
	}
	for (size_t i = 0; i < NDEST; i++) {
		pfd[i].fd = start(&DESTS[i], &err[i]);
		pfd[i].events = POLLOUT;
		pending += pfd[i].fd >= 0;
	}
	while (pending && (left = t0 + (long)o->net_timeout_ms - now_ms()) > 0) {
		int n = poll(pfd, NDEST, (int)left);

		if (n < 0 && errno != EINTR)
			die(EXIT_SYS, errno, "unable to wait for the network probes");
		for (size_t i = 0; n > 0 && i < NDEST; i++) {
			socklen_t len = sizeof(err[i]);

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &err[i], &len) < 0)
				err[i] = errno;
			close(pfd[i].fd);
			pfd[i].fd = -1; /* poll ignores negative fds */
			pending--;
		}
	}
	for (size_t i = 0; i < NDEST; i++) {
		if (pfd[i].fd >= 0) {
			close(pfd[i].fd);
			err[i] = ETIMEDOUT;
		}
		report(rep, o, &DESTS[i], err[i], now_ms() - t0);
	}
}
