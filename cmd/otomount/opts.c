/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otomount.h"

static const char USAGE[] =
    "usage: otomount [OPTION]... [--] PROG [ARG]...\n"
    "Build the agent's filesystem view in a mount namespace of its own (nothing\n"
    "propagates out), pivot_root into it and run PROG in /work ($HOME without a\n"
    "role). Run it under otons.\n"
    "\n"
    "  --agent-root DIR      the agent's tree: workspace/ knowledge/ config/ people/NAME/\n"
    "  --role ROLE           manager, member or viewer (needs --agent-root, --person)\n"
    "  --person NAME         whose people/NAME is /private\n"
    "  --ro SRC:DST          bind host SRC read-only on DST; repeatable\n"
    "  --rw SRC:DST          bind host SRC read-write on DST; repeatable\n"
    "  --socket SRC:DST      bind the host's Unix socket SRC on DST, alone (nothing\n"
    "                        else of its directory); connectable; repeatable\n"
    "  --tmpfs DST[:SIZE]    a fresh tmpfs on DST (SIZE: N, Nk, Nm, Ng, Nt); repeatable\n"
    "  --hide DST            an empty read-only directory over DST; repeatable\n"
    "  --ro-within PATH      make PATH of the view (inside a rw mount) read-only;\n"
    "                        repeatable, e.g. /work/.git/hooks\n"
    "  --writable PATH       leave PATH of the view, and all beneath it, out of the\n"
    "                        files made read-only by default (the git directories of\n"
    "                        every repository, start-up files such as .bashrc at each\n"
    "                        writable tree's top: otomount(1)); repeatable\n"
    "  --protect PATH        make PATH of the view read-only too; repeatable\n"
    "  --cow DIR             /work copy-on-write: an overlay whose changes go to the\n"
    "                        session directory DIR (outside the view; made 0700 when\n"
    "                        missing), the host's workspace untouched; review and\n"
    "                        apply them with otodiff(1)\n"
    "  --cow-private         /private copy-on-write too (needs --cow)\n"
    "  --cow-all             every writable tree copy-on-write: /work, /private, and\n"
    "                        a manager's /knowledge and /config (needs --cow)\n"
    "  --tmp-size SIZE       size cap of /tmp, /dev/shm, $HOME and --tmpfs (default 256m)\n"
    "  --tmp-inodes N        inode cap of /tmp, /dev/shm, $HOME and every --tmpfs\n"
    "                        (default one per 4 KiB of each one's size cap)\n"
    "  --home DIR            $HOME in the view (default /home/agent)\n"
    "  --user-name NAME      the agent's name in /etc/passwd (default agent)\n"
    "  --home-skel DIR       copy DIR's files (settings: .gitconfig, .config/...)\n"
    "                        into the fresh $HOME at start (10000 entries, 64 MiB\n"
    "                        at most; DIR may be fd=N, a launcher's tree)\n"
    "  --ca-file FILE        trust FILE's CAs too: the view's bundle is the host's\n"
    "                        and FILE's certificates (SSL_CERT_FILE and the like\n"
    "                        name it); a private key in FILE refuses it; FILE may\n"
    "                        be fd=N\n"
    "  -v, --verbose         one line on stderr per entry of the view as it is made\n"
    "  -h, --help            this text\n"
    "      --version         the version\n"
    "\n"
    "Exit: 100 usage, 101 a --home-skel past its bounds or a --ca-file without a\n"
    "certificate or with a private key, 111 system error (also:\n"
    "not allowed to change the mount namespace, or a source is a symlink), 126 not\n"
    "executable, 127 not found.\n";

enum {
	OPT_AGENT_ROOT = 256,
	OPT_ROLE,
	OPT_PERSON,
	OPT_RO,
	OPT_RW,
	OPT_TMPFS,
	OPT_SOCKET,
	OPT_HIDE,
	OPT_RO_WITHIN,
	OPT_TMP_SIZE,
	OPT_TMP_INODES,
	OPT_HOME,
	OPT_USER_NAME,
	OPT_WRITABLE,
	OPT_PROTECT,
	OPT_HOME_SKEL,
	OPT_CA_FILE,
	OPT_COW,
	OPT_COW_PRIVATE,
	OPT_COW_ALL,
};

/* A view path into list (--writable, --protect). */
static void xadd_path(const char ***list, size_t *n, const char *name, const char *arg)
{
	const char **l = realloc(*list, (*n + 1) * sizeof(**list));

	if (!l)
		die(EXIT_SYS, errno, "unable to keep %s %s: out of memory", name, arg);
	if (view_path_ok(arg) < 0)
		die_usage(
		    "%s %s: expected an absolute path of the view, without . or .. (see --help)",
		    name, arg);
	*list = l;
	l[(*n)++] = arg;
}

static void xadd_op(struct otomount_opts *o, enum op_kind kind, const char *name, const char *arg)
{
	struct view_op *op;
	struct view_op *ops = realloc(o->ops, (o->nops + 1) * sizeof(*ops));

	if (!ops)
		die(EXIT_SYS, errno, "unable to keep %s %s: out of memory", name, arg);
	o->ops = ops;
	op = &ops[o->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	switch (kind) {
	case OP_RO:
	case OP_RW:
		if (view_parse_bind(arg, &op->src, &op->dst) < 0)
			die_usage(
			    "%s %s: expected SRC:DST, both absolute, without . or .. (see --help)",
			    name, arg);
		break;
	case OP_SOCKET:
		if (view_parse_socket(arg, &op->src, &op->dst) < 0)
			die_usage(
			    "%s %s: expected SRC:DST, both absolute, without . or .., DST under "
			    "108 bytes (see --help)",
			    name, arg);
		break;
	case OP_TMPFS:
		if (view_parse_tmpfs(arg, &op->dst, &op->size) < 0)
			die_usage("%s %s: expected DST[:SIZE], DST absolute (see --help)", name,
				  arg);
		break;
	case OP_HIDE:
	case OP_RO_WITHIN:
	default:
		if (view_path_ok(arg) < 0)
			die_usage("%s %s: expected an absolute path without . or .. (see --help)",
				  name, arg);
		op->dst = (char *)arg;
		break;
	}
}

void xotomount_parse(struct otomount_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "agent-root", required_argument, NULL, OPT_AGENT_ROOT },
		{ "role", required_argument, NULL, OPT_ROLE },
		{ "person", required_argument, NULL, OPT_PERSON },
		{ "ro", required_argument, NULL, OPT_RO },
		{ "rw", required_argument, NULL, OPT_RW },
		{ "tmpfs", required_argument, NULL, OPT_TMPFS },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "hide", required_argument, NULL, OPT_HIDE },
		{ "ro-within", required_argument, NULL, OPT_RO_WITHIN },
		{ "tmp-size", required_argument, NULL, OPT_TMP_SIZE },
		{ "tmp-inodes", required_argument, NULL, OPT_TMP_INODES },
		{ "home", required_argument, NULL, OPT_HOME },
		{ "user-name", required_argument, NULL, OPT_USER_NAME },
		{ "writable", required_argument, NULL, OPT_WRITABLE },
		{ "protect", required_argument, NULL, OPT_PROTECT },
		{ "home-skel", required_argument, NULL, OPT_HOME_SKEL },
		{ "ca-file", required_argument, NULL, OPT_CA_FILE },
		{ "cow", required_argument, NULL, OPT_COW },
		{ "cow-private", no_argument, NULL, OPT_COW_PRIVATE },
		{ "cow-all", no_argument, NULL, OPT_COW_ALL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	unsigned long long bytes;
	int c;

	memset(o, 0, sizeof(*o));
	o->user_name = "agent";
	o->home = "/home/agent";
	o->tmp_size = 256UL << 20;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_AGENT_ROOT:
			if (optarg[0] != '/')
				die_usage("--agent-root %s: must be an absolute path", optarg);
			o->agent_root = optarg;
			break;
		case OPT_ROLE:
			o->role = view_role(optarg);
			if (o->role == ROLE_NONE)
				die_usage("--role %s: unknown role (manager, member, viewer)",
					  optarg);
			break;
		case OPT_PERSON:
			if (view_name_ok(optarg) < 0)
				die_usage("--person %s: a name is 1 to 64 of [A-Za-z0-9._-]",
					  optarg);
			o->person = optarg;
			break;
		case OPT_RO:
			xadd_op(o, OP_RO, "--ro", optarg);
			break;
		case OPT_RW:
			xadd_op(o, OP_RW, "--rw", optarg);
			break;
		case OPT_TMPFS:
			xadd_op(o, OP_TMPFS, "--tmpfs", optarg);
			break;
		case OPT_SOCKET:
			xadd_op(o, OP_SOCKET, "--socket", optarg);
			break;
		case OPT_HIDE:
			xadd_op(o, OP_HIDE, "--hide", optarg);
			break;
		case OPT_RO_WITHIN:
			xadd_op(o, OP_RO_WITHIN, "--ro-within", optarg);
			break;
		case OPT_TMP_SIZE:
			if (opt_bytes(optarg, ULONG_MAX, &bytes) < 0)
				die_usage("--tmp-size %s: not a size in bytes (like 256m, 2G)",
					  optarg);
			o->tmp_size = (unsigned long)bytes;
			break;
		case OPT_TMP_INODES:
			if (opt_ulong(optarg, TMPFS_INODES_MAX, &o->tmp_inodes) < 0 ||
			    !o->tmp_inodes)
				die_usage("--tmp-inodes %s: expected a number from 1 to %lu",
					  optarg, TMPFS_INODES_MAX);
			break;
		case OPT_HOME:
			if (view_path_ok(optarg) < 0)
				die_usage("--home %s: expected an absolute path without . or ..",
					  optarg);
			o->home = optarg;
			break;
		case OPT_USER_NAME:
			if (view_name_ok(optarg) < 0 || optarg[0] == '-' || !strcmp(optarg, "root"))
				die_usage("--user-name %s: a name is 1 to 64 of [A-Za-z0-9._-]",
					  optarg);
			o->user_name = optarg;
			break;
		case OPT_WRITABLE:
			xadd_path(&o->writable, &o->nwritable, "--writable", optarg);
			break;
		case OPT_PROTECT:
			xadd_path(&o->protect, &o->nprotect, "--protect", optarg);
			break;
		case OPT_HOME_SKEL:
			if (view_path_ok(optarg) < 0 && view_src_fd(optarg) < 0)
				die_usage(
				    "--home-skel %s: expected an absolute path without . or .., "
				    "or fd=N",
				    optarg);
			o->home_skel = optarg;
			break;
		case OPT_CA_FILE:
			if (view_path_ok(optarg) < 0 && view_src_fd(optarg) < 0)
				die_usage(
				    "--ca-file %s: expected an absolute path without . or .., "
				    "or fd=N",
				    optarg);
			o->ca_file = optarg;
			break;
		case OPT_COW:
			if (view_path_ok(optarg) < 0 || !cow_host_path_ok(optarg))
				die_usage(
				    "--cow %s: expected an absolute path without . or .. or a "
				    "control byte",
				    optarg);
			o->cow_dir = optarg;
			break;
		case OPT_COW_PRIVATE:
			o->cow_private = 1;
			break;
		case OPT_COW_ALL:
			o->cow_all = 1;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	if (o->role != ROLE_NONE && !o->agent_root)
		die_usage("--role needs --agent-root");
	if (o->agent_root && o->role == ROLE_NONE)
		die_usage("--agent-root needs --role");
	if (o->person && o->role == ROLE_NONE)
		die_usage("--person needs --role");
	if (o->role != ROLE_NONE && !o->person)
		die_usage("--role needs --person (whose people/NAME is /private)");
	if ((o->cow_private || o->cow_all) && !o->cow_dir)
		die_usage("%s needs --cow DIR", o->cow_all ? "--cow-all" : "--cow-private");
	if (o->cow_dir && o->role == ROLE_NONE)
		die_usage("--cow needs --role: the trees it copies on write are the role's");
	/*
	 * A viewer's /work is read-only: nothing to copy on write. Its
	 * /private is the person's own space, which no review stands between.
	 */
	if (o->cow_dir && o->role == ROLE_VIEWER)
		die_usage("--cow: a viewer's /work is read-only, nothing to copy on write");
	o->argv = argv + optind;
}
