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
 *
 * The TUN's holder (xrelay_holder_start) keeps a second reference to the TUN
 * in a process of its own, confined as the relay is, that does nothing but
 * wait for the relay's end of their socket to close. The last close of the
 * TUN removes tun0 (unregister_netdevice, which waits for RCU grace periods:
 * about 25 ms here); held twice, that wait happens in the holder's exit,
 * after the relay's, instead of inside it, where otonet's caller waited for
 * it at every launch. Whether the relay ends or is killed, its socket
 * closes, the holder exits, and tun0 goes as it went before, a moment later.
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
	/* New sockets: internet ones only, never netlink, unix or packet. */
	void *ctx = xseccomp_allow("relay", ALLOWED, sizeof(ALLOWED) / sizeof(ALLOWED[0]), 1);

	/* A gateway flow's socket pair (flow.c): unix sockets joined to each other only. */
	xseccomp_rule(ctx, "relay",
		      seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
				       SCMP_A0(SCMP_CMP_EQ, AF_UNIX)));
	xseccomp_load(ctx, "relay");
}

/*
 * The holder's filter: receive the TUN, wait for the relay's end of the
 * socket to close, exit; and give memory back. Nothing else, not even a write.
 */
static void xholder_lockdown(void)
{
	static const int ALLOWED[] = {
		SCMP_SYS(recvmsg), SCMP_SYS(read),	 SCMP_SYS(close),
		SCMP_SYS(exit_group), SCMP_SYS(exit), SCMP_SYS(rt_sigreturn),
		SCMP_SYS(restart_syscall),
		/* seccomp_load frees the program it loaded. */
		SCMP_SYS(munmap), SCMP_SYS(brk), SCMP_SYS(madvise),
	};
	/* Its failure exits 111 (the holder has no stderr left to say so). */
	xseccomp_load(xseccomp_allow("relay's TUN holder", ALLOWED,
				     sizeof(ALLOWED) / sizeof(ALLOWED[0]), 0),
		      "relay's TUN holder");
}

int xrelay_holder_start(void)
{
	int sv[2], fd;
	char c;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die(EXIT_SYS, errno, "relay: unable to create the socket pair to the TUN's holder");
	pid = fork();
	if (pid < 0)
		die(EXIT_SYS, errno, "relay: unable to fork the TUN's holder");
	if (pid > 0) {
		close(sv[1]);
		return sv[0];
	}
	/*
	 * The holder: confined as the relay is (forked after xrelay_confine),
	 * holding no fd but its socket, not even stdio, so nobody waits on it.
	 */
	if (fd_close_from(0, &sv[1], 1) < 0)
		_exit(EXIT_SYS);
	xholder_lockdown();
	fd = fd_recv(sv[1]);
	/* Until the relay is gone, however it went (EOF), or a byte it never sends. */
	while (fd >= 0 && read(sv[1], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

void relay_badcall(void)
{
	/* Not in the allowlist: the kernel kills the relay here. */
	syscall(SYS_getppid);
}
