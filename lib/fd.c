/* SPDX-License-Identifier: ISC */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"

#ifndef __NR_close_range
#define __NR_close_range 436
#endif

int fd_cloexec(int fd, int on)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl < 0)
		return -1;
	fl = on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC;
	return fcntl(fd, F_SETFD, fl);
}

static int kept(int fd, const int *keep, size_t nkeep)
{
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

/* Kernels before 5.9 have no close_range: walk /proc/self/fd instead. */
static int close_from_proc(int from, const int *keep, size_t nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd >= from && fd != dirfd(d) && !kept(fd, keep, nkeep))
			close(fd);
	}
	closedir(d);
	return 0;
}

int fd_close_from(int from, const int *keep, size_t nkeep)
{
	unsigned int lo = (unsigned int)from;

	/* Close each gap between kept fds; keep need not be sorted. */
	for (;;) {
		unsigned int hi = ~0U;

		for (size_t i = 0; i < nkeep; i++)
			if (keep[i] >= 0 && (unsigned int)keep[i] >= lo &&
			    (unsigned int)keep[i] < hi)
				hi = (unsigned int)keep[i];
		if (hi > lo && syscall(__NR_close_range, lo, hi - 1, 0) < 0)
			return errno == ENOSYS ? close_from_proc(from, keep, nkeep) : -1;
		if (hi == ~0U)
			return 0;
		lo = hi + 1;
	}
}
