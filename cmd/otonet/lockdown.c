/* SPDX-License-Identifier: ISC */
/*
 * The relay holds host sockets on the agent's behalf, and every byte it
 * parses is the agent's: if a bug in it were ever exploited, the process
 * should be able to do little more than relay. Once it has read all it needs
 * from the host (its addresses, its resolver, the --allow names), it leaves
 * the host's files behind (a new user and mount namespace whose root is an
 * empty read-only tmpfs), holds no capability, sets no_new_privs, is not
 * dumpable, and finally runs under a seccomp allowlist of the calls its loop
 * makes; anything else kills the relay, and with it the sandbox's network
 * (fail closed). It stays in the host's network namespace: its host sockets
 * are what it is for.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

void xrelay_confine(void)
{
	xuserns_self("relay");
	xempty_root("relay", "oto-relay");
	xcaps_drop_all("relay");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "relay: unable to set no_new_privs");
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die(EXIT_SYS, errno, "relay: unable to make itself not dumpable");
}

void xrelay_lockdown(void)
{
	static const int ALLOWED[] = {
		SCMP_SYS(epoll_wait),	 SCMP_SYS(epoll_pwait),	  SCMP_SYS(epoll_ctl),
		SCMP_SYS(read),		 SCMP_SYS(write),	  SCMP_SYS(writev),
		SCMP_SYS(recvfrom),	 SCMP_SYS(sendto),	  SCMP_SYS(recvmsg),
		SCMP_SYS(sendmsg),	 SCMP_SYS(connect),	  SCMP_SYS(setsockopt),
		SCMP_SYS(getsockopt),	 SCMP_SYS(shutdown),	  SCMP_SYS(close),
		SCMP_SYS(clock_gettime), SCMP_SYS(wait4),	  SCMP_SYS(kill),
		SCMP_SYS(exit_group),	 SCMP_SYS(exit),	  SCMP_SYS(rt_sigreturn),
		SCMP_SYS(rt_sigprocmask), SCMP_SYS(getpid),	  SCMP_SYS(brk),
		SCMP_SYS(mmap),		 SCMP_SYS(munmap),	  SCMP_SYS(madvise),
		SCMP_SYS(mremap),	 SCMP_SYS(fcntl),	  SCMP_SYS(restart_syscall),
		SCMP_SYS(sched_yield),
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int rc = ctx ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < sizeof(ALLOWED) / sizeof(ALLOWED[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, ALLOWED[i], 0);
	/* New sockets: internet ones only, never netlink, unix or packet. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_INET));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	/* A gateway flow's socket pair (flow.c): unix sockets joined to each other only. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (ctx)
		seccomp_release(ctx);
	if (rc < 0)
		die(EXIT_SYS, -rc, "relay: unable to install its seccomp filter");
}

void relay_badcall(void)
{
	/* Not in the allowlist: the kernel kills the relay here. */
	syscall(SYS_getppid);
}
