/* SPDX-License-Identifier: ISC */
/* The summary as JSON: one object per session, one a line. Pure. */
#include <string.h>

#include "oto.h"
#include "otolog.h"

/* clang-format off */
static const char *const LIST[G_NUM] = {
	[G_NET] = "net", [G_DNS] = "dns", [G_SYSCALL] = "seccomp", [G_LANDLOCK] = "landlock",
	[G_GATE] = "gate", [G_ASK] = "asked", [G_LAST] = NULL,
};
/* Each kind's keys, in struct group's order; a key written as a number is marked '#'. */
static const char *const KEYS[G_NUM][SUM_KEYS] = {
	[G_NET] = { "proto", "dst", "#port", "name", "rule" },
	[G_DNS] = { "name", "type", "rule", "outcome", NULL },
	[G_SYSCALL] = { "syscall", "comm", NULL, NULL, NULL },
	[G_LANDLOCK] = { "blockers", "target", "comm", NULL, NULL },
	[G_GATE] = { "host", "grant", "#status", "error", NULL },
	[G_ASK] = { "source", "proto", "target", "#port", "decision" },
	[G_LAST] = { NULL },
};
/* clang-format on */
_Static_assert(ARRAY_SIZE(LIST) == G_NUM, "a list for each kind");
_Static_assert(ARRAY_SIZE(KEYS) == G_NUM, "keys for each kind");

static void key_str(struct out *o, const char *key, const char *v)
{
	out_printf(o, ",\"%s\":", key);
	if (v)
		out_json(o, v);
	else
		out_str(o, "null");
}

/* A number the reader checked as one; "" (none given): null. */
static void key_num(struct out *o, const char *key, const char *v)
{
	out_printf(o, ",\"%s\":%s", key, v && *v ? v : "null");
}

static void group_json(struct out *o, const struct group *g)
{
	out_printf(o, "{\"count\":%llu", g->count);
	for (int j = 0; j < SUM_KEYS && KEYS[g->kind][j]; j++) {
		const char *key = KEYS[g->kind][j];

		if (*key == '#')
			key_num(o, key + 1, g->k[j]);
		else
			key_str(o, key, *g->k[j] ? g->k[j] : NULL);
	}
	out_str(o, "}");
}

static void session_json(struct out *o, const struct sess *x)
{
	out_str(o, "{\"session\":");
	if (*x->id)
		out_json(o, x->id);
	else
		out_str(o, "null");
	key_str(o, "stage", x->stage);
	key_str(o, "account", x->account);
	if (x->has_uid)
		out_printf(o, ",\"uid\":%llu", x->uid);
	else
		out_str(o, ",\"uid\":null");
	key_str(o, "role", x->role);
	key_str(o, "person", x->person);
	key_str(o, "chain", x->chain);
	key_str(o, "start", x->start);
	key_str(o, "end", x->end);
	out_printf(o, ",\"opened\":%s,\"closed\":%s", x->opened ? "true" : "false",
		   x->closed ? "true" : "false");
	if (x->closed)
		out_printf(o, ",\"exit\":%lld,\"signal\":%lld", x->exit, x->sig);
	else
		out_str(o, ",\"exit\":null,\"signal\":null");
	key_num(o, "duration_ms", x->duration);
	out_printf(o, ",\"allowed_net\":%llu,\"allowed_dns\":%llu,\"not_counted\":%llu",
		   x->allowed_net, x->allowed_dns, x->dropped);
	if (x->budget_spent)
		out_printf(o, ",\"unwritten\":%llu", x->unwritten);
	for (int k = 0; k < G_NUM; k++) {
		int n = 0;

		if (!LIST[k])
			continue;
		out_printf(o, ",\"%s\":[", LIST[k]);
		for (size_t i = 0; i < x->ng; i++) {
			if ((int)x->g[i].kind != k)
				continue;
			if (n++)
				out_str(o, ",");
			group_json(o, &x->g[i]);
		}
		out_str(o, "]");
	}
	out_str(o, "}\n");
}

void json_summary(struct out *o, const struct summary *s)
{
	for (size_t i = 0; i < s->ns; i++)
		session_json(o, &s->s[i]);
}
