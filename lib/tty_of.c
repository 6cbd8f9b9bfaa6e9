/* SPDX-License-Identifier: ISC */
/* The controlling terminal of a process, or of a unix socket's peer (oto.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"

int tty_of(pid_t pid, unsigned long *tty)
{
	char path[32], buf[1024];
	ssize_t n;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	n = file_read_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return -1;
	return tty_stat_parse(buf, (size_t)n, tty);
}

int tty_of_peer(int fd, pid_t *pid, unsigned long *tty)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	*pid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0)
		return -1;
	*pid = cr.pid;
	/* 0: the peer is in a pid namespace this one does not see. */
	if (cr.pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	return tty_of(cr.pid, tty);
}
