/* SPDX-License-Identifier: ISC */
/*
 * The directory otorun lives in, absolute: the tools beside it run the
 * chain, and otomount binds it read-only at /opt/oto/bin in the view.
 *
 * Called with a path (argv[0] holds a slash), its directory as that path
 * names it: an absolute one without //, /./ or /../ as it is, any other made
 * absolute as sh's "cd DIR && pwd" would (the logical working directory:
 * $PWD when it names "." itself, else getcwd), so that a link to otorun
 * finds the tools beside the link, as the shell script did. Found on PATH
 * (no slash), the directory of /proc/self/exe.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otorun.h"

char *path_logical(const char *cwd, const char *dir)
{
	size_t cl = cwd ? strlen(cwd) : 0;
	char *new = malloc(cl + strlen(dir) + 3), *p, *lim, *comp, *save;
	char *copy = strdup(dir);
	const char *d = dir;

	if (!new || !copy) {
		free(new);
		free(copy);
		return NULL;
	}
	/* dash's updatepwd: the components of dir after cwd (or after "/",
	 * "//" kept as POSIX allows), "." dropped, ".." taking one off. */
	p = new;
	lim = new + 1;
	if (*dir != '/') {
		memcpy(p, cwd, cl);
		p += cl;
		if (p == new || p[-1] != '/')
			*p++ = '/';
		if (p > lim && *lim == '/')
			lim++;
	} else {
		*p++ = '/';
		d++;
		if (dir[1] == '/' && dir[2] != '/') {
			*p++ = '/';
			d++;
			lim++;
		}
	}
	strcpy(copy, d);
	for (comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			while (p > lim) {
				p--;
				if (p[-1] == '/')
					break;
			}
			continue;
		}
		strcpy(p, comp);
		p += strlen(comp);
		*p++ = '/';
	}
	if (p > lim)
		p--;
	*p = 0;
	free(copy);
	return new;
}

/* The shell's logical working directory. */
static char *logical_cwd(void)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && *pwd == '/' && !stat(pwd, &a) && !stat(".", &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		return strdup(pwd);
	return getcwd(NULL, 0);
}

char *here_dir(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	char *dir, *cwd, *r;
	size_t n;

	if (!slash) {
		char exe[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len < 0)
			return NULL;
		exe[len] = 0;
		*strrchr(exe, '/') = 0;
		return strdup(exe);
	}
	n = (size_t)(slash - argv0);
	dir = strndup(argv0, n);
	if (!dir)
		return NULL;
	/* "/otorun": the directory is "" (the tools are "/TOOL"). */
	if (!n)
		return dir;
	if (*dir == '/') {
		char *dirs;
		int plain;

		/* The shell's test: "$here/" holds no "//" after its first byte,
		 * no "/./", no "/../". */
		if (asprintf(&dirs, "%s/", dir) < 0) {
			free(dir);
			return NULL;
		}
		plain = !strstr(dirs + 1, "//") && !strstr(dirs, "/./") && !strstr(dirs, "/../");
		free(dirs);
		if (plain)
			return dir;
	}
	cwd = *dir == '/' ? NULL : logical_cwd();
	if (*dir != '/' && !cwd) {
		free(dir);
		return NULL;
	}
	r = path_logical(cwd, dir);
	free(cwd);
	free(dir);
	if (!r)
		errno = ENOMEM;
	return r;
}
