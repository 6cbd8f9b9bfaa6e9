/* SPDX-License-Identifier: ISC */
/*
 * What a flow a name allowed sends, judged before the host sees a byte of
 * it (relay.h, "namecheck.c"). Under --no-public, a TCP flow to an address
 * bound by an --allow-name rule without a port (80 and 443) must present a
 * TLS ClientHello whose server_name, or HTTP requests whose Host, is a name
 * bound to that address for that port:
 *
 *  - the decision is made on the bytes, never on the first segment: what
 *    the agent sends while it is not decided (a ClientHello or request head
 *    in part, in any number of segments) is taken, acknowledged and held
 *    here (struct name_hold), at most NAMES_HOLD_MAX bytes a flow and
 *    NAMES_HELD_MAX for all flows together, for at most NAMES_DECIDE_MS
 *    from the agent's first ACK; it goes to the host socket only once
 *    decided. Nothing the host sends reaches the agent before then
 *    (tcp_flush), so a server that speaks first is not read either;
 *  - on plain HTTP every request is judged: the heads and bodies are
 *    followed (follow.c, lib/http's parser), a head split anywhere held
 *    as a first one is, and an ambiguous framing, CONNECT or Upgrade
 *    (after which the bytes are no longer HTTP) resets the flow;
 *  - a refusal is logged (its reason as the rule); the first request of a
 *    plain-HTTP flow refused for its Host is answered with a 403 of the
 *    relay's own (ROUTE_LOCAL: the host socket closed abortively, a socket
 *    pair holding the answer in its place); everything else is reset both
 *    ways. A later request is reset too: the host may still be sending the
 *    answer to an earlier one, and the relay, which does not follow the
 *    responses, could not put the 403 after it.
 *
 * It sends nothing to the agent: names_data's verdict says what tcp.c does
 * (a reset both ways, the host socket watched again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

/* ---- the log -------------------------------------------------------------- */

static void names_log_flow(struct relay *r, const struct flow *f, const char *why, const char *name)
{
	char s[64], t[64], key[RECORD_KEY_MAX];
	int has = name && name[0];

	snprintf(key, sizeof(key), "%s tcp %s %u %s", why, ipaddr_str(&f->adst, t, sizeof(t)),
		 f->dport, has ? name : "");
	/* A name here is name_text's: letters, digits, '-', '_' and dots, nothing to escape. */
	relay_log_thin(r, "net", key,
		       ",\"proto\":\"tcp\",\"src\":\"%s\",\"dst\":\"%s\",\"port\":%u,"
		       "\"verdict\":\"deny\",\"rule\":\"%s\"%s%s%s}\n",
		       ipaddr_str(&f->asrc, s, sizeof(s)), ipaddr_str(&f->adst, t, sizeof(t)),
		       f->dport, why, has ? ",\"name\":\"" : "", has ? name : "", has ? "\"" : "");
}

/* ---- what a flow holds ------------------------------------------------------ */

static void hold_free(struct relay *r, struct flow *f)
{
	struct name_hold *h = f->hold;

	if (!h)
		return;
	r->names.held -= sizeof(*h) + h->cap;
	free(h->buf);
	free(h);
	f->hold = NULL;
}

void names_flow_free(struct relay *r, struct flow *f)
{
	hold_free(r, f);
}

/* Room for len bytes in f's hold: 0, or -1 when the relay's bound (or memory) says no. */
static int hold_room(struct relay *r, struct flow *f, size_t len)
{
	struct name_hold *h = f->hold;
	size_t cap;
	uint8_t *b;

	if (!h) {
		if (r->names.held + sizeof(*h) > NAMES_HELD_MAX || !(h = calloc(1, sizeof(*h))))
			return -1;
		f->hold = h;
		r->names.held += sizeof(*h);
	}
	if (len <= h->cap)
		return 0;
	for (cap = h->cap ? h->cap : 512; cap < len;)
		cap *= 2;
	if (r->names.held - h->cap + cap > NAMES_HELD_MAX || !(b = realloc(h->buf, cap)))
		return -1;
	r->names.held += cap - h->cap;
	h->buf = b;
	h->cap = (uint32_t)cap;
	return 0;
}

/* ---- refusals ----------------------------------------------------------------- */

void names_refuse(struct relay *r, struct flow *f, const char *why, const char *name)
{
	names_log_flow(r, f, why, name);
}

static enum name_verdict held_full(struct relay *r, struct flow *f)
{
	if (!r->names.held_warned || r->now - r->names.held_warned >= 10000) {
		r->names.held_warned = r->now ? r->now : 1;
		warnx("relay: %lu bytes held for --allow-name checks, the bound: resetting a flow",
		      r->names.held);
	}
	names_refuse(r, f, "held-full", NULL);
	return NV_RESET;
}

/*
 * The answer to a first request refused for its Host: f's host socket
 * closed abortively (its peer sees a RST, and not one byte of the agent's),
 * and in its place one end of a socket pair holding a 403, then EOF, which
 * tcp.c carries as it carries a gateway's, once it watches it (NV_WATCH).
 * 0, or -1 (then a reset).
 */
static int answer_403(struct relay *r, struct flow *f, const char *name)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char body[DNS_NAME_MAX + 64], msg[DNS_NAME_MAX + 256];
	int sv[2], zero = 0, b, n;

	if (name && name[0])
		b = snprintf(body, sizeof(body), "otonet: %s is not allowed by --allow-name\n",
			     name);
	else
		b = snprintf(body, sizeof(body),
			     "otonet: a request without a Host name is not allowed by "
			     "--allow-name\n");
	n = snprintf(msg, sizeof(msg),
		     "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
		     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
		     b, body);
	if (r->sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (r->sys->send(sv[1], msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n) {
		r->sys->close(sv[0]);
		r->sys->close(sv[1]);
		return -1;
	}
	r->sys->close(sv[1]);
	r->sys->setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	r->sys->close(f->fd); /* also leaves the epoll set */
	f->fd = sv[0];
	f->events = 0;
	f->route = ROUTE_LOCAL;
	f->nphase = NP_ANSWERED;
	f->undecided_at = 0;
	f->wr_blocked = f->drain_watch = f->wnd_ok = f->host_dry = 0;
	hold_free(r, f);
	if (!f->buffered &&
	    r->sys->setsockopt(f->fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)) < 0)
		f->buffered = 1;
	return 0;
}

/*
 * f refused for why, as a plain-HTTP request (http) or not: logged, then
 * a 403 (the first request, for its Host: NV_WATCH) or a reset (NV_RESET).
 * n: the bytes of the agent's segment, acknowledged with the 403.
 */
static enum name_verdict refuse(struct relay *r, struct flow *f, const char *why, const char *name,
				int http, size_t n)
{
	names_log_flow(r, f, why, name);
	if (http && !f->follow.nreq &&
	    (!strcmp(why, "host-mismatch") || !strcmp(why, "name-missing")) &&
	    answer_403(r, f, name) == 0) {
		f->rcv_nxt += (uint32_t)n;
		return NV_WATCH;
	}
	return NV_RESET;
}

/* ---- transparent grants ------------------------------------------------------- */

/*
 * f's ClientHello named its transparent grant's host: the host side (the
 * real host's socket, closed abortively: it saw a connection and not one
 * byte; or the socket pair standing for it) replaced by a gateway flow's
 * socket pair, the other end handed to otogate for the grant's port. The
 * hello and what follows go there; the new socket is not watched yet
 * (events 0: names_data says NV_WATCH). 0, or -1 (then a reset).
 */
static int gate_handover(struct relay *r, struct flow *f, const char *name)
{
	const struct gate_host *g = &r->cfg->f->gates[f->gate_ix - 1];
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char s[64], t[64];
	int zero = 0, fd = gateway_socket(r, g->gw_port);

	if (fd < 0)
		return -1;
	if (f->route == ROUTE_DIRECT)
		r->sys->setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	r->sys->close(f->fd); /* also leaves the epoll set */
	if (f->gate_peer)
		r->sys->close(f->gate_peer - 1);
	f->gate_peer = 0;
	f->gate_ix = 0;
	f->fd = fd;
	f->events = 0;
	f->route = ROUTE_GATEWAY;
	f->nphase = NP_PASS;
	f->wr_blocked = f->drain_watch = f->wnd_ok = f->host_eof = f->host_dry = 0;
	if (!f->buffered &&
	    r->sys->setsockopt(f->fd, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)) < 0)
		f->buffered = 1;
	relay_log(r, "net",
		  ",\"proto\":\"tcp\",\"src\":\"%s\",\"dst\":\"%s\",\"port\":%u,"
		  "\"verdict\":\"allow\",\"rule\":\"transparent\",\"name\":\"%s\"}\n",
		  ipaddr_str(&f->asrc, s, sizeof(s)), ipaddr_str(&f->adst, t, sizeof(t)), f->dport,
		  name);
	return 0;
}

/*
 * The first bytes of a flow to a transparent grant's host, decided (TLS
 * with name, or not: name NULL): 1 passed on (to the gateway, or to the
 * host as the flow's rules allow), 0 judged by the name rules as any flow
 * (GA_CHECK), -1 refused (*why).
 */
static int gate_judge(struct relay *r, struct flow *f, const char *name, const char **why)
{
	int ix = name ? names_gate(r, &f->adst, f->dport, name) : -1;

	/* The name the hello gives, bound to the address as a grant's host: that grant's. */
	if (ix >= 0 && !strcmp(name, r->cfg->f->gates[ix].name)) {
		f->gate_ix = (unsigned char)(ix + 1);
		if (gate_handover(r, f, name) == 0)
			return 1;
		*why = "gateway";
		return -1;
	}
	f->gate_ix = 0;
	switch (f->gate_after) {
	case GA_CHECK:
		return 0;
	case GA_DENY:
		*why = "no-public";
		return -1;
	case GA_PASS:
	default:
		f->nphase = NP_PASS;
		return 1;
	}
}

/* ---- judging ------------------------------------------------------------------ */

static const char *http_why(int err)
{
	switch (err) {
	case HTTP_ECONNECT:
	case HTTP_EMETHOD:
		return "method";
	case HTTP_EUPGRADE:
		return "upgrade";
	case HTTP_EHEAD:
		return "too-long";
	default:
		return "http-malformed";
	}
}

/*
 * A request head at u (n bytes so far, q its parser's state): 1 when whole
 * and its Host allowed (*end past it, its body followed next), 0 when not
 * whole yet, -1 refused (*why, and name when it gave one).
 */
static int judge_head(struct relay *r, struct flow *f, struct http_req *q, const uint8_t *u,
		      size_t n, size_t *end, const char **why, char *name)
{
	int err, k = http_follow_held(q, u, n, &err);

	name[0] = 0;
	if (k == FOLLOW_PARTIAL)
		return 0;
	if (k == FOLLOW_ERR) {
		*why = http_why(err);
		return -1;
	}
	if (http_req_name(q, u, name) < 0) {
		name[0] = 0;
		*why = "name-missing";
		return -1;
	}
	if (!names_find(r, &f->adst, f->dport, name, NULL, NULL)) {
		*why = "host-mismatch";
		return -1;
	}
	http_follow_head(&f->follow, q);
	f->nphase = NP_HTTP;
	*end = q->head_len;
	return 1;
}

/*
 * The first bytes u[0, n) of f: as judge_head's answers; *http when they are
 * HTTP's. A flow to a transparent grant's host is decided on its whole
 * ClientHello too (gate_judge) before any name rule.
 */
static int judge_first(struct relay *r, struct flow *f, struct http_req *q, const uint8_t *u,
		       size_t n, size_t *end, const char **why, char *name, int *http)
{
	enum sniff s = sniff_first(u, n);
	int k = HELLO_BAD, g;

	name[0] = 0;
	if (s == SNIFF_MORE)
		return 0;
	if (s == SNIFF_TLS) {
		k = tls_hello(u, n, NAMES_HOLD_MAX, r->names.scratch, name, end);
		if (k == HELLO_MORE)
			return 0;
		if (k != HELLO_NAME)
			name[0] = 0;
	}
	if (f->gate_ix) {
		g = gate_judge(r, f, k == HELLO_NAME ? name : NULL, why);
		if (g) {
			/* Passed on whole: the hello (or whatever came) and all after it. */
			*end = n;
			return g;
		}
	}
	switch (s) {
	case SNIFF_TLS:
		if (k == HELLO_NAME && names_find(r, &f->adst, f->dport, name, NULL, NULL)) {
			f->nphase = NP_PASS;
			return 1;
		}
		*why = k == HELLO_NAME	   ? "sni-mismatch"
		       : k == HELLO_NONAME ? "name-missing"
		       : k == HELLO_LONG   ? "too-long"
					   : "tls-malformed";
		return -1;
	case SNIFF_HTTP:
		*http = 1;
		return judge_head(r, f, q, u, n, end, why, name);
	case SNIFF_MORE:
	case SNIFF_NEITHER:
	default:
		*why = "not-tls-or-http";
		return -1;
	}
}

/* ---- the agent's data --------------------------------------------------------- */

enum name_verdict names_data(struct relay *r, struct flow *f, const uint8_t *d, size_t n)
{
	struct name_hold *h = f->hold;
	struct http_req q;
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	char name[DNS_NAME_MAX];
	const char *why = "";
	size_t dstart = 0, pos = 0, tail = n, hout = 0, sent = 0, aleft, bleft, tlen, e;
	int k, http = 0, watch = 0;

	if (f->nphase == NP_ANSWERED) {
		f->rcv_nxt += (uint32_t)n; /* after the 403: taken and dropped */
		return NV_KEPT;
	}
	if (h && h->out)
		return NV_KEPT; /* not before the decided bytes are gone (names_drain) */
	/* A unit held from before goes on with d, as far as it could need. */
	if (h && h->len) {
		size_t u = h->len, take = NAMES_HOLD_MAX + 1 - u;

		if (take > n)
			take = n;
		if (hold_room(r, f, u + take) < 0)
			return held_full(r, f);
		memcpy(h->buf + u, d, take);
		h->len += (uint32_t)take;
		if (f->nphase == NP_FIRST) {
			k = judge_first(r, f, &h->req, h->buf, u + take, &e, &why, name, &http);
		} else {
			http = 1;
			k = judge_head(r, f, &h->req, h->buf, u + take, &e, &why, name);
		}
		if (k < 0)
			return refuse(r, f, why, name, http, n);
		if (k == 0) {
			/* Past NAMES_HOLD_MAX every parser has decided: take is n here. */
			if (take < n)
				return refuse(r, f, "too-long", NULL, 0, n);
			f->rcv_nxt += (uint32_t)n;
			return NV_KEPT;
		}
		/*
		 * Decided: the unit ends at e, and what came after it in buf is
		 * d's. Not within the u bytes held: those were judged undecided.
		 */
		if (e <= u || e > u + take)
			return refuse(r, f, "too-long", NULL, 0, n);
		h->len = h->out = (uint32_t)e;
		hout = e;
		dstart = pos = e - u;
	} else if (f->nphase == NP_FIRST) {
		memset(&q, 0, sizeof(q));
		k = judge_first(r, f, &q, d, n, &e, &why, name, &http);
		if (k < 0)
			return refuse(r, f, why, name, http, n);
		if (k == 0)
			tail = 0;
		else
			pos = e;
	}
	/* Plain HTTP: each body passed over, each head judged, a head in part held. */
	while (f->nphase == NP_HTTP && tail == n) {
		int err;

		k = http_follow(&f->follow, &q, d, n, &pos, &err);
		if (k == FOLLOW_DONE)
			break;
		if (k == FOLLOW_PARTIAL) {
			tail = pos;
			break;
		}
		if (k == FOLLOW_ERR)
			return refuse(r, f, http_why(err), NULL, 1, n);
		name[0] = 0;
		if (http_req_name(&q, d + pos, name) < 0)
			return refuse(r, f, "name-missing", NULL, 1, n);
		if (!names_find(r, &f->adst, f->dport, name, NULL, NULL))
			return refuse(r, f, "host-mismatch", name, 1, n);
		http_follow_head(&f->follow, &q);
		pos += q.head_len;
	}
	/* What was decided, held bytes first, to the host socket in one call. */
	iov[0] = (struct iovec){ .iov_base = h ? h->buf : NULL, .iov_len = hout };
	iov[1] = (struct iovec){ .iov_base = (void *)(d + dstart), .iov_len = tail - dstart };
	if (hout + tail - dstart) {
		ssize_t w = r->sys->sendmsg(f->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return NV_RESET;
		sent = w < 0 ? 0 : (size_t)w;
	}
	/* What the socket did not take, then what is not decided, stay held, in order. */
	aleft = hout - (sent < hout ? sent : hout);
	bleft = tail - dstart - (sent > hout ? sent - hout : 0);
	tlen = n - tail;
	if (aleft + bleft + tlen) {
		if (hold_room(r, f,
			      (h ? h->len : 0) > aleft + bleft + tlen ? h->len
								      : aleft + bleft + tlen) < 0)
			return held_full(r, f);
		h = f->hold;
		memmove(h->buf, h->buf + hout - aleft, aleft);
		memcpy(h->buf + aleft, d + tail - bleft, bleft);
		memcpy(h->buf + aleft + bleft, d + tail, tlen);
		h->out = (uint32_t)(aleft + bleft);
		h->len = (uint32_t)(aleft + bleft + tlen);
		if (tlen)
			h->req = q;
		if (h->out) {
			f->wr_blocked = 1;
			watch = 1;
		}
	} else {
		hold_free(r, f);
	}
	if (!tlen)
		f->undecided_at = 0;
	else if (!f->undecided_at)
		f->undecided_at = r->now ? r->now : 1;
	f->rcv_nxt += (uint32_t)n;
	/* A host side handed over (gate_handover) is not watched yet. */
	return watch || !f->events ? NV_WATCH : NV_KEPT;
}

int names_drain(struct relay *r, struct flow *f)
{
	struct name_hold *h = f->hold;
	ssize_t w;

	if (!h || !h->out)
		return 0;
	w = r->sys->send(f->fd, h->buf, h->out, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (w < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 1 : -1;
	memmove(h->buf, h->buf + w, h->len - (size_t)w);
	h->out -= (uint32_t)w;
	h->len -= (uint32_t)w;
	if (h->out)
		return 1;
	if (!h->len)
		hold_free(r, f);
	return 0;
}
