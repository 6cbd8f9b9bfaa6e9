/* SPDX-License-Identifier: ISC */
/*
 * A sealed store from an fd or a file, whole, into memory (otosecret, otogate).
 * Dies 101 for a store too large or, with owner_only, one others may access;
 * 111 when a system call fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"

uint8_t *xstore_load(int fd, const char *path, size_t *len, int missing_ok, int owner_only)
{
	const char *what = path ? path : "--store-fd";
	struct stat st;
	uint8_t *buf;
	ssize_t n;

	if (path) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && errno == ENOENT && missing_ok)
			return NULL;
		if (fd < 0) {
			int e = errno;
			char why[512];

			die_hint(EXIT_SYS, e, store_file_why(path, e, 0, why, sizeof(why)),
				 "unable to open store %s", path);
		}
	}
	/*
	 * DESIGN.md: stores, like keys, come only from owner-only files. A store
	 * others may write could be swapped for an older one of the same id
	 * (a rollback the seal cannot tell); one others may read lists names.
	 */
	if (owner_only && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
		die(EXIT_REJECT, 0,
		    "store %s is accessible by group or others (mode %04o): chmod 600", what,
		    (unsigned int)(st.st_mode & 07777));
	buf = malloc(STORE_MAX_SIZE);
	n = buf ? fd_read_all(fd, buf, STORE_MAX_SIZE) : -1;
	if (n < 0 && errno == EFBIG)
		die(EXIT_REJECT, 0, "store %s: %s", what, store_strerror(STORE_ETOOBIG));
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read store %s", what);
	close(fd);
	*len = (size_t)n;
	return buf;
}
