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
static_assert(sizeof(flow_state_name) / sizeof(flow_state_name[0]) == FLOW_NUM_STATES,
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

unsigned long flow_used(const struct flow_table *t)
{
	return t->max - t->count[FLOW_FREE];
}

unsigned long flow_half_open(const struct flow_table *t)
{
	return t->count[FLOW_TCP_CONNECTING] + t->count[FLOW_TCP_SYNACK];
}

/* ---- the decision log -------------------------------------------------- */

static const char *proto_name(int proto)
{
	return proto == PROTO_TCP ? "tcp" : proto == PROTO_UDP ? "udp" : "icmp";
}

static void log_decision(struct relay *r, int proto, const struct pkt *p, const struct decision *d)
{
	char s[64], t[64], key[RECORD_KEY_MAX];

	/* One kind per rule, destination and name: a flood of one is thinned. */
	snprintf(key, sizeof(key), "%s %s %s %u %s", d->rule, proto_name(proto),
		 ipaddr_str(&p->dst, t, sizeof(t)), proto == PROTO_ICMP ? 0u : p->dport, d->name);
	relay_log_thin(r, "net", key,
		       ",\"proto\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		       "\"port\":%u,\"verdict\":\"%s\",\"rule\":\"%s\"%s%s%s%s%s%s%.0u}\n",
		       proto_name(proto), ipaddr_str(&p->src, s, sizeof(s)),
		       ipaddr_str(&p->dst, t, sizeof(t)), proto == PROTO_ICMP ? 0 : p->dport,
		       d->verdict == V_ALLOW ? "allow" : "deny", d->rule,
		       d->name[0] ? ",\"name\":\"" : "", d->name,
		       d->pattern ? "\",\"pattern\":\"" : "", d->pattern ? d->pattern : "",
		       d->name[0] ? "\"" : "", d->ask ? ",\"ask\":" : "", d->ask);
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

struct flow *flow_at(struct flow_table *t, uint64_t ref)
{
	uint32_t slot = (uint32_t)ref, gen = (uint32_t)(ref >> 32) & EV_GEN_MASK;
	struct flow *f;

	if (slot >= t->max)
		return NULL;
	f = &t->flows[slot];
	if (f->state == FLOW_FREE || (f->gen & EV_GEN_MASK) != gen)
		return NULL;
	return f;
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

/*
 * Past a bound, a new flow is refused and logged as denied; the warning on
 * stderr at most every 10 s per bound, as a flood would fill the log.
 */
static int over_bound(struct relay *r, const struct pkt *p, struct decision *d)
{
	static const char *const NAME[3] = { "max-flows", "max-half-open", "max-udp-flows" };
	unsigned long max[3] = { r->cfg->max_flows, r->cfg->max_half_open, r->cfg->max_udp_flows };
	int k;

	if (flow_used(&r->ft) >= r->cfg->max_flows)
		k = 0;
	else if (p->proto == PROTO_TCP && flow_half_open(&r->ft) >= r->cfg->max_half_open)
		k = 1;
	else if (p->proto == PROTO_UDP && r->ft.count[FLOW_UDP] >= r->cfg->max_udp_flows)
		k = 2;
	else
		return 0;
	d->verdict = V_DENY;
	snprintf(d->rule, sizeof(d->rule), "%s", NAME[k]);
	if (!r->ft.warned[k] || r->now - r->ft.warned[k] >= 10000) {
		r->ft.warned[k] = r->now ? r->now : 1;
		warnx("relay: --%s %lu reached: refusing a new flow", NAME[k], max[k]);
	}
	return 1;
}

/*
 * A gateway flow's host socket: one end of a new socket pair, the other end
 * sent to otogate on its socket with the port the agent asked for (one
 * message: the port as an int, the fd by SCM_RIGHTS; MSG_DONTWAIT, as the
 * relay never waits). The fd, or -1 with errno (a dead or saturated gateway:
 * the agent's flow is refused, nothing goes any other way).
 */
#define GATEWAY_SNDBUF (256 * 1024)
int flow_gateway_socket(struct relay *r, uint16_t port)
{
	int sv[2], msg = port, sndbuf = GATEWAY_SNDBUF;
	struct fd_msg x;
	ssize_t n;

	if (r->sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	/*
	 * Each way's send buffer, the relay's (the agent's upload) and the
	 * gateway's (the response), at GATEWAY_SNDBUF rather than wmem_default:
	 * the relay's window towards the agent is this buffer's room, and a
	 * small one made the agent wait for the gateway at every few segments.
	 * The kernel caps it at wmem_max and doubles it; a failure leaves the
	 * default, slower and no less correct.
	 */
	for (int i = 0; i < 2; i++)
		r->sys->setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	fd_msg_init(&x, &msg, sizeof(msg), sv[1]);
	n = r->sys->sendmsg(r->cfg->gateway_fd, &x.m, MSG_DONTWAIT | MSG_NOSIGNAL);
	r->sys->close(sv[1]);
	if (n != (ssize_t)sizeof(msg)) {
		int e = n < 0 ? errno : EPROTO;

		r->sys->close(sv[0]);
		errno = e;
		return -1;
	}
	return sv[0];
}

/*
 * A name the agent resolved (an --allow-name rule's) bound to dst: under
 * --no-public the only way to a public address besides the exceptions,
 * what the flow sends then judged (namecheck.c) unless the rule names the
 * port; with the internet open, only named in the log. The address rules
 * came first: a private address is never bound anyway (names.c hides it),
 * and is refused before this.
 */
static void name_decide(struct relay *r, const struct pkt *p, struct decision *d, int *check)
{
	const char *name;
	int rule, named;

	*check = 0;
	/*
	 * TCP only: a UDP flow (QUIC) carries no name the relay can read
	 * cheaply, and would reach other names on the address unchecked.
	 */
	if (!r->names.b || p->proto != PROTO_TCP)
		return;
	if (strcmp(d->rule, d->verdict == V_ALLOW ? "public" : "no-public"))
		return;
	name = names_find(r, &p->dst, p->dport, NULL, &rule, &named);
	if (!name)
		return;
	*check = d->verdict == V_DENY && !named;
	d->verdict = V_ALLOW;
	snprintf(d->rule, sizeof(d->rule), "name");
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->pattern = r->cfg->f->names[rule].pat;
}

/*
 * A TCP flow to an address the relay's DNS gave for a transparent grant's
 * host, on its port: the grant's index, or -1. Only where the address rules
 * let the internet decide (never a private range, the resolver or the
 * gateway's own address): the flow is then judged by its ClientHello
 * (namecheck.c), and *after says what it follows when that names another
 * host. A flow no rule allows is let through to be judged, its host side a
 * socket pair that goes nowhere (*pair).
 */
static int gate_decide(struct relay *r, const struct pkt *p, struct decision *d, int check,
		       unsigned char *after, int *pair)
{
	int ix;

	*pair = 0;
	if (p->proto != PROTO_TCP || r->cfg->gateway_fd < 0 || !r->cfg->f->ngates ||
	    (strcmp(d->rule, "public") && strcmp(d->rule, "no-public") && strcmp(d->rule, "name") &&
	     strcmp(d->rule, "exception")))
		return -1;
	ix = names_gate(r, &p->dst, p->dport, NULL);
	if (ix < 0)
		return -1;
	if (d->verdict == V_DENY) {
		*after = GA_DENY;
		*pair = 1;
		d->verdict = V_ALLOW;
	} else {
		*after = check ? GA_CHECK : GA_PASS;
	}
	return ix;
}

/* The host side of a flow to be judged that no rule allows: a socket pair's end. */
static int gate_pair(struct relay *r, int *peer)
{
	int sv[2];

	if (r->sys->socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	*peer = sv[1];
	return sv[0];
}

/*
 * A new TCP flow to be asked about (ask.c): in the table, FLOW_TCP_ASKING,
 * with no host socket until the decider allows it (flow_resume); tcp.c
 * holds its SYN (ask_hold). The bounds hold for it as for any flow. NULL
 * when refused (logged).
 */
static struct flow *flow_hold(struct relay *r, const struct pkt *p, struct decision *d)
{
	struct flow *f;

	if (over_bound(r, p, d) || !(f = flow_new(r, p, -1, FLOW_TCP_ASKING))) {
		d->verdict = V_DENY;
		log_decision(r, p->proto, p, d);
		return NULL;
	}
	f->route = ROUTE_DIRECT;
	return f;
}

enum flow_fate flow_resume(struct relay *r, struct flow *f)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = r->sys->socket(f->adst.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		log_msg(LOG_DEBUG, errno,
			"relay: unable to open a host socket for an allowed flow");
		return tcp_reset_agent(r, f);
	}
	f->fd = fd;
	/* Its time to connect runs from now, not from the SYN the agent sent. */
	f->born = f->last = r->now;
	flow_set_state(&r->ft, f, FLOW_TCP_CONNECTING);
	tcp_sock_setup(r, f);
	sl = host_sa(r, f, &ss);
	if (r->sys->connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		log_msg(LOG_DEBUG, errno, "relay: unable to connect the host socket of a flow");
		return tcp_reset_agent(r, f);
	}
	tcp_watch(r, f);
	return FLOW_KEPT;
}

/* The filter, then a connected host socket. NULL when refused or impossible. */
struct flow *flow_open(struct relay *r, const struct pkt *p)
{
	struct decision d = { .verdict = V_DENY };
	struct flow *f;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, fam, type = SOCK_DGRAM, sproto = 0;
	enum flow_state st = FLOW_UDP;
	enum flow_route route;
	int check, gate, pair, peer = -1, asked;
	unsigned char after = GA_PASS;

	filter_decide(r->cfg->f, p->proto, &p->dst, p->proto == PROTO_ICMP ? 0 : p->dport, &d);
	name_decide(r, p, &d, &check);
	gate = gate_decide(r, p, &d, check, &after, &pair);
	/*
	 * --no-public refused it and a decider is there: allowed for the
	 * session, asked, or the SYN again of an attempt an answer refused.
	 */
	if (d.verdict == V_DENY && (asked = ask_flow(r, p, &d)) >= 2)
		return asked == 2 ? flow_hold(r, p, &d) : NULL;
	if (d.verdict == V_ALLOW && d.dns && !r->cfg->resolver.family) {
		d.verdict = V_DENY;
		snprintf(d.rule, sizeof(d.rule), "dns");
	}
	/* A gateway port without a gateway cannot be: the filter has none then. */
	if (d.verdict == V_ALLOW && d.gateway && r->cfg->gateway_fd < 0) {
		d.verdict = V_DENY;
		snprintf(d.rule, sizeof(d.rule), "gateway");
	}
	if (d.verdict == V_ALLOW)
		over_bound(r, p, &d);
	/*
	 * An allowed DNS flow's questions have lines of their own (names.c);
	 * so has a flow let through only to be judged (namecheck.c).
	 */
	if (!(d.verdict == V_ALLOW && (d.dns || pair)))
		log_decision(r, p->proto, p, &d);
	if (d.verdict != V_ALLOW)
		return NULL;
	route = d.gateway ? ROUTE_GATEWAY : d.dns ? ROUTE_DNS : pair ? ROUTE_LOCAL : ROUTE_DIRECT;
	fam = route_host(r, route, &p->dst)->family;
	if (p->proto == PROTO_TCP) {
		type = SOCK_STREAM;
		st = FLOW_TCP_CONNECTING;
	} else if (p->proto == PROTO_ICMP) {
		/* A ping socket: the kernel keeps the echo id and the checksum. */
		sproto = fam == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		st = FLOW_ECHO;
	}
	if (route == ROUTE_GATEWAY)
		fd = flow_gateway_socket(r, p->dport);
	else if (pair)
		fd = gate_pair(r, &peer);
	else
		fd = r->sys->socket(fam, type | SOCK_NONBLOCK | SOCK_CLOEXEC, sproto);
	if (fd < 0 && route == ROUTE_GATEWAY) {
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
			proto_name(p->proto));
		return NULL;
	}
	f = flow_new(r, p, fd, st);
	if (!f) {
		r->sys->close(fd);
		if (peer >= 0)
			r->sys->close(peer);
		return NULL;
	}
	f->route = route;
	f->nphase = check || gate >= 0 ? NP_FIRST : NP_NONE;
	f->gate_ix = (unsigned char)(gate + 1);
	f->gate_after = after;
	f->gate_peer = peer + 1;
	if (p->proto == PROTO_TCP)
		tcp_sock_setup(r, f);
	/* A gateway flow's socket is connected already: its first EPOLLOUT says so. */
	if (route == ROUTE_GATEWAY || route == ROUTE_LOCAL)
		return f;
	sl = host_sa(r, f, &ss);
	if (r->sys->connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		log_msg(LOG_DEBUG, errno,
			"relay: unable to connect the host socket of a new %s flow",
			proto_name(p->proto));
		flow_free(r, f);
		return NULL;
	}
	return f;
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
	if (r->ask.p)
		ask_timers(r);
}
