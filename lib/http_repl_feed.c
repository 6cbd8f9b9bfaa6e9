/* SPDX-License-Identifier: ISC */
/*
 * The streaming replacer (http.h): a Knuth-Morris-Pratt match of from over
 * the stream, where the state, the q bytes matched so far, is exactly what is
 * held back: those bytes are from[0, q), so they need no copy. A byte that
 * breaks the match lets out the held bytes that can no longer begin an
 * occurrence (q - fail[q - 1] of them, from the front), and a whole match
 * lets out to in place of from. Pure.
 */
#include <string.h>

#include "http.h"

size_t http_repl_feed(struct http_repl *r, const void *in, size_t len, void *out)
{
	const uint8_t *p = in, *f = r->from;
	uint8_t *o = out;
	size_t q = r->held, n = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];

		while (q > 0 && f[q] != c) {
			size_t k = r->fail[q - 1];

			/* Of from[0, q), the first q - k bytes leave; from[q - k, q) stays. */
			memcpy(o + n, f, q - k);
			n += q - k;
			q = k;
		}
		if (f[q] == c) {
			if (++q == r->from_len) {
				if (r->to_len)
					memcpy(o + n, r->to, r->to_len);
				n += r->to_len;
				q = 0;
			}
		} else {
			o[n++] = c;
		}
	}
	r->held = q;
	return n;
}
