/* SPDX-License-Identifier: ISC */
/* rtnetlink requests, each acknowledged before the next. */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "otonet.h"

struct req {
	struct nlmsghdr h;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
		struct rtmsg rt;
	} u;
	char attrs[256];
};

static unsigned int seqno;

int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void put_attr(struct req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

static int talk(int nl, struct req *r)
{
	char buf[4096];
	ssize_t n;

	r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	r->h.nlmsg_seq = ++seqno;
	if (send(nl, r, r->h.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(nl, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != r->h.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error) {
					errno = -e->error;
					return -1;
				}
				return 0;
			}
		}
	}
}

int nl_link_set(int nl, int ifindex, unsigned int mtu, unsigned int txqlen)
{
	struct req r;

	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r.h.nlmsg_type = RTM_NEWLINK;
	r.u.ifi.ifi_family = AF_UNSPEC;
	r.u.ifi.ifi_index = ifindex;
	r.u.ifi.ifi_flags = IFF_UP;
	r.u.ifi.ifi_change = IFF_UP;
	if (mtu)
		put_attr(&r, IFLA_MTU, &mtu, sizeof(mtu));
	if (txqlen)
		put_attr(&r, IFLA_TXQLEN, &txqlen, sizeof(txqlen));
	return talk(nl, &r);
}

int nl_addr_add(int nl, int ifindex, const struct ipaddr *a, unsigned int plen)
{
	struct req r;
	size_t alen = a->family == AF_INET ? 4 : 16;
	/* No duplicate address detection: nothing else is on this link. */
	unsigned int flags = IFA_F_NODAD;

	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	r.h.nlmsg_type = RTM_NEWADDR;
	r.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	r.u.ifa.ifa_family = (unsigned char)a->family;
	r.u.ifa.ifa_prefixlen = (unsigned char)plen;
	r.u.ifa.ifa_index = (unsigned int)ifindex;
	r.u.ifa.ifa_flags = IFA_F_NODAD;
	put_attr(&r, IFA_LOCAL, a->a, alen);
	put_attr(&r, IFA_ADDRESS, a->a, alen);
	put_attr(&r, IFA_FLAGS, &flags, sizeof(flags));
	return talk(nl, &r);
}

int nl_route_add(int nl, int type, const struct cidr *dst, int ifindex, const struct ipaddr *gw,
		 int replace)
{
	struct req r;
	size_t alen = dst->addr.family == AF_INET ? 4 : 16;

	memset(&r, 0, sizeof(r));
	r.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	r.h.nlmsg_type = RTM_NEWROUTE;
	r.h.nlmsg_flags = NLM_F_CREATE | (replace ? NLM_F_REPLACE : NLM_F_EXCL);
	r.u.rt.rtm_family = (unsigned char)dst->addr.family;
	r.u.rt.rtm_dst_len = (unsigned char)dst->len;
	r.u.rt.rtm_table = RT_TABLE_MAIN;
	r.u.rt.rtm_protocol = RTPROT_STATIC;
	r.u.rt.rtm_type = (unsigned char)type;
	r.u.rt.rtm_scope = type == RTN_UNICAST && !gw ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	if (dst->len)
		put_attr(&r, RTA_DST, dst->addr.a, alen);
	if (gw)
		put_attr(&r, RTA_GATEWAY, gw->a, alen);
	if (ifindex) {
		unsigned int oif = (unsigned int)ifindex;

		put_attr(&r, RTA_OIF, &oif, sizeof(oif));
	}
	return talk(nl, &r);
}
