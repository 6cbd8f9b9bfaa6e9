/* SPDX-License-Identifier: ISC */
/* Entering the private namespace, and leaving the old root. */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "otomount.h"

int mnt_make_private_ns(void)
{
	/*
	 * A mount namespace of our own, even under otons: run plain by root on
	 * the host, otomount must not touch the host's mounts, and the EPERM
	 * here is the clear "not allowed" for an unprivileged caller.
	 */
	if (unshare(CLONE_NEWNS) < 0)
		return -1;
	/* Before the first mount: nothing may propagate back out, ever. */
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int mnt_pivot(int new_root_fd)
{
	/*
	 * pivot_root(".", "."): the old root ends up mounted on top of the new
	 * one, at ".", and is detached at once; no put_old directory is left in
	 * the view, and nothing of the old root stays in mountinfo.
	 */
	if (fchdir(new_root_fd) < 0)
		return -1;
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return -1;
	if (umount2(".", MNT_DETACH) < 0)
		return -1;
	return chdir("/");
}
