/* SPDX-License-Identifier: ISC */
/*
 * An HTTP/1.1 request stream followed (otonet.h, "follow.c"): where each
 * request's head begins and ends and where its body ends (Content-Length,
 * chunked), however the stream is cut, so that the relay can judge every
 * request's Host on a flow a name allowed, not only the first. The heads
 * are read by lib/http's parser, otogate's, strict where a looser reading
 * could let the relay and the server disagree on where a request ends: a
 * bare LF, a folded line, two Content-Lengths or one beside
 * Transfer-Encoding, a coding other than chunked are errors, and so are
 * CONNECT and Upgrade, after which the bytes are no longer HTTP's. Pure.
 */
#include <string.h>

#include "http.h"
#include "otonet.h"

int http_req_name(const struct http_req *q, const uint8_t *head, char *out)
{
	const uint8_t *v;
	size_t n;

	if (q->host < 0)
		return -1;
	v = head + q->h[q->host].value.off;
	n = q->h[q->host].value.len;
	/* Its port, if any: digits after the last colon (a bracketed IPv6 literal is no name). */
	for (size_t i = n; i-- > 0;) {
		if (v[i] == ':') {
			for (size_t k = i + 1; k < n; k++)
				if (v[k] < '0' || v[k] > '9')
					return -1;
			n = i;
			break;
		}
	}
	return name_text(v, n, out) < 0 ? -1 : 1;
}

void http_follow_head(struct http_follow *s, const struct http_req *q)
{
	s->body = q->body;
	s->in_body = q->body.kind != HTTP_BODY_NONE;
	s->nreq++;
}

int http_follow_held(struct http_req *q, const uint8_t *head, size_t n, int *err)
{
	int e = http_req_parse(q, (const char *)head, n);

	/* The same bound however the head came: in one segment or held across several. */
	if (e == HTTP_MORE && n <= NAMES_HOLD_MAX)
		return FOLLOW_PARTIAL;
	if (e == HTTP_OK && q->head_len <= NAMES_HOLD_MAX)
		return FOLLOW_HEAD;
	*err = e == HTTP_OK || e == HTTP_MORE ? HTTP_EHEAD : e;
	return FOLLOW_ERR;
}

int http_follow(struct http_follow *s, struct http_req *q, const uint8_t *d, size_t n, size_t *pos,
		int *err)
{
	while (*pos < n) {
		size_t used, doff, dlen;
		int e;

		if (!s->in_body) {
			memset(q, 0, sizeof(*q));
			return http_follow_held(q, d + *pos, n - *pos, err);
		}
		e = http_body_feed(&s->body, (const char *)d + *pos, n - *pos, &used, &doff, &dlen);
		*pos += used;
		if (e == HTTP_OK) {
			s->in_body = 0;
		} else if (e != HTTP_MORE) {
			*err = e;
			return FOLLOW_ERR;
		}
	}
	return FOLLOW_DONE;
}
