/* SPDX-License-Identifier: ISC */
/*
 * Targets in the new root are made and opened relative to an fd of it, one
 * component at a time, and never through a symlink: a symlink in a bound
 * tree (the agent's workspace) cannot send a mount outside the view.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otomount.h"

#define BENEATH (RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

int path_open_beneath(int rootfd, const char *path, int flags)
{
	while (*path == '/')
		path++;
	return sys_openat2(rootfd, *path ? path : ".", flags, BENEATH);
}

int path_make_beneath(int rootfd, const char *path, int is_dir)
{
	char buf[PATH_MAX];
	char *comp, *slash;
	int dir, next, e;
	struct stat st;

	while (*path == '/')
		path++;
	if (strlen(path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	dir = sys_openat2(rootfd, ".", O_PATH | O_DIRECTORY, BENEATH);
	if (dir < 0)
		return -1;
	for (comp = *buf ? buf : NULL; comp; comp = slash) {
		int last;

		slash = strchr(comp, '/');
		if (slash)
			*slash++ = 0;
		last = !slash;
		next = sys_openat2(dir, comp, O_PATH | O_NOFOLLOW, BENEATH);
		if (next < 0 && errno == ENOENT) {
			if (!last || is_dir) {
				if (mkdirat(dir, comp, 0755) < 0 && errno != EEXIST)
					goto fail;
			} else {
				/* O_EXCL|O_NOFOLLOW: never opens what someone put there meanwhile.
				 */
				int f = openat(dir, comp,
					       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					       0644);
				if (f < 0 && errno != EEXIST)
					goto fail;
				if (f >= 0)
					close(f);
			}
			next = sys_openat2(dir, comp, O_PATH | O_NOFOLLOW, BENEATH);
		}
		if (next < 0)
			goto fail;
		close(dir);
		dir = next;
	}
	/* A symlink as the last component: mounting there would follow it. */
	if (fstat(dir, &st) < 0)
		goto fail;
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		goto fail;
	}
	return dir;
fail:
	e = errno;
	close(dir);
	errno = e;
	return -1;
}

int path_mount_at(int rootfd, int tree, const char *path, int is_dir)
{
	int target = path_make_beneath(rootfd, path, is_dir);
	int r, e;

	if (target < 0)
		return -1;
	r = mnt_move(tree, target);
	e = errno;
	close(target);
	errno = e;
	return r;
}
