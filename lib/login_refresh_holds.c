/* SPDX-License-Identifier: ISC */
/*
 * Whether a body holds a value, in any form: the response scrubber
 * (http_repl) already knows every form an echo takes, so it is asked to
 * replace the value by a mark of the same length, and the body holds the
 * value when the scrubbed bytes differ from it. The mark differs from the
 * value at every byte in either case, so every form of it differs too.
 */
#include <string.h>

#include "login.h"

int login_refresh_holds(const char *body, size_t len, const struct login_pair *pairs, size_t n,
			enum login_side side, struct login_refresh_work *w)
{
	for (size_t i = 0; i < n; i++) {
		const char *v = side == LOGIN_SIDE_REAL ? pairs[i].real : pairs[i].phantom;
		size_t k = pairs[i].len, got;

		if (k < HTTP_MIN_SECRET || k > HTTP_MAX_SECRET)
			return -2;
		for (size_t j = 0; j < k; j++)
			w->mark[j] = v[j] == 'x' || v[j] == 'X' ? 'y' : 'x';
		if (http_repl_init(&w->repl, v, w->mark, k))
			return -2;
		got = http_repl_scan(&w->repl, body, len, w->out, 1);
		if (got != len || memcmp(w->out, body, len))
			return (int)i;
	}
	return -1;
}
