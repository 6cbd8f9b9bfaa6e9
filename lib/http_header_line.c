/* SPDX-License-Identifier: ISC */
/*
 * One header line (RFC 9110, 5; RFC 9112, 5), request's or response's, and
 * what it says about framing: Content-Length (one decimal number, below
 * 10^18, once), Transfer-Encoding (exactly "chunked", once), Connection (its
 * close and keep-alive tokens). Host and Upgrade are reported, for the
 * caller to decide. No obsolete folding, a token for a name with nothing
 * before the colon, no control byte in a value. Pure.
 */
#include <string.h>
#include <strings.h>

#include "http.h"

static int is(const char *buf, struct http_span s, const char *lower)
{
	size_t n = strlen(lower);

	return s.len == n && !strncasecmp(buf + s.off, lower, n);
}

static int content_length(const char *v, uint32_t n, struct http_fields *f)
{
	uint64_t x = 0;

	if ((f->flags & HTTP_F_LENGTH) || n == 0 || n > 18)
		return HTTP_ELENGTH;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return HTTP_ELENGTH;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	f->length = x;
	f->flags |= HTTP_F_LENGTH;
	return HTTP_MORE;
}

/* Connection: a list of tokens; close and keep-alive matter here. */
static void connection(const char *v, uint32_t n, struct http_fields *f)
{
	if (http_list_has(v, n, "close", 5))
		f->flags |= HTTP_F_CLOSE;
	if (http_list_has(v, n, "keep-alive", 10))
		f->flags |= HTTP_F_KEEPALIVE;
}

int http_header_line(const char *buf, uint32_t at, uint32_t end, struct http_header *h,
		     struct http_fields *f)
{
	const char *p = buf + at, *colon;
	uint32_t vs, ve;

	f->which = HTTP_H_OTHER;
	if (*p == ' ' || *p == '\t')
		return HTTP_EFOLD;
	colon = memchr(p, ':', end - at);
	if (!colon || colon == p)
		return HTTP_ENAME;
	for (const char *c = p; c < colon; c++)
		if (!http_tchar((unsigned char)*c))
			return HTTP_ENAME;
	vs = (uint32_t)(colon + 1 - buf);
	ve = end;
	while (vs < ve && (buf[vs] == ' ' || buf[vs] == '\t'))
		vs++;
	while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
		ve--;
	if (ve > vs && !http_value_ok(buf + vs, ve - vs))
		return HTTP_EVALUE;
	h->name = (struct http_span){ at, (uint32_t)(colon - p) };
	h->value = (struct http_span){ vs, ve - vs };
	if (is(buf, h->name, "content-length"))
		return content_length(buf + vs, ve - vs, f);
	if (is(buf, h->name, "transfer-encoding")) {
		if ((f->flags & HTTP_F_CHUNKED) || !is(buf, h->value, "chunked"))
			return HTTP_ETE;
		f->flags |= HTTP_F_CHUNKED;
	} else if (is(buf, h->name, "connection")) {
		connection(buf + vs, ve - vs, f);
	} else if (is(buf, h->name, "host")) {
		f->which = HTTP_H_HOST;
	} else if (is(buf, h->name, "upgrade")) {
		f->which = HTTP_H_UPGRADE;
	}
	return HTTP_MORE;
}
