/* SPDX-License-Identifier: ISC */
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"

/* musl 1.2.3 has no wrapper, and older kernel headers no number. */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int sys_openat2(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = 0,
		.resolve = resolve,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}
