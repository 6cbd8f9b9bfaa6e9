/* SPDX-License-Identifier: ISC */
/*
 * The head the gateway sends upstream: the agent's, with the phantom replaced
 * by the real value in the headers the grant names, and nowhere else (RFC
 * 9110 gives the values no common syntax to parse, so each is searched as
 * bytes; Authorization's Basic scheme hides its credentials in base64, so
 * they are decoded first). A phantom in any other header, the path or the
 * query goes upstream as the phantom: an upstream that echoes a header it
 * does not read as a credential (X-Debug, Referer) never had the value to
 * echo.
 *
 * The headers that end at the gateway (RFC 9110, 7.6.1) are dropped: the
 * hop-by-hop ones and those Connection names. TE would let the upstream send
 * trailers the gateway passes over; a header the agent names in Connection is
 * one it meant for the gateway alone. Host, Content-Length and
 * Transfer-Encoding stay, whatever Connection says: the gateway frames the
 * body and routes the request by them, and the body goes on as it came.
 * Pure.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "oto.h"
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
static int put_replaced(struct out *o, const char *v, size_t n, const struct http_rewrite *w,
			unsigned int *count)
{
	const char *end = v + n, *m;

	while ((m = memmem(v, (size_t)(end - v), w->from, w->from_len))) {
		if (put(o, v, (size_t)(m - v)) < 0 || put(o, w->to, w->to_len) < 0)
			return -1;
		++*count;
		v = m + w->from_len;
	}
	return put(o, v, (size_t)(end - v));
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Strict base64 (padded, the standard alphabet) of n bytes into out: its length, or -1. */
static ssize_t b64_decode(const char *s, size_t n, unsigned char *out, size_t size)
{
	size_t o = 0;

	if (!n || n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		unsigned v = 0;
		int pad = 0;

		for (size_t k = 0; k < 4; k++) {
			const char *c = s[i + k] ? strchr(B64, s[i + k]) : NULL;

			if (s[i + k] == '=' && i + 4 == n && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (!c || pad)
				return -1;
			v = v << 6 | (unsigned)(c - B64);
		}
		if (o + 3 > size)
			return -1;
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (ssize_t)o;
}

static int put_b64(struct out *o, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);
		char q[4] = { B64[v >> 18], B64[v >> 12 & 63], i + 1 < n ? B64[v >> 6 & 63] : '=',
			      i + 2 < n ? B64[v & 63] : '=' };

		if (put(o, q, 4) < 0)
			return -1;
	}
	return 0;
}

/*
 * "Basic " and base64 of user:password (RFC 7617): the phantom replaced in
 * the decoded credentials, which are encoded again. 1 when done, 0 when the
 * value is not that (the caller replaces in it as bytes), -1 when out is full.
 */
static int put_basic(struct out *o, const char *v, size_t n, const struct http_rewrite *w,
		     unsigned int *count)
{
	unsigned char dec[HTTP_MAX_LINE], rep[2 * HTTP_MAX_LINE];
	size_t s = 5, r = 0;
	ssize_t d;
	const unsigned char *end, *m, *p = dec;

	if (n < 6 || strncasecmp(v, "basic", 5) || (v[5] != ' ' && v[5] != '\t'))
		return 0;
	while (s < n && (v[s] == ' ' || v[s] == '\t'))
		s++;
	d = b64_decode(v + s, n - s, dec, sizeof(dec));
	if (d < 0)
		return 0;
	end = dec + d;
	while ((m = memmem(p, (size_t)(end - p), w->from, w->from_len))) {
		if (r + (size_t)(m - p) + w->to_len > sizeof(rep))
			return 0;
		memcpy(rep + r, p, (size_t)(m - p));
		r += (size_t)(m - p);
		memcpy(rep + r, w->to, w->to_len);
		r += w->to_len;
		++*count;
		p = m + w->from_len;
	}
	if (r + (size_t)(end - p) > sizeof(rep))
		return 0;
	memcpy(rep + r, p, (size_t)(end - p));
	r += (size_t)(end - p);
	return put(o, v, s) < 0 || put_b64(o, rep, r) < 0 ? -1 : 1;
}

/* The header name[0, len) is what, whatever its case. */
static int is(const char *name, size_t len, const char *what)
{
	return strlen(what) == len && !strncasecmp(name, what, len);
}

static int named(const struct http_rewrite *w, const char *name, size_t len)
{
	for (size_t i = 0; i < w->nnames; i++)
		if (is(name, len, w->names[i]))
			return 1;
	return 0;
}

/* Whether the header name[0, len) ends at the gateway (see above). */
static int hop_by_hop(const char *buf, const struct http_req *r, const char *name, size_t len)
{
	static const char *const hop[] = {
		"connection", "keep-alive", "proxy-connection", "proxy-authorization",
		"te",	      "trailer",    "upgrade"
	};

	for (size_t i = 0; i < ARRAY_SIZE(hop); i++)
		if (is(name, len, hop[i]))
			return 1;
	if (is(name, len, "host") || is(name, len, "content-length") ||
	    is(name, len, "transfer-encoding"))
		return 0;
	for (uint32_t i = 0; i < r->nheaders; i++) {
		const struct http_header *c = &r->h[i];

		if (is(buf + c->name.off, c->name.len, "connection") &&
		    http_list_has(buf + c->value.off, c->value.len, name, len))
			return 1;
	}
	return 0;
}

ssize_t http_head_rewrite(const char *buf, const struct http_req *r, const struct http_rewrite *w,
			  char *out, size_t outsz, unsigned int *count)
{
	struct out o = { out, 0, outsz };
	int fail = 0;

	*count = 0;
	/* The real value may only stand where a header value may: no CR or LF to add a line. */
	if (!r->done || r->err != HTTP_OK || w->from_len == 0 || !http_value_ok(w->to, w->to_len) ||
	    (w->host && !http_value_ok(w->host, w->host_len))) {
		errno = EINVAL;
		return -1;
	}
	fail |= put(&o, buf + r->method.off, r->method.len) | put(&o, " ", 1) |
		put(&o, buf + r->target.off, r->target.len) | put(&o, " HTTP/1.", 8) |
		put(&o, r->minor ? "1\r\n" : "0\r\n", 3);
	for (uint32_t i = 0; i < r->nheaders && !fail; i++) {
		const struct http_header *h = &r->h[i];
		const char *name = buf + h->name.off, *v = buf + h->value.off;
		int k;

		if (hop_by_hop(buf, r, name, h->name.len))
			continue;
		if (w->identity &&
		    (is(name, h->name.len, "accept-encoding") || is(name, h->name.len, "range") ||
		     is(name, h->name.len, "if-range")))
			continue;
		fail |= put(&o, name, h->name.len) | put(&o, ": ", 2);
		if (w->host && (int)i == r->host)
			fail |= put(&o, w->host, w->host_len);
		else if (!named(w, name, h->name.len))
			fail |= put(&o, v, h->value.len);
		else if (is(name, h->name.len, "authorization") &&
			 (k = put_basic(&o, v, h->value.len, w, count)) != 0)
			fail |= k < 0;
		else
			fail |= put_replaced(&o, v, h->value.len, w, count);
		fail |= put(&o, "\r\n", 2);
	}
	/* HTTP/1.0 may come without Host: the upstream is told which host it is. */
	if (w->host && r->host < 0)
		fail |= put(&o, "Host: ", 6) | put(&o, w->host, w->host_len) | put(&o, "\r\n", 2);
	if (w->identity)
		fail |= put(&o, "Accept-Encoding: identity\r\n", 27);
	fail |= put(&o, "\r\n", 2);
	if (fail) {
		errno = ENOSPC;
		return -1;
	}
	return (ssize_t)o.len;
}
