/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <string.h>

#include "otodiff.h"

static const char USAGE[] =
    "usage: otodiff [--summary] [--max-size SIZE] DIR\n"
    "       otodiff --commit [--allow-protected] [--max-size SIZE] DIR\n"
    "       otodiff --discard DIR\n"
    "Review a copy-on-write session (otomount --cow DIR, otorun --cow DIR): list\n"
    "what it changed in each tree against the host's, with a diff of each\n"
    "modified text file; apply the changes to the host; or drop them.\n"
    "\n"
    "  -s, --summary         the list alone, no diffs\n"
    "  --commit              apply the changes to the host's trees, each file\n"
    "                        atomically; refused whole, naming each path, when\n"
    "                        the host changed one since the session started;\n"
    "                        never a setuid or setgid bit, a device node, or a\n"
    "                        symlink followed\n"
    "  --allow-protected     --commit also files the host runs later (git hooks\n"
    "                        and config, .bashrc, .envrc...: otomount(1))\n"
    "  --max-size SIZE       a file larger (its apparent size: 64m, 2G, 10T) is\n"
    "                        not committed, the commit refused; default 64m\n"
    "  --discard             remove the session directory DIR and all in it\n"
    "  -v, --verbose         more messages on stderr\n"
    "  -h, --help            this text\n"
    "      --version         the version\n"
    "\n"
    "List lines: added, modified, deleted, renamed OLD -> NEW, mode PATH OLD -> NEW,\n"
    "skipped PATH (WHY: never committed); a directory ends in /, a file's line\n"
    "gives its size, a symlink's its target. An added text file is shown as a\n"
    "diff against nothing. Bytes not printable ASCII are escaped (\\ooo), the\n"
    "line marked: \"(name escaped)\", or \"!\" before a diff line's sign.\n"
    "Exit: 0 done, 100 usage, 101 a conflict or a session directory that does\n"
    "not parse, 111 system error.\n";

enum {
	OPT_COMMIT = 256,
	OPT_DISCARD,
	OPT_ALLOW_PROTECTED,
	OPT_MAX_SIZE,
};

void xotodiff_parse(struct otodiff_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "commit", no_argument, NULL, OPT_COMMIT },
		{ "discard", no_argument, NULL, OPT_DISCARD },
		{ "allow-protected", no_argument, NULL, OPT_ALLOW_PROTECTED },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c, modes = 0, max_given = 0;

	memset(o, 0, sizeof(*o));
	o->max_size = MAX_SIZE_DEFAULT;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:hvs", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->summary = 1;
			break;
		case OPT_COMMIT:
			o->mode = MODE_COMMIT;
			modes++;
			break;
		case OPT_DISCARD:
			o->mode = MODE_DISCARD;
			modes++;
			break;
		case OPT_ALLOW_PROTECTED:
			o->allow_protected = 1;
			break;
		case OPT_MAX_SIZE:
			/* An off_t holds it: a file's size is compared with it. */
			if (opt_bytes(optarg, (1ULL << 62), &o->max_size) < 0)
				die_usage("--max-size %s: not a size in bytes (like 64m, 2G, 10T)",
					  optarg);
			max_given = 1;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (modes > 1)
		die_usage("--commit and --discard: one at a time");
	if (o->allow_protected && o->mode != MODE_COMMIT)
		die_usage("--allow-protected needs --commit");
	if (max_given && o->mode == MODE_DISCARD)
		die_usage("--max-size: not with --discard");
	if (optind + 1 != argc)
		die_usage("expected one session directory (see --help)");
	o->dir = argv[optind];
	if (o->dir[0] != '/')
		die_usage("%s: expected the session directory's absolute path", o->dir);
}
