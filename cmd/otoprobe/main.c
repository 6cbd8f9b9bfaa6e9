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
#include <errno.h>
#include <stdlib.h>

#include "oto.h"
#include "otoprobe.h"

int main(int argc, char **argv)
{
	struct otoprobe_opts o;
	struct report rep = { 0 };
	int gaps;

	log_init(argv[0]);
	xotoprobe_parse(&o, argc, argv);

	/* 1. fds first, before otoprobe opens any of its own. */
	if (check_fds(&rep) < 0)
		die(EXIT_SYS, errno, "unable to list /proc/self/fd");

	/* 2. Privileges: capabilities, no_new_privs, seccomp; namespaces, ids. */
	if (check_status(&rep) < 0)
		die(EXIT_SYS, errno, "unable to read /proc/self/status");
	check_namespaces(&rep, &o);
	check_uidmap(&rep);

	/* 3. The filesystem view, and what the environment carries. */
	check_mounts(&rep);
	check_paths(&rep);
	check_env(&rep);
	check_cgroup(&rep);

	/* 4. Calls that must be refused: each in a child, so nothing sticks. */
	xcheck_syscalls(&rep);

	/* 5. Private destinations, unless the caller is outside a sandbox. */
	if (!o.no_net)
		xcheck_net(&rep, &o);

	/* 6. The report; a gap found is exit 1. */
	gaps = report_print(&rep, o.json);
	if (gaps < 0)
		die(EXIT_SYS, errno, "unable to %s the report",
		    errno == ENOMEM ? "build" : "write");
	return gaps ? 1 : 0;
}
