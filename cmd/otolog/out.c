/* SPDX-License-Identifier: ISC */
/* A growing buffer of what otolog writes. Pure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otolog.h"

/* Room for n more bytes and a NUL: 0, or -1 (failed is set, nothing more is added). */
static int room(struct out *o, size_t n)
{
	size_t cap = o->cap ? o->cap : 4096;
	char *b;

	if (o->failed)
		return -1;
	if (o->len + n + 1 <= o->cap)
		return 0;
	while (cap < o->len + n + 1) {
		if (cap > (size_t)-1 / 2) {
			o->failed = 1;
			return -1;
		}
		cap *= 2;
	}
	b = realloc(o->buf, cap);
	if (!b) {
		o->failed = 1;
		return -1;
	}
	o->buf = b;
	o->cap = cap;
	return 0;
}

void out_add(struct out *o, const char *s, size_t n)
{
	if (room(o, n) < 0)
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

void out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || room(o, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

void out_text(struct out *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			out_add(o, "\\\\", 2);
		else if (c >= 0x20 && c < 0x7f)
			out_add(o, s, 1);
		else
			out_printf(o, "\\x%02x", c);
	}
}

void out_json(struct out *o, const char *s)
{
	size_t n = strlen(s), at;

	/* Each byte 6 at most (\u00XX), the quotes and json_str's NUL. */
	if (n > ((size_t)-1 - 8) / 6 || room(o, 6 * n + 3) < 0)
		return;
	at = json_str(o->buf, o->cap, o->len, s, n);
	if (!at) {
		o->failed = 1;
		return;
	}
	o->len = at;
}

void out_free(struct out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}
