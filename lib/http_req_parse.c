/* SPDX-License-Identifier: ISC */
/*
 * A request's head (RFC 9112, 2 to 6), read line by line as it arrives. Strict
 * on purpose: the gateway forwards what it parsed to an upstream that parses
 * it again, and a request the two could frame differently (a bare LF, a
 * folded line, Content-Length twice or beside Transfer-Encoding, a transfer
 * coding other than chunked) is refused rather than guessed at: otherwise
 * what the gateway took for a header, where it put the real value, could be
 * body to the upstream, or the reverse. Pure.
 */
#include <string.h>
#include <strings.h>

#include "http.h"

enum {
	F_LINE = 1,	  /* the request line was read */
	F_LENGTH = 2,	  /* Content-Length */
	F_CHUNKED = 4,	  /* Transfer-Encoding: chunked */
	F_CLOSE = 8,	  /* Connection: close */
	F_KEEPALIVE = 16, /* Connection: keep-alive */
};

static int is(const char *buf, struct http_span s, const char *lower)
{
	size_t n = strlen(lower);

	return s.len == n && !strncasecmp(buf + s.off, lower, n);
}

static int request_line(struct http_req *r, const char *buf, uint32_t at, uint32_t end)
{
	const char *p = buf + at, *sp1, *sp2;
	uint32_t n = end - at;

	sp1 = memchr(p, ' ', n);
	if (!sp1 || sp1 == p)
		return HTTP_EREQLINE;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(p + n - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1 || memchr(sp2 + 1, ' ', (size_t)(p + n - sp2 - 1)))
		return HTTP_EREQLINE;
	r->method = (struct http_span){ at, (uint32_t)(sp1 - p) };
	r->target = (struct http_span){ (uint32_t)(sp1 + 1 - buf), (uint32_t)(sp2 - sp1 - 1) };
	for (uint32_t i = 0; i < r->method.len; i++)
		if (!http_tchar((unsigned char)p[i]))
			return HTTP_EMETHOD;
	/* Case-sensitive (RFC 9110, 9.1): "connect" is another method, refused upstream. */
	if (r->method.len == 7 && !memcmp(p, "CONNECT", 7))
		return HTTP_ECONNECT;
	if (sp1[1] != '/')
		return HTTP_ETARGET;
	for (const char *t = sp1 + 1; t < sp2; t++)
		if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
			return HTTP_ETARGET;
	if (p + n - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return HTTP_EVERSION;
	r->minor = sp2[8] - '0';
	r->host = -1;
	r->flags |= F_LINE;
	return HTTP_MORE;
}

/* Content-Length: one decimal number (no sign, no list), below 10^18. */
static int content_length(struct http_req *r, const char *v, uint32_t n)
{
	uint64_t x = 0;

	if ((r->flags & F_LENGTH) || n == 0 || n > 18)
		return HTTP_ELENGTH;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return HTTP_ELENGTH;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	r->body.left = x;
	r->flags |= F_LENGTH;
	return HTTP_MORE;
}

/* Connection: a list of tokens; close and keep-alive matter here. */
static void connection(struct http_req *r, const char *v, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == 5 && !strncasecmp(v + s, "close", 5))
			r->flags |= F_CLOSE;
		if (e - s == 10 && !strncasecmp(v + s, "keep-alive", 10))
			r->flags |= F_KEEPALIVE;
	}
}

static int header_line(struct http_req *r, const char *buf, uint32_t at, uint32_t end)
{
	const char *p = buf + at, *colon;
	struct http_header *h;
	uint32_t vs, ve;

	if (*p == ' ' || *p == '\t')
		return HTTP_EFOLD;
	if (r->nheaders == HTTP_MAX_HEADERS)
		return HTTP_ECOUNT;
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
	h = &r->h[r->nheaders];
	h->name = (struct http_span){ at, (uint32_t)(colon - p) };
	h->value = (struct http_span){ vs, ve - vs };
	if (is(buf, h->name, "content-length")) {
		int err = content_length(r, buf + vs, ve - vs);

		if (err != HTTP_MORE)
			return err;
	} else if (is(buf, h->name, "transfer-encoding")) {
		if ((r->flags & F_CHUNKED) || !is(buf, h->value, "chunked"))
			return HTTP_ETE;
		r->flags |= F_CHUNKED;
	} else if (is(buf, h->name, "host")) {
		if (r->host >= 0)
			return HTTP_EHOST;
		r->host = (int)r->nheaders;
	} else if (is(buf, h->name, "upgrade")) {
		return HTTP_EUPGRADE;
	} else if (is(buf, h->name, "connection")) {
		connection(r, buf + vs, ve - vs);
	}
	r->nheaders++;
	return HTTP_MORE;
}

/* The empty line: what the headers say together. */
static int head_end(struct http_req *r, uint32_t end)
{
	if ((r->flags & F_CHUNKED) && (r->flags & F_LENGTH))
		return HTTP_ETELENGTH;
	if ((r->flags & F_CHUNKED) && r->minor == 0)
		return HTTP_ETE;
	if (r->minor == 1 && r->host < 0)
		return HTTP_EHOST;
	r->head_len = end;
	if (r->flags & F_CHUNKED)
		r->body.kind = HTTP_BODY_CHUNKED;
	else if (r->body.left > 0)
		r->body.kind = HTTP_BODY_LENGTH;
	else
		r->body.kind = HTTP_BODY_NONE;
	r->keep_alive = r->minor == 1 ? !(r->flags & F_CLOSE)
				      : (r->flags & F_KEEPALIVE) && !(r->flags & F_CLOSE);
	return HTTP_OK;
}

static int parse(struct http_req *r, const char *buf, size_t len)
{
	while (r->pos < len) {
		size_t lim = len, at = r->line;
		const char *nl;
		uint32_t end;
		int err;

		if (lim > at + HTTP_MAX_LINE)
			lim = at + HTTP_MAX_LINE;
		if (lim > HTTP_MAX_HEAD)
			lim = HTTP_MAX_HEAD;
		nl = memchr(buf + r->pos, '\n', lim - r->pos);
		if (!nl) {
			r->pos = (uint32_t)lim;
			if (lim == len)
				return HTTP_MORE;
			if (lim == HTTP_MAX_HEAD)
				return HTTP_EHEAD;
			return r->flags & F_LINE ? HTTP_ELINE : HTTP_EURILONG;
		}
		r->pos = (uint32_t)(nl + 1 - buf);
		r->line = r->pos;
		/* The line is buf[at, end), its CRLF after it. */
		if (nl == buf + at || nl[-1] != '\r')
			return HTTP_ECRLF;
		end = (uint32_t)(nl - 1 - buf);
		if (memchr(buf + at, '\r', end - at))
			return HTTP_ECRLF;
		if (end == at) {
			if (!(r->flags & F_LINE))
				continue; /* an empty line before the request line */
			return head_end(r, r->pos);
		}
		err = r->flags & F_LINE ? header_line(r, buf, (uint32_t)at, end)
					: request_line(r, buf, (uint32_t)at, end);
		if (err != HTTP_MORE)
			return err;
	}
	return HTTP_MORE;
}

int http_req_parse(struct http_req *r, const char *buf, size_t len)
{
	int err;

	if (r->done)
		return r->err;
	err = parse(r, buf, len);
	if (err != HTTP_MORE) {
		r->done = 1;
		r->err = err;
	}
	return err;
}
