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

#include "http.h"

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
	r->seen_line = 1;
	return HTTP_MORE;
}

static int header(struct http_req *r, const char *buf, uint32_t at, uint32_t end)
{
	int err;

	if (r->nheaders == HTTP_MAX_HEADERS)
		return HTTP_ECOUNT;
	err = http_header_line(buf, at, end, &r->h[r->nheaders], &r->f);
	if (err != HTTP_MORE)
		return err;
	if (r->f.which == HTTP_H_UPGRADE)
		return HTTP_EUPGRADE;
	if (r->f.which == HTTP_H_HOST) {
		if (r->host >= 0)
			return HTTP_EHOST;
		r->host = (int)r->nheaders;
	}
	r->nheaders++;
	return HTTP_MORE;
}

/* The empty line: what the headers say together. */
static int head_end(struct http_req *r)
{
	unsigned int fl = r->f.flags;

	if ((fl & HTTP_F_CHUNKED) && (fl & HTTP_F_LENGTH))
		return HTTP_ETELENGTH;
	if ((fl & HTTP_F_CHUNKED) && r->minor == 0)
		return HTTP_ETE;
	if (r->minor == 1 && r->host < 0)
		return HTTP_EHOST;
	r->head_len = r->pos;
	if (fl & HTTP_F_CHUNKED) {
		r->body.kind = HTTP_BODY_CHUNKED;
	} else if (r->f.length > 0) {
		r->body.kind = HTTP_BODY_LENGTH;
		r->body.left = r->f.length;
	} else {
		r->body.kind = HTTP_BODY_NONE;
	}
	r->keep_alive =
	    r->minor == 1 ? !(fl & HTTP_F_CLOSE) : (fl & HTTP_F_KEEPALIVE) && !(fl & HTTP_F_CLOSE);
	return HTTP_OK;
}

static int parse(struct http_req *r, const char *buf, size_t len)
{
	for (;;) {
		uint32_t at, end;
		int err = http_head_line(&r->pos, &r->line, buf, len,
					 r->seen_line ? HTTP_ELINE : HTTP_EURILONG, &at, &end);

		if (err != HTTP_OK)
			return err;
		if (end == at) {
			if (!r->seen_line)
				continue; /* an empty line before the request line */
			return head_end(r);
		}
		err = r->seen_line ? header(r, buf, at, end) : request_line(r, buf, at, end);
		if (err != HTTP_MORE)
			return err;
	}
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
