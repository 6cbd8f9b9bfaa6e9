/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otogate.h"

static const char USAGE[] =
    "usage: otogate --store-fd N|--store FILE --key-fd N|--key-file FILE\n"
    "               --grant NAME=https://HOST[:PORT][,header=H][,allow=M:P][,ask=M:P]...\n"
    "                       [,transparent]\n"
    "               [--login ENTRY=PROFILE]... [--ca-file FILE]\n"
    "               [--log-fd N] [--ask-fd N [--ask-timeout S]]\n"
    "               [--as USER[:GROUP]] [--] PROG [ARG]...\n"
    "Keep credentials outside the sandbox: PROG gets a phantom for each granted entry,\n"
    "and the gateway, staying outside, puts the real value into the requests it\n"
    "forwards over verified TLS to that entry's upstream alone.\n"
    "\n"
    "  --store-fd N, --store FILE   the sealed store; a regular file must be 0600 or less\n"
    "  --key-fd N, --key-file FILE  the key; a regular file must be mode 0600 or less\n"
    "  --grant NAME=https://HOST[:PORT][,header=H][,allow=M:P][,ask=M:P]...[,transparent]\n"
    "                     entry NAME for that upstream alone (at most 16\n"
    "                     grants). The value goes in header H only (up to 8\n"
    "                     header=; default Authorization, inside Basic too, and\n"
    "                     x-api-key). With allow=METHOD:PREFIX (up to 32; METHOD\n"
    "                     exact or *, PREFIX a path matched up to a segment's end,\n"
    "                     without the query), only the requests one of them\n"
    "                     matches are served, any other is a 403; a path an\n"
    "                     upstream could read as another (a . or .. segment, //,\n"
    "                     %2F %2E %5C %25, ;, \\) is a 400. PROG gets\n"
    "                     NAME=oto-phantom-..., as long as the value, and\n"
    "                     NAME_URL=http://10.0.2.4:PORT (8001 for the first).\n"
    "                     Upstreams are asked for identity encoding and no ranges;\n"
    "                     the value in a response, raw or in its common encodings,\n"
    "                     becomes the phantom (otogate(1)). With transparent, PROG\n"
    "                     reaches https://HOST by its name (in NAME_URL): otonet\n"
    "                     hands the gateway the TLS flows to HOST, which it serves\n"
    "                     with a session CA's certificate (OTO_GATE_CA: otomount\n"
    "                     adds the CA to the view's trust). With ask=METHOD:PREFIX\n"
    "                     (up to 32, matched as allow=) or ask=writes (every\n"
    "                     method but GET, HEAD, OPTIONS), a request it matches is\n"
    "                     held, nothing sent, and the decider asked (--ask-fd)\n"
    "  --login ENTRY=PROFILE\n"
    "                     a CLI's login file sealed whole in ENTRY (otosecret\n"
    "                     import): PROFILE is claude, codex, gemini, or a profile\n"
    "                     file's path (one holding a /). The view gets the file\n"
    "                     with fresh phantoms in place of its secrets (OTO_LOGIN:\n"
    "                     otomount writes it in the home); each of the profile's\n"
    "                     hosts gets a transparent grant of the access token in\n"
    "                     Authorization (counted in the 16). At most 4\n"
    "  --ca-file FILE     the CAs to verify upstreams with (default: the host's bundle;\n"
    "                     a private key in FILE refuses it)\n"
    "  --log-fd N         one JSON line per request on fd N (never a header value)\n"
    "  --ask-fd N         the decider's socket (otonet(1), ASKING): ask= requests are\n"
    "                     asked there; PROG gets on fd N a socket whose questions\n"
    "                     (otonet --ask-fd N) the gateway relays to the decider\n"
    "  --ask-timeout S    no answer in S seconds is a deny (default 30; 1 to 3600)\n"
    "  --as USER[:GROUP]  when run by root: the account the gateway becomes (PROG\n"
    "                     keeps root, for otonet)\n"
    "  -v, --verbose      more messages on stderr (names, never values)\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "PROG must be otonet (directly or through stages that pass the environment and\n"
    "fds on): it reads OTO_GATEWAY and hands the agent's flows to the gateway.\n"
    "\n"
    "Exit: PROG's own, or 128+N for a signal; 100 usage, 101 store, key, name or\n"
    "--ca-file rejected, 111 system error, 126 not executable, 127 not found.\n";

enum {
	OPT_STORE_FD = 256,
	OPT_STORE,
	OPT_KEY_FD,
	OPT_KEY_FILE,
	OPT_GRANT,
	OPT_LOGIN,
	OPT_CA,
	OPT_LOG,
	OPT_ASK_FD,
	OPT_ASK_TIMEOUT,
	OPT_AS
};

void xotogate_parse(struct otogate_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store-fd", required_argument, NULL, OPT_STORE_FD },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "key-fd", required_argument, NULL, OPT_KEY_FD },
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "grant", required_argument, NULL, OPT_GRANT },
		{ "login", required_argument, NULL, OPT_LOGIN },
		{ "ca-file", required_argument, NULL, OPT_CA },
		{ "log-fd", required_argument, NULL, OPT_LOG },
		{ "ask-fd", required_argument, NULL, OPT_ASK_FD },
		{ "ask-timeout", required_argument, NULL, OPT_ASK_TIMEOUT },
		{ "as", required_argument, NULL, OPT_AS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	const char *why = NULL;
	unsigned long v;
	int c, fd, asks = 0;

	memset(o, 0, sizeof(*o));
	o->store_fd = o->key_fd = o->log_fd = o->ask_fd = -1;
	o->ask_timeout_ms = GATE_ASK_TIMEOUT * 1000UL;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE_FD:
		case OPT_KEY_FD:
		case OPT_LOG:
			fd = gate_fd_parse(optarg);
			if (fd < 0)
				die_usage("%s %s: not a file descriptor", argv[optind - 1], optarg);
			*(c == OPT_STORE_FD ? &o->store_fd
			  : c == OPT_KEY_FD ? &o->key_fd
					    : &o->log_fd) = fd;
			break;
		case OPT_ASK_FD:
			o->ask_fd = gate_fd_parse(optarg);
			if (o->ask_fd < 3)
				die_usage("--ask-fd %s: not a file descriptor of 3 or more",
					  optarg);
			break;
		case OPT_ASK_TIMEOUT:
			if (opt_ulong(optarg, 3600, &v) < 0 || !v)
				die_usage("--ask-timeout %s: not a number of seconds (1 to 3600)",
					  optarg);
			o->ask_timeout_ms = v * 1000;
			break;
		case OPT_STORE:
			o->store_path = optarg;
			break;
		case OPT_KEY_FILE:
			o->key_path = optarg;
			break;
		case OPT_CA:
			o->ca_file = optarg;
			break;
		case OPT_AS:
			o->as = optarg;
			break;
		case OPT_LOGIN:
			xlogin_add(o, optarg);
			break;
		case OPT_GRANT: {
			char *spec = strdup(optarg);

			if (!spec)
				die(EXIT_SYS, 0, "unable to copy --grant %s: out of memory",
				    optarg);
			if (o->ngrants == GATE_MAX_GRANTS)
				die_usage("too many --grant (at most %d)", GATE_MAX_GRANTS);
			if (grant_parse(spec, &o->grants[o->ngrants], &why) < 0)
				die_usage("--grant %s: %s", optarg, why);
			for (size_t i = 0; i < o->ngrants; i++) {
				const struct grant *a = &o->grants[i], *b = &o->grants[o->ngrants];

				if (!strcmp(a->name, b->name))
					die_usage("--grant %s: %s is granted twice", optarg,
						  a->name);
				if (a->transparent && b->transparent && !strcmp(a->host, b->host) &&
				    a->port == b->port)
					die_usage("--grant %s: %s is transparent for %s already",
						  optarg, a->name, a->hosthdr);
			}
			asks |= o->grants[o->ngrants].nask || o->grants[o->ngrants].ask_writes;
			o->grants[o->ngrants].gw_port = (uint16_t)(GATE_FIRST_PORT + o->ngrants);
			o->ngrants++;
			break;
		}
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (o->store_fd >= 0 && o->store_path)
		die_usage("--store-fd and --store are exclusive");
	if (o->key_fd >= 0 && o->key_path)
		die_usage("--key-fd and --key-file are exclusive");
	if (o->store_fd < 0 && !o->store_path)
		die_usage("no store: --store-fd N or --store FILE (see --help)");
	if (o->key_fd < 0 && !o->key_path)
		die_usage("no key: --key-fd N or --key-file FILE (see --help)");
	if (o->store_fd >= 0 && o->store_fd == o->key_fd)
		die_usage("--store-fd and --key-fd name the same fd");
	if (o->log_fd >= 0 && (o->log_fd == o->store_fd || o->log_fd == o->key_fd))
		die_usage("--log-fd %d is also the store's or the key's", o->log_fd);
	if (o->ask_fd >= 0 &&
	    (o->ask_fd == o->store_fd || o->ask_fd == o->key_fd || o->ask_fd == o->log_fd))
		die_usage("--ask-fd %d is also the store's, the key's or the log's", o->ask_fd);
	if (asks && o->ask_fd < 0)
		die_usage("a grant's ask= needs a decider to ask: --ask-fd N (see --help)");
	xlogin_grants(o);
	if (!o->ngrants)
		die_usage("nothing to grant: --grant NAME=https://HOST[:PORT][,header=H]... (see "
			  "--help)");
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	o->argv = argv + optind;
}
