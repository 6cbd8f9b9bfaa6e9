/* SPDX-License-Identifier: ISC */
/*
 * A response's head (RFC 9112, 4 to 6), read line by line as it arrives, with
 * the header lines and their limits of a request's. What the gateway needs
 * of it is the framing: where this response ends, so that the body can be
 * decoded (chunked) before the real value is looked for in it, and the next
 * response of the connection found. Ambiguous framing (Transfer-Encoding
 * beside Content-Length, two lengths) is refused, as in a request. Pure.
 */
#include <string.h>

#include "http.h"

/* HTTP-version SP 3DIGIT [SP reason-phrase]: a missing reason is tolerated. */
static int status_line(struct http_resp *r, const char *buf, uint32_t at, uint32_t end)
{
	const char *p = buf + at;
	uint32_t n = end - at;

	if (n < 5 || memcmp(p, "HTTP/", 5))
		return HTTP_ESTATUS;
	if (n < 9 || memcmp(p, "HTTP/1.", 7) || (p[7] != '0' && p[7] != '1') || p[8] != ' ')
		return HTTP_EVERSION;
	if (n < 12 || p[9] < '1' || p[9] > '5' || p[10] < '0' || p[10] > '9' || p[11] < '0' ||
	    p[11] > '9' || (n > 12 && p[12] != ' '))
		return HTTP_ESTATUS;
	for (uint32_t i = 13; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return HTTP_ESTATUS;
	}
	r->minor = p[7] - '0';
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	r->reason = (struct http_span){ n > 13 ? at + 13 : end, n > 13 ? n - 13 : 0 };
	r->seen_line = 1;
	return r->status == 101 ? HTTP_EUPGRADE : HTTP_MORE;
}

static int head_end(struct http_resp *r, int head)
{
	unsigned int fl = r->f.flags;

	if ((fl & HTTP_F_CHUNKED) && (fl & HTTP_F_LENGTH))
		return HTTP_ETELENGTH;
	if ((fl & HTTP_F_CHUNKED) && r->minor == 0)
		return HTTP_ETE;
	r->head_len = r->pos;
	r->keep_alive =
	    r->minor == 1 ? !(fl & HTTP_F_CLOSE) : (fl & HTTP_F_KEEPALIVE) && !(fl & HTTP_F_CLOSE);
	if (head || r->status < 200 || r->status == 204 || r->status == 304) {
		r->body.kind = HTTP_BODY_NONE;
	} else if (fl & HTTP_F_CHUNKED) {
		r->body.kind = HTTP_BODY_CHUNKED;
	} else if (fl & HTTP_F_LENGTH) {
		r->body.kind = r->f.length ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		r->body.left = r->f.length;
	} else {
		r->body.kind = HTTP_BODY_CLOSE;
		r->keep_alive = 0;
	}
	return HTTP_OK;
}

static int parse(struct http_resp *r, const char *buf, size_t len, int head)
{
	for (;;) {
		uint32_t at, end;
		int err = http_head_line(&r->pos, &r->line, buf, len, HTTP_ELINE, &at, &end);

		if (err != HTTP_OK)
			return err;
		if (!r->seen_line) {
			err = status_line(r, buf, at, end);
		} else if (end == at) {
			return head_end(r, head);
		} else if (r->nheaders == HTTP_MAX_HEADERS) {
			return HTTP_ECOUNT;
		} else {
			err = http_header_line(buf, at, end, &r->h[r->nheaders], &r->f);
			r->nheaders += err == HTTP_MORE;
		}
		if (err != HTTP_MORE)
			return err;
	}
}

int http_resp_parse(struct http_resp *r, const char *buf, size_t len, int head)
{
	int err;

	if (r->done)
		return r->err;
	err = parse(r, buf, len, head);
	if (err != HTTP_MORE) {
		r->done = 1;
		r->err = err;
	}
	return err;
}
