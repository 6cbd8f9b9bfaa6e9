/* SPDX-License-Identifier: ISC */
/*
 * An empty root for a process that needs no file any more (otonet's relay,
 * otons' pid 1): in the mount namespace it entered for this, a read-only
 * tmpfs of its own is /, and the tree it came from is detached, so that
 * neither a path nor /proc/PID/mountinfo leads back to the host's.
 */
#include <errno.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"

void xempty_root(const char *who, const char *name)
{
	static const char *const SPOTS[] = { "/tmp", "/mnt", "/dev", "/proc" };
	const char *dir = NULL;

	/* Nothing done here may propagate back to the host's mounts. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die(EXIT_SYS, errno, "%s: unable to make its mounts private", who);
	/* Any existing directory will do as the mount point: it is ours alone. */
	for (size_t i = 0; !dir && i < ARRAY_SIZE(SPOTS); i++)
		if (mount(name, SPOTS[i], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=4k,nr_inodes=2,mode=0500") == 0)
			dir = SPOTS[i];
	if (!dir)
		die(EXIT_SYS, errno,
		    "%s: unable to mount its empty root on /tmp, /mnt, /dev or /proc", who);
	if (chdir(dir) < 0)
		die(EXIT_SYS, errno, "%s: unable to enter its empty root %s", who, dir);
	/*
	 * pivot_root(".", "."): the old root is stacked under the new one and
	 * detached at once, so not even a path through ".." leads back to it.
	 * Where the current root is no mount (a chroot), chroot is what is left.
	 */
	if (syscall(SYS_pivot_root, ".", ".") == 0) {
		if (umount2(".", MNT_DETACH) < 0)
			die(EXIT_SYS, errno, "%s: unable to detach the host's root", who);
	} else if (chroot(".") < 0) {
		die(EXIT_SYS, errno, "%s: unable to chroot into its empty root", who);
	}
	if (chdir("/") < 0)
		die(EXIT_SYS, errno, "%s: unable to enter / in its empty root", who);
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		die(EXIT_SYS, errno, "%s: unable to make its root read-only", who);
}
