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
 * TUN removes tun0 (unregister_netdevice, which waits for RCU grace periods,
 * tens of milliseconds); held twice, that wait happens in the holder's exit,
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

/*
 * The filters: the ones the build compiled from seccomp.c, or, in the
 * sanitizer builds (OTO_SAN: the suites' second pass, the hostile test's,
 * the fuzz targets), seccomp.c's compiled here by libseccomp (with the
 * sanitizer runtime's call added, tests/helpers/otonet_asan_seccomp.c).
 */
#ifdef OTO_SAN
static void xload(void *ctx, const char *who)
{
	if (!ctx)
		xseccomp_rule(NULL, who, -errno);
	xseccomp_load(ctx, who);
}
#define RELAY_FILTER  relay_filter()
#define HOLDER_FILTER holder_filter()
#else
static void xload(const unsigned char *bpf, size_t len, const char *who)
{
	if (seccomp_load_bpf(bpf, len / 8) < 0)
		die(EXIT_SYS, errno, "%s: unable to install its seccomp filter", who);
}
#define RELAY_FILTER  OTONET_RELAY_BPF, OTONET_RELAY_BPF_LEN
#define HOLDER_FILTER OTONET_HOLDER_BPF, OTONET_HOLDER_BPF_LEN
#endif

void xrelay_lockdown(void)
{
	xload(RELAY_FILTER, "relay");
}

/* Its failure exits 111 (the holder has no stderr left to say so). */
static void xholder_lockdown(void)
{
	xload(HOLDER_FILTER, "relay's TUN holder");
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
