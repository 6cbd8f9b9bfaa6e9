// FUZZ: cmd/otonet/pkt.c cmd/otonet/filter.c lib/cidr.c lib/opt.c
/* Packets from the TUN are the agent's: parse anything, answer without a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "cidr.h"
#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Random bytes almost never carry valid checksums, so half the inputs get
 * theirs fixed first: the fuzzer then reaches the option and length parsing
 * behind the checksum checks.
 */
static void fix_checksums(uint8_t *b, size_t n)
{
	size_t hl, l4len;
	int v6, nh;
	uint16_t ck;

	if (n < 20)
		return;
	v6 = b[0] >> 4 == 6;
	if (v6) {
		if (n < 40)
			return;
		hl = 40;
		l4len = (size_t)(b[4] << 8 | b[5]);
		nh = b[6];
	} else {
		hl = (size_t)(b[0] & 0xf) * 4;
		if (hl < 20 || hl > n)
			return;
		b[10] = b[11] = 0;
		ck = pkt_csum(b, hl, 0);
		memcpy(b + 10, &ck, 2);
		l4len = (size_t)(b[2] << 8 | b[3]);
		if (l4len < hl)
			return;
		l4len -= hl;
		nh = b[9];
	}
	if (hl + l4len > n)
		return;
	uint8_t *l4 = b + hl;
	size_t off = nh == PROTO_TCP ? 16 : nh == PROTO_UDP ? 6 : 2;
	uint8_t ph[40];
	size_t phl = 0;

	if (l4len < off + 2)
		return;
	if (nh == PROTO_UDP && l4len >= 8)
		l4len =
		    (size_t)(l4[4] << 8 | l4[5]) <= l4len ? (size_t)(l4[4] << 8 | l4[5]) : l4len;
	if (nh != PROTO_ICMP) {
		size_t al = v6 ? 16 : 4;

		memcpy(ph, b + (v6 ? 8 : 12), al);
		memcpy(ph + al, b + (v6 ? 24 : 16), al);
		if (v6) {
			memset(ph + 32, 0, 8);
			ph[34] = (uint8_t)(l4len >> 8);
			ph[35] = (uint8_t)l4len;
			ph[39] = (uint8_t)nh;
			phl = 40;
		} else {
			ph[8] = 0;
			ph[9] = (uint8_t)nh;
			ph[10] = (uint8_t)(l4len >> 8);
			ph[11] = (uint8_t)l4len;
			phl = 12;
		}
	}
	l4[off] = l4[off + 1] = 0;
	{
		/* The sum of the pseudo header, then of l4, as pkt_csum folds them. */
		uint16_t a = (uint16_t)~pkt_csum(ph, phl, 0);

		ck = pkt_csum(l4, l4len, a);
	}
	memcpy(l4 + off, &ck, 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[NET_MTU + 128], in[NET_MTU + 128];
	static struct filter f;
	struct pkt p;
	struct decision d;

	if (size > NET_MTU)
		return 0;
	memcpy(in, data, size);
	if (size && (data[size - 1] & 1))
		fix_checksums(in, size);
	data = in;
	/* The same bytes read as the TUN gives them: a virtio_net_hdr first. */
	if (pkt_parse_vnet(data, size, &p) == 0 &&
	    (p.ip != data + VNET_HLEN || p.iplen > size - VNET_HLEN ||
	     (p.data && (p.data < p.ip || p.data + p.dlen > data + size))))
		__builtin_trap();
	if (pkt_parse(data, size, &p) < 0)
		return 0;
	/* What the relay does with a parsed packet, short of sockets. */
	if (p.iplen > size || p.dlen > size ||
	    (p.data && (p.data < data || p.data + p.dlen > data + size)))
		__builtin_trap();
	filter_decide(&f, p.proto, &p.dst, p.dport, &d);
	(void)cidr_special(&p.dst);
	pkt_icmp_err(out, sizeof(out), &p.dst, p.ip, p.iplen, p.proto == PROTO_UDP);
	if (p.proto == PROTO_TCP)
		pkt_tcp(out, &p.dst, &p.src, p.dport, p.sport, p.ack, p.seq + 1, TH_RST | TH_ACK, 0,
			0);
	if (p.proto == PROTO_UDP && p.dlen <= NET_MTU - 48) {
		memcpy(out + pkt_l4_off(p.family) + 8, p.data, p.dlen);
		pkt_udp(out, &p.dst, &p.src, p.dport, p.sport, p.dlen);
	}
	return 0;
}
