/* SPDX-License-Identifier: ISC */
/*
 * Asking the decider (--ask-fd; otonet(1), ASKING): a new TCP flow to a
 * public address that --no-public refuses, or a DNS question over UDP that
 * no --allow-name rule matches, is held instead of refused: the SYN gets no
 * answer (the agent's connect waits, its kernel sends the SYN again), the
 * question none, and one request line goes to the decider. Its answer (or
 * the lack of one) decides:
 *
 *  - allow-once: this flow connects, this question goes to the resolver;
 *  - allow-session: the same, and from now on what the config line
 *    otoask --save and otolog --policy write for it allows is allowed
 *    without asking (oto.h, policy_line; enum ask_scope): a name on 80 or
 *    443, or a DNS question's, as --allow-name NAME (its flows on 80 and
 *    443 then judged by their SNI or Host, this one too, never by address:
 *    many names share an address, and the name asked about is whichever
 *    the agent resolved last); a name on another port as NAME:PORT; an
 *    address no name led to, that address and port. A name that is no
 *    host name is allowed once (a DNS question's: that question alone);
 *  - deny, no answer in --ask-timeout, a decider gone or broken, or too
 *    many questions pending: a RST (REFUSED for DNS), at once.
 *
 * A SYN sent again after its attempt's RST (it crossed the answer) is that
 * attempt: reset again, never asked again, no line more (struct ask keeps
 * the attempts); a DNS question sent again just after its answer is
 * answered the same way, for ASK_AGAIN_MS.
 *
 * Never asked: whatever the filter refuses for another reason than
 * --no-public (the private and special-purpose ranges, the host's own
 * addresses, the bounds). Fail closed: a decider that closes its end,
 * writes a line that does not parse, a line too long or an id it was never
 * given is gone; its socket is closed, every pending question denied, and
 * every later one denied without asking. The relay goes on: flows a rule
 * allows never wait for the decider.
 *
 * Everything is the relay's own loop: the socket is watched like a flow's
 * (EV_ASK), written with MSG_DONTWAIT (a decider that does not read is
 * gone too, never a relay that waits), the timeouts run in flow_timers.
 * Nothing here touches a flow's sockets or writes to the agent: a decision
 * is queued (struct ask, out) and the flow's own protocol acts on it
 * (flow_answers: tcp_answer, dgram_answer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "oto.h"
#include "be.h"
#include "otonet.h"
#include "relay.h"

int ask_init(struct ask *a)
{
	memset(a, 0, sizeof(*a));
	a->p = calloc(ASK_PENDING_MAX, sizeof(*a->p));
	a->s = calloc(ASK_SESSION_MAX, sizeof(*a->s));
	a->r = calloc(ASK_PENDING_MAX, sizeof(*a->r));
	a->q = calloc(ASK_PENDING_MAX, sizeof(*a->q));
	a->out = calloc(ASK_PENDING_MAX, sizeof(*a->out));
	if (!a->p || !a->s || !a->r || !a->q || !a->out) {
		ask_fini(a);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void ask_fini(struct ask *a)
{
	free(a->p);
	free(a->s);
	free(a->r);
	free(a->q);
	free(a->out);
	a->p = NULL;
	a->s = NULL;
	a->r = NULL;
	a->q = NULL;
	a->out = NULL;
}

/* ---- the record ----------------------------------------------------------- */

/* e's destination, as the net and dns lines write it (no leading comma, no brace). */
static void ask_fields(const struct ask_pending *e, char *buf, size_t size)
{
	char s[64], t[64];

	if (e->dns)
		snprintf(buf, size,
			 "\"proto\":\"%s\",\"src\":\"%s\",\"name\":\"%s\",\"type\":\"%s\"",
			 e->proto == PROTO_TCP ? "tcp" : "udp", ipaddr_str(&e->src, s, sizeof(s)),
			 e->name, e->type);
	else
		snprintf(
		    buf, size, "\"proto\":\"tcp\",\"src\":\"%s\",\"dst\":\"%s\",\"port\":%u%s%s%s",
		    ipaddr_str(&e->src, s, sizeof(s)), ipaddr_str(&e->dst, t, sizeof(t)), e->port,
		    e->name[0] ? ",\"name\":\"" : "", e->name, e->name[0] ? "\"" : "");
}

/* The question's line on --log-fd: verdict "ask", the rule that would have refused it. */
static void ask_log_question(struct relay *r, const struct ask_pending *e)
{
	char f[512];

	ask_fields(e, f, sizeof(f));
	relay_log(r, e->dns ? "dns" : "net",
		  ",%s,\"verdict\":\"ask\",\"rule\":\"%s\",\"ask\":%u}\n", f,
		  e->dns ? "no-name" : "no-public", e->id);
}

/* Its outcome's line: verdict allow or deny, rule "ask", the decision. */
static void ask_log_outcome(struct relay *r, const struct ask_pending *e, enum ask_decision d)
{
	char f[512];

	ask_fields(e, f, sizeof(f));
	relay_log(r, e->dns ? "dns" : "net",
		  ",%s,\"verdict\":\"%s\",\"rule\":\"ask\",\"decision\":\"%s\",\"ask\":%u}\n", f,
		  d <= ASK_ALLOW_SESSION ? "allow" : "deny", ask_decision_name[d], e->id);
}

/* ---- the decider ------------------------------------------------------------ */

/*
 * The request line for e, to the decider: the record's head (time, source
 * "ask", session), the id, the destination. -1 when it could not be written
 * whole at once: the decider is then gone (a stream half written is lost).
 */
static int ask_send(struct relay *r, const struct ask_pending *e)
{
	char line[ASK_LINE_MAX], f[512];
	struct timespec ts;
	int h, n;

	r->sys->clock_gettime(CLOCK_REALTIME, &ts);
	h = event_head(line, sizeof(line), &ts, "ask", r->cfg->session->id);
	ask_fields(e, f, sizeof(f));
	n = snprintf(line + h, sizeof(line) - (size_t)h, ",\"id\":%u,%s}\n", e->id, f);
	if (!h || n <= 0 || (size_t)n >= sizeof(line) - (size_t)h)
		return -1;
	n += h;
	return r->sys->send(r->cfg->ask_fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) == n ? 0
											       : -1;
}

/* The held TCP attempt e refused after its question: kept (struct ask), its flow to be reset. */
static void ask_refused_keep(struct relay *r, const struct ask_pending *e)
{
	struct ask_refused *a = &r->ask.r[r->ask.nr++ % ASK_PENDING_MAX];

	a->src = e->src;
	a->dst = e->dst;
	a->sport = e->sport;
	a->dport = e->port;
	a->isn = e->isn;
	a->used = 1;
}

/* Whether p's SYN is that of an attempt a question refused. */
static int ask_refused_find(const struct ask *a, const struct pkt *p)
{
	for (unsigned int i = 0; i < ASK_PENDING_MAX; i++) {
		const struct ask_refused *o = &a->r[i];

		if (o->used && o->isn == p->seq && o->sport == p->sport && o->dport == p->dport &&
		    ipaddr_equal(&o->src, &p->src) && ipaddr_equal(&o->dst, &p->dst))
			return 1;
	}
	return 0;
}

/* The DNS question e answered (allowed or not): kept (struct ask). */
static void ask_answered_keep(struct relay *r, const struct ask_pending *e, int allowed)
{
	struct ask_answered *a = &r->ask.q[r->ask.nq++ % ASK_PENDING_MAX];

	a->src = e->src;
	a->sport = e->sport;
	a->qid = be16_get(e->q);
	a->allowed = (unsigned char)allowed;
	a->until = r->now + ASK_AGAIN_MS;
	memcpy(a->type, e->type, sizeof(a->type));
	memcpy(a->name, e->name, sizeof(a->name));
}

/* The answer kept for e, the same question on the UDP flow f, or NULL. */
static const struct ask_answered *ask_answered_find(const struct relay *r, const struct flow *f,
						    const struct ask_pending *e)
{
	uint16_t qid = be16_get(e->q);

	for (unsigned int i = 0; i < ASK_PENDING_MAX; i++) {
		const struct ask_answered *a = &r->ask.q[i];

		if (a->until > r->now && a->qid == qid && a->sport == f->sport &&
		    ipaddr_equal(&a->src, &f->asrc) && !strcmp(a->type, e->type) &&
		    !strcmp(a->name, e->name))
			return a;
	}
	return NULL;
}

/*
 * What e's flow becomes, queued for flow_answers: allowed, it goes on
 * (check: judged by its first bytes, as a name rule's flow); else refused
 * at once (the attempt or the answer kept here).
 */
static void ask_apply(struct relay *r, struct ask_pending *e, enum ask_decision d, int check)
{
	const struct flow *f = flow_at(&r->ft, ev_ref(EV_NONE, e->slot, e->gen));
	int allow = d <= ASK_ALLOW_SESSION;
	struct ask_verdict *v;

	e->id = 0;
	r->ask.n--;
	if (!f)
		return; /* the agent gave up meanwhile (a RST, an idle UDP flow) */
	if (f->state != (e->dns ? FLOW_UDP : FLOW_TCP_ASKING))
		return;
	if (e->dns)
		ask_answered_keep(r, e, allow);
	else if (!allow)
		ask_refused_keep(r, e);
	/* Each pending question is decided once before flow_answers runs: room for all. */
	if (r->ask.nout == ASK_PENDING_MAX)
		return;
	v = &r->ask.out[r->ask.nout++];
	v->slot = e->slot;
	v->gen = e->gen;
	v->allow = (unsigned char)allow;
	v->check = (unsigned char)(allow && check);
	v->q = e->q;
	v->qlen = e->qlen;
}

/* Is port one a name rule without a port allows (and checks)? */
static int web_port(uint16_t port)
{
	return port == 80 || port == 443;
}

/*
 * An allow-session answer to e kept for the session, as what its saved
 * line allows (enum ask_scope): the scope, or -1 when it allowed once (a
 * flow's name that is no host name, or the table full).
 */
static int ask_remember(struct relay *r, const struct ask_pending *e)
{
	struct ask_allowed *s;
	int ok = policy_name_ok(e->name);

	if (!e->dns && e->name[0] && !ok) {
		warnx("relay: ask %u: %s is not a host name: allowed once", e->id, e->name);
		return -1;
	}
	if (r->ask.ns == ASK_SESSION_MAX) {
		warnx("relay: %d allow-session answers kept: ask %u allowed once", ASK_SESSION_MAX,
		      e->id);
		return -1;
	}
	s = &r->ask.s[r->ask.ns++];
	memset(s, 0, sizeof(*s));
	if (e->dns)
		s->scope = ok ? ASK_NAME : ASK_QUESTION;
	else if (!e->name[0])
		s->scope = ASK_ADDR;
	else
		s->scope = web_port(e->port) ? ASK_NAME : ASK_NAME_PORT;
	if (s->scope == ASK_ADDR)
		s->addr = e->dst;
	if (s->scope == ASK_ADDR || s->scope == ASK_NAME_PORT)
		s->port = e->port;
	memcpy(s->name, e->name, sizeof(s->name));
	s->id = e->id;
	return s->scope;
}

/* Every pending question of id decided d: logged once, each flow let on or refused. */
static void ask_decide(struct relay *r, uint32_t id, enum ask_decision d)
{
	int logged = 0, check = 0;

	for (unsigned int i = 0; i < ASK_PENDING_MAX && r->ask.n; i++) {
		struct ask_pending *e = &r->ask.p[i];

		if (e->id != id)
			continue;
		if (!logged) {
			ask_log_outcome(r, e, d);
			/* A name allowed as --allow-name NAME: this flow judged too. */
			if (d == ASK_ALLOW_SESSION)
				check = ask_remember(r, e) == ASK_NAME && !e->dns;
			logged = 1;
		}
		ask_apply(r, e, d, check);
	}
}

/* The decider is gone (EOF, an error, garbage): its socket closed, every question denied. */
static void ask_gone(struct relay *r, const char *why)
{
	if (r->ask.gone)
		return;
	r->ask.gone = 1;
	warnx("relay: the decider (--ask-fd %d) %s: every question is denied from now on",
	      r->cfg->ask_fd, why);
	/* Its close also leaves the epoll set. */
	r->sys->close(r->cfg->ask_fd);
	for (unsigned int i = 0; i < ASK_PENDING_MAX && r->ask.n; i++)
		if (r->ask.p[i].id)
			ask_decide(r, r->ask.p[i].id, ASK_GONE);
}

/* One answer line (without its newline): -1 when it is garbage. */
static int ask_line(struct relay *r, const char *s, size_t n)
{
	enum ask_decision d;
	uint32_t id;

	if (ask_answer_parse(s, n, &id, &d) < 0 || id > r->ask.next)
		return -1;
	/* An id no longer pending (its time ran out, the agent left) is no error. */
	ask_decide(r, id, d);
	return 0;
}

void ask_input(struct relay *r, uint32_t events)
{
	struct ask *a = &r->ask;

	while (!a->gone) {
		ssize_t got = r->sys->recv(r->cfg->ask_fd, a->line + a->len,
					   sizeof(a->line) - a->len, MSG_DONTWAIT);
		char *nl;

		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			if (events & (EPOLLHUP | EPOLLERR))
				ask_gone(r, "hung up");
			return;
		}
		if (got <= 0) {
			ask_gone(r, got ? "failed" : "closed its end");
			return;
		}
		a->len += (size_t)got;
		while ((nl = memchr(a->line, '\n', a->len))) {
			size_t n = (size_t)(nl - a->line);

			if (ask_line(r, a->line, n) < 0) {
				ask_gone(r, "wrote a line that is not an answer");
				return;
			}
			memmove(a->line, nl + 1, a->len - n - 1);
			a->len -= n + 1;
		}
		if (a->len == sizeof(a->line)) {
			ask_gone(r, "wrote a line too long");
			return;
		}
	}
}

void ask_timers(struct relay *r)
{
	for (unsigned int i = 0; i < ASK_PENDING_MAX && r->ask.n; i++) {
		struct ask_pending *e = &r->ask.p[i];

		if (e->id && r->now >= e->deadline)
			ask_decide(r, e->id, ASK_TIMEOUT);
	}
}

/* ---- questions ---------------------------------------------------------------- */

/* A pending question about the same destination as e (its id joins it), or NULL. */
static const struct ask_pending *ask_same(const struct ask *a, const struct ask_pending *e)
{
	for (unsigned int i = 0; i < ASK_PENDING_MAX; i++) {
		const struct ask_pending *o = &a->p[i];

		if (!o->id || o->dns != e->dns || o->port != e->port)
			continue;
		if (e->name[0] ? !strcmp(o->name, e->name) : ipaddr_equal(&o->dst, &e->dst))
			return o;
	}
	return NULL;
}

/*
 * e asked about: a free entry, its id (a new one, or that of the same
 * question pending), the request written and the question logged. The
 * entry, or NULL when it was decided at once (logged: too many pending, the
 * decider gone, or gone now).
 */
static struct ask_pending *ask_enter(struct relay *r, struct ask_pending *e)
{
	struct ask *a = &r->ask;
	const struct ask_pending *same = ask_same(a, e);
	struct ask_pending *slot = NULL;

	for (unsigned int i = 0; i < ASK_PENDING_MAX && !slot; i++)
		if (!a->p[i].id)
			slot = &a->p[i];
	if (!slot || !same) {
		e->id = ++a->next ? a->next : ++a->next;
		e->deadline = r->now + r->cfg->ask_timeout_ms;
		ask_log_question(r, e);
	}
	if (!slot) {
		if (!a->warned || r->now - a->warned >= 10000) {
			a->warned = r->now ? r->now : 1;
			warnx("relay: %d questions pending: denying a new one", ASK_PENDING_MAX);
		}
		ask_log_outcome(r, e, a->gone ? ASK_GONE : ASK_LIMIT);
		return NULL;
	}
	if (same) {
		e->id = same->id;
		e->deadline = same->deadline;
	} else if (!a->gone && ask_send(r, e) < 0) {
		/* A decider that cannot take the request is gone, with every question. */
		ask_gone(r, "did not take a request");
	}
	if (a->gone) {
		ask_log_outcome(r, e, ASK_GONE);
		return NULL;
	}
	*slot = *e;
	a->n++;
	return slot;
}

/* Does the allow-session answer s cover e (a question, or a flow by its address and port)? */
static int ask_covers(struct relay *r, const struct ask_allowed *s, const struct ask_pending *e)
{
	if (e->dns)
		return s->scope != ASK_ADDR && !strcmp(s->name, e->name);
	switch (s->scope) {
	case ASK_NAME:
		return web_port(e->port) && names_bound(r, &e->dst, s->name);
	case ASK_NAME_PORT:
		return s->port == e->port && names_bound(r, &e->dst, s->name);
	case ASK_ADDR:
		return s->port == e->port && ipaddr_equal(&s->addr, &e->dst);
	case ASK_QUESTION:
	default:
		return 0;
	}
}

/*
 * An allow-session answer that covers e, or NULL: one that lets a flow
 * pass unchecked (a port or an address named) before one that checks it,
 * as a rule naming the port wins in names_find.
 */
static const struct ask_allowed *ask_allowed_find(struct relay *r, const struct ask_pending *e)
{
	const struct ask_allowed *checked = NULL;

	for (unsigned int i = 0; i < r->ask.ns; i++) {
		const struct ask_allowed *s = &r->ask.s[i];

		if (!ask_covers(r, s, e))
			continue;
		if (e->dns || s->scope != ASK_NAME)
			return s;
		if (!checked)
			checked = s;
	}
	return checked;
}

int ask_session_name(const struct relay *r, const char *name, uint16_t port)
{
	if (!web_port(port))
		return 0;
	for (unsigned int i = 0; i < r->ask.ns; i++)
		if (r->ask.s[i].scope == ASK_NAME && !strcmp(r->ask.s[i].name, name))
			return 1;
	return 0;
}

int ask_flow(struct relay *r, const struct pkt *p, struct decision *d, int *check)
{
	const struct ask_allowed *s;
	struct ask_pending e;

	if (!r->cfg->ask || p->proto != PROTO_TCP || strcmp(d->rule, "no-public"))
		return 0;
	/* A SYN again of an attempt refused: refused by the same answer. */
	if (ask_refused_find(&r->ask, p))
		return 3;
	memset(&e, 0, sizeof(e));
	e.proto = PROTO_TCP;
	e.dst = p->dst;
	e.port = p->dport;
	s = ask_allowed_find(r, &e);
	if (!s)
		return 2;
	d->verdict = V_ALLOW;
	snprintf(d->rule, sizeof(d->rule), "ask-session");
	if (s->name[0])
		snprintf(d->name, sizeof(d->name), "%s", s->name);
	d->ask = s->id;
	*check = s->scope == ASK_NAME;
	return 1;
}

int ask_hold(struct relay *r, struct flow *f)
{
	struct ask_pending e, *slot;
	const char *name = names_seen(r, &f->adst);

	memset(&e, 0, sizeof(e));
	e.proto = PROTO_TCP;
	e.src = f->asrc;
	e.dst = f->adst;
	e.port = f->dport;
	e.sport = f->sport;
	e.isn = f->rcv_nxt - 1;
	if (name)
		snprintf(e.name, sizeof(e.name), "%s", name);
	e.slot = (uint32_t)(f - r->ft.flows);
	e.gen = f->gen;
	slot = ask_enter(r, &e);
	if (slot)
		return 0;
	ask_refused_keep(r, &e);
	return -1;
}

int ask_dns(struct relay *r, const struct flow *f, const uint8_t *q, size_t len,
	    const struct dns_msg *d)
{
	const struct ask_answered *a;
	struct ask_pending e;
	const char *t;

	memset(&e, 0, sizeof(e));
	e.dns = 1;
	e.proto = PROTO_UDP;
	e.src = f->asrc;
	e.sport = f->sport;
	snprintf(e.name, sizeof(e.name), "%s", d->qname);
	if (ask_allowed_find(r, &e))
		return 0;
	t = dns_qtype_name(d->qtype, e.type, sizeof(e.type));
	if (t != e.type)
		snprintf(e.type, sizeof(e.type), "%s", t);
	e.slot = (uint32_t)(f - r->ft.flows);
	e.gen = f->gen;
	if (len <= sizeof(e.q)) {
		memcpy(e.q, q, len);
		e.qlen = (uint16_t)len;
		/* The same question again, just answered: answered the same, not asked. */
		a = ask_answered_find(r, f, &e);
		if (a && a->allowed)
			return 0;
		if (!a && ask_enter(r, &e))
			return 1;
	} else {
		/* Longer than any stub's question: not held, refused. */
		e.id = ++r->ask.next;
		ask_log_question(r, &e);
		ask_log_outcome(r, &e, ASK_LIMIT);
	}
	return -1;
}
