/* SPDX-License-Identifier: ISC */
/*
 * The relay's flow table: a flow is one of the agent's TCP connections, UDP
 * exchanges or echo sequences, with the host socket that carries it. Slots
 * are allocated once (--max-flows of them); a hash of the agent-side address
 * and ports finds a flow from a packet, the slot and its generation from an
 * epoll event.
 */
#ifndef OTONET_FLOW_H
#define OTONET_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "otonet.h"

struct relay;

enum { ST_CONNECTING = 1, ST_SYNACK, ST_EST };

struct flow {
	int proto; /* 0: free */
	int fd;
	uint32_t gen; /* told apart from an earlier flow in the same slot */
	int next; /* hash chain, -1 ends */
	struct ipaddr asrc, adst;
	uint16_t sport, dport;
	uint32_t events;
	uint64_t last; /* ms, last activity */
	uint64_t born;
	int dns;
	/* TCP, agent side: we are the peer the agent believes it talks to. */
	int st;
	uint32_t iss, snd_nxt, snd_una, rcv_nxt;
	uint32_t agent_wnd;
	int agent_ws, my_ws;
	uint32_t seg; /* segment size towards the agent */
	int dup, retries;
	uint64_t rto_at;
	unsigned int rto;
	unsigned int agent_fin : 1, fin_sent : 1, fin_acked : 1, wr_blocked : 1, ack_pending : 1;
	/*
	 * The host socket was too full to count as writable when the window
	 * was measured: EPOLLOUT is watched (the poll that adds it arms the
	 * socket's wake-up), and when the socket drains a window update goes
	 * out, so the agent does not sit, window closed, until its next probe.
	 * adv_edge: the right edge of the window last advertised.
	 */
	unsigned int drain_watch : 1;
	uint32_t adv_edge;
	/*
	 * wnd_at: rcv_nxt when the window was last measured. The host socket's
	 * room shrinks only with the agent's data: until rcv_nxt moves (or the
	 * socket drains, or takes less than it was given), the last window
	 * stands and is not measured again. wnd_ok: wnd_at is valid.
	 */
	unsigned int wnd_ok : 1;
	uint32_t wnd_at;
	/* Without SO_PEEK_OFF: sbuf[sboff, sboff + sblen) is sequence snd_una on. */
	unsigned int buffered : 1, host_eof : 1, sbuf_wait : 1;
	uint8_t *sbuf;
	uint32_t sboff, sblen;
	/* UDP: the start of the last datagram, to quote in an ICMP error. */
	uint8_t quote[64];
	size_t quotelen;
	/* TCP: its slot in sends[] + 1 while the agent's data waits there; 0 none. */
	int send_slot;
};

/*
 * The flow table: flows[] holds max_flows slots, free ones chained from
 * free_head; heads[] the hash chains of the used ones.
 */
struct flow_table {
	struct flow *flows;
	int *heads;
	unsigned int hmask;
	int free_head;
	unsigned long nused, nhalf, nudp, nsbuf;
	/* Slots at and past this one were never used: the timers look no further. */
	unsigned long nscan;
	/* When each bound's warning was last printed (over_bound). */
	uint64_t warned[3];
};

/* A table of max slots, all free. -1/ENOMEM. */
int flow_table_init(struct flow_table *t, unsigned long max);
/* The flow of the agent's packet p, or NULL. */
struct flow *flow_find(struct relay *r, const struct pkt *p);
/*
 * A new flow for p: the filter decides (and the decision is logged), the
 * bounds are checked, a host socket of type (SOCK_STREAM, SOCK_DGRAM) and
 * protocol sproto is opened and connected (in progress) to the flow's host
 * side. NULL when refused or impossible.
 */
struct flow *flow_open(struct relay *r, const struct pkt *p, int type, int sproto);
/* f's host socket watched for events (epoll), tagged with f's slot and generation. */
int flow_watch(struct relay *r, struct flow *f, uint32_t events);
/* f's host socket closed, its slot free again. */
void flow_free(struct relay *r, struct flow *f);
/* Every flow's timers: idle timeouts, retransmissions (every 50 ms or so). */
void flow_timers(struct relay *r);

#endif
