/* SPDX-License-Identifier: ISC */
/* The option loop: exits 0 for --help and --version, 100 for bad usage. */
#include <getopt.h>
#include <string.h>

#include "oto.h"
#include "otolog.h"

static const char USAGE[] =
    "usage: otolog [--follow] [--json | --policy] [FILE]...\n"
    "Summarize a --log-fd record (the files, or stdin): per session, what was\n"
    "refused, grouped and counted (destinations and names, system calls and\n"
    "the programs that made them, Landlock's paths, the gateway's requests),\n"
    "and what was asked and decided.\n"
    "\n"
    "  --follow     also a line for each refusal as it is read (a pipe:\n"
    "               tail -f FILE | otolog --follow); the summary at the end\n"
    "  --json       the summary as JSON, one object per session, one a line\n"
    "  --policy     the otorun config lines that would have allowed what was\n"
    "               refused or asked, each after a comment saying what it\n"
    "               allows and how often it was wanted: for review, never\n"
    "               applied by otolog\n"
    "  -h, --help   this text\n"
    "      --version  the version\n"
    "\n"
    "A line longer than 65536 bytes, a malformed one, or a last one without\n"
    "its newline is counted, not read, and said in a warning at the end.\n"
    "Exit: 0 every line read; 101 some were not (the summary is of the rest);\n"
    "100 usage, 111 a file cannot be read.\n";

enum {
	OPT_FOLLOW = 256,
	OPT_JSON,
	OPT_POLICY,
};

void xotolog_parse(struct otolog_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "policy", no_argument, NULL, OPT_POLICY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	int c, modes = 0;

	memset(o, 0, sizeof(*o));
	o->mode = MODE_TEXT;
	opterr = 0;
	/* '+': stop at the first non-option; musl would permute argv otherwise. */
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FOLLOW:
			o->follow = 1;
			break;
		case OPT_JSON:
			o->mode = MODE_JSON;
			modes++;
			break;
		case OPT_POLICY:
			o->mode = MODE_POLICY;
			modes++;
			break;
		default:
			xopt_common(c, USAGE, argv);
			break;
		}
	}
	if (modes > 1)
		die_usage("--json and --policy: one of them at most");
	if (o->follow && o->mode != MODE_TEXT)
		die_usage("--follow writes for a person: not with --json or --policy");
	o->files = argv + optind;
}
