/* SPDX-License-Identifier: ISC */
/*
 * Whether bytes may be a header value as the gateway writes one (RFC 9110,
 * 5.5): not empty, visible ASCII, space, tab or bytes from 0x80, nothing else
 * (no CR, LF or NUL that would end the line or cut it), and no white space
 * at either end. Pure.
 */
#include "http.h"

int http_value_ok(const char *v, size_t len)
{
	if (len == 0 || v[0] == ' ' || v[0] == '\t' || v[len - 1] == ' ' || v[len - 1] == '\t')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 0;
	}
	return 1;
}
