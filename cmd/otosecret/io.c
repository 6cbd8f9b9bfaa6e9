/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "oto.h"
#include "otosecret.h"

int io_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

uint8_t *xkey_load(int fd, const char *path)
{
	const char *what = path ? path : "--key-fd";
	struct stat st;
	/* One locked block: the key, then its text (wiped once decoded). */
	uint8_t *key = sodium_malloc(STORE_KEY_BYTES + KEY_TEXT_MAX + 1), *text;
	ssize_t n;

	if (!key)
		die(EXIT_SYS, errno, "unable to allocate locked memory");
	text = key + STORE_KEY_BYTES;
	if (path) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			die(EXIT_SYS, errno, "unable to open key %s", path);
	}
	if (fstat(fd, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat key %s (fd %d)", what, fd);
	/* As ssh does for private keys: a key others may read is no longer secret. */
	if (S_ISREG(st.st_mode) && (st.st_mode & 077))
		die(EXIT_REJECT, 0,
		    "key %s is accessible by group or others (mode %04o): chmod 600", what,
		    (unsigned int)(st.st_mode & 07777));
	n = fd_read_all(fd, text, KEY_TEXT_MAX);
	if (n < 0 && errno == EFBIG)
		die(EXIT_REJECT, 0, "unable to read key %s: too long for a key", what);
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read key %s", what);
	close(fd);
	if (key_decode((const char *)text, (size_t)n, key) < 0)
		die(EXIT_REJECT, 0, "key %s is not an otosecret key (oto-key-1:...)", what);
	sodium_memzero(text, KEY_TEXT_MAX + 1);
	return key;
}

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
		if (fd < 0)
			die(EXIT_SYS, errno, "unable to open store %s", path);
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
