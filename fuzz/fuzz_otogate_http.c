// FUZZ: lib/http_req_parse.c lib/http_body_feed.c lib/http_head_rewrite.c lib/http_value_ok.c
// FUZZ: lib/http_repl_init.c lib/http_repl_feed.c lib/http_repl_flush.c lib/http_head_line.c
// FUZZ: lib/http_header_line.c lib/http_resp_parse.c
/*
 * otogate's HTTP code over any bytes: the agent's requests (lib/http_*.c).
 * Input: one byte that cuts the reads, one that sizes the pattern of the
 * streaming replacer, then the stream. For each request of the stream (a
 * kept-alive connection, up to 8):
 *   - the head parsed whole and parsed in reads cut anywhere agree exactly;
 *   - a head it accepts, rewritten with a phantom replaced by the real value,
 *     parses again to the same request line, the same header names, the same
 *     framing (no phantom left in a value): the rewrite can never turn a
 *     header into a body or the reverse;
 *   - the body read whole and read in cut pieces ends at the same byte with
 *     the same data, within the stream;
 * the same stream read as a response (to a HEAD when the first byte is odd)
 * parses whole as in cut reads, and its body reads whole as in pieces; and
 * the streaming replacer, fed the whole input in cut pieces, equals a
 * whole-string replacement. Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PHANTOM[] = "oto-phantom-f";
static const char REAL[] = "REAL-SECRET-VALUE";

static struct http_req whole, cut, again;
static struct http_resp rwhole, rcut;
static struct http_repl repl;

/* The next read's length, from a small generator seeded by the input. */
static size_t step(uint32_t *s, size_t max)
{
	*s = *s * 1103515245u + 12345u;
	return max ? 1 + (*s >> 16) % max : 0;
}

static size_t body_read(const char *p, size_t n, struct http_body b, uint32_t seed, int split,
			char *dat, size_t *dn, int *res)
{
	size_t pos = 0, end = 0;

	*dn = 0;
	*res = HTTP_MORE;
	while (*res == HTTP_MORE) {
		size_t used, doff, dlen;

		if (pos == end) {
			if (end == n)
				break;
			end = split ? end + step(&seed, n - end) : n;
		}
		*res = http_body_feed(&b, p + pos, end - pos, &used, &doff, &dlen);
		if (used > end - pos || doff + dlen > used)
			abort();
		memcpy(dat + *dn, p + pos + doff, dlen);
		*dn += dlen;
		pos += used;
	}
	return pos;
}

static void check_rewrite(const char *p)
{
	static char out[4 * HTTP_MAX_HEAD];
	unsigned int count;
	ssize_t n = http_head_rewrite(p, &whole, PHANTOM, strlen(PHANTOM), REAL, strlen(REAL),
				      "up.test", 7, out, sizeof(out), &count);
	size_t bound = whole.head_len + whole.nheaders +
		       (whole.head_len / strlen(PHANTOM)) * strlen(REAL) + 7 + 8;

	if (n < 0 || (size_t)n > bound)
		abort();
	memset(&again, 0, sizeof(again));
	/*
	 * The rewritten head may pass HTTP_MAX_HEAD or a line's limit (a longer real
	 * value, "Name: value" for "Name:value"), or HTTP_MAX_HEADERS (Host added to
	 * an HTTP/1.0 request of 100 headers): it may fail for that, never for
	 * anything else.
	 */
	switch (http_req_parse(&again, out, (size_t)n)) {
	case HTTP_OK:
		break;
	case HTTP_ELINE:
	case HTTP_EHEAD:
	case HTTP_ECOUNT:
		return;
	default:
		abort();
	}
	if (again.head_len != (size_t)n || again.method.len != whole.method.len ||
	    memcmp(out + again.method.off, p + whole.method.off, whole.method.len) ||
	    again.target.len != whole.target.len ||
	    memcmp(out + again.target.off, p + whole.target.off, whole.target.len) ||
	    again.minor != whole.minor || again.keep_alive != whole.keep_alive ||
	    again.body.kind != whole.body.kind || again.body.left != whole.body.left ||
	    again.nheaders != whole.nheaders + (whole.host < 0))
		abort();
	for (uint32_t i = 0; i < whole.nheaders; i++) {
		const struct http_header *a = &whole.h[i], *b = &again.h[i];

		if (a->name.len != b->name.len ||
		    memcmp(p + a->name.off, out + b->name.off, a->name.len))
			abort();
		if (memmem(out + b->value.off, b->value.len, PHANTOM, strlen(PHANTOM)))
			abort();
	}
}

static void check_repl(const uint8_t *s, size_t n, size_t plen, uint32_t seed)
{
	static uint8_t out[2 * 4096 + 64], want[2 * 4096 + 64];
	const uint8_t *from = s;
	size_t o = 0, w = 0, pos = 0;

	if (n > 4096 || plen > n)
		return;
	if (http_repl_init(&repl, from, plen, "PH", 2) < 0)
		abort();
	while (pos < n) {
		size_t k = step(&seed, n - pos), max = http_repl_max(&repl, k), got;

		got = http_repl_feed(&repl, s + pos, k, out + o);
		if (got > max)
			abort();
		o += got;
		pos += k;
	}
	o += http_repl_flush(&repl, out + o);
	for (size_t i = 0; i < n;) {
		if (n - i >= plen && !memcmp(s + i, from, plen)) {
			memcpy(want + w, "PH", 2);
			w += 2;
			i += plen;
		} else {
			want[w++] = s[i++];
		}
	}
	if (o != w || memcmp(out, want, w))
		abort();
}

static void check_resp(const char *p, size_t n, uint32_t seed, int head)
{
	static char dat1[1 << 20], dat2[1 << 20];
	size_t pos = 0, u1, u2, d1, d2;
	int e1, e2, r1, r2;

	memset(&rwhole, 0, sizeof(rwhole));
	e1 = http_resp_parse(&rwhole, p, n, head);
	memset(&rcut, 0, sizeof(rcut));
	do {
		pos += step(&seed, n - pos);
		e2 = http_resp_parse(&rcut, p, pos, head);
	} while (e2 == HTTP_MORE && pos < n);
	if (e1 != e2)
		abort();
	if (e1 != HTTP_OK)
		return;
	if (rwhole.head_len != rcut.head_len || rwhole.status != rcut.status ||
	    rwhole.status < 100 || rwhole.status > 599 || rwhole.status == 101 ||
	    rwhole.nheaders != rcut.nheaders ||
	    memcmp(rwhole.h, rcut.h, rwhole.nheaders * sizeof(rwhole.h[0])) ||
	    memcmp(&rwhole.body, &rcut.body, sizeof(rwhole.body)) || rwhole.head_len > n ||
	    ((head || rwhole.status < 200) && rwhole.body.kind != HTTP_BODY_NONE) ||
	    (rwhole.body.kind == HTTP_BODY_CLOSE && rwhole.keep_alive))
		abort();
	u1 = body_read(p + rwhole.head_len, n - rwhole.head_len, rwhole.body, seed, 0, dat1, &d1,
		       &r1);
	u2 = body_read(p + rwhole.head_len, n - rwhole.head_len, rwhole.body, seed, 1, dat2, &d2,
		       &r2);
	if (r1 != r2 || u1 != u2 || d1 != d2 || memcmp(dat1, dat2, d1))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dat1[1 << 20], dat2[1 << 20];
	const char *p;
	size_t n, off = 0;
	uint32_t seed;

	if (size < 2 || size > (1 << 20))
		return 0;
	seed = data[0];
	check_repl(data + 2, size - 2, 1 + data[1] % 8, seed);
	check_resp((const char *)data + 2, size - 2, seed, data[0] & 1);
	p = (const char *)data + 2;
	n = size - 2;
	for (int req = 0; req < 8 && off < n; req++) {
		const char *q = p + off;
		size_t left = n - off, pos = 0, u1, u2, d1, d2;
		int e1, e2, r1, r2;

		memset(&whole, 0, sizeof(whole));
		e1 = http_req_parse(&whole, q, left);
		memset(&cut, 0, sizeof(cut));
		do {
			pos += step(&seed, left - pos);
			e2 = http_req_parse(&cut, q, pos);
		} while (e2 == HTTP_MORE && pos < left);
		if (e1 != e2)
			abort();
		if (e1 != HTTP_OK)
			return 0;
		if (memcmp(&whole.method, &cut.method, sizeof(whole.method)) ||
		    memcmp(&whole.target, &cut.target, sizeof(whole.target)) ||
		    whole.head_len != cut.head_len || whole.nheaders != cut.nheaders ||
		    memcmp(whole.h, cut.h, whole.nheaders * sizeof(whole.h[0])) ||
		    whole.head_len > left || whole.nheaders > HTTP_MAX_HEADERS)
			abort();
		check_rewrite(q);
		u1 = body_read(q + whole.head_len, left - whole.head_len, whole.body, seed, 0, dat1,
			       &d1, &r1);
		u2 = body_read(q + whole.head_len, left - whole.head_len, whole.body, seed, 1, dat2,
			       &d2, &r2);
		if (r1 != r2 || u1 != u2 || d1 != d2 || memcmp(dat1, dat2, d1) ||
		    u1 > left - whole.head_len)
			abort();
		if (r1 != HTTP_OK || !whole.keep_alive)
			return 0;
		off += whole.head_len + u1;
	}
	return 0;
}
