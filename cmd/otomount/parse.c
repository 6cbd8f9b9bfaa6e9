/* SPDX-License-Identifier: ISC */
/* The values of otomount's options. Pure: no system call, no exit. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "oto.h"
#include "otomount.h"

enum role view_role(const char *s)
{
	if (!strcmp(s, "manager"))
		return ROLE_MANAGER;
	if (!strcmp(s, "member"))
		return ROLE_MEMBER;
	if (!strcmp(s, "viewer"))
		return ROLE_VIEWER;
	return ROLE_NONE;
}

int view_path_ok(const char *p)
{
	size_t n = strlen(p);

	if (p[0] != '/' || n < 2 || n >= PATH_MAX || p[n - 1] == '/')
		goto bad;
	for (const char *c = p; *c;) {
		const char *e;

		c++; /* the '/' */
		e = strchr(c, '/');
		if (!e)
			e = c + strlen(c);
		if (e == c || (e - c == 1 && c[0] == '.') ||
		    (e - c == 2 && c[0] == '.' && c[1] == '.'))
			goto bad;
		c = e;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int view_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
		goto bad;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			goto bad;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int view_src_fd(const char *src)
{
	unsigned long n = 0;
	const char *p = src + 3;

	if (strncmp(src, "fd=", 3) || !*p || strlen(p) > 5)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	return n >= 3 && n <= 65535 ? (int)n : -1;
}

int view_parse_bind(const char *arg, char **src, char **dst)
{
	const char *colon = strchr(arg, ':');
	char *s;

	if (!colon) {
		errno = EINVAL;
		return -1;
	}
	s = strndup(arg, (size_t)(colon - arg));
	if (!s)
		return -1;
	if ((view_path_ok(s) < 0 && view_src_fd(s) < 0) || view_path_ok(colon + 1) < 0) {
		free(s);
		errno = EINVAL;
		return -1;
	}
	*src = s;
	*dst = (char *)colon + 1;
	return 0;
}

/*
 * A socket's path in the view is what a client passes to connect(2): it must
 * fit sun_path with its NUL, or no program in the view could reach it.
 */
int view_parse_socket(const char *arg, char **src, char **dst)
{
	if (view_parse_bind(arg, src, dst) < 0)
		return -1;
	if (strlen(*dst) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		free(*src);
		*src = NULL;
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int view_parse_tmpfs(const char *arg, char **dst, unsigned long *size)
{
	const char *colon = strchr(arg, ':');
	unsigned long long bytes = 0;
	char *d;

	*size = 0;
	d = colon ? strndup(arg, (size_t)(colon - arg)) : strdup(arg);
	if (!d)
		return -1;
	if (view_path_ok(d) < 0 || (colon && opt_bytes(colon + 1, ULONG_MAX, &bytes) < 0)) {
		free(d);
		errno = EINVAL;
		return -1;
	}
	*dst = d;
	*size = (unsigned long)bytes;
	return 0;
}

/*
 * Each inode of a tmpfs pins about 1 KiB of unreclaimable kernel memory,
 * whatever its size cap says: an empty file, a directory, a symlink or a hard
 * link uses no page of it. The kernel's default allows half of RAM in pages,
 * per mount: a million empty files in a 256m /tmp took the host's
 * unreclaimable slab from 39 MB to 869 MB. One inode per 4 KiB of the size
 * cap keeps that memory to the cap's order of magnitude (256m: 65536 inodes)
 * and refuses no file that fills a page, since each takes a page of the cap.
 */
#define TMPFS_BYTES_PER_INODE 4096UL
#define TMPFS_INODES_MIN      16UL /* a tiny one still holds a few; 0 is no limit */

unsigned long view_tmpfs_inodes(const struct otomount_opts *o, unsigned long size)
{
	unsigned long n = size / TMPFS_BYTES_PER_INODE;

	if (o->tmp_inodes)
		return o->tmp_inodes;
	return n < TMPFS_INODES_MIN ? TMPFS_INODES_MIN : n;
}
