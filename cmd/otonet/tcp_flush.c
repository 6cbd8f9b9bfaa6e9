/* SPDX-License-Identifier: ISC */
/*
 * TCP towards the agent (tcp.c has the agent's segments, the host socket's
 * events and the timer): the window advertised, measured from the host
 * socket's room; the segments out, data as one GSO packet; the host's data
 * sent within the agent's window, peeked (SO_PEEK_OFF) or, without it, read
 * into the flow's bounded buffer (SBUF_CAP) and sent from there; the rewind
 * after a timeout; the RST when the host side fails; the batch's ACKs.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "oto.h"
#include "be.h"
#include "otonet.h"
#include "relay.h"

#define MAX_WND (4U << 20)
/* Host data the agent has not acknowledged, per flow, without SO_PEEK_OFF. */
#define SBUF_CAP (256U << 10)
/* ... and for all flows together: 64 MiB, then flows wait for a buffer. */
#define SBUF_MAX 256

/* A host side that is a unix socket pair: the gateway's, or the relay's own answer. */
int tcp_route_pair(const struct flow *f)
{
	return f->route == ROUTE_GATEWAY || f->route == ROUTE_LOCAL;
}

/* The window to advertise, in bytes (before scaling). */
static uint32_t tcp_window(struct relay *r, struct flow *f, int *full)
{
	uint32_t mi[SK_MEMINFO_VARS] = { 0 };
	socklen_t l = sizeof(mi);
	long room, queued;

	*full = 0;
	if (f->agent_fin)
		return 65535U << f->my_ws;
	if (f->wr_blocked)
		return 0;
	/*
	 * The room left in the host socket's send buffer, counted as the kernel
	 * counts it (queued memory, overhead included), halved so that a full
	 * window never meets a short write.
	 */
	if (r->sys->getsockopt(f->fd, SOL_SOCKET, SO_MEMINFO, mi, &l) < 0)
		return 65535;
	/*
	 * A unix socket (a gateway flow's) queues nothing of its own: what it
	 * sent and the peer has not read yet is charged to its write
	 * allocation, and it is writable again once that is a quarter of the
	 * buffer.
	 */
	queued = (long)mi[tcp_route_pair(f) ? SK_MEMINFO_WMEM_ALLOC : SK_MEMINFO_WMEM_QUEUED];
	room = ((long)mi[SK_MEMINFO_SNDBUF] - queued) / 2;
	/* Data gathered for the socket (sends[]), or held while judged, will take room too. */
	if (f->send_slot)
		room -= (long)r->sends[f->send_slot - 1].len;
	if (f->hold)
		room -= (long)f->hold->len;
	/* Not writable as the kernel sees it (TCP: free space under half the queue). */
	if (tcp_route_pair(f))
		*full = 4 * queued > (long)mi[SK_MEMINFO_SNDBUF];
	else
		*full = 2 * room < queued / 2;
	return room < 0 ? 0 : room > (long)MAX_WND ? MAX_WND : (uint32_t)room;
}

/*
 * The window measured now, scaled down for the header; the measurement is
 * remembered (wnd_ok, wnd_at), and a socket too full to count as writable
 * gets its drain watched.
 */
uint32_t tcp_measure(struct relay *r, struct flow *f)
{
	int full;
	uint32_t win = tcp_window(r, f, &full) >> f->my_ws;

	f->wnd_ok = f->state == FLOW_TCP_ESTABLISHED;
	f->wnd_at = f->rcv_nxt;
	if (full && f->state == FLOW_TCP_ESTABLISHED && !f->drain_watch) {
		f->drain_watch = 1;
		tcp_events(r, f);
	}
	return win > 65535 ? 65535 : win;
}

void tcp_out(struct relay *r, struct flow *f, uint32_t seq, uint8_t flags, size_t dlen)
{
	uint32_t win;

	if (f->wnd_ok && f->wnd_at == f->rcv_nxt && !f->agent_fin && !f->wr_blocked)
		win = (f->adv_edge - f->rcv_nxt) >> f->my_ws;
	else
		win = tcp_measure(r, f);
	f->adv_edge = f->rcv_nxt + (win << f->my_ws);
	if (!dlen) {
		tun_write(r, pkt_tcp(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, seq,
				     f->rcv_nxt, flags, (uint16_t)win, 0));
		return;
	}
	/*
	 * Data: the checksum left to the agent's kernel's "partial" convention
	 * (no pass over the data here or there), and a segment longer than the
	 * agent's MSS goes as one GSO packet of MSS-sized pieces.
	 */
	size_t n = pkt_tcp_partial(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, seq, f->rcv_nxt,
				   flags, (uint16_t)win, dlen);

	pkt_vnet(r->vnet, r->obuf, dlen, (uint16_t)f->seg);
	tun_write_offload(r, n);
}

/* The host side reset or failed: tell the agent, forget the flow. Always FLOW_FREED. */
enum flow_fate tcp_reset_agent(struct relay *r, struct flow *f)
{
	if (f->state == FLOW_TCP_CONNECTING || f->state == FLOW_TCP_ASKING)
		tun_write(r, pkt_tcp(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, 0, f->rcv_nxt,
				     TH_RST | TH_ACK, 0, 0));
	else
		tun_write(r, pkt_tcp(r->obuf, &f->adst, &f->asrc, f->dport, f->sport, f->snd_nxt,
				     f->rcv_nxt, TH_RST | TH_ACK, 0, 0));
	return flow_free(r, f);
}

void tcp_events(struct relay *r, struct flow *f)
{
	uint32_t ev = EPOLLET | EPOLLIN | EPOLLRDHUP;

	if (f->state == FLOW_TCP_CONNECTING || f->wr_blocked || f->drain_watch)
		ev |= EPOLLOUT;
	if (flow_watch(r, f, ev) < 0)
		log_msg(LOG_DEBUG, errno, "relay: unable to watch the host socket of a flow (%s)",
			flow_state_name[f->state]);
}

static void tcp_send_fin(struct relay *r, struct flow *f)
{
	tcp_out(r, f, f->snd_nxt, TH_FIN | TH_ACK, 0);
	f->snd_nxt++;
	f->fin_sent = 1;
	if (!f->rto_at)
		f->rto_at = r->now + f->rto;
}

/*
 * The most data in one packet to the agent: as much as an IP packet holds,
 * whatever the TUN's MTU, as pkt_vnet has the agent's kernel take a longer
 * one as a train of segments of its MSS.
 */
static uint32_t tcp_maxlen(const struct flow *f)
{
	return (uint32_t)(NET_MTU - pkt_l4_off(f->asrc.family) - 20);
}

/*
 * DNS over TCP: each whole answer (two bytes of length, the message) past
 * dns_ready in the buffer, filtered in place (names_answer keeps its
 * length), then ready to go. An answer not yet whole waits; one left
 * unfinished at the host's end is never sent.
 */
static void tcp_dns_answers(struct relay *r, struct flow *f)
{
	while (f->sbuf && f->sblen - f->dns_ready >= 2) { /* no buffer, no bytes */
		uint8_t *m = f->sbuf + f->sboff + f->dns_ready;
		uint32_t len = be16_get(m);

		if (f->sblen - f->dns_ready - 2 < len)
			break;
		names_answer(r, f, m + 2, len, 1);
		f->dns_ready += 2 + len;
	}
}

/*
 * Without SO_PEEK_OFF: the host's data is read into the flow's buffer, as
 * far as it has room (SBUF_CAP bytes not yet acknowledged; the socket is
 * edge-triggered, so until EAGAIN or full), and sent (again) from there.
 */
static enum flow_fate tcp_flush_buffered(struct relay *r, struct flow *f)
{
	size_t off = pkt_l4_off(f->asrc.family) + 20;

	while (!f->host_eof && f->sblen < SBUF_CAP) {
		uint32_t end = f->sboff + f->sblen;
		ssize_t n;

		if (!f->sbuf) {
			/* None free: the timer tries again (tcp_timer). */
			if (r->ft.nsbuf >= SBUF_MAX || !(f->sbuf = malloc(SBUF_CAP))) {
				f->sbuf_wait = 1;
				break;
			}
			f->sbuf_wait = 0;
			r->ft.nsbuf++;
		}
		if (end == SBUF_CAP) {
			memmove(f->sbuf, f->sbuf + f->sboff, f->sblen);
			f->sboff = 0;
			end = f->sblen;
		}
		n = r->sys->recv(f->fd, f->sbuf + end, SBUF_CAP - end, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				break;
			return tcp_reset_agent(r, f);
		}
		if (n == 0)
			f->host_eof = 1;
		f->sblen += (uint32_t)n;
	}
	if (f->route == ROUTE_DNS)
		tcp_dns_answers(r, f);
	for (int i = 0; i < 256; i++) {
		uint32_t inflight = f->snd_nxt - f->snd_una, len;
		uint32_t ready = f->route == ROUTE_DNS ? f->dns_ready : f->sblen;

		if (inflight >= ready) {
			if (f->host_eof)
				tcp_send_fin(r, f);
			break;
		}
		if (inflight >= f->agent_wnd)
			break;
		len = f->agent_wnd - inflight;
		if (len > tcp_maxlen(f))
			len = tcp_maxlen(f);
		if (len > ready - inflight)
			len = ready - inflight;
		memcpy(r->obuf + off, f->sbuf + f->sboff + inflight, len);
		tcp_out(r, f, f->snd_nxt, TH_ACK | TH_PSH, len);
		f->snd_nxt += len;
		if (!f->rto_at)
			f->rto_at = r->now + f->rto;
	}
	return FLOW_KEPT;
}

/* Send what the host sent, as far as the agent's window reaches. */
enum flow_fate tcp_flush(struct relay *r, struct flow *f)
{
	size_t off = pkt_l4_off(f->asrc.family) + 20;

	/*
	 * Nothing of the host's before the flow is decided: a server that
	 * speaks first (an SSH banner on 443) is not read through a name rule.
	 */
	if (f->state != FLOW_TCP_ESTABLISHED || f->fin_sent || f->nphase == NP_FIRST)
		return FLOW_KEPT;
	if (f->buffered)
		return tcp_flush_buffered(r, f);
	if (f->host_dry)
		return FLOW_KEPT;
	for (int i = 0; i < 256; i++) {
		uint32_t inflight = f->snd_nxt - f->snd_una, len;
		ssize_t n;

		if (inflight >= f->agent_wnd)
			break;
		len = f->agent_wnd - inflight;
		if (len > tcp_maxlen(f))
			len = tcp_maxlen(f);
		n = r->sys->recv(f->fd, r->obuf + off, len, MSG_PEEK | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				f->host_dry = 1;
				break;
			}
			if (errno == EINTR)
				break;
			return tcp_reset_agent(r, f);
		}
		if (n == 0) {
			tcp_send_fin(r, f);
			break;
		}
		tcp_out(r, f, f->snd_nxt, TH_ACK | TH_PSH, (size_t)n);
		f->snd_nxt += (uint32_t)n;
		if (!f->rto_at)
			f->rto_at = r->now + f->rto;
		if ((uint32_t)n < len)
			break;
	}
	return FLOW_KEPT;
}

/* Go back to the last byte the agent acknowledged and send again from there. */
enum flow_fate tcp_rewind(struct relay *r, struct flow *f)
{
	int zero = 0;

	if (f->snd_una == f->snd_nxt)
		return FLOW_KEPT;
	f->snd_nxt = f->snd_una;
	f->fin_sent = 0;
	f->dup = 0;
	f->host_dry = 0;
	if (!f->buffered)
		r->sys->setsockopt(f->fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero));
	return tcp_flush(r, f);
}

/*
 * One ACK per flow for a whole batch read from the TUN, not one per segment:
 * it carries the same information, and the window is measured once.
 */
void tcp_acks_flush(struct relay *r)
{
	for (unsigned int i = 0; i < r->npending; i++) {
		struct flow *f = r->pending[i];

		if (f->ack_pending) {
			f->ack_pending = 0;
			tcp_out(r, f, f->snd_nxt, TH_ACK, 0);
		}
	}
	r->npending = 0;
}
