/* SPDX-License-Identifier: ISC */
/*
 * What the upper layer's bytes mean. The upper layer is the agent's: names
 * with any byte but '/' and NUL, modes it chose, xattrs overlayfs wrote
 * for it. Pure: unit-tested and fuzzed.
 */
#include <limits.h>
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

/*
 * One byte as a person sees it: printable ASCII as it is (TAB too where tab
 * is set), the backslash doubled, everything else escaped. Every byte that
 * could move the cursor, erase, recolour or reorder text on a terminal (C0,
 * DEL, C1, ESC sequences, bidi and zero-width code points, invalid UTF-8)
 * is outside printable ASCII: all of UTF-8 is escaped, whatever it encodes.
 */
static size_t esc_byte(char out[5], unsigned char c, int tab)
{
	if (c == '\\' || c == '\n' || (c == '\t' && !tab)) {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		return 2;
	}
	if ((c >= 0x20 && c < 0x7f) || c == '\t') {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
	return 4;
}

int text_plain(const char *p, size_t n, int tab)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < 0x20 || c >= 0x7f) && !(tab && c == '\t'))
			return 0;
	}
	return 1;
}

void bytes_show(FILE *f, const char *p, size_t n, int tab)
{
	char e[5] = { 0 }; /* esc_byte fills it; cppcheck cannot see so */

	for (size_t i = 0; i < n; i++)
		fwrite(e, 1, esc_byte(e, (unsigned char)p[i], tab), f);
}

int path_show(FILE *f, const char *path)
{
	size_t n = strlen(path);

	bytes_show(f, path, n, 0);
	return !text_plain(path, n, 0);
}

const char *path_shown(const char *path)
{
	static char buf[4 * PATH_MAX + 4];
	size_t k = 0;
	char e[5];

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		size_t n = esc_byte(e, *p, 0);

		if (k + n >= sizeof(buf))
			break;
		memcpy(buf + k, e, n);
		k += n;
	}
	buf[k] = 0;
	return buf;
}

int is_binary(const char *buf, size_t len)
{
	return memchr(buf, 0, len) != NULL;
}
