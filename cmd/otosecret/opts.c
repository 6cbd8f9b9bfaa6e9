/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "login.h"
#include "oto.h"
#include "otosecret.h"

static const char USAGE[] =
    "usage: otosecret --store-fd N|--store FILE --key-fd N|--key-file FILE\n"
    "                 --use NAME[:HOW]... [--] PROG [ARG]...\n"
    "       otosecret keygen [--out FILE]\n"
    "       otosecret seal --key-fd N|--key-file FILE [--store FILE]\n"
    "       otosecret list --store-fd N|--store FILE\n"
    "       otosecret phantom --store-fd N|--store FILE NAME\n"
    "       otosecret import [--profile P|--profile-file F] [--name NAME]\n"
    "                 --key-fd N|--key-file FILE --store FILE LOGINFILE\n"
    "Decrypt the named credentials from a sealed store, hand them to PROG, exec it.\n"
    "\n"
    "  --store-fd N, --store FILE   the sealed store; a regular file must be 0600 or less\n"
    "  --key-fd N, --key-file FILE  the key; a regular file must be mode 0600 or less\n"
    "  --use NAME[:HOW]   give entry NAME to PROG; repeatable. HOW is one of\n"
    "                     env          the variable NAME (the default)\n"
    "                     env=VAR      the variable VAR\n"
    "                     file=PATH    a new file, mode 0400, on a tmpfs only\n"
    "                     fd=N         a sealed read-only memfd at fd N (N >= 3)\n"
    "  --out FILE         keygen: write the key to a new file (mode 0600)\n"
    "  --profile P        import: claude, codex, gemini, or auto (the default)\n"
    "  --profile-file F   import: a profile of your own (otosecret(1), PROFILES)\n"
    "  --name NAME        import: the entry (default CLAUDE_LOGIN... or LOGIN)\n"
    "  -v, --verbose      more messages on stderr (names, never values)\n"
    "  -h, --help         this text\n"
    "      --version      the version\n"
    "\n"
    "seal reads lines NAME=VALUE, NAME:base64=DATA, or NAME then the value on the\n"
    "next line (no echo on a terminal); it writes the store to FILE (adding to or\n"
    "replacing in it) or, without --store, a new store to stdout.\n"
    "phantom prints the phantom otogate gives the agent for entry NAME, the same\n"
    "at every session of this store (no key needed).\n"
    "import checks a CLI's login file against its profile, seals it whole into\n"
    "the store, and prints the fields it found (names, never values) and when\n"
    "the access token expires.\n"
    "\n"
    "Exit: PROG's own (exec); 100 usage, 101 store, key or name rejected, 111 system\n"
    "error, 126 not executable, 127 not found.\n";

enum {
	OPT_STORE_FD = 256,
	OPT_STORE,
	OPT_KEY_FD,
	OPT_KEY_FILE,
	OPT_USE,
	OPT_OUT,
	OPT_PROFILE,
	OPT_PROFILE_FILE,
	OPT_NAME,
};

/* Two uses must not aim at the same variable, fd or file. */
static void xcheck_targets(const struct otosecret_opts *o)
{
	int status_fd = status_fd_parse(getenv("OTO_STATUS_FD"));

	for (size_t i = 0; i < o->nuses; i++) {
		const struct use *a = &o->uses[i];

		if (a->how == HOW_FD && a->fd == status_fd)
			die_usage("--use %s: fd %d is OTO_STATUS_FD", a->name, a->fd);
		for (size_t j = 0; j < i; j++) {
			const struct use *b = &o->uses[j];

			if (a->how != b->how)
				continue;
			if (a->how == HOW_FD ? a->fd == b->fd : !strcmp(a->target, b->target))
				die_usage("--use %s and --use %s name the same target", b->name,
					  a->name);
		}
	}
}

void xotosecret_parse(struct otosecret_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store-fd", required_argument, NULL, OPT_STORE_FD },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "key-fd", required_argument, NULL, OPT_KEY_FD },
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "use", required_argument, NULL, OPT_USE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "profile-file", required_argument, NULL, OPT_PROFILE_FILE },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	static const char *const MODES[] = { [MODE_KEYGEN] = "keygen",
					     [MODE_SEAL] = "seal",
					     [MODE_LIST] = "list",
					     [MODE_PHANTOM] = "phantom",
					     [MODE_IMPORT] = "import" };
	_Static_assert(ARRAY_SIZE(MODES) == MODE_NUM, "a word for each mode");
	const char *why = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->store_fd = o->key_fd = -1;
	o->mode = MODE_CHAIN;
	for (int m = MODE_KEYGEN; m < MODE_NUM; m++)
		if (argc > 1 && !strcmp(argv[1], MODES[m])) {
			o->mode = (enum mode)m;
			argv++;
			argc--;
		}
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hv", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE_FD:
		case OPT_KEY_FD:
			if (secret_fd_parse(optarg) < 0)
				die_usage("%s %s: not a file descriptor", argv[optind - 1], optarg);
			*(c == OPT_STORE_FD ? &o->store_fd : &o->key_fd) = secret_fd_parse(optarg);
			break;
		case OPT_STORE:
			o->store_path = optarg;
			break;
		case OPT_KEY_FILE:
			o->key_path = optarg;
			break;
		case OPT_USE:
			if (o->nuses == STORE_MAX_ENTRIES)
				die_usage("too many --use (at most %d)", STORE_MAX_ENTRIES);
			if (use_parse(optarg, &o->uses[o->nuses], &why) < 0)
				die_usage("--use %s: %s", optarg, why);
			o->nuses++;
			break;
		case OPT_OUT:
			o->out = optarg;
			break;
		case OPT_PROFILE:
			if (strcmp(optarg, "auto") && !login_profile_text(optarg))
				die_usage("--profile %s: expected claude, codex, gemini or auto",
					  optarg);
			o->profile = optarg;
			break;
		case OPT_PROFILE_FILE:
			o->profile_file = optarg;
			break;
		case OPT_NAME:
			if (!store_name_ok(optarg, strlen(optarg)))
				die_usage("--name %s: expected [A-Za-z_][A-Za-z0-9_]*, at most 64",
					  optarg);
			o->name = optarg;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (o->store_fd >= 0 && o->store_path)
		die_usage("--store-fd and --store are exclusive");
	if (o->key_fd >= 0 && o->key_path)
		die_usage("--key-fd and --key-file are exclusive");
	if (o->store_fd >= 0 && o->store_fd == o->key_fd)
		die_usage("--store-fd and --key-fd name the same fd");
	if (o->mode != MODE_IMPORT && (o->profile || o->profile_file || o->name))
		die_usage("--profile, --profile-file and --name are for import only");
	if (o->mode == MODE_PHANTOM && optind < argc)
		o->name = argv[optind++];
	if (o->mode == MODE_IMPORT && optind < argc)
		o->login = argv[optind++];
	if (o->mode != MODE_CHAIN && optind < argc)
		die_usage("%s: unexpected argument %s", MODES[o->mode], argv[optind]);
	if (o->mode != MODE_CHAIN && o->nuses)
		die_usage("--use is for the chain mode only");
	if (o->mode != MODE_KEYGEN && o->out)
		die_usage("--out is for keygen only");
	switch (o->mode) {
	case MODE_KEYGEN:
		if (o->store_fd >= 0 || o->store_path || o->key_fd >= 0 || o->key_path)
			die_usage("keygen takes no store and no key");
		return;
	case MODE_SEAL:
		if (o->key_fd < 0 && !o->key_path)
			die_usage("seal needs --key-fd or --key-file");
		if (o->store_fd >= 0)
			die_usage("seal writes a store: --store FILE, or stdout without it");
		return;
	case MODE_IMPORT:
		if (o->key_fd < 0 && !o->key_path)
			die_usage("import needs --key-fd or --key-file");
		if (!o->store_path)
			die_usage("import writes a store: --store FILE");
		if (o->profile && o->profile_file)
			die_usage("--profile and --profile-file are exclusive");
		if (!o->login)
			die_usage("import needs the login file (see --help)");
		return;
	case MODE_LIST:
	case MODE_PHANTOM:
		if (o->store_fd < 0 && !o->store_path)
			die_usage("%s needs --store-fd or --store", MODES[o->mode]);
		if (o->key_fd >= 0 || o->key_path)
			die_usage("%s needs no key", MODES[o->mode]);
		if (o->mode == MODE_PHANTOM && !o->name)
			die_usage("phantom needs the entry's NAME (see --help)");
		return;
	case MODE_CHAIN:
		break;
	default:
		die_usage("unknown mode");
	}
	if (o->store_fd < 0 && !o->store_path)
		die_usage("no store: --store-fd N or --store FILE (see --help)");
	if (o->key_fd < 0 && !o->key_path)
		die_usage("no key: --key-fd N or --key-file FILE (see --help)");
	if (!o->nuses)
		die_usage("nothing to inject: --use NAME[:HOW] (see --help)");
	if (optind >= argc)
		die_usage("no program to run (see --help)");
	xcheck_targets(o);
	o->argv = argv + optind;
}
