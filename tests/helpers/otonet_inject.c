/* SPDX-License-Identifier: ISC */
/*
 * otonet_inject BATCH: hostile packets for otonet's relay, written
 * as-is onto tun0 through an AF_PACKET socket, so that no kernel fixes a
 * length, a checksum or a header on the way: the relay reads exactly these
 * bytes. Runs in the sandbox's network namespace with CAP_NET_RAW over it
 * (the suite enters it as root with nsenter; see tests/test_otonet_hostile.sh
 * for why the agent itself cannot). Sends the batch and exits 0; 1 on usage,
 * 2 when a socket call fails, 3 when a live connection stopped working.
 *
 * Addresses: the agent is 10.0.2.100 / fd00::100, the gateway 10.0.2.2 /
 * fd00::2; "public" is the fake internet 203.0.113.10 / 2001:db8:1::10 (echo
 * on TCP 9002, UDP echo on 9005, a closed port 9999), "private" the fake LAN
 * 10.1.0.10 / fd12:3456::10 (a listener that records every contact). The
 * suite listens on 203.0.113.10:9100 (TCP and UDP) and records every contact:
 * a batch addresses it only with packets the relay must drop, except the
 * final marker of every batch (one well-formed UDP datagram "mark BATCH" from
 * the agent's address), which proves the listener and the relay were alive.
 *
 * Checksums are right unless a batch says otherwise, so that a packet gets
 * past the checksum to the part of the parser the batch aims at.
 *
 *  trunc4        a TCP SYN (with options) and a UDP datagram, every prefix of
 *                1..59 bytes; IHL 0..4; version 4 in packets of 1..19 bytes.
 *  trunc6        the same over IPv6, prefixes 1..79 bytes; payload length
 *                claiming more than the packet holds.
 *  lying-lengths IPv4 total length 0, under the header, under the TCP header,
 *                one more than read, 65535; IHL past the total length; TCP
 *                data offset 0..4 and 15 with 20 bytes; IPv6 payload length 0,
 *                1, 19, read+1, 65535; TCP options whose lengths lie (0, 1,
 *                past the end, MSS of 3, wscale of 2, unterminated).
 *  ipopts        IHL 6..15 carrying NOP, EOL, record route, loose and strict
 *                source routes through the LAN, timestamps, and option lengths
 *                of 0, 1 and past the header, on SYNs to public and private
 *                destinations and UDP to the marker port.
 *  frags         IPv4 first (MF), middle, last, overlapping and tiny (8 bytes,
 *                splitting the TCP header) fragments of SYNs and datagrams to
 *                the marker port and the LAN, and first fragments that hold
 *                a whole well-formed segment or datagram; IPv6 fragment
 *                headers (first, middle, overlapping, whole, atomic).
 *  ext6          IPv6 hop-by-hop, destination options, a chain of 200
 *                destination options headers, chains that "loop" (hop-by-hop
 *                after hop-by-hop, routing after routing), routing headers of
 *                types 0, 2, 3, 4 through the LAN with segments left, header
 *                lengths past the packet, no-next-header (59).
 *  tcpflags      all 256 values of the TCP flags byte, to the public echo port
 *                and to a LAN port, over IPv4 and IPv6, each with a payload
 *                and without; SYNs and datagrams from or to port 0.
 *  synflood      20000 SYNs from the agent's address on distinct ports: 18000
 *                to a closed public port, 2000 to the public echo port.
 *  unknown-acks  ACK, ACK with data, FIN|ACK, RST|ACK, PSH|ACK for flows that
 *                do not exist, to public and private destinations.
 *  seq           on a real connection the agent's kernel made to the public
 *                echo port (its sequence numbers read with TCP_REPAIR):
 *                segments before, straddling, far after and half the space
 *                away from the expected sequence number, data that wraps past
 *                2^32 relative to it, ACKs of data never sent and far in the
 *                past (bytes that land in the window are the agent writing
 *                into its own stream: they go on to the echo server).
 *  windows       on such a connection: window 0, 1, 65535 with the agent's
 *                scale, then it must still echo (exit 3 if not); SYNs with
 *                window scale 14, 15, 255, a scale option of length 2 and
 *                4, two scale options, MSS 0, 1 and 65535.
 *  urgent        URG with urgent pointers past the data, 0, 65535, with and
 *                without data, on the real connection (which must still echo)
 *                and on unknown flows.
 *  udp-lying     UDP length 0..7, one past the IP payload, 65535, shorter than
 *                the payload (only "short" of "short-tail" may be sent on),
 *                a wrong checksum, checksum 0 (none: sent on over IPv4 only).
 *  icmp-errors   ICMP and ICMPv6 errors (unreachable, time exceeded, packet
 *                too big, parameter problem) quoting forged inner packets of a
 *                live flow and of flows that do not exist, truncated quotes,
 *                quotes of quotes (the live flow must still echo); echo
 *                requests with lying lengths.
 *  vnet          through a SOCK_RAW socket with PACKET_VNET_HDR (tun0 has
 *                no link-layer header, so raw is the bare packet), so that the relay
 *                reads a virtio_net_hdr the injector chose (as the kernel
 *                passes it on): datagrams to the marker port with a wrong
 *                checksum marked DATA_VALID, partial checksums starting in
 *                the IP header, at the TCP field of a UDP datagram and the
 *                UDP field of a TCP SYN (all to the marker port); SYNs segmented as
 *                the other family's TCP, as UDP, with ECN alone, with a
 *                segment size of 0 and 1, without NEEDS_CSUM (2,000 bytes of
 *                SYN data each, to the LAN and a closed public port: the
 *                kernel may segment these into well-formed SYNs itself);
 *                datagrams to the marker port "segmented" as TCP. Sends the
 *                kernel itself refuses (EINVAL) are counted, not fatal.
 *  spoofed-src   SYNs and datagrams to the marker port and the LAN from
 *                sources other than the agent's: the gateway, the DNS address,
 *                public addresses, 0.0.0.0, broadcast, loopback, the LAN, the
 *                target itself; the same over IPv6 (::, ::1, fd00::2,
 *                fe80::1, the target).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MARK_PORT  9100
#define VNET_MAX   (10 + 70000)
#define ETH_P_IP   0x0800
#define ETH_P_IPV6 0x86DD

static int pfd, ifindex;
static unsigned long nsent;
static const char *batch;

static uint8_t A4[4] = { 10, 0, 2, 100 }, GW4[4] = { 10, 0, 2, 2 }, PUB4[4] = { 203, 0, 113, 10 },
	       LAN4[4] = { 10, 1, 0, 10 };
static uint8_t A6[16], GW6[16], PUB6[16], LAN6[16];

static void fail(const char *what)
{
	fprintf(stderr, "otonet_inject %s: %s: %s\n", batch, what, strerror(errno));
	exit(2);
}

static void pace(void)
{
	/* The TUN's queue is 1000 packets: let the relay drain it. */
	if (++nsent % 64 == 0) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
}

static void send_raw(const uint8_t *b, size_t n)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex };

	sll.sll_protocol = htons(n && b[0] >> 4 == 6 ? ETH_P_IPV6 : ETH_P_IP);
	if (sendto(pfd, b, n, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0 && errno != ENOBUFS)
		fail("sendto on tun0");
	pace();
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* A packet under construction: IP header (hl bytes) then l4. */
struct P {
	uint8_t b[70000];
	int v6;
	size_t hl;  /* IP header length including options / extension headers */
	size_t l4n; /* l4 length */
	int proto;
	uint8_t *src, *dst;
};

static void ip4_csum(struct P *p)
{
	p->b[10] = p->b[11] = 0;
	put16(p->b + 10, fold(sum(p->b, p->hl, 0)));
}

static uint32_t pseudo(const struct P *p, size_t l4n)
{
	uint8_t ph[40];

	if (!p->v6) {
		memcpy(ph, p->src, 4);
		memcpy(ph + 4, p->dst, 4);
		ph[8] = 0;
		ph[9] = (uint8_t)p->proto;
		put16(ph + 10, (uint32_t)l4n);
		return sum(ph, 12, 0);
	}
	memcpy(ph, p->src, 16);
	memcpy(ph + 16, p->dst, 16);
	put32(ph + 32, (uint32_t)l4n);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = (uint8_t)p->proto;
	return sum(ph, 40, 0);
}

/* The l4 checksum at offset off of the l4, over l4n bytes. */
static void l4_csum(struct P *p, size_t off, size_t l4n)
{
	uint8_t *l4 = p->b + p->hl;
	uint32_t s = (p->proto == 1) ? 0 : pseudo(p, l4n);
	uint16_t c;

	l4[off] = l4[off + 1] = 0;
	c = fold(sum(l4, l4n, s));
	if (p->proto == 17 && c == 0)
		c = 0xffff;
	put16(l4 + off, c);
}

/* IP header with no options; the length fields match l4n. */
static void ip_start(struct P *p, int v6, const uint8_t *src, const uint8_t *dst, int proto)
{
	memset(p->b, 0, 128);
	p->v6 = v6;
	p->proto = proto;
	p->src = p->b + (v6 ? 8 : 12);
	p->dst = p->b + (v6 ? 24 : 16);
	if (!v6) {
		p->hl = 20;
		p->b[0] = 0x45;
		put16(p->b + 6, 0x4000);
		p->b[8] = 64;
		p->b[9] = (uint8_t)proto;
		memcpy(p->src, src, 4);
		memcpy(p->dst, dst, 4);
	} else {
		p->hl = 40;
		p->b[0] = 0x60;
		p->b[6] = (uint8_t)proto;
		p->b[7] = 64;
		memcpy(p->src, src, 16);
		memcpy(p->dst, dst, 16);
	}
}

static void ip_lengths(struct P *p)
{
	if (!p->v6) {
		put16(p->b + 2, (uint32_t)(p->hl + p->l4n));
		ip4_csum(p);
	} else {
		put16(p->b + 4, (uint32_t)(p->hl - 40 + p->l4n));
	}
}

static size_t plen(const struct P *p)
{
	return p->hl + p->l4n;
}

/* TCP header + options + data, checksummed, lengths set. */
static void tcp(struct P *p, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
		uint8_t flags, uint16_t win, uint16_t urg, const uint8_t *opt, size_t optn,
		size_t dlen)
{
	uint8_t *t = p->b + p->hl;
	size_t thl = 20 + ((optn + 3) & ~(size_t)3);

	memset(t, 0, thl);
	put16(t, sport);
	put16(t + 2, dport);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = (uint8_t)((thl / 4) << 4);
	t[13] = flags;
	put16(t + 14, win);
	put16(t + 18, urg);
	if (opt && optn)
		memcpy(t + 20, opt, optn);
	for (size_t i = 0; i < dlen; i++)
		t[thl + i] = (uint8_t)('a' + i % 26);
	p->l4n = thl + dlen;
	ip_lengths(p);
	l4_csum(p, 16, p->l4n);
}

static void udp(struct P *p, uint16_t sport, uint16_t dport, const char *msg, size_t dlen)
{
	uint8_t *u = p->b + p->hl;

	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (uint32_t)(8 + dlen));
	if (msg)
		memcpy(u + 8, msg, dlen);
	else
		memset(u + 8, 'u', dlen);
	p->l4n = 8 + dlen;
	ip_lengths(p);
	l4_csum(p, 6, p->l4n);
}

static const uint8_t SYNOPT[] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2, 0, 0 };

static void syn(struct P *p, int v6, const uint8_t *src, const uint8_t *dst, uint16_t sport,
		uint16_t dport)
{
	ip_start(p, v6, src, dst, 6);
	tcp(p, sport, dport, 0x10000000u + sport, 0, 0x02, 64240, 0, SYNOPT, sizeof(SYNOPT), 0);
}

static const uint8_t *A(int v6)
{
	return v6 ? A6 : A4;
}
static const uint8_t *PUB(int v6)
{
	return v6 ? PUB6 : PUB4;
}
static const uint8_t *LAN(int v6)
{
	return v6 ? LAN6 : LAN4;
}

static void send_p(const struct P *p)
{
	send_raw(p->b, plen(p));
}

/* ---- batches -------------------------------------------------------------- */

static void b_trunc(int v6)
{
	static struct P p;
	size_t max = v6 ? 80 : 60;

	for (int k = 0; k < 2; k++) {
		if (k == 0)
			syn(&p, v6, A(v6), PUB(v6), 41000, MARK_PORT);
		else {
			ip_start(&p, v6, A(v6), PUB(v6), 17);
			udp(&p, 41001, MARK_PORT, "truncated", 9);
		}
		for (size_t n = 1; n < max && n < plen(&p); n++)
			send_raw(p.b, n);
	}
	if (!v6) {
		/* IHL under 5, with a checksum that fits what is there. */
		for (int ihl = 0; ihl < 5; ihl++) {
			ip_start(&p, 0, A4, PUB4, 17);
			udp(&p, 41002, MARK_PORT, "ihl", 3);
			p.b[0] = (uint8_t)(0x40 | ihl);
			send_p(&p);
		}
	} else {
		/* Payload length claiming more than is there. */
		ip_start(&p, 1, A6, PUB6, 17);
		udp(&p, 41003, MARK_PORT, "short6", 6);
		put16(p.b + 4, (uint32_t)p.l4n + 1);
		send_p(&p);
		put16(p.b + 4, 65535);
		send_p(&p);
	}
}

static void b_lying(void)
{
	static struct P p;
	static const uint16_t tot4[] = { 0, 1, 19, 20, 39 };
	static const uint16_t pl6[] = { 0, 1, 19 };

	for (size_t i = 0; i < sizeof(tot4) / sizeof(tot4[0]); i++) {
		syn(&p, 0, A4, PUB4, (uint16_t)(42000 + i), MARK_PORT);
		put16(p.b + 2, tot4[i]);
		ip4_csum(&p);
		send_p(&p);
	}
	/* One more than read, and 65535. */
	syn(&p, 0, A4, PUB4, 42010, MARK_PORT);
	put16(p.b + 2, (uint32_t)plen(&p) + 1);
	ip4_csum(&p);
	send_p(&p);
	put16(p.b + 2, 65535);
	ip4_csum(&p);
	send_p(&p);
	/* IHL past the total length: 60 bytes of header in a 40-byte packet. */
	syn(&p, 0, A4, PUB4, 42011, MARK_PORT);
	p.b[0] = 0x4f;
	put16(p.b + 2, 40);
	ip4_csum(&p);
	send_raw(p.b, 40);
	/* TCP data offsets that lie. */
	for (int v6 = 0; v6 < 2; v6++) {
		for (int doff = 0; doff < 16; doff++) {
			if (doff >= 5 && doff < 15)
				continue;
			ip_start(&p, v6, A(v6), PUB(v6), 6);
			tcp(&p, (uint16_t)(42100 + doff), MARK_PORT, 1, 0, 0x02, 1000, 0, NULL, 0,
			    0);
			p.b[p.hl + 12] = (uint8_t)(doff << 4);
			l4_csum(&p, 16, p.l4n);
			send_p(&p);
		}
	}
	for (size_t i = 0; i < sizeof(pl6) / sizeof(pl6[0]); i++) {
		syn(&p, 1, A6, PUB6, (uint16_t)(42200 + i), MARK_PORT);
		put16(p.b + 4, pl6[i]);
		send_p(&p);
	}
	syn(&p, 1, A6, PUB6, 42210, MARK_PORT);
	put16(p.b + 4, (uint32_t)p.l4n + 1);
	send_p(&p);
	put16(p.b + 4, 65535);
	send_p(&p);
	/* TCP options whose lengths lie, on SYNs to the marker port. */
	{
		static const uint8_t o1[] = { 2, 0, 0, 0 }, o2[] = { 2, 1, 0, 0 },
				     o3[] = { 8, 40, 0, 0 }, o4[] = { 2, 3, 5, 0 },
				     o5[] = { 3, 2, 1, 1 }, o6[] = { 1, 1, 1, 3 },
				     o7[] = { 3, 4, 7, 0 }, o8[] = { 2, 255, 1, 1 };
		const uint8_t *os[] = { o1, o2, o3, o4, o5, o6, o7, o8 };

		for (int v6 = 0; v6 < 2; v6++)
			for (size_t i = 0; i < 8; i++) {
				ip_start(&p, v6, A(v6), PUB(v6), 6);
				tcp(&p, (uint16_t)(42300 + i), MARK_PORT, 1, 0, 0x02, 1000, 0,
				    os[i], 4, 0);
				send_p(&p);
			}
	}
}

/* A UDP datagram and a SYN with the IPv4 options opt (padded to 4 bytes). */
static void with_opts(const uint8_t *opt, size_t n, const uint8_t *dst, uint16_t sport,
		      uint16_t dport)
{
	static struct P p;
	size_t ol = (n + 3) & ~(size_t)3;

	for (int k = 0; k < 2; k++) {
		ip_start(&p, 0, A4, dst, k ? 17 : 6);
		memset(p.b + 20, 0, 40);
		memcpy(p.b + 20, opt, n);
		p.hl = 20 + ol;
		p.b[0] = (uint8_t)(0x40 | p.hl / 4);
		if (k)
			udp(&p, sport, dport, "opts", 4);
		else
			tcp(&p, sport, dport, 5, 0, 0x02, 1000, 0, SYNOPT, sizeof(SYNOPT), 0);
		send_p(&p);
	}
}

static void b_ipopts(void)
{
	uint8_t o[40];

	memset(o, 1, 4); /* NOPs */
	with_opts(o, 4, PUB4, 43000, MARK_PORT);
	memset(o, 0, 40); /* EOL, 40 bytes */
	with_opts(o, 40, PUB4, 43001, MARK_PORT);
	/* Record route with room for 9 addresses. */
	memset(o, 0, 40);
	o[0] = 7, o[1] = 39, o[2] = 4;
	with_opts(o, 39, PUB4, 43002, MARK_PORT);
	/* Loose and strict source routes through the LAN and the gateway. */
	for (int t = 0; t < 2; t++) {
		memset(o, 0, 40);
		o[0] = t ? 137 : 131, o[1] = 11, o[2] = 4;
		memcpy(o + 3, LAN4, 4);
		memcpy(o + 7, GW4, 4);
		with_opts(o, 11, PUB4, (uint16_t)(43003 + t), MARK_PORT);
		with_opts(o, 11, LAN4, (uint16_t)(43005 + t), 22);
	}
	/* Timestamps, with an overflowing pointer. */
	memset(o, 0, 40);
	o[0] = 68, o[1] = 36, o[2] = 41, o[3] = 0xf3;
	with_opts(o, 36, PUB4, 43007, MARK_PORT);
	/* Option lengths 0, 1, and past the header. */
	static const uint8_t l[] = { 0, 1, 2, 41, 255 };
	for (size_t i = 0; i < sizeof(l); i++) {
		memset(o, 0, 40);
		o[0] = 7, o[1] = l[i], o[2] = 4;
		with_opts(o, 8, PUB4, (uint16_t)(43010 + i), MARK_PORT);
		o[0] = 131;
		with_opts(o, 8, LAN4, (uint16_t)(43020 + i), 22);
	}
}

static void frag4(const uint8_t *dst, int proto, uint16_t sport, uint16_t dport, uint16_t id)
{
	static struct P p, q;
	/* off: fragment offset in 8-byte units; mf; bytes of the l4 to carry. */
	static const struct {
		uint16_t off;
		int mf;
		size_t from, n;
	} fr[] = {
		{ 0, 1, 0, 8 },	    { 0, 1, 0, 16 },   { 1, 1, 8, 16 },
		{ 2, 0, 16, 24 },   { 1, 1, 8, 8 },    { 8191, 0, 0, 16 },
		{ 8190, 1, 0, 24 }, { 0, 1, 0, 4096 }, /* a first fragment that holds the whole
							  datagram */
	};

	ip_start(&p, 0, A4, dst, proto);
	if (proto == 6)
		tcp(&p, sport, dport, 9, 0, 0x02, 1000, 0, SYNOPT, sizeof(SYNOPT), 8);
	else
		udp(&p, sport, dport, "fragmented datagram....", 24);
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		size_t n = fr[i].n;

		if (fr[i].from + n > p.l4n)
			n = p.l4n - fr[i].from;
		memcpy(q.b, p.b, 20);
		memcpy(q.b + 20, p.b + 20 + fr[i].from, n);
		q.hl = 20;
		q.l4n = n;
		q.v6 = 0;
		put16(q.b + 2, (uint32_t)(20 + n));
		put16(q.b + 4, id);
		put16(q.b + 6, (uint32_t)(fr[i].mf << 13 | fr[i].off));
		ip4_csum(&q);
		send_p(&q);
	}
}

static void frag6(const uint8_t *dst, int proto, uint16_t sport, uint16_t dport, uint32_t id)
{
	static struct P p, q;
	static const struct {
		uint16_t off;
		int mf;
		size_t from, n;
	} fr[] = { { 0, 1, 0, 8 },   { 1, 1, 8, 16 }, { 0, 1, 0, 24 },
		   { 2, 0, 16, 24 }, { 0, 0, 0, 40 }, { 0, 1, 0, 4096 } };

	ip_start(&p, 1, A6, dst, proto);
	if (proto == 6)
		tcp(&p, sport, dport, 9, 0, 0x02, 1000, 0, SYNOPT, sizeof(SYNOPT), 8);
	else
		udp(&p, sport, dport, "fragmented datagram....", 24);
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		size_t n = fr[i].n;

		if (fr[i].from + n > p.l4n)
			n = p.l4n - fr[i].from;
		memcpy(q.b, p.b, 40);
		q.b[6] = 44;
		q.b[40] = (uint8_t)proto;
		q.b[41] = 0;
		put16(q.b + 42, (uint32_t)(fr[i].off << 3 | fr[i].mf));
		put32(q.b + 44, id);
		memcpy(q.b + 48, p.b + 40 + fr[i].from, n);
		q.v6 = 1;
		q.hl = 48;
		q.l4n = n;
		put16(q.b + 4, (uint32_t)(8 + n));
		send_p(&q);
	}
}

static void b_frags(void)
{
	frag4(PUB4, 6, 44000, MARK_PORT, 1);
	frag4(PUB4, 17, 44001, MARK_PORT, 2);
	frag4(LAN4, 6, 44002, 22, 3);
	frag4(LAN4, 17, 44003, 22, 4);
	frag6(PUB6, 6, 44010, MARK_PORT, 5);
	frag6(PUB6, 17, 44011, MARK_PORT, 6);
	frag6(LAN6, 6, 44012, 22, 7);
	frag6(LAN6, 17, 44013, 22, 8);
}

/*
 * An IPv6 packet whose extension headers are hdrs (n bytes, the first one's
 * type first_nh), then a UDP datagram to dst:dport, or a SYN.
 */
static void ext6(uint8_t first_nh, const uint8_t *hdrs, size_t n, const uint8_t *dst, int proto,
		 uint16_t sport, uint16_t dport)
{
	static struct P p;

	ip_start(&p, 1, A6, dst, proto);
	memcpy(p.b + 40, hdrs, n);
	p.hl = 40 + n;
	if (proto == 17)
		udp(&p, sport, dport, "ext", 3);
	else
		tcp(&p, sport, dport, 3, 0, 0x02, 1000, 0, SYNOPT, sizeof(SYNOPT), 0);
	p.b[6] = first_nh;
	send_p(&p);
}

static void b_ext6(void)
{
	static uint8_t h[8 * 256];
	int k = 0;

	for (int proto = 6; proto <= 17; proto += 11) {
		const uint8_t *dsts[2] = { PUB6, LAN6 };

		for (int d = 0; d < 2; d++) {
			uint16_t dp = d ? 22 : MARK_PORT;

			/* Hop-by-hop with a PadN, then the transport. */
			memset(h, 0, 8);
			h[0] = (uint8_t)proto, h[2] = 1, h[3] = 4;
			ext6(0, h, 8, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			/* Destination options. */
			ext6(60, h, 8, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			/* A chain of 200 destination options headers. */
			for (int i = 0; i < 200; i++) {
				memset(h + 8 * i, 0, 8);
				h[8 * i] = i == 199 ? (uint8_t)proto : 60;
				h[8 * i + 2] = 1, h[8 * i + 3] = 4;
			}
			ext6(60, h, 8 * 200, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			/* "Loops": hop-by-hop after hop-by-hop, routing after routing. */
			for (int i = 0; i < 16; i++) {
				memset(h + 8 * i, 0, 8);
				h[8 * i] = i == 15 ? (uint8_t)proto : 0;
			}
			ext6(0, h, 8 * 16, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			for (int i = 0; i < 16; i++) {
				memset(h + 24 * i, 0, 24);
				h[24 * i] = i == 15 ? (uint8_t)proto : 43;
				h[24 * i + 1] = 2;
				h[24 * i + 3] = 1;
				memcpy(h + 24 * i + 8, LAN6, 16);
			}
			ext6(43, h, 24 * 16, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			/* Routing headers of types 0, 2, 3, 4 through the LAN, segments left. */
			for (int t = 0; t <= 4; t++) {
				if (t == 1)
					continue;
				memset(h, 0, 40);
				h[0] = (uint8_t)proto, h[1] = 4, h[2] = (uint8_t)t, h[3] = 2;
				memcpy(h + 8, LAN6, 16);
				memcpy(h + 24, GW6, 16);
				ext6(43, h, 40, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			}
			/* A header length past the packet; no next header. */
			memset(h, 0, 8);
			h[0] = (uint8_t)proto, h[1] = 200;
			ext6(60, h, 8, dsts[d], proto, (uint16_t)(45000 + k++), dp);
			ext6(59, h, 0, dsts[d], proto, (uint16_t)(45000 + k++), dp);
		}
	}
}

static void b_tcpflags(void)
{
	static struct P p;

	for (int v6 = 0; v6 < 2; v6++)
		for (int d = 0; d < 2; d++)
			for (int f = 0; f < 256; f++)
				for (int data = 0; data < 2; data++) {
					ip_start(&p, v6, A(v6), d ? LAN(v6) : PUB(v6), 6);
					tcp(&p, (uint16_t)(20000 + f * 2 + data + v6 * 600),
					    d ? 22 : 9002, 0x7fff0000u + (uint32_t)f, 0x1234,
					    (uint8_t)f, 512, 3, (f & 2) ? SYNOPT : NULL,
					    (f & 2) ? sizeof(SYNOPT) : 0, data ? 10 : 0);
					send_p(&p);
				}
	/* Port 0 on either side. */
	for (int v6 = 0; v6 < 2; v6++)
		for (int d = 0; d < 2; d++)
			for (int k = 0; k < 3; k++) {
				uint16_t sp = k == 1 ? 21000 : 0, dp = k == 2 ? 9002 : 0;

				syn(&p, v6, A(v6), d ? LAN(v6) : PUB(v6), sp, dp);
				send_p(&p);
				ip_start(&p, v6, A(v6), d ? LAN(v6) : PUB(v6), 17);
				udp(&p, sp, dp == 9002 ? 9005 : 0, "port0", 5);
				send_p(&p);
			}
}

static void b_synflood(void)
{
	static struct P p;

	for (int i = 0; i < 20000; i++) {
		int v6 = i & 1;

		syn(&p, v6, A(v6), PUB(v6), (uint16_t)(10000 + i / 2 + v6 * 20000),
		    i % 10 == 0 ? 9002 : 9999);
		send_p(&p);
	}
}

static void b_unknown_acks(void)
{
	static struct P p;
	static const uint8_t fl[] = { 0x10, 0x18, 0x11, 0x14, 0x19, 0x01, 0x04 };

	for (int v6 = 0; v6 < 2; v6++)
		for (int d = 0; d < 2; d++)
			for (size_t i = 0; i < sizeof(fl); i++)
				for (int k = 0; k < 20; k++) {
					ip_start(&p, v6, A(v6), d ? LAN(v6) : PUB(v6), 6);
					tcp(&p, (uint16_t)(46000 + k), d ? 22 : 9002,
					    (uint32_t)k * 0x10000000u, 0xfffffff0u + (uint32_t)k,
					    fl[i], 65535, 0, NULL, 0, (fl[i] & 8) ? 100 : 0);
					send_p(&p);
				}
}

/* ---- on a live connection ------------------------------------------------- */

struct live {
	int fd, v6;
	uint16_t sport;
	uint32_t snd, rcv; /* the agent kernel's snd_nxt and rcv_nxt */
};

static uint32_t repair_seq(int fd, int q)
{
	uint32_t s = 0;
	socklen_t l = sizeof(s);
	int on = 1, off = 0;

	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) < 0 ||
	    getsockopt(fd, IPPROTO_TCP, TCP_QUEUE_SEQ, &s, &l) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off)) < 0)
		fail("TCP_REPAIR (needs CAP_NET_ADMIN over the namespace)");
	return s;
}

static void live_open(struct live *c, int v6)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	memset(&ss, 0, sizeof(ss));
	if (!v6) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(9002);
		memcpy(&s->sin_addr, PUB4, 4);
		sl = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(9002);
		memcpy(&s->sin6_addr, PUB6, 16);
		sl = sizeof(*s);
	}
	c->v6 = v6;
	c->fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&ss, sl) < 0)
		fail("connect to the echo port");
	sl = sizeof(ss);
	getsockname(c->fd, (struct sockaddr *)&ss, &sl);
	c->sport = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
			    : ((struct sockaddr_in *)&ss)->sin_port);
	/* Nothing in flight: the kernel's sequence numbers are the flow's. */
	if (write(c->fd, "x", 1) != 1 || read(c->fd, (char[1]){ 0 }, 1) != 1)
		fail("echo before the batch");
	usleep(50000);
	c->snd = repair_seq(c->fd, 2 /* TCP_SEND_QUEUE */);
	c->rcv = repair_seq(c->fd, 1 /* TCP_RECV_QUEUE */);
}

static void live_seg(const struct live *c, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
		     uint16_t urg, size_t dlen)
{
	static struct P p;

	ip_start(&p, c->v6, A(c->v6), PUB(c->v6), 6);
	tcp(&p, c->sport, 9002, seq, ack, flags, win, urg, NULL, 0, dlen);
	send_p(&p);
}

/*
 * check: the connection must still echo (exit 3 if not); for batches that
 * wrote no in-window data into it. The seq batch does (that is the agent
 * writing into its own stream, which the relay rightly sends on): the flow is
 * then out of step with the agent's kernel, and is only closed.
 */
static void live_close(struct live *c, int check)
{
	char b[64];
	size_t got = 0;
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };

	usleep(100000);
	if (check) {
		if (write(c->fd, "after", 5) != 5)
			fail("write after the batch");
		while (got < 5 && poll(&pf, 1, 3000) == 1) {
			ssize_t n = read(c->fd, b + got, sizeof(b) - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got != 5 || memcmp(b, "after", 5)) {
			fprintf(
			    stderr,
			    "otonet_inject %s: the live connection no longer echoes (%zu bytes)\n",
			    batch, got);
			exit(3);
		}
	}
	while (poll(&pf, 1, 100) == 1 && read(c->fd, b, sizeof(b)) > 0)
		;
	close(c->fd);
}

static void b_seq(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct live c;
		static const uint32_t d[] = { 0xffffffffu, 0xfffffff0u, 100000,	     0x7fffffffu,
					      0x80000000u, 0x80000001u, 0x40000000u, 1u << 20 };

		live_open(&c, v6);
		for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
			live_seg(&c, c.snd + d[i], c.rcv, 0x18, 1000, 0, 5);
			live_seg(&c, c.snd + d[i], c.rcv, 0x10, 1000, 0, 0);
			live_seg(&c, c.snd, c.rcv + d[i], 0x10, 1000, 0, 0);
			live_seg(&c, c.snd, c.rcv - d[i], 0x10, 1000, 0, 0);
			live_seg(&c, c.snd + d[i], c.rcv + d[i], 0x11, 1000, 0, 0);
		}
		/* Straddling: starts 5 before, ends 5 after; all before. */
		live_seg(&c, c.snd - 5, c.rcv, 0x18, 1000, 0, 10);
		live_seg(&c, c.snd - 20, c.rcv, 0x18, 1000, 0, 10);
		live_close(&c, 0);
	}
}

static void b_windows(void)
{
	static struct P p;

	for (int v6 = 0; v6 < 2; v6++) {
		struct live c;
		static const uint16_t w[] = { 0, 1, 65535, 0, 2, 65535 };

		live_open(&c, v6);
		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
			live_seg(&c, c.snd, c.rcv, 0x10, w[i], 0, 0);
		live_close(&c, 1);
	}
	{
		static const uint8_t o1[] = { 3, 3, 14, 1 }, o2[] = { 3, 3, 15, 1 },
				     o3[] = { 3, 3, 255, 1 }, o4[] = { 3, 2, 1, 1 },
				     o5[] = { 3, 4, 7, 0 }, o6[] = { 3, 3, 7, 1, 3, 3, 14, 1 },
				     o7[] = { 2, 4, 0, 0 }, o8[] = { 2, 4, 0, 1 },
				     o9[] = { 2, 4, 0xff, 0xff, 3, 3, 14, 1 };
		const uint8_t *os[] = { o1, o2, o3, o4, o5, o6, o7, o8, o9 };
		const size_t ns[] = { 4, 4, 4, 4, 4, 8, 4, 4, 8 };

		for (int v6 = 0; v6 < 2; v6++)
			for (size_t i = 0; i < 9; i++)
				for (int w = 0; w < 2; w++) {
					ip_start(&p, v6, A(v6), PUB(v6), 6);
					tcp(&p, (uint16_t)(47000 + i * 2 + w + v6 * 100), 9002, 77,
					    0, 0x02, w ? 65535 : 0, 0, os[i], ns[i], 0);
					send_p(&p);
				}
	}
}

static void b_urgent(void)
{
	static struct P p;
	static const uint16_t up[] = { 0, 1, 5, 6, 100, 65535 };

	for (int v6 = 0; v6 < 2; v6++) {
		struct live c;

		live_open(&c, v6);
		for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
			live_seg(&c, c.snd, c.rcv, 0x30, 1000, up[i], 0);
			live_seg(&c, c.snd + 100000, c.rcv, 0x38, 1000, up[i], 5);
		}
		live_close(&c, 1);
		for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++)
			for (int k = 0; k < 4; k++) {
				static const uint8_t fl[] = { 0x20, 0x30, 0x22, 0x38 };

				ip_start(&p, v6, A(v6), PUB(v6), 6);
				tcp(&p, (uint16_t)(48000 + i * 4 + (size_t)k), 9002, 1, 1, fl[k],
				    1000, up[i], (fl[k] & 2) ? SYNOPT : NULL,
				    (fl[k] & 2) ? sizeof(SYNOPT) : 0, (fl[k] & 8) ? 5 : 0);
				send_p(&p);
			}
	}
}

static void b_udp_lying(void)
{
	static struct P p;

	for (int v6 = 0; v6 < 2; v6++) {
		for (int ulen = 0; ulen < 8; ulen++) {
			ip_start(&p, v6, A(v6), PUB(v6), 17);
			udp(&p, (uint16_t)(49000 + ulen), MARK_PORT, "lying-udp", 9);
			put16(p.b + p.hl + 4, (uint32_t)ulen);
			l4_csum(&p, 6, p.l4n);
			send_p(&p);
		}
		/* One past the IP payload, 65535: checksummed over what is there. */
		static const uint32_t over[] = { 1, 65535 };
		for (int i = 0; i < 2; i++) {
			ip_start(&p, v6, A(v6), PUB(v6), 17);
			udp(&p, (uint16_t)(49010 + i), MARK_PORT, "lying-udp", 9);
			put16(p.b + p.hl + 4, i ? 65535 : (uint32_t)p.l4n + over[i]);
			l4_csum(&p, 6, p.l4n);
			send_p(&p);
		}
		/* Shorter than the payload: only "short" may be delivered. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 49020, MARK_PORT, "short-tail", 10);
		put16(p.b + p.hl + 4, 8 + 5);
		l4_csum(&p, 6, 8 + 5);
		send_p(&p);
		/* A wrong checksum. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 49021, MARK_PORT, "badsum", 6);
		p.b[p.hl + 6] ^= 0x55;
		send_p(&p);
		/* Checksum 0: "none" over IPv4 (delivered), forbidden over IPv6. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 49022, MARK_PORT, v6 ? "zerosum6" : "zerosum4", 8);
		p.b[p.hl + 6] = p.b[p.hl + 7] = 0;
		send_p(&p);
	}
}

/* An ICMP(v6) error of type/code quoting q (qn bytes). */
static void icmp_err(int v6, const uint8_t *dst, uint8_t type, uint8_t code, uint32_t extra,
		     const uint8_t *q, size_t qn)
{
	static struct P p;
	uint8_t *ih;

	ip_start(&p, v6, A(v6), dst, v6 ? 58 : 1);
	ih = p.b + p.hl;
	ih[0] = type;
	ih[1] = code;
	put32(ih + 4, extra);
	memcpy(ih + 8, q, qn);
	p.l4n = 8 + qn;
	ip_lengths(&p);
	l4_csum(&p, 2, p.l4n);
	send_p(&p);
}

static void b_icmp_errors(void)
{
	static struct P inner;
	static const uint8_t t4[][2] = { { 3, 3 },  { 3, 4 }, { 3, 13 }, { 11, 0 },
					 { 12, 0 }, { 5, 1 }, { 4, 0 } };
	static const uint8_t t6[][2] = { { 1, 4 }, { 1, 1 }, { 2, 0 },	{ 3, 0 },
					 { 4, 0 }, { 4, 1 }, { 137, 0 } };
	static const uint8_t fakesrc4[4] = { 8, 8, 8, 8 };

	for (int v6 = 0; v6 < 2; v6++) {
		struct live c;
		const uint8_t(*t)[2] = v6 ? t6 : t4;

		live_open(&c, v6);
		for (int i = 0; i < 7; i++) {
			for (int k = 0; k < 4; k++) {
				size_t qn;

				/*
				 * The inner packet: the live flow as the relay sees it (agent
				 * to public), its reverse, a flow that does not exist, and
				 * one from a forged source.
				 */
				if (k == 0 || k == 2) {
					ip_start(&inner, v6, A(v6), PUB(v6), 6);
					tcp(&inner, k ? 50000 : c.sport, 9002, c.snd, c.rcv, 0x10,
					    1000, 0, NULL, 0, 0);
				} else if (k == 1) {
					ip_start(&inner, v6, PUB(v6), A(v6), 6);
					tcp(&inner, 9002, c.sport, c.rcv, c.snd, 0x10, 1000, 0,
					    NULL, 0, 0);
				} else {
					ip_start(&inner, v6, v6 ? GW6 : fakesrc4, LAN(v6), 17);
					udp(&inner, 53, 22, "forged", 6);
				}
				qn = plen(&inner);
				for (size_t cut = 0; cut <= qn; cut += qn / 3 + 1) {
					icmp_err(v6, PUB(v6), t[i][0], t[i][1], 1280, inner.b, cut);
					icmp_err(v6, LAN(v6), t[i][0], t[i][1], 1280, inner.b, cut);
				}
				/* The inner packet's lengths lie. */
				put16(inner.b + (v6 ? 4 : 2), 65535);
				icmp_err(v6, PUB(v6), t[i][0], t[i][1], 0, inner.b, qn);
			}
		}
		live_close(&c, 1);
		/* Echo requests whose lengths lie, to the public target. */
		for (int k = 0; k < 3; k++) {
			static struct P p;
			uint8_t *ih;

			ip_start(&p, v6, A(v6), PUB(v6), v6 ? 58 : 1);
			ih = p.b + p.hl;
			ih[0] = v6 ? 128 : 8;
			put16(ih + 4, 0x4242);
			put16(ih + 6, (uint32_t)k);
			p.l4n = (size_t)(k == 0 ? 4 : 8 + 16);
			ip_lengths(&p);
			l4_csum(&p, 2, p.l4n);
			if (k == 2)
				put16(p.b + (v6 ? 4 : 2), (uint32_t)(p.l4n + (v6 ? 0 : p.hl) + 8));
			send_p(&p);
		}
	}
}

static void b_spoofed(void)
{
	static struct P p;
	static const uint8_t s4[][4] = {
		{ 10, 0, 2, 2 },     { 10, 0, 2, 3 }, { 10, 0, 2, 101 },      { 203, 0, 113, 1 },
		{ 203, 0, 113, 10 }, { 0, 0, 0, 0 },  { 255, 255, 255, 255 }, { 127, 0, 0, 1 },
		{ 10, 1, 0, 10 },    { 8, 8, 8, 8 },  { 10, 0, 2, 255 }
	};
	static uint8_t s6[7][16];

	inet_pton(AF_INET6, "::", s6[0]);
	inet_pton(AF_INET6, "::1", s6[1]);
	inet_pton(AF_INET6, "fd00::2", s6[2]);
	inet_pton(AF_INET6, "fe80::1", s6[3]);
	inet_pton(AF_INET6, "2001:db8:1::10", s6[4]);
	inet_pton(AF_INET6, "fd00::101", s6[5]);
	inet_pton(AF_INET6, "::ffff:10.0.2.100", s6[6]);
	for (int v6 = 0; v6 < 2; v6++) {
		size_t n = v6 ? 7 : sizeof(s4) / sizeof(s4[0]);

		for (size_t i = 0; i < n; i++) {
			const uint8_t *src = v6 ? s6[i] : s4[i];

			for (int d = 0; d < 2; d++) {
				const uint8_t *dst = d ? LAN(v6) : PUB(v6);
				uint16_t dp = d ? 22 : MARK_PORT;

				syn(&p, v6, src, dst, (uint16_t)(51000 + i), dp);
				send_p(&p);
				ip_start(&p, v6, src, dst, 17);
				udp(&p, (uint16_t)(51100 + i), dp, "spoofed", 7);
				send_p(&p);
				/* An ICMP echo with a forged source, too. */
				ip_start(&p, v6, src, dst, v6 ? 58 : 1);
				p.b[p.hl] = v6 ? 128 : 8;
				p.l4n = 8;
				ip_lengths(&p);
				l4_csum(&p, 2, 8);
				send_p(&p);
			}
		}
	}
}

/* ---- vnet: a virtio_net_hdr of the injector's choosing --------------------- */

static int vfd = -1;
static unsigned long nrefused;

/* hdr: flags, gso_type, hdr_len, gso_size, csum_start, csum_offset (host order). */
static void send_vnet(const struct P *p, uint8_t flags, uint8_t gso_type, uint16_t gso_size,
		      uint16_t csum_start, uint16_t csum_off)
{
	static uint8_t b[VNET_MAX];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex };
	uint16_t hdr_len = (uint16_t)(p->hl + 20);
	size_t n = plen(p);

	if (vfd < 0) {
		int one = 1;

		vfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_IP));
		if (vfd < 0)
			fail("socket(AF_PACKET)");
		if (setsockopt(vfd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
			fail("PACKET_VNET_HDR");
	}
	b[0] = flags;
	b[1] = gso_type;
	memcpy(b + 2, &hdr_len, 2);
	memcpy(b + 4, &gso_size, 2);
	memcpy(b + 6, &csum_start, 2);
	memcpy(b + 8, &csum_off, 2);
	memcpy(b + 10, p->b, n);
	sll.sll_protocol = htons(p->v6 ? ETH_P_IPV6 : ETH_P_IP);
	/*
	 * Refused by the kernel: a header it will not take (EINVAL), the TUN's
	 * ring full (ENOBUFS), or a packet it cannot segment for tun0
	 * (ENOMEM: dev_queue_xmit's answer when it drops the packet itself,
	 * which tun0, with no qdisc, reports to the sender; behind a qdisc the
	 * same drop happened later, silently). None reaches the relay.
	 */
	if (sendto(vfd, b, 10 + n, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		if (errno != EINVAL && errno != ENOBUFS && errno != ENOMEM)
			fail("sendto on tun0 with a virtio_net_hdr");
		nrefused++;
	}
	pace();
}

static void b_vnet(void)
{
	static struct P p;

	for (int v6 = 0; v6 < 2; v6++) {
		uint16_t l4 = v6 ? 40 : 20;
		uint8_t tcpv = v6 ? 4 : 1, other = v6 ? 1 : 4;

		/* DATA_VALID does not stand for a checksum: a wrong one is dropped. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 53000, MARK_PORT, "vnet-datavalid", 14);
		p.b[p.hl + 6] ^= 0x55;
		send_vnet(&p, 2, 0, 0, 0, 0);
		/* Partial checksums anywhere but at the datagram's own field. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 53001, MARK_PORT, "vnet-csum-in-ip-header", 22);
		send_vnet(&p, 1, 0, 0, (uint16_t)(l4 - 8), 6);
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 53002, MARK_PORT, "vnet-csum-at-tcp-field", 22);
		send_vnet(&p, 1, 0, 0, l4, 16);
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 53003, MARK_PORT, "vnet-csum-past-header", 22);
		send_vnet(&p, 1, 0, 0, (uint16_t)(l4 + 8), 0);
		syn(&p, v6, A(v6), PUB(v6), 53004, MARK_PORT);
		send_vnet(&p, 1, 0, 0, l4, 6);
		/*
		 * Segmentation of the wrong kind, or of none, on SYNs with 2,000
		 * bytes of data. The kernel may refuse these, segment them itself
		 * (into well-formed SYNs) or pass them on as they are: so they go
		 * to the LAN, which must see nothing, and to a closed public
		 * port, not to the marker port.
		 */
		for (int dst = 0; dst < 2; dst++) {
			const uint8_t *d = dst ? PUB(v6) : LAN(v6);
			uint16_t dp = dst ? 9999 : 80;
			const struct {
				uint8_t flags, type;
				uint16_t size;
			} G[] = {
				{ 1, other, 536 },
				{ 1, 3 /* UDP */, 536 },
				{ 1, 0x80 /* ECN alone */, 536 },
				{ 1, tcpv, 0 },
				{ 0, tcpv, 536 },
				{ 1, tcpv, 1 },
				{ 1, tcpv | 0x80, 7 },
			};

			for (size_t i = 0; i < sizeof(G) / sizeof(G[0]); i++) {
				ip_start(&p, v6, A(v6), d, 6);
				tcp(&p, (uint16_t)(53010 + i), dp, 1, 0, 0x02, 64240, 0, NULL, 0,
				    2000);
				send_vnet(&p, G[i].flags, G[i].type, G[i].size, G[i].flags ? l4 : 0,
					  G[i].flags ? 16 : 0);
			}
		}
		/* A datagram "segmented" as TCP: never to be sent on. */
		ip_start(&p, v6, A(v6), PUB(v6), 17);
		udp(&p, 53020, MARK_PORT, "vnet-udp-as-tcp-gso", 2000);
		send_vnet(&p, 1, tcpv, 100, l4, 6);
	}
}

static void mark(void)
{
	static struct P p;
	char m[64];
	int n = snprintf(m, sizeof(m), "mark %s", batch);

	/* Let the relay read the batch first: the mark must be the last. */
	usleep(200000);
	ip_start(&p, 0, A4, PUB4, 17);
	udp(&p, 52000, MARK_PORT, m, (size_t)n);
	send_p(&p);
}

static const struct {
	const char *name;
	void (*fn)(void);
} BATCHES[] = {
	{ "trunc4", NULL },
	{ "trunc6", NULL },
	{ "lying-lengths", b_lying },
	{ "ipopts", b_ipopts },
	{ "frags", b_frags },
	{ "ext6", b_ext6 },
	{ "tcpflags", b_tcpflags },
	{ "synflood", b_synflood },
	{ "unknown-acks", b_unknown_acks },
	{ "seq", b_seq },
	{ "windows", b_windows },
	{ "urgent", b_urgent },
	{ "udp-lying", b_udp_lying },
	{ "icmp-errors", b_icmp_errors },
	{ "spoofed-src", b_spoofed },
	{ "vnet", b_vnet },
};

int main(int argc, char **argv)
{
	size_t i, n = sizeof(BATCHES) / sizeof(BATCHES[0]);

	if (argc != 2) {
		fprintf(stderr, "usage: otonet_inject BATCH\n");
		return 1;
	}
	batch = argv[1];
	for (i = 0; i < n && strcmp(BATCHES[i].name, batch); i++)
		;
	if (i == n) {
		fprintf(stderr, "otonet_inject: unknown batch %s\n", batch);
		return 1;
	}
	inet_pton(AF_INET6, "fd00::100", A6);
	inet_pton(AF_INET6, "fd00::2", GW6);
	inet_pton(AF_INET6, "2001:db8:1::10", PUB6);
	inet_pton(AF_INET6, "fd12:3456::10", LAN6);
	ifindex = (int)if_nametoindex("tun0");
	if (!ifindex)
		fail("tun0");
	pfd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));
	if (pfd < 0)
		fail("socket(AF_PACKET) (needs CAP_NET_RAW over the namespace)");
	if (i == 0)
		b_trunc(0);
	else if (i == 1)
		b_trunc(1);
	else
		BATCHES[i].fn();
	mark();
	printf("%s %lu\n", batch, nsent);
	if (nrefused)
		fprintf(stderr, "otonet_inject %s: the kernel refused %lu of them\n", batch,
			nrefused);
	return 0;
}
