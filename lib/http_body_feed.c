/* SPDX-License-Identifier: ISC */
/*
 * Where a body ends (RFC 9112, 6 and 7.1): after Content-Length bytes, after
 * the chunk of size zero and the trailer section, or (a response's) when the
 * connection closes. The chunked framing
 * is read byte by byte, so it may be cut anywhere between reads; CRLF only,
 * as in the head. Chunk extensions and trailers are checked and passed over
 * (never interpreted). Each line counts its CRLF against its limit, as in
 * the head. Pure.
 */
#include "http.h"

enum {
	S_SIZE0,   /* the first hex digit of a size */
	S_SIZE,	   /* more hex digits, or the end of the size */
	S_EXT,	   /* a chunk extension, up to the CR */
	S_SIZE_LF, /* the LF after the size line */
	S_DATA,	   /* left bytes of data */
	S_DATA_CR, /* the CRLF after the data */
	S_DATA_LF,
	S_TRAILER,  /* the start of a trailer line, or the final CRLF */
	S_TR_NAME,  /* a trailer's name, up to ':' */
	S_TR_VALUE, /* its value, up to the CR */
	S_TR_LF,    /* the LF after a trailer line */
	S_END_LF,   /* the LF of the final empty line */
	S_DONE,
};

/* One byte of framing (not data): the next state, or an error as -(err). */
static int frame(struct http_body *b, unsigned char c)
{
	int h;

	/* b->line counts a size line's bytes with its CR (the LF makes it whole), a
	 * trailer line's without CR and LF. */
	switch (b->state) {
	case S_SIZE0:
	case S_SIZE:
		if (++b->line > HTTP_MAX_CHUNK_LINE - 1)
			return -HTTP_ECHUNKSIZE;
		h = http_hex(c);
		if (h >= 0) {
			if (b->left >> 56)
				return -HTTP_ECHUNKSIZE; /* a size of 2^60 or more */
			b->left = b->left << 4 | (uint64_t)h;
			return S_SIZE;
		}
		if (b->state == S_SIZE0)
			return -HTTP_ECHUNK;
		if (c == '\r')
			return S_SIZE_LF;
		if (c == ';' || c == ' ' || c == '\t')
			return S_EXT;
		return -HTTP_ECHUNK;
	case S_EXT:
		if (++b->line > HTTP_MAX_CHUNK_LINE - 1)
			return -HTTP_ECHUNKSIZE;
		if (c == '\r')
			return S_SIZE_LF;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -HTTP_ECHUNK;
		return S_EXT;
	case S_SIZE_LF:
		if (c != '\n')
			return -HTTP_ECHUNK;
		b->line = 0;
		return b->left ? S_DATA : S_TRAILER;
	case S_DATA_CR:
		return c == '\r' ? S_DATA_LF : -HTTP_ECHUNK;
	case S_DATA_LF:
		return c == '\n' ? S_SIZE0 : -HTTP_ECHUNK;
	case S_TRAILER:
		if (c == '\r')
			return S_END_LF;
		if (b->trailers == HTTP_MAX_HEADERS || !http_tchar(c))
			return -HTTP_ETRAILER;
		b->trailers++;
		b->line = 1;
		return S_TR_NAME;
	case S_TR_NAME:
		if (++b->line > HTTP_MAX_LINE - 2)
			return -HTTP_ETRAILER;
		if (c == ':')
			return S_TR_VALUE;
		return http_tchar(c) ? S_TR_NAME : -HTTP_ETRAILER;
	case S_TR_VALUE:
		if (c == '\r')
			return S_TR_LF;
		if (++b->line > HTTP_MAX_LINE - 2 || (c < 0x20 && c != '\t') || c == 0x7f)
			return -HTTP_ETRAILER;
		return S_TR_VALUE;
	case S_TR_LF:
		return c == '\n' ? S_TRAILER : -HTTP_ETRAILER;
	case S_END_LF:
		return c == '\n' ? S_DONE : -HTTP_ECHUNK;
	default:
		return -HTTP_ECHUNK;
	}
}

static int chunked(struct http_body *b, const char *buf, size_t len, size_t *used, size_t *doff,
		   size_t *dlen)
{
	size_t i = 0;

	while (i < len) {
		int s;

		if (b->state == S_DATA) {
			size_t n = len - i < b->left ? len - i : (size_t)b->left;

			*doff = i;
			*dlen = n;
			b->left -= n;
			b->data += n;
			if (!b->left)
				b->state = S_DATA_CR;
			*used = i + n;
			return HTTP_MORE;
		}
		s = frame(b, (unsigned char)buf[i++]);
		if (s < 0) {
			*used = i;
			return -s;
		}
		b->state = s;
		if (s == S_DONE) {
			*used = i;
			return HTTP_OK;
		}
	}
	*used = i;
	return HTTP_MORE;
}

int http_body_feed(struct http_body *b, const char *buf, size_t len, size_t *used, size_t *doff,
		   size_t *dlen)
{
	int err;

	*used = *doff = *dlen = 0;
	if (b->err)
		return b->err;
	switch (b->kind) {
	case HTTP_BODY_NONE:
		return HTTP_OK;
	case HTTP_BODY_LENGTH:
		if (!b->left)
			return HTTP_OK;
		*dlen = *used = len < b->left ? len : (size_t)b->left;
		b->left -= *used;
		b->data += *used;
		return b->left ? HTTP_MORE : HTTP_OK;
	case HTTP_BODY_CLOSE:
		*dlen = *used = len;
		b->data += len;
		return HTTP_MORE;
	case HTTP_BODY_CHUNKED:
		if (b->state == S_DONE)
			return HTTP_OK;
		err = chunked(b, buf, len, used, doff, dlen);
		if (err != HTTP_OK && err != HTTP_MORE)
			b->err = err;
		return err;
	default:
		b->err = HTTP_ECHUNK;
		return HTTP_ECHUNK;
	}
}
