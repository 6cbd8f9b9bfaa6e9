/* SPDX-License-Identifier: ISC */
/*
 * Names in the relay (relay.h, "names.c"): what the relay does with the DNS
 * it carries, and the table of names bound for --allow-name (namecheck.c
 * judges what a flow to a bound address sends).
 *
 *  - No map of the private network through DNS: every answer the host's
 *    resolver sends back has its A and AAAA records pointing into a refused
 *    range (the host's own addresses, the special-purpose ranges not
 *    declared --public) hidden, unless an --allow exception names the
 *    address; an answer left without an address in its answer section
 *    becomes NXDOMAIN (dns_hide). A question of any type about the reverse
 *    name of such an address (or of a zone above it) is answered NXDOMAIN,
 *    never asked. Over UDP and over TCP alike: the changes keep a message's
 *    length.
 *  - The resolver gets plain questions only (dns_question_refused): an
 *    UPDATE, a NOTIFY, a response, two questions, records beside an EDNS
 *    OPT, a transfer, bytes that are not DNS are refused and logged, never
 *    forwarded: over UDP dropped or answered with a header and its rcode,
 *    over TCP the flow reset.
 *  - --allow-name: an answer to a question whose name a rule matches binds
 *    each address its chain leads to (dns_chain) to that name, for the
 *    answer's TTL clamped to [name_ttl_min, NAMES_TTL_MAX]; under
 *    --no-public, a new TCP flow to a bound address (on a port a rule of
 *    the name allows: its own, or 80 and 443) is allowed, by rule "name",
 *    and a question no rule matches never
 *    reaches the resolver: answered NXDOMAIN over UDP, the flow reset over
 *    TCP (names_tcp_query).
 *  - The table of bindings is allocated at start: NAMES_MAX bindings.
 *    Expired ones are reclaimed when a new one finds no free slot; when
 *    every one is alive, the new name is refused (SERVFAIL under
 *    --no-public), logged.
 *  - What a flow a name allowed sends is judged in namecheck.c, against
 *    the names bound to its address (names_find), by a rule or by a
 *    decider's allow-session answer for the name (ask_session_name).
 *  - A transparent grant's host (OTO_GATEWAY) is bound the same way, by
 *    its exact name (gates): a flow to such an address on the grant's port
 *    is judged by its ClientHello, whose server_name must be that name for
 *    the flow to go to the gateway (names_gate; namecheck.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "oto.h"
#include "be.h"
#include "otonet.h"
#include "relay.h"

struct binding {
	struct ipaddr addr;
	uint64_t expires; /* ms, r->now's clock; 0: free */
	int next;	  /* hash chain or free list, -1 ends */
	uint64_t rules;	  /* the --allow-name rules its name matches, one bit each */
	uint32_t gates;	  /* the transparent grants its name is, one bit each */
	char name[DNS_NAME_MAX];
};

static unsigned int addr_hash(const struct names *t, const struct ipaddr *a)
{
	uint32_t h = 2166136261u ^ (uint32_t)a->family;

	for (size_t i = 0; i < (a->family == AF_INET ? 4U : 16U); i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h & t->hmask;
}

int names_init(struct names *t, unsigned long max)
{
	unsigned int hsize = 1;

	memset(t, 0, sizeof(*t));
	while (hsize < 2 * max)
		hsize <<= 1;
	t->hmask = hsize - 1;
	t->max = max;
	t->b = calloc(max, sizeof(*t->b));
	t->heads = malloc(hsize * sizeof(*t->heads));
	t->scratch = malloc(NAMES_HOLD_MAX);
	if (!t->b || !t->heads || !t->scratch) {
		free(t->b);
		free(t->heads);
		free(t->scratch);
		t->b = NULL;
		t->heads = NULL;
		t->scratch = NULL;
		errno = ENOMEM;
		return -1;
	}
	t->used = 1; /* names_reset: every slot made free */
	names_reset(t);
	return 0;
}

void names_reset(struct names *t)
{
	t->swept = t->warned = 0;
	if (!t->b || !t->used)
		return;
	for (unsigned int i = 0; i <= t->hmask; i++)
		t->heads[i] = -1;
	t->free_head = -1;
	for (unsigned long i = t->max; i-- > 0;) {
		t->b[i].expires = 0;
		t->b[i].next = t->free_head;
		t->free_head = (int)i;
	}
	t->used = 0;
}

void names_fini(struct names *t)
{
	free(t->b);
	free(t->heads);
	free(t->scratch);
	t->b = NULL;
	t->heads = NULL;
	t->scratch = NULL;
}

size_t names_binding_size(void)
{
	return sizeof(struct binding);
}

/* Every expired binding back to the free list. */
static void names_expire(struct names *t, uint64_t now)
{
	for (unsigned int h = 0; h <= t->hmask; h++) {
		for (int *pp = &t->heads[h]; *pp >= 0;) {
			struct binding *b = &t->b[*pp];

			if (b->expires > now) {
				pp = &b->next;
				continue;
			}
			int i = *pp;

			*pp = b->next;
			b->expires = 0;
			b->next = t->free_head;
			t->free_head = i;
			t->used--;
		}
	}
}

void names_timer(struct relay *r)
{
	/* Every 10 s: lookups skip expired bindings, this keeps the chains short. */
	if (!r->names.b || !r->names.used || r->now - r->names.swept < 10000)
		return;
	r->names.swept = r->now;
	names_expire(&r->names, r->now);
}

/* a bound to name (rules) until expires: refreshed if there, else a new binding. -1 when full. */
static int names_bind(struct relay *r, const struct ipaddr *a, const char *name, uint64_t rules,
		      uint32_t gates, uint64_t expires)
{
	struct names *t = &r->names;
	unsigned int h = addr_hash(t, a);
	struct binding *b;
	int i;

	for (i = t->heads[h]; i >= 0; i = t->b[i].next) {
		b = &t->b[i];
		if (ipaddr_equal(&b->addr, a) && !strcmp(b->name, name)) {
			if (b->expires < expires)
				b->expires = expires;
			return 0;
		}
	}
	if (t->free_head < 0)
		names_expire(t, r->now);
	i = t->free_head;
	if (i < 0)
		return -1;
	b = &t->b[i];
	t->free_head = b->next;
	b->addr = *a;
	b->expires = expires;
	b->rules = rules;
	b->gates = gates;
	memcpy(b->name, name, strlen(name) + 1);
	b->next = t->heads[h];
	t->heads[h] = i;
	t->used++;
	return 0;
}

/*
 * Does rule allow port? A rule with a port, that port alone (and any
 * protocol there); one without, 80 and 443, where the name is checked.
 */
static int rule_allows(const struct name_rule *nr, uint16_t port)
{
	return nr->port ? nr->port == port : port == 80 || port == 443;
}

const char *names_find(struct relay *r, const struct ipaddr *a, uint16_t port, const char *name,
		       int *rule, int *named)
{
	struct names *t = &r->names;
	const struct filter *f = r->cfg->f;
	const char *found = NULL;

	if (named) {
		size_t k = 0;

		*named = 0;
		/* No rule names this port: the first binding found will do, as without named. */
		while (k < f->nnames && f->names[k].port != port)
			k++;
		if (k == f->nnames)
			named = NULL;
	}
	if (!t->b)
		return NULL;
	for (int i = t->heads[addr_hash(t, a)]; i >= 0; i = t->b[i].next) {
		const struct binding *b = &t->b[i];

		if (b->expires <= r->now || !ipaddr_equal(&b->addr, a))
			continue;
		if (name && strcmp(name, b->name))
			continue;
		for (size_t k = 0; k < f->nnames; k++) {
			if (!(b->rules >> k & 1) || !rule_allows(&f->names[k], port))
				continue;
			/* A rule naming the port wins: the flow is then not checked. */
			if (f->names[k].port || !found) {
				found = b->name;
				if (rule)
					*rule = (int)k;
			}
			if (f->names[k].port) {
				if (named)
					*named = 1;
				return found;
			}
		}
		if (found && !named)
			return found;
		/*
		 * A flow's own name (its SNI or Host) that an allow-session answer
		 * allowed as --allow-name NAME passes its check as a rule's would.
		 */
		if (!found && name && ask_session_name(r, b->name, port))
			return b->name;
	}
	return found;
}

int names_gate(struct relay *r, const struct ipaddr *a, uint16_t port, const char *name)
{
	struct names *t = &r->names;
	const struct filter *f = r->cfg->f;

	if (!t->b || !f->ngates)
		return -1;
	for (int i = t->heads[addr_hash(t, a)]; i >= 0; i = t->b[i].next) {
		const struct binding *b = &t->b[i];

		if (b->expires <= r->now || !b->gates || !ipaddr_equal(&b->addr, a))
			continue;
		if (name && strcmp(name, b->name))
			continue;
		for (size_t k = 0; k < f->ngates; k++)
			if ((b->gates >> k & 1) && f->gates[k].port == port)
				return (int)k;
	}
	return -1;
}

const char *names_seen(struct relay *r, const struct ipaddr *a)
{
	struct names *t = &r->names;

	if (!t->b)
		return NULL;
	for (int i = t->heads[addr_hash(t, a)]; i >= 0; i = t->b[i].next)
		if (t->b[i].expires > r->now && ipaddr_equal(&t->b[i].addr, a))
			return t->b[i].name;
	return NULL;
}

int names_bound(struct relay *r, const struct ipaddr *a, const char *name)
{
	struct names *t = &r->names;

	if (!t->b)
		return 0;
	for (int i = t->heads[addr_hash(t, a)]; i >= 0; i = t->b[i].next)
		if (t->b[i].expires > r->now && ipaddr_equal(&t->b[i].addr, a) &&
		    !strcmp(t->b[i].name, name))
			return 1;
	return 0;
}

/* ---- the log ------------------------------------------------------------ */

const char *dns_qtype_name(unsigned int t, char *buf, size_t size)
{
	static const struct {
		unsigned int t;
		const char *name;
	} T[] = { { 1, "A" },	 { 2, "NS" },	 { 5, "CNAME" },  { 6, "SOA" },
		  { 12, "PTR" }, { 15, "MX" },	 { 16, "TXT" },	  { 28, "AAAA" },
		  { 33, "SRV" }, { 64, "SVCB" }, { 65, "HTTPS" }, { 255, "ANY" } };

	for (size_t i = 0; i < ARRAY_SIZE(T); i++)
		if (T[i].t == t)
			return T[i].name;
	snprintf(buf, size, "TYPE%u", t);
	return buf;
}

/* What became of an answer the resolver gave, by its rcode. */
static const char *rcode_outcome(unsigned int rcode)
{
	return rcode == DNS_NOERROR    ? "answered"
	       : rcode == DNS_NXDOMAIN ? "nxdomain"
	       : rcode == DNS_SERVFAIL ? "servfail"
	       : rcode == DNS_REFUSED  ? "refused"
	       : rcode == DNS_FORMERR  ? "formerr"
	       : rcode == DNS_NOTIMP   ? "notimp"
				       : "error";
}

/*
 * One question's line (source "dns"): its name and type (d's, NULL: none
 * could be read), what became of it (outcome: answered, nxdomain,
 * private-stripped, servfail...), and for a refusal the rule; n: the
 * records the rule concerns (hidden, or not bound).
 */
static void names_log(struct relay *r, const struct flow *f, const struct dns_msg *d,
		      const char *outcome, const char *rule, int n)
{
	char s[64], t[16], key[RECORD_KEY_MAX];

	/* One kind per rule and name: a flood of one question is thinned. */
	snprintf(key, sizeof(key), "%s %s", *rule ? rule : "dns", d ? d->qname : "");
	relay_log_thin(r, "dns", key,
		       ",\"verdict\":\"%s\",\"proto\":\"%s\",\"src\":\"%s\",\"name\":\"%s\","
		       "\"type\":\"%s\",\"outcome\":\"%s\",\"rule\":\"%s\",\"records\":%d}\n",
		       *rule ? "deny" : "allow", f->proto == PROTO_TCP ? "tcp" : "udp",
		       ipaddr_str(&f->asrc, s, sizeof(s)), d ? d->qname : "",
		       d ? dns_qtype_name(d->qtype, t, sizeof(t)) : "", outcome,
		       *rule ? rule : "dns", n);
}

/* ---- DNS ------------------------------------------------------------------ */

/* Is a in a refused range that no exception names? (dns_hide's question) */
static int addr_refused(void *ctx, const struct ipaddr *a)
{
	const struct filter *f = ctx;

	for (size_t i = 0; i < f->nallow; i++)
		if (ipaddr_equal(&f->allow[i].addr, a))
			return 0;
	for (size_t i = 0; i < f->nhost; i++)
		if (ipaddr_equal(&f->host[i], a))
			return 1;
	for (size_t i = 0; i < f->npub; i++)
		if (cidr_contains(&f->pub[i], a))
			return 0;
	return cidr_special(a) != NULL;
}

/* The first --allow-name rule matching name, or -1; -2: an exception's own name. */
static int name_rule(const struct filter *f, const char *name)
{
	for (size_t i = 0; i < f->nnames; i++)
		if (name_match(f->names[i].pat, name))
			return (int)i;
	for (size_t i = 0; i < f->nexc_names; i++)
		if (!strcmp(f->exc_names[i], name))
			return -2;
	return -1;
}

/* Every --allow-name rule matching name, one bit each: a.test:22 and *.test both bind a.test. */
static uint64_t name_rules(const struct filter *f, const char *name)
{
	uint64_t m = 0;

	for (size_t i = 0; i < f->nnames; i++)
		if (name_match(f->names[i].pat, name))
			m |= 1ULL << i;
	return m;
}

/* The transparent grants whose host is name, one bit each. */
static uint32_t name_gates(const struct filter *f, const char *name)
{
	uint32_t m = 0;

	for (size_t i = 0; i < f->ngates; i++)
		if (!strcmp(f->gates[i].name, name))
			m |= 1U << i;
	return m;
}

/* Under --no-public with name rules, a name no rule matches (nor a transparent grant's) is not
 * asked about. */
static int name_refused(const struct filter *f, const char *name)
{
	return f->nnames && f->no_public && name_rule(f, name) == -1 && !name_gates(f, name);
}

struct bind_ctx {
	struct relay *r;
	const char *name;
	uint64_t rules;
	uint32_t gates;
	int failed;
};

static void bind_one(void *ctx, const struct ipaddr *a, uint32_t ttl)
{
	struct bind_ctx *c = ctx;
	uint64_t s = ttl;

	if (s < c->r->cfg->name_ttl_min)
		s = c->r->cfg->name_ttl_min;
	/*
	 * A transparent grant's host stays bound for the longest life: clients
	 * keep an address longer than its TTL (node's agents do), and a flow
	 * there goes to the gateway only if its ClientHello names the host
	 * anyway; an address it forgot would take the host's flows past the
	 * gateway, where they fail (the host's certificate, the phantom).
	 */
	if (s > NAMES_TTL_MAX || c->gates)
		s = NAMES_TTL_MAX;
	if (names_bind(c->r, a, c->name, c->rules, c->gates, c->r->now + s * 1000) < 0)
		c->failed++;
}

/*
 * Is name a reverse name of an address the agent may not map (whole or a
 * zone above it)? Any type: ANY, TXT or HINFO there name a host as PTR does.
 */
static int reverse_refused(const struct filter *f, const char *name)
{
	struct cidr c;

	return dns_rev_prefix(name, &c) == 0 && addr_refused((void *)f, &c.addr);
}

/* The rcode a refused message is answered with; -1: none, it is dropped. */
static int refusal_rcode(const char *why)
{
	if (!strcmp(why, "dns-malformed") || !strcmp(why, "dns-response"))
		return -1;
	if (!strcmp(why, "dns-opcode"))
		return DNS_NOTIMP;
	if (!strcmp(why, "dns-shape"))
		return DNS_FORMERR;
	return DNS_REFUSED;
}

/*
 * A UDP message to the resolver that is not one plain question: dropped
 * (not DNS, or a response), else answered with the header alone, its rcode
 * saying why. A message under 12 bytes is not DNS at all.
 */
static enum names_fate refuse_udp(struct relay *r, const struct flow *f, size_t len,
				  const char *why, int *rcode)
{
	*rcode = refusal_rcode(why);
	names_log(r, f, r->dns->qname[0] ? r->dns : NULL,
		  *rcode < 0 ? "dropped" : rcode_outcome((unsigned int)*rcode), why, 0);
	return *rcode < 0 || len < 12 ? NQ_DROP : NQ_HEADER;
}

/*
 * The question answered NXDOMAIN, recorded under rule: a name refused, or
 * a reverse name of a refused address.
 */
static enum names_fate answer_nxdomain(struct relay *r, const struct flow *f, const char *rule,
				       int *rcode)
{
	names_log(r, f, r->dns, "nxdomain", rule, 0);
	*rcode = DNS_NXDOMAIN;
	return NQ_ANSWER;
}

enum names_fate names_query(struct relay *r, const struct flow *f, const uint8_t *q, size_t len,
			    int *rcode)
{
	const struct filter *flt = r->cfg->f;
	struct dns_msg *d = r->dns;
	const char *why = dns_question_refused(q, len, d);

	if (why)
		return refuse_udp(r, f, len, why, rcode);
	if (reverse_refused(flt, d->qname))
		return answer_nxdomain(r, f, "private-ptr", rcode);
	if (!flt->nnames || !flt->no_public)
		return NQ_FORWARD;
	if (!name_refused(flt, d->qname))
		return NQ_FORWARD;
	/* With a decider, held and asked about instead (ask.c). */
	if (r->cfg->ask)
		return NQ_ASK;
	return answer_nxdomain(r, f, "no-name", rcode);
}

/*
 * Over TCP, each segment must hold whole messages (stubs write the length
 * and the question at once), each one plain question: else the flow is
 * reset, before any byte of it reaches the resolver.
 */
int names_tcp_query(struct relay *r, const struct flow *f, const uint8_t *q, size_t len)
{
	const struct filter *flt = r->cfg->f;
	struct dns_msg *d = r->dns;

	for (size_t off = 0, n; off < len; off += 2 + n) {
		const char *why;

		if (len - off < 2 || len - off - 2 < (n = be16_get(q + off))) {
			memset(d, 0, offsetof(struct dns_msg, rr));
			names_log(r, f, NULL, "reset", "dns-malformed", 0);
			return -1;
		}
		why = dns_question_refused(q + off + 2, n, d);
		if (why) {
			names_log(r, f, d->qname[0] ? d : NULL, "reset", why, 0);
			return -1;
		}
		if (reverse_refused(flt, d->qname)) {
			names_log(r, f, d, "reset", "private-ptr", 0);
			return -1;
		}
		if (flt->nnames && flt->no_public && name_refused(flt, d->qname)) {
			names_log(r, f, d, "reset", "no-name", 0);
			return -1;
		}
	}
	return 0;
}

size_t names_answer(struct relay *r, const struct flow *f, uint8_t *m, size_t len, int stream)
{
	const struct filter *flt = r->cfg->f;
	struct dns_msg *d = r->dns;
	struct bind_ctx c = { .r = r };
	int rule, hidden;
	unsigned int rcode;
	size_t n;

	if (dns_parse(m, len, d) < 0) {
		/* Unreadable: nothing of it reaches the agent but a SERVFAIL header. */
		if (len < 12)
			return 0;
		names_log(r, f, NULL, "servfail", "dns-malformed", 0);
		m[2] = (uint8_t)(0x80 | (m[2] & 0x7b)); /* opcode, TC (the stub's way to TCP), RD */
		m[3] = 0x80 | DNS_SERVFAIL;
		memset(m + 4, 0, len - 4);
		return stream ? len : 12;
	}
	/*
	 * With a decider, the question was judged on its way out (names_query,
	 * names_tcp_query): one the decider allowed has its answer here.
	 */
	if (!r->cfg->ask && name_refused(flt, d->qname)) {
		names_log(r, f, d, "nxdomain", "no-name", 0);
		n = dns_rcode(m, d, DNS_NXDOMAIN);
		return stream ? len : n;
	}
	/* Whose name a private address has is a map of the network too. */
	if (reverse_refused(flt, d->qname)) {
		names_log(r, f, d, "nxdomain", "private-ptr", 0);
		n = dns_rcode(m, d, DNS_NXDOMAIN);
		return stream ? len : n;
	}
	rcode = d->flags & 0xf;
	hidden = dns_hide(m, d, addr_refused, (void *)flt);
	rule = name_rule(flt, d->qname);
	c.gates = name_gates(flt, d->qname);
	/*
	 * With a decider, every name is bound (no rule: names_find never
	 * allows by it), for the requests to say which name led to an address.
	 */
	if ((rule >= 0 && flt->nnames) || c.gates || r->cfg->ask) {
		c.name = d->qname;
		c.rules = rule >= 0 ? name_rules(flt, d->qname) : 0;
		dns_chain(m, len, d, bind_one, &c);
		if (c.failed && (c.rules || c.gates)) {
			if (!r->names.warned || r->now - r->names.warned >= 10000) {
				r->names.warned = r->now ? r->now : 1;
				warnx("relay: %lu name bindings alive, the table is full: refusing "
				      "%s",
				      r->names.max, d->qname);
			}
			if (flt->no_public) {
				names_log(r, f, d, "servfail", "names-full", c.failed);
				n = dns_rcode(m, d, DNS_SERVFAIL);
				return stream ? len : n;
			}
			names_log(r, f, d, rcode_outcome(rcode), "names-full", c.failed);
			return len;
		}
	}
	if (hidden)
		names_log(r, f, d, "private-stripped", "private-answer", hidden);
	else
		names_log(r, f, d, rcode_outcome(rcode), "", (int)d->nrr);
	return len;
}
