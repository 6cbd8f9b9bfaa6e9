/* SPDX-License-Identifier: ISC */
/*
 * What the upper layer's bytes mean. The upper layer is the agent's: names
 * with any byte but '/' and NUL, modes it chose, xattrs overlayfs wrote
 * for it. Pure: unit-tested and fuzzed.
 */
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "otodiff.h"

enum upper_kind upper_kind(mode_t mode, dev_t rdev, const char *opaque, size_t opaque_len)
{
	if (S_ISCHR(mode) && major(rdev) == 0 && minor(rdev) == 0)
		return U_WHITEOUT;
	if (S_ISDIR(mode))
		/* "y": opaque; "x" marks a lower layer's directory holding xwhiteouts. */
		return opaque && opaque_len == 1 && opaque[0] == 'y' ? U_OPAQUE_DIR : U_DIR;
	if (S_ISLNK(mode))
		return U_LINK;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return U_DEVICE;
	if (!S_ISREG(mode))
		return U_OTHER;
	return mode & (S_ISUID | S_ISGID) ? U_SETID : U_FILE;
}

void path_show(FILE *f, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 32 || *p == 127)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
}

int is_binary(const char *buf, size_t len)
{
	return memchr(buf, 0, len) != NULL;
}
