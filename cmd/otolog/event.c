/* SPDX-License-Identifier: ISC */
/*
 * Which line of the record a JSON object is (lib/oto.h's shape: "time",
 * "source", "session", "verdict", then the source's own keys), with the
 * keys otolog reads checked for their types; otogate's own request lines
 * (its --log-fd: a number of seconds for "time", no source, no session)
 * too. Keys otolog does not read are let be: a newer tool may add some.
 * Pure.
 */
#include <string.h>

#include "oto.h"
#include "otolog.h"

const char *const ev_source_name[EV_NUM] = {
	[EV_SESSION] = "session", [EV_NET] = "net",	      [EV_DNS] = "dns",
	[EV_SECCOMP] = "seccomp", [EV_LANDLOCK] = "landlock", [EV_GATE] = "gate",
	[EV_PROTECT] = "protect",
};
_Static_assert(ARRAY_SIZE(ev_source_name) == EV_NUM, "a name for each source");

enum want { W_STR, W_NUM, W_STR_OR_NULL, W_ARR, W_ID };
struct key_want {
	const char *key;
	enum want want;
	int required;
};

static int fits(const struct json_val *v, enum want w)
{
	switch (w) {
	case W_STR:
		return v->type == JSON_STR;
	case W_NUM:
		return v->type == JSON_NUM;
	case W_STR_OR_NULL:
		return v->type == JSON_STR || v->type == JSON_NULL;
	case W_ARR:
		return v->type == JSON_ARR;
	case W_ID:
		return v->type == JSON_STR || v->type == JSON_NUM;
	default:
		return 0;
	}
}

/* Every key of want present when required, of its type when present: 0, or -1 with *why. */
static int check(const struct json_obj *o, const struct key_want *want, const char **why)
{
	for (const struct key_want *w = want; w->key; w++) {
		const struct json_val *v = json_get(o, w->key);

		if (!v && w->required) {
			*why = w->key;
			return -1;
		}
		if (v && !fits(v, w->want)) {
			*why = w->key;
			return -1;
		}
	}
	return 0;
}

/* clang-format off */
static const struct key_want OPEN[] = {
	{ "stage", W_STR, 1 }, { "uid", W_NUM, 0 }, { "account", W_STR_OR_NULL, 0 },
	{ "role", W_STR_OR_NULL, 0 }, { "person", W_STR_OR_NULL, 0 }, { "chain", W_ARR, 0 },
	{ NULL, W_STR, 0 },
};
static const struct key_want CLOSE[] = {
	{ "exit", W_NUM, 1 }, { "signal", W_NUM, 0 }, { "duration_ms", W_NUM, 0 },
	{ NULL, W_STR, 0 },
};
static const struct key_want NET[] = {
	{ "proto", W_STR, 1 }, { "dst", W_STR, 1 }, { "port", W_NUM, 1 }, { "rule", W_STR, 0 },
	{ "name", W_STR, 0 }, { "ask", W_ID, 0 }, { "decision", W_STR, 0 },
	{ NULL, W_STR, 0 },
};
/* An answer (rule "ask") may say where only through its question's id. */
static const struct key_want ANSWER[] = {
	{ "ask", W_ID, 1 }, { "decision", W_STR, 1 }, { "proto", W_STR, 0 }, { "dst", W_STR, 0 },
	{ "port", W_NUM, 0 }, { "name", W_STR, 0 },
	{ NULL, W_STR, 0 },
};
static const struct key_want DNS[] = {
	{ "name", W_STR, 1 }, { "type", W_STR, 0 }, { "outcome", W_STR, 0 }, { "rule", W_STR, 0 },
	{ "ask", W_ID, 0 }, { "decision", W_STR, 0 },
	{ NULL, W_STR, 0 },
};
static const struct key_want SECCOMP[] = {
	{ "syscall", W_STR, 1 }, { "comm", W_STR_OR_NULL, 0 }, { "count", W_NUM, 0 },
	{ "args", W_ARR, 0 },
	{ NULL, W_STR, 0 },
};
static const struct key_want LANDLOCK[] = {
	{ "blockers", W_STR, 1 }, { "path", W_STR, 0 }, { "comm", W_STR, 0 }, { "count", W_NUM, 0 },
	{ NULL, W_STR, 0 },
};
/* otons: a path git would follow or run that appeared in the session (read, not summarized). */
static const struct key_want PROTECT[] = {
	{ "path", W_STR, 1 }, { "why", W_STR, 1 }, { NULL, W_STR, 0 },
};
static const struct key_want BUDGET[] = {
	{ "rule", W_STR, 1 }, { "budget", W_NUM, 1 }, { "written", W_NUM, 1 },
	{ "unwritten", W_NUM, 1 },
	{ NULL, W_STR, 0 },
};
static const struct key_want GATE[] = {
	{ "grant", W_STR, 1 }, { "host", W_STR, 1 }, { "status", W_NUM, 1 }, { "error", W_STR, 0 },
	{ NULL, W_STR, 0 },
};
/* otogate: a login's phantom it let pass where no grant swaps it (read, not summarized). */
static const struct key_want GATE_PASS[] = {
	{ "grant", W_STR, 1 }, { "host", W_STR, 1 }, { "phantom", W_STR, 1 }, { "where", W_STR, 1 },
	{ NULL, W_STR, 0 },
};
/* clang-format on */

/*
 * otogate's own line: {"time":SECONDS,"grant":...,"status":N,...}, or a
 * login's phantom let pass ({...,"verdict":"pass","phantom":ROLE,
 * "where":...}); no source, no session.
 */
static int gate_own(const struct json_obj *o, struct event *e, const char **why)
{
	const struct json_val *t = json_get(o, "time");

	if (!t || t->type != JSON_NUM) {
		*why = "source";
		return -1;
	}
	e->src = EV_GATE;
	e->time = t->s;
	e->session = "";
	e->verdict = json_get(o, "phantom") ? "pass" : "";
	return check(o, *e->verdict ? GATE_PASS : GATE, why);
}

static const struct key_want *wants(const struct event *e)
{
	int ask_rule =
	    e->o && json_str_of(e->o, "rule") && !strcmp(json_str_of(e->o, "rule"), "ask");

	switch (e->src) {
	case EV_SESSION:
		return !strcmp(e->verdict, "open") ? OPEN : CLOSE;
	case EV_NET:
		return ask_rule ? ANSWER : NET;
	case EV_DNS:
		return ask_rule ? ANSWER : DNS;
	case EV_SECCOMP:
		return SECCOMP;
	case EV_LANDLOCK:
		return LANDLOCK;
	case EV_GATE:
		return !strcmp(e->verdict, "pass") ? GATE_PASS : GATE;
	case EV_PROTECT:
		return PROTECT;
	default:
		return NULL;
	}
}

int event_read(const struct json_obj *o, struct event *e, const char **why, int *unknown)
{
	const char *source = json_str_of(o, "source");
	static const char *const NEED[] = { "time", "session", "verdict", NULL };
	int k;

	memset(e, 0, sizeof(*e));
	e->o = o;
	*unknown = 0;
	if (!json_get(o, "source"))
		return gate_own(o, e, why);
	if (!source)
		return *why = "source", -1;
	for (k = 0; k < EV_NUM && strcmp(source, ev_source_name[k]); k++)
		;
	if (k == EV_NUM) {
		*unknown = 1;
		return *why = "source", -1;
	}
	e->src = (enum ev_source)k;
	for (const char *const *n = NEED; *n; n++)
		if (!json_str_of(o, *n))
			return *why = *n, -1;
	e->time = json_str_of(o, "time");
	e->session = json_str_of(o, "session");
	e->verdict = json_str_of(o, "verdict");
	/* The id is printed and keyed on: only what session_id_ok lets a stage write. */
	if (!session_id_ok(e->session))
		return *why = "session", -1;
	if (e->src == EV_SESSION && strcmp(e->verdict, "open") && strcmp(e->verdict, "close"))
		return *why = "verdict", -1;
	/* A stage's record budget spent, or its last line after: counts, no event. */
	if (e->src != EV_SESSION && !strcmp(e->verdict, "budget"))
		return check(o, BUDGET, why);
	if ((e->src == EV_NET || e->src == EV_DNS) && strcmp(e->verdict, "allow") &&
	    strcmp(e->verdict, "deny") && strcmp(e->verdict, "ask"))
		return *why = "verdict", -1;
	if (!strcmp(e->verdict, "ask") && !json_get(o, "ask"))
		return *why = "ask", -1;
	return check(o, wants(e), why);
}
