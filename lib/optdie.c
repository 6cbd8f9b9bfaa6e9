/* SPDX-License-Identifier: ISC */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "oto.h"

/*
 * For getopt_long called with opterr = 0 and an optstring starting "+:":
 * ':' is a missing argument, '?' an unknown option. argv[optind - 1] is the
 * word that failed (the long name, or a cluster of short ones).
 */
void opt_die(int c, char *const argv[])
{
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		die_usage("option %s needs an argument (see --help)", word);
	if (optopt > 0 && optopt < 256)
		die_usage("unknown option -%c (see --help)", optopt);
	die_usage("unknown option %s (see --help)", word);
}

void xopt_common(int c, const char *usage, char *const argv[])
{
	switch (c) {
	case 'v':
		log_verbosity = LOG_DEBUG;
		return;
	case 'h':
		fputs(usage, stdout);
		exit(0);
	case OPT_VERSION:
		version_print();
		exit(0);
	default:
		opt_die(c, argv);
	}
}
