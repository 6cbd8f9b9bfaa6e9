/* SPDX-License-Identifier: ISC */
/*
 * --home-skel: a host directory copied into the fresh $HOME at start, so
 * that a CLI's settings (~/.gitconfig, ~/.config/...) are there in every
 * session while the home stays a throwaway tmpfs. Copied, not bound: what
 * the agent changes in its home never reaches the skeleton.
 *
 * The walk reads the skeleton as otomount's account (its files must be
 * readable by it), never follows a symlink (one is copied as a symlink,
 * its target as text), takes directories, regular files and symlinks and
 * skips the rest (fifos, sockets, devices), drops the set-id and sticky
 * bits, and is bounded: past SKEL_MAX_ENTRIES entries, SKEL_MAX_BYTES bytes
 * or SKEL_MAX_DEPTH levels the launch stops (101) rather than start with
 * half a home.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

#define SKEL_MAX_ENTRIES 10000UL
#define SKEL_MAX_BYTES	 (64UL << 20)
#define SKEL_MAX_DEPTH	 32

struct skel {
	const char *name; /* --home-skel's value, for messages */
	unsigned long entries, bytes;
	char buf[65536];
};

static void xcopy_file(struct skel *k, int sdir, int ddir, const char *name, mode_t mode)
{
	int in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out;
	ssize_t n;

	if (in < 0)
		die(EXIT_SYS, errno, "--home-skel %s: unable to read %s", k->name, name);
	out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (out < 0)
		die(EXIT_SYS, errno, "--home-skel %s: unable to make %s in the home", k->name,
		    name);
	while ((n = read(in, k->buf, sizeof(k->buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(EXIT_SYS, errno, "--home-skel %s: unable to read %s", k->name, name);
		k->bytes += (unsigned long)n;
		if (k->bytes > SKEL_MAX_BYTES)
			die(EXIT_REJECT, 0,
			    "--home-skel %s: more than %lu MiB (a skeleton holds settings; bind "
			    "big trees with --ro)",
			    k->name, SKEL_MAX_BYTES >> 20);
		if (fd_write_all(out, k->buf, (size_t)n) < 0)
			die(EXIT_SYS, errno, "--home-skel %s: unable to write %s in the home",
			    k->name, name);
	}
	close(in);
	if (close(out) < 0)
		die(EXIT_SYS, errno, "--home-skel %s: unable to write %s in the home", k->name,
		    name);
}

static void xcopy_dir(struct skel *k, int sdir, int ddir, int depth)
{
	int fd = dup(sdir);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d)
		die(EXIT_SYS, errno, "--home-skel %s: unable to read a directory", k->name);
	if (depth > SKEL_MAX_DEPTH)
		die(EXIT_REJECT, 0, "--home-skel %s: deeper than %d levels", k->name,
		    SKEL_MAX_DEPTH);
	while ((errno = 0, e = readdir(d))) {
		struct stat st;
		mode_t mode;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++k->entries > SKEL_MAX_ENTRIES)
			die(EXIT_REJECT, 0,
			    "--home-skel %s: more than %lu entries (a skeleton holds settings; "
			    "bind big trees with --ro)",
			    k->name, SKEL_MAX_ENTRIES);
		if (fstatat(sdir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die(EXIT_SYS, errno, "--home-skel %s: unable to stat %s", k->name,
			    e->d_name);
		mode = st.st_mode & 0777;
		if (S_ISDIR(st.st_mode)) {
			int s, t;

			if (mkdirat(ddir, e->d_name, mode | 0700) < 0)
				die(EXIT_SYS, errno, "--home-skel %s: unable to make %s", k->name,
				    e->d_name);
			s = openat(sdir, e->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			t = openat(ddir, e->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s < 0 || t < 0)
				die(EXIT_SYS, errno, "--home-skel %s: unable to enter %s", k->name,
				    e->d_name);
			xcopy_dir(k, s, t, depth + 1);
			/* The mode as the skeleton has it, once its content is in. */
			if (fchmod(t, mode) < 0)
				die(EXIT_SYS, errno, "--home-skel %s: unable to set the mode of %s",
				    k->name, e->d_name);
			close(s);
			close(t);
		} else if (S_ISREG(st.st_mode)) {
			xcopy_file(k, sdir, ddir, e->d_name, mode);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(sdir, e->d_name, target, sizeof(target) - 1);

			if (n < 0)
				die(EXIT_SYS, errno,
				    "--home-skel %s: unable to read the symlink %s", k->name,
				    e->d_name);
			target[n] = 0;
			if (symlinkat(target, ddir, e->d_name) < 0)
				die(EXIT_SYS, errno,
				    "--home-skel %s: unable to make the symlink %s", k->name,
				    e->d_name);
		} else {
			debugx("--home-skel: %s skipped (not a file, directory or symlink)",
			       e->d_name);
		}
	}
	if (errno)
		die(EXIT_SYS, errno, "--home-skel %s: unable to read a directory", k->name);
	closedir(d);
}

void xhome_skel(int home, const char *skel)
{
	static struct skel k;
	int given = view_src_fd(skel);
	int src, dst;

	k.name = skel;
	/* A launcher's tree (fd=N), or the path, opened as this account. */
	if (given >= 0) {
		src = openat(given, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(given);
	} else {
		src = host_open(skel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (src < 0)
		die(EXIT_SYS, errno, "--home-skel %s: unable to open%s", skel,
		    errno == ELOOP ? " (a symlink is refused)" : "");
	dst = openat(home, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0)
		die(EXIT_SYS, errno, "--home-skel %s: unable to open the home", skel);
	xcopy_dir(&k, src, dst, 1);
	debugx("--home-skel %s: %lu entries, %lu bytes", skel, k.entries, k.bytes);
	close(src);
	close(dst);
}
