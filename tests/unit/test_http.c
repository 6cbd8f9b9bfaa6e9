// UNIT: lib/http_req_parse.c lib/http_body_feed.c lib/http_head_rewrite.c lib/http_value_ok.c lib/http_list_has.c
// UNIT: lib/http_repl_init.c lib/http_repl_scan.c lib/http_strerror.c
// UNIT: lib/http_status.c lib/http_head_line.c lib/http_header_line.c lib/http_resp_parse.c
/*
 * Unit tests of otogate's HTTP/1.1 code (lib/http_*.c): the request head
 * parser fed whole and in every split, its refusals one by one, the body's
 * framing, the phantom's replacement in the grant's headers only (Basic
 * included, identity asked for), the response head and its framing, and the
 * streaming scrubber, every form of the value, at every boundary of a
 * response.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "http.h"

static struct http_req R, R2;

/* Parse s whole into R. */
static int parse(const char *s)
{
	memset(&R, 0, sizeof(R));
	return http_req_parse(&R, s, strlen(s));
}

static int span_is(const char *buf, struct http_span sp, const char *want)
{
	return sp.len == strlen(want) && !memcmp(buf + sp.off, want, sp.len);
}

static const char GET[] = "GET /v1/models?key=oto-phantom-x HTTP/1.1\r\n"
			  "Host: 10.0.2.4:8001\r\n"
			  "x-api-key: oto-phantom-x\r\n"
			  "Accept:*/*   \r\n"
			  "\r\n";

static void test_req_parses_a_head(void **state)
{
	(void)state;
	assert_int_equal(parse(GET), HTTP_OK);
	assert_int_equal(R.head_len, strlen(GET));
	assert_true(span_is(GET, R.method, "GET"));
	assert_true(span_is(GET, R.target, "/v1/models?key=oto-phantom-x"));
	assert_int_equal(R.minor, 1);
	assert_int_equal(R.nheaders, 3);
	assert_int_equal(R.host, 0);
	assert_true(span_is(GET, R.h[0].name, "Host"));
	assert_true(span_is(GET, R.h[0].value, "10.0.2.4:8001"));
	assert_true(span_is(GET, R.h[1].name, "x-api-key"));
	assert_true(span_is(GET, R.h[1].value, "oto-phantom-x"));
	/* No white space around a value, none needed after the colon. */
	assert_true(span_is(GET, R.h[2].value, "*/*"));
	assert_int_equal(R.body.kind, HTTP_BODY_NONE);
	assert_int_equal(R.keep_alive, 1);
	/* Done is done: the same answer again, whatever follows. */
	assert_int_equal(http_req_parse(&R, GET, strlen(GET)), HTTP_OK);
}

/* The same head, whatever the reads: byte by byte, and in two at every point. */
static void test_req_every_split(void **state)
{
	static const char *const heads[] = {
		GET,
		"POST /v1/messages HTTP/1.1\r\nHost: h\r\nContent-Length: 12\r\n"
		"Connection: close\r\n\r\nbody follows",
		"\r\n\r\nPUT /x HTTP/1.0\r\nTransfer-Encoding-X: y\r\nE:\r\n\r\n",
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(heads); k++) {
		const char *s = heads[k];
		size_t n = strlen(s);

		assert_int_equal(parse(s), HTTP_OK);
		memcpy(&R2, &R, sizeof(R));
		/* Byte by byte: HTTP_MORE until the empty line's LF, then the same result. */
		memset(&R, 0, sizeof(R));
		for (size_t len = 0; len < R2.head_len; len++)
			assert_int_equal(http_req_parse(&R, s, len), HTTP_MORE);
		assert_int_equal(http_req_parse(&R, s, R2.head_len), HTTP_OK);
		assert_memory_equal(&R, &R2, sizeof(R));
		/* Two reads, cut at every point, the second with all of s. */
		for (size_t cut = 0; cut <= n; cut++) {
			memset(&R, 0, sizeof(R));
			assert_int_equal(http_req_parse(&R, s, cut),
					 cut >= R2.head_len ? HTTP_OK : HTTP_MORE);
			assert_int_equal(http_req_parse(&R, s, n), HTTP_OK);
			assert_int_equal(R.head_len, R2.head_len);
			assert_int_equal(R.nheaders, R2.nheaders);
			assert_memory_equal(R.h, R2.h, sizeof(R.h));
		}
	}
}

static void test_req_details(void **state)
{
	(void)state;
	/* Empty lines before the request line are passed over. */
	assert_int_equal(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.method.off, 4);
	/* HTTP/1.0: no Host needed, not kept alive unless asked. */
	assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.minor, 0);
	assert_int_equal(R.host, -1);
	assert_int_equal(R.keep_alive, 0);
	assert_int_equal(parse("GET / HTTP/1.0\r\nConnection: foo, Keep-Alive\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.keep_alive, 1);
	assert_int_equal(parse("GET / HTTP/1.0\r\nConnection: keep-alive,close\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.keep_alive, 0);
	assert_int_equal(
	    parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive , CLOSE\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.keep_alive, 0);
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: closed\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.keep_alive, 1);
	/* The body's framing. */
	assert_int_equal(parse("POST / HTTP/1.1\r\nHost: a\r\ncontent-length: 000123\r\n\r\n"),
			 HTTP_OK);
	assert_int_equal(R.body.kind, HTTP_BODY_LENGTH);
	assert_int_equal(R.body.left, 123);
	assert_int_equal(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"), HTTP_OK);
	assert_int_equal(R.body.kind, HTTP_BODY_NONE);
	assert_int_equal(
	    parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999999999\r\n\r\n"),
	    HTTP_OK);
	assert_int_equal(R.body.left, 999999999999999999ULL);
	assert_int_equal(
	    parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:  Chunked \r\n\r\n"), HTTP_OK);
	assert_int_equal(R.body.kind, HTTP_BODY_CHUNKED);
	/* Methods are tokens of any case; only CONNECT itself is refused. */
	assert_int_equal(parse("connect /x HTTP/1.1\r\nHost: a\r\n\r\n"), HTTP_OK);
	assert_int_equal(parse("M-SEARCH /x HTTP/1.1\r\nHost: a\r\n\r\n"), HTTP_OK);
}

struct bad {
	const char *req;
	int err;
};

/* Each refusal, with the smallest request that earns it. */
static void test_req_refusals(void **state)
{
	static const struct bad bad[] = {
		{ "GET / HTTP/1.1\nHost: a\r\n\r\n", HTTP_ECRLF },
		{ "GET / HTTP/1.1\r\nHost: a\n\r\n", HTTP_ECRLF },
		{ "GET / HTTP/1.1\r\nHost: a\r\n\n", HTTP_ECRLF },
		{ "\n", HTTP_ECRLF },
		{ "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", HTTP_ECRLF },
		{ "GET /\r HTTP/1.1\r\n", HTTP_ECRLF },
		{ "GET  / HTTP/1.1\r\n", HTTP_EREQLINE },
		{ "GET / HTTP/1.1 \r\n", HTTP_EREQLINE },
		{ "GET /a b HTTP/1.1\r\n", HTTP_EREQLINE },
		{ " GET / HTTP/1.1\r\n", HTTP_EREQLINE },
		{ "GET\r\n", HTTP_EREQLINE },
		{ "GET /\r\n", HTTP_EREQLINE },
		{ "G(T / HTTP/1.1\r\n", HTTP_EMETHOD },
		{ "G\x80T / HTTP/1.1\r\n", HTTP_EMETHOD },
		{ "CONNECT host:443 HTTP/1.1\r\n", HTTP_ECONNECT },
		{ "CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_ECONNECT },
		{ "GET http://a/ HTTP/1.1\r\n", HTTP_ETARGET },
		{ "OPTIONS * HTTP/1.1\r\n", HTTP_ETARGET },
		{ "GET /\x7f HTTP/1.1\r\n", HTTP_ETARGET },
		{ "GET /\x80 HTTP/1.1\r\n", HTTP_ETARGET },
		{ "GET /\t HTTP/1.1\r\n", HTTP_ETARGET },
		{ "GET / HTTP/2.0\r\n", HTTP_EVERSION },
		{ "GET / HTTP/1.2\r\n", HTTP_EVERSION },
		{ "GET / HTTP/1.10\r\n", HTTP_EVERSION },
		{ "GET / http/1.1\r\n", HTTP_EVERSION },
		{ "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", HTTP_EFOLD },
		{ "GET / HTTP/1.1\r\n\tHost: a\r\n\r\n", HTTP_EFOLD },
		{ "GET / HTTP/1.1\r\nHost : a\r\n\r\n", HTTP_ENAME },
		{ "GET / HTTP/1.1\r\n: a\r\n\r\n", HTTP_ENAME },
		{ "GET / HTTP/1.1\r\nNo-Colon\r\n\r\n", HTTP_ENAME },
		{ "GET / HTTP/1.1\r\nX\x01Y: a\r\n\r\n", HTTP_ENAME },
		{ "GET / HTTP/1.1\r\nX(: a\r\n\r\n", HTTP_ENAME },
		{ "GET / HTTP/1.1\r\nX: a\x01"
		  "b\r\n\r\n",
		  HTTP_EVALUE },
		{ "GET / HTTP/1.1\r\nX: a\x7f\r\n\r\n", HTTP_EVALUE },
		{ "GET / HTTP/1.1\r\n\r\n", HTTP_EHOST },
		{ "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", HTTP_EHOST },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n", HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n", HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		  HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000000\r\n\r\n",
		  HTTP_ELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		  HTTP_ETE },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", HTTP_ETE },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n",
		  HTTP_ETE },
		{ "GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", HTTP_ETE },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: "
		  "3\r\n\r\n",
		  HTTP_ETELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: "
		  "chunked\r\n\r\n",
		  HTTP_ETELENGTH },
		{ "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		  HTTP_EUPGRADE },
		{ "GET / HTTP/1.1\r\nHost: a\r\nupgrade: h2c\r\n\r\n", HTTP_EUPGRADE },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = parse(bad[i].req);

		if (err != bad[i].err)
			fail_msg("request %zu: %s (%d), want %s (%d)", i, http_strerror(err), err,
				 http_strerror(bad[i].err), bad[i].err);
		/* Sticky: more bytes change nothing. */
		assert_int_equal(http_req_parse(&R, "GET / HTTP/1.1\r\n\r\n", 18), bad[i].err);
	}
}

/* Build "GET / HTTP/1.1\r\nHost: a\r\n" then headers so that a line or the head has a size. */
static char *big(size_t *len, size_t line, size_t nlines, size_t last)
{
	char *s = malloc(HTTP_MAX_HEAD * 3), *p = s;

	p += sprintf(p, "GET / HTTP/1.1\r\nHost: a\r\n");
	for (size_t i = 0; i < nlines; i++) {
		size_t l = i + 1 == nlines && last ? last : line;

		/* "X: " value CRLF, l bytes in all. */
		memcpy(p, "X: ", 3);
		memset(p + 3, 'v', l - 5);
		memcpy(p + l - 2, "\r\n", 2);
		p += l;
	}
	memcpy(p, "\r\n", 2);
	*len = (size_t)(p + 2 - s);
	return s;
}

static void test_req_limits(void **state)
{
	char *s, line[HTTP_MAX_LINE + 2];
	size_t len;

	(void)state;
	/* A request line of HTTP_MAX_LINE bytes with its CRLF; one more is too long. */
	for (int extra = 0; extra <= 1; extra++) {
		size_t n = HTTP_MAX_LINE + (size_t)extra;

		memcpy(line, "GET /", 5);
		memset(line + 5, 'a', n - 5 - 11);
		memcpy(line + n - 11, " HTTP/1.1\r\n", 11);
		memset(&R, 0, sizeof(R));
		assert_int_equal(http_req_parse(&R, line, n), extra ? HTTP_EURILONG : HTTP_MORE);
	}
	/* A header line of HTTP_MAX_LINE bytes, and one more. */
	s = big(&len, HTTP_MAX_LINE, 1, 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_OK);
	free(s);
	s = big(&len, HTTP_MAX_LINE + 1, 1, 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_ELINE);
	free(s);
	/* HTTP_MAX_HEADERS headers (Host and 99), and one more. */
	s = big(&len, 8, HTTP_MAX_HEADERS - 1, 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_OK);
	assert_int_equal(R.nheaders, HTTP_MAX_HEADERS);
	free(s);
	s = big(&len, 8, HTTP_MAX_HEADERS, 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_ECOUNT);
	free(s);
	/* A head of exactly HTTP_MAX_HEAD bytes, and one more: 25 bytes of request line and
	 * Host, 8 lines of 8000, one of 1509 or 1510, the final 2. */
	s = big(&len, 8000, 9, HTTP_MAX_HEAD - 25 - 8 * 8000 - 2);
	assert_int_equal(len, HTTP_MAX_HEAD);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_OK);
	free(s);
	s = big(&len, 8000, 9, HTTP_MAX_HEAD - 25 - 8 * 8000 - 1);
	assert_int_equal(len, HTTP_MAX_HEAD + 1);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, s, len), HTTP_EHEAD);
	free(s);
}

static void test_errors_have_messages_and_statuses(void **state)
{
	(void)state;
	for (int e = HTTP_EREQLINE; e < HTTP_ERR_COUNT_; e++) {
		assert_string_not_equal(http_strerror(e), "unknown HTTP error");
		assert_true(http_status(e) >= 400 && http_status(e) <= 505);
	}
	assert_string_equal(http_strerror(HTTP_ECONNECT), "CONNECT refused");
	assert_string_equal(http_strerror(HTTP_ERR_COUNT_), "unknown HTTP error");
	assert_string_equal(http_strerror(-1), "unknown HTTP error");
	assert_int_equal(http_status(HTTP_OK), 0);
	assert_int_equal(http_status(HTTP_MORE), 0);
	assert_int_equal(http_status(HTTP_EURILONG), 414);
	assert_int_equal(http_status(HTTP_ELINE), 431);
	assert_int_equal(http_status(HTTP_EHEAD), 431);
	assert_int_equal(http_status(HTTP_ECOUNT), 431);
	assert_int_equal(http_status(HTTP_EVERSION), 505);
	assert_int_equal(http_status(HTTP_ETE), 501);
	assert_int_equal(http_status(HTTP_ECONNECT), 501);
	assert_int_equal(http_status(HTTP_EUPGRADE), 426);
	assert_int_equal(http_status(HTTP_ETELENGTH), 400);
	assert_int_equal(http_status(HTTP_EHOST), 400);
}

/* ---- bodies ---- */

/*
 * Feed a body in pieces of at most step bytes (0: cut at cut, then the rest):
 * the data gathered into data, the bytes used returned, the result in *res.
 */
static size_t feed_body(struct http_body *b, const char *s, size_t n, size_t step, size_t cut,
			char *data, size_t *dn, int *res)
{
	size_t pos = 0, end = step ? 0 : cut;

	*dn = 0;
	*res = HTTP_MORE;
	while (*res == HTTP_MORE) {
		size_t used, doff, dlen;

		/* What has "arrived": up to end; when all of it was used, more arrives. */
		if (pos == end) {
			if (end == n)
				break;
			end = step ? (end + step < n ? end + step : n) : n;
		}
		*res = http_body_feed(b, s + pos, end - pos, &used, &doff, &dlen);
		assert_true(used <= end - pos);
		assert_true(doff + dlen <= used);
		memcpy(data + *dn, s + pos + doff, dlen);
		*dn += dlen;
		pos += used;
	}
	return pos;
}

static const char CHUNKED[] = "5\r\nhello\r\n"
			      "6;name=\"v\" ; x\r\n world\r\n"
			      "00000000000000010\r\n0123456789abcdef\r\n"
			      "0\r\n"
			      "Trailer-One: x\r\n"
			      "T2:\r\n"
			      "\r\n"
			      "GET / HTTP/1.1\r\n";

static void test_body_chunked_every_split(void **state)
{
	size_t n = strlen(CHUNKED), end = n - 16, dn, used;
	char data[256];
	int res;

	(void)state;
	for (size_t step = 1; step <= n; step++) {
		struct http_body b = { .kind = HTTP_BODY_CHUNKED };

		used = feed_body(&b, CHUNKED, n, step, 0, data, &dn, &res);
		assert_int_equal(res, HTTP_OK);
		assert_int_equal(used, end);
		assert_int_equal(dn, 27);
		assert_memory_equal(data, "hello world0123456789abcdef", 27);
		assert_int_equal(b.data, 27);
		/* Done is done. */
		assert_int_equal(http_body_feed(&b, "x", 1, &used, &dn, &dn), HTTP_OK);
		assert_int_equal(used, 0);
	}
	for (size_t cut = 0; cut <= n; cut++) {
		struct http_body b = { .kind = HTTP_BODY_CHUNKED };

		used = feed_body(&b, CHUNKED, n, 0, cut, data, &dn, &res);
		assert_int_equal(res, HTTP_OK);
		assert_int_equal(used, end);
		assert_memory_equal(data, "hello world0123456789abcdef", 27);
	}
}

static void test_body_length(void **state)
{
	struct http_body b = { .kind = HTTP_BODY_LENGTH, .left = 10 };
	size_t used, doff, dlen;

	(void)state;
	assert_int_equal(http_body_feed(&b, "0123", 4, &used, &doff, &dlen), HTTP_MORE);
	assert_int_equal(used, 4);
	assert_int_equal(doff, 0);
	assert_int_equal(dlen, 4);
	assert_int_equal(http_body_feed(&b, "456789GET /", 11, &used, &doff, &dlen), HTTP_OK);
	assert_int_equal(used, 6);
	assert_int_equal(dlen, 6);
	assert_int_equal(b.data, 10);
	assert_int_equal(http_body_feed(&b, "GET /", 5, &used, &doff, &dlen), HTTP_OK);
	assert_int_equal(used, 0);
	/* No body: nothing of what follows is used. */
	b = (struct http_body){ .kind = HTTP_BODY_NONE };
	assert_int_equal(http_body_feed(&b, "GET /", 5, &used, &doff, &dlen), HTTP_OK);
	assert_int_equal(used, 0);
	assert_int_equal(dlen, 0);
}

static void test_body_chunked_refusals(void **state)
{
	static const struct bad bad[] = {
		{ "5\nhello\r\n0\r\n\r\n", HTTP_ECHUNK },
		{ "5\r\nhelloX\r\n0\r\n\r\n", HTTP_ECHUNK },
		{ "5\r\nhello\r\r\n", HTTP_ECHUNK },
		{ "x\r\n", HTTP_ECHUNK },
		{ "\r\n", HTTP_ECHUNK },
		{ ";x\r\n", HTTP_ECHUNK },
		{ "-5\r\n", HTTP_ECHUNK },
		{ "5x\r\n", HTTP_ECHUNK },
		{ "5;a\x01\r\n", HTTP_ECHUNK },
		{ "5;a\nb\r\n", HTTP_ECHUNK },
		{ "0\r\n\r\r", HTTP_ECHUNK },
		{ "1000000000000000\r\n", HTTP_ECHUNKSIZE },
		{ "0\r\n x: y\r\n\r\n", HTTP_ETRAILER },
		{ "0\r\nx y: z\r\n\r\n", HTTP_ETRAILER },
		{ "0\r\nx: y\n\r\n", HTTP_ETRAILER },
		{ "0\r\nx: \x01\r\n\r\n", HTTP_ETRAILER },
		{ "0\r\nnocolon\r\n\r\n", HTTP_ETRAILER },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct http_body b = { .kind = HTTP_BODY_CHUNKED };
		char data[64];
		size_t dn;
		int res;

		feed_body(&b, bad[i].req, strlen(bad[i].req), 1, 0, data, &dn, &res);
		if (res != bad[i].err)
			fail_msg("body %zu: %s (%d), want %s (%d)", i, http_strerror(res), res,
				 http_strerror(bad[i].err), bad[i].err);
		assert_int_equal(http_body_feed(&b, "0\r\n\r\n", 5, &dn, &dn, &dn), bad[i].err);
	}
}

static void test_body_chunked_limits(void **state)
{
	static char s[HTTP_MAX_HEADERS * 8 + HTTP_MAX_LINE + 64];
	size_t used, doff, dlen, n;
	struct http_body b;

	(void)state;
	/* The largest size: 2^60 - 1; leading zeros count against the line only. */
	b = (struct http_body){ .kind = HTTP_BODY_CHUNKED };
	assert_int_equal(http_body_feed(&b, "0FFFFFFFFFFFFFFF\r\nab", 20, &used, &doff, &dlen),
			 HTTP_MORE);
	assert_int_equal(b.left, (1ULL << 60) - 1 - 2);
	assert_int_equal(dlen, 2);
	/* A size line of HTTP_MAX_CHUNK_LINE bytes with its CRLF, and one more. */
	for (int extra = 0; extra <= 1; extra++) {
		n = HTTP_MAX_CHUNK_LINE + (size_t)extra;
		memset(s, 'e', n - 2);
		memcpy(s, "0;", 2);
		memcpy(s + n - 2, "\r\n\r\n", 4);
		b = (struct http_body){ .kind = HTTP_BODY_CHUNKED };
		assert_int_equal(http_body_feed(&b, s, n + 2, &used, &doff, &dlen),
				 extra ? HTTP_ECHUNKSIZE : HTTP_OK);
		/* The same with digits only: leading zeros. */
		memset(s, '0', n - 2);
		b = (struct http_body){ .kind = HTTP_BODY_CHUNKED };
		assert_int_equal(http_body_feed(&b, s, n + 2, &used, &doff, &dlen),
				 extra ? HTTP_ECHUNKSIZE : HTTP_OK);
	}
	/* HTTP_MAX_HEADERS trailer lines, and one more. */
	for (int extra = 0; extra <= 1; extra++) {
		char *p = s + sprintf(s, "0\r\n");

		for (int i = 0; i < HTTP_MAX_HEADERS + extra; i++)
			p += sprintf(p, "T: v\r\n");
		p += sprintf(p, "\r\n");
		b = (struct http_body){ .kind = HTTP_BODY_CHUNKED };
		assert_int_equal(http_body_feed(&b, s, (size_t)(p - s), &used, &doff, &dlen),
				 extra ? HTTP_ETRAILER : HTTP_OK);
	}
	/* A trailer line of HTTP_MAX_LINE bytes with its CRLF, and one more. */
	for (int extra = 0; extra <= 1; extra++) {
		n = HTTP_MAX_LINE + (size_t)extra;
		memcpy(s, "0\r\nT:", 5);
		memset(s + 5, 'v', n - 4);
		memcpy(s + 3 + n - 2, "\r\n\r\n", 4);
		b = (struct http_body){ .kind = HTTP_BODY_CHUNKED };
		assert_int_equal(http_body_feed(&b, s, 3 + n + 2, &used, &doff, &dlen),
				 extra ? HTTP_ETRAILER : HTTP_OK);
	}
}

/* ---- responses ---- */

static struct http_resp P, P2;

static int presp(const char *s, int head)
{
	memset(&P, 0, sizeof(P));
	return http_resp_parse(&P, s, strlen(s), head);
}

static void test_resp_parses_a_head_in_every_split(void **state)
{
	static const char s[] = "HTTP/1.1 200 OK, fine\r\n"
				"Content-Type: text/event-stream\r\n"
				"Transfer-Encoding: chunked\r\n"
				"Upgrade: h2c\r\n"
				"\r\n"
				"5\r\nhello\r\n";
	size_t n = strlen(s), hl = n - 10;

	(void)state;
	assert_int_equal(presp(s, 0), HTTP_OK);
	assert_int_equal(P.head_len, hl);
	assert_int_equal(P.status, 200);
	assert_int_equal(P.minor, 1);
	assert_true(span_is(s, P.reason, "OK, fine"));
	assert_int_equal(P.nheaders, 3);
	assert_true(span_is(s, P.h[1].value, "chunked"));
	assert_int_equal(P.body.kind, HTTP_BODY_CHUNKED);
	assert_int_equal(P.keep_alive, 1);
	memcpy(&P2, &P, sizeof(P));
	memset(&P, 0, sizeof(P));
	for (size_t len = 0; len < hl; len++)
		assert_int_equal(http_resp_parse(&P, s, len, 0), HTTP_MORE);
	assert_int_equal(http_resp_parse(&P, s, hl, 0), HTTP_OK);
	assert_memory_equal(&P, &P2, sizeof(P));
	for (size_t cut = 0; cut <= n; cut++) {
		memset(&P, 0, sizeof(P));
		assert_int_equal(http_resp_parse(&P, s, cut, 0), cut >= hl ? HTTP_OK : HTTP_MORE);
		assert_int_equal(http_resp_parse(&P, s, n, 0), HTTP_OK);
		assert_memory_equal(&P, &P2, sizeof(P));
	}
}

struct framing {
	const char *resp;
	int head, err, status;
	enum http_body_kind kind;
	uint64_t left;
	int keep_alive;
};

/* RFC 9112, 6.3, case by case; and what is refused. */
static void test_resp_framing(void **state)
{
	static const struct framing t[] = {
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 0, HTTP_OK, 200, HTTP_BODY_LENGTH,
		  5, 1 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, HTTP_OK, 200, HTTP_BODY_NONE,
		  0, 1 },
		{ "HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n", 0, HTTP_OK, 200,
		  HTTP_BODY_CHUNKED, 0, 1 },
		{ "HTTP/1.1 200 OK\r\n\r\n", 0, HTTP_OK, 200, HTTP_BODY_CLOSE, 0, 0 },
		{ "HTTP/1.1 200\r\nConnection: close\r\nContent-Length: 2\r\n\r\n", 0, HTTP_OK, 200,
		  HTTP_BODY_LENGTH, 2, 0 },
		{ "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", 0, HTTP_OK, 204,
		  HTTP_BODY_NONE, 0, 1 },
		{ "HTTP/1.1 304 \r\nTransfer-Encoding: chunked\r\n\r\n", 0, HTTP_OK, 304,
		  HTTP_BODY_NONE, 0, 1 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", 1, HTTP_OK, 200, HTTP_BODY_NONE,
		  0, 1 },
		{ "HTTP/1.1 100 Continue\r\n\r\n", 0, HTTP_OK, 100, HTTP_BODY_NONE, 0, 1 },
		{ "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n", 0, HTTP_OK, 200, HTTP_BODY_LENGTH,
		  5, 0 },
		{ "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\n", 0,
		  HTTP_OK, 200, HTTP_BODY_LENGTH, 5, 1 },
		{ "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n", 0, HTTP_OK, 200,
		  HTTP_BODY_CLOSE, 0, 0 },
		{ "HTTP/1.1 599 x\r\nContent-Length: 1\r\n\r\n", 0, HTTP_OK, 599, HTTP_BODY_LENGTH,
		  1, 1 },
		{ "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", 0,
		  HTTP_EUPGRADE, 0, 0, 0, 0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 0,
		  HTTP_ETELENGTH, 0, 0, 0, 0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 0,
		  HTTP_ELENGTH, 0, 0, 0, 0 },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, HTTP_ETE, 0, 0, 0, 0 },
		{ "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, HTTP_ETE, 0, 0, 0,
		  0 },
		{ "HTTP/1.1 200 OK\r\n folded\r\n\r\n", 0, HTTP_EFOLD, 0, 0, 0, 0 },
		{ "HTTP/1.1 200 OK\nContent-Length: 5\r\n\r\n", 0, HTTP_ECRLF, 0, 0, 0, 0 },
		{ "HTTP/2 200\r\n\r\n", 0, HTTP_EVERSION, 0, 0, 0, 0 },
		{ "HTTP/1.2 200 OK\r\n\r\n", 0, HTTP_EVERSION, 0, 0, 0, 0 },
		{ "HTTP/1.1  200 OK\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "HTTP/1.1 20 OK\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "HTTP/1.1 2000 OK\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "HTTP/1.1 099 x\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "HTTP/1.1 600 x\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "HTTP/1.1 200 O\x01K\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "ICY 200 OK\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
		{ "\r\nHTTP/1.1 200 OK\r\n\r\n", 0, HTTP_ESTATUS, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		int err = presp(t[i].resp, t[i].head);

		if (err != t[i].err)
			fail_msg("response %zu: %s (%d), want %s (%d)", i, http_strerror(err), err,
				 http_strerror(t[i].err), t[i].err);
		if (err != HTTP_OK)
			continue;
		assert_int_equal(P.status, t[i].status);
		if (P.body.kind != t[i].kind || P.body.left != t[i].left ||
		    P.keep_alive != t[i].keep_alive)
			fail_msg("response %zu: body %d left %llu keep-alive %d", i, P.body.kind,
				 (unsigned long long)P.body.left, P.keep_alive);
	}
}

static void test_resp_limits_and_close_body(void **state)
{
	static char s[HTTP_MAX_LINE + 64];
	struct http_body b = { .kind = HTTP_BODY_CLOSE };
	size_t used, doff, dlen;

	(void)state;
	/* A status line of HTTP_MAX_LINE bytes with its CRLF, and one more. */
	for (int extra = 0; extra <= 1; extra++) {
		size_t n = HTTP_MAX_LINE + (size_t)extra;

		memcpy(s, "HTTP/1.1 200 ", 13);
		memset(s + 13, 'r', n - 15);
		memcpy(s + n - 2, "\r\n\r\n", 4);
		memset(&P, 0, sizeof(P));
		assert_int_equal(http_resp_parse(&P, s, n + 2, 0), extra ? HTTP_ELINE : HTTP_OK);
	}
	/* Until the upstream closes: all of it is data, and it never ends here. */
	assert_int_equal(http_body_feed(&b, "abc", 3, &used, &doff, &dlen), HTTP_MORE);
	assert_int_equal(used, 3);
	assert_int_equal(doff, 0);
	assert_int_equal(dlen, 3);
	assert_int_equal(b.data, 3);
}

/* ---- the phantom in the grant's headers ---- */

static const char PHANTOM[] = "oto-phantom-0123456789abcdef";
static const char REAL[] = "sk-ant-api03-REALKEY";
static const char *const NAMES[] = { "Authorization", "x-api-key" };

static struct http_rewrite rw(const char *host, int identity)
{
	struct http_rewrite w = { PHANTOM, REAL, strlen(PHANTOM),	  strlen(REAL), NAMES,
				  2,	   host, host ? strlen(host) : 0, identity };

	return w;
}

static ssize_t rewrite(const char *s, const char *host, char *out, size_t outsz, unsigned int *n)
{
	struct http_rewrite w = rw(host, 0);

	assert_int_equal(parse(s), HTTP_OK);
	return http_head_rewrite(s, &R, &w, out, outsz, n);
}

static void assert_head(const char *got, ssize_t len, const char *want)
{
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, strlen(want));
}

static void test_rewrite_named_headers_only(void **state)
{
	static const char req[] =
	    "POST /v1/messages?k=oto-phantom-0123456789abcdef HTTP/1.1\r\n"
	    "Host: 10.0.2.4:8001\r\n"
	    "X-API-KEY:oto-phantom-0123456789abcdef\r\n"
	    "Authorization: Bearer oto-phantom-0123456789abcdef   \r\n"
	    "X-E: oto-phantom-0123456789abcdef,oto-phantom-0123456789abcdefoto-phantom-0\r\n"
	    "oto-phantom-0123456789abcdef: name, not value\r\n"
	    "Content-Length: 28\r\n"
	    "\r\n"
	    "oto-phantom-0123456789abcdef";
	static const char want[] =
	    "POST /v1/messages?k=oto-phantom-0123456789abcdef HTTP/1.1\r\n"
	    "Host: api.example.test\r\n"
	    "X-API-KEY: sk-ant-api03-REALKEY\r\n"
	    "Authorization: Bearer sk-ant-api03-REALKEY\r\n"
	    "X-E: oto-phantom-0123456789abcdef,oto-phantom-0123456789abcdefoto-phantom-0\r\n"
	    "oto-phantom-0123456789abcdef: name, not value\r\n"
	    "Content-Length: 28\r\n"
	    "\r\n";
	static const char *const xe[] = { "x-e" };
	struct http_rewrite w = rw(NULL, 0);
	char out[1024];
	unsigned int n;
	ssize_t len;

	(void)state;
	len = rewrite(req, "api.example.test", out, sizeof(out), &n);
	assert_head(out, len, want);
	assert_int_equal(n, 2);
	/* The body is not the head's: it follows untouched in the caller's buffer. */
	assert_string_equal(req + R.head_len, "oto-phantom-0123456789abcdef");
	/* A grant naming X-E alone: there, twice, and no longer in the other two. */
	w.names = xe;
	w.nnames = 1;
	len = http_head_rewrite(req, &R, &w, out, sizeof(out), &n);
	assert_int_equal(n, 2);
	assert_non_null(
	    memmem(out, (size_t)len, "X-E: sk-ant-api03-REALKEY,sk-ant-api03-REALKEYoto-", 50));
	assert_non_null(memmem(out, (size_t)len, "X-API-KEY: oto-phantom-", 23));
	assert_non_null(memmem(out, (size_t)len, "Authorization: Bearer oto-phantom-", 34));
	/* Without a host, Host is the agent's, and carries no credential. */
	len = rewrite("GET / HTTP/1.1\r\nHost: oto-phantom-0123456789abcdef\r\n\r\n", NULL, out,
		      sizeof(out), &n);
	assert_int_equal(n, 0);
	assert_head(out, len, "GET / HTTP/1.1\r\nHost: oto-phantom-0123456789abcdef\r\n\r\n");
	/* HTTP/1.0 without Host: the upstream's is added. */
	len = rewrite("GET /x HTTP/1.0\r\nX-Api-Key: oto-phantom-0123456789abcdef\r\n\r\n",
		      "up.test", out, sizeof(out), &n);
	assert_head(out, len,
		    "GET /x HTTP/1.0\r\nX-Api-Key: sk-ant-api03-REALKEY\r\nHost: up.test\r\n\r\n");
}

/* base64 (standard, padded) of n bytes, for the tests. */
static size_t b64(const void *src, size_t n, char *out, int url)
{
	const char *a = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
			    : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = src;
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);

		out[o++] = a[v >> 18];
		out[o++] = a[v >> 12 & 63];
		out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? a[v & 63] : '=';
	}
	out[o] = 0;
	return o;
}

static void test_rewrite_basic_and_schemes(void **state)
{
	char req[512], want[512], cred[128], enc[256], out[1024];
	unsigned int n;
	ssize_t len;

	(void)state;
	/* Basic: base64 of user:PHANTOM, decoded, swapped, encoded again. */
	snprintf(cred, sizeof(cred), "alice:%s", PHANTOM);
	b64(cred, strlen(cred), enc, 0);
	snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s\r\n\r\n",
		 enc);
	snprintf(cred, sizeof(cred), "alice:%s", REAL);
	b64(cred, strlen(cred), enc, 0);
	snprintf(want, sizeof(want), "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic %s\r\n\r\n",
		 enc);
	len = rewrite(req, NULL, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(out, len, want);
	/* The phantom as the user, the scheme in another case, more than one blank. */
	snprintf(cred, sizeof(cred), "%s:", PHANTOM);
	b64(cred, strlen(cred), enc, 0);
	snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: h\r\nauthorization: bAsIc  %s\r\n\r\n",
		 enc);
	snprintf(cred, sizeof(cred), "%s:", REAL);
	b64(cred, strlen(cred), enc, 0);
	snprintf(want, sizeof(want),
		 "GET / HTTP/1.1\r\nHost: h\r\nauthorization: bAsIc  %s\r\n\r\n", enc);
	len = rewrite(req, NULL, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(out, len, want);
	/* Basic without base64 (the phantom itself): replaced as bytes. */
	len = rewrite("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic "
		      "oto-phantom-0123456789abcdef\r\n\r\n",
		      NULL, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(
	    out, len,
	    "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic sk-ant-api03-REALKEY\r\n\r\n");
	/* Basic of something else: unchanged. */
	len = rewrite("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic YTpi\r\n\r\n", NULL, out,
		      sizeof(out), &n);
	assert_int_equal(n, 0);
	assert_head(out, len, "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic YTpi\r\n\r\n");
	/* token and a bare value: replaced as bytes. */
	len = rewrite("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: token "
		      "oto-phantom-0123456789abcdef\r\n\r\n",
		      NULL, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(
	    out, len,
	    "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: token sk-ant-api03-REALKEY\r\n\r\n");
}

static void test_rewrite_identity(void **state)
{
	static const char req[] = "GET /f HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip, deflate\r\n"
				  "range: bytes=0-9\r\nIf-Range: \"e\"\r\nX-Api-Key: "
				  "oto-phantom-0123456789abcdef\r\naccept-encoding: br\r\n\r\n";
	struct http_rewrite w = rw("up", 1);
	char out[1024];
	unsigned int n;
	ssize_t len;

	(void)state;
	assert_int_equal(parse(req), HTTP_OK);
	len = http_head_rewrite(req, &R, &w, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(out, len,
		    "GET /f HTTP/1.1\r\nHost: up\r\nX-Api-Key: sk-ant-api03-REALKEY\r\n"
		    "Accept-Encoding: identity\r\n\r\n");
}

/*
 * The headers that end at the gateway stay there: the hop-by-hop ones, and
 * those Connection names (any case, any spacing, in any Connection line),
 * but never the three the gateway frames and routes the request by.
 */
static void test_rewrite_hop_by_hop(void **state)
{
	static const char req[] = "POST /v1 HTTP/1.1\r\n"
				  "Host: h\r\n"
				  "TE: trailers, deflate\r\n"
				  "Connection: keep-alive, X-Hop ,x-api-key\r\n"
				  "Keep-Alive: timeout=5\r\n"
				  "Proxy-Connection: keep-alive\r\n"
				  "Proxy-Authorization: Basic YTpi\r\n"
				  "Trailer: X-T\r\n"
				  "x-hop: 1\r\n"
				  "X-Hopper: 2\r\n"
				  "x-api-key: oto-phantom-0123456789abcdef\r\n"
				  "Authorization: Bearer oto-phantom-0123456789abcdef\r\n"
				  "connection:\tTE,host, Content-Length,transfer-encoding,,\r\n"
				  "Transfer-Encoding: chunked\r\n"
				  "\r\n";
	struct http_rewrite w = rw("up", 0);
	char out[1024];
	unsigned int n;
	ssize_t len;

	(void)state;
	assert_int_equal(parse(req), HTTP_OK);
	len = http_head_rewrite(req, &R, &w, out, sizeof(out), &n);
	assert_int_equal(n, 1);
	assert_head(out, len,
		    "POST /v1 HTTP/1.1\r\nHost: up\r\nX-Hopper: 2\r\n"
		    "Authorization: Bearer sk-ant-api03-REALKEY\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n");
	/* HTTP/1.0: the same; the Host the gateway adds stays. */
	len = rewrite("GET / HTTP/1.0\r\nConnection: keep-alive, host\r\nTE: x\r\n"
		      "Content-Length: 0\r\n\r\n",
		      "up", out, sizeof(out), &n);
	assert_head(out, len, "GET / HTTP/1.0\r\nContent-Length: 0\r\nHost: up\r\n\r\n");
}

static void test_rewrite_refusals_and_bound(void **state)
{
	static const char req[] =
	    "GET / HTTP/1.1\r\nHost: h\r\nX-Api-Key:oto-phantom-0123456789abcdef\r\n"
	    "Authorization:oto-phantom-0123456789abcdefoto-phantom-0123456789abcdef\r\n\r\n";
	static const char basic[] = "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic "
				    "b3RvOm90bzpvdG86b3RvOm90bzpvdG86b3RvOm90bzpvdG8=\r\n\r\n";
	struct http_rewrite w = rw(NULL, 1);
	char out[512];
	unsigned int n;
	ssize_t len;

	(void)state;
	len = rewrite(req, NULL, out, sizeof(out), &n);
	assert_int_equal(n, 3);
	/* Exactly enough room, then one byte less. */
	assert_int_equal(rewrite(req, NULL, out, (size_t)len, &n), len);
	errno = 0;
	assert_int_equal(rewrite(req, NULL, out, (size_t)len - 1, &n), -1);
	assert_int_equal(errno, ENOSPC);
	/* The bound in http.h holds when every value is phantoms and the real value is longer,
	 * in base64 too. */
	w.from = "oto";
	w.from_len = 3;
	w.to = "0123456789012345678901234567890123456789";
	w.to_len = 40;
	w.host = "h2";
	w.host_len = 2;
	for (int k = 0; k < 2; k++) {
		const char *q = k ? basic : req;
		char big[4096];
		size_t bound;

		assert_int_equal(parse(q), HTTP_OK);
		bound = 2 * R.head_len + 2 * (R.head_len / 3 + 1) * 40 + 2 + 64;
		len = http_head_rewrite(q, &R, &w, big, sizeof(big), &n);
		assert_int_equal(n, k ? 9 : 3);
		assert_true(len > 0);
		assert_true((size_t)len <= bound);
	}
	/* A real value or host that would break the line, an empty phantom, an unfinished head. */
	w = rw(NULL, 0);
	assert_int_equal(parse(req), HTTP_OK);
	errno = 0;
	w.to = "a\r\nX: b";
	w.to_len = 7;
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	assert_int_equal(errno, EINVAL);
	w.to = "a\nb";
	w.to_len = 3;
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	w = rw("h\r", 0);
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	w = rw(NULL, 0);
	w.from_len = 0;
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	w = rw(NULL, 0);
	w.to_len = 0;
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	memset(&R, 0, sizeof(R));
	assert_int_equal(http_req_parse(&R, req, 10), HTTP_MORE);
	errno = 0;
	w = rw(NULL, 0);
	assert_int_equal(http_head_rewrite(req, &R, &w, out, sizeof(out), &n), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_value_ok(void **state)
{
	(void)state;
	assert_true(http_value_ok("Bearer x", 8));
	assert_true(http_value_ok("a\tb\x80\xff", 5));
	assert_false(http_value_ok("", 0));
	assert_false(http_value_ok(" a", 2));
	assert_false(http_value_ok("a\t", 2));
	assert_false(http_value_ok("a\rb", 3));
	assert_false(http_value_ok("a\nb", 3));
	assert_false(http_value_ok("a\0b", 3));
	assert_false(http_value_ok("a\x7f", 2));
}

/* ---- the streaming scrubber ---- */

static struct http_repl RP;

/* Stream s through the scrubber in pieces cut at cuts[0..ncuts), into out. */
static size_t stream(const char *s, size_t n, const size_t *cuts, size_t ncuts, char *out)
{
	size_t o = 0, from = 0;

	for (size_t k = 0; k <= ncuts; k++) {
		/* cuts is NULL only with ncuts 0. */
		/* cppcheck-suppress nullPointer */
		size_t to = k < ncuts ? cuts[k] : n, max = http_repl_max(&RP, to - from), w;

		w = http_repl_feed(&RP, s + from, to - from, out + o);
		assert_true(w <= max);
		o += w;
		from = to;
	}
	return o + http_repl_flush(&RP, out + o);
}

/* s with every byte as %HH (upper: uppercase hex), or as \u00hh. */
static size_t pct(const char *s, char *out, int upper)
{
	size_t o = 0;

	for (; *s; s++)
		o += (size_t)sprintf(out + o, upper ? "%%%02X" : "%%%02x", (unsigned char)*s);
	return o;
}

static size_t uesc(const char *s, char *out)
{
	size_t o = 0;

	for (; *s; s++)
		o += (size_t)sprintf(out + o, "\\u%04x", (unsigned char)*s);
	return o;
}

static size_t hexs(const char *s, char *out, int upper)
{
	size_t o = 0;

	for (; *s; s++)
		o += (size_t)sprintf(out + o, upper ? "%02X" : "%02x", (unsigned char)*s);
	return o;
}

static void upcase(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 32);
}

/* The characters of b64(pre + v + "!!") that v's bits alone make, for a pre of a bytes. */
static size_t b64_inner_of(const char *pre, const char *v, int url, char *out)
{
	char whole[256], enc[512];
	size_t a = strlen(pre), m = strlen(v), first = (8 * a + 5) / 6, end = (8 * a + 8 * m) / 6;

	snprintf(whole, sizeof(whole), "%s%s!!", pre, v);
	b64(whole, strlen(whole), enc, url);
	memcpy(out, enc + first, end - first);
	out[end - first] = 0;
	return end - first;
}

/*
 * A response that echoes the value in every form the scrubber knows, and the
 * same response made from the phantom: what the scrubber must turn the first
 * into. Every form is built here from its definition, not by the scrubber's
 * code.
 */
static size_t forms(const char *v, const char *real, int want, char *out)
{
	char t[1024], *o = out;
	static const char *const pre[] = { "", "x", "xy" };

	o += sprintf(o, "HTTP/1.1 200 OK\r\nX-Echo: %s\r\n\r\nraw=%s;", v, v);
	/* An upper-cased echo comes back as the phantom as it is. */
	strcpy(t, v);
	if (!want)
		upcase(t);
	o += sprintf(o, "upper=%s;", t);
	o += sprintf(o, "pct=");
	o += pct(v, o, 1);
	/* %hh and HEX come back in the scrubber's own case. */
	o += sprintf(o, ";pctlower=");
	o += pct(v, o, want);
	o += sprintf(o, ";json=\"");
	o += uesc(v, o);
	o += sprintf(o, "\";hex=");
	o += hexs(v, o, 0);
	o += sprintf(o, ";HEX=");
	o += hexs(v, o, !want);
	for (int url = 0; url < 2; url++)
		for (size_t a = 0; a < 3; a++) {
			o += sprintf(o, ";b64%d%zu=[", url, a);
			o += b64_inner_of(pre[a], v, url, o);
			o += sprintf(o, "]");
		}
	/* Mixed: a URL encoder that escapes the value's '-' only, and leaves the rest. */
	o += sprintf(o, ";mixed=");
	for (size_t i = 0; v[i]; i++)
		o += real[i] == '-' ? sprintf(o, "%%%02X", (unsigned char)v[i])
				    : sprintf(o, "%c", v[i]);
	o += sprintf(o, ";end");
	return (size_t)(o - out);
}

static const char SREAL[] = "sk-ant-api03-RealKey-0123456789",
		  SPH[] = "oto-phantom-abcdefghijklmnopqrs";

static void test_repl_every_form(void **state)
{
	static char in[4096], want[4096], out[4096];
	size_t n, wn, o;

	(void)state;
	assert_int_equal(strlen(SREAL), strlen(SPH));
	assert_int_equal(http_repl_init(&RP, SREAL, SPH, strlen(SREAL)), 0);
	n = forms(SREAL, SREAL, 0, in);
	wn = forms(SPH, SREAL, 1, want);
	assert_int_equal(n, wn);
	o = stream(in, n, NULL, 0, out);
	assert_int_equal(o, n);
	assert_memory_equal(out, want, n);
	/* At every cut, the same; byte by byte, the same. */
	{
		static char whole[4096];
		size_t cut[1];

		memcpy(whole, want, n);
		for (cut[0] = 0; cut[0] <= n; cut[0]++) {
			assert_int_equal(stream(in, n, cut, 1, out), n);
			assert_memory_equal(out, whole, n);
		}
		o = 0;
		for (size_t i = 0; i < n; i++)
			o += http_repl_feed(&RP, in + i, 1, out + o);
		o += http_repl_flush(&RP, out + o);
		assert_int_equal(o, n);
		assert_memory_equal(out, whole, n);
	}
}

/* Byte c as the text form may write it, the k-th way (0 to 6): its length in out, 0 for none. */
static size_t enc(unsigned char c, int k, char *out)
{
	switch (k) {
	case 0:
		return (size_t)sprintf(out, "%c", c);
	case 1: /* the other case */
		return (size_t)sprintf(out, "%c",
				       c >= 'a' && c <= 'z'   ? c - 32
				       : c >= 'A' && c <= 'Z' ? c + 32
							      : c);
	case 2:
		return (size_t)sprintf(out, "%%%02X", c);
	case 3:
		return (size_t)sprintf(out, "%%%02x", c);
	case 4:
		return (size_t)sprintf(out, "\\u%04x", c);
	case 5:
		return (size_t)sprintf(out, "\\u%04X", c);
	default:
		return c == '/' || c == '"' || c == '\\' ? (size_t)sprintf(out, "\\%c", c) : 0;
	}
}

/*
 * The pair filter (pair[]) lets out nothing the forms would have taken: the
 * scrubber with it and without it (every pair allowed, as every byte that
 * begins a form was tried before) give the same bytes, for values whose
 * first bytes are letters, digits, escapes' own characters; each value's
 * first two bytes written every way the text form reads them, and every
 * fixed form, every byte pair of noise around them, at every cut.
 */
static void test_repl_pairs_let_out_nothing_more(void **state)
{
	static const char *const vals[] = {
		SREAL,
		"SK-ant-api03-RealKey-0123456789",
		"%2-real-value-0123456789",
		"\\u-real-value-0123456789",
		"/\"real-value-0123456789",
		"\"/real-value-0123456789",
		"7a-real-value-0123456789",
		"Zz-real-value-0123456789",
		"\xc3\xa9-real-value-0123456789", /* hex digits that are letters, first */
	};
	static struct http_repl ref;
	static char in[1 << 18], out[1 << 18], want[1 << 18], t[64];

	(void)state;
	for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
		const char *val = vals[v];
		size_t len = strlen(val), n = 0, o, cut[1], segs = 0, took = 0;
		char ph[64], tail[64];

		memset(ph, 'p', len);
		assert_int_equal(http_repl_init(&RP, val, ph, len), 0);
		memcpy(&ref, &RP, sizeof(ref));
		memset(ref.pair, 1, sizeof(ref.pair));
		/* The first two bytes each way, the rest as it is; then every fixed form. */
		for (int a = 0; a < 7; a++) {
			for (int b = 0; b < 7; b++) {
				size_t ea = enc((unsigned char)val[0], a, t), eb;

				if (!ea)
					continue;
				eb = enc((unsigned char)val[1], b, t + ea);
				if (!eb)
					continue;
				n +=
				    (size_t)sprintf(in + n, "<%.*s%s>", (int)(ea + eb), t, val + 2);
				segs++;
			}
		}
		n += forms(val, val, 0, in + n);
		/* Noise: every pair of bytes once, before the value's tail. */
		for (unsigned x = 0; x < 256; x++)
			for (unsigned y = 0; y < 256; y += 3) {
				in[n++] = (char)x;
				in[n++] = (char)y;
				if (y % 64 == 0)
					n += (size_t)sprintf(in + n, "%s", val + 2);
			}
		assert_true(n < sizeof(in));
		{
			struct http_repl keep;

			memcpy(&keep, &RP, sizeof(keep));
			memcpy(&RP, &ref, sizeof(RP));
			o = stream(in, n, NULL, 0, want);
			memcpy(&RP, &keep, sizeof(RP));
		}
		/*
		 * The reference took every copy whose first two bytes were encoded;
		 * a value that begins with an escape's own character can be read
		 * two ways, and some of its copies are not (http_repl_scan.c).
		 */
		memset(tail, 'p', len - 2);
		tail[len - 2] = '>';
		for (size_t i = 0; i + len - 1 <= o; i++)
			took += !memcmp(want + i, tail, len - 1);
		if (!strpbrk(val, "%\\"))
			assert_int_equal(took, segs);
		assert_true(took > 0);
		assert_int_equal(stream(in, n, NULL, 0, out), o);
		assert_memory_equal(out, want, o);
		for (cut[0] = 1; cut[0] < 4096; cut[0] += 7) {
			assert_int_equal(stream(in, n, cut, 1, out), o);
			assert_memory_equal(out, want, o);
		}
	}
}

/* A value with '/': JSON's \/, a '/' that base64 std and url write apart. */
static void test_repl_json_slash_and_quote(void **state)
{
	static const char v[] = "ab/cd\"ef\\gh-0123456789", ph[] = "oto-phantom-abcdefghij";
	char in[256], out[256];
	size_t n;

	(void)state;
	assert_int_equal(http_repl_init(&RP, v, ph, strlen(v)), 0);
	n = (size_t)sprintf(in, "{\"k\":\"ab\\/cd\\\"ef\\\\gh-0123456789\"}");
	assert_int_equal(stream(in, n, NULL, 0, out), n);
	/* \/ \" \\ are two bytes each: the phantom's byte twice. */
	assert_memory_equal(out, "{\"k\":\"otoo-phhanttom-abcdefghij\"}", n);
}

/* What leaves is never a prefix of a form that the next bytes complete. */
static void test_repl_holds_back_a_prefix(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(http_repl_init(&RP, SREAL, SPH, strlen(SREAL)), 0);
	assert_int_equal(http_repl_feed(&RP, "data: sk-ant-", 13, out), 6);
	assert_memory_equal(out, "data: ", 6);
	assert_int_equal(RP.held, 7);
	assert_int_equal(http_repl_feed(&RP, "api03-RealKey-012345678", 23, out), 0);
	assert_int_equal(http_repl_feed(&RP, "9\n", 2, out), 32);
	assert_memory_equal(out, SPH, 31);
	/* A prefix that turns out not to be the value leaves whole, as soon as that is known. */
	assert_int_equal(http_repl_feed(&RP, "sk-ant-api0", 11, out), 0);
	assert_int_equal(http_repl_feed(&RP, "4", 1, out), 12);
	assert_memory_equal(out, "sk-ant-api04", 12);
	/* An escape cut in the middle: held. */
	assert_int_equal(http_repl_feed(&RP, "x%7", 3, out), 1);
	assert_int_equal(RP.held, 2);
	assert_int_equal(http_repl_feed(&RP, "3%6B%2", 6, out), 0);
	assert_int_equal(RP.held, 8);
	assert_int_equal(http_repl_feed(&RP, "E", 1, out), 9);
	assert_memory_equal(out, "%73%6B%2E", 9);
	/* At the end, a form cut short goes out as it is. */
	assert_int_equal(http_repl_feed(&RP, "\\u0073k-", 8, out), 0);
	assert_int_equal(http_repl_flush(&RP, out), 8);
	assert_memory_equal(out, "\\u0073k-", 8);
	assert_int_equal(RP.held, 0);
	assert_int_equal(http_repl_flush(&RP, out), 0);
}

/* A held prefix that fails is scanned again from its next byte: a form begun inside it is
 * found. */
static void test_repl_rescans_a_failed_prefix(void **state)
{
	char in[256], out[256], b[128];
	size_t n, o;

	(void)state;
	assert_int_equal(http_repl_init(&RP, SREAL, SPH, strlen(SREAL)), 0);
	n = (size_t)sprintf(in, "sk-ant-");
	n += hexs(SREAL, in + n, 0);
	assert_int_equal(http_repl_feed(&RP, in, 7, out), 0);
	assert_int_equal(RP.held, 7);
	o = http_repl_feed(&RP, in + 7, n - 7, out);
	o += http_repl_flush(&RP, out + o);
	assert_int_equal(o, n);
	hexs(SPH, b, 0);
	assert_memory_equal(out, "sk-ant-", 7);
	assert_memory_equal(out + 7, b, n - 7);
}

/*
 * The response path as the gateway composes it, at every cut of the stream:
 * the head parsed and passed through the scrubber, the chunked body decoded
 * (http_body_feed) and its data through it again, flushed at the body's end.
 * The real value, cut by a chunk's framing, still becomes the phantom; the
 * raw stream through the scrubber would have let it out.
 */
static void test_response_path_every_cut(void **state)
{
	static const char real[] = "sk-ant-SECRET-0123", ph[] = "oto-phantom-abcdef";
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
				   "X-Echo: sk-ant-SECRET-0123\r\n"
				   "Transfer-Encoding: chunked\r\n"
				   "\r\n"
				   "9\r\ndata: sk-\r\n"
				   "f\r\nant-SECRET-0123\r\n"
				   "11\r\n\n\ndata: sk-ant-SE\r\n"
				   "5\r\nCRE\n\n\r\n"
				   "0\r\n\r\n";
	static const char want_head[] = "HTTP/1.1 200 OK\r\n"
					"X-Echo: oto-phantom-abcdef\r\n"
					"Transfer-Encoding: chunked\r\n"
					"\r\n";
	static const char want_body[] = "data: oto-phantom-abcdef\n\ndata: sk-ant-SECRE\n\n";
	static struct http_repl hr, br;
	size_t n = strlen(resp);
	char out[512];

	(void)state;
	/* Raw, the chunk framing hides the value cut in two. */
	assert_int_equal(http_repl_init(&br, real, ph, 18), 0);
	{
		size_t o = http_repl_feed(&br, resp, n, out);

		o += http_repl_flush(&br, out + o);
		assert_non_null(memmem(out, o, "data: sk-\r\nf\r\nant-SECRET-0123", 29));
	}
	for (size_t cut = 0; cut <= n; cut++) {
		size_t ends[2] = { cut, n }, pos = 0, ho = 0, bo = 0, body_at = 0;
		char hout[256], bout[256];
		int in_body = 0, done = 0;

		memset(&P, 0, sizeof(P));
		assert_int_equal(http_repl_init(&hr, real, ph, 18), 0);
		assert_int_equal(http_repl_init(&br, real, ph, 18), 0);
		for (int k = 0; k < 2 && !done; k++) {
			size_t end = ends[k];

			if (!in_body) {
				int err = http_resp_parse(&P, resp, end, 0);

				if (err == HTTP_MORE)
					continue;
				assert_int_equal(err, HTTP_OK);
				ho = http_repl_feed(&hr, resp, P.head_len, hout);
				ho += http_repl_flush(&hr, hout + ho);
				in_body = 1;
				pos = body_at = P.head_len;
			}
			while (pos < end && !done) {
				size_t used, doff, dlen;
				int err = http_body_feed(&P.body, resp + pos, end - pos, &used,
							 &doff, &dlen);

				assert_true(err == HTTP_OK || err == HTTP_MORE);
				bo += http_repl_feed(&br, resp + pos + doff, dlen, bout + bo);
				pos += used;
				if (err == HTTP_OK) {
					bo += http_repl_flush(&br, bout + bo);
					done = 1;
				}
			}
		}
		assert_true(done);
		assert_int_equal(body_at, strlen(want_head));
		assert_int_equal(pos, n);
		assert_int_equal(ho, strlen(want_head));
		assert_memory_equal(hout, want_head, ho);
		assert_int_equal(bo, strlen(want_body));
		assert_memory_equal(bout, want_body, bo);
	}
}

static void test_repl_init_limits(void **state)
{
	static char big[HTTP_MAX_SECRET + 1], ph[HTTP_MAX_SECRET + 1];
	static char in[6 * HTTP_MAX_SECRET + 8], out[6 * HTTP_MAX_SECRET + 8];
	size_t n = 0, o;

	(void)state;
	memset(big, 'a', sizeof(big));
	memset(ph, 'p', sizeof(ph));
	errno = 0;
	assert_int_equal(http_repl_init(&RP, big, ph, HTTP_MIN_SECRET - 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(http_repl_init(&RP, big, ph, HTTP_MAX_SECRET + 1), -1);
	assert_int_equal(http_repl_init(&RP, big, ph, HTTP_MAX_SECRET), 0);
	/* The longest form, \u0061 for each of 4096 a's, held whole until its last byte. */
	for (size_t i = 0; i < HTTP_MAX_SECRET; i++)
		n += (size_t)sprintf(in + n, "\\u0061");
	o = http_repl_feed(&RP, in, n - 1, out);
	assert_int_equal(o, 0);
	assert_int_equal(RP.held, n - 1);
	o = http_repl_feed(&RP, in + n - 1, 1, out);
	assert_int_equal(o, n);
	assert_int_equal(memcmp(out, "\\u0070\\u0070", 12), 0);
	assert_int_equal(RP.held, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_parses_a_head),
		cmocka_unit_test(test_req_every_split),
		cmocka_unit_test(test_req_details),
		cmocka_unit_test(test_req_refusals),
		cmocka_unit_test(test_req_limits),
		cmocka_unit_test(test_errors_have_messages_and_statuses),
		cmocka_unit_test(test_body_chunked_every_split),
		cmocka_unit_test(test_body_length),
		cmocka_unit_test(test_body_chunked_refusals),
		cmocka_unit_test(test_body_chunked_limits),
		cmocka_unit_test(test_resp_parses_a_head_in_every_split),
		cmocka_unit_test(test_resp_framing),
		cmocka_unit_test(test_resp_limits_and_close_body),
		cmocka_unit_test(test_rewrite_named_headers_only),
		cmocka_unit_test(test_rewrite_basic_and_schemes),
		cmocka_unit_test(test_rewrite_identity),
		cmocka_unit_test(test_rewrite_hop_by_hop),
		cmocka_unit_test(test_rewrite_refusals_and_bound),
		cmocka_unit_test(test_value_ok),
		cmocka_unit_test(test_repl_every_form),
		cmocka_unit_test(test_repl_pairs_let_out_nothing_more),
		cmocka_unit_test(test_repl_json_slash_and_quote),
		cmocka_unit_test(test_repl_holds_back_a_prefix),
		cmocka_unit_test(test_repl_rescans_a_failed_prefix),
		cmocka_unit_test(test_repl_init_limits),
		cmocka_unit_test(test_response_path_every_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
