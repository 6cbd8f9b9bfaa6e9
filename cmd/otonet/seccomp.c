/* SPDX-License-Identifier: ISC */
/*
 * The relay's seccomp filter (lockdown.c), as a libseccomp context. Pure:
 * the build compiles it once into the BPF that otonet loads (gen/bpfgen.c,
 * $(O)/gen/otonet_bpf.c), so that the relay does not run libseccomp at
 * every launch (CPU time the agent's own start would share the machine
 * with); the sanitizer build compiles it at run time instead (its runtime
 * needs one call more).
 */
#include <errno.h>
#include <linux/if_tun.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "oto.h"
#include "otonet.h"

void *relay_filter(void)
{
	static const int ALLOWED[] = {
		SCMP_SYS(epoll_wait),	  SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_ctl),
		SCMP_SYS(read),		  SCMP_SYS(write),	 SCMP_SYS(writev),
		SCMP_SYS(recvfrom),	  SCMP_SYS(sendto),	 SCMP_SYS(recvmsg),
		SCMP_SYS(sendmsg),	  SCMP_SYS(connect),	 SCMP_SYS(setsockopt),
		SCMP_SYS(getsockopt),	  SCMP_SYS(shutdown),	 SCMP_SYS(close),
		SCMP_SYS(clock_gettime),  SCMP_SYS(wait4),	 SCMP_SYS(kill),
		SCMP_SYS(exit_group),	  SCMP_SYS(exit),	 SCMP_SYS(rt_sigreturn),
		SCMP_SYS(rt_sigprocmask), SCMP_SYS(getpid),	 SCMP_SYS(brk),
		SCMP_SYS(mmap),		  SCMP_SYS(munmap),	 SCMP_SYS(madvise),
		SCMP_SYS(mremap),	  SCMP_SYS(fcntl),	 SCMP_SYS(restart_syscall),
		SCMP_SYS(sched_yield),
	};
	/* New sockets: internet ones only, never netlink, unix or packet. */
	void *ctx = seccomp_allow_ctx(ALLOWED, ARRAY_SIZE(ALLOWED), 1);
	int rc;

	if (!ctx)
		return NULL;
	/*
	 * A gateway flow's socket pair (flow.c), and the one holding the relay's own
	 * 403 (namecheck.c): unix sockets joined to each other only.
	 */
	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
			      SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	/*
	 * One ioctl, at a clean end (relay.c, xrelay_leave): tun0 made to
	 * outlive the relay's close, so that its network namespace's end
	 * removes it.
	 */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2,
				      SCMP_A1(SCMP_CMP_EQ, TUNSETPERSIST), SCMP_A2(SCMP_CMP_EQ, 1));
	if (rc < 0) {
		seccomp_release(ctx);
		errno = -rc;
		return NULL;
	}
	return ctx;
}
