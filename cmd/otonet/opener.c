/* SPDX-License-Identifier: ISC */
/*
 * Run by root: the TUN opener. /dev/net/tun may be root's alone (mode 0600
 * on hardened hosts; 0666 on stock Debian), and neither the relay nor the
 * sandbox may stay root to open it. Two kernel facts make a small root part
 * enough:
 *  - a TUN device is created in the network namespace of the process that
 *    *opened* /dev/net/tun (tun_chr_open takes current's), not of the one
 *    that calls TUNSETIFF later;
 *  - TUNSETIFF needs CAP_NET_ADMIN over that namespace's owning user
 *    namespace, which the child holds in its own.
 * So root only opens the device, from inside the child's network namespace
 * (setns, which real root may do into any); the child, unprivileged, creates
 * and configures tun0 on that fd exactly as when it opened the device itself.
 *
 * Where the device is open to all (0666, stock Debian) there is no opener:
 * the child opens it as an unprivileged otonet's does.
 *
 * The opener is a process of its own, forked before otonet gives up root, so
 * that the relay can give it up at once, as before, ahead of anything it
 * reads from the host or the network (resolving --allow names included). The
 * opener reads one message from the child (otonet's own code, which has not
 * exec'd anything yet), makes two system calls, answers and exits; it has
 * nothing left but its exit by the time the sandbox's program starts. Whoever
 * held the other end of its socket could get no more than an open
 * /dev/net/tun in a network namespace it names: creating or attaching a
 * device on it still takes CAP_NET_ADMIN over that namespace (TUNSETIFF).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

static noreturn void xopener_run(int sock, pid_t parent)
{
	int ns, fd = -1, e = 0;

	/* A root process never outlives otonet; if otonet is already gone, stop here. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EXIT_SYS);
	/* Of what otonet inherited, root keeps nothing but its socket to the child. */
	if (fd_close_from(3, &sock, 1) < 0)
		_exit(EXIT_SYS);
	ns = fd_recv(sock);
	if (ns < 0)
		_exit(0); /* the child opened the device itself, or failed before asking */
	/*
	 * The network namespace alone: the path is still looked up in the
	 * host's mount namespace (the child's new one is not entered), so it
	 * names the host's own device node whatever the sandbox mounts.
	 */
	if (setns(ns, CLONE_NEWNET) < 0 || (fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)) < 0)
		e = errno;
	/* The child tells the failure on stderr: the opener writes nothing. */
	_exit(fd_send(sock, fd, e) < 0 ? EXIT_SYS : 0);
}

int xopener_start(const char *as, pid_t *pid)
{
	pid_t parent = getpid();
	struct stat st;
	uid_t uid;
	gid_t gid;
	int sv[2];

	*pid = -1;
	/* Not root, or no valid --as: no opener (xuser_drop_root says why). */
	if ((getuid() != 0 && geteuid() != 0) || !as)
		return -1;
	/*
	 * A device everyone may open (0666, the Debian default): the child
	 * opens it itself, as an unprivileged caller's does, and root has
	 * nothing to do (no process to fork, to exit and to reap at every
	 * launch). Everyone: the owner and the group too, since the account
	 * may be either (at 0606 a member of the device's group may not open
	 * it). The mode alone decides: where the child is refused all the
	 * same (an ACL, a device cgroup), it says so as that caller's would.
	 */
	if (stat("/dev/net/tun", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0666) == 0666) {
		debugx("/dev/net/tun is open to all (mode %04o): no TUN opener",
		       (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	if (user_lookup(as, &uid, &gid) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die(EXIT_SYS, errno, "unable to create the socket pair to the TUN opener");
	*pid = fork();
	if (*pid < 0)
		die(EXIT_SYS, errno, "unable to fork the TUN opener");
	if (*pid == 0)
		xopener_run(sv[1], parent);
	close(sv[1]);
	return sv[0];
}

int opener_ask(int sock)
{
	int ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), sent;

	if (ns < 0)
		return -1;
	sent = fd_send(sock, ns, 0);
	close(ns);
	if (sent < 0) {
		errno = ENOMSG; /* the opener is gone: no answer will come */
		return -1;
	}
	return 0;
}

int opener_answer(int sock)
{
	return fd_recv(sock);
}
