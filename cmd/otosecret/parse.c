/* SPDX-License-Identifier: ISC */
/* The values of otosecret's options. Pure: no system call, no exit. */
#include <string.h>

#include "oto.h"
#include "otosecret.h"

int secret_fd_parse(const char *s)
{
	unsigned long v;

	if (opt_ulong(s, 65535, &v) < 0)
		return -1;
	return (int)v;
}

int use_parse(char *spec, struct use *u, const char **why)
{
	char *colon = strchr(spec, ':');
	int fd;

	memset(u, 0, sizeof(*u));
	u->name = spec;
	u->how = HOW_ENV;
	u->target = spec;
	u->fd = -1;
	u->index = -1;
	if (colon)
		*colon = 0;
	if (!store_name_ok(spec, strlen(spec))) {
		*why = "NAME must be [A-Za-z_][A-Za-z0-9_]*, at most 64 characters";
		return -1;
	}
	if (!colon)
		return 0;
	if (!strcmp(colon + 1, "env"))
		return 0;
	if (!strncmp(colon + 1, "env=", 4)) {
		u->target = colon + 5;
		if (!store_name_ok(u->target, strlen(u->target))) {
			*why = "env=VAR: VAR must be [A-Za-z_][A-Za-z0-9_]*";
			return -1;
		}
		return 0;
	}
	if (!strncmp(colon + 1, "file=", 5)) {
		u->how = HOW_FILE;
		u->target = colon + 6;
		if (u->target[0] != '/' || u->target[strlen(u->target) - 1] == '/') {
			*why = "file=PATH: PATH must be an absolute path to a file";
			return -1;
		}
		return 0;
	}
	if (!strncmp(colon + 1, "fd=", 3)) {
		u->how = HOW_FD;
		fd = secret_fd_parse(colon + 4);
		if (fd < 3) {
			*why = "fd=N: N must be a number from 3 to 65535";
			return -1;
		}
		u->fd = fd;
		return 0;
	}
	*why = "HOW must be env, env=VAR, file=PATH or fd=N";
	return -1;
}
