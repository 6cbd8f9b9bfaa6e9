/* SPDX-License-Identifier: ISC */
/*
 * otoprobe: report what a program could do where it runs, one row per check
 * (ok, GAP, info), as a table or as JSON.
 *
 * Consumes: argv (no program to run: otoprobe is the end of a chain); HOME
 * (its own credential directories); reads /proc/self.
 * Passes on: nothing. It never contacts a public address, and only tries the
 * fixed private and special-purpose destinations in net.c.
 * Exits: 0 every check contained, 1 a gap was found, 100 usage, 111 the probe
 * itself could not run.
 */
#include <stdlib.h>

#include "oto.h"
#include "otoprobe.h"

int main(int argc, char **argv)
{
	struct otoprobe_opts o;

	log_init(argv[0]);
	otoprobe_parse(&o, argc, argv);

	/* 1. fds first, before otoprobe opens any of its own. */
	check_fds();

	/* 2. Privileges: capabilities, no_new_privs, seccomp; namespaces, ids. */
	check_status();
	check_namespaces(&o);
	check_uidmap();

	/* 3. The filesystem view, and what the environment carries. */
	check_mounts();
	check_paths();
	check_env();

	/* 4. Calls that must be refused: each in a child, so nothing sticks. */
	check_syscalls();

	/* 5. Private destinations, unless the caller is outside a sandbox. */
	if (!o.no_net)
		check_net(&o);

	return report_print(o.json) ? 1 : 0;
}
