/* SPDX-License-Identifier: ISC */
/* The rows otoprobe reports, and the two ways it prints them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoprobe.h"

static const char *const VERDICTS[] = { "ok", "GAP", "info" };
_Static_assert(ARRAY_SIZE(VERDICTS) == V_NUM, "a word for each verdict");

void report_add(struct report *rep, const char *check, enum verdict v, const char *fmt, ...)
{
	va_list ap;
	char *detail, *name;

	if (rep->nrows == rep->cap) {
		size_t ncap = rep->cap ? rep->cap * 2 : 64;
		struct report_row *r = realloc(rep->rows, ncap * sizeof(*r));

		if (!r) {
			rep->lost = 1;
			return;
		}
		rep->rows = r;
		rep->cap = ncap;
	}
	va_start(ap, fmt);
	if (vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	va_end(ap);
	name = strdup(check);
	if (!detail || !name) {
		free(detail);
		free(name);
		rep->lost = 1;
		return;
	}
	rep->rows[rep->nrows].check = name;
	rep->rows[rep->nrows].v = v;
	rep->rows[rep->nrows].detail = detail;
	rep->nrows++;
}

/* s escaped by fn into a buffer of the right size; the caller frees it. NULL/ENOMEM. */
static char *escaped(size_t (*fn)(char *, size_t, const char *), const char *s)
{
	size_t n = fn(NULL, 0, s) + 1;
	char *b = malloc(n);

	if (b)
		fn(b, n, s);
	return b;
}

/* Display width of escaped text: bytes minus UTF-8 continuation bytes. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

int report_print(const struct report *rep, int json)
{
	const struct report_row *rows = rep->rows;
	size_t nrows = rep->nrows;
	size_t ok = 0, gaps = 0, info = 0, w = 5;

	/* A report with a row missing could call a gap contained: none at all then. */
	if (rep->lost) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < nrows; i++) {
		char *c = escaped(text_escape, rows[i].check);

		if (!c)
			return -1;
		ok += rows[i].v == V_OK;
		gaps += rows[i].v == V_GAP;
		info += rows[i].v == V_INFO;
		if (width(c) > w)
			w = width(c);
		free(c);
	}
	/* A failed write sets errno, a good one leaves it: the first failure's is kept. */
	errno = 0;
	if (json) {
		fputs("{\"checks\":[", stdout);
		for (size_t i = 0; i < nrows; i++) {
			char *c = escaped(json_escape, rows[i].check);
			char *d = escaped(json_escape, rows[i].detail);

			if (!c || !d)
				return -1;
			printf("%s\n{\"check\":\"%s\",\"verdict\":\"%s\",\"detail\":\"%s\"}",
			       i ? "," : "", c, VERDICTS[rows[i].v], d);
			free(c);
			free(d);
		}
		printf("\n],\"gaps\":%zu,\"contained\":%s}\n", gaps, gaps ? "false" : "true");
	} else {
		printf("%-*s  %-7s %s\n", (int)w, "CHECK", "VERDICT", "DETAIL");
		for (size_t i = 0; i < nrows; i++) {
			char *c = escaped(text_escape, rows[i].check);
			char *d = escaped(text_escape, rows[i].detail);

			if (!c || !d)
				return -1;
			printf("%s%*s  %-7s %s\n", c, (int)(w - width(c)), "", VERDICTS[rows[i].v],
			       d);
			free(c);
			free(d);
		}
		printf("otoprobe: %zu checks, %zu contained, %zu gaps; %zu for information\n",
		       ok + gaps, ok, gaps, info);
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return (int)(gaps > 0x7fffffff ? 0x7fffffff : gaps);
}
