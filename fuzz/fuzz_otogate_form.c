// FUZZ: cmd/otogate/allow.c cmd/otogate/parse.c
/*
 * otogate's reader of a form body's _method (form_scan_feed, form_scan_end)
 * over any bytes. Input: a byte whose low bit picks the kind (urlencoded,
 * multipart) and whose value, with the next, picks where the body is cut,
 * then the body. The body fed whole, cut in two there, and a byte at a
 * time gives one answer: where a request's pieces end never hides the
 * parameter. A body it finds one in holds "method" in some case, or an
 * escape that could make it (urlencoded). Nothing may crash or read out of
 * bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "otogate/otogate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* p[0, len) fed in two pieces, cut at cut. */
static int scan(enum form_kind kind, const char *p, size_t len, size_t cut)
{
	struct form_scan s = { .kind = kind };

	form_scan_feed(&s, p, cut);
	form_scan_feed(&s, p + cut, len - cut);
	return form_scan_end(&s);
}

/* p[0, len) fed a byte at a time. */
static int scan_bytes(enum form_kind kind, const char *p, size_t len)
{
	struct form_scan s = { .kind = kind };

	for (size_t i = 0; i < len; i++)
		form_scan_feed(&s, p + i, 1);
	return form_scan_end(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum form_kind kind;
	const char *p;
	size_t len, cut;
	int whole;

	if (size < 2)
		return 0;
	kind = data[0] & 1 ? FORM_MULTIPART : FORM_URLENCODED;
	p = (const char *)data + 2;
	len = size - 2;
	cut = len ? ((size_t)data[0] << 8 | data[1]) % (len + 1) : 0;
	whole = scan(kind, p, len, len);
	if (scan(kind, p, len, cut) != whole || scan_bytes(kind, p, len) != whole)
		abort();
	if (whole && kind == FORM_MULTIPART && !memmem(p, len, "ethod", 5) &&
	    !memmem(p, len, "ETHOD", 5)) {
		/* Any case: look byte by byte. */
		int seen = 0;

		for (size_t i = 0; i + 6 <= len && !seen; i++)
			seen = !strncasecmp(p + i, "method", 6);
		if (!seen)
			abort();
	}
	if (whole && kind == FORM_URLENCODED && !memchr(p, '%', len)) {
		int seen = 0;

		for (size_t i = 0; i + 6 <= len && !seen; i++)
			seen = !strncasecmp(p + i, "method", 6);
		if (!seen)
			abort();
	}
	return 0;
}
