/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoprobe.h"

static const char USAGE[] =
    "usage: otoprobe [OPTION]...\n"
    "Report what a program could do here: capabilities, no_new_privs, seccomp,\n"
    "namespaces, uid map, mounts and host paths, open fds, credential-like\n"
    "variables (names only), refused system calls, and private destinations.\n"
    "\n"
    "  --json             one JSON object instead of the table\n"
    "  --host-ns NS:ID    the launcher's namespace NS has inode ID: ours must\n"
    "                     differ (NS: user mnt pid ipc uts cgroup net); repeatable\n"
    "  --no-net           skip the network probes (use it outside a sandbox: they\n"
    "                     would reach this machine's private networks)\n"
    "  --net-timeout MS   how long a connect may wait for a refusal (default 300)\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "Exit: 0 everything contained, 1 a gap was found, 100 usage, 111 the probe\n"
    "itself could not run.\n";

enum { OPT_JSON = 256, OPT_HOSTNS, OPT_NONET, OPT_TIMEOUT };

void xotoprobe_parse(struct otoprobe_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "host-ns", required_argument, NULL, OPT_HOSTNS },
		{ "no-net", no_argument, NULL, OPT_NONET },
		{ "net-timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	unsigned long id;
	int c, ns;

	memset(o, 0, sizeof(*o));
	o->net_timeout_ms = 300;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_HOSTNS:
			if (hostns_parse(optarg, &ns, &id) < 0)
				die_usage("--host-ns %s: expected NS:ID, NS one of user mnt pid "
					  "ipc uts cgroup net",
					  optarg);
			o->host_ns[ns] = id;
			o->have_host_ns[ns] = 1;
			break;
		case OPT_NONET:
			o->no_net = 1;
			break;
		case OPT_TIMEOUT:
			if (opt_ulong(optarg, 60000, &o->net_timeout_ms) < 0 || !o->net_timeout_ms)
				die_usage("--net-timeout %s: expected 1 to 60000 milliseconds",
					  optarg);
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (optind < argc)
		die_usage("unexpected argument %s (see --help)", argv[optind]);
}
