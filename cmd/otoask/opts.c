/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <string.h>

#include "oto.h"
#include "otoask.h"

static const char USAGE[] =
    "usage: otoask --listen SOCKET [OPTION]...\n"
    "       otoask --fd N [OPTION]...\n"
    "Decide at a terminal what otonet --ask-fd asks about, for one session or\n"
    "many: each new destination the rules refuse is shown in one line, with\n"
    "who asks and a countdown; type y to allow it once, a to allow it for the\n"
    "session, n or Enter to deny it. No key before the countdown ends is a deny.\n"
    "Run it in a terminal of its own: a session on its terminal is refused.\n"
    "\n"
    "  --listen SOCKET    listen on SOCKET (a new one, mode 600; it must not exist)\n"
    "                     for sessions (otorun --ask SOCKET), 64 at once, until a\n"
    "                     signal ends otoask and removes SOCKET\n"
    "  --once             serve one session: SOCKET removed once it connects,\n"
    "                     otoask ends with it\n"
    "  --fd N             the one session's socket is fd N (otonet --ask-fd's\n"
    "                     other end)\n"
    "  --timeout SECONDS  the countdown (default 20; 1 to 3600): keep it under\n"
    "                     otonet's --ask-timeout (30)\n"
    "  --save FILE        append the otorun config line of each destination\n"
    "                     allowed, as otolog --policy writes it (--allow-name NAME,\n"
    "                     NAME:PORT, --allow tcp:ADDR:PORT; a name that is no host\n"
    "                     name: a comment alone), for otorun --config, to review\n"
    "                     first\n"
    "  -v, --verbose      more messages on stderr\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "Exit: 0 when the session ended (--once, --fd); 128+N on signal N; 100 usage,\n"
    "101 a session on otoask's own terminal, 111 system error.\n";

enum { OPT_LISTEN = 256, OPT_FD, OPT_TIMEOUT, OPT_SAVE, OPT_ONCE };

void xotoask_parse(struct otoask_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "fd", required_argument, NULL, OPT_FD },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	unsigned long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->timeout = ASK_TIMEOUT_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			if (!*optarg || strlen(optarg) > 107)
				die_usage("--listen %s: expected a socket path of 1 to 107 bytes",
					  optarg);
			o->listen = optarg;
			break;
		case OPT_FD:
			if (opt_ulong(optarg, 1 << 20, &n) < 0 || n < 3)
				die_usage("--fd %s: not a file descriptor from 3", optarg);
			o->fd = (int)n;
			break;
		case OPT_TIMEOUT:
			if (opt_ulong(optarg, 3600, &n) < 0 || !n)
				die_usage("--timeout %s: expected 1 to 3600 seconds", optarg);
			o->timeout = n;
			break;
		case OPT_SAVE:
			o->save = optarg;
			break;
		case OPT_ONCE:
			o->once = 1;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (optind < argc)
		die_usage("%s: no operand is taken (see --help)", argv[optind]);
	if (!o->listen == (o->fd < 0))
		die_usage("one of --listen SOCKET and --fd N (see --help)");
	/* --fd is one session's socket: its end is otoask's. */
	if (o->fd >= 0)
		o->once = 1;
}
