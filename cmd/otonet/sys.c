/* SPDX-License-Identifier: ISC */
/*
 * The relay's system calls, the real ones: what struct relay_sys holds in
 * otonet (the fuzz target fills its own with fakes).
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay.h"

/*
 * glibc declares connect with a transparent union for its address under
 * _GNU_SOURCE: its type is not the table's, so it is called from here.
 */
static int sys_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return connect(fd, sa, len);
}

const struct relay_sys relay_sys_libc = {
	.socket = socket,
	.socketpair = socketpair,
	.connect = sys_connect,
	.setsockopt = setsockopt,
	.getsockopt = getsockopt,
	.recv = recv,
	.send = send,
	.sendmsg = sendmsg,
	.shutdown = shutdown,
	.close = close,
	.epoll_ctl = epoll_ctl,
	.read = read,
	.write = write,
	.clock_gettime = clock_gettime,
};
