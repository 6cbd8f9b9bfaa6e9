/* SPDX-License-Identifier: ISC */
/*
 * Admission (relay.h, "admit.c"): a new flow's verdict, in one call from
 * flow_open. The filter decides first (filter.c: exceptions, DNS, the
 * gateway, the special-purpose ranges, public); then a name the agent
 * resolved may allow what --no-public refused (name_decide), a flow to a
 * transparent grant's host is let through to be judged by its ClientHello
 * (gate_decide), the decider's session answers allow (a name's flow on 80
 * or 443 judged by what it sends, as a name rule's), or the flow is held
 * to be asked about (ask.c); last, the bounds. Each verdict is logged here,
 * as it is made. Nothing is opened or sent here: flow.c opens what the
 * verdict allows, tcp.c and dgram.c answer what it refuses.
 */
#include <stdio.h>
#include <string.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

static void log_decision(struct relay *r, int proto, const struct pkt *p, const struct decision *d)
{
	char s[64], t[64], key[RECORD_KEY_MAX];

	/* One kind per rule, destination and name: a flood of one is thinned. */
	snprintf(key, sizeof(key), "%s %s %s %u %s", d->rule, relay_proto_name(proto),
		 ipaddr_str(&p->dst, t, sizeof(t)), proto == PROTO_ICMP ? 0u : p->dport, d->name);
	relay_log_thin(r, "net", key,
		       ",\"proto\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		       "\"port\":%u,\"verdict\":\"%s\",\"rule\":\"%s\"%s%s%s%s%s%s%.0u}\n",
		       relay_proto_name(proto), ipaddr_str(&p->src, s, sizeof(s)),
		       ipaddr_str(&p->dst, t, sizeof(t)), proto == PROTO_ICMP ? 0 : p->dport,
		       d->verdict == V_ALLOW ? "allow" : "deny", d->rule,
		       d->name[0] ? ",\"name\":\"" : "", d->name,
		       d->pattern ? "\",\"pattern\":\"" : "", d->pattern ? d->pattern : "",
		       d->name[0] ? "\"" : "", d->ask ? ",\"ask\":" : "", d->ask);
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

void admit(struct relay *r, const struct pkt *p, struct admission *a)
{
	struct decision d = { .verdict = V_DENY };
	int check, gate, pair, asked;
	unsigned char after = GA_PASS;

	a->verdict = ADMIT_DENY;
	filter_decide(r->cfg->f, p->proto, &p->dst, p->proto == PROTO_ICMP ? 0 : p->dport, &d);
	name_decide(r, p, &d, &check);
	gate = gate_decide(r, p, &d, check, &after, &pair);
	/*
	 * --no-public refused it and a decider is there: allowed for the
	 * session (a name as --allow-name NAME: checked), asked, or the SYN
	 * again of an attempt an answer refused (reset, with no line: the
	 * attempt has its own). The bounds hold for a flow held to be asked
	 * about as for any flow.
	 */
	if (d.verdict == V_DENY && (asked = ask_flow(r, p, &d, &check)) >= 2) {
		if (asked == 3)
			return;
		if (over_bound(r, p, &d)) {
			d.verdict = V_DENY;
			log_decision(r, p->proto, p, &d);
			return;
		}
		a->verdict = ADMIT_ASK;
		a->route = ROUTE_DIRECT;
		a->nphase = NP_NONE;
		a->gate_ix = 0;
		a->gate_after = GA_PASS;
		return;
	}
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
		return;
	a->verdict = ADMIT_OPEN;
	a->route = d.gateway ? ROUTE_GATEWAY
		   : d.dns   ? ROUTE_DNS
		   : pair    ? ROUTE_LOCAL
			     : ROUTE_DIRECT;
	a->nphase = check || gate >= 0 ? NP_FIRST : NP_NONE;
	a->gate_ix = (unsigned char)(gate + 1);
	a->gate_after = after;
}
