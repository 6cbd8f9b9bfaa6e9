/* SPDX-License-Identifier: ISC */
/*
 * otons: run a program in new user, mount, pid, ipc, uts, cgroup and net
 * namespaces, and wait for it.
 *
 * Consumes: argv up to "--"; OTO_STATUS_FD (reported to, passed on).
 * Passes on: the rest of argv, exec'd as the first process under a pid 1 that
 * reaps; every inherited fd; capabilities in the new user namespace as ambient
 * capabilities, so the later stages of the chain keep what they need; when
 * otons has a terminal, OTO_PTY and a socket, on which otoexec sends back the
 * master of the pty it makes for the agent, which the supervisor then relays
 * to the operator's terminal (pty.c).
 * When the sandbox ends, the operator's terminal is set back as it was (tty.c).
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
	struct otons_cgroup cg;
	struct otons_audit au;
	struct session session;

	log_init(argv[0]);
	xotons_parse(&o, argc, argv);
	/* --log-fd before otons opens anything: N must be the caller's. */
	if (o.log_fd >= 0 && fd_cloexec(o.log_fd, 1) < 0)
		die(EXIT_SYS, errno, "--log-fd %d: not an open fd", o.log_fd);

	/*
	 * 0. The session's cgroup (--cgroup), while root is still root: the
	 *    default directory is made and given to the --as account, and the
	 *    leaf's cgroup.procs opened with the credentials that may move pid 1
	 *    into it (cgroup.c).
	 */
	xotons_cgroup_make(&o, &cg);

	/*
	 * 0b. With --log-fd, as root: the kernel audit's read-log group, and an
	 *     audit session of the sandbox's own, for Landlock's refusals
	 *     (audit.c). Nothing of the host's audit changes.
	 */
	xotons_audit_open(&o, &au);

	/*
	 * 1. Root never runs a sandbox: become the --as account first, so that
	 *    the user namespace maps an unprivileged id and not outer uid 0.
	 */
	xuser_drop_root(o.as);

	/*
	 * 1b. The session's id, and its record opened here when no stage
	 *     before opened it on the same file (otonet's relay).
	 */
	xsession_begin(&session, o.log_fd);
	au.session = session.id;
	session_open(&session, o.log_fd, "otons", (const char *const *)argv);

	/*
	 * 2. Two nested user namespaces: the outer one caps the number of user
	 *    namespaces beneath it at the one we create next, so nothing inside
	 *    can make another one, whatever capabilities or seccomp it has.
	 */
	xotons_enter_userns(&o);

	/* 3. The other namespaces, owned by the inner user namespace. */
	xotons_unshare_rest(&o, &cg);

	/* 4. Keep our capabilities across the execs of the later stages. */
	xotons_caps_ambient();

	/*
	 * 5. Supervisor, pid 1, program: pid 1 starts the program by vfork.
	 *    Returns only in the program's process when there is no pid
	 *    namespace (--share pid), which the exec below is for.
	 *    pid 1 moves into the cgroup first; the supervisor stays outside,
	 *    and at the end kills what is left in it and removes it.
	 */
	xotons_run(&o, &cg, &au, &session);
	xexec(o.argv);
}
