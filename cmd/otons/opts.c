/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

static const char USAGE[] =
    "usage: otons [OPTION]... [--] PROG [ARG]...\n"
    "Run PROG in new user, mount, pid, ipc, uts, cgroup and net namespaces.\n"
    "\n"
    "  --share NS         keep the caller's namespace NS (user, mnt, pid, ipc, uts,\n"
    "                     cgroup, net); repeatable\n"
    "  --hostname NAME    host name in the new uts namespace (default: agent)\n"
    "  --uid N, --gid N   ids inside (default: the caller's)\n"
    "  --as USER[:GROUP]  when run by root: the unprivileged account to become first\n"
    "  --die-with-parent  end the session when otons' parent dies, as SIGTERM does\n"
    "  --grace SECONDS    after SIGTERM or SIGHUP to otons, the loss of its\n"
    "                     terminal or (--die-with-parent) of its parent, the time\n"
    "                     PROG has to end before its whole pid namespace is\n"
    "                     killed (0 to 3600; default 10)\n"
    "  --no-proc          do not mount a new /proc for the new pid namespace\n"
    "  --pty              a pty for PROG even when otons has no terminal (stdin\n"
    "                     and stdout relayed to it). By default, PROG gets one\n"
    "                     whenever stdin, stdout, stderr or the controlling\n"
    "                     terminal is a terminal: made by otoexec in the\n"
    "                     sandbox (OTO_PTY), relayed by otons\n"
    "  --no-pty           no pty: PROG shares otons' terminal, if any\n"
    "  --cgroup[=DIR]     a cgroup v2 of its own for the session, made in DIR (a\n"
    "                     directory delegated to the caller; as root, by default\n"
    "                     CGROUP2_MOUNT/oto/UID for the --as account): pid 1 and\n"
    "                     everything under it run there, in a cgroup namespace\n"
    "                     rooted there; swap off and, on OOM, the whole session\n"
    "                     killed (when the memory controller is there); at the\n"
    "                     end what is left is killed and the cgroup removed\n"
    "  --memory-max BYTES memory.max of the session (K, M, G, T suffixes)\n"
    "  --pids-max N       pids.max: processes and threads of the session\n"
    "  --cpu-max CPUS     cpu.max as a number of CPUs (1.5: 150 ms per 100 ms)\n"
    "                     Each limit implies --cgroup and needs its controller.\n"
    "  --log-fd N         the system calls the sandbox's seccomp filter refuses\n"
    "                     with EPERM, one JSON line each on fd N, written by the\n"
    "                     supervisor (the filter is otoexec's: it sends otons its\n"
    "                     listener); answered EPERM as without; per call, the\n"
    "                     first 10, then the 100th, 1000th... Run as root (or\n"
    "                     behind otonet --log-fd), also the refusals of\n"
    "                     otoexec's Landlock rules, read from the kernel's audit\n"
    "                     when it is on\n"
    "  --log-budget SIZE  bytes of otons' lines on --log-fd (K, M, G; default 64M):\n"
    "                     past it, one line says so and the rest is counted\n"
    "  -v, --verbose      more messages on stderr\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "Exit: the program's code, 128+N if it died of signal N; 100 usage, 111 system\n"
    "error, 126 not executable, 127 not found.\n";

enum {
	OPT_SHARE = 256,
	OPT_HOSTNAME,
	OPT_UID,
	OPT_GID,
	OPT_AS,
	OPT_DWP,
	OPT_NOPROC,
	OPT_PTY,
	OPT_NOPTY,
	OPT_CGROUP,
	OPT_MEMMAX,
	OPT_PIDSMAX,
	OPT_CPUMAX,
	OPT_LOGFD,
	OPT_GRACE,
	OPT_LOGBUDGET
};

void xotons_parse(struct otons_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "share", required_argument, NULL, OPT_SHARE },
		{ "hostname", required_argument, NULL, OPT_HOSTNAME },
		{ "uid", required_argument, NULL, OPT_UID },
		{ "gid", required_argument, NULL, OPT_GID },
		{ "as", required_argument, NULL, OPT_AS },
		{ "die-with-parent", no_argument, NULL, OPT_DWP },
		{ "no-proc", no_argument, NULL, OPT_NOPROC },
		{ "pty", no_argument, NULL, OPT_PTY },
		{ "no-pty", no_argument, NULL, OPT_NOPTY },
		{ "cgroup", optional_argument, NULL, OPT_CGROUP },
		{ "memory-max", required_argument, NULL, OPT_MEMMAX },
		{ "pids-max", required_argument, NULL, OPT_PIDSMAX },
		{ "cpu-max", required_argument, NULL, OPT_CPUMAX },
		{ "log-fd", required_argument, NULL, OPT_LOGFD },
		{ "grace", required_argument, NULL, OPT_GRACE },
		{ "log-budget", required_argument, NULL, OPT_LOGBUDGET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c, flag;
	unsigned int id;
	unsigned long val;

	memset(o, 0, sizeof(*o));
	o->unshare_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			   CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWNET;
	o->hostname = "agent";
	o->mount_proc = 1;
	o->pty = OTONS_PTY_AUTO;
	o->log_fd = -1;
	o->grace = OTONS_GRACE;
	o->log_budget = RECORD_BUDGET;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SHARE:
			flag = otons_ns_flag(optarg);
			if (!flag)
				die_usage("--share %s: unknown namespace (user mnt pid ipc uts "
					  "cgroup net)",
					  optarg);
			o->unshare_flags &= ~flag;
			break;
		case OPT_HOSTNAME:
			/* getopt_long sets optarg: the option requires one. */
			/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
			if (!*optarg || strlen(optarg) > 64)
				die_usage("--hostname %s: must be 1 to 64 characters", optarg);
			o->hostname = optarg;
			break;
		case OPT_UID:
			if (opt_id(optarg, &id) < 0)
				die_usage("--uid %s: not a valid id", optarg);
			o->uid = id;
			o->have_uid = 1;
			break;
		case OPT_GID:
			if (opt_id(optarg, &id) < 0)
				die_usage("--gid %s: not a valid id", optarg);
			o->gid = id;
			o->have_gid = 1;
			break;
		case OPT_AS:
			o->as = optarg;
			break;
		case OPT_DWP:
			o->die_with_parent = 1;
			break;
		case OPT_NOPROC:
			o->mount_proc = 0;
			break;
		case OPT_PTY:
		case OPT_NOPTY:
			o->pty = c == OPT_PTY ? OTONS_PTY_ON : OTONS_PTY_OFF;
			break;
		case OPT_CGROUP:
			if (optarg && optarg[0] != '/')
				die_usage("--cgroup=%s: the directory must be an absolute path",
					  optarg);
			if (optarg && strlen(optarg) >= 400)
				die_usage("--cgroup=%s: path too long", optarg);
			o->cgroup = 1;
			o->cgroup_dir = optarg;
			break;
		case OPT_MEMMAX:
			if (opt_bytes(optarg, ULLONG_MAX, &o->memory_max) < 0)
				die_usage("--memory-max %s: not a size in bytes (like 512M, 2G)",
					  optarg);
			o->cgroup = 1;
			break;
		case OPT_PIDSMAX:
			if (opt_ulong(optarg, 4194304, &o->pids_max) < 0 || !o->pids_max)
				die_usage("--pids-max %s: not a number from 1 to 4194304", optarg);
			o->cgroup = 1;
			break;
		case OPT_CPUMAX:
			if (otons_cpus_parse(optarg, &o->cpu_quota) < 0)
				die_usage("--cpu-max %s: not a number of CPUs from 0.01 to 4096",
					  optarg);
			o->cgroup = 1;
			break;
		case OPT_LOGFD:
			/* 0 to 2 are the program's own; fd 2 is what one usually means. */
			if (opt_ulong(optarg, 65535, &val) < 0)
				die_usage("--log-fd %s: not a file descriptor from 3 up", optarg);
			if (val < 3)
				die_usage("--log-fd %s: not a file descriptor from 3 up (to log on "
					  "%s: 3>&%lu and --log-fd 3)",
					  optarg,
					  val == 2 ? "stderr"
					  : val	   ? "stdout"
						   : "stdin",
					  val);
			o->log_fd = (int)val;
			break;
		case OPT_GRACE:
			if (opt_ulong(optarg, 3600, &o->grace) < 0)
				die_usage("--grace %s: not a number of seconds from 0 to 3600",
					  optarg);
			break;
		case OPT_LOGBUDGET:
			if (record_budget_parse(optarg, &o->log_budget) < 0)
				die_usage("--log-budget %s: expected 4K to 1T bytes", optarg);
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	/* otonet's child sets it: otons' parent is then otonet's relay. */
	if (getenv("OTO_DIE_WITH_PARENT")) {
		o->die_with_parent = 1;
		unsetenv("OTO_DIE_WITH_PARENT");
	}
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	if ((o->have_uid || o->have_gid) && !(o->unshare_flags & CLONE_NEWUSER))
		die_usage("--uid and --gid need a new user namespace (not --share user)");
	o->argv = argv + optind;
}
