/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "oto.h"

int fd_send(int sock, int fd, int err)
{
	int e = fd >= 0 ? 0 : err ? err : EINVAL;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

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
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n != (ssize_t)sizeof(e)) {
		errno = EPROTO; /* a stream socket that took part of it */
		return -1;
	}
	return 0;
}
