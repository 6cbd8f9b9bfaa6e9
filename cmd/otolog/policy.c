/* SPDX-License-Identifier: ISC */
/*
 * --policy: the otorun config lines (otorun --config FILE) that would have
 * allowed what a session was refused or asked, each after a comment that
 * says what it allows and how often it was wanted; for a person to review.
 * A private destination's line is commented out, with a warning; what no
 * option allows is a comment that says so. A value that a config line
 * could not carry as it is (a byte outside printable ASCII, a blank at an
 * end: otorun reads the value to the end of the line) is never written as
 * a line. The destinations' lines are oto.h's policy_line, the same as
 * otoask --save's: a name only when it is a host name, a person's deny
 * never an allow line. Pure.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otolog.h"

#define POLICY_ITEMS SUM_GROUPS

struct item {
	char line[600]; /* "" : a comment alone */
	char note[400]; /* what the line allows ("": allows() says it) */
	char what[1024];
	int commented;
	unsigned long long count;
};

struct policy {
	struct item *it;
	size_t n, cap;
	int failed;
};

/* A value a config line may carry: printable ASCII, no blank at either end. */
static int plain(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 512 || v[0] == ' ' || v[n - 1] == ' ')
		return 0;
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
			return 0;
	return 1;
}

static int port_ok(const char *v)
{
	unsigned long n = 0;

	if (!*v || strlen(v) > 5)
		return 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	return n >= 1 && n <= 65535;
}

/* what, escaped for a comment: nothing in it may end the comment's line. */
static void escaped(char *buf, size_t size, const char *v)
{
	size_t at = 0;

	for (; *v && at + 5 < size; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '\\' || c < 0x20 || c > 0x7e)
			at += (size_t)snprintf(buf + at, size - at, c == '\\' ? "\\\\" : "\\x%02x",
					       c);
		else
			buf[at++] = (char)c;
	}
	buf[at] = 0;
}

/* The line (or a comment alone: line ""), merged with an equal one already there. */
static void add(struct policy *p, const char *line, const char *note, int commented,
		unsigned long long count, const char *what)
{
	struct item *it;

	for (size_t i = 0; *line && i < p->n; i++) {
		it = &p->it[i];
		if (strcmp(it->line, line) || it->commented != commented)
			continue;
		it->count += count;
		if (!strstr(it->what, what) &&
		    strlen(it->what) + strlen(what) + 3 < sizeof(it->what)) {
			strcat(it->what, "; ");
			strcat(it->what, what);
		}
		return;
	}
	if (p->n >= POLICY_ITEMS)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		it = realloc(p->it, cap * sizeof(*it));
		if (!it) {
			p->failed = 1;
			return;
		}
		p->it = it;
		p->cap = cap;
	}
	it = &p->it[p->n++];
	snprintf(it->line, sizeof(it->line), "%s", line);
	snprintf(it->note, sizeof(it->note), "%s", note);
	snprintf(it->what, sizeof(it->what), "%s", what);
	it->commented = commented;
	it->count = count;
}

/*
 * A destination wanted (refused under --no-public, or asked): its line, as
 * policy_line says (a name that is no host name: a comment alone).
 */
static void destination(struct policy *p, const char *proto, const char *dst, const char *port,
			const char *name, unsigned long long n, const char *what)
{
	struct policy_dest d = { .proto = proto, .addr = dst, .name = name };
	char line[300], note[400], w[1024];

	if (*port && !port_ok(port)) {
		snprintf(w, sizeof(w), "%s: no --allow or --allow-name can say it", what);
		add(p, "", "", 1, n, w);
		return;
	}
	d.port = *port ? (unsigned int)strtoul(port, NULL, 10) : 0;
	if (policy_line(&d, line, sizeof(line), note, sizeof(note)) == POLICY_NONE) {
		snprintf(w, sizeof(w), "%s: %s", what, note);
		add(p, "", "", 1, n, w);
		return;
	}
	add(p, line, note, 0, n, what);
}

/* The private address's line, commented out: an address policy_line can say, else none. */
static int private_line(const char *proto, const char *dst, const char *port, char *line,
			size_t size, char *note, size_t nsize)
{
	struct policy_dest d = { .proto = proto, .addr = dst };

	if (!port_ok(port))
		return -1;
	d.port = (unsigned int)strtoul(port, NULL, 10);
	return policy_line(&d, line, size, note, nsize) == POLICY_ADDR ? 0 : -1;
}

static void net(struct policy *p, const struct group *g, const char *what)
{
	const char *proto = g->k[0], *dst = g->k[1], *port = g->k[2], *name = g->k[3],
		   *rule = g->k[4];
	char line[600], note[400], w[1024];

	if (!strcmp(rule, "no-public") || !strcmp(rule, "sni-mismatch") ||
	    !strcmp(rule, "host-mismatch")) {
		destination(p, proto, dst, port, name, g->count, what);
	} else if (!strcmp(rule, "not-tls-or-http") && policy_name_ok(name) && port_ok(port)) {
		/* A rule with a port does not look at the bytes. */
		snprintf(line, sizeof(line), "--allow-name %s:%s", name, port);
		snprintf(note, sizeof(note),
			 "allows %s on port %s, any protocol, what it sends not checked", name,
			 port);
		add(p, line, note, 0, g->count, what);
	} else if ((!strncmp(rule, "special:", 8) || !strcmp(rule, "host-address")) &&
		   private_line(proto, dst, port, line, sizeof(line), note, sizeof(note)) == 0) {
		char range[128];

		escaped(range, sizeof(range), rule);
		snprintf(w, sizeof(w),
			 "%s. WARNING: a private destination (%s): grant it only deliberately",
			 what, range);
		add(p, line, note, 1, g->count, w);
	} else {
		snprintf(w, sizeof(w), "%s: no option allows it", what);
		add(p, "", "", 1, g->count, w);
	}
}

static void dns(struct policy *p, const struct group *g, const char *what)
{
	const char *name = g->k[0], *rule = g->k[2];
	char w[1024];

	if (!strcmp(rule, "no-name")) {
		destination(p, "", "", "", name, g->count, what);
	} else if (!strcmp(rule, "private-answer")) {
		snprintf(w, sizeof(w),
			 "%s: it names a private address; only --allow PROTO:NAME:PORT opens "
			 "one, deliberately (the port is not in the record)",
			 what);
		add(p, "", "", 1, g->count, w);
	} else {
		snprintf(w, sizeof(w), "%s: no option allows it", what);
		add(p, "", "", 1, g->count, w);
	}
}

static void calls(struct policy *p, const struct group *g, const char *what)
{
	static const char *const DEV[] = { "ptrace", "process_vm_readv", "process_vm_writev",
					   "perf_event_open", NULL };
	char w[1024];

	for (const char *const *d = DEV; *d; d++) {
		if (strcmp(g->k[0], *d))
			continue;
		add(p, "--profile dev", "", 0, g->count, what);
		return;
	}
	snprintf(w, sizeof(w),
		 "%s: no otorun option allows it; a profile file of your own does "
		 "(otoexec(1), Profiles; --profile FILE)",
		 what);
	add(p, "", "", 1, g->count, w);
}

/* Landlock: the path read-only when every blocker is a read, else read-write. */
static void landlock(struct policy *p, const struct group *g, const char *what)
{
	static const char *const RO[] = { "fs.read_file", "fs.read_dir", "fs.execute", NULL };
	char line[600], w[1024], list[256];
	int ro = 1;

	snprintf(list, sizeof(list), "%s", g->k[0]);
	if (strncmp(list, "fs.", 3) || g->k[1][0] != '/' || !plain(g->k[1]) ||
	    strlen(g->k[1]) > 500) {
		snprintf(w, sizeof(w), "%s: no otorun option allows it", what);
		add(p, "", "", 1, g->count, w);
		return;
	}
	for (char *save, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		const char *const *r;

		for (r = RO; *r && strcmp(*r, b); r++)
			;
		ro &= *r != NULL;
	}
	snprintf(line, sizeof(line), "--landlock-%s %s", ro ? "ro" : "rw", g->k[1]);
	add(p, line, "", 0, g->count, what);
}

/* What a line allows, in a few words: its note, else what the option does. */
static void allows(struct out *o, const struct item *it)
{
	const char *v = strchr(it->line, ' ') + 1;

	if (*it->note)
		out_printf(o, "# %s\n", it->note);
	else if (!strcmp(it->line, "--profile dev"))
		out_str(o,
			"# allows ptrace, process_vm_readv, process_vm_writev and perf_event_open\n"
			"# (the agent's own processes only), and personality(ADDR_NO_RANDOMIZE)\n");
	else if (!strncmp(it->line, "--landlock-ro ", 14))
		out_printf(o, "# allows reading and executing %s (Landlock)\n", v);
	else if (!strncmp(it->line, "--landlock-rw ", 14))
		out_printf(o, "# allows every access to %s (Landlock)\n", v);
}

/* What the group was, in a few words, escaped for a comment. */
static void describe(const struct group *g, char *buf, size_t size)
{
	struct out o = { 0 };
	char *const *k = g->k;

	switch (g->kind) {
	case G_NET:
		out_printf(&o, "%s %s port %s%s%s%s refused (%s)", k[0], k[1], k[2],
			   *k[3] ? " (" : "", k[3], *k[3] ? ")" : "", k[4]);
		break;
	case G_DNS:
		out_printf(&o, "the name %s (%s) refused (%s)", k[0], k[1], k[2]);
		break;
	case G_SYSCALL:
		out_printf(&o, "%s refused, by %s", k[0], k[1]);
		break;
	case G_LANDLOCK:
		out_printf(&o, "%s of %s refused, by %s", k[0], k[1], k[2]);
		break;
	case G_GATE:
		out_printf(&o,
			   "%s answered %s by the gateway (%s), grant %s: its --grant decides "
			   "(otogate(1), allow=)",
			   k[0], k[2], k[3], k[1]);
		break;
	case G_ASK:
		if (*k[3])
			out_printf(&o, "%s %s port %s asked, answered %s", k[1], k[2], k[3], k[4]);
		else
			out_printf(&o, "the name %s asked, answered %s", k[2], k[4]);
		break;
	default:
		break;
	}
	escaped(buf, size, o.buf ? o.buf : "");
	out_free(&o);
}

/*
 * A question and its answer: a person's deny is a comment, never an allow
 * line; anything else (allowed, or no answer) the destination's line. The
 * question names a name when the address came from one (its target), else
 * the address: a target that reads as an address is one.
 */
static void asked(struct policy *p, const struct group *g, const char *what)
{
	const char *src = g->k[0], *target = g->k[2];
	unsigned char a[16];
	char w[1024];
	int addr = inet_pton(AF_INET, target, a) == 1 || inet_pton(AF_INET6, target, a) == 1;

	if (!strcmp(g->k[4], "deny")) {
		snprintf(w, sizeof(w), "%s: denied by a person, so no line allows it", what);
		add(p, "", "", 1, g->count, w);
	} else if (!strcmp(src, "dns") || !addr) {
		destination(p, g->k[1], "", !strcmp(src, "dns") ? "" : g->k[3], target, g->count,
			    what);
	} else {
		destination(p, g->k[1], target, g->k[3], "", g->count, what);
	}
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (!*x->line != !*y->line)
		return *x->line ? -1 : 1;
	return strcmp(*x->line ? x->line : x->what, *y->line ? y->line : y->what);
}

static void session_policy(struct out *o, const struct sess *x, struct policy *p)
{
	char what[400];

	p->n = 0;
	for (size_t i = 0; i < x->ng; i++) {
		const struct group *g = &x->g[i];

		describe(g, what, sizeof(what));
		if (g->kind == G_NET)
			net(p, g, what);
		else if (g->kind == G_DNS)
			dns(p, g, what);
		else if (g->kind == G_SYSCALL)
			calls(p, g, what);
		else if (g->kind == G_LANDLOCK)
			landlock(p, g, what);
		else if (g->kind == G_GATE && *g->k[3])
			add(p, "", "", 1, g->count, what);
		else if (g->kind == G_ASK)
			asked(p, g, what);
	}
	if (p->n)
		qsort(p->it, p->n, sizeof(*p->it), item_cmp);
	out_str(o, "# session ");
	out_text(o, *x->id ? x->id : "(none)");
	if (!p->n)
		out_str(o, ": nothing refused");
	out_str(o, "\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct item *it = &p->it[i];

		out_printf(o, "# wanted %llu time%s: %s\n", it->count, it->count == 1 ? "" : "s",
			   it->what);
		if (!*it->line)
			continue;
		allows(o, it);
		out_printf(o, "%s%s\n", it->commented ? "#" : "", it->line);
	}
}

void policy_write(struct out *o, const struct summary *s)
{
	struct policy p = { 0 };

	out_str(o, "# otorun config lines (otorun --config FILE) that would have allowed what\n"
		   "# was refused or asked; review each before you use it.\n");
	for (size_t i = 0; i < s->ns; i++)
		session_policy(o, &s->s[i], &p);
	if (p.failed)
		o->failed = 1;
	free(p.it);
}
