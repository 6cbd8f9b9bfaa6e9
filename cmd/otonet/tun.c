/* SPDX-License-Identifier: ISC */
/*
 * The TUN, the agent's side. Its packets are read in batches (tun_input):
 * each, from the agent's own address only, goes to its protocol's input,
 * and at the batch's end the agent's data gathered for the host sockets is
 * sent (tcp_sends_flush) and one ACK goes out per flow (tcp_acks_flush).
 * A packet for the agent is built in obuf and written behind its
 * virtio_net_hdr (vnet).
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

/* obuf's n bytes, behind a header that asks for nothing (the packet is complete). */
void tun_write(struct relay *r, size_t n)
{
	memset(r->vnet, 0, VNET_HLEN);
	if (n && r->sys->write(r->tun, r->vnet, VNET_HLEN + n) < 0)
		log_msg(LOG_DEBUG, errno, "relay: unable to write a packet to the TUN");
}

/* obuf's n bytes behind the header pkt_vnet wrote. */
void tun_write_offload(struct relay *r, size_t n)
{
	if (r->sys->write(r->tun, r->vnet, VNET_HLEN + n) < 0)
		log_msg(LOG_DEBUG, errno, "relay: unable to write a packet to the TUN");
}

/* The agent's own address, 10.0.2.100 or fd00::100: the only source relayed. */
static int agent_addr_ok(const struct pkt *p)
{
	static const uint8_t A4[4] = { 10, 0, 2, 100 };
	static const uint8_t A6[16] = { 0xfd, [14] = 0x01, [15] = 0x00 };

	if (p->family == AF_INET)
		return !memcmp(p->src.a, A4, 4);
	return !memcmp(p->src.a, A6, 16);
}

static void tun_batch(struct relay *r)
{
	size_t used = 0;

	/* Up to 256 packets, while the batch has room for one more of any size. */
	for (int i = 0; i < 256 && used + BUFSZ <= BATCH_BYTES; i++) {
		uint8_t *at = r->batch + used;
		ssize_t n = r->sys->read(r->tun, at, BUFSZ);
		struct pkt p;

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				/* The sandbox's namespace is gone: nothing more to relay. */
				r->sys->epoll_ctl(r->ep, EPOLL_CTL_DEL, r->tun, NULL);
			}
			return;
		}
		/* Only the agent's own address: no spoofed flows, no reflections. */
		if (pkt_parse_vnet(at, (size_t)n, &p) < 0 || !agent_addr_ok(&p))
			continue;
		/* Kept, 16-byte aligned, only if it may be gathered (TCP data). */
		if (p.proto == PROTO_TCP && p.dlen)
			used += ((size_t)n + 15) & ~(size_t)15;
		r->now = relay_clock_ms(r);
		if (p.proto == PROTO_TCP)
			tcp_input(r, &p);
		else
			dgram_input(r, &p);
	}
}

void tun_input(struct relay *r)
{
	tun_batch(r);
	tcp_sends_flush(r);
	tcp_acks_flush(r);
}
