/* SPDX-License-Identifier: ISC */
/* The end of the stream: what the replacer held back can no longer be from. Pure. */
#include <string.h>

#include "http.h"

size_t http_repl_flush(struct http_repl *r, void *out)
{
	size_t n = r->held;

	if (n)
		memcpy(out, r->from, n);
	r->held = 0;
	return n;
}
