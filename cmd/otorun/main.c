/* SPDX-License-Identifier: ISC */
/*
 * otorun: compose the oto chain for an agent, and exec it in place.
 *
 *   [otogate … --] otonet … -- otons --share net … -- otomount … -- otosecret … -- otoexec … -- CMD
 *
 * Consumes: argv (and a --config file); stdin's being a terminal (the
 * default of --new-session). Files the chain reads (the store, the key, a
 * seccomp profile) are opened here, on the host, before any view exists,
 * and reach their stage as fds (8 and 9 for otosecret, 5 and 6 for otogate,
 * 7): never a path the agent could have written, never in argv.
 * Passes on: the environment and every inherited fd, unchanged, to the
 * first stage, exec'd in place (no shell, no fork); --print shows the same
 * chain, one stage per line, which pasted into sh runs the same words.
 * Exits: the chain's code (otorun execs it), or 0 for --print, --help and
 * --version; 100 usage, 101 a profile that cannot be opened or a store or
 * key others may access, 111 a system error (a config file, the store or
 * key, --log-fd, the cgroup), 126/127 the first stage cannot be run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"
#include "otorun.h"

/* The tool beside otorun when it is there (and executable), else its name, from PATH. */
static const char *tool(const char *here, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", here, name) < 0)
		return NULL;
	return access(p, X_OK) == 0 ? p : name;
}

int main(int argc, char **argv)
{
	struct otorun_opts o;
	struct chain_tools t;
	struct chain c;
	const char *err, *cgroup_dir;

	log_prog = "otorun";
	/* 1. The options: the config file's first, then the command line's. */
	xotorun_parse(&o, argc, argv);
	if ((err = opts_check(&o, (int)geteuid())))
		xotorun_die(EXIT_USAGE, "%s", err);
	/* 2. Without a terminal on stdin, the agent gets a session of its own:
	 * no job-control signals to or from the launcher's session. */
	if (o.newsession < 0)
		o.newsession = !isatty(0);
	/* 3. The directory of the tools: the chain's stages, /opt/oto/bin in the view. */
	t.here = here_dir(argv[0]);
	if (!t.here)
		xotorun_die(EXIT_SYS, "unable to find the directory of otorun: %m");
	t.otogate = o.grants.n ? tool(t.here, "otogate") : "otogate";
	t.otonet = o.nonet ? "otonet" : tool(t.here, "otonet");
	t.otons = tool(t.here, "otons");
	t.otomount = tool(t.here, "otomount");
	/* What a newcomer meets first (the account, the tree), each with its fix. */
	if (!o.print)
		xlaunch_check(&o);
	/* 4. Run by root with a plain --cgroup behind otonet: the --as account's
	 * subtree, delegated, with otorun (so the chain) in a leaf of its own. */
	cgroup_dir = o.cgroup_dir;
	if (o.cgroup && !cgroup_dir && geteuid() == 0 && !o.nonet)
		cgroup_dir = o.print ? "CGROUP2/oto/UID" : xcgroup_prepare(o.as);
	/* 5. The chain, as words and as text. */
	if (!t.otogate || !t.otonet || !t.otons || !t.otomount ||
	    chain_build(&c, &o, &t, cgroup_dir) < 0)
		xotorun_die(EXIT_SYS, "unable to compose the chain: out of memory");
	if (o.print) {
		if (c.opens.n)
			printf("exec%s\n", c.opens.p);
		printf("%s\n", c.w.text.p + 1);
		if (fflush(stdout))
			xotorun_die(EXIT_SYS, "unable to print the chain: %m");
		return 0;
	}
	/* 6. The files, on their fds; then the first stage, in place. Run by
	 * root, the view's host sources too: the --as account may not reach
	 * them (a toolchain under /root, mode 0700). */
	if (geteuid() == 0 && *o.as) {
		char *tools;

		if (asprintf(&tools, "%s:%s", t.here, VIEW_BIN) < 0)
			xotorun_die(EXIT_SYS, "unable to compose the chain: out of memory");
		xlaunch_sources(c.w.v, t.otomount, tools);
	}
	xlaunch_fds(&o, &c);
	xlaunch_exec(c.w.v);
}
