/* SPDX-License-Identifier: ISC */
/*
 * Datagrams: UDP, a connected host socket per flow (FLOW_UDP); ICMP echo, a
 * ping socket per echo id (FLOW_ECHO), the kernel keeping the id and the
 * checksum. Both end when idle; DNS to the host's resolver sooner. A refusal
 * is an ICMP error from the gateway's address: the agent learns that the
 * flow was refused, not by whom. A DNS question the policy refuses (names.c,
 * ask.c) is answered here, with an rcode (dns_reply).
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "oto.h"
#include "be.h"
#include "otonet.h"
#include "relay.h"

#define DNS_IDLE_MS  10000
#define ECHO_IDLE_MS 10000

static void icmp_refuse(struct relay *r, const struct pkt *p, int port_unreach)
{
	/* From the gateway: the agent learns the flow was refused, not by whom. */
	struct ipaddr gw;

	ipaddr_parse(p->family == AF_INET ? "10.0.2.2" : "fd00::2", &gw);
	tun_write(r, pkt_icmp_err(r->obuf, BUFSZ, &gw, p->ip, p->iplen, port_unreach));
}

/*
 * The relay's own answer to the agent's DNS message q on the UDP flow f:
 * rcode, after the question (dns_rcode), or after the header alone for a
 * message that is not one plain question (QR, the opcode and RD as asked,
 * the counts zero). A message too short for a header gets none.
 */
static void dns_reply(struct relay *r, const struct flow *f, const uint8_t *q, size_t len,
		      int rcode, int header)
{
	size_t off = pkt_l4_off(f->asrc.family) + 8, n;
	uint8_t *m = r->obuf + off;

	if (header) {
		if (len < 12)
			return;
		memcpy(m, q, 2);
		m[2] = (uint8_t)(0x80 | (q[2] & 0x79));
		m[3] = (uint8_t)rcode;
		memset(m + 4, 0, 8);
		n = 12;
	} else {
		if (len > NET_MTU - off)
			return;
		memcpy(m, q, len);
		if (dns_parse(m, len, r->dns) < 0)
			return;
		n = dns_rcode(m, r->dns, rcode);
	}
	tun_write(r, pkt_udp(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, n));
}

/*
 * A question to the resolver, as the policy judges it: 0 when it goes on,
 * 1 when it was answered here, dropped or held for the decider.
 */
static int dns_question(struct relay *r, const struct flow *f, const uint8_t *q, size_t len)
{
	int rcode = 0;

	switch (names_query(r, f, q, len, &rcode)) {
	case NQ_FORWARD:
		return 0;
	case NQ_ANSWER:
		dns_reply(r, f, q, len, rcode, 0);
		return 1;
	case NQ_HEADER:
		dns_reply(r, f, q, len, rcode, 1);
		return 1;
	case NQ_ASK:
		switch (ask_dns(r, f, q, len, r->dns)) {
		case 0:
			return 0;
		case -1:
			dns_reply(r, f, q, len, DNS_REFUSED, 0);
			return 1;
		default:
			return 1;
		}
	case NQ_DROP:
	default:
		return 1;
	}
}

void dgram_answer(struct relay *r, struct flow *f, int allow, const uint8_t *q, size_t len)
{
	if (allow)
		r->sys->send(f->fd, q, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		dns_reply(r, f, q, len, DNS_REFUSED, 0);
}

/* p's flow, opened and watched if new, its activity now; NULL when refused (ICMP sent). */
static struct flow *dgram_flow(struct relay *r, const struct pkt *p)
{
	struct flow *f = flow_find(r, p);

	if (!f) {
		f = flow_open(r, p);
		if (!f) {
			icmp_refuse(r, p, 0);
			return NULL;
		}
		flow_watch(r, f, EPOLLIN);
	}
	f->last = r->now;
	return f;
}

static void udp_input(struct relay *r, const struct pkt *p)
{
	struct flow *f = dgram_flow(r, p);

	if (!f)
		return;
	/* A DNS question the policy refuses is answered here (names.c, ask.c). */
	if (f->route == ROUTE_DNS && dns_question(r, f, p->data, p->dlen))
		return;
	f->quotelen = p->iplen < sizeof(f->quote) ? p->iplen : sizeof(f->quote);
	memcpy(f->quote, p->ip, f->quotelen);
	if (r->sys->send(f->fd, p->data, p->dlen, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
	    errno == ECONNREFUSED)
		icmp_refuse(r, p, 1);
}

static void icmp_input(struct relay *r, const struct pkt *p)
{
	struct flow *f = dgram_flow(r, p);

	/* p points into the batch: the request is rebuilt in obuf, then sent. */
	if (!f)
		return;
	if (8 + p->dlen > BUFSZ)
		return;
	r->obuf[0] = p->family == AF_INET ? 8 : 128;
	r->obuf[1] = 0;
	memset(r->obuf + 2, 0, 4); /* the kernel sets the id and checksum */
	be16_put(r->obuf + 6, p->echo_seq);
	memcpy(r->obuf + 8, p->data, p->dlen);
	r->sys->send(f->fd, r->obuf, 8 + p->dlen, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void dgram_sock_event(struct relay *r, struct flow *f)
{
	size_t off = pkt_l4_off(f->asrc.family);
	size_t room = NET_MTU - off - 8;

	for (int i = 0; i < 64; i++) {
		ssize_t n;

		if (f->proto == PROTO_UDP)
			n = r->sys->recv(f->fd, r->obuf + off + 8, room, MSG_DONTWAIT | MSG_TRUNC);
		else
			n = r->sys->recv(f->fd, r->obuf + off, room + 8, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == ECONNREFUSED && f->proto == PROTO_UDP && f->quotelen) {
				struct pkt q;

				/* The quote is the start of the agent's datagram. */
				memset(&q, 0, sizeof(q));
				q.family = f->asrc.family;
				q.ip = f->quote;
				q.iplen = f->quotelen;
				icmp_refuse(r, &q, 1);
			}
			break;
		}
		f->last = r->now;
		if (f->proto == PROTO_UDP) {
			if ((size_t)n > room)
				continue; /* too big for the TUN's MTU: dropped */
			/* The resolver's answer, filtered and its names bound (names.c). */
			if (f->route == ROUTE_DNS &&
			    !(n = (ssize_t)names_answer(r, f, r->obuf + off + 8, (size_t)n, 0)))
				continue;
			tun_write(
			    r, pkt_udp(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, (size_t)n));
		} else {
			uint8_t *ih = r->obuf + off;

			if (n < 8 || (size_t)n > room + 8 ||
			    ih[0] != (f->asrc.family == AF_INET ? 0 : 129))
				continue;
			tun_write(r, pkt_echo_reply(r->obuf, &f->adst, &f->asrc, f->sport,
						    be16_get(ih + 6), (size_t)n - 8));
		}
	}
}

void dgram_input(struct relay *r, const struct pkt *p)
{
	if (p->proto == PROTO_UDP)
		udp_input(r, p);
	else
		icmp_input(r, p);
}

enum flow_fate dgram_timer(struct relay *r, struct flow *f)
{
	uint64_t idle = f->state == FLOW_ECHO ? ECHO_IDLE_MS : r->cfg->udp_idle_ms;

	if (f->route == ROUTE_DNS && idle > DNS_IDLE_MS)
		idle = DNS_IDLE_MS;
	if (r->now - f->last > idle)
		return flow_free(r, f);
	return FLOW_KEPT;
}
