/* SPDX-License-Identifier: ISC */
/*
 * rtnetlink requests, batched (otonet.h): the sandbox's links, addresses and
 * routes (about 45 requests for the default filter, more with --public,
 * --allow and the host's addresses) go to the kernel in one send, which
 * handles them in order, as one at a time would. One exchange instead of one
 * per request: the sandbox starts sooner. Only the last request of a batch
 * asks for an acknowledgement (NLM_F_ACK): the kernel reports a refused
 * request whatever its flags, and goes on with the next, so the last one's
 * acknowledgement comes after every error of the batch. One receive instead
 * of one per request.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

/* The largest request queued: a route with a destination, a gateway and an interface. */
#define REQ_MAX 256

int nl_batch_open(struct nl_batch *b)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	b->n = 0;
	b->len = 0;
	b->seq0 = 1;
	b->failed = "";
	b->skipped[0] = 0;
	b->skipped_errno = 0;
	b->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (b->fd < 0)
		return -1;
	if (bind(b->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(b->fd);
		b->fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

void nl_batch_close(struct nl_batch *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* The errors of seq0 .. seq0 + n - 1, until the last one's answer; the first error kept. */
static int read_acks(struct nl_batch *b)
{
	_Alignas(struct nlmsghdr) char buf[8192];
	int done = 0, err = 0;

	while (!done) {
		ssize_t n = recv(b->fd, buf, sizeof(buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			b->failed = "";
			return -1;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			unsigned int i = h->nlmsg_seq - b->seq0;
			struct nlmsgerr *e;

			if (h->nlmsg_type != NLMSG_ERROR || i >= b->n)
				continue;
			e = NLMSG_DATA(h);
			done |= i == b->n - 1;
			if (e->error && b->optional[i]) {
				snprintf(b->skipped, sizeof(b->skipped), "%s", b->what[i]);
				b->skipped_errno = -e->error;
			} else if (e->error && !err) {
				err = -e->error;
				b->failed = b->what[i];
			}
		}
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int nl_batch_send(struct nl_batch *b)
{
	int rc = 0;

	if (b->n == 0)
		return 0;
	((struct nlmsghdr *)(b->buf + b->last))->nlmsg_flags |= NLM_F_ACK;
	if (fd_write_all(b->fd, b->buf, b->len) < 0) {
		b->failed = "";
		rc = -1;
	}
	if (rc == 0)
		rc = read_acks(b);
	b->seq0 += b->n;
	b->n = 0;
	b->len = 0;
	return rc;
}

/* Room for one more request of at most REQ_MAX bytes: sends a full batch first. */
static struct nlmsghdr *req_new(struct nl_batch *b, const char *what, unsigned short type,
				unsigned short flags, size_t body)
{
	struct nlmsghdr *h;

	if ((b->n == NL_BATCH_MAX || b->len + REQ_MAX > NL_BATCH_BYTES) && nl_batch_send(b) < 0)
		return NULL;
	h = (struct nlmsghdr *)(b->buf + b->len);
	memset(h, 0, REQ_MAX);
	h->nlmsg_len = (unsigned int)NLMSG_LENGTH(body);
	h->nlmsg_type = type;
	h->nlmsg_flags = (unsigned short)(flags | NLM_F_REQUEST);
	h->nlmsg_seq = b->seq0 + b->n;
	snprintf(b->what[b->n], NL_WHAT_LEN, "%s", what);
	b->optional[b->n] = 0;
	return h;
}

static void req_done(struct nl_batch *b, struct nlmsghdr *h)
{
	b->last = (size_t)((char *)h - b->buf);
	b->len += NLMSG_ALIGN(h->nlmsg_len);
	b->n++;
}

static void put_attr(struct nlmsghdr *h, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* A nested attribute's header: its length is set by nest_close, once its content is queued. */
static struct rtattr *nest_open(struct nlmsghdr *h, unsigned short type)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_LENGTH(0);
	return a;
}

static void nest_close(struct nlmsghdr *h, struct rtattr *a)
{
	a->rta_len = (unsigned short)((char *)h + h->nlmsg_len - (char *)a);
}

/* One RTM_NEWLINK: flags (IFF_UP or none), then the MTU and queue length if set. */
static int link_req(struct nl_batch *b, const char *what, int ifindex, unsigned int flags,
		    unsigned int mtu, unsigned int txqlen)
{
	struct nlmsghdr *h = req_new(b, what, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi;

	if (!h)
		return -1;
	ifi = NLMSG_DATA(h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	ifi->ifi_change = flags;
	if (mtu)
		put_attr(h, IFLA_MTU, &mtu, sizeof(mtu));
	if (txqlen)
		put_attr(h, IFLA_TXQLEN, &txqlen, sizeof(txqlen));
	req_done(b, h);
	return 0;
}

/*
 * The MTU and the queue length in a request of their own, before the one
 * that brings the link up: the kernel applies a message's flags before its
 * queue length, and a new queue length on a link that is up detaches and
 * reattaches its qdisc, waiting for an RCU grace period.
 */
int nl_link_set(struct nl_batch *b, const char *what, int ifindex, unsigned int mtu,
		unsigned int txqlen)
{
	if ((mtu || txqlen) && link_req(b, what, ifindex, 0, mtu, txqlen) < 0)
		return -1;
	return link_req(b, what, ifindex, IFF_UP, 0, 0);
}

int nl_addr_add(struct nl_batch *b, const char *what, int ifindex, const struct ipaddr *a,
		unsigned int plen)
{
	struct nlmsghdr *h =
	    req_new(b, what, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, sizeof(struct ifaddrmsg));
	struct ifaddrmsg *ifa;
	size_t alen = a->family == AF_INET ? 4 : 16;
	/* No duplicate address detection: nothing else is on this link. */
	unsigned int flags = IFA_F_NODAD;

	if (!h)
		return -1;
	ifa = NLMSG_DATA(h);
	ifa->ifa_family = (unsigned char)a->family;
	ifa->ifa_prefixlen = (unsigned char)plen;
	ifa->ifa_index = (unsigned int)ifindex;
	ifa->ifa_flags = IFA_F_NODAD;
	put_attr(h, IFA_LOCAL, a->a, alen);
	put_attr(h, IFA_ADDRESS, a->a, alen);
	put_attr(h, IFA_FLAGS, &flags, sizeof(flags));
	req_done(b, h);
	return 0;
}

int nl_route_add(struct nl_batch *b, const char *what, int type, const struct cidr *dst,
		 int ifindex, const struct ipaddr *gw, int replace, unsigned int initwnd)
{
	struct nlmsghdr *h =
	    req_new(b, what, RTM_NEWROUTE, NLM_F_CREATE | (replace ? NLM_F_REPLACE : NLM_F_EXCL),
		    sizeof(struct rtmsg));
	struct rtmsg *rt;
	size_t alen = dst->addr.family == AF_INET ? 4 : 16;

	if (!h)
		return -1;
	rt = NLMSG_DATA(h);
	rt->rtm_family = (unsigned char)dst->addr.family;
	rt->rtm_dst_len = (unsigned char)dst->len;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_STATIC;
	rt->rtm_type = (unsigned char)type;
	rt->rtm_scope = type == RTN_UNICAST && !gw ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	if (dst->len)
		put_attr(h, RTA_DST, dst->addr.a, alen);
	if (gw)
		put_attr(h, RTA_GATEWAY, gw->a, alen);
	if (ifindex) {
		unsigned int oif = (unsigned int)ifindex;

		put_attr(h, RTA_OIF, &oif, sizeof(oif));
	}
	if (initwnd) {
		/* RTA_METRICS nests its own attributes: initcwnd and initrwnd, in segments. */
		struct {
			struct rtattr a;
			unsigned int v;
		} m[2] = { { { RTA_LENGTH(sizeof(unsigned int)), RTAX_INITCWND }, initwnd },
			   { { RTA_LENGTH(sizeof(unsigned int)), RTAX_INITRWND }, initwnd } };

		put_attr(h, RTA_METRICS, m, sizeof(m));
	}
	req_done(b, h);
	return 0;
}

/*
 * The link's IPv6 address generation off (IFLA_AF_SPEC, AF_INET6,
 * IFLA_INET6_ADDR_GEN_MODE: none), as writing 1 to its addr_gen_mode sysctl
 * would, but through rtnetlink, which a container's read-only /proc/sys does
 * not stop. The kernel applies it to a link that is down without making any
 * address: the request must come before the one that brings the link up.
 */
int nl_link_addrgen_none(struct nl_batch *b, const char *what, int ifindex)
{
	struct nlmsghdr *h = req_new(b, what, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi;
	struct rtattr *spec, *inet6;
	unsigned char mode = IN6_ADDR_GEN_MODE_NONE;

	if (!h)
		return -1;
	ifi = NLMSG_DATA(h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	spec = nest_open(h, IFLA_AF_SPEC);
	inet6 = nest_open(h, AF_INET6);
	put_attr(h, IFLA_INET6_ADDR_GEN_MODE, &mode, sizeof(mode));
	nest_close(h, inet6);
	nest_close(h, spec);
	req_done(b, h);
	return 0;
}

/*
 * RTM_NEWQDISC: noqueue as the link's root, as `tc qdisc add dev LINK root
 * noqueue` makes it. A TUN never stops its queue: when its ring is full it
 * drops the packet itself, so a qdisc in front never holds one, and the
 * default (pfifo_fast: three rings of the queue length, 384 KiB at 16384)
 * is only made, passed through per packet, and torn down.
 */
int nl_qdisc_noqueue(struct nl_batch *b, const char *what, int ifindex)
{
	static const char KIND[] = "noqueue";
	struct nlmsghdr *h =
	    req_new(b, what, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, sizeof(struct tcmsg));
	struct tcmsg *tc;

	if (!h)
		return -1;
	tc = NLMSG_DATA(h);
	tc->tcm_family = AF_UNSPEC;
	tc->tcm_ifindex = ifindex;
	tc->tcm_parent = TC_H_ROOT;
	put_attr(h, TCA_KIND, KIND, sizeof(KIND));
	b->optional[b->n] = 1;
	req_done(b, h);
	return 0;
}
