/* SPDX-License-Identifier: ISC */
/*
 * OTO_LOGIN=FD:FILE[,FD:FILE]..., from otogate --login: each FD a sealed
 * memfd holding a CLI's login file with phantoms in place of its secrets,
 * written at FILE under the fresh home (parents 0700, the file 0600, owned
 * by the agent's account as everything made here), so the CLI finds its
 * login where it keeps it. The real file never comes this way: otomount
 * sees the phantoms only. Consumed: the variable removed, each fd closed.
 *
 * Each value is checked here again (a stage trusts no value it did not
 * make): FILE a path under the home (login_file_ok), FD a memfd sealed
 * against any change, so what is copied is what the gateway wrote. A FILE
 * already in the home (--home-skel's copy) is refused: one of the two
 * would win without a word.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "login.h"
#include "oto.h"
#include "otomount.h"

#define LOGIN_MAX_ENV 4 /* otogate's --login, at most 4 */

/* The directory FILE's parent in the home, made (0700) where missing, never through a symlink. */
static int xparent(int home, char *path, char **base)
{
	int dir = openat(home, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;
	char *p = path, *slash;

	if (dir < 0)
		die(EXIT_SYS, errno, "OTO_LOGIN: unable to open the home");
	while ((slash = strchr(p, '/'))) {
		*slash = 0;
		if (mkdirat(dir, p, 0700) < 0 && errno != EEXIST)
			die(EXIT_SYS, errno, "OTO_LOGIN: unable to make %s in the home", path);
		next = openat(dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			die(EXIT_SYS, errno, "OTO_LOGIN: unable to enter %s in the home%s", path,
			    errno == ELOOP || errno == ENOTDIR ? " (not a directory)" : "");
		close(dir);
		dir = next;
		*slash = '/';
		p = slash + 1;
	}
	*base = p;
	return dir;
}

static void xlogin_one(int home, int fd, char *file, const struct otomount_opts *o)
{
	const int seals = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	static char buf[JSON_MAX_INPUT + 1];
	int got = fcntl(fd, F_GET_SEALS), dir, out;
	ssize_t n;
	char *base;

	if (got < 0 || (got & seals) != seals)
		die(EXIT_REJECT, 0, "OTO_LOGIN: fd %d is not a sealed memfd (otogate's)", fd);
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		die(EXIT_SYS, errno, "OTO_LOGIN: unable to read fd %d", fd);
	if ((size_t)n == sizeof(buf))
		die(EXIT_REJECT, 0, "OTO_LOGIN: fd %d holds more than %d bytes", fd,
		    JSON_MAX_INPUT);
	close(fd);
	dir = xparent(home, file, &base);
	out = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0 && errno == EEXIST)
		die_usage(
		    "--home-skel %s holds %s, where otogate's --login puts its file: drop one "
		    "of the two",
		    o->home_skel ? o->home_skel : "-", file);
	if (out < 0 || fd_write_all(out, buf, (size_t)n) < 0 || close(out) < 0)
		die(EXIT_SYS, errno, "OTO_LOGIN: unable to write %s in the home", file);
	close(dir);
	debugx("OTO_LOGIN: %s, %zd bytes", file, n);
}

void xhome_login(int home, const struct otomount_opts *o)
{
	const char *v = getenv("OTO_LOGIN");
	char *copy, *item, *next, *colon;
	unsigned long fd;
	size_t count = 0;

	if (!v)
		return;
	copy = strdup(v);
	if (!copy)
		die(EXIT_SYS, ENOMEM, "OTO_LOGIN: unable to copy");
	for (item = copy; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		colon = strchr(item, ':');
		if (colon)
			*colon = 0;
		if (!colon || opt_ulong(item, 65535, &fd) < 0 || fd < 3 ||
		    fcntl((int)fd, F_GETFD) < 0 || ++count > LOGIN_MAX_ENV)
			die_usage("OTO_LOGIN=%s: expected FD:FILE[,FD:FILE]... (at most %d), each "
				  "FD open",
				  v, LOGIN_MAX_ENV);
		if (!login_file_ok(colon + 1))
			die_usage("OTO_LOGIN=%s: %s is not a path under the home", v, colon + 1);
		xlogin_one(home, (int)fd, colon + 1, o);
	}
	free(copy);
	unsetenv("OTO_LOGIN");
}
