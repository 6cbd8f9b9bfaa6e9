/* SPDX-License-Identifier: ISC */
/*
 * The chain otorun execs, one stage after the other (otogate, otonet,
 * otons, otomount, otosecret, otoexec, the command), as words and as the
 * text --print shows. Pure: no system call, no exit.
 */
#include <string.h>

#include "otorun.h"

static const char *const CA_VARS[] = { "SSL_CERT_FILE",	     "CURL_CA_BUNDLE",
				       "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
				       "GIT_SSL_CAINFO",     NULL };

/* One stage's start: its program, and --verbose when otorun has it. */
static void stage_begin(struct chain *c, const struct otorun_opts *o, const char *bin)
{
	words_add(&c->w, bin, NULL);
	if (o->verbose)
		words_add(&c->w, "--verbose", NULL);
}

/* One stage's end: " -- \" and the next line's indent. */
static void stage_end(struct chain *c)
{
	words_add(&c->w, "--", NULL);
	strbuf_str(&c->w.text, " \\\n ");
}

/*
 * One stream for the session: otonet's flows and otons' refused calls.
 * otonet keeps fd N for its relay (close-on-exec): otons gets a copy,
 * fd 3 (4 when N is 3), which the chain inherits.
 */
static void chain_log(struct chain *c, struct otorun_opts *o)
{
	if (!*o->log_fd)
		return;
	if (o->nonet) {
		c->ns_log_fd = o->log_fd;
		return;
	}
	words_add(&o->net, "--log-fd", NULL);
	words_add(&o->net, o->log_fd, NULL);
	/* Each stage that writes keeps the budget for its own lines. */
	if (*o->log_budget) {
		words_add(&o->net, "--log-budget", NULL);
		words_add(&o->net, o->log_budget, NULL);
	}
	c->ns_log_fd = strcmp(o->log_fd, "3") ? "3" : "4";
	c->dup_log = 1;
}

/*
 * A mode that asks: otonet's --no-public, so that each destination the
 * rules refuse is asked about (ask-new and those above it).
 */
static void chain_mode(struct otorun_opts *o)
{
	if (o->mode >= MODE_ASK_NEW && !o->nopublic)
		words_add(&o->net, "--no-public", NULL);
}

/* Whether grant spec v already has the option opt, a whole field between commas. */
static int grant_has(const char *v, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *c = strchr(v, ','); c; c = strchr(c + 1, ','))
		if (!strncmp(c + 1, opt, n) && (!c[1 + n] || c[1 + n] == ','))
			return 1;
	return 0;
}

/*
 * The grants, each with the ask= its mode adds (ask-writes: every method
 * but GET, HEAD and OPTIONS; ask-all: every request), once. The values
 * follow the "--grant" words opt_grant made, one pair each. A --login's
 * pair (opt_login) goes as it is: its hosts are the model's, never asked.
 */
static void grant_words(struct chain *c, const struct otorun_opts *o)
{
	const char *ask = o->mode == MODE_ASK_WRITES ? "ask=writes"
			  : o->mode == MODE_ASK_ALL  ? "ask=*:/"
						     : NULL;

	for (size_t i = 0; i + 1 < o->grants.n; i += 2) {
		const char *g = o->grants.v[i + 1];

		if (!strcmp(o->grants.v[i], "--login")) {
			words_add(&c->w, "--login", NULL);
			words_add(&c->w, "", g);
			continue;
		}
		if (ask && !grant_has(g, ask) && !(g = arena_printf("%s,%s", g, ask))) {
			c->w.oom = 1;
			return;
		}
		words_add(&c->w, "--grant", NULL);
		words_add(&c->w, "", g);
	}
}

/* The decider otonet asks (--ask-fd N, or --ask SOCKET connected on FD_ASK). */
static void chain_ask(struct otorun_opts *o)
{
	if (!*o->ask_fd && !*o->ask)
		return;
	words_add(&o->net, "--ask-fd", NULL);
	words_add(&o->net, *o->ask_fd ? o->ask_fd : STR(FD_ASK), NULL);
}

/* otons' own options: otons enables the controllers the limits need in DIR. */
static void ns_words(struct words *ns, const struct chain *c, const struct otorun_opts *o,
		     const char *cgroup_dir)
{
	if (o->cgroup) {
		if (cgroup_dir)
			words_add(ns, "--cgroup=", cgroup_dir);
		else
			words_add(ns, "--cgroup", NULL);
	}
	words_cat(ns, &o->ns);
	if (c->ns_log_fd) {
		words_add(ns, "--log-fd", NULL);
		words_add(ns, c->ns_log_fd, NULL);
		if (*o->log_budget) {
			words_add(ns, "--log-budget", NULL);
			words_add(ns, o->log_budget, NULL);
		}
	}
}

/* otogate at the head, outside every namespace of the agent; its store
 * and key on their fds (it closes them), otosecret's stay on theirs. The
 * decider's socket is the gateway's: otonet asks through it, on the same fd
 * number (otogate(1), Asking). */
static void stage_gate(struct chain *c, const struct otorun_opts *o, const struct chain_tools *t,
		       const struct words *as)
{
	if (!o->grants.n)
		return;
	stage_begin(c, o, t->otogate);
	words_add(&c->w, "--store-fd", NULL);
	words_add(&c->w, STR(FD_GATE_STORE), NULL);
	words_add(&c->w, "--key-fd", NULL);
	words_add(&c->w, STR(FD_GATE_KEY), NULL);
	words_cat(&c->w, as);
	grant_words(c, o);
	if (o->cafile) {
		words_add(&c->w, "--ca-file", NULL);
		words_add(&c->w, "", o->cafile);
	}
	if (*o->ask_fd || *o->ask) {
		words_add(&c->w, "--ask-fd", NULL);
		words_add(&c->w, *o->ask_fd ? o->ask_fd : STR(FD_ASK), NULL);
		if (*o->ask_timeout) {
			words_add(&c->w, "--ask-timeout", NULL);
			words_add(&c->w, o->ask_timeout, NULL);
		}
	}
	stage_end(c);
}

/* otonet, then otons in its net namespace; without a network, otons alone. */
static void stage_net_ns(struct chain *c, const struct otorun_opts *o, const struct chain_tools *t,
			 const struct words *as, const struct words *ns)
{
	if (!o->nonet) {
		stage_begin(c, o, t->otonet);
		words_cat(&c->w, as);
		words_cat(&c->w, &o->net);
		stage_end(c);
		stage_begin(c, o, t->otons);
		words_add(&c->w, "--share", NULL);
		words_add(&c->w, "net", NULL);
	} else {
		stage_begin(c, o, t->otons);
		words_cat(&c->w, as);
	}
	words_cat(&c->w, ns);
	stage_end(c);
}

/* otomount: the view, the chain's own tools bound read-only first. 0, or -1 on ENOMEM. */
static int stage_mount(struct chain *c, const struct otorun_opts *o, const struct chain_tools *t)
{
	char *bin;

	stage_begin(c, o, t->otomount);
	words_add(&c->w, "--agent-root", NULL);
	words_add(&c->w, "", o->root);
	words_add(&c->w, "--role", NULL);
	words_add(&c->w, "", o->role);
	words_add(&c->w, "--person", NULL);
	words_add(&c->w, "", o->person);
	if (!(bin = arena_printf("%s:%s", t->here, VIEW_BIN)))
		return -1;
	words_add(&c->w, "--ro", NULL);
	words_add(&c->w, "", bin);
	words_cat(&c->w, &o->mount);
	if (o->cafile) {
		words_add(&c->w, "--ca-file", NULL);
		words_add(&c->w, "", o->cafile);
	}
	stage_end(c);
	return 0;
}

static void stage_secret(struct chain *c, const struct otorun_opts *o)
{
	if (!o->secrets.n)
		return;
	stage_begin(c, o, VIEW_BIN "/otosecret");
	words_add(&c->w, "--store-fd", NULL);
	words_add(&c->w, STR(FD_SECRET_STORE), NULL);
	words_add(&c->w, "--key-fd", NULL);
	words_add(&c->w, STR(FD_SECRET_KEY), NULL);
	words_cat(&c->w, &o->secrets);
	stage_end(c);
}

/* otoexec's options: the profile (a file's on its fd), the caller's, the CA
 * variables, the session, PATH. */
static void exec_words(struct words *ex, struct chain *c, const struct otorun_opts *o)
{
	const char *dflt = " --env PATH=";

	if (!strcmp(o->profile, "default") || !strcmp(o->profile, "dev")) {
		words_add(ex, "--profile", NULL);
		words_add(ex, o->profile, NULL);
	} else if (*o->profile) {
		/* Read on the host: inside the view a path names what the agent
		 * may have written (its workspace is the working directory there). */
		words_add(ex, "--profile-fd", NULL);
		words_add(ex, STR(FD_PROFILE), NULL);
		strbuf_str(&c->opens, " " STR(FD_PROFILE) "<");
		quote_add(&c->opens, o->profile);
	}
	words_cat(ex, &o->exec);
	/* otomount names the view's bundle in these when --ca-file (or the session CA) adds to it.
	 */
	if (o->cafile || o->transparent)
		for (const char *const *n = CA_VARS; *n; n++) {
			words_add(ex, "--env-keep", NULL);
			words_add(ex, *n, NULL);
		}
	if (o->newsession == 1)
		words_add(ex, "--new-session", NULL);
	/* The oto tools are at /opt/oto/bin in the view: on the agent's PATH,
	 * last, unless the caller set a PATH of its own (the same test on the
	 * same text as ever: otoexec's options as --print shows them). */
	if (!ex->text.p || (!strstr(ex->text.p, dflt) && !strstr(ex->text.p, " --env 'PATH="))) {
		words_add(ex, "--env", NULL);
		words_add(ex, "PATH=/usr/local/bin:/usr/bin:/bin:" VIEW_BIN, NULL);
	}
}

/* otoexec, the last stage, then the command. */
static void stage_exec(struct chain *c, const struct otorun_opts *o, const struct words *ex)
{
	stage_begin(c, o, VIEW_BIN "/otoexec");
	words_cat(&c->w, ex);
	words_add(&c->w, "--", NULL);
	for (char **a = o->cmd; *a; a++)
		words_add(&c->w, "", *a);
}

/* --print's first line: the fds, in the order they are opened. */
static void chain_opens(struct chain *c, const struct otorun_opts *o)
{
	if (c->dup_log) {
		struct strbuf s = { 0 };

		strbuf_add(&s, " ", 1);
		strbuf_str(&s, c->ns_log_fd);
		strbuf_str(&s, ">&");
		strbuf_str(&s, o->log_fd);
		if (c->opens.n)
			strbuf_add(&s, c->opens.p, c->opens.n);
		c->opens = s;
	}
	if (o->secrets.n || o->grants.n) {
		struct strbuf s = { 0 };

		/* otogate's store and key first, then otosecret's. */
		for (int i = 0; i < 2; i++) {
			if (!(i ? o->secrets.n : o->grants.n))
				continue;
			strbuf_str(&s,
				   i ? " " STR(FD_SECRET_STORE) "<" : " " STR(FD_GATE_STORE) "<");
			quote_add(&s, o->store);
			strbuf_str(&s, i ? " " STR(FD_SECRET_KEY) "<" : " " STR(FD_GATE_KEY) "<");
			quote_add(&s, o->key);
		}
		if (c->opens.n)
			strbuf_add(&s, c->opens.p, c->opens.n);
		c->opens = s;
	}
}

int chain_build(struct chain *c, struct otorun_opts *o, const struct chain_tools *t,
		const char *cgroup_dir)
{
	struct words as = { 0 }, ns = { 0 }, ex = { 0 };

	memset(c, 0, sizeof(*c));
	if (*o->as) {
		words_add(&as, "--as", NULL);
		words_add(&as, "", o->as);
	}
	chain_log(c, o);
	chain_mode(o);
	chain_ask(o);
	ns_words(&ns, c, o, cgroup_dir);
	stage_gate(c, o, t, &as);
	stage_net_ns(c, o, t, &as, &ns);
	if (stage_mount(c, o, t) < 0)
		return -1;
	stage_secret(c, o);
	exec_words(&ex, c, o);
	stage_exec(c, o, &ex);
	chain_opens(c, o);
	if (as.oom || ns.oom || ex.oom || c->w.oom || c->w.text.oom || c->opens.oom ||
	    as.text.oom || ns.text.oom || ex.text.oom)
		return -1;
	return 0;
}
