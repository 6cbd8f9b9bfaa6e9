/* SPDX-License-Identifier: ISC */
/*
 * The gateway holds the real values and parses the agent's bytes: if a bug
 * in it were ever exploited, the process should be able to do little more
 * than what it is for. Once it holds what it needs from the host (the
 * values, the upstreams' addresses, the CA bundle in memory), it leaves the
 * host's files behind (its own user and mount namespace, an empty read-only
 * root), holds no capability, sets no_new_privs, is not dumpable, and runs
 * under a seccomp allowlist of the calls its threads, libc and OpenSSL make;
 * anything else kills it, and with it every request of the agent (fail
 * closed: nothing falls back to a direct path). It stays in the host's
 * network namespace: the upstreams are reached from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"
#include "otogate.h"

void xgate_unshare(void)
{
	/* Before the key is read or any value decrypted (main.c), before any thread. */
	xuserns_self("gateway");
}

void xgate_confine(void)
{
	xempty_root("gateway", "oto-gateway");
	xcaps_drop_all("gateway");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "gateway: unable to set no_new_privs");
}

void xgate_lockdown(void)
{
	static const int ALLOWED[] = {
		/* the loop, the flows' I/O, the child */
		SCMP_SYS(poll),
		SCMP_SYS(ppoll),
		SCMP_SYS(read),
		SCMP_SYS(write),
		SCMP_SYS(readv),
		SCMP_SYS(writev),
		SCMP_SYS(recvfrom),
		SCMP_SYS(sendto),
		SCMP_SYS(recvmsg),
		SCMP_SYS(sendmsg),
		SCMP_SYS(connect),
		SCMP_SYS(setsockopt),
		SCMP_SYS(getsockopt),
		SCMP_SYS(shutdown),
		SCMP_SYS(close),
		SCMP_SYS(fcntl),
		SCMP_SYS(wait4),
		SCMP_SYS(kill),
		SCMP_SYS(clock_gettime),
		SCMP_SYS(getpid),
		SCMP_SYS(gettid),
		/* threads and memory */
		SCMP_SYS(futex),
		SCMP_SYS(mmap),
		SCMP_SYS(munmap),
		SCMP_SYS(mprotect),
		SCMP_SYS(madvise),
		SCMP_SYS(mremap),
		SCMP_SYS(brk),
		SCMP_SYS(membarrier),
		SCMP_SYS(sched_yield),
		/* a glibc thread's start */
		SCMP_SYS(set_robust_list),
		SCMP_SYS(rseq),
		SCMP_SYS(exit),
		SCMP_SYS(exit_group),
		SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(rt_sigreturn),
		SCMP_SYS(restart_syscall),
		/* OpenSSL's randomness */
		SCMP_SYS(getrandom),
	};
	/* Upstream sockets: internet ones only. */
	void *ctx = xseccomp_allow("gateway", ALLOWED, sizeof(ALLOWED) / sizeof(ALLOWED[0]), 1);

	/* A thread, never a new process: clone only with CLONE_THREAD. */
	xseccomp_rule(ctx, "gateway",
		      seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)));
	/* glibc tries clone3 first (flags in a struct the filter cannot read): it falls back to
	 * clone. */
	xseccomp_rule(ctx, "gateway",
		      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0));
	xseccomp_load(ctx, "gateway");
}
