// UNIT: cmd/otonet/sni.c cmd/otonet/follow.c lib/http_req_parse.c lib/http_head_line.c
// UNIT: lib/http_header_line.c lib/http_value_ok.c lib/http_body_feed.c lib/http_list_has.c
/*
 * What a flow a name allowed sends, pure: the first-bytes classifier
 * (sniff_first), a ClientHello whole in one record or several (tls_hello),
 * and an HTTP/1.1 request stream followed (follow.c). Every input is also
 * cut at every offset, as the agent's segments may cut it: a prefix is
 * never "neither", a whole one always gives the same answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "otonet/otonet.h"

/* ---- a ClientHello ----------------------------------------------------------- */

struct msg {
	uint8_t b[8192];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, unsigned int v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

/* The handshake message of a ClientHello naming sni (if any), with pad bytes of padding. */
static size_t hello_msg(uint8_t *b, const char *sni, size_t pad)
{
	struct msg h = { .n = 0 }, ext = { .n = 0 };
	uint8_t random[32] = { 0 }, one = 1, zero = 0, z[4096] = { 0 };

	put16(&ext, 0x0017); /* extended master secret, empty */
	put16(&ext, 0);
	if (sni) {
		size_t l = strlen(sni);

		put16(&ext, 0);
		put16(&ext, (unsigned int)l + 5);
		put16(&ext, (unsigned int)l + 3);
		put(&ext, &zero, 1);
		put16(&ext, (unsigned int)l);
		put(&ext, sni, l);
	}
	if (pad) {
		put16(&ext, 21); /* padding */
		put16(&ext, (unsigned int)pad);
		put(&ext, z, pad);
	}
	put16(&h, 0x0303);
	put(&h, random, 32);
	put(&h, &zero, 1); /* session id */
	put16(&h, 2);
	put16(&h, 0x1301);
	put(&h, &one, 1);
	put(&h, &zero, 1);
	put16(&h, (unsigned int)ext.n);
	put(&h, ext.b, ext.n);
	b[0] = 1;
	b[1] = 0;
	b[2] = (uint8_t)(h.n >> 8);
	b[3] = (uint8_t)h.n;
	memcpy(b + 4, h.b, h.n);
	return 4 + h.n;
}

/* The message m (n bytes) in handshake records of at most frag bytes each. */
static size_t records(uint8_t *b, const uint8_t *m, size_t n, size_t frag)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += frag) {
		size_t k = n - i < frag ? n - i : frag;

		b[o++] = 0x16;
		b[o++] = 3;
		b[o++] = 1;
		b[o++] = (uint8_t)(k >> 8);
		b[o++] = (uint8_t)k;
		memcpy(b + o, m + i, k);
		o += k;
	}
	return o;
}

static uint8_t scratch[NAMES_HOLD_MAX];

static void test_sniff_first(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		enum sniff want;
	} C[] = {
		{ "", 0, SNIFF_MORE },
		{ "G", 1, SNIFF_MORE },
		{ "PROPFI", 6, SNIFF_MORE },
		{ "PROPFIND ", 9, SNIFF_HTTP },
		{ "GET /", 5, SNIFF_HTTP },
		{ "\x16", 1, SNIFF_TLS },
		{ "\x16\x03", 2, SNIFF_TLS },
		{ "\x16\x03\x01", 3, SNIFF_TLS },
		{ "\x16\x04", 2, SNIFF_NEITHER },
		{ "\x16\x03\x05", 3, SNIFF_NEITHER },
		{ "SSH-2.0-OpenSSH_9.2\r\n", 21, SNIFF_NEITHER },
		{ "hello, no name here\n", 20, SNIFF_NEITHER },
		{ " GET / HTTP/1.1", 15, SNIFF_NEITHER },
		{ "\r\nGET /", 7, SNIFF_NEITHER },
		{ "G\x01T /", 5, SNIFF_NEITHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(C) / sizeof(C[0]); i++) {
		assert_int_equal(sniff_first((const uint8_t *)C[i].s, C[i].n), C[i].want);
		/* A prefix of TLS or of a request line is never "neither". */
		if (C[i].want != SNIFF_NEITHER)
			for (size_t k = 0; k < C[i].n; k++)
				assert_int_not_equal(sniff_first((const uint8_t *)C[i].s, k),
						     SNIFF_NEITHER);
	}
}

static void test_tls_hello_split_anywhere(void **state)
{
	uint8_t m[4096], b[8192];
	char out[DNS_NAME_MAX];
	size_t mn = hello_msg(m, "A.Inet.Test.", 0), frags[] = { 16384, 512, 7, 4 }, end;

	(void)state;
	for (size_t f = 0; f < sizeof(frags) / sizeof(frags[0]); f++) {
		size_t n = records(b, m, mn, frags[f]);

		/* Every prefix, whatever the records: not yet decided. */
		for (size_t k = 0; k < n; k++)
			assert_int_equal(tls_hello(b, k, NAMES_HOLD_MAX, scratch, out, &end),
					 HELLO_MORE);
		assert_int_equal(tls_hello(b, n, NAMES_HOLD_MAX, scratch, out, &end), HELLO_NAME);
		assert_string_equal(out, "a.inet.test");
		assert_int_equal(end, n);
		/* What follows the hello (early data, say) is not its. */
		memcpy(b + n, "\x17\x03\x03\x00\x01x", 6);
		assert_int_equal(tls_hello(b, n + 6, NAMES_HOLD_MAX, scratch, out, &end),
				 HELLO_NAME);
		assert_int_equal(end, n);
		/* The same bytes bounded below their length: too long. */
		if (n > 64)
			assert_int_equal(tls_hello(b, n, n - 1, scratch, out, &end), HELLO_LONG);
	}
}

static void test_tls_hello_refused_shapes(void **state)
{
	uint8_t m[8192], b[16384];
	char out[DNS_NAME_MAX];
	size_t mn, n, end;

	(void)state;
	/* No server_name; one that is no name: whole, nameless. */
	mn = hello_msg(m, NULL, 0);
	n = records(b, m, mn, 16384);
	assert_int_equal(tls_hello(b, n, NAMES_HOLD_MAX, scratch, out, &end), HELLO_NONAME);
	mn = hello_msg(m, "a\"b.test", 0);
	n = records(b, m, mn, 16384);
	assert_int_equal(tls_hello(b, n, NAMES_HOLD_MAX, scratch, out, &end), HELLO_NONAME);
	/* Another record type, another message, an empty record. */
	mn = hello_msg(m, "a.test", 0);
	n = records(b, m, mn, 16384);
	b[0] = 0x17;
	assert_int_equal(tls_hello(b, n, NAMES_HOLD_MAX, scratch, out, &end), HELLO_BAD);
	b[0] = 0x16;
	b[5] = 2;
	assert_int_equal(tls_hello(b, n, NAMES_HOLD_MAX, scratch, out, &end), HELLO_BAD);
	assert_int_equal(tls_hello((const uint8_t *)"\x16\x03\x01\x00\x00", 5, NAMES_HOLD_MAX,
				   scratch, out, &end),
			 HELLO_BAD);
	/* A second record that is not a handshake's: bad, as soon as its type is there. */
	n = records(b, m, mn, 20);
	b[25] = 0x17;
	assert_int_equal(tls_hello(b, 26, NAMES_HOLD_MAX, scratch, out, &end), HELLO_BAD);
	/* A message that ends inside a record: another message shares it. */
	n = records(b, m, mn, 16384);
	b[4]++;
	b[n] = 0;
	assert_int_equal(tls_hello(b, n + 1, NAMES_HOLD_MAX, scratch, out, &end), HELLO_BAD);
	/* Longer than the bound: too long as soon as its length says so. */
	mn = hello_msg(m, "a.test", 4000);
	n = records(b, m, mn, 1000);
	assert_int_equal(tls_hello(b, 9, 4000, scratch, out, &end), HELLO_LONG);
	assert_int_equal(tls_hello(b, n, 5000, scratch, out, &end), HELLO_NAME);
}

/* ---- an HTTP request stream ---------------------------------------------------- */

/*
 * s (n bytes) cut at each offset in cuts (ascending), fed as the relay
 * feeds a flow's segments: the head not yet whole held, the rest read in
 * place. The Host names judged, in order, joined by spaces into out. 0,
 * the http_err of the first error, or -1 when s ends inside a head.
 */
static int follow_stream(const char *s, size_t n, const size_t *cuts, size_t ncuts, char *out)
{
	static uint8_t hold[NAMES_HOLD_MAX + 1];
	static struct http_req q, hq;
	struct http_follow st = { 0 };
	size_t hlen = 0, at = 0;
	char name[DNS_NAME_MAX];
	int err;

	out[0] = 0;
	for (size_t c = 0; c <= ncuts; c++) {
		/* cuts is NULL only with ncuts 0. */
		/* cppcheck-suppress nullPointer */
		size_t to = c < ncuts ? cuts[c] : n, m = to - at, pos = 0, take;
		const uint8_t *d = (const uint8_t *)s + at;
		int k;

		at = to;
		if (hlen) {
			take = m < sizeof(hold) - hlen ? m : sizeof(hold) - hlen;
			memcpy(hold + hlen, d, take);
			k = http_follow_held(&hq, hold, hlen + take, &err);
			if (k == FOLLOW_ERR)
				return err;
			if (k == FOLLOW_PARTIAL) {
				assert_int_equal(take, m);
				hlen += take;
				continue;
			}
			assert_int_equal(k, FOLLOW_HEAD);
			if (http_req_name(&hq, hold, name) < 0)
				strcpy(name, "-");
			strcat(strcat(out, out[0] ? " " : ""), name);
			http_follow_head(&st, &hq);
			assert_true(hq.head_len > hlen);
			pos = hq.head_len - hlen;
			hlen = 0;
		}
		for (;;) {
			k = http_follow(&st, &q, d, m, &pos, &err);
			if (k == FOLLOW_DONE)
				break;
			if (k == FOLLOW_ERR)
				return err;
			if (k == FOLLOW_PARTIAL) {
				hlen = m - pos;
				memcpy(hold, d + pos, hlen);
				hq = q;
				break;
			}
			if (http_req_name(&q, d + pos, name) < 0)
				strcpy(name, "-");
			strcat(strcat(out, out[0] ? " " : ""), name);
			http_follow_head(&st, &q);
			pos += q.head_len;
		}
	}
	return hlen ? -1 : 0;
}

/*
 * Four requests kept alive: no body, a Content-Length body, a chunked one
 * whose data looks like a request head, WebDAV's PROPFIND. Whole, cut at
 * every offset, and cut at every pair of offsets: the same four names,
 * never a name out of a body.
 */
static const char STREAM[] = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n"
			     "POST /x HTTP/1.1\r\nHost: B.test:8080\r\nContent-Length: 37\r\n\r\n"
			     "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n"
			     "PUT / HTTP/1.1\r\nHost: c.test\r\nTransfer-Encoding: chunked\r\n\r\n"
			     "23;x=1\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n\r\n"
			     "0\r\nTrailer: t\r\n\r\n"
			     "PROPFIND / HTTP/1.1\r\nHost: d.test\r\nDepth: 1\r\n\r\n";

static void test_http_follow_split_anywhere(void **state)
{
	const size_t n = sizeof(STREAM) - 1;
	char out[256];
	size_t cuts[2];

	(void)state;
	assert_int_equal(follow_stream(STREAM, n, NULL, 0, out), 0);
	assert_string_equal(out, "a.test b.test c.test d.test");
	for (size_t i = 1; i < n; i++) {
		cuts[0] = i;
		assert_int_equal(follow_stream(STREAM, n, cuts, 1, out), 0);
		assert_string_equal(out, "a.test b.test c.test d.test");
	}
	for (size_t i = 1; i < n; i += 3) {
		for (size_t j = i + 1; j < n; j += 5) {
			cuts[0] = i;
			cuts[1] = j;
			assert_int_equal(follow_stream(STREAM, n, cuts, 2, out), 0);
			assert_string_equal(out, "a.test b.test c.test d.test");
		}
	}
	/* A byte at a time. */
	{
		static size_t each[sizeof(STREAM)];

		for (size_t i = 1; i < n; i++)
			each[i - 1] = i;
		assert_int_equal(follow_stream(STREAM, n, each, n - 1, out), 0);
		assert_string_equal(out, "a.test b.test c.test d.test");
	}
	/* Ending inside a head: not decided. */
	assert_int_equal(follow_stream("GET / HTTP/1.1\r\nHost: a", 24, NULL, 0, out), -1);
}

/* Framing that two parsers could read two ways: an error however it is cut. */
static void test_http_follow_ambiguous_refused(void **state)
{
	static const struct {
		const char *s;
		int err;
	} C[] = {
		{ "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n"
		  "Transfer-Encoding: chunked\r\n\r\n",
		  HTTP_ETELENGTH },
		{ "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\nContent-Length: "
		  "5\r\n\r\n",
		  HTTP_ELENGTH },
		{ "POST / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		  HTTP_ETE },
		{ "GET / HTTP/1.1\r\nHost: a.test\nX: y\r\n\r\n", HTTP_ECRLF },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\nX: y\r\n z\r\n\r\n", HTTP_EFOLD },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\n\r\n", HTTP_ECONNECT },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\n\r\n", HTTP_EUPGRADE },
		{ "GET http://other.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", HTTP_ETARGET },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n", HTTP_EHOST },
		/* After a good request, the second one's framing. */
		{ "GET / HTTP/1.1\r\nHost: a.test\r\n\r\nPOST / HTTP/1.1\r\nHost: a.test\r\n"
		  "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		  HTTP_ETELENGTH },
		{ "PUT / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		  HTTP_ECHUNK },
	};
	char out[256];
	size_t cut;

	(void)state;
	for (size_t i = 0; i < sizeof(C) / sizeof(C[0]); i++) {
		size_t n = strlen(C[i].s);

		assert_int_equal(follow_stream(C[i].s, n, NULL, 0, out), C[i].err);
		for (cut = 1; cut < n; cut++)
			assert_int_equal(follow_stream(C[i].s, n, &cut, 1, out), C[i].err);
	}
}

/* A head past NAMES_HOLD_MAX: too long, whether whole in one piece or held. */
static void test_http_follow_head_bound(void **state)
{
	static char big[NAMES_HOLD_MAX + 2048];
	char out[256];
	size_t n, cut = 100;

	(void)state;
	n = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\nHost: a.test\r\n");
	while (n < NAMES_HOLD_MAX + 16)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "X-Pad: %01000d\r\n", 0);
	n += (size_t)snprintf(big + n, sizeof(big) - n, "\r\n");
	assert_int_equal(follow_stream(big, n, NULL, 0, out), HTTP_EHEAD);
	assert_int_equal(follow_stream(big, n, &cut, 1, out), HTTP_EHEAD);
}

static void test_http_req_name(void **state)
{
	static const struct {
		const char *req;
		int rc;
		const char *host;
	} C[] = {
		{ "GET / HTTP/1.1\r\nHost: A.inet.test\r\nAccept: */*\r\n\r\n", 1, "a.inet.test" },
		{ "POST /x HTTP/1.1\r\nhost:a.inet.test:8080 \r\n\r\n", 1, "a.inet.test" },
		{ "GET / HTTP/1.0\r\n\r\n", -1, NULL }, /* no Host */
		{ "GET / HTTP/1.1\r\nHost: [2001:db8::1]\r\n\r\n", -1, NULL },
		{ "GET / HTTP/1.1\r\nHost: a.test:x\r\n\r\n", -1, NULL },
		{ "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", -1, NULL },
	};
	struct http_req q;
	char out[DNS_NAME_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(C) / sizeof(C[0]); i++) {
		memset(&q, 0, sizeof(q));
		assert_int_equal(http_req_parse(&q, C[i].req, strlen(C[i].req)), HTTP_OK);
		assert_int_equal(http_req_name(&q, (const uint8_t *)C[i].req, out), C[i].rc);
		if (C[i].host)
			assert_string_equal(out, C[i].host);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff_first),
		cmocka_unit_test(test_tls_hello_split_anywhere),
		cmocka_unit_test(test_tls_hello_refused_shapes),
		cmocka_unit_test(test_http_follow_split_anywhere),
		cmocka_unit_test(test_http_follow_ambiguous_refused),
		cmocka_unit_test(test_http_follow_head_bound),
		cmocka_unit_test(test_http_req_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
