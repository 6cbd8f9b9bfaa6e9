/* SPDX-License-Identifier: ISC */
#include <getopt.h>

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
