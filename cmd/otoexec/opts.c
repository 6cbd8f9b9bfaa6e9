/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>

#include "oto.h"
#include "otoexec.h"

static const char USAGE[] =
    "usage: otoexec [OPTION]... [--] PROG [ARG]...\n"
    "       otoexec --explain|--print-bpf [--profile P]  |  otoexec --print-profile default|dev\n"
    "Drop every privilege, apply a seccomp profile, and exec PROG in a clean\n"
    "environment. Order: the pty otons offers, close fds, rlimits, Landlock,\n"
    "uid/gid, capabilities, no_new_privs, seccomp, exec.\n"
    "\n"
    "  --profile P          seccomp profile: 'default', 'dev' (the default, plus\n"
    "                       ptrace and perf of the agent's own processes), or a\n"
    "                       profile file (refused after otomount: a path there\n"
    "                       names the agent's files)\n"
    "  --profile-fd N       read the profile from fd N (opened before the view)\n"
    "  --bpf-fd N           load the filter set on fd N (what --print-bpf writes)\n"
    "                       instead of a profile\n"
    "  --explain            print the compiled filter (libseccomp pfc) and exit\n"
    "  --print-bpf          print the filter set otoexec would load and exit\n"
    "  --print-profile default|dev  print a built-in profile's text and exit\n"
    "  --keep-cap CAP       keep capability CAP (e.g. net_bind_service); repeatable\n"
    "  --uid N, --gid N     switch to these (mapped) ids\n"
    "  --rlimit NAME=SOFT[:HARD]  set a resource limit (core defaults to 0, nproc\n"
    "                       to 4096 or the caller's if lower);\n"
    "                       NAME: as core cpu data fsize locks memlock msgqueue nice\n"
    "                       nofile nproc rss rtprio rttime sigpending stack;\n"
    "                       a value is a number or 'unlimited'\n"
    "  --landlock-ro PATH   Landlock: PATH readable and executable; repeatable\n"
    "  --landlock-rw PATH   Landlock: PATH fully accessible; repeatable\n"
    "  --landlock-strict    fail (111) when the kernel lacks Landlock\n"
    "  --env NAME=VALUE     set a variable for PROG; repeatable\n"
    "  --env-keep NAME      pass NAME from the environment; repeatable\n"
    "  --keep-fd N          leave fd N open for PROG; repeatable\n"
    "  --new-session        start a new session (setsid): no controlling terminal\n"
    "                       but the pty otons offers, if any\n"
    "  -v, --verbose        more messages on stderr\n"
    "  -h, --help           this text\n"
    "      --version        the version\n"
    "\n"
    "PROG gets PATH (a default unless set), HOME TERM LANG LC_* TZ USER LOGNAME\n"
    "OTO_WHY if present, and what --env and --env-keep name. LD_* and other variables the\n"
    "loader or a shell acts on are refused (100).\n"
    "OTO_PTY (set by otons when it has a terminal): PROG gets a pty made from this\n"
    "view's /dev/ptmx, as its controlling terminal in a new session and as the\n"
    "stdio fds that were otons' terminal; otons relays it.\n"
    "OTO_REFUSALS (set by otons --log-fd): the profile is compiled here, its EPERM\n"
    "refusals notify, and the filter's listener goes to otons on that socket.\n"
    "Exit: PROG's; 100 usage, 101 bad profile, 111 system error, 126 not\n"
    "executable, 127 not found.\n";

enum {
	OPT_PROFILE = 256,
	OPT_PROFILEFD,
	OPT_EXPLAIN,
	OPT_PRINTBPF,
	OPT_BPFFD,
	OPT_PRINT,
	OPT_KEEPCAP,
	OPT_UID,
	OPT_GID,
	OPT_RLIMIT,
	OPT_LLRO,
	OPT_LLRW,
	OPT_LLSTRICT,
	OPT_ENV,
	OPT_ENVKEEP,
	OPT_KEEPFD,
	OPT_SESSION,
};

static void xpush(const char **arr, size_t *n, const char *v, const char *opt)
{
	if (*n == MAX_KEEP)
		die_usage("%s: more than %d given", opt, MAX_KEEP);
	arr[(*n)++] = v;
}

void xotoexec_parse(struct otoexec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "profile-fd", required_argument, NULL, OPT_PROFILEFD },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
		{ "print-bpf", no_argument, NULL, OPT_PRINTBPF },
		{ "bpf-fd", required_argument, NULL, OPT_BPFFD },
		{ "print-profile", required_argument, NULL, OPT_PRINT },
		{ "keep-cap", required_argument, NULL, OPT_KEEPCAP },
		{ "uid", required_argument, NULL, OPT_UID },
		{ "gid", required_argument, NULL, OPT_GID },
		{ "rlimit", required_argument, NULL, OPT_RLIMIT },
		{ "landlock-ro", required_argument, NULL, OPT_LLRO },
		{ "landlock-rw", required_argument, NULL, OPT_LLRW },
		{ "landlock-strict", no_argument, NULL, OPT_LLSTRICT },
		{ "env", required_argument, NULL, OPT_ENV },
		{ "env-keep", required_argument, NULL, OPT_ENVKEEP },
		{ "keep-fd", required_argument, NULL, OPT_KEEPFD },
		{ "new-session", no_argument, NULL, OPT_SESSION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	unsigned long n;
	unsigned int id;
	const char *eq;
	char nm[256];
	int c, cap;

	memset(o, 0, sizeof(*o));
	o->profile = "default";
	o->profile_fd = -1;
	o->bpf_fd = -1;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_PROFILEFD:
			if (opt_ulong(optarg, 1U << 20, &n) < 0 || n < 3)
				die_usage("--profile-fd %s: expected an fd number above 2", optarg);
			o->profile_fd = (int)n;
			break;
		case OPT_EXPLAIN:
			o->explain = 1;
			break;
		case OPT_PRINTBPF:
			o->print_bpf = 1;
			break;
		case OPT_BPFFD:
			if (opt_ulong(optarg, 1U << 20, &n) < 0 || n < 3)
				die_usage("--bpf-fd %s: expected an fd number above 2", optarg);
			o->bpf_fd = (int)n;
			break;
		case OPT_PRINT:
			if (!profile_is_builtin(optarg))
				die_usage("--print-profile %s: 'default' and 'dev' are built in",
					  optarg);
			o->print_profile = optarg;
			break;
		case OPT_KEEPCAP:
			if ((cap = cap_parse(optarg)) < 0)
				die_usage("--keep-cap %s: unknown capability", optarg);
			if (o->nkeep_cap == MAX_KEEP)
				die_usage("--keep-cap: more than %d given", MAX_KEEP);
			o->keep_cap[o->nkeep_cap++] = cap;
			break;
		case OPT_UID:
		case OPT_GID:
			if (opt_id(optarg, &id) < 0)
				die_usage("%s %s: not a valid id", c == OPT_UID ? "--uid" : "--gid",
					  optarg);
			if (c == OPT_UID) {
				o->uid = id;
				o->have_uid = 1;
			} else {
				o->gid = id;
				o->have_gid = 1;
			}
			break;
		case OPT_RLIMIT:
			if (o->nrlim == ARRAY_SIZE(o->rlim))
				die_usage("--rlimit: too many given");
			if (rlimit_parse(optarg, &o->rlim[o->nrlim]) < 0)
				die_usage(
				    "--rlimit %s: expected NAME=SOFT[:HARD] with a known NAME "
				    "and SOFT <= HARD (see --help)",
				    optarg);
			o->nrlim++;
			break;
		case OPT_LLRO:
			xpush(o->ll_ro, &o->nll_ro, optarg, "--landlock-ro");
			break;
		case OPT_LLRW:
			xpush(o->ll_rw, &o->nll_rw, optarg, "--landlock-rw");
			break;
		case OPT_LLSTRICT:
			o->ll_strict = 1;
			break;
		case OPT_ENV:
			eq = strchr(optarg, '=');
			if (!eq || !env_name_valid(optarg, (size_t)(eq - optarg)))
				die_usage("--env %s: expected NAME=VALUE", optarg);
			if ((size_t)(eq - optarg) >= sizeof(nm))
				die_usage("--env: name too long");
			memcpy(nm, optarg, (size_t)(eq - optarg));
			nm[eq - optarg] = 0;
			if (env_name_refused(nm))
				die_usage("--env %.*s: refused, the loader or a shell acts on it",
					  (int)(eq - optarg), optarg);
			xpush(o->env_set, &o->nenv_set, optarg, "--env");
			break;
		case OPT_ENVKEEP:
			if (!env_name_valid(optarg, strlen(optarg)))
				die_usage("--env-keep %s: not a variable name", optarg);
			if (env_name_refused(optarg))
				die_usage(
				    "--env-keep %s: refused, the loader or a shell acts on it",
				    optarg);
			xpush(o->env_keep, &o->nenv_keep, optarg, "--env-keep");
			break;
		case OPT_KEEPFD:
			if (opt_ulong(optarg, 1U << 20, &n) < 0 || n < 3)
				die_usage("--keep-fd %s: expected an fd number above 2", optarg);
			if (o->nkeep_fd == MAX_KEEP)
				die_usage("--keep-fd: more than %d given", MAX_KEEP);
			o->keep_fd[o->nkeep_fd++] = (int)n;
			break;
		case OPT_SESSION:
			o->new_session = 1;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (o->profile_fd >= 0 && strcmp(o->profile, "default"))
		die_usage("--profile %s and --profile-fd %d: give one", o->profile, o->profile_fd);
	if (o->bpf_fd >= 0 && (o->profile_fd >= 0 || strcmp(o->profile, "default")))
		die_usage("--bpf-fd %d and a profile: give one (the set is compiled already)",
			  o->bpf_fd);
	if (o->bpf_fd >= 0 && o->explain)
		die_usage("--explain explains a profile, not a compiled set (--bpf-fd)");
	if (o->explain && o->print_bpf)
		die_usage("--explain and --print-bpf: give one");
	if (o->explain || o->print_bpf || o->print_profile) {
		if (optind < argc)
			die_usage("--explain, --print-bpf and --print-profile take no program");
		return;
	}
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	o->argv = argv + optind;
}
