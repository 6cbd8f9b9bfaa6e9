/* SPDX-License-Identifier: ISC */
/*
 * seal reads lines on stdin:
 *   NAME=VALUE          the value is the rest of the line (text, no newline)
 *   NAME:base64=DATA    the value is DATA decoded (standard base64, padded):
 *                       any bytes, newlines and NUL included
 *   NAME                the value is the next line, read with echo off when
 *                       stdin is a terminal
 *   empty lines and lines starting with '#' are ignored
 */
#include <string.h>

#include "oto.h"
#include "otosecret.h"

int input_line(const char *line, size_t len, size_t *name_len, const char **val, size_t *val_len)
{
	size_t n = 0;

	*name_len = 0;
	*val = NULL;
	*val_len = 0;
	if (len == 0 || line[0] == '#')
		return INPUT_SKIP;
	while (n < len && line[n] != '=' && line[n] != ':')
		n++;
	if (!store_name_ok(line, n))
		return INPUT_BAD;
	*name_len = n;
	if (n == len)
		return INPUT_PROMPT;
	if (line[n] == '=') {
		*val = line + n + 1;
		*val_len = len - n - 1;
		return INPUT_LITERAL;
	}
	if (len - n >= 8 && !memcmp(line + n, ":base64=", 8)) {
		*val = line + n + 8;
		*val_len = len - n - 8;
		return INPUT_BASE64;
	}
	return INPUT_BAD;
}
