/* SPDX-License-Identifier: ISC */
/*
 * Why a store or key file could not be opened, and the fix, for the end of
 * the one line (otosecret, otogate, otorun): a newcomer's first store is
 * missing, or root's while the account reads it. Never exits.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"

const char *store_file_why(const char *path, int err, int is_key, char *buf, size_t size)
{
	struct passwd *pw;
	struct stat st;

	if (err == ENOENT && is_key)
		snprintf(buf, size,
			 " (make one: otosecret keygen --out %s, and seal the store with it: "
			 "otosecret seal --key-file %s --store STORE)",
			 path, path);
	else if (err == ENOENT)
		snprintf(buf, size,
			 " (make one: otosecret keygen --out KEY, then NAME=VALUE lines on stdin "
			 "to otosecret seal --key-file KEY --store %s)",
			 path);
	else if (err == EACCES && stat(path, &st) == 0 && st.st_uid != geteuid()) {
		pw = getpwuid(st.st_uid);
		snprintf(buf, size,
			 " (it belongs to %s, uid %u, not to uid %u who reads it: chown it to "
			 "the reader, or run as its owner)",
			 pw ? pw->pw_name : "no account", (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (err == EACCES && stat(path, &st) == 0 && !(st.st_mode & 0400))
		snprintf(buf, size, " (mode %04o keeps even its owner out: chmod 600)",
			 (unsigned)(st.st_mode & 07777));
	else if (err == EACCES)
		snprintf(buf, size, " (a directory above it keeps uid %u out)",
			 (unsigned)geteuid());
	else
		snprintf(buf, size, "%s", "");
	return buf;
}
