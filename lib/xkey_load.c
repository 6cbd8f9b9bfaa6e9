/* SPDX-License-Identifier: ISC */
/*
 * A store's key from an fd or a file, into locked memory (otosecret, otogate).
 * Dies 101 for a key others may read or one that does not decode, 111 when a
 * system call fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "oto.h"

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
		if (fd < 0) {
			int e = errno;
			char why[512];

			die_hint(EXIT_SYS, e, store_file_why(path, e, 1, why, sizeof(why)),
				 "unable to open key %s", path);
		}
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
