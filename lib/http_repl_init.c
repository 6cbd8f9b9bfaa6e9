/* SPDX-License-Identifier: ISC */
/*
 * The streaming replacer's table (Knuth-Morris-Pratt): fail[i] is the length
 * of the longest proper prefix of from[0, i] that is also its suffix. When a
 * byte breaks a partial match of q bytes, the replacer falls back to
 * fail[q - 1] without looking at the input again. Pure.
 */
#include <errno.h>

#include "http.h"

int http_repl_init(struct http_repl *r, const void *from, size_t from_len, const void *to,
		   size_t to_len)
{
	const uint8_t *f = from;
	size_t k = 0;

	if (from_len == 0 || from_len > HTTP_MAX_SECRET) {
		errno = EINVAL;
		return -1;
	}
	r->from = f;
	r->from_len = from_len;
	r->to = to;
	r->to_len = to_len;
	r->held = 0;
	r->fail[0] = 0;
	for (size_t i = 1; i < from_len; i++) {
		while (k > 0 && f[i] != f[k])
			k = r->fail[k - 1];
		if (f[i] == f[k])
			k++;
		r->fail[i] = (uint16_t)k;
	}
	return 0;
}
