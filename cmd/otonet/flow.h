/* SPDX-License-Identifier: ISC */
/*
 * The relay's flow table: a flow is one of the agent's TCP connections, UDP
 * exchanges or echo sequences, with the host socket that carries it. Slots
 * are allocated once (--max-flows of them); a hash of the agent-side address
 * and ports finds a flow from a packet, the slot and its generation from an
 * epoll event. None of its functions exits (relay.h).
 */
#ifndef OTONET_FLOW_H
#define OTONET_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "otonet.h"

struct relay;
struct name_hold;

/*
 * What a slot holds. A flow is born in its protocol's first state
 * (flow_open), moves on only by flow_set_state, which keeps the counts the
 * bounds are checked against, and ends FREE (flow_free). An event or a
 * timer finds a FREE slot for a flow that is gone: it is skipped.
 */
enum flow_state {
	FLOW_FREE,	      /* in the free list */
	FLOW_TCP_ASKING,      /* the agent's SYN held, the decider asked (ask.c); no host socket */
	FLOW_TCP_CONNECTING,  /* the agent's SYN: connect() to the host under way */
	FLOW_TCP_SYNACK,      /* the host accepted; our SYN-ACK out, the agent's ACK awaited */
	FLOW_TCP_ESTABLISHED, /* data both ways; a close is in the FIN flags */
	FLOW_UDP,	      /* a connected UDP socket, until idle */
	FLOW_ECHO,	      /* a ping socket, until idle */
	FLOW_NUM_STATES
};
/* Each state's name, for messages; its size is checked against FLOW_NUM_STATES. */
extern const char *const flow_state_name[];

/*
 * What a function that may end a flow did with it. After FLOW_FREED the
 * caller touches the flow no more: its slot is FREE, and may be taken by a
 * new flow before long.
 */
enum flow_fate { FLOW_KEPT, FLOW_FREED };

/*
 * Where a flow's host side goes, as flow_open decides from the filter's
 * verdict: to the agent's own destination; for DNS to the sandbox's
 * resolver address, to the host's resolver; for a gateway port on
 * 10.0.2.4 or fd00::4, to otogate (OTO_GATEWAY), as one end of a socket
 * pair whose other end goes to the gateway. The route gives the host
 * socket's address (flow.c, route_host) or, for the gateway, the socket
 * itself (gateway.c, gateway_socket); a new way out for flows is a new route.
 * ROUTE_LOCAL: the relay's own answer (a 403 to a request a name rule
 * refused, namecheck.c), one end of a socket pair holding it, then EOF.
 */
enum flow_route { ROUTE_DIRECT, ROUTE_DNS, ROUTE_GATEWAY, ROUTE_LOCAL };

struct flow {
	enum flow_state state;
	int proto; /* PROTO_TCP, PROTO_UDP, PROTO_ICMP: part of the key */
	int fd;
	uint32_t gen; /* told apart from an earlier flow in the same slot */
	int next;     /* hash chain, -1 ends */
	struct ipaddr asrc, adst;
	uint16_t sport, dport;
	uint32_t events;
	uint64_t last; /* ms, last activity */
	uint64_t born;
	enum flow_route route;
	/* TCP, agent side: we are the peer the agent believes it talks to. */
	uint32_t iss, snd_nxt, snd_una, rcv_nxt;
	uint32_t agent_wnd;
	int agent_ws, my_ws;
	uint32_t seg;  /* segment size towards the agent */
	uint16_t rmss; /* the segment size offered to the agent (SYN-ACK): what it sends us */
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
	/*
	 * With it: the last peek found nothing (EAGAIN), and neither EPOLLIN
	 * (edge-triggered: every arrival) nor a rewind has come since, so a
	 * flush asks the socket nothing. An upload's every ACK from the agent
	 * flushed, and each peek failed: a system call per segment.
	 */
	unsigned int host_dry : 1;
	uint8_t *sbuf;
	uint32_t sboff, sblen;
	/* UDP: the start of the last datagram, to quote in an ICMP error. */
	uint8_t quote[64];
	size_t quotelen;
	/* TCP: its slot in sends[] + 1 while the agent's data waits there; 0 none. */
	int send_slot;
	/*
	 * A name allowed the flow (--no-public): what the agent sends is judged
	 * before the host sees it (namecheck.c): nphase (enum name_phase), the
	 * bytes held (NULL: none), since when a decision is awaited (ms, 0:
	 * none), the requests followed on plain HTTP. DNS over TCP: sbuf's
	 * first dns_ready bytes are whole answers, filtered; only they go to
	 * the agent.
	 */
	unsigned char nphase;
	/*
	 * A flow to a transparent grant's host (names_gate): gate_ix is the
	 * grant's index + 1 (0: none) while its ClientHello is awaited, and
	 * gate_after what it follows when the hello names another host (enum
	 * gate_after, relay.h); gate_peer the other end + 1 of the socket pair
	 * standing for the host side of one no rule allows otherwise (0: none).
	 */
	unsigned char gate_ix, gate_after;
	int gate_peer;
	struct name_hold *hold;
	uint64_t undecided_at;
	struct http_follow follow;
	uint32_t dns_ready;
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
	unsigned long max;
	/* Flows in each state (FLOW_FREE: free slots). */
	unsigned long count[FLOW_NUM_STATES];
	/* Buffers of the TCP flows on the buffered path (without SO_PEEK_OFF). */
	unsigned long nsbuf;
	/* Slots at and past this one were never used: the timers look no further. */
	unsigned long nscan;
	/* When each bound's warning was last printed (over_bound). */
	uint64_t warned[3];
};

/* Allocates a table of max slots, all free. Returns 0, or -1 with errno ENOMEM. */
int flow_table_init(struct flow_table *t, unsigned long max);
/* Frees the table's memory (the flows' sockets are not closed). */
void flow_table_fini(struct flow_table *t);
/*
 * Finds the flow of the agent's packet p by its protocol, addresses and
 * ports. Returns it, or NULL. Pure.
 */
struct flow *flow_find(struct relay *r, const struct pkt *p);
/*
 * Opens a new flow for p, as admission's verdict says (admit.c: the
 * filter, the names, the decider, the bounds; logged there). The flow
 * starts in its protocol's first state, with a host socket by its route:
 * one connecting to the host (in progress), or one end of a socket pair
 * for the gateway and for the relay's own answer; a TCP one is set up
 * (tcp_sock_setup). A flow to be asked about is FLOW_TCP_ASKING, with no
 * host socket. Watches nothing: the caller does. Returns the flow, or
 * NULL: refused, no slot free, or a host socket that cannot be opened or
 * connected (the gateway's failure warned of at most every 10 s, another
 * logged at debug level).
 */
struct flow *flow_open(struct relay *r, const struct pkt *p);
/*
 * Connects f's host socket, without waiting, to its route's host (port 53
 * of the resolver for DNS; port 0 for echo). Returns 0 when it is
 * connected or in progress, or -1 with errno.
 */
int flow_connect(struct relay *r, struct flow *f);
/*
 * Hands each of the decider's answers queued (struct ask, out) to its flow
 * by its state (tcp_answer, dgram_answer), skipping a flow gone or in
 * another state, and empties the queue.
 */
void flow_answers(struct relay *r);
/*
 * Moves f to state st, keeping each state's count (the bounds check them):
 * the only way a flow changes state. Pure.
 */
void flow_set_state(struct flow_table *t, struct flow *f, enum flow_state st);
/*
 * flow_used returns the flows in use; flow_half_open the TCP flows not yet
 * established (connecting, or their SYN-ACK sent). The bounds count them. Pure.
 */
static inline unsigned long flow_used(const struct flow_table *t)
{
	return t->max - t->count[FLOW_FREE];
}

static inline unsigned long flow_half_open(const struct flow_table *t)
{
	return t->count[FLOW_TCP_CONNECTING] + t->count[FLOW_TCP_SYNACK];
}
/*
 * Watches f's host socket for events (epoll), tagged with its protocol's
 * type (EV_TCP, EV_DGRAM), f's slot and generation; nothing when they are
 * the events watched already. Returns 0, or -1 with errno.
 */
int flow_watch(struct relay *r, struct flow *f, uint32_t events);
/*
 * Frees f: TCP's part let go (tcp_flow_free), its host socket closed
 * (which leaves the epoll set), its slot free again. Returns FLOW_FREED.
 */
enum flow_fate flow_free(struct relay *r, struct flow *f);
/*
 * Runs every flow's timers (idle timeouts, retransmissions), the name
 * bindings' sweep, and with a decider the questions' time, acting on the
 * answers at once (flow_answers). The loop calls it every 50 ms or so.
 */
void flow_timers(struct relay *r);

#endif
