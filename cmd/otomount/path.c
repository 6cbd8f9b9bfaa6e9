/* SPDX-License-Identifier: ISC */
/*
 * Paths are opened without following a symlink anywhere in them: on the
 * host, a source planted as a symlink cannot redirect a mount. Targets in the
 * new root are made and opened relative to an fd of it, one component at a
 * time, never leaving it: a symlink in a bound tree (the agent's workspace)
 * cannot send a mount outside the view.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otomount.h"

#define BENEATH (RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

int host_open(const char *path, int flags)
{
	return sys_openat2(AT_FDCWD, path, flags, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

int path_open_beneath(int rootfd, const char *path, int flags)
{
	while (*path == '/')
		path++;
	return sys_openat2(rootfd, *path ? path : ".", flags, BENEATH);
}

/*
 * RESOLVE_NO_SYMLINKS and O_NOFOLLOW refuse a symlink with ELOOP; a path
 * that is simply not there is ENOENT, and is no symlink's fault.
 */
const char *path_why(int err)
{
	if (err == ELOOP)
		return " (a symlink is refused)";
	if (err == ENOENT)
		return " (it does not exist)";
	return "";
}

/*
 * The mounts that are the host's trees (the clones of host paths), by mount
 * id, in h (the view's): a mount point missing in one of them would be made
 * on the host, in a tree an operator bound in (--hide /work/nothere made
 * nothere in the workspace, empty, and hid it).
 */
int path_host_tree(struct host_trees *h, int tree)
{
	unsigned long long id, *l;

	if (mnt_id_of(tree, &id) < 0)
		return -1;
	l = realloc(h->id, (h->n + 1) * sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return -1;
	}
	h->id = l;
	h->id[h->n++] = id;
	return 0;
}

/* Whether dir is on a host tree: then nothing is made in it (errno EXDEV). */
static int on_host(const struct host_trees *h, int dir)
{
	unsigned long long id;

	if (!h->n)
		return 0;
	/* Fail closed: a mount that cannot be told is taken for the host's. */
	if (mnt_id_of(dir, &id) < 0)
		return 1;
	for (size_t i = 0; i < h->n; i++)
		if (h->id[i] == id)
			return 1;
	return 0;
}

/* Whether name must be made in dir: 0 it is there, 1 it may be made, -1 (EXDEV on a host tree). */
static int to_make(const struct host_trees *h, int dir, const char *name)
{
	if (!faccessat(dir, name, F_OK, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (errno != ENOENT)
		return -1;
	if (on_host(h, dir)) {
		errno = EXDEV;
		return -1;
	}
	return 1;
}

int path_make_beneath(const struct host_trees *h, int rootfd, const char *path, int is_dir)
{
	char parent[PATH_MAX];
	const char *last;
	size_t plen;
	int dir, fd, e, k;
	struct stat st;

	while (*path == '/')
		path++;
	if (!*path)
		return sys_openat2(rootfd, ".", O_PATH | O_DIRECTORY, BENEATH);
	last = strrchr(path, '/');
	plen = last ? (size_t)(last - path) : 0;
	last = last ? last + 1 : path;
	if (plen >= sizeof(parent)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(parent, path, plen);
	parent[plen] = 0;
	/* Most parents exist already: one lookup; else make them, top down. */
	dir = sys_openat2(rootfd, plen ? parent : ".", O_PATH | O_DIRECTORY, BENEATH);
	if (dir < 0 && errno == ENOENT)
		dir = path_make_beneath(h, rootfd, parent, 1);
	if (dir < 0)
		return -1;
	k = to_make(h, dir, last);
	if (k < 0)
		goto fail;
	if (is_dir) {
		if (k && mkdirat(dir, last, 0755) < 0 && errno != EEXIST)
			goto fail;
		/* O_DIRECTORY: a symlink planted there fails instead of being used. */
		fd = sys_openat2(dir, last, O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	} else {
		if (k) {
			/* O_EXCL|O_NOFOLLOW: never opens what someone put there meanwhile. */
			fd = openat(dir, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    0644);
			if (fd < 0 && errno != EEXIST)
				goto fail;
			if (fd >= 0)
				close(fd);
		}
		fd = sys_openat2(dir, last, O_PATH | O_NOFOLLOW, BENEATH);
		/* A symlink as the last component: mounting there would follow it. */
		if (fd >= 0 && (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))) {
			close(fd);
			errno = ELOOP;
			fd = -1;
		}
	}
	if (fd < 0)
		goto fail;
	close(dir);
	return fd;
fail:
	e = errno;
	close(dir);
	errno = e;
	return -1;
}
