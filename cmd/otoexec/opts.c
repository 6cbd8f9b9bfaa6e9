/* SPDX-License-Identifier: ISC */
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
    "       otoexec --explain [--profile P]  |  otoexec --print-profile default\n"
    "Drop every privilege, apply a seccomp profile, and exec PROG in a clean\n"
    "environment. Order: the pty otons offers, close fds, rlimits, Landlock,\n"
    "uid/gid, capabilities, no_new_privs, seccomp, exec.\n"
    "\n"
    "  --profile P          seccomp profile: 'default' or a profile file (refused\n"
    "                       after otomount: a path there names the agent's files)\n"
    "  --profile-fd N       read the profile from fd N (opened before the view)\n"
    "  --explain            print the compiled filter (libseccomp pfc) and exit\n"
    "  --print-profile default  print the built-in profile's text and exit\n"
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
    "if present, and what --env and --env-keep name. LD_* and other variables the\n"
    "loader or a shell acts on are refused (100).\n"
    "OTO_PTY (set by otons when it has a terminal): PROG gets a pty made from this\n"
    "view's /dev/ptmx, as its controlling terminal in a new session and as the\n"
    "stdio fds that were otons' terminal; otons relays it.\n"
    "Exit: PROG's; 100 usage, 101 bad profile, 111 system error, 126 not\n"
    "executable, 127 not found.\n";

static const struct {
	const char *name;
	int res;
} RLIMITS[] = {
	{ "as", RLIMIT_AS },
	{ "core", RLIMIT_CORE },
	{ "cpu", RLIMIT_CPU },
	{ "data", RLIMIT_DATA },
	{ "fsize", RLIMIT_FSIZE },
	{ "locks", RLIMIT_LOCKS },
	{ "memlock", RLIMIT_MEMLOCK },
	{ "msgqueue", RLIMIT_MSGQUEUE },
	{ "nice", RLIMIT_NICE },
	{ "nofile", RLIMIT_NOFILE },
	{ "nproc", RLIMIT_NPROC },
	{ "rss", RLIMIT_RSS },
	{ "rtprio", RLIMIT_RTPRIO },
	{ "rttime", RLIMIT_RTTIME },
	{ "sigpending", RLIMIT_SIGPENDING },
	{ "stack", RLIMIT_STACK },
};

static int rlim_value(const char *s, uint64_t *v)
{
	unsigned long n;

	if (!strcmp(s, "unlimited") || !strcmp(s, "infinity")) {
		*v = RLIM_INFINITY;
		return 0;
	}
	if (opt_ulong(s, ~0UL - 1, &n) < 0)
		return -1;
	*v = n;
	return 0;
}

int rlimit_parse(const char *s, struct rlim_opt *r)
{
	char name[16], val[48], *colon;
	const char *eq = strchr(s, '=');
	size_t i;

	if (!eq || (size_t)(eq - s) >= sizeof(name) || strlen(eq + 1) >= sizeof(val))
		return -1;
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = 0;
	strcpy(val, eq + 1);
	for (i = 0; i < sizeof(RLIMITS) / sizeof(RLIMITS[0]); i++)
		if (!strcmp(name, RLIMITS[i].name))
			break;
	if (i == sizeof(RLIMITS) / sizeof(RLIMITS[0]))
		return -1;
	r->resource = RLIMITS[i].res;
	colon = strchr(val, ':');
	if (colon)
		*colon = 0;
	if (rlim_value(val, &r->soft) < 0)
		return -1;
	if (!colon)
		r->hard = r->soft;
	else if (rlim_value(colon + 1, &r->hard) < 0)
		return -1;
	/* RLIM_INFINITY is the largest value, so this also orders 'unlimited'. */
	return r->soft > r->hard ? -1 : 0;
}

int cap_parse(const char *s)
{
	char buf[64] = "cap_";
	size_t off = 0, n = strlen(s);
	cap_value_t v;

	if (n == 0 || n > 40)
		return -1;
	if (!strncasecmp(s, "cap_", 4))
		off = 4;
	for (size_t i = off; i <= n; i++) {
		if (s[i] && !isalnum((unsigned char)s[i]) && s[i] != '_')
			return -1;
		buf[4 + i - off] = (char)tolower((unsigned char)s[i]);
	}
	/* libcap also takes numbers and "all"; only names are capabilities here. */
	if (!strcmp(buf, "cap_all") || cap_from_name(buf, &v) < 0 || v < 0)
		return -1;
	return (int)v;
}

/*
 * Variables the dynamic loader, libc or a shell acts on at startup: what
 * glibc drops for setuid programs (its unsecvars) plus the shells' startup
 * files. Naming one is refused with 100 rather than dropped with a warning,
 * so a launcher finds its mistake at once instead of a silently different
 * agent.
 */
int env_name_refused(const char *name)
{
	static const char *const REFUSED[] = {
		"BASH_ENV",	    "ENV",	   "GCONV_PATH",     "GETCONF_DIR",  "HOSTALIASES",
		"LOCALDOMAIN",	    "LOCPATH",	   "MALLOC_TRACE",   "NIS_PATH",     "NLSPATH",
		"RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",	     "MUSL_LOCPATH", "SHELLOPTS",
		"BASHOPTS",	    "PS4",	   "GLIBC_TUNABLES",
	};

	if (!strncmp(name, "LD_", 3) || !strncmp(name, "MALLOC_", 7) ||
	    !strncmp(name, "BASH_FUNC_", 10))
		return 1;
	for (size_t i = 0; i < sizeof(REFUSED) / sizeof(REFUSED[0]); i++)
		if (!strcmp(name, REFUSED[i]))
			return 1;
	return 0;
}

static int env_name_valid(const char *s, size_t n)
{
	if (n == 0 || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

enum {
	OPT_PROFILE = 256,
	OPT_PROFILEFD,
	OPT_EXPLAIN,
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

static void push(const char **arr, size_t *n, const char *v, const char *opt)
{
	if (*n == MAX_KEEP)
		die_usage("%s: more than %d given", opt, MAX_KEEP);
	arr[(*n)++] = v;
}

void otoexec_parse(struct otoexec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "profile-fd", required_argument, NULL, OPT_PROFILEFD },
		{ "explain", no_argument, NULL, OPT_EXPLAIN },
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
		case OPT_PRINT:
			if (strcmp(optarg, "default"))
				die_usage("--print-profile %s: only 'default' is built in", optarg);
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
			if (o->nrlim == sizeof(o->rlim) / sizeof(o->rlim[0]))
				die_usage("--rlimit: too many given");
			if (rlimit_parse(optarg, &o->rlim[o->nrlim]) < 0)
				die_usage(
				    "--rlimit %s: expected NAME=SOFT[:HARD] with a known NAME "
				    "and SOFT <= HARD (see --help)",
				    optarg);
			o->nrlim++;
			break;
		case OPT_LLRO:
			push(o->ll_ro, &o->nll_ro, optarg, "--landlock-ro");
			break;
		case OPT_LLRW:
			push(o->ll_rw, &o->nll_rw, optarg, "--landlock-rw");
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
			push(o->env_set, &o->nenv_set, optarg, "--env");
			break;
		case OPT_ENVKEEP:
			if (!env_name_valid(optarg, strlen(optarg)))
				die_usage("--env-keep %s: not a variable name", optarg);
			if (env_name_refused(optarg))
				die_usage(
				    "--env-keep %s: refused, the loader or a shell acts on it",
				    optarg);
			push(o->env_keep, &o->nenv_keep, optarg, "--env-keep");
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
			opt_common(c, USAGE, argv);
			break;
		}
	}
	if (o->profile_fd >= 0 && strcmp(o->profile, "default"))
		die_usage("--profile %s and --profile-fd %d: give one", o->profile, o->profile_fd);
	if (o->explain || o->print_profile) {
		if (optind < argc)
			die_usage("--explain and --print-profile take no program");
		return;
	}
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	o->argv = argv + optind;
}
