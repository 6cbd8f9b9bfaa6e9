/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <sys/socket.h>

#include "oto.h"

int fd_send(int sock, int fd, int err)
{
	int e = fd >= 0 ? 0 : err ? err : EINVAL;
	struct fd_msg x;
	ssize_t n;

	fd_msg_init(&x, &e, sizeof(e), fd);
	do
		n = sendmsg(sock, &x.m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n != (ssize_t)sizeof(e)) {
		errno = EPROTO; /* a stream socket that took part of it */
		return -1;
	}
	return 0;
}
