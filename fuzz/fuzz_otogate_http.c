// FUZZ: lib/http_req_parse.c lib/http_body_feed.c lib/http_head_rewrite.c lib/http_value_ok.c lib/http_list_has.c
// FUZZ: lib/http_repl_init.c lib/http_repl_scan.c lib/http_head_line.c
// FUZZ: lib/http_header_line.c lib/http_resp_parse.c
/*
 * otogate's HTTP code over any bytes: the agent's requests (lib/http_*.c).
 * Input: one byte that cuts the reads, one that sizes the pattern of the
 * streaming replacer, then the stream. For each request of the stream (a
 * kept-alive connection, up to 8):
 *   - the head parsed whole and parsed in reads cut anywhere agree exactly;
 *   - a head it accepts, rewritten with a phantom replaced by the real value
 *     in the grant's headers (identity asked for), parses again to the same
 *     request line, the same header names but for those identity drops and
 *     adds and the hop-by-hop ones (Connection's own default, then), the
 *     same framing (no phantom left in a grant's header, every
 *     other value as it came): the rewrite can never turn a header into a
 *     body or the reverse;
 *   - the body read whole and read in cut pieces ends at the same byte with
 *     the same data, within the stream;
 * the same stream read as a response (to a HEAD when the first byte is odd)
 * parses whole as in cut reads, and its body reads whole as in pieces; and
 * the streaming scrubber, its value the input's first 16 to 79 bytes, fed the
 * whole input in cut pieces, gives what it gives fed it whole, of the same
 * length, and what it gives with every byte pair allowed to begin a form
 * (pair[]: the filter lets out nothing more). Nothing may crash or read out
 * of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oto.h"
#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PHANTOM[] = "oto-phantom-f";
static const char REAL[] = "REAL-SECRET-VALUE";

static struct http_req whole, cut, again;
static struct http_resp rwhole, rcut;
static struct http_repl repl, ref;

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

/* Whether a Connection header of the head in p names name[0, len) (a list of tokens). */
static int connection_names(const char *p, const char *name, size_t len)
{
	for (uint32_t i = 0; i < whole.nheaders; i++) {
		const struct http_header *h = &whole.h[i];
		const char *v = p + h->value.off, *e = v + h->value.len;

		if (h->name.len != 10 || strncasecmp(p + h->name.off, "connection", 10))
			continue;
		while (v < e) {
			const char *c = memchr(v, ',', (size_t)(e - v)), *s = v, *t = c ? c : e;

			while (s < t && (*s == ' ' || *s == '\t'))
				s++;
			while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
				t--;
			if ((size_t)(t - s) == len && !strncasecmp(s, name, len))
				return 1;
			v = c ? c + 1 : e;
		}
	}
	return 0;
}

/* What the rewrite leaves out: identity's, the hop-by-hop headers, those Connection names. */
static int dropped(const char *p, const char *name, size_t len)
{
	static const char *const D[] = { "accept-encoding",
					 "range",
					 "if-range",
					 "connection",
					 "keep-alive",
					 "proxy-connection",
					 "proxy-authorization",
					 "te",
					 "trailer",
					 "upgrade" };
	static const char *const KEEP[] = { "host", "content-length", "transfer-encoding" };

	for (size_t i = 0; i < ARRAY_SIZE(D); i++)
		if (strlen(D[i]) == len && !strncasecmp(D[i], name, len))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(KEEP); i++)
		if (strlen(KEEP[i]) == len && !strncasecmp(KEEP[i], name, len))
			return 0;
	return connection_names(p, name, len);
}

static int granted(const char *name, size_t len)
{
	return (len == 13 && !strncasecmp(name, "authorization", 13)) ||
	       (len == 9 && !strncasecmp(name, "x-api-key", 9));
}

static void check_rewrite(const char *p)
{
	static const char *const names[] = { "Authorization", "x-api-key" };
	static char out[4 * HTTP_MAX_HEAD];
	struct http_rewrite w = { PHANTOM, REAL, strlen(PHANTOM), strlen(REAL), names, 2, "up.test",
				  7,	   1 };
	unsigned int count;
	ssize_t n = http_head_rewrite(p, &whole, &w, out, sizeof(out), &count);
	size_t bound =
	    2 * whole.head_len + 2 * (whole.head_len / strlen(PHANTOM) + 1) * strlen(REAL) + 7 + 64;
	uint32_t kept = 0, j = 0;

	if (n < 0 || (size_t)n > bound)
		abort();
	for (uint32_t i = 0; i < whole.nheaders; i++)
		kept += !dropped(p, p + whole.h[i].name.off, whole.h[i].name.len);
	memset(&again, 0, sizeof(again));
	/*
	 * The rewritten head may pass HTTP_MAX_HEAD or a line's limit (a longer real
	 * value, "Name: value" for "Name:value"), or HTTP_MAX_HEADERS (Host and
	 * Accept-Encoding added to a request of 100 headers): it may fail for that,
	 * never for anything else.
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
	    again.minor != whole.minor || again.keep_alive != (whole.minor == 1) ||
	    again.body.kind != whole.body.kind || again.body.left != whole.body.left ||
	    again.nheaders != kept + (whole.host < 0) + 1)
		abort();
	for (uint32_t i = 0; i < whole.nheaders; i++) {
		const struct http_header *a = &whole.h[i], *b;

		if (dropped(p, p + a->name.off, a->name.len))
			continue;
		b = &again.h[j++];
		if (a->name.len != b->name.len ||
		    memcmp(p + a->name.off, out + b->name.off, a->name.len))
			abort();
		if (granted(p + a->name.off, a->name.len)) {
			if (memmem(out + b->value.off, b->value.len, PHANTOM, strlen(PHANTOM)))
				abort();
		} else if ((int)i != whole.host &&
			   (a->value.len != b->value.len ||
			    memcmp(p + a->value.off, out + b->value.off, a->value.len))) {
			abort();
		}
	}
}

static void check_repl(const uint8_t *s, size_t n, size_t plen, uint32_t seed)
{
	static uint8_t out[4096 + 64], once[4096 + 64], ph[80];
	size_t o = 0, w, pos = 0;

	if (n > 4096 || plen > n)
		return;
	for (size_t i = 0; i < plen; i++)
		ph[i] = (uint8_t) "abcdefghijklmnopqrstuvwxyz"[i % 26];
	if (http_repl_init(&repl, s, ph, plen) < 0)
		abort();
	/* The pair filter lets out nothing more: the same bytes as with every pair allowed. */
	memcpy(&ref, &repl, sizeof(ref));
	memset(ref.pair, 1, sizeof(ref.pair));
	w = http_repl_feed(&repl, s, n, once);
	w += http_repl_flush(&repl, once + w);
	if (w != n || repl.held)
		abort();
	o = http_repl_feed(&ref, s, n, out);
	o += http_repl_flush(&ref, out + o);
	if (o != w || memcmp(out, once, w))
		abort();
	o = 0;
	while (pos < n) {
		size_t k = step(&seed, n - pos), max = http_repl_max(&repl, k), got;

		got = http_repl_feed(&repl, s + pos, k, out + o);
		if (got > max || repl.held > HTTP_REPL_HOLD)
			abort();
		o += got;
		pos += k;
	}
	o += http_repl_flush(&repl, out + o);
	if (o != w || memcmp(out, once, w))
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
	check_repl(data + 2, size - 2, HTTP_MIN_SECRET + data[1] % 64, seed);
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
