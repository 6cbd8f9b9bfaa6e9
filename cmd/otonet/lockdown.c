/* SPDX-License-Identifier: ISC */
/*
 * The relay holds host sockets on the agent's behalf, and every byte it
 * parses is the agent's: if a bug in it were ever exploited, the process
 * should be able to do little more than relay. A seccomp allowlist of the
 * calls the loop makes, installed once everything is set up; anything else
 * kills the relay, and with it the sandbox's network (fail closed).
 */
#include <errno.h>
#include <seccomp.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"

void relay_lockdown(void)
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
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (ctx)
		seccomp_release(ctx);
	if (rc < 0)
		die(EXIT_SYS, -rc, "unable to install the relay's seccomp filter");
}
