/* SPDX-License-Identifier: ISC */
/*
 * --policy: the otorun config lines (otorun --config FILE) that would have
 * allowed what a session was refused or asked, each after a comment that
 * says what it allows and how often it was wanted; for a person to review.
 * A private destination's line is commented out, with a warning; what no
 * option allows is a comment that says so. A value that a config line
 * could not carry as it is (a byte outside printable ASCII, a blank at an
 * end: otorun reads the value to the end of the line) is never written as
 * a line. Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otolog.h"

#define POLICY_ITEMS SUM_GROUPS

struct item {
	char line[600]; /* "" : a comment alone */
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

/*
 * A DNS name as --allow-name takes one: letters, digits, '-', '_' and dots,
 * two labels, the last not all digits (an IPv4 address is not a name).
 */
static int name_ok(const char *v)
{
	const char *last = strrchr(v, '.');

	if (!*v || *v == '.' || strlen(v) > 253 || !last || !last[1] || strstr(v, "..") ||
	    strspn(last + 1, "0123456789") == strlen(last + 1))
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || *v == '-' || *v == '_' || *v == '.'))
			return 0;
	return 1;
}

static int addr_ok(const char *v)
{
	if (!*v || strlen(v) > 45)
		return 0;
	for (; *v; v++)
		if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f') ||
		      (*v >= 'A' && *v <= 'F') || *v == '.' || *v == ':'))
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
static void add(struct policy *p, const char *line, int commented, unsigned long long count,
		const char *what)
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
	snprintf(it->what, sizeof(it->what), "%s", what);
	it->commented = commented;
	it->count = count;
}

/* --allow-name for name on port: without a port for 80 and 443 (SNI and Host checked). */
static void allow_name(char *line, size_t size, const char *name, const char *port)
{
	if (!*port || !strcmp(port, "80") || !strcmp(port, "443"))
		snprintf(line, size, "--allow-name %s", name);
	else
		snprintf(line, size, "--allow-name %s:%s", name, port);
}

static void allow_addr(char *line, size_t size, const char *proto, const char *dst,
		       const char *port)
{
	snprintf(line, size, strchr(dst, ':') ? "--allow %s:[%s]:%s" : "--allow %s:%s:%s", proto,
		 dst, port);
}

/* A destination wanted (refused under --no-public, or asked): its line. */
static void destination(struct policy *p, const char *proto, const char *dst, const char *port,
			const char *name, unsigned long long n, const char *what)
{
	char line[600];

	if (*name && name_ok(name) && (!*port || port_ok(port))) {
		allow_name(line, sizeof(line), name, port);
		add(p, line, 0, n, what);
	} else if ((!strcmp(proto, "tcp") || !strcmp(proto, "udp")) && addr_ok(dst) &&
		   port_ok(port)) {
		allow_addr(line, sizeof(line), proto, dst, port);
		add(p, line, 0, n, what);
	} else {
		snprintf(line, sizeof(line), "%s: no --allow or --allow-name can say it", what);
		add(p, "", 1, n, line);
	}
}

static void net(struct policy *p, const struct group *g, const char *what)
{
	const char *proto = g->k[0], *dst = g->k[1], *port = g->k[2], *name = g->k[3],
		   *rule = g->k[4];
	char line[600], w[1024];

	if (!strcmp(rule, "no-public") || !strcmp(rule, "sni-mismatch") ||
	    !strcmp(rule, "host-mismatch")) {
		destination(p, proto, dst, port, name, g->count, what);
	} else if (!strcmp(rule, "not-tls-or-http") && name_ok(name) && port_ok(port)) {
		/* A rule with a port does not look at the bytes. */
		snprintf(line, sizeof(line), "--allow-name %s:%s", name, port);
		add(p, line, 0, g->count, what);
	} else if ((!strncmp(rule, "special:", 8) || !strcmp(rule, "host-address")) &&
		   (!strcmp(proto, "tcp") || !strcmp(proto, "udp")) && addr_ok(dst) &&
		   port_ok(port)) {
		char range[128];

		allow_addr(line, sizeof(line), proto, dst, port);
		escaped(range, sizeof(range), rule);
		snprintf(w, sizeof(w),
			 "%s. WARNING: a private destination (%s): grant it only deliberately",
			 what, range);
		add(p, line, 1, g->count, w);
	} else {
		snprintf(w, sizeof(w), "%s: no option allows it", what);
		add(p, "", 1, g->count, w);
	}
}

static void dns(struct policy *p, const struct group *g, const char *what)
{
	const char *name = g->k[0], *rule = g->k[2];
	char line[600], w[1024];

	if (!strcmp(rule, "no-name") && name_ok(name)) {
		allow_name(line, sizeof(line), name, "");
		add(p, line, 0, g->count, what);
	} else if (!strcmp(rule, "private-answer")) {
		snprintf(w, sizeof(w),
			 "%s: it names a private address; only --allow PROTO:NAME:PORT opens "
			 "one, deliberately (the port is not in the record)",
			 what);
		add(p, "", 1, g->count, w);
	} else {
		snprintf(w, sizeof(w), "%s: no option allows it", what);
		add(p, "", 1, g->count, w);
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
		add(p, "--profile dev", 0, g->count, what);
		return;
	}
	snprintf(w, sizeof(w),
		 "%s: no otorun option allows it; a profile file of your own does "
		 "(otoexec(1), Profiles; --profile FILE)",
		 what);
	add(p, "", 1, g->count, w);
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
		add(p, "", 1, g->count, w);
		return;
	}
	for (char *save, *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		const char *const *r;

		for (r = RO; *r && strcmp(*r, b); r++)
			;
		ro &= *r != NULL;
	}
	snprintf(line, sizeof(line), "--landlock-%s %s", ro ? "ro" : "rw", g->k[1]);
	add(p, line, 0, g->count, what);
}

/* What a line allows, in a few words. */
static void allows(struct out *o, const char *line)
{
	const char *v = strchr(line, ' ') + 1, *port;

	if (!strncmp(line, "--allow-name ", 13) && (port = strchr(v, ':')))
		out_printf(o, "# allows %.*s on port %s, any protocol\n", (int)(port - v), v,
			   port + 1);
	else if (!strncmp(line, "--allow-name ", 13))
		out_printf(
		    o, "# allows %s on ports 80 and 443 (its TLS SNI or HTTP Host checked)\n", v);
	else if (!strncmp(line, "--allow ", 8))
		out_printf(o, "# allows %s, that endpoint only\n", v);
	else if (!strcmp(line, "--profile dev"))
		out_str(o,
			"# allows ptrace, process_vm_readv, process_vm_writev and perf_event_open\n"
			"# (the agent's own processes only), and personality(ADDR_NO_RANDOMIZE)\n");
	else if (!strncmp(line, "--landlock-ro ", 14))
		out_printf(o, "# allows reading and executing %s (Landlock)\n", v);
	else if (!strncmp(line, "--landlock-rw ", 14))
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
			add(p, "", 1, g->count, what);
		else if (g->kind == G_ASK)
			destination(p, g->k[1], !strcmp(g->k[0], "dns") ? "" : g->k[2], g->k[3],
				    name_ok(g->k[2]) ? g->k[2] : "", g->count, what);
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
		allows(o, it->line);
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
