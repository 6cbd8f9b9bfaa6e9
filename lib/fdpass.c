/* SPDX-License-Identifier: ISC */
/*
 * One message over a unix socket: an fd (SCM_RIGHTS), or instead the errno
 * that kept the sender from having one. otonet's child hands the TUN fd to
 * the relay this way (and its opener hands it to the child); otoexec hands
 * the master of the agent's pty to otons' supervisor.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"

union fdpass_cmsg {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

int fdpass_send(int sock, int fd, int err)
{
	int e = fd >= 0 ? 0 : err ? err : EINVAL;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	union fdpass_cmsg u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(e) ? 0 : -1;
}

int fdpass_recv(int sock)
{
	int e, fd = -1;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	union fdpass_cmsg u;
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (n == (ssize_t)sizeof(e) && !e && fd >= 0 && !(m.msg_flags & MSG_CTRUNC))
		return fd;
	/* Anything else carries no usable fd: close what came, say why. */
	if (fd >= 0)
		close(fd);
	if (n == 0)
		errno = ENOMSG; /* the peer closed the socket without a word */
	else
		errno = n == (ssize_t)sizeof(e) && e > 0 ? e : EPROTO;
	return -1;
}
