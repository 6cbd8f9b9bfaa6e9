// FUZZ: cmd/otonet/pkt.c cmd/otonet/filter.c lib/cidr.c lib/opt.c
/* Packets from the TUN are the agent's: parse anything, answer without a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "cidr.h"
#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[NET_MTU + 128];
	static struct filter f;
	struct pkt p;
	struct decision d;

	if (pkt_parse(data, size, &p) < 0)
		return 0;
	/* What the relay does with a parsed packet, short of sockets. */
	if (p.iplen > size || p.dlen > size || (p.data && (p.data < data || p.data + p.dlen > data + size)))
		__builtin_trap();
	filter_decide(&f, p.proto, &p.dst, p.dport, &d);
	(void)cidr_special(&p.dst);
	pkt_icmp_err(out, sizeof(out), &p.dst, p.ip, p.iplen, p.proto == PROTO_UDP);
	if (p.proto == PROTO_TCP)
		pkt_tcp(out, &p.dst, &p.src, p.dport, p.sport, p.ack, p.seq + 1, TH_RST | TH_ACK, 0, 0);
	if (p.proto == PROTO_UDP && p.dlen <= NET_MTU - 48) {
		memcpy(out + pkt_l4_off(p.family) + 8, p.data, p.dlen);
		pkt_udp(out, &p.dst, &p.src, p.dport, p.sport, p.dlen);
	}
	return 0;
}
