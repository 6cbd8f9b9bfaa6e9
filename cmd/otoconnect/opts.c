/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "oto.h"
#include "otoconnect.h"

static const char USAGE[] =
    "usage: otoconnect SOCKET\n"
    "       otoconnect --serve SOCKET [--max N] [--mode MODE] [--] PROG [ARG]...\n"
    "Put a stdio program behind a Unix socket, and reach it from stdio.\n"
    "\n"
    "Client (the agent's side, e.g. an MCP server's command): connect to SOCKET;\n"
    "copy stdin to it and what it sends to stdout. At the end of stdin, shut\n"
    "the socket's write side down (the program then reads its end); exit 0 when\n"
    "the socket's data ends.\n"
    "\n"
    "  --serve SOCKET   the tool's side: listen on SOCKET (a new one; it must not\n"
    "                   exist) and run PROG for each connection, on pipes whose\n"
    "                   bytes go to and from the connection (no descriptor\n"
    "                   crosses; stderr stays ours)\n"
    "  --max N          at most N PROG processes at once (default 1: one\n"
    "                   connection at a time; the others wait to be accepted)\n"
    "  --mode MODE      the socket's permissions, octal (default 600): a client\n"
    "                   needs write permission to connect\n"
    "  -v, --verbose    one line per connection on stderr (--serve)\n"
    "  -h, --help       this text\n"
    "      --version    the version\n"
    "\n"
    "Exit: 0 the connection ended (client); 100 usage, 111 system error, and with\n"
    "--serve only a failure to listen or a signal ends it.\n";

enum {
	OPT_SERVE = 256,
	OPT_MAX,
	OPT_MODE,
};

void xotoconnect_parse(struct otoconnect_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "serve", required_argument, NULL, OPT_SERVE },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c, max_set = 0;

	memset(o, 0, sizeof(*o));
	o->max = CONNECT_MAX_DEFAULT;
	o->mode = CONNECT_MODE_DEFAULT;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVE:
			if (connect_path_ok(optarg) < 0)
				die_usage("--serve %s: expected a socket path of 1 to 107 bytes",
					  optarg);
			o->serve = 1;
			o->path = optarg;
			break;
		case OPT_MAX:
			if (opt_ulong(optarg, CONNECT_MAX_LIMIT, &o->max) < 0 || !o->max)
				die_usage("--max %s: expected a number from 1 to %d", optarg,
					  CONNECT_MAX_LIMIT);
			max_set = 1;
			break;
		case OPT_MODE:
			if (connect_parse_mode(optarg, &o->mode) < 0)
				die_usage("--mode %s: expected octal permissions, 0 to 777",
					  optarg);
			o->mode_set = 1;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (o->serve) {
		if (optind >= argc)
			die_usage("--serve %s: no program to run (see --help)", o->path);
		o->argv = argv + optind;
		return;
	}
	if (max_set || o->mode_set)
		die_usage("--max and --mode go with --serve");
	if (optind >= argc)
		die_usage("no socket to connect to (see --help)");
	if (optind + 1 < argc)
		die_usage("%s: one socket only; a program goes with --serve", argv[optind + 1]);
	if (connect_path_ok(argv[optind]) < 0)
		die_usage("%s: expected a socket path of 1 to 107 bytes", argv[optind]);
	o->path = argv[optind];
}
