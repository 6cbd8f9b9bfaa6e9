/* SPDX-License-Identifier: ISC */
/*
 * The summary for a person, and --follow's line per refusal. Every string
 * of the stream goes through out_text: the agent chose some, and a
 * terminal must not take one for a command. Pure.
 */
#include <string.h>

#include "oto.h"
#include "otolog.h"

static const char *const HEADING[G_NUM] = {
	[G_NET] = "refused, network",
	[G_DNS] = "refused, DNS",
	[G_SYSCALL] = "refused, system calls",
	[G_LANDLOCK] = "refused, Landlock",
	[G_GATE] = "gateway requests",
	[G_ASK] = "asked",
	[G_LAST] = NULL,
};
_Static_assert(ARRAY_SIZE(HEADING) == G_NUM, "a heading for each kind");

/* "tcp 10.0.0.1 port 80", the port left out when there is none (ICMP's 0). */
static void dest(struct out *o, const char *proto, const char *host, const char *port)
{
	out_text(o, proto);
	out_str(o, " ");
	out_text(o, *host ? host : "?");
	if (*port && strcmp(port, "0")) {
		out_str(o, " port ");
		out_text(o, port);
	}
}

/* One group's words after its count. */
static void group_words(struct out *o, const struct group *g)
{
	const char *const *k = (const char *const *)g->k;

	switch (g->kind) {
	case G_NET:
		dest(o, k[0], k[1], k[2]);
		if (*k[3]) {
			out_str(o, " (");
			out_text(o, k[3]);
			out_str(o, ")");
		}
		out_str(o, ": ");
		out_text(o, k[4]);
		break;
	case G_DNS:
		if (*k[0]) {
			out_text(o, k[0]);
			if (*k[1]) {
				out_str(o, " ");
				out_text(o, k[1]);
			}
		} else {
			out_str(o, "(a question that could not be read)");
		}
		out_str(o, ": ");
		out_text(o, k[2]);
		if (*k[3]) {
			out_str(o, " (");
			out_text(o, k[3]);
			out_str(o, ")");
		}
		break;
	case G_SYSCALL:
		out_text(o, k[0]);
		out_str(o, " by ");
		out_text(o, k[1]);
		break;
	case G_LANDLOCK:
		out_text(o, k[0]);
		if (*k[1]) {
			out_str(o, " ");
			out_text(o, k[1]);
		}
		out_str(o, " by ");
		out_text(o, k[2]);
		break;
	case G_GATE:
		out_text(o, k[0]);
		out_str(o, " ");
		out_text(o, k[2]);
		out_str(o, " (grant ");
		out_text(o, k[1]);
		out_str(o, ")");
		if (*k[3]) {
			out_str(o, ": ");
			out_text(o, k[3]);
		}
		break;
	case G_ASK:
		if (!strcmp(k[0], "dns") && !*k[3]) {
			out_str(o, "name ");
			out_text(o, k[2]);
		} else {
			dest(o, k[1], k[2], k[3]);
		}
		out_str(o, ": ");
		out_text(o, k[4]);
		break;
	default:
		break;
	}
}

static void session_head(struct out *o, const struct sess *x)
{
	if (!*x->id) {
		out_str(o, "requests outside any session (otogate's own log)\n");
		return;
	}
	out_str(o, "session ");
	out_text(o, x->id);
	out_str(o, "\n");
	if (x->opened) {
		out_str(o, "  opened by ");
		out_text(o, x->stage ? x->stage : "?");
		out_str(o, " as ");
		out_text(o, x->account ? x->account : "?");
		if (x->has_uid)
			out_printf(o, " (uid %llu)", x->uid);
		if (x->role) {
			out_str(o, ", role ");
			out_text(o, x->role);
		}
		if (x->person) {
			out_str(o, ", person ");
			out_text(o, x->person);
		}
		out_str(o, "\n");
		if (x->chain) {
			out_str(o, "  chain ");
			out_text(o, x->chain);
			out_str(o, "\n");
		}
	} else {
		out_str(o, "  no open line (the record's start is not in this stream)\n");
	}
	if (x->start) {
		out_str(o, "  from ");
		out_text(o, x->start);
		out_str(o, " to ");
		out_text(o, x->end);
		out_str(o, "\n");
	}
	if (x->closed) {
		out_str(o, "  closed");
		if (x->duration) {
			out_str(o, " after ");
			out_text(o, x->duration);
			out_str(o, " ms");
		}
		out_printf(o, ", exit %lld", x->exit);
		if (x->sig)
			out_printf(o, " (signal %lld)", x->sig);
		out_str(o, "\n");
	} else {
		out_str(o, "  no close line (still running, or the record was cut)\n");
	}
}

static void session_text(struct out *o, const struct sess *x)
{
	int kind = -1, any = 0;

	session_head(o, x);
	if (x->allowed_net || x->allowed_dns)
		out_printf(o, "  allowed %llu flow%s, %llu DNS answer%s\n", x->allowed_net,
			   x->allowed_net == 1 ? "" : "s", x->allowed_dns,
			   x->allowed_dns == 1 ? "" : "s");
	if (x->budget_spent)
		out_printf(o, "  record budget spent: %llu line%s not written\n", x->unwritten,
			   x->unwritten == 1 ? "" : "s");
	for (size_t i = 0; i < x->ng; i++) {
		const struct group *g = &x->g[i];

		if (!HEADING[g->kind])
			continue;
		if ((int)g->kind != kind) {
			kind = (int)g->kind;
			out_printf(o, "  %s:\n", HEADING[g->kind]);
		}
		any |= g->kind != G_GATE;
		out_printf(o, "  %8llu  ", g->count);
		group_words(o, g);
		out_str(o, "\n");
	}
	if (!any)
		out_str(o, "  nothing refused\n");
	if (x->dropped)
		out_printf(o, "  %llu line%s not counted (otolog's bounds)\n", x->dropped,
			   x->dropped == 1 ? "" : "s");
}

void text_summary(struct out *o, const struct summary *s)
{
	for (size_t i = 0; i < s->ns; i++) {
		if (i)
			out_str(o, "\n");
		session_text(o, &s->s[i]);
	}
	if (s->dropped)
		out_printf(o, "%s%llu line%s of sessions past the first %d not counted\n",
			   s->ns ? "\n" : "", s->dropped, s->dropped == 1 ? "" : "s", SUM_SESSIONS);
}

void text_follow(struct out *o, const struct event *e, const struct group *g)
{
	const struct json_obj *j = e->o;
	const char *v = NULL;

	if (e->src == EV_SESSION) {
		v = json_str_of(j, "stage");
	} else if (strcmp(e->verdict, "ask") && !g) {
		return;
	}
	out_text(o, e->time);
	out_str(o, " ");
	out_text(o, *e->session ? e->session : "-");
	out_str(o, " ");
	out_str(o, ev_source_name[e->src]);
	if (e->src == EV_SESSION) {
		out_str(o, " ");
		out_text(o, e->verdict);
		if (v) {
			out_str(o, " by ");
			out_text(o, v);
		}
		v = json_get(j, "exit") ? json_get(j, "exit")->s : NULL;
		if (v && !strcmp(e->verdict, "close")) {
			out_str(o, ", exit ");
			out_text(o, v);
		}
	} else if (!strcmp(e->verdict, "ask")) {
		const struct json_val *id = json_get(j, "ask");
		const char *name = json_str_of(j, "name"), *dst = json_str_of(j, "dst"),
			   *proto = json_str_of(j, "proto");
		const struct json_val *port = json_get(j, "port");

		out_str(o, " asked ");
		if (dst || !name)
			dest(o, proto ? proto : "", dst ? dst : "", port ? port->s : "");
		if (name) {
			out_str(o, dst ? " (" : "name ");
			out_text(o, name);
			out_str(o, dst ? ")" : "");
		}
		out_str(o, ", question ");
		out_text(o, id->s);
	} else {
		out_str(o, g->kind == G_ASK ? " answered " : g->kind == G_GATE ? " " : " refused ");
		group_words(o, g);
	}
	out_str(o, "\n");
}
