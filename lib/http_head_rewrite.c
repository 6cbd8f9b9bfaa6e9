/* SPDX-License-Identifier: ISC */
/*
 * The head the gateway sends upstream: the agent's, with the phantom replaced
 * by the real value in header values, and nowhere else (RFC 9110 gives the
 * values no common syntax to parse, so each is searched as bytes). The
 * request line is copied as it was parsed: a phantom in the path or the query
 * goes upstream as the phantom. Pure.
 */
#include <errno.h>
#include <string.h>

#include "http.h"

struct out {
	char *p;
	size_t len, size;
};

static int put(struct out *o, const void *s, size_t n)
{
	if (o->size - o->len < n)
		return -1;
	if (n)
		memcpy(o->p + o->len, s, n);
	o->len += n;
	return 0;
}

/* v with every from replaced by to, left to right, not overlapping. */
static int put_replaced(struct out *o, const char *v, size_t n, const char *from, size_t from_len,
			const char *to, size_t to_len, unsigned int *count)
{
	const char *end = v + n, *m;

	while ((m = memmem(v, (size_t)(end - v), from, from_len))) {
		if (put(o, v, (size_t)(m - v)) < 0 || put(o, to, to_len) < 0)
			return -1;
		++*count;
		v = m + from_len;
	}
	return put(o, v, (size_t)(end - v));
}

ssize_t http_head_rewrite(const char *buf, const struct http_req *r, const char *from,
			  size_t from_len, const char *to, size_t to_len, const char *host,
			  size_t host_len, char *out, size_t outsz, unsigned int *count)
{
	struct out o = { out, 0, outsz };
	int fail = 0;

	*count = 0;
	/* The real value may only stand where a header value may: no CR or LF to add a line. */
	if (!r->done || r->err != HTTP_OK || from_len == 0 || !http_value_ok(to, to_len) ||
	    (host && !http_value_ok(host, host_len))) {
		errno = EINVAL;
		return -1;
	}
	fail |= put(&o, buf + r->method.off, r->method.len) | put(&o, " ", 1) |
		put(&o, buf + r->target.off, r->target.len) | put(&o, " HTTP/1.", 8) |
		put(&o, r->minor ? "1\r\n" : "0\r\n", 3);
	for (uint32_t i = 0; i < r->nheaders && !fail; i++) {
		const struct http_header *h = &r->h[i];

		fail |= put(&o, buf + h->name.off, h->name.len) | put(&o, ": ", 2);
		if (host && (int)i == r->host)
			fail |= put(&o, host, host_len);
		else
			fail |= put_replaced(&o, buf + h->value.off, h->value.len, from, from_len,
					     to, to_len, count);
		fail |= put(&o, "\r\n", 2);
	}
	/* HTTP/1.0 may come without Host: the upstream is told which host it is. */
	if (host && r->host < 0)
		fail |= put(&o, "Host: ", 6) | put(&o, host, host_len) | put(&o, "\r\n", 2);
	fail |= put(&o, "\r\n", 2);
	if (fail) {
		errno = ENOSPC;
		return -1;
	}
	return (ssize_t)o.len;
}
