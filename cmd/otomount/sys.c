/* SPDX-License-Identifier: ISC */
/*
 * The new mount API through raw syscalls: musl 1.2.3 has no wrappers. Every
 * mount is made from a file descriptor, never from a path string that could
 * be swapped for a symlink between a check and its use.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "otomount.h"

#ifndef SYS_open_tree
#define SYS_open_tree  428
#define SYS_move_mount 429
#define SYS_fsopen     430
#define SYS_fsconfig   431
#define SYS_fsmount    432
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

int mnt_setattr(int fd, unsigned int attr, int recursive)
{
	struct mount_attr a = { .attr_set = attr, .propagation = MS_PRIVATE };

	return (int)syscall(SYS_mount_setattr, fd, "",
			    AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof(a));
}

int mnt_clone(int fd, const char *path, unsigned int attr)
{
	/* AT_RECURSIVE: submounts come along, and get the same attributes below. */
	int tree = (int)syscall(SYS_open_tree, fd, path,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
				    AT_SYMLINK_NOFOLLOW | (*path ? 0 : AT_EMPTY_PATH));
	int e;

	if (tree < 0)
		return -1;
	if (mnt_setattr(tree, attr, 1) < 0) {
		e = errno;
		close(tree);
		errno = e;
		return -1;
	}
	return tree;
}

int mnt_fs(const char *type, const char *const *opts, unsigned int attr)
{
	int fs = (int)syscall(SYS_fsopen, type, FSOPEN_CLOEXEC);
	int m = -1, e;

	if (fs < 0)
		return -1;
	for (; opts && *opts; opts += 2) {
		if (syscall(SYS_fsconfig, fs, opts[1] ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
			    opts[0], opts[1], 0) < 0)
			goto out;
	}
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto out;
	m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attr);
out:
	e = errno;
	close(fs);
	errno = e;
	return m;
}

/*
 * Every tmpfs gets an inode cap: the kernel's default (half of RAM, in pages)
 * lets empty files pin gigabytes of kernel memory (view_tmpfs_inodes). Owned
 * by the caller's ids: in the user namespace, the agent's.
 */
int mnt_tmpfs_named(const char *source, unsigned long size, unsigned long inodes, const char *mode,
		    unsigned int attr)
{
	char s[24], n[24], u[16], g[16];
	const char *opts[] = { "source", source, "size", s,	"nr_inodes", n,	  "mode",
			       mode,	 "uid",	 u,	 "gid", g,	     NULL };

	snprintf(s, sizeof(s), "%lu", size);
	snprintf(n, sizeof(n), "%lu", inodes);
	snprintf(u, sizeof(u), "%u", (unsigned)getuid());
	snprintf(g, sizeof(g), "%u", (unsigned)getgid());
	return mnt_fs("tmpfs", opts, attr);
}

int mnt_tmpfs(unsigned long size, unsigned long inodes, const char *mode, unsigned int attr)
{
	return mnt_tmpfs_named("tmpfs", size, inodes, mode, attr);
}

int mnt_move(int tree, int target_fd)
{
	return (int)syscall(SYS_move_mount, tree, "", target_fd, "",
			    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/*
 * statx(2)'s buffer, as the kernel writes it (include/uapi/linux/stat.h):
 * musl 1.2.3 has no struct statx, and linux/stat.h redefines sys/stat.h's
 * macros. Only the mount id is read.
 */
struct statx_buf {
	unsigned char head[144];
	unsigned long long mnt_id; /* stx_mnt_id, with STATX_MNT_ID (0x1000) */
	unsigned char rest[104];
};
_Static_assert(sizeof(struct statx_buf) == 256, "struct statx is 256 bytes");

int mnt_id_of(int fd, unsigned long long *id)
{
	struct statx_buf b;

	memset(&b, 0, sizeof(b));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, 0x1000U, &b) < 0)
		return -1;
	*id = b.mnt_id;
	return 0;
}

/*
 * One layer of an overlay, key (lowerdir+, upperdir, workdir), as the fd
 * itself (Linux 6.13; O_PATH fds, as open_tree's clones are, from 6.15),
 * else as its /proc/self/fd path, which the kernel resolves to the very
 * file the fd holds, never to a name looked up again (lowerdir+ from 6.8,
 * the plain lowerdir before).
 */
static int ovl_layer(int fs, const char *key, int fd)
{
	char p[32];

	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_FD, key, NULL, fd) == 0)
		return 0;
	if (errno != EINVAL && errno != EBADF && errno != EOPNOTSUPP)
		return -1;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, p, 0) == 0)
		return 0;
	if (strcmp(key, "lowerdir+") || errno != EINVAL)
		return -1;
	return (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", p, 0);
}

/* What the kernel said about a failed fsconfig, from the context's log, into why. */
static void ovl_why(int fs, char *why, size_t size)
{
	char b[256];
	ssize_t n;

	why[0] = 0;
	while ((n = read(fs, b, sizeof(b) - 1)) > 0) {
		size_t at = strlen(why);

		/* "e overlay: ...\n": each message without its line end (one line in all). */
		while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r'))
			n--;
		b[n] = 0;
		if (n > 2 && b[1] == ' ')
			snprintf(why + at, size - at, "%s%s", at ? "; " : "", b + 2);
	}
}

int mnt_overlay(int lower, int upper, int work, unsigned int attr, char *why, size_t size)
{
	/*
	 * userxattr: in a user namespace overlayfs keeps its whiteouts'
	 * companions and opaque marks in user.overlay.* (trusted.* needs the
	 * host's CAP_SYS_ADMIN), which also disables redirects (a directory
	 * renamed is copied: EXDEV, then mv copies). No metacopy, no index:
	 * every changed file's content is whole in the upper layer.
	 */
	static const char *const flags[][2] = {
		{ "source", "oto-cow" }, { "userxattr", NULL }, { "metacopy", "off" },
		{ "index", "off" },	 { "volatile", NULL }, /* cow.c, xcow_volatile */
		{ NULL, NULL },
	};
	int fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	int m = -1, e;

	why[0] = 0;
	if (fs < 0)
		return -1;
	if (ovl_layer(fs, "lowerdir+", lower) < 0 || ovl_layer(fs, "upperdir", upper) < 0 ||
	    ovl_layer(fs, "workdir", work) < 0)
		goto out;
	for (size_t i = 0; flags[i][0]; i++)
		if (syscall(SYS_fsconfig, fs, flags[i][1] ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG,
			    flags[i][0], flags[i][1], 0) < 0)
			goto out;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto out;
	m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attr);
out:
	e = errno;
	if (m < 0)
		ovl_why(fs, why, size);
	close(fs);
	errno = e;
	return m;
}
