/* SPDX-License-Identifier: ISC */
/*
 * The gateway's loop: flows from otonet's relay on the gateway socket (one
 * message each: the port as a native int, the flow's socket as SCM_RIGHTS),
 * each served on a thread of its own (flow.c); the operator's signals passed
 * on to the child; the child's end is the gateway's.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oto.h"
#include "otogate.h"

/* One flow: its fd, or -1 (nothing usable in the message); *port set. -2 at the end. */
static int take_flow(int sock, int *port)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = port, .iov_len = sizeof(*port) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int fd = -1;
	ssize_t n;

	n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? -1 : -2;
	if (n == 0 && !m.msg_controllen)
		return -2;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int x;

			memcpy(&x, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = x;
			else
				close(x);
		}
	}
	if (n != (ssize_t)sizeof(*port) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

void xgate_run(struct gate *g, int sock, int sigfd, pid_t child)
{
	struct pollfd p[2] = { { .fd = sigfd, .events = POLLIN },
			       { .fd = sock, .events = POLLIN } };
	struct signalfd_siginfo si;
	int status, fd, port;

	for (;;) {
		if (poll(p, sock >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_SYS, errno, "gateway: unable to wait (poll)");
		}
		if (p[0].revents & POLLIN) {
			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo != SIGCHLD) {
					kill(child, (int)si.ssi_signo);
					continue;
				}
				if (waitpid(child, &status, WNOHANG) == child)
					exit(wait_code(status));
			}
		}
		if (sock >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			fd = take_flow(sock, &port);
			if (fd == -2) {
				/* otonet is gone: no flow will come; wait for the child. */
				close(sock);
				sock = -1;
			} else if (fd >= 0 && flow_start(g, fd, port) < 0) {
				warnx("gateway: unable to serve a flow on port %d: %s", port,
				      strerror(errno));
			}
		}
	}
}
