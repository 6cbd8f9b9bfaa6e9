/* SPDX-License-Identifier: ISC */
/*
 * otons: run a program in new user, mount, pid, ipc, uts, cgroup and net
 * namespaces, and wait for it.
 *
 * Consumes: argv up to "--"; OTO_STATUS_FD (reported to, passed on).
 * Passes on: the rest of argv, exec'd as the first process under a pid 1 that
 * reaps; every inherited fd; capabilities in the new user namespace as ambient
 * capabilities, so the later stages of the chain keep what they need.
 * When the sandbox ends, the terminal it shared is set back as it was (tty.c).
 * Exits: 100 usage, 111 a system call failed, 126/127 exec, else the
 * program's own code or 128+N when it died of signal N.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

int main(int argc, char **argv)
{
	struct otons_opts o;

	log_init(argv[0]);
	xotons_parse(&o, argc, argv);

	/*
	 * 1. Root never runs a sandbox: become the --as account first, so that
	 *    the user namespace maps an unprivileged id and not outer uid 0.
	 */
	xuser_drop_root(o.as);

	/*
	 * 2. Two nested user namespaces: the outer one caps the number of user
	 *    namespaces beneath it at the one we create next, so nothing inside
	 *    can make another one, whatever capabilities or seccomp it has.
	 */
	xotons_enter_userns(&o);

	/* 3. The other namespaces, owned by the inner user namespace. */
	xotons_unshare_rest(&o);

	/* 4. Keep our capabilities across the execs of the later stages. */
	xotons_caps_ambient();

	/* 5. Supervisor, pid 1, program. Returns only in the program's process. */
	xotons_run(&o);
	xexec(o.argv);
}
