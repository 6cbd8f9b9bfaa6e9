/* SPDX-License-Identifier: ISC */
/* /dev and /proc of the view. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

/* The host's device nodes the agent gets, bound one by one; nothing else. */
static const char *const DEVICES[] = { "null", "zero", "full", "random", "urandom", "tty", NULL };
static const char *const FD_LINKS[][2] = {
	{ "/dev/fd", "/proc/self/fd" },
	{ "/dev/stdin", "/proc/self/fd/0" },
	{ "/dev/stdout", "/proc/self/fd/1" },
	{ "/dev/stderr", "/proc/self/fd/2" },
};

void xdev_prepare(struct view_state *v, const struct otomount_opts *o)
{
	/* 14 entries (the devices, pts, shm, ptmx, the fd links) and the root. */
	const char *dev_opts[] = { "source", "tmpfs", "size", "64k", "nr_inodes",
				   "64",     "mode",  "0755", NULL };
	const char *pts_opts[] = { "source", "devpts", "newinstance", NULL, "ptmxmode",
				   "0666",   "mode",   "0620",	      NULL };
	char size[24], inodes[24];
	const char *shm_opts[] = { "source", "tmpfs", "size", size, "nr_inodes",
				   inodes,   "mode",  "1777", NULL };
	int tmpfs = mnt_fs("tmpfs", dev_opts, MNT_RW | MOUNT_ATTR_NOEXEC);
	int pts, shm;

	if (tmpfs < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for /dev");
	xplan_tree(&v->plan, "/dev", tmpfs, 1, "a tmpfs");
	v->ro_later[v->n_ro_later++] = tmpfs;
	for (const char *const *d = DEVICES; *d; d++) {
		char path[32], *dst;
		struct stat st;
		int fd, tree;

		snprintf(path, sizeof(path), "/dev/%s", *d);
		fd = host_open(path, O_PATH | O_NOFOLLOW);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
			die(EXIT_SYS, fd < 0 ? errno : ENODEV, "unable to open the device %s",
			    path);
		/*
		 * A device node works only where the mount allows devices: these
		 * binds are the one place without nodev. Read-only all the same
		 * (writing to a device is not writing to the mount).
		 */
		tree = mnt_clone(fd, "", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
		if (tree < 0)
			die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", path, path);
		close(fd);
		dst = strdup(path);
		if (!dst)
			die(EXIT_SYS, errno, "unable to plan %s: out of memory", path);
		xplan_tree(&v->plan, dst, tree, 0, dst);
	}
	/*
	 * A devpts of our own: the host's ptys are not visible. Read-only is
	 * enough: opening ptmx makes a pty without writing through the mount.
	 */
	pts = mnt_fs("devpts", pts_opts, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (pts < 0)
		die(EXIT_SYS, errno, "unable to mount a new devpts instance");
	xplan_tree(&v->plan, "/dev/pts", pts, 1, "a new devpts");
	xplan_add(&v->plan, P_LINK, "/dev/ptmx", (char *)"pts/ptmx", 8, 0);
	/* What programs expect of /dev besides devices: their own fds, through /proc. */
	for (size_t i = 0; i < ARRAY_SIZE(FD_LINKS); i++)
		xplan_add(&v->plan, P_LINK, FD_LINKS[i][0], (char *)FD_LINKS[i][1],
			  strlen(FD_LINKS[i][1]), 0);
	snprintf(size, sizeof(size), "%lu", o->tmp_size);
	snprintf(inodes, sizeof(inodes), "%lu", view_tmpfs_inodes(o, o->tmp_size));
	shm = mnt_fs("tmpfs", shm_opts, MNT_RW);
	if (shm < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for /dev/shm");
	xplan_tree(&v->plan, "/dev/shm", shm, 1, "a tmpfs");
}

void xproc_prepare(struct view_state *v)
{
	/*
	 * A proc for the pid namespace we are in. The kernel allows it only
	 * while a fully visible proc is mounted in this mount namespace: otons'
	 * /proc on the old root, still there now, before pivot_root.
	 */
	int proc = mnt_fs("proc", NULL, MNT_RW | MOUNT_ATTR_NOEXEC);

	if (proc < 0)
		die(EXIT_SYS, errno, "unable to mount a new proc");
	xplan_tree(&v->plan, "/proc", proc, 1, "a new proc");
}

/*
 * Docker's defaults (moby oci/defaults.go): MaskedPaths get an empty
 * read-only directory or an unreadable empty file over them, ReadonlyPaths a
 * read-only bind of themselves.
 */
static const char *const PROC_MASKED[] = {
	"asound",     "acpi",	     "interrupts",  "kcore", "keys", "latency_stats",
	"timer_list", "timer_stats", "sched_debug", "scsi",  NULL,
};
static const char *const PROC_READONLY[] = { "bus", "fs", "irq", "sys", "sysrq-trigger", NULL };

void xproc_mask(struct view_state *v)
{
	int proc = path_open_beneath(v->root, "/proc", O_PATH | O_DIRECTORY);

	if (proc < 0)
		die(EXIT_SYS, errno, "unable to open /proc in the view");
	for (const char *const *p = PROC_MASKED; *p; p++) {
		struct stat st;
		int target = sys_openat2(proc, *p, O_PATH | O_NOFOLLOW,
					 RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);
		int tree;

		if (target < 0 && errno == ENOENT)
			continue;
		if (target < 0 || fstat(target, &st) < 0)
			die(EXIT_SYS, errno, "unable to open /proc/%s", *p);
		tree = mnt_clone(S_ISDIR(st.st_mode) ? v->empty_fd : v->null_fd, "",
				 MNT_RO | MOUNT_ATTR_NOEXEC);
		if (tree < 0 || mnt_move(tree, target) < 0)
			die(EXIT_SYS, errno, "unable to mask /proc/%s", *p);
		close(tree);
		close(target);
	}
	for (const char *const *p = PROC_READONLY; *p; p++) {
		int target = sys_openat2(proc, *p, O_PATH | O_NOFOLLOW,
					 RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);
		int tree;

		if (target < 0 && errno == ENOENT)
			continue;
		tree = target < 0 ? -1 : mnt_clone(target, "", MNT_RO | MOUNT_ATTR_NOEXEC);
		if (tree < 0 || mnt_move(tree, target) < 0)
			die(EXIT_SYS, errno, "unable to make /proc/%s read-only", *p);
		close(tree);
		close(target);
	}
	close(proc);
}
