/* SPDX-License-Identifier: ISC */
/*
 * Packets on the TUN. Everything read from it was written by the agent's
 * kernel on the agent's behalf, which means by the agent: every length is
 * checked against what was actually read before it is used, fragments, IPv4
 * options and IPv6 extension headers are dropped, checksums are verified.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "be.h"
#include "otonet.h"

static uint64_t sum_raw(const uint8_t *p, size_t len, uint64_t acc)
{
	while (len >= 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		acc += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, p, 2);
		acc += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		uint8_t t[2] = { *p, 0 };
		uint16_t w;

		memcpy(&w, t, 2);
		acc += w;
	}
	return acc;
}

static uint16_t fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

/* The one's complement checksum in memory order: store it with memcpy. */
uint16_t pkt_csum(const void *data, size_t len, uint32_t sum)
{
	return fold(sum_raw(data, len, sum));
}

static uint64_t pseudo(int family, const uint8_t *src, const uint8_t *dst, int proto, size_t len)
{
	uint8_t ph[40];
	size_t n;

	if (family == AF_INET) {
		memcpy(ph, src, 4);
		memcpy(ph + 4, dst, 4);
		ph[8] = 0;
		ph[9] = (uint8_t)proto;
		be16_put(ph + 10, (uint16_t)len);
		n = 12;
	} else {
		memcpy(ph, src, 16);
		memcpy(ph + 16, dst, 16);
		be32_put(ph + 32, (uint32_t)len);
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = (uint8_t)proto;
		n = 40;
	}
	return sum_raw(ph, n, 0);
}

static int parse_tcp_opts(const uint8_t *o, size_t n, struct pkt *p)
{
	size_t i = 0;

	while (i < n) {
		uint8_t kind = o[i], len;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n)
			return -1;
		len = o[i + 1];
		if (len < 2 || i + len > n)
			return -1;
		if (kind == 2) {
			if (len != 4)
				return -1;
			p->mss = be16_get(o + i + 2);
		} else if (kind == 3) {
			if (len != 3)
				return -1;
			p->wscale = o[i + 2] > 14 ? 14 : o[i + 2];
		}
		i += len;
	}
	return 0;
}

/*
 * partial: the L4 checksum is the sender's "partial" one (only the
 * pseudo-header summed, the rest left to the receiver, VIRTIO_NET_HDR_F_
 * NEEDS_CSUM): it is not checked, as there is no wire between the agent's
 * kernel and the relay that could have changed the packet.
 */
static int parse_ip(const uint8_t *buf, size_t len, struct pkt *p, int partial)
{
	const uint8_t *l4;
	size_t l4len, hl;
	int nh;

	memset(p, 0, sizeof(*p));
	p->wscale = -1;
	if (len < 1)
		return -1;
	if (buf[0] >> 4 == 4) {
		size_t tot;

		if (len < 20)
			return -1;
		hl = (size_t)(buf[0] & 0xf) * 4;
		tot = be16_get(buf + 2);
		/*
		 * Options are dropped as IPv6 extension headers are: the relay
		 * would ignore a source route or a lying option length, and the
		 * agent's kernel sends none unless asked to.
		 */
		if (hl != 20 || tot < hl || tot > len)
			return -1;
		if (be16_get(buf + 6) & 0x3fff) /* MF or an offset: a fragment */
			return -1;
		if (pkt_csum(buf, hl, 0) != 0)
			return -1;
		p->family = AF_INET;
		p->src.family = p->dst.family = AF_INET;
		memcpy(p->src.a, buf + 12, 4);
		memcpy(p->dst.a, buf + 16, 4);
		nh = buf[9];
		l4 = buf + hl;
		l4len = tot - hl;
		p->iplen = tot;
	} else if (buf[0] >> 4 == 6) {
		if (len < 40)
			return -1;
		l4len = be16_get(buf + 4);
		if (l4len + 40 > len)
			return -1;
		p->family = AF_INET6;
		p->src.family = p->dst.family = AF_INET6;
		memcpy(p->src.a, buf + 8, 16);
		memcpy(p->dst.a, buf + 24, 16);
		/* No extension headers: the agent's kernel never needs one here. */
		nh = buf[6];
		l4 = buf + 40;
		p->iplen = 40 + l4len;
	} else {
		return -1;
	}
	p->ip = buf;
	if (nh == PROTO_TCP) {
		size_t doff;

		if (l4len < 20)
			return -1;
		doff = (size_t)(l4[12] >> 4) * 4;
		if (doff < 20 || doff > l4len)
			return -1;
		if (!partial &&
		    fold(sum_raw(l4, l4len, pseudo(p->family, p->src.a, p->dst.a, nh, l4len))) != 0)
			return -1;
		p->proto = PROTO_TCP;
		p->sport = be16_get(l4);
		p->dport = be16_get(l4 + 2);
		p->seq = be32_get(l4 + 4);
		p->ack = be32_get(l4 + 8);
		p->flags = l4[13] & 0x1f;
		p->win = be16_get(l4 + 14);
		if (parse_tcp_opts(l4 + 20, doff - 20, p) < 0)
			return -1;
		p->data = l4 + doff;
		p->dlen = l4len - doff;
	} else if (nh == PROTO_UDP) {
		size_t ulen;
		uint16_t ck;

		if (l4len < 8)
			return -1;
		ulen = be16_get(l4 + 4);
		if (ulen < 8 || ulen > l4len)
			return -1;
		ck = be16_get(l4 + 6);
		/* A zero UDP checksum means "none" over IPv4 only. */
		if (!partial && (ck || p->family == AF_INET6) &&
		    fold(sum_raw(l4, ulen, pseudo(p->family, p->src.a, p->dst.a, nh, ulen))) != 0)
			return -1;
		p->proto = PROTO_UDP;
		p->sport = be16_get(l4);
		p->dport = be16_get(l4 + 2);
		p->data = l4 + 8;
		p->dlen = ulen - 8;
	} else if ((nh == PROTO_ICMP && p->family == AF_INET) ||
		   (nh == PROTO_ICMP6 && p->family == AF_INET6)) {
		uint64_t ps =
		    p->family == AF_INET6 ? pseudo(AF_INET6, p->src.a, p->dst.a, nh, l4len) : 0;

		/* No partial checksum for ICMP: the kernel never offloads it. */
		if (partial || l4len < 8 || fold(sum_raw(l4, l4len, ps)) != 0)
			return -1;
		/* Only echo requests: everything else stays inside the sandbox. */
		if (l4[1] != 0 || l4[0] != (p->family == AF_INET ? 8 : 128))
			return -1;
		p->proto = PROTO_ICMP;
		p->sport = be16_get(l4 + 4);
		p->echo_seq = be16_get(l4 + 6);
		p->data = l4 + 8;
		p->dlen = l4len - 8;
	} else {
		return -1;
	}
	return 0;
}

int pkt_parse(const uint8_t *buf, size_t len, struct pkt *p)
{
	return parse_ip(buf, len, p, 0);
}

static uint16_t getle16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void putle16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/*
 * struct virtio_net_hdr as the TUN reads and writes it (little-endian fields
 * on every architecture the relay runs on; TUNSETVNETLE is not used):
 * flags, gso_type, hdr_len, gso_size, csum_start, csum_offset.
 */
enum {
	VH_FLAGS = 0,
	VH_GSO_TYPE = 1,
	VH_HDR_LEN = 2,
	VH_GSO_SIZE = 4,
	VH_CSUM_START = 6,
	VH_CSUM_OFF = 8
};
#define VH_NEEDS_CSUM 1
#define VH_DATA_VALID 2
#define VH_GSO_TCPV4  1
#define VH_GSO_TCPV6  4
#define VH_GSO_ECN    0x80

int pkt_parse_vnet(const uint8_t *buf, size_t len, struct pkt *p)
{
	unsigned int flags, gso, csum_start, csum_off;
	int partial;

	if (len < VNET_HLEN)
		return -1;
	flags = buf[VH_FLAGS];
	gso = buf[VH_GSO_TYPE] & ~VH_GSO_ECN;
	csum_start = getle16(buf + VH_CSUM_START);
	csum_off = getle16(buf + VH_CSUM_OFF);
	if (flags & ~(VH_NEEDS_CSUM | VH_DATA_VALID))
		return -1;
	if ((buf[VH_GSO_TYPE] & VH_GSO_ECN) && !gso)
		return -1;
	partial = flags & VH_NEEDS_CSUM;
	if (parse_ip(buf + VNET_HLEN, len - VNET_HLEN, p, partial) < 0)
		return -1;
	/* A partial checksum must be the one of this very TCP or UDP header. */
	if (partial &&
	    (csum_start != pkt_l4_off(p->family) || csum_off != (p->proto == PROTO_TCP ? 16U : 6U)))
		return -1;
	/* Segmentation left undone: TCP only, of the packet's own family. */
	if (gso) {
		if (!partial || p->proto != PROTO_TCP ||
		    gso != (p->family == AF_INET ? VH_GSO_TCPV4 : VH_GSO_TCPV6) ||
		    !getle16(buf + VH_GSO_SIZE) || getle16(buf + VH_HDR_LEN) > len - VNET_HLEN)
			return -1;
	} else if (getle16(buf + VH_GSO_SIZE)) {
		return -1;
	}
	return 0;
}

void pkt_vnet(uint8_t *vh, const uint8_t *pkt, size_t dlen, uint16_t gso_size)
{
	int v6 = pkt[0] >> 4 == 6;
	size_t off = pkt_l4_off(v6 ? AF_INET6 : AF_INET);

	memset(vh, 0, VNET_HLEN);
	vh[VH_FLAGS] = VH_NEEDS_CSUM;
	putle16(vh + VH_CSUM_START, (uint16_t)off);
	putle16(vh + VH_CSUM_OFF, 16);
	if (gso_size && dlen > gso_size) {
		vh[VH_GSO_TYPE] = v6 ? VH_GSO_TCPV6 : VH_GSO_TCPV4;
		putle16(vh + VH_HDR_LEN, (uint16_t)(off + 20));
		putle16(vh + VH_GSO_SIZE, gso_size);
	}
}

size_t pkt_l4_off(int family)
{
	return family == AF_INET ? 20 : 40;
}

/* The IP header in front of an l4 of l4len bytes; returns the header size. */
static size_t ip_hdr(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, int proto,
		     size_t l4len)
{
	if (src->family == AF_INET) {
		uint16_t ck;

		buf[0] = 0x45;
		buf[1] = 0;
		be16_put(buf + 2, (uint16_t)(20 + l4len));
		be16_put(buf + 4, 0);
		be16_put(buf + 6, 0x4000); /* DF */
		buf[8] = 64;
		buf[9] = (uint8_t)proto;
		be16_put(buf + 10, 0);
		memcpy(buf + 12, src->a, 4);
		memcpy(buf + 16, dst->a, 4);
		ck = pkt_csum(buf, 20, 0);
		memcpy(buf + 10, &ck, 2);
		return 20;
	}
	be32_put(buf, 0x60000000);
	be16_put(buf + 4, (uint16_t)l4len);
	buf[6] = (uint8_t)proto;
	buf[7] = 64;
	memcpy(buf + 8, src->a, 16);
	memcpy(buf + 24, dst->a, 16);
	return 40;
}

static void l4_csum(uint8_t *l4, size_t l4len, int off, const struct ipaddr *src,
		    const struct ipaddr *dst, int proto)
{
	uint64_t ps = (proto == PROTO_ICMP) ? 0 : pseudo(src->family, src->a, dst->a, proto, l4len);
	uint16_t ck;

	l4[off] = l4[off + 1] = 0;
	ck = fold(sum_raw(l4, l4len, ps));
	if (proto == PROTO_UDP && ck == 0)
		ck = 0xffff;
	memcpy(l4 + off, &ck, 2);
}

static size_t tcp_common(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst,
			 uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
			 uint16_t win, const uint8_t *opts, size_t optlen, size_t dlen, int partial)
{
	size_t off = pkt_l4_off(src->family), thl = 20 + optlen, l4len = thl + dlen;
	uint8_t *th = buf + off;

	ip_hdr(buf, src, dst, PROTO_TCP, l4len);
	be16_put(th, sport);
	be16_put(th + 2, dport);
	be32_put(th + 4, seq);
	be32_put(th + 8, ack);
	th[12] = (uint8_t)((thl / 4) << 4);
	th[13] = flags;
	be16_put(th + 14, win);
	be16_put(th + 18, 0);
	if (optlen)
		memcpy(th + 20, opts, optlen);
	if (partial) {
		/* The pseudo-header's sum, not inverted: the receiver adds the rest. */
		uint16_t ck =
		    (uint16_t)~fold(pseudo(src->family, src->a, dst->a, PROTO_TCP, l4len));

		memcpy(th + 16, &ck, 2);
	} else {
		l4_csum(th, l4len, 16, src, dst, PROTO_TCP);
	}
	return off + l4len;
}

size_t pkt_tcp(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
	       uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win, size_t dlen)
{
	return tcp_common(buf, src, dst, sport, dport, seq, ack, flags, win, NULL, 0, dlen, 0);
}

size_t pkt_tcp_partial(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst,
		       uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
		       uint16_t win, size_t dlen)
{
	return tcp_common(buf, src, dst, sport, dport, seq, ack, flags, win, NULL, 0, dlen, 1);
}

size_t pkt_synack(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
		  uint16_t dport, uint32_t seq, uint32_t ack, uint16_t win, uint16_t mss,
		  int wscale)
{
	uint8_t o[8] = { 2, 4, (uint8_t)(mss >> 8), (uint8_t)mss, 1, 3, 3, (uint8_t)wscale };

	return tcp_common(buf, src, dst, sport, dport, seq, ack, TH_SYN | TH_ACK, win, o,
			  wscale >= 0 ? 8 : 4, 0, 0);
}

size_t pkt_udp(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
	       uint16_t dport, size_t dlen)
{
	size_t off = pkt_l4_off(src->family);
	uint8_t *uh = buf + off;

	ip_hdr(buf, src, dst, PROTO_UDP, 8 + dlen);
	be16_put(uh, sport);
	be16_put(uh + 2, dport);
	be16_put(uh + 4, (uint16_t)(8 + dlen));
	l4_csum(uh, 8 + dlen, 6, src, dst, PROTO_UDP);
	return off + 8 + dlen;
}

size_t pkt_echo_reply(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t id,
		      uint16_t seq, size_t dlen)
{
	size_t off = pkt_l4_off(src->family);
	uint8_t *ih = buf + off;
	int proto = src->family == AF_INET ? PROTO_ICMP : PROTO_ICMP6;

	ip_hdr(buf, src, dst, proto, 8 + dlen);
	ih[0] = src->family == AF_INET ? 0 : 129;
	ih[1] = 0;
	be16_put(ih + 4, id);
	be16_put(ih + 6, seq);
	l4_csum(ih, 8 + dlen, 2, src, dst, proto);
	return off + 8 + dlen;
}

size_t pkt_icmp_err(uint8_t *buf, size_t size, const struct ipaddr *src, const uint8_t *orig,
		    size_t origlen, int unreach_port)
{
	struct ipaddr dst = { .family = src->family };
	size_t off = pkt_l4_off(src->family);
	/* RFC 1812 / RFC 4443: as much of the original as fits 576 / 1280 bytes. */
	size_t max = src->family == AF_INET ? 576 : 1280;
	uint8_t *ih = buf + off;
	int proto = src->family == AF_INET ? PROTO_ICMP : PROTO_ICMP6;

	if (size < max || origlen < off)
		return 0;
	memcpy(dst.a, orig + (src->family == AF_INET ? 12 : 8), src->family == AF_INET ? 4 : 16);
	if (origlen > max - off - 8)
		origlen = max - off - 8;
	memmove(ih + 8, orig, origlen);
	ip_hdr(buf, src, &dst, proto, 8 + origlen);
	if (src->family == AF_INET) {
		ih[0] = 3;
		ih[1] = unreach_port ? 3 : 13;
	} else {
		ih[0] = 1;
		ih[1] = unreach_port ? 4 : 1;
	}
	memset(ih + 4, 0, 4);
	l4_csum(ih, 8 + origlen, 2, src, &dst, proto);
	return off + 8 + origlen;
}
