/* SPDX-License-Identifier: ISC */
/*
 * Each session's lines counted into groups: what was refused, grouped by
 * what it was (a destination, a name, a call and its program, a path, a
 * gateway's upstream and status), and what was asked and decided. Bounded:
 * sessions, groups per session, questions per session, bytes of strings in
 * all; what is past a bound is counted, not kept. Pure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otolog.h"

/* A copy of s within the budget: NULL (errno ENOMEM, or ENOSPC past SUM_BYTES). */
static char *keep(struct summary *s, const char *v)
{
	size_t n = strlen(v) + 1;
	char *c;

	if (s->bytes + n > SUM_BYTES)
		return errno = ENOSPC, NULL;
	c = malloc(n);
	if (!c)
		return errno = ENOMEM, NULL;
	memcpy(c, v, n);
	s->bytes += n;
	return c;
}

/* Set *slot to a copy of v (NULL: left as it is): 0, or -1 with errno. */
static int keep_in(struct summary *s, char **slot, const char *v)
{
	char *c;

	if (!v)
		return 0;
	c = keep(s, v);
	if (!c)
		return -1;
	if (*slot) {
		s->bytes -= strlen(*slot) + 1;
		free(*slot);
	}
	*slot = c;
	return 0;
}

static struct sess *session(struct summary *s, const char *id)
{
	struct sess *n;

	for (size_t i = s->ns; i-- > 0;)
		if (!strcmp(s->s[i].id, id))
			return &s->s[i];
	if (s->ns >= SUM_SESSIONS)
		return errno = ENOSPC, NULL;
	if (s->ns == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		n = realloc(s->s, cap * sizeof(*n));
		if (!n)
			return errno = ENOMEM, NULL;
		s->s = n;
		s->cap = cap;
	}
	n = &s->s[s->ns];
	memset(n, 0, sizeof(*n));
	n->id = keep(s, id);
	if (!n->id)
		return NULL;
	s->ns++;
	return n;
}

static unsigned int group_hash(enum group_kind kind, const char *const k[SUM_KEYS])
{
	uint32_t h = 2166136261u ^ (uint32_t)kind;

	for (int j = 0; j < SUM_KEYS; j++) {
		for (const char *p = k[j] ? k[j] : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		h = (h ^ 0xff) * 16777619u; /* the keys' boundary: "ab","" is not "a","b" */
	}
	return h % SUM_INDEX;
}

static int group_is(const struct group *g, enum group_kind kind, const char *const k[SUM_KEYS])
{
	int j;

	if (g->kind != kind)
		return 0;
	for (j = 0; j < SUM_KEYS && !strcmp(g->k[j], k[j] ? k[j] : ""); j++)
		;
	return j == SUM_KEYS;
}

/*
 * The group of kind with keys k (NULL: ""), made if new: NULL with errno.
 * Found by the session's index (made with its first group: a hostile
 * record's thousands of groups must not cost a search of each per line).
 */
static struct group *group(struct summary *s, struct sess *x, enum group_kind kind,
			   const char *const k[SUM_KEYS])
{
	struct group *g;
	unsigned int h = group_hash(kind, k);
	int j;

	if (!x->index) {
		if (s->bytes + SUM_INDEX * sizeof(int) > SUM_BYTES)
			return errno = ENOSPC, NULL;
		x->index = malloc(SUM_INDEX * sizeof(int));
		if (!x->index)
			return errno = ENOMEM, NULL;
		s->bytes += SUM_INDEX * sizeof(int);
		for (size_t i = 0; i < SUM_INDEX; i++)
			x->index[i] = -1;
	}
	/* Open addressing: at most SUM_GROUPS of SUM_INDEX slots are taken, so one is free. */
	for (; x->index[h] >= 0; h = (h + 1) % SUM_INDEX)
		if (group_is(&x->g[x->index[h]], kind, k))
			return &x->g[x->index[h]];
	if (x->ng >= SUM_GROUPS)
		return errno = ENOSPC, NULL;
	if (x->ng == x->gcap) {
		size_t cap = x->gcap ? 2 * x->gcap : 16;

		g = realloc(x->g, cap * sizeof(*g));
		if (!g)
			return errno = ENOMEM, NULL;
		x->g = g;
		x->gcap = cap;
	}
	g = &x->g[x->ng];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	for (j = 0; j < SUM_KEYS; j++) {
		g->k[j] = keep(s, k[j] ? k[j] : "");
		if (!g->k[j]) {
			while (j-- > 0)
				free(g->k[j]);
			return NULL;
		}
	}
	x->index[h] = (int)x->ng++;
	return g;
}

/* A number's text, or "" (a string's own text for an id). */
static const char *num(const struct json_obj *o, const char *key)
{
	const struct json_val *v = json_get(o, key);

	return v && (v->type == JSON_NUM || v->type == JSON_STR) ? v->s : "";
}

static const char *str(const struct json_obj *o, const char *key)
{
	const char *v = json_str_of(o, key);

	return v ? v : "";
}

/*
 * otons writes a line for the first ten refusals of a kind (a call, a
 * Landlock blocker), then the 100th, the 1000th...: each line carries the
 * kind's count. The refusals since the kind's last line are the new line's.
 */
static int since_last(struct summary *s, struct sess *x, const char *source, const char *kind,
		      const struct json_obj *o, unsigned long long *n)
{
	const char *k[SUM_KEYS] = { source, kind, NULL, NULL, NULL };
	struct group *last = group(s, x, G_LAST, k);
	unsigned long long c;

	if (!last)
		return -1;
	if (json_uint(json_get(o, "count"), ~0ULL, &c) < 0 || c <= last->count)
		c = last->count + 1;
	*n = c - last->count;
	last->count = c;
	return 0;
}

static int add_open(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const struct json_val *chain = json_get(o, "chain");
	char words[4096];
	size_t at = 0;
	int next = 1;

	x->opened = 1;
	if (json_uint(json_get(o, "uid"), 0xffffffffULL, &x->uid) == 0)
		x->has_uid = 1;
	/* The programs of the chain: its first word and each after a "--". */
	words[0] = 0;
	for (size_t i = 0; chain && i < chain->n; i++) {
		const struct json_val *w = &o->items[chain->first + i];
		const char *b;
		int n;

		if (w->type != JSON_STR)
			continue;
		if (!strcmp(w->s, "--")) {
			next = 1;
			continue;
		}
		if (!next)
			continue;
		next = 0;
		b = strrchr(w->s, '/');
		n = snprintf(words + at, sizeof(words) - at, "%s%s", at ? " " : "",
			     b ? b + 1 : w->s);
		if (n < 0 || (size_t)n >= sizeof(words) - at)
			break;
		at += (size_t)n;
	}
	return keep_in(s, &x->stage, json_str_of(o, "stage")) ||
		       keep_in(s, &x->account, json_str_of(o, "account")) ||
		       keep_in(s, &x->role, json_str_of(o, "role")) ||
		       keep_in(s, &x->person, json_str_of(o, "person")) ||
		       keep_in(s, &x->chain, chain ? words : NULL)
		   ? -1
		   : 0;
}

static int add_close(struct summary *s, struct sess *x, const struct event *e)
{
	x->closed = 1;
	if (json_int(json_get(e->o, "exit"), &x->exit) < 0)
		x->exit = -1;
	if (json_int(json_get(e->o, "signal"), &x->sig) < 0)
		x->sig = 0;
	return keep_in(s, &x->duration,
		       json_get(e->o, "duration_ms") ? num(e->o, "duration_ms") : NULL);
}

/*
 * The place of the question id (1 + its index in x->a; 0: none) by the
 * session's index, as an internal group's count: set (place > 0) or read
 * (place 0: *found). A newer question of the same id takes the place.
 */
static int ask_place(struct summary *s, struct sess *x, const char *id, size_t place)
{
	const char *k[SUM_KEYS] = { "ask", id, NULL, NULL, NULL };
	struct group *g = group(s, x, G_LAST, k);

	if (!g)
		return -1;
	if (place)
		g->count = place;
	return (int)g->count;
}

/* A question: kept by its id until its answer comes. */
static int add_question(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const char *name = json_str_of(o, "name");
	const char *v[5] = { ev_source_name[e->src], str(o, "proto"),
			     name && *name ? name : str(o, "dst"), num(o, "port"), num(o, "ask") };
	struct ask *a;
	int j;

	if (x->na >= SUM_ASKS)
		return errno = ENOSPC, -1;
	if (x->na == x->acap) {
		size_t cap = x->acap ? 2 * x->acap : 16;

		a = realloc(x->a, cap * sizeof(*a));
		if (!a)
			return errno = ENOMEM, -1;
		x->a = a;
		x->acap = cap;
	}
	a = &x->a[x->na];
	memset(a, 0, sizeof(*a));
	a->id = keep(s, v[4]);
	for (j = 0; a->id && j < 4; j++)
		if (!(a->k[j] = keep(s, v[j])))
			break;
	if (!a->id || j < 4) {
		free(a->id);
		while (j-- > 0)
			free(a->k[j]);
		return -1;
	}
	x->na++;
	return ask_place(s, x, a->id, x->na);
}

/* An answer: counted with its question's destination (else its own). */
static struct group *add_answer(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const char *id = num(o, "ask"), *name = json_str_of(o, "name");
	const char *k[SUM_KEYS] = { ev_source_name[e->src], str(o, "proto"),
				    name && *name ? name : str(o, "dst"), num(o, "port"),
				    str(o, "decision") };

	int place = ask_place(s, x, id, 0);

	if (place < 0)
		return NULL;
	if (place > 0 && !x->a[place - 1].answered) {
		x->a[place - 1].answered = 1;
		for (int j = 0; j < 4; j++)
			k[j] = x->a[place - 1].k[j];
	}
	return group(s, x, G_ASK, k);
}

/*
 * otonet thins a kind of line (a rule and a destination, a rule and a name)
 * as otons does, and from its second line on a line carries the kind's
 * count: the decisions since the kind's last line are the new line's
 * (*n; 1 for a line without a count). Only a kind that repeats is kept.
 */
static int thinned(struct summary *s, struct sess *x, const struct event *e, const char *kind,
		   unsigned long long *n)
{
	const char *k[SUM_KEYS] = { ev_source_name[e->src], kind, NULL, NULL, NULL };
	unsigned long long c;
	struct group *last;

	*n = 1;
	if (json_uint(json_get(e->o, "count"), ~0ULL, &c) < 0 || c < 2)
		return 0;
	last = group(s, x, G_LAST, k);
	if (!last)
		return -1;
	if (!last->count)
		last->count = 1; /* the kind's first line, counted as it came */
	if (c > last->count) {
		*n = c - last->count;
		last->count = c;
	}
	return 0;
}

static struct group *add_net(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const char *rule = str(o, "rule");
	const char *k[SUM_KEYS] = { str(o, "proto"), str(o, "dst"), num(o, "port"), str(o, "name"),
				    rule };
	char kind[LOG_LINE_MAX];
	unsigned long long n;
	struct group *g;

	if (!strcmp(rule, "ask"))
		return add_answer(s, x, e);
	snprintf(kind, sizeof(kind), "%s %s %s %s %s", rule, k[0], k[1], k[2], k[3]);
	if (thinned(s, x, e, kind, &n) < 0)
		return NULL;
	if (strcmp(e->verdict, "deny")) {
		x->allowed_net += n;
		return NULL;
	}
	g = group(s, x, G_NET, k);
	if (g)
		g->count += n - 1; /* the caller counts the line's own */
	return g;
}

static struct group *add_dns(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const char *k[SUM_KEYS] = { str(o, "name"), str(o, "type"), str(o, "rule"),
				    str(o, "outcome"), NULL };
	char kind[LOG_LINE_MAX];
	unsigned long long n;
	struct group *g;

	if (!strcmp(str(o, "rule"), "ask"))
		return add_answer(s, x, e);
	snprintf(kind, sizeof(kind), "%s %s", strcmp(e->verdict, "deny") ? "dns" : k[2], k[0]);
	if (thinned(s, x, e, kind, &n) < 0)
		return NULL;
	if (strcmp(e->verdict, "deny")) {
		x->allowed_dns += n;
		return NULL;
	}
	g = group(s, x, G_DNS, k);
	if (g)
		g->count += n - 1; /* the caller counts the line's own */
	return g;
}

/* What Landlock refused: a path, else a network endpoint, else nothing said. */
static void landlock_target(const struct json_obj *o, char *buf, size_t size)
{
	const char *path = json_str_of(o, "path"), *da = json_str_of(o, "daddr"),
		   *sa = json_str_of(o, "saddr");

	if (path)
		snprintf(buf, size, "%s", path);
	else if (da)
		snprintf(buf, size, "%s:%s", da, str(o, "dest"));
	else if (sa)
		snprintf(buf, size, "%s:%s", sa, str(o, "src"));
	else
		buf[0] = 0;
}

static struct group *add_kind(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	char target[LOG_LINE_MAX];
	const char *comm = json_str_of(o, "comm"), *k[SUM_KEYS] = { NULL };
	unsigned long long n;
	struct group *g;
	int ll = e->src == EV_LANDLOCK;

	k[0] = str(o, ll ? "blockers" : "syscall");
	if (since_last(s, x, ev_source_name[e->src], k[0], o, &n) < 0)
		return NULL;
	if (ll) {
		landlock_target(o, target, sizeof(target));
		k[1] = target;
		k[2] = comm ? comm : "?";
	} else {
		k[1] = comm ? comm : "?";
	}
	g = group(s, x, ll ? G_LANDLOCK : G_SYSCALL, k);
	if (g)
		g->count += n - 1; /* the caller counts the line's own */
	return g;
}

static struct group *add_gate(struct summary *s, struct sess *x, const struct event *e)
{
	const struct json_obj *o = e->o;
	const char *k[SUM_KEYS] = { str(o, "host"), str(o, "grant"), num(o, "status"),
				    str(o, "error"), NULL };

	return group(s, x, G_GATE, k);
}

int summary_add(struct summary *s, const struct event *e, const struct group **refusal)
{
	struct sess *x = session(s, e->session);
	struct group *g = NULL;

	*refusal = NULL;
	if (!x) {
		if (errno != ENOSPC)
			return -1;
		s->dropped++;
		return 0;
	}
	x->lines++;
	if (e->time &&
	    ((!x->start && keep_in(s, &x->start, e->time) < 0) || keep_in(s, &x->end, e->time) < 0))
		goto bound;
	errno = 0;
	switch (e->src) {
	case EV_SESSION:
		if ((!strcmp(e->verdict, "open") ? add_open(s, x, e) : add_close(s, x, e)) < 0)
			goto bound;
		return 0;
	case EV_NET:
	case EV_DNS:
	case EV_SECCOMP:
	case EV_LANDLOCK:
	case EV_GATE:
		if (!strcmp(e->verdict, "budget")) {
			unsigned long long u;

			x->budget_spent = 1;
			/* The spent line counts one, the stage's last line all. */
			if (json_uint(json_get(e->o, "unwritten"), ~0ULL, &u) == 0 &&
			    u > x->unwritten_by[e->src]) {
				x->unwritten += u - x->unwritten_by[e->src];
				x->unwritten_by[e->src] = u;
			}
			return 0;
		}
		break;
	default:
		break;
	}
	switch (e->src) {
	case EV_NET:
	case EV_DNS:
		if (!strcmp(e->verdict, "ask")) {
			if (add_question(s, x, e) < 0)
				goto bound;
			return 0;
		}
		g = e->src == EV_NET ? add_net(s, x, e) : add_dns(s, x, e);
		break;
	case EV_SECCOMP:
	case EV_LANDLOCK:
		g = add_kind(s, x, e);
		break;
	case EV_GATE:
		if (!strcmp(e->verdict, "pass"))
			return 0; /* a login's phantom let pass: in the record, not a refusal */
		g = add_gate(s, x, e);
		break;
	default:
		return 0;
	}
	if (!g && errno)
		goto bound;
	if (g) {
		g->count++;
		*refusal = g;
	}
	return 0;
bound:
	if (errno == ENOMEM)
		return -1;
	x->dropped++;
	return 0;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	for (int j = 0; j < SUM_KEYS; j++)
		if ((c = strcmp(x->k[j], y->k[j])))
			return c;
	return 0;
}

int summary_end(struct summary *s)
{
	for (size_t i = 0; i < s->ns; i++) {
		struct sess *x = &s->s[i];

		for (size_t j = 0; j < x->na; j++) {
			const char *k[SUM_KEYS] = { x->a[j].k[0], x->a[j].k[1], x->a[j].k[2],
						    x->a[j].k[3], "pending" };
			struct group *g;

			if (x->a[j].answered)
				continue;
			g = group(s, x, G_ASK, k);
			if (!g) {
				if (errno == ENOMEM)
					return -1;
				x->dropped++;
				continue;
			}
			g->count++;
		}
		/* Sorted, the groups leave their places: the index is no more. */
		free(x->index);
		x->index = NULL;
		if (x->ng)
			qsort(x->g, x->ng, sizeof(*x->g), group_cmp);
	}
	return 0;
}

void summary_free(struct summary *s)
{
	for (size_t i = 0; i < s->ns; i++) {
		struct sess *x = &s->s[i];
		char *own[] = { x->id,	  x->stage, x->account, x->role,    x->person,
				x->chain, x->start, x->end,	x->duration };

		for (size_t j = 0; j < ARRAY_SIZE(own); j++)
			free(own[j]);
		for (size_t j = 0; j < x->ng; j++)
			for (int k = 0; k < SUM_KEYS; k++)
				free(x->g[j].k[k]);
		for (size_t j = 0; j < x->na; j++) {
			free(x->a[j].id);
			for (int k = 0; k < 4; k++)
				free(x->a[j].k[k]);
		}
		free(x->g);
		free(x->index);
		free(x->a);
	}
	free(s->s);
	memset(s, 0, sizeof(*s));
}
