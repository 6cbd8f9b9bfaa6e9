/* SPDX-License-Identifier: ISC */
/*
 * A tree removed, entry by entry through directory fds: a symlink is
 * unlinked as itself, never followed; a directory the caller owns but may
 * not read (overlayfs's work directory is mode 0) is opened up first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otodiff.h"

#define RM_MAX_DEPTH 4096

int rm_open_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EACCES && fchmodat(dirfd, name, 0700, 0) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

static int rm_at(int dirfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *dp;
	int fd, r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0);
	if (depth > RM_MAX_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	fd = rm_open_at(dirfd, name);
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (r == 0 && (e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			r = rm_at(fd, e->d_name, depth + 1);
	closedir(dp);
	return r < 0 ? -1 : unlinkat(dirfd, name, AT_REMOVEDIR);
}

int rm_tree(int dirfd, const char *name)
{
	return rm_at(dirfd, name, 0);
}
