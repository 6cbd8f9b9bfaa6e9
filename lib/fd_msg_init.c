/* SPDX-License-Identifier: ISC */
#include <string.h>
#include <sys/socket.h>

#include "oto.h"

void fd_msg_init(struct fd_msg *x, void *data, size_t len, int fd)
{
	struct cmsghdr *cm;

	memset(x, 0, sizeof(*x));
	x->iov.iov_base = data;
	x->iov.iov_len = len;
	x->m.msg_iov = &x->iov;
	x->m.msg_iovlen = 1;
	if (fd < 0)
		return;
	x->m.msg_control = x->u.buf;
	x->m.msg_controllen = sizeof(x->u.buf);
	cm = CMSG_FIRSTHDR(&x->m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
}
