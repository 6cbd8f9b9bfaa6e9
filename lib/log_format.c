/* SPDX-License-Identifier: ISC */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "oto.h"

static const char *const LEVEL_NAME[] = { "fatal", "warning", "info", "debug" };
_Static_assert(ARRAY_SIZE(LEVEL_NAME) == LOG_NUM_LEVELS, "a name for each level");

size_t log_format(char *buf, size_t size, const char *prog, enum log_level lvl, int err,
		  const char *fmt, va_list ap)
{
	size_t n = 0;
	int r;

	if (size < 2)
		return 0;
	r = snprintf(buf, size, "%s: %s: ", prog, LEVEL_NAME[lvl]);
	n = r < 0 ? 0 : ((size_t)r >= size ? size - 1 : (size_t)r);
	r = vsnprintf(buf + n, size - n, fmt, ap);
	n += r < 0 ? 0 : ((size_t)r >= size - n ? size - n - 1 : (size_t)r);
	if (err) {
		r = snprintf(buf + n, size - n, ": %s", strerror(err));
		n += r < 0 ? 0 : ((size_t)r >= size - n ? size - n - 1 : (size_t)r);
	}
	/* One line, always: a message cut short still ends with its newline. */
	if (n >= size - 1)
		n = size - 2;
	buf[n++] = '\n';
	buf[n] = 0;
	return n;
}
