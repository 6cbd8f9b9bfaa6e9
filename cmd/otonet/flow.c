/* SPDX-License-Identifier: ISC */
/*
 * The relay's flow table (flow.h): slots allocated once, free ones in a
 * list, used ones in hash chains keyed by protocol, the agent-side addresses
 * and ports. A flow is opened here (the filter's decision, logged; the
 * bounds; a connected host socket), watched, timed and freed; what happens on
 * it is the business of tcp.c and dgram.c.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

const char *const flow_state_name[] = {
	[FLOW_FREE] = "free",
	[FLOW_TCP_ASKING] = "tcp asking",
	[FLOW_TCP_CONNECTING] = "tcp connecting",
	[FLOW_TCP_SYNACK] = "tcp syn-ack sent",
	[FLOW_TCP_ESTABLISHED] = "tcp established",
	[FLOW_UDP] = "udp",
	[FLOW_ECHO] = "echo",
};
static_assert(ARRAY_SIZE(flow_state_name) == FLOW_NUM_STATES,
	      "flow_state_name[] does not name every enum flow_state");

int flow_table_init(struct flow_table *t, unsigned long max)
{
	unsigned int hsize = 1;

	while (hsize < 2 * max)
		hsize <<= 1;
	t->hmask = hsize - 1;
	t->max = max;
	t->count[FLOW_FREE] = max;
	t->flows = calloc(max, sizeof(*t->flows));
	t->heads = malloc(hsize * sizeof(*t->heads));
	if (!t->flows || !t->heads) {
		free(t->flows);
		free(t->heads);
		errno = ENOMEM;
		return -1;
	}
	for (unsigned int i = 0; i < hsize; i++)
		t->heads[i] = -1;
	/*
	 * No slot is touched before its first use (slots from nscan on are
	 * calloc's zeros: FLOW_FREE): writing all 4096 up front faulted in
	 * every page of the table (about 1 MiB) in the relay, at every launch.
	 * The free list holds freed slots only,
	 * most recent first, then flow_new takes nscan: the same order as a
	 * list of every slot would give.
	 */
	t->free_head = -1;
	t->nscan = 0;
	return 0;
}

void flow_table_fini(struct flow_table *t)
{
	free(t->flows);
	free(t->heads);
	t->flows = NULL;
	t->heads = NULL;
}

void flow_set_state(struct flow_table *t, struct flow *f, enum flow_state st)
{
	t->count[f->state]--;
	t->count[st]++;
	f->state = st;
}

/* ---- the flow table ----------------------------------------------------- */

static unsigned int flow_hash(const struct flow_table *t, int proto, const struct ipaddr *src,
			      const struct ipaddr *dst, uint16_t sport, uint16_t dport)
{
	uint32_t h = 2166136261u ^ (uint32_t)proto;
	size_t n = src->family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < n; i++)
		h = (h ^ src->a[i]) * 16777619u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ dst->a[i]) * 16777619u;
	h = (h ^ sport) * 16777619u;
	h = (h ^ dport) * 16777619u;
	return h & t->hmask;
}

struct flow *flow_find(struct relay *r, const struct pkt *p)
{
	unsigned int h = flow_hash(&r->ft, p->proto, &p->src, &p->dst, p->sport, p->dport);

	for (int i = r->ft.heads[h]; i >= 0; i = r->ft.flows[i].next) {
		struct flow *f = &r->ft.flows[i];

		if (f->proto == p->proto && f->sport == p->sport && f->dport == p->dport &&
		    ipaddr_equal(&f->asrc, &p->src) && ipaddr_equal(&f->adst, &p->dst))
			return f;
	}
	return NULL;
}

static struct flow *flow_new(struct relay *r, const struct pkt *p, int fd, enum flow_state st)
{
	struct flow *f;
	unsigned int h;
	uint32_t gen;
	int i = r->ft.free_head;

	if (i >= 0) {
		f = &r->ft.flows[i];
		r->ft.free_head = f->next;
	} else if (r->ft.nscan < r->ft.max) {
		i = (int)r->ft.nscan++;
		f = &r->ft.flows[i];
	} else {
		return NULL;
	}
	gen = f->gen + 1;
	memset(f, 0, sizeof(*f));
	f->gen = gen;
	f->state = FLOW_FREE;
	flow_set_state(&r->ft, f, st);
	f->proto = p->proto;
	f->fd = fd;
	f->asrc = p->src;
	f->adst = p->dst;
	f->sport = p->sport;
	f->dport = p->dport;
	f->last = f->born = r->now;
	h = flow_hash(&r->ft, p->proto, &p->src, &p->dst, p->sport, p->dport);
	f->next = r->ft.heads[h];
	r->ft.heads[h] = i;
	return f;
}

enum flow_fate flow_free(struct relay *r, struct flow *f)
{
	unsigned int h = flow_hash(&r->ft, f->proto, &f->asrc, &f->adst, f->sport, f->dport);
	int idx = (int)(f - r->ft.flows);

	if (f->proto == PROTO_TCP)
		tcp_flow_free(r, f);
	for (int *pp = &r->ft.heads[h]; *pp >= 0; pp = &r->ft.flows[*pp].next) {
		if (*pp == idx) {
			*pp = f->next;
			break;
		}
	}
	if (f->fd >= 0)
		r->sys->close(f->fd); /* also leaves the epoll set */
	flow_set_state(&r->ft, f, FLOW_FREE);
	f->fd = -1;
	f->next = r->ft.free_head;
	r->ft.free_head = idx;
	return FLOW_FREED;
}

int flow_watch(struct relay *r, struct flow *f, uint32_t events)
{
	enum relay_event type = f->proto == PROTO_TCP ? EV_TCP : EV_DGRAM;
	uint32_t slot = (uint32_t)(f - r->ft.flows);
	struct epoll_event ev = { .events = events, .data.u64 = ev_ref(type, slot, f->gen) };
	int op = f->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (f->events == events)
		return 0;
	f->events = events;
	return r->sys->epoll_ctl(r->ep, op, f->fd, &ev);
}

/* The host a flow to dst goes to by its route. */
static const struct ipaddr *route_host(struct relay *r, enum flow_route route,
				       const struct ipaddr *dst)
{
	switch (route) {
	case ROUTE_DNS:
		return &r->cfg->resolver;
	case ROUTE_GATEWAY: /* a socket pair: only the family counts, as the agent's */
	case ROUTE_DIRECT:
	default:
		return dst;
	}
}

/* The host-side address of a flow: its route's host; its port (53 for DNS), or 0 for echo. */
static socklen_t host_sa(struct relay *r, const struct flow *f, struct sockaddr_storage *ss)
{
	const struct ipaddr *a = route_host(r, f->route, &f->adst);
	uint16_t port = f->proto == PROTO_ICMP ? 0 : f->route == ROUTE_DNS ? 53 : f->dport;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		memcpy(&s->sin_addr, a->a, 4);
		return sizeof(*s);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->a, 16);
	return sizeof(*s6);
}

int flow_connect(struct relay *r, struct flow *f)
{
	struct sockaddr_storage ss;
	socklen_t sl = host_sa(r, f, &ss);

	if (r->sys->connect(f->fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS)
		return -1;
	return 0;
}

/* The host side of a flow to be judged that no rule allows: a socket pair's end. */
static int local_pair(struct relay *r, int *peer)
{
	int sv[2];

	if (r->sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	*peer = sv[1];
	return sv[0];
}

/*
 * The verdict (admit.c), then the flow: held without a host socket to be
 * asked about, or with its host socket opened and connecting by its route.
 * NULL when refused or impossible.
 */
struct flow *flow_open(struct relay *r, const struct pkt *p)
{
	struct admission a;
	struct flow *f;
	int fd, fam, type = SOCK_DGRAM, sproto = 0, peer = -1;
	enum flow_state st = FLOW_UDP;

	admit(r, p, &a);
	if (a.verdict == ADMIT_DENY)
		return NULL;
	/* To be asked about (ask.c): no host socket until the decider allows it. */
	if (a.verdict == ADMIT_ASK) {
		f = flow_new(r, p, -1, FLOW_TCP_ASKING);
		if (f)
			f->route = ROUTE_DIRECT;
		return f;
	}
	fam = route_host(r, a.route, &p->dst)->family;
	if (p->proto == PROTO_TCP) {
		type = SOCK_STREAM;
		st = FLOW_TCP_CONNECTING;
	} else if (p->proto == PROTO_ICMP) {
		/* A ping socket: the kernel keeps the echo id and the checksum. */
		sproto = fam == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		st = FLOW_ECHO;
	}
	if (a.route == ROUTE_GATEWAY)
		fd = gateway_socket(r, p->dport);
	else if (a.route == ROUTE_LOCAL)
		fd = local_pair(r, &peer);
	else
		fd = r->sys->socket(fam, type | SOCK_NONBLOCK | SOCK_CLOEXEC, sproto);
	if (fd < 0 && a.route == ROUTE_GATEWAY) {
		/* At most every 10 s: an agent retrying would fill the log. */
		if (!r->gw_warned || r->now - r->gw_warned >= 10000) {
			r->gw_warned = r->now ? r->now : 1;
			warnx("relay: unable to hand a flow to the gateway (port %u): %s", p->dport,
			      strerror(errno));
		}
		return NULL;
	}
	if (fd < 0) {
		log_msg(LOG_DEBUG, errno, "relay: unable to open a host socket for a new %s flow",
			relay_proto_name(p->proto));
		return NULL;
	}
	f = flow_new(r, p, fd, st);
	if (!f) {
		r->sys->close(fd);
		if (peer >= 0)
			r->sys->close(peer);
		return NULL;
	}
	f->route = a.route;
	f->nphase = a.nphase;
	f->gate_ix = a.gate_ix;
	f->gate_after = a.gate_after;
	f->gate_peer = peer + 1;
	if (p->proto == PROTO_TCP)
		tcp_sock_setup(r, f);
	/* A gateway flow's socket is connected already: its first EPOLLOUT says so. */
	if (a.route == ROUTE_GATEWAY || a.route == ROUTE_LOCAL)
		return f;
	if (flow_connect(r, f) < 0) {
		log_msg(LOG_DEBUG, errno,
			"relay: unable to connect the host socket of a new %s flow",
			relay_proto_name(p->proto));
		flow_free(r, f);
		return NULL;
	}
	return f;
}

/*
 * The decider's answers (ask.c queues them): each to its flow, by the
 * flow's type, as any event is; a flow gone meanwhile is skipped.
 */
void flow_answers(struct relay *r)
{
	for (unsigned int i = 0; i < r->ask.nout; i++) {
		const struct ask_verdict *v = &r->ask.out[i];
		struct flow *f = flow_at(&r->ft, ev_ref(EV_NONE, v->slot, v->gen));

		if (!f)
			continue;
		switch (f->state) {
		case FLOW_TCP_ASKING:
			/* Allowed as --allow-name NAME: judged by its first bytes. */
			if (v->check)
				f->nphase = NP_FIRST;
			tcp_answer(r, f, v->allow);
			break;
		case FLOW_UDP:
			dgram_answer(r, f, v->allow, v->q, v->qlen);
			break;
		case FLOW_FREE:
		case FLOW_TCP_CONNECTING:
		case FLOW_TCP_SYNACK:
		case FLOW_TCP_ESTABLISHED:
		case FLOW_ECHO:
		default:
			break;
		}
	}
	r->ask.nout = 0;
}

void flow_timers(struct relay *r)
{
	for (unsigned long i = 0; i < r->ft.nscan; i++) {
		struct flow *f = &r->ft.flows[i];

		switch (f->state) {
		case FLOW_TCP_ASKING: /* its time is the question's (ask_timers) */
			break;
		case FLOW_TCP_CONNECTING:
		case FLOW_TCP_SYNACK:
		case FLOW_TCP_ESTABLISHED:
			tcp_timer(r, f);
			break;
		case FLOW_UDP:
		case FLOW_ECHO:
			dgram_timer(r, f);
			break;
		case FLOW_FREE:
		default:
			break;
		}
	}
	names_timer(r);
	if (r->ask.p) {
		ask_timers(r);
		flow_answers(r);
	}
}
