/* SPDX-License-Identifier: ISC */
/*
 * The stream cut into lines, however its reads cut it: a line may come in
 * many pieces, and a piece may hold many lines. A line longer than
 * LOG_LINE_MAX (its newline included) is counted and dropped up to its
 * newline, never read in part. Pure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otolog.h"

int lines_init(struct lines *l)
{
	memset(l, 0, sizeof(*l));
	l->buf = malloc(LOG_LINE_MAX);
	if (!l->buf)
		return errno = ENOMEM, -1;
	return 0;
}

int lines_feed(struct lines *l, const char *data, size_t n, line_fn fn, void *ctx)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;

		if (!l->skipping && l->len + take >= LOG_LINE_MAX) {
			/* Too long, with its newline: counted once, dropped to its end. */
			l->skipping = 1;
			l->overlong++;
			l->len = 0;
		}
		if (!l->skipping) {
			memcpy(l->buf + l->len, data, take);
			l->len += take;
		}
		if (!nl)
			return 0;
		l->lineno++;
		if (!l->skipping && fn(ctx, l->buf, l->len, l->lineno) < 0)
			return -1;
		l->skipping = 0;
		l->len = 0;
		data = nl + 1;
		n -= take + 1;
	}
	return 0;
}

int lines_end(struct lines *l)
{
	int cut = l->len > 0 && !l->skipping;

	if (l->len || l->skipping)
		l->lineno++;
	l->len = 0;
	l->skipping = 0;
	return cut;
}

void lines_free(struct lines *l)
{
	free(l->buf);
	l->buf = NULL;
}
