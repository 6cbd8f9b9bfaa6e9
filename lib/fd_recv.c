/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"

int fd_recv(int sock)
{
	int e, fd = -1;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n;

	/* MSG_CMSG_CLOEXEC: the fd is ours alone until a caller decides to pass it on. */
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
