/* SPDX-License-Identifier: ISC */
/*
 * otorun's options and their values: which stage each belongs to, what
 * otorun does with it, the config file's lines, the checks after. Pure: no
 * system call, no exit. Values reach the chain's words through words.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otorun.h"

int is_num(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int is_alnum_(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

int is_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!is_alnum_(*s))
			return 0;
	return 1;
}

/*
 * Every option of every stage otorun composes, and what otorun does with it,
 * under the stage's own name: PASS it on to that stage as it is (the
 * stage's words, in the order given), take it as its OWN (opt_apply: otorun
 * opens a file, checks a value, or sets it for several stages), or refuse
 * it, NO, saying why. Then otorun's own options, of no stage. One row per
 * stage and name; a name in several stages is otorun's under the first row
 * that is not NO. tests/test_otorun.sh checks every stage's --help against
 * this table: a stage's new option fails that test until it has its row.
 */
enum { PASS, OWN, NO };
enum { TO_NONE, TO_NET, TO_NS, TO_MOUNT, TO_EXEC };
struct stage_opt {
	const char *stage, *name;
	unsigned char valued, how, to;
	const char *why; /* NO: the refusal's reason */
};
static const struct stage_opt OPTS[] = {
	{ "otonet", "--allow", 1, PASS, TO_NET, NULL },
	{ "otonet", "--allow-name", 1, PASS, TO_NET, NULL },
	{ "otonet", "--public", 1, PASS, TO_NET, NULL },
	{ "otonet", "--no-public", 0, PASS, TO_NET, NULL },
	{ "otonet", "--kernel-wall", 0, PASS, TO_NET, NULL },
	{ "otonet", "--dns", 1, PASS, TO_NET, NULL },
	{ "otonet", "--log-fd", 1, OWN, TO_NONE, NULL },
	{ "otonet", "--log-budget", 1, OWN, TO_NONE, NULL },
	{ "otonet", "--ask-fd", 1, OWN, TO_NONE, NULL },
	{ "otonet", "--ask-timeout", 1, OWN, TO_NET, NULL },
	{ "otonet", "--max-flows", 1, OWN, TO_NET, NULL },
	{ "otonet", "--max-half-open", 1, OWN, TO_NET, NULL },
	{ "otonet", "--max-udp-flows", 1, OWN, TO_NET, NULL },
	{ "otonet", "--tcp-idle", 1, OWN, TO_NET, NULL },
	{ "otonet", "--udp-idle", 1, OWN, TO_NET, NULL },
	{ "otonet", "--busy-poll", 1, OWN, TO_NET, NULL },
	{ "otonet", "--as", 1, OWN, TO_NONE, NULL },
	{ "otonet", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otonet", "--help", 0, OWN, TO_NONE, NULL },
	{ "otonet", "--version", 0, OWN, TO_NONE, NULL },
	{ "otons", "--share", 1, NO, TO_NONE,
	  "the chain's namespaces are its own (behind otonet, otorun shares otonet's net "
	  "namespace itself); to share one, compose the chain by hand (otorun --print)" },
	{ "otons", "--hostname", 1, PASS, TO_NS, NULL },
	{ "otons", "--uid", 1, PASS, TO_NS, NULL },
	{ "otons", "--gid", 1, PASS, TO_NS, NULL },
	{ "otons", "--as", 1, OWN, TO_NONE, NULL },
	{ "otons", "--die-with-parent", 0, PASS, TO_NS, NULL },
	{ "otons", "--grace", 1, PASS, TO_NS, NULL },
	{ "otons", "--no-proc", 0, NO, TO_NONE,
	  "otomount's view mounts the pid namespace's own /proc" },
	{ "otons", "--pty", 0, PASS, TO_NS, NULL },
	{ "otons", "--no-pty", 0, PASS, TO_NS, NULL },
	{ "otons", "--cgroup", 0, OWN, TO_NONE, NULL },
	{ "otons", "--memory-max", 1, OWN, TO_NS, NULL },
	{ "otons", "--pids-max", 1, OWN, TO_NS, NULL },
	{ "otons", "--cpu-max", 1, OWN, TO_NS, NULL },
	{ "otons", "--log-fd", 1, OWN, TO_NONE, NULL },
	{ "otons", "--log-budget", 1, OWN, TO_NONE, NULL },
	{ "otons", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otons", "--help", 0, OWN, TO_NONE, NULL },
	{ "otons", "--version", 0, OWN, TO_NONE, NULL },
	{ "otomount", "--agent-root", 1, OWN, TO_NONE, NULL },
	{ "otomount", "--role", 1, OWN, TO_NONE, NULL },
	{ "otomount", "--person", 1, OWN, TO_NONE, NULL },
	{ "otomount", "--ro", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--rw", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--tmpfs", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--socket", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--hide", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--ro-within", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--tmp-size", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--tmp-inodes", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--home", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--user-name", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--home-skel", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--ca-file", 1, OWN, TO_NONE, NULL },
	{ "otomount", "--writable", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--protect", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--cow", 1, PASS, TO_MOUNT, NULL },
	{ "otomount", "--cow-private", 0, PASS, TO_MOUNT, NULL },
	{ "otomount", "--cow-all", 0, PASS, TO_MOUNT, NULL },
	{ "otomount", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otomount", "--help", 0, OWN, TO_NONE, NULL },
	{ "otomount", "--version", 0, OWN, TO_NONE, NULL },
	{ "otosecret", "--store", 1, OWN, TO_NONE, NULL },
	{ "otosecret", "--store-fd", 1, NO, TO_NONE,
	  "otorun opens the store itself: give --store FILE" },
	{ "otosecret", "--key-file", 1, OWN, TO_NONE, NULL },
	{ "otosecret", "--key-fd", 1, NO, TO_NONE,
	  "otorun opens the key itself: give --key-file FILE" },
	{ "otosecret", "--use", 1, NO, TO_NONE,
	  "otorun's --secret NAME[:HOW] is otosecret's --use" },
	{ "otosecret", "--out", 1, NO, TO_NONE,
	  "otosecret --out makes a store; run otosecret itself (otosecret(1))" },
	{ "otosecret", "--name", 1, NO, TO_NONE,
	  "otosecret import seals a login on the host, before a session (otosecret(1)); "
	  "then --login ENTRY=PROFILE" },
	{ "otosecret", "--profile-file", 1, NO, TO_NONE,
	  "otosecret import seals a login on the host, before a session (otosecret(1)); "
	  "then --login ENTRY=PROFILE" },
	{ "otosecret", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otosecret", "--help", 0, OWN, TO_NONE, NULL },
	{ "otosecret", "--version", 0, OWN, TO_NONE, NULL },
	{ "otoexec", "--profile", 1, OWN, TO_NONE, NULL },
	{ "otoexec", "--profile-fd", 1, NO, TO_NONE,
	  "otorun opens a profile file itself: give --profile FILE" },
	{ "otoexec", "--explain", 0, NO, TO_NONE,
	  "it prints the profile's rules and runs nothing: otoexec --explain" },
	{ "otoexec", "--print-bpf", 0, NO, TO_NONE,
	  "it prints the compiled filters and runs nothing: otoexec --print-bpf" },
	{ "otoexec", "--bpf-fd", 1, NO, TO_NONE,
	  "a compiled filter set is for a chain composed by hand (otorun --print)" },
	{ "otoexec", "--print-profile", 1, NO, TO_NONE,
	  "it prints a profile and runs nothing: otoexec --print-profile" },
	{ "otoexec", "--keep-cap", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--uid", 1, NO, TO_NONE,
	  "otorun gives the ids inside with otons' --uid and --gid (the same option names)" },
	{ "otoexec", "--gid", 1, NO, TO_NONE,
	  "otorun gives the ids inside with otons' --uid and --gid (the same option names)" },
	{ "otoexec", "--rlimit", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--landlock-ro", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--landlock-rw", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--landlock-strict", 0, PASS, TO_EXEC, NULL },
	{ "otoexec", "--env", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--env-keep", 1, PASS, TO_EXEC, NULL },
	{ "otoexec", "--keep-fd", 1, OWN, TO_EXEC, NULL },
	{ "otoexec", "--new-session", 0, OWN, TO_NONE, NULL },
	{ "otoexec", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otoexec", "--help", 0, OWN, TO_NONE, NULL },
	{ "otoexec", "--version", 0, OWN, TO_NONE, NULL },
	{ "otogate", "--store", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--store-fd", 1, NO, TO_NONE,
	  "otorun opens the store itself: give --store FILE" },
	{ "otogate", "--key-file", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--key-fd", 1, NO, TO_NONE,
	  "otorun opens the key itself: give --key-file FILE" },
	{ "otogate", "--grant", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--login", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--ca-file", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--log-fd", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--as", 1, OWN, TO_NONE, NULL },
	{ "otogate", "--verbose", 0, OWN, TO_NONE, NULL },
	{ "otogate", "--help", 0, OWN, TO_NONE, NULL },
	{ "otogate", "--version", 0, OWN, TO_NONE, NULL },
	{ "otorun", "--config", 1, OWN, TO_NONE, NULL },
	{ "otorun", "--no-net", 0, OWN, TO_NONE, NULL },
	{ "otorun", "--secret", 1, OWN, TO_NONE, NULL },
	{ "otorun", "--no-new-session", 0, OWN, TO_NONE, NULL },
	{ "otorun", "--print", 0, OWN, TO_NONE, NULL },
	{ "otorun", "--ask", 1, OWN, TO_NONE, NULL },
	{ "otorun", "--mode", 1, OWN, TO_NONE, NULL },
};

/* The row that decides name: the first that is not NO, else the first; NULL: none. */
static const struct stage_opt *opt_row(const char *name)
{
	const struct stage_opt *no = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(OPTS); i++) {
		if (strcmp(name, OPTS[i].name))
			continue;
		if (OPTS[i].how != NO)
			return &OPTS[i];
		if (!no)
			no = &OPTS[i];
	}
	return no;
}

static int in(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, set[i]))
			return 1;
	return 0;
}

#define IN(s, set) in((s), (set), ARRAY_SIZE(set))

int takes_value(const char *name)
{
	const struct stage_opt *r = opt_row(name);

	return r && r->how != NO && r->valued;
}

int is_flag(const char *name)
{
	const struct stage_opt *r = opt_row(name);

	return (r && r->how != NO && !r->valued) || !strncmp(name, "--cgroup=", 9);
}

void opts_init(struct otorun_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->root = o->role = o->person = o->store = o->key = o->profile = o->as = o->log_fd =
	    o->log_budget = "";
	o->ask_fd = o->ask = o->ask_timeout = "";
	o->config = "";
	o->newsession = -1;
}

/* *err = the message, printf-style, with each %s an argument shown(). */
static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*err = n < 0 ? NULL : arena_alloc((size_t)n + 1);
	if (!*err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(*err, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return -1;
}

/* fail, the value shown (control bytes as '?'): FMT takes two strings, A and it. */
#define FAIL_SHOWN(err, fmt, a, v)                                                                 \
	do {                                                                                       \
		char *s_ = shown(v);                                                               \
		if (!s_) {                                                                         \
			*(err) = NULL;                                                             \
			return -1;                                                                 \
		}                                                                                  \
		return fail(err, fmt, a, s_);                                                      \
	} while (0)

static int opt_secret(struct otorun_opts *o, const char *v, char **err)
{
	size_t nl = strcspn(v, ":");
	char *name = arena_strndup(v, nl);
	const char *how = v + nl;

	*err = NULL;
	if (!name)
		return -1;
	if (*how == ':')
		how++;
	if (!is_name(name))
		FAIL_SHOWN(err, "%s %s: NAME must be letters, digits and _", "--secret", v);
	if (!*how || !strcmp(how, "env")) {
		words_add(&o->exec, "--env-keep", NULL);
		words_add(&o->exec, name, NULL);
	} else if (!strncmp(how, "env=", 4)) {
		if (!is_name(how + 4))
			FAIL_SHOWN(err, "%s %s: env=VAR must name a variable", "--secret", v);
		words_add(&o->exec, "--env-keep", NULL);
		words_add(&o->exec, how + 4, NULL);
	} else if (!strncmp(how, "fd=", 3)) {
		if (!is_num(how + 3))
			FAIL_SHOWN(err, "%s %s: fd=N must be a number", "--secret", v);
		words_add(&o->exec, "--keep-fd", NULL);
		words_add(&o->exec, how + 3, NULL);
	} else if (!strncmp(how, "file=", 5)) {
		if (how[5] != '/')
			FAIL_SHOWN(err, "%s %s: file=PATH must be an absolute path in the view",
				   "--secret", v);
	} else {
		FAIL_SHOWN(err, "%s %s: HOW must be env, env=VAR, file=PATH or fd=N", "--secret",
			   v);
	}
	words_add(&o->secrets, "--use", NULL);
	words_add(&o->secrets, "", v);
	return 0;
}

/*
 * --login ENTRY=PROFILE: otogate's, which checks the profile; here the
 * form, so that a typo says so before the chain is built.
 */
static int opt_login(struct otorun_opts *o, const char *v, char **err)
{
	size_t nl = strcspn(v, "=");
	char *name = arena_strndup(v, nl);

	*err = NULL;
	if (!name)
		return -1;
	if (!is_name(name) || v[nl] != '=' || !v[nl + 1])
		FAIL_SHOWN(err, "%s %s: expected ENTRY=PROFILE (claude, codex, gemini or a file)",
			   "--login", v);
	o->logins = 1;
	o->transparent = 1; /* the CLI reaches its hosts by name: the session CA in the view */
	words_add(&o->grants, "--login", NULL);
	words_add(&o->grants, "", v);
	return 0;
}

static int opt_grant(struct otorun_opts *o, const char *v, char **err)
{
	size_t nl = strcspn(v, "=");
	char *name = arena_strndup(v, nl);
	const char *url = v[nl] == '=' ? v + nl + 1 : v;
	char *u;

	*err = NULL;
	if (!name)
		return -1;
	if (!is_name(name))
		FAIL_SHOWN(err, "%s %s: NAME must be letters, digits and _", "--grant", v);
	if (strncmp(url, "https://", 8) || !url[8])
		FAIL_SHOWN(err, "%s %s: expected NAME=https://HOST[:PORT]", "--grant", v);
	/* The phantom and the gateway's address: otoexec keeps both for CMD. */
	if (!(u = arena_printf("%s_URL", name)))
		return -1;
	words_add(&o->exec, "--env-keep", NULL);
	words_add(&o->exec, name, NULL);
	words_add(&o->exec, "--env-keep", NULL);
	words_add(&o->exec, u, NULL);
	words_add(&o->grants, "--grant", NULL);
	words_add(&o->grants, "", v);
	/* otogate checks the options; the CA variables are otoexec's to keep. */
	for (const char *c = strchr(url, ','); c; c = strchr(c + 1, ','))
		if (!strncmp(c, ",transparent", 12) && (!c[12] || c[12] == ','))
			o->transparent = 1;
		else if (!strncmp(c, ",ask=", 5))
			o->gate_asks = 1;
	return 0;
}

static int limit_ok(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (*v == '_' || (!is_alnum_(*v) && *v != '.'))
			return 0;
	return 1;
}

/*
 * Whether the DST of --ro, --rw, --socket SRC:DST or --tmpfs DST[:SIZE]
 * would cover the chain's own tools (VIEW_BIN, bound first): DST equal
 * to it, above it or inside it, with repeated and trailing slashes read as
 * the kernel reads them.
 */
static int covers_tools(const char *n, const char *v)
{
	const char *d = strcmp(n, "--tmpfs") ? strchr(v, ':') : v;
	const char *b = VIEW_BIN;

	if (!d)
		return 0;
	if (*d == ':')
		d++;
	if (*d != '/')
		return 0;
	/* d and b walked a component at a time; b has no repeated slash. */
	for (;;) {
		while (*d == '/')
			d++;
		while (*b == '/')
			b++;
		if (!*d || *d == ':' || !*b)
			return 1; /* DST ended (above or equal), or went below */
		while (*d && *d != '/' && *d != ':' && *d == *b)
			d++, b++;
		if ((*d && *d != '/' && *d != ':') || (*b && *b != '/'))
			return 0; /* the components differ */
	}
}

static const char *const NET_NUMBERS[] = { "--max-flows",  "--max-half-open", "--max-udp-flows",
					   "--tcp-idle",   "--udp-idle",      "--busy-poll",
					   "--ask-timeout" };
static const char *const LIMITS[] = { "--memory-max", "--pids-max", "--cpu-max" };

int opt_apply(struct otorun_opts *o, const char *n, const char *v, char **err)
{
	if (!strcmp(n, "--agent-root")) {
		o->root = v;
	} else if (!strcmp(n, "--role")) {
		o->role = v;
	} else if (!strcmp(n, "--person")) {
		o->person = v;
	} else if (!strcmp(n, "--log-fd")) {
		if (!is_num(v))
			FAIL_SHOWN(err, "%s %s: expected a file descriptor number", "--log-fd", v);
		o->log_fd = v;
	} else if (!strcmp(n, "--log-budget")) {
		unsigned long long b;

		if (opt_bytes(v, RECORD_BUDGET_MAX, &b) < 0 || b < RECORD_BUDGET_MIN)
			FAIL_SHOWN(err, "%s %s: expected 4K to 1T bytes", "--log-budget", v);
		o->log_budget = v;
	} else if (!strcmp(n, "--ask-fd")) {
		/* 3 to 9 are otorun's own (the log's copy lands on 3 or 4). */
		if (!is_num(v) || strlen(v) > 7 || atoi(v) < 10)
			FAIL_SHOWN(err,
				   "%s %s: expected a file descriptor number from 10 (3 to 9 are "
				   "otorun's own)",
				   "--ask-fd", v);
		o->ask_fd = v;
	} else if (!strcmp(n, "--ask")) {
		if (!*v)
			FAIL_SHOWN(err, "%s%s: expected the decider's socket", "--ask", v);
		o->ask = v;
	} else if (IN(n, NET_NUMBERS)) {
		if (!is_num(v))
			FAIL_SHOWN(err, "%s %s: expected a number", n, v);
		words_add(&o->net, n, NULL);
		words_add(&o->net, v, NULL);
		if (!strcmp(n, "--ask-timeout"))
			o->ask_timeout = v;
	} else if (!strcmp(n, "--no-net")) {
		o->nonet = 1;
	} else if (!strcmp(n, "--cgroup")) {
		o->cgroup = 1;
	} else if (!strncmp(n, "--cgroup=", 9)) {
		if (n[9] != '/' || !n[10])
			FAIL_SHOWN(err, "%s%s: the directory must be an absolute path", "", n);
		o->cgroup = 1;
		o->cgroup_dir = n + 9;
	} else if (IN(n, LIMITS)) {
		if (!limit_ok(v))
			FAIL_SHOWN(err, "%s %s: expected a number (see otons(1))", n, v);
		o->cgroup = 1;
		words_add(&o->ns, n, NULL);
		words_add(&o->ns, v, NULL);
	} else if (!strcmp(n, "--secret")) {
		return opt_secret(o, v, err);
	} else if (!strcmp(n, "--grant")) {
		return opt_grant(o, v, err);
	} else if (!strcmp(n, "--login")) {
		return opt_login(o, v, err);
	} else if (!strcmp(n, "--ca-file")) {
		o->cafile = v;
	} else if (!strcmp(n, "--store")) {
		o->store = v;
	} else if (!strcmp(n, "--key-file")) {
		o->key = v;
	} else if (!strcmp(n, "--profile")) {
		o->profile = v;
	} else if ((!strcmp(n, "--ro") || !strcmp(n, "--rw") || !strcmp(n, "--socket") ||
		    !strcmp(n, "--home-skel") || !strcmp(n, "--ca-file")) &&
		   !strncmp(v, "fd=", 3)) {
		FAIL_SHOWN(err, "%s %s: otorun opens the sources itself: give SRC:DST", n, v);
	} else if ((!strcmp(n, "--ro") || !strcmp(n, "--rw") || !strcmp(n, "--socket") ||
		    !strcmp(n, "--tmpfs")) &&
		   covers_tools(n, v)) {
		FAIL_SHOWN(
		    err,
		    "%s %s: DST would cover, or land inside, the chain's own tools at " VIEW_BIN
		    " (choose another)",
		    n, v);
	} else if (!strcmp(n, "--keep-fd")) {
		/* The fds otorun opens itself are the stages': the store's, the log's copy. */
		if (!is_num(v) || strlen(v) > 4 || atoi(v) < 10)
			FAIL_SHOWN(err,
				   "%s %s: expected a file descriptor number from 10 (0 to 2 "
				   "are the agent's, 3 to 9 otorun's own)",
				   "--keep-fd", v);
		words_add(&o->exec, n, NULL);
		words_add(&o->exec, v, NULL);
	} else if (!strcmp(n, "--new-session")) {
		o->newsession = 1;
	} else if (!strcmp(n, "--no-new-session")) {
		o->newsession = 0;
	} else if (!strcmp(n, "--verbose")) {
		o->verbose = 1;
	} else if (!strcmp(n, "--as")) {
		o->as = v;
	} else if (!strcmp(n, "--print")) {
		o->print = 1;
	} else if (!strcmp(n, "--mode")) {
		static const char *const MODES[] = { "auto", "ask-new", "ask-writes", "ask-all" };
		size_t i = 0;

		while (i < ARRAY_SIZE(MODES) && strcmp(v, MODES[i]))
			i++;
		if (i == ARRAY_SIZE(MODES))
			FAIL_SHOWN(err, "%s %s: expected auto, ask-new, ask-writes or ask-all",
				   "--mode", v);
		o->mode = (enum run_mode)(MODE_AUTO + i);
	} else {
		const struct stage_opt *r = opt_row(n);
		struct words *to[] = { NULL, &o->net, &o->ns, &o->mount, &o->exec };

		if (!r)
			FAIL_SHOWN(err, "%s%s (see --help)", "unknown option ", n);
		if (r->how == NO)
			return fail(err, "%s: an option of %s that otorun does not pass: %s", n,
				    r->stage, r->why);
		if (r->how != PASS || !to[r->to])
			FAIL_SHOWN(err, "%s%s (see --help)", "unknown option ", n);
		words_add(to[r->to], n, NULL);
		if (r->valued)
			words_add(to[r->to], "", v);
		/* A value is a word of its own: only the option itself counts. */
		if (!strcmp(n, "--no-public"))
			o->nopublic = 1;
	}
	return 0;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

int config_line(char *line, size_t len, char **text, char **name, char **val, int *has)
{
	size_t j = 0;
	char *p;

	/* sh's read drops NUL bytes. */
	for (size_t i = 0; i < len; i++)
		if (line[i])
			line[j++] = line[i];
	if (j && line[j - 1] == '\r')
		j--;
	line[j] = 0;
	while (blank(*line))
		line++;
	if (!*line || *line == '#')
		return 0;
	*text = arena_strndup(line, strlen(line));
	if (!*text)
		return -1;
	*name = line;
	for (p = line; *p && !blank(*p); p++)
		;
	*has = *p != 0;
	if (*has) {
		*p++ = 0;
		while (blank(*p))
			p++;
	}
	*val = p;
	return 1;
}

/*
 * A mode that asks needs the network and a decider; auto, given, asks
 * nothing, so a decider beside it contradicts it. The message names the
 * mode as given (static strings: opts_check returns no allocation).
 */
static const char *mode_check(const struct otorun_opts *o)
{
	static const char *const NO_NET[] = {
		[MODE_ASK_NEW] = "--mode ask-new asks through otonet: drop --no-net",
		[MODE_ASK_WRITES] = "--mode ask-writes asks through otonet: drop --no-net",
		[MODE_ASK_ALL] = "--mode ask-all asks through otonet: drop --no-net",
	};
	static const char *const NO_DECIDER[] = {
		[MODE_ASK_NEW] = "--mode ask-new needs a decider: give --ask SOCKET (otoask "
				 "--listen) or --ask-fd N",
		[MODE_ASK_WRITES] = "--mode ask-writes needs a decider: give --ask SOCKET "
				    "(otoask --listen) or --ask-fd N",
		[MODE_ASK_ALL] = "--mode ask-all needs a decider: give --ask SOCKET (otoask "
				 "--listen) or --ask-fd N",
	};
	int decider = *o->ask || *o->ask_fd;

	switch (o->mode) {
	case MODE_NONE:
		return NULL;
	case MODE_AUTO:
		return decider ? "--mode auto asks nothing: drop --ask and --ask-fd, or choose "
				 "--mode ask-new, ask-writes or ask-all"
			       : NULL;
	case MODE_ASK_NEW:
	case MODE_ASK_WRITES:
	case MODE_ASK_ALL:
		if (o->nonet)
			return NO_NET[o->mode];
		return decider ? NULL : NO_DECIDER[o->mode];
	default:
		return "--mode: unknown mode";
	}
}

const char *opts_check(const struct otorun_opts *o, int euid)
{
	int secrets = o->secrets.n > 0, grants = o->grants.n > 0;
	const char *err;

	if (!o->cmd || !o->cmd[0])
		return "no command to run (see --help)";
	if (!*o->root)
		return "--agent-root is required";
	if (!*o->role)
		return "--role is required (manager, member or viewer)";
	if (!*o->person)
		return "--person is required";
	if (o->logins && (!*o->store || !*o->key))
		return "--login needs --store and --key-file";
	if (secrets || grants) {
		if (!*o->store || !*o->key)
			return "--secret and --grant need --store and --key-file";
	} else if (*o->store || *o->key) {
		return "--store and --key-file are only used with --secret or --grant";
	}
	if (o->nonet && o->logins)
		return "--no-net excludes --login (the gateway is reached through otonet)";
	if (o->nonet && grants)
		return "--no-net excludes --grant (the gateway is reached through otonet)";
	if (!*o->as && euid == 0)
		return "run as root: --as USER[:GROUP] names the unprivileged account to run as";
	if ((err = mode_check(o)))
		return err;
	if (o->nonet && (o->net.n || *o->ask || *o->ask_fd))
		return "--no-net excludes the network options";
	if (*o->ask && *o->ask_fd)
		return "--ask and --ask-fd: one decider, one or the other";
	if (o->gate_asks && !*o->ask && !*o->ask_fd)
		return "a --grant's ask= needs a decider: --ask SOCKET or --ask-fd N";
	return NULL;
}
