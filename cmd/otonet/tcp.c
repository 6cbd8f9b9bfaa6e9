/* SPDX-License-Identifier: ISC */
/*
 * TCP without a TCP stack of its own (the design of passt): the agent's
 * kernel does TCP on the sandbox side, the host's kernel on the other; the
 * relay only translates:
 *
 *  - a SYN from the agent becomes a non-blocking connect(); the SYN-ACK goes
 *    back only once the host connection exists, a RST if it failed;
 *  - the agent's data is written to the host socket and acknowledged only as
 *    far as the socket took it; the window we advertise is the socket's room;
 *  - the host's data stays in the host socket's receive queue: it is read
 *    with MSG_PEEK (SO_PEEK_OFF moves on by itself), sent within the agent's
 *    window, and removed from the queue only when the agent acknowledges it,
 *    so a retransmission (timeout, three duplicate ACKs) peeks it again;
 *    where the kernel lacks SO_PEEK_OFF for TCP (before 6.10), the data is
 *    read into a bounded buffer of the flow instead (SBUF_CAP bytes: reading
 *    stops while it is full), resent from there and dropped when acknowledged
 *    (what goes to the agent, both ways, is in tcp_flush.c);
 *  - FIN becomes shutdown(SHUT_WR) and back; RST becomes an abortive close
 *    (SO_LINGER 0) and back.
 *
 * A flow is FLOW_TCP_CONNECTING from the agent's SYN until connect()
 * completes, FLOW_TCP_SYNACK until the agent acknowledges our SYN-ACK, then
 * FLOW_TCP_ESTABLISHED until it is freed: the FIN flags tell how far a close
 * has come. Every function that may free the flow returns its fate.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

#define MY_WS	    7
#define RTO_MS	    300
#define TCP_RETRIES 12
/* A connect() the host has not answered in this time is given up on. */
#define CONNECT_MS 30000

static uint32_t rnd(struct relay *r)
{
	/* xorshift, seeded from getrandom: initial sequence numbers only. */
	r->rnd ^= r->rnd << 13;
	r->rnd ^= r->rnd >> 17;
	r->rnd ^= r->rnd << 5;
	return r->rnd;
}

/*
 * f lets go of its slot in sends[]; what the slot holds stays readable until
 * a flow takes it again (tcp_agent_data empties it then).
 */
static struct send_slot *send_slot_free(struct relay *r, struct flow *f)
{
	struct send_slot *q = &r->sends[f->send_slot - 1];

	q->f = NULL;
	f->send_slot = 0;
	return q;
}

/* TCP's part of freeing f: its gathered data, its pending ACK, its buffers. */
void tcp_flow_free(struct relay *r, struct flow *f)
{
	f->ack_pending = 0;
	if (f->hold)
		names_flow_free(r, f);
	if (f->gate_peer)
		r->sys->close(f->gate_peer - 1);
	f->gate_peer = 0;
	/* Data gathered and not sent: the flow is gone (reset), its data with it. */
	if (f->send_slot)
		send_slot_free(r, f);
	if (f->sbuf)
		r->ft.nsbuf--;
	free(f->sbuf);
	f->sbuf = NULL;
}

/* f's new host socket, before it connects: no Nagle; SO_PEEK_OFF, or the buffered path. */
void tcp_sock_setup(struct relay *r, struct flow *f)
{
	int one = 1, zero = 0;

	r->sys->setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* DNS over TCP: its answers are read, filtered whole, then sent (names.c). */
	if (f->route == ROUTE_DNS || r->cfg->no_peek_off ||
	    r->sys->setsockopt(f->fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)) < 0)
		f->buffered = 1;
}

/*
 * The segment size offered to the agent: the host connection's own (what the
 * host's kernel advertised on that path: its MTU less the headers), not the
 * TUN's. The agent's kernel will not send a segment that its window cannot
 * hold whole (sender-side silly window avoidance), and our window is the
 * room in the host socket, which the host's kernel sizes in its own
 * segments: at MTU 1500 the room is often less than one 65480-byte segment
 * while the socket is far from full, so no drain event would ever reopen
 * it, and the agent waited for its persist timer (200 ms, then 400...) on
 * every upload. With the path's segment size, a window it cannot use is one
 * of a socket too full to count as writable, whose drain is watched. With
 * the TUN's offloads the agent still hands us 64 KiB at a time.
 */
static uint16_t tcp_agent_mss(struct relay *r, const struct flow *f)
{
	uint16_t mss = (uint16_t)(NET_MTU - pkt_l4_off(f->asrc.family) - 20);
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	/*
	 * A gateway flow's socket is a unix socket pair (no TCP_INFO) with a
	 * small send buffer (wmem_default): the segment of the gateway's own way
	 * out, an Ethernet link's, so that the window is never short of one.
	 */
	if (tcp_route_pair(f))
		return (uint16_t)(1500 - pkt_l4_off(f->asrc.family) - 20);
	memset(&ti, 0, sizeof(ti));
	if (r->sys->getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &l) == 0 &&
	    ti.tcpi_advmss >= 536 && ti.tcpi_advmss < mss)
		mss = (uint16_t)ti.tcpi_advmss;
	return mss;
}

static void tcp_synack(struct relay *r, struct flow *f)
{
	uint16_t mss = tcp_agent_mss(r, f);

	f->rmss = mss;
	tun_write(r, pkt_synack(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, f->iss, f->rcv_nxt,
				65535, mss, f->agent_ws >= 0 && f->my_ws ? f->my_ws : -1));
	f->rto_at = r->now + 1000;
}

/* A RST answering a packet that has no flow, or that the filter refused. */
static void tcp_rst_reply(struct relay *r, const struct pkt *p)
{
	uint32_t seq = 0,
		 ack = p->seq + (uint32_t)p->dlen + !!(p->flags & TH_SYN) + !!(p->flags & TH_FIN);
	uint8_t flags = TH_RST | TH_ACK;

	if (p->flags & TH_RST)
		return;
	if (p->flags & TH_ACK) {
		seq = p->ack;
		flags = TH_RST;
		ack = 0;
	}
	tun_write(r, pkt_tcp(r->obuf, &p->dst, &p->src, p->dport, p->sport, seq, ack, flags, 0, 0));
}

/* The agent reset: an abortive close, so the host's peer sees a RST too. Always FLOW_FREED. */
static enum flow_fate tcp_abort_host(struct relay *r, struct flow *f)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	r->sys->setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return flow_free(r, f);
}

/* A RST each way: the host's peer sees one, and nothing of what was not sent. FLOW_FREED. */
static enum flow_fate tcp_reset_both(struct relay *r, struct flow *f)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	r->sys->setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return tcp_reset_agent(r, f);
}

/* What namecheck.c's verdict on f's data asks for. */
static enum flow_fate tcp_judged(struct relay *r, struct flow *f, enum name_verdict v)
{
	switch (v) {
	case NV_RESET:
		return tcp_reset_both(r, f);
	case NV_WATCH:
		tcp_events(r, f);
		return FLOW_KEPT;
	case NV_KEPT:
	default:
		return FLOW_KEPT;
	}
}

/* f refused by namecheck.c for why: logged there, reset both ways here. FLOW_FREED. */
static enum flow_fate tcp_refuse(struct relay *r, struct flow *f, const char *why)
{
	names_refuse(r, f, why, NULL);
	return tcp_reset_both(r, f);
}

void tcp_answer(struct relay *r, struct flow *f, int allow)
{
	int fd;

	if (!allow) {
		tcp_reset_agent(r, f);
		return;
	}
	fd = r->sys->socket(f->adst.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_msg(LOG_DEBUG, errno,
			"relay: unable to open a host socket for an allowed flow");
		tcp_reset_agent(r, f);
		return;
	}
	f->fd = fd;
	/* Its time to connect runs from now, not from the SYN the agent sent. */
	f->born = f->last = r->now;
	flow_set_state(&r->ft, f, FLOW_TCP_CONNECTING);
	tcp_sock_setup(r, f);
	if (flow_connect(r, f) < 0) {
		log_msg(LOG_DEBUG, errno, "relay: unable to connect the host socket of a flow");
		tcp_reset_agent(r, f);
		return;
	}
	tcp_events(r, f);
}

static void tcp_new(struct relay *r, const struct pkt *p)
{
	struct flow *f = flow_open(r, p);
	size_t maxseg;

	if (!f) {
		tcp_rst_reply(r, p);
		return;
	}
	f->iss = rnd(r);
	f->snd_una = f->snd_nxt = f->iss + 1;
	f->rcv_nxt = p->seq + 1;
	f->agent_ws = p->wscale;
	f->my_ws = p->wscale >= 0 ? MY_WS : 0;
	f->agent_wnd = p->win; /* a SYN's window is never scaled */
	maxseg = NET_MTU - pkt_l4_off(p->family) - 20;
	f->seg = p->mss ? p->mss : (p->family == AF_INET ? 536 : 1220);
	if (f->seg > maxseg)
		f->seg = (uint32_t)maxseg;
	f->rto = RTO_MS;
	/*
	 * A destination to ask about: the SYN held, unanswered, until the
	 * decider's answer (tcp_answer); reset at once when it cannot be asked.
	 */
	if (f->state != FLOW_TCP_ASKING)
		tcp_events(r, f);
	else if (ask_hold(r, f) < 0)
		tcp_reset_agent(r, f);
}

static enum flow_fate tcp_connected(struct relay *r, struct flow *f)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (r->sys->getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0 || err)
		return tcp_reset_agent(r, f);
	flow_set_state(&r->ft, f, FLOW_TCP_SYNACK);
	tcp_synack(r, f);
	tcp_events(r, f);
	return FLOW_KEPT;
}

/* What the host socket took of n bytes (w, or -1 and errno) moves rcv_nxt. */
static enum flow_fate tcp_sent(struct relay *r, struct flow *f, ssize_t w, size_t n)
{
	if (w < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return tcp_reset_agent(r, f);
		w = 0;
	}
	f->rcv_nxt += (uint32_t)w;
	if ((size_t)w < n) {
		f->wr_blocked = 1;
		tcp_events(r, f);
	}
	return FLOW_KEPT;
}

/* The data gathered for f, to its host socket now. */
static enum flow_fate tcp_send_gathered(struct relay *r, struct flow *f)
{
	struct send_slot *q = send_slot_free(r, f);
	struct msghdr m = { .msg_iov = q->iov, .msg_iovlen = (size_t)q->n };

	return tcp_sent(r, f, r->sys->sendmsg(f->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL), q->len);
}

/* Each slot's data to its flow's host socket, at the end of a batch (a flow that fails is gone). */
void tcp_sends_flush(struct relay *r)
{
	for (int i = 0; i < SEND_SLOTS; i++)
		if (r->sends[i].f)
			tcp_send_gathered(r, r->sends[i].f);
}

/* The agent's data in p, gathered for the host socket (or sent at once). */
static enum flow_fate tcp_agent_data(struct relay *r, struct flow *f, const struct pkt *p)
{
	uint32_t next = f->rcv_nxt + (f->send_slot ? r->sends[f->send_slot - 1].len : 0);
	int32_t skip = (int32_t)(next - p->seq);
	struct send_slot *q;
	size_t n;

	if (skip < 0 || (size_t)skip >= p->dlen || f->agent_fin || f->wr_blocked)
		return FLOW_KEPT;
	n = p->dlen - (size_t)skip;
	/* A name allowed the flow: what it sends is judged before the host sees it. */
	if (f->nphase && f->nphase != NP_PASS)
		return tcp_judged(r, f, names_data(r, f, p->data + skip, n));
	/* A question over TCP must be about a name a rule allows (names.c). */
	if (f->route == ROUTE_DNS && names_tcp_query(r, f, p->data + skip, n) < 0)
		return tcp_reset_both(r, f);
	for (int i = 0; !f->send_slot && i < SEND_SLOTS; i++) {
		if (!r->sends[i].f) {
			r->sends[i].f = f;
			r->sends[i].n = 0;
			r->sends[i].len = 0;
			f->send_slot = i + 1;
		}
	}
	if (!f->send_slot)
		return tcp_sent(
		    r, f, r->sys->send(f->fd, p->data + skip, n, MSG_DONTWAIT | MSG_NOSIGNAL), n);
	q = &r->sends[f->send_slot - 1];
	q->iov[q->n].iov_base = (void *)(p->data + skip);
	q->iov[q->n].iov_len = n;
	q->n++;
	q->len += (uint32_t)n;
	if (q->n == SEND_IOV)
		return tcp_send_gathered(r, f);
	return FLOW_KEPT;
}

/* A segment from the agent on its flow f. */
static enum flow_fate tcp_segment(struct relay *r, struct flow *f, const struct pkt *p)
{
	int32_t acked;
	uint32_t old_wnd;
	int need_ack = 0, fin = p->flags & TH_FIN;

	f->last = r->now;
	if (p->flags & TH_RST)
		return tcp_abort_host(r, f);
	if (p->flags & TH_SYN) {
		/* The agent sent its SYN again: answer again if we already did. */
		if (!(p->flags & TH_ACK) && f->state == FLOW_TCP_SYNACK && p->seq + 1 == f->rcv_nxt)
			tcp_synack(r, f);
		return FLOW_KEPT;
	}
	if (!(p->flags & TH_ACK) || f->state == FLOW_TCP_CONNECTING || f->state == FLOW_TCP_ASKING)
		return FLOW_KEPT;
	if (f->state == FLOW_TCP_SYNACK) {
		if (p->ack != f->iss + 1) {
			tcp_rst_reply(r, p);
			return FLOW_KEPT;
		}
		flow_set_state(&r->ft, f, FLOW_TCP_ESTABLISHED);
		f->rto_at = 0;
		/* The time to decide (namecheck.c) runs from here, the agent's to send. */
		if (f->nphase == NP_FIRST)
			f->undecided_at = r->now;
	}
	old_wnd = f->agent_wnd;
	f->agent_wnd = (uint32_t)p->win << (f->agent_ws > 0 ? f->agent_ws : 0);
	acked = (int32_t)(p->ack - f->snd_una);
	if (acked > 0 && (int32_t)(f->snd_nxt - p->ack) >= 0) {
		uint32_t n = (uint32_t)acked;

		if (f->fin_sent && p->ack == f->snd_nxt) {
			f->fin_acked = 1;
			n--;
		}
		/* Acknowledged: now, and only now, the bytes leave the host socket. */
		if (f->buffered) {
			if (n > f->sblen)
				n = f->sblen;
			f->sboff = n == f->sblen ? 0 : f->sboff + n;
			f->sblen -= n;
			f->dns_ready -= n < f->dns_ready ? n : f->dns_ready;
			n = 0;
		}
		while (n) {
			/*
			 * MSG_TRUNC discards without a buffer on a TCP socket only: a
			 * unix socket (a gateway flow's) copies out, and with none
			 * fails (EFAULT), so nothing left its queue, and the gateway's
			 * writes stopped once its send buffer was full (about 200 KB
			 * into a response). There, the bytes are read into a sink.
			 */
			char sink[16384];
			ssize_t got =
			    tcp_route_pair(f)
				? r->sys->recv(f->fd, sink, n < sizeof(sink) ? n : sizeof(sink),
					       MSG_DONTWAIT)
				: r->sys->recv(f->fd, NULL, n, MSG_TRUNC | MSG_DONTWAIT);

			if (got <= 0)
				break;
			n -= (uint32_t)got;
		}
		f->snd_una = p->ack;
		f->dup = 0;
		f->retries = 0;
		f->rto = RTO_MS;
		f->rto_at = f->snd_una == f->snd_nxt ? 0 : r->now + f->rto;
	} else if (acked == 0 && !p->dlen && !(p->flags & TH_FIN) && f->snd_nxt != f->snd_una &&
		   f->agent_wnd == old_wnd) {
		if (++f->dup == 3 && tcp_rewind(r, f) == FLOW_FREED)
			return FLOW_FREED;
	}
	if (p->dlen) {
		if (tcp_agent_data(r, f, p) == FLOW_FREED)
			return FLOW_FREED;
		need_ack = 1;
	}
	/* The FIN follows the data: what was gathered goes to the host first. */
	if (fin && f->send_slot && tcp_send_gathered(r, f) == FLOW_FREED)
		return FLOW_FREED;
	/*
	 * What is held goes first too: a head or ClientHello the FIN cuts
	 * short can never be decided; decided bytes still waiting for room
	 * keep the FIN out until they are gone (the agent sends it again).
	 */
	if (fin && f->hold && p->seq + (uint32_t)p->dlen == f->rcv_nxt) {
		if (f->hold->len > f->hold->out)
			return tcp_refuse(r, f, "undecided");
		fin = 0;
		need_ack = 1;
	}
	if (fin && !f->agent_fin && p->seq + (uint32_t)p->dlen == f->rcv_nxt) {
		r->sys->shutdown(f->fd, SHUT_WR);
		f->rcv_nxt++;
		f->agent_fin = 1;
		need_ack = 1;
	} else if (fin) {
		need_ack = 1;
	}
	if (need_ack && !f->ack_pending) {
		if (r->npending < ARRAY_SIZE(r->pending)) {
			f->ack_pending = 1;
			r->pending[r->npending++] = f;
		} else {
			tcp_out(r, f, f->snd_nxt, TH_ACK, 0);
		}
	}
	if (tcp_flush(r, f) == FLOW_FREED)
		return FLOW_FREED;
	if (f->agent_fin && f->fin_acked)
		return flow_free(r, f);
	return FLOW_KEPT;
}

/* A TCP packet from the agent: to its flow; a SYN opens one; anything else is answered by a RST. */
void tcp_input(struct relay *r, const struct pkt *p)
{
	struct flow *f = flow_find(r, p);

	if (f)
		tcp_segment(r, f, p);
	else if ((p->flags & (TH_SYN | TH_ACK | TH_RST)) == TH_SYN)
		tcp_new(r, p);
	else
		tcp_rst_reply(r, p);
}

enum flow_fate tcp_sock_event(struct relay *r, struct flow *f, uint32_t ev)
{
	f->last = r->now;
	if (f->state == FLOW_TCP_CONNECTING) {
		if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			return tcp_connected(r, f);
		return FLOW_KEPT;
	}
	if (ev & EPOLLERR) {
		int err = 0;
		socklen_t l = sizeof(err);

		r->sys->getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err)
			return tcp_reset_agent(r, f);
	}
	if (ev & EPOLLOUT)
		f->wnd_ok = 0; /* the socket drained: measure the window again */
	if ((ev & EPOLLOUT) && f->wr_blocked && f->hold && f->hold->out) {
		/* Decided bytes held for the socket go first; the agent waits till then. */
		int k = names_drain(r, f);

		if (k < 0)
			return tcp_reset_agent(r, f);
		if (k > 0)
			return FLOW_KEPT;
	}
	if ((ev & EPOLLOUT) && f->wr_blocked) {
		f->wr_blocked = 0;
		tcp_events(r, f);
		/*
		 * A window update, then three duplicates of it: the agent's
		 * fast retransmit resends what we could not take at once, instead
		 * of waiting for its retransmission timeout.
		 */
		for (int i = 0; i < 4; i++)
			tcp_out(r, f, f->snd_nxt, TH_ACK, 0);
	} else if ((ev & EPOLLOUT) && f->drain_watch) {
		/*
		 * The socket drained: a window update, if the window's right edge
		 * moves on by a segment or more (RFC 1122's receiver-side silly
		 * window avoidance): a segment of the agent's, of the size we
		 * offered it, not of ours towards it (65480 on the TUN: a drain
		 * that freed less than that would go unannounced, the watch
		 * ended, and the agent wait for its persist timer, 200 ms);
		 * tcp_out sends what was measured. EPOLLOUT
		 * goes off first: if the socket is still too full, the measurement
		 * adds it back, and only the poll of that epoll_ctl arms the
		 * socket's wake-up again (SOCK_NOSPACE).
		 */
		uint32_t edge;

		f->drain_watch = 0;
		tcp_events(r, f);
		edge = f->rcv_nxt + (tcp_measure(r, f) << f->my_ws);
		if (!f->ack_pending && (int32_t)(edge - f->adv_edge) >= (int32_t)f->rmss) {
			f->adv_edge = edge;
			tcp_out(r, f, f->snd_nxt, TH_ACK, 0);
		} else {
			f->wnd_ok = 0; /* not advertised: measured again next time */
		}
	}
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
		f->host_dry = 0;
		return tcp_flush(r, f);
	}
	return FLOW_KEPT;
}

enum flow_fate tcp_timer(struct relay *r, struct flow *f)
{
	if (f->undecided_at && r->now - f->undecided_at >= NAMES_DECIDE_MS)
		return tcp_refuse(r, f, "undecided");
	if ((f->state == FLOW_TCP_ESTABLISHED && r->now - f->last > r->cfg->tcp_idle_ms) ||
	    (f->state == FLOW_TCP_CONNECTING && r->now - f->born > CONNECT_MS)) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		/* Idle or never answered: a RST each way, the slot freed. */
		r->sys->setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		return tcp_reset_agent(r, f);
	}
	if (f->buffered && f->state == FLOW_TCP_ESTABLISHED) {
		/* An empty buffer goes back; a flow that waited for one tries again. */
		if (f->sbuf && !f->sblen) {
			free(f->sbuf);
			f->sbuf = NULL;
			f->sboff = 0;
			r->ft.nsbuf--;
		} else if (f->sbuf_wait && tcp_flush(r, f) == FLOW_FREED) {
			return FLOW_FREED;
		}
	}
	if (!f->rto_at || r->now < f->rto_at)
		return FLOW_KEPT;
	if (++f->retries > TCP_RETRIES)
		return tcp_reset_agent(r, f);
	if (f->state == FLOW_TCP_SYNACK) {
		tcp_synack(r, f);
		return FLOW_KEPT;
	}
	f->rto = f->rto * 2 > 8000 ? 8000 : f->rto * 2;
	f->rto_at = r->now + f->rto;
	return tcp_rewind(r, f);
}
