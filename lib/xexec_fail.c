/* SPDX-License-Identifier: ISC */
/*
 * An exec that failed, worded by what is there: looked at only on this
 * path, after the exec, so it costs a launch nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether / is otomount's root tmpfs: its mountinfo line, "... / / ... - tmpfs otomount ...". */
static int in_view(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[256], point[256], fs[64], src[64];
	int yes = 0;

	if (!f)
		return 0;
	while (!yes && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");

		if (dash && sscanf(line, "%*s %*s %*s %255s %255s", root, point) == 2 &&
		    sscanf(dash + 3, "%63s %63s", fs, src) == 2 && !strcmp(point, "/") &&
		    !strcmp(fs, "tmpfs") && !strcmp(src, VIEW_ROOT_SOURCE))
			yes = 1;
	}
	fclose(f);
	return yes;
}

/* The top of the view, "/bin /dev /etc ...", sorted; at most size - 1 bytes, "..." past them. */
static const char *view_holds(char *buf, size_t size)
{
	char *names[64];
	size_t n = 0, len = 0;
	int more = 0;
	struct dirent *e;
	DIR *d = opendir("/");

	if (!d)
		return NULL;
	while (n < 64 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t need = strlen(names[i]) + (len ? 2 : 1);

		if (len + need + 4 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s/%s", len ? " " : "",
						names[i]);
		else if (!more)
			more = snprintf(buf + len, size - len, " ...");
		free(names[i]);
	}
	return buf;
}

/* A file that is there (prog, or the first of PATH's that is), though the exec said ENOENT. */
static const char *found_file(const char *prog, const char *path, char *buf, size_t size)
{
	struct stat st;

	if (strchr(prog, '/'))
		return stat(prog, &st) == 0 && S_ISREG(st.st_mode) ? prog : NULL;
	for (const char *p = path; p && *p;) {
		const char *end = strchrnul(p, ':');
		int l = (int)(end - p);

		if (snprintf(buf, size, "%.*s%s%s", l, p, l ? "/" : "", prog) < (int)size &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return buf;
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* The interpreter of a #! file: its first word, or NULL. */
static const char *interpreter(const char *file, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;
	char *s;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	buf[n] = 0;
	for (s = buf + 2; *s == ' ' || *s == '\t'; s++)
		;
	s[strcspn(s, " \t\n")] = 0;
	return *s ? s : NULL;
}

void xexec_fail(const char *prog, int err, const char *path)
{
	char msg[768], holds[256], fbuf[4096], ibuf[256];
	const char *found = NULL, *interp = NULL, *h = NULL;

	if (!path)
		path = getenv("PATH");
	if (exec_code(err) == EXIT_NOTFOUND) {
		if (err == ENOENT)
			found = found_file(prog, path, fbuf, sizeof(fbuf));
		if (found)
			interp = interpreter(found, ibuf, sizeof(ibuf));
		if (in_view())
			h = view_holds(holds, sizeof(holds));
	}
	exec_fail_format(msg, sizeof(msg), prog, err, strchr(prog, '/') ? NULL : path, found,
			 interp, h);
	die(exec_code(err), err, "%s", msg);
}
