// FUZZ: cmd/otonet/sni.c cmd/otonet/follow.c
/*
 * What a flow a name allowed sends is the agent's: the first-bytes
 * classifier, a ClientHello in any records, an HTTP/1.1 request stream
 * followed. The input's first byte says where to cut the rest in two (as
 * two segments would), and the answers must not depend on the cut: a
 * prefix is never "neither" when the whole is TLS or HTTP, a ClientHello
 * whole in the first piece is the same whole in both, and the heads found
 * following the stream in two pieces, the first head held as the relay
 * holds it, are the heads found in one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The heads' names (or "-") of d[0, n) in cut pieces, as a string of names; the result code. */
static int follow(const uint8_t *d, size_t n, size_t cut, char *out, size_t outsz)
{
	static uint8_t hold[NAMES_HOLD_MAX + 1];
	static struct http_req q, hq;
	struct http_follow st = { 0 };
	size_t hlen = 0, at = 0, o = 0;
	char name[DNS_NAME_MAX];
	int err = 0;

	out[0] = 0;
	for (int piece = 0; piece < 2; piece++) {
		size_t to = piece ? n : cut, m = to - at, pos = 0, take;
		const uint8_t *p = d + at;
		int k;

		at = to;
		if (hlen) {
			take = m < sizeof(hold) - hlen ? m : sizeof(hold) - hlen;
			memcpy(hold + hlen, p, take);
			k = http_follow_held(&hq, hold, hlen + take, &err);
			if (k == FOLLOW_ERR)
				return 100 + err;
			if (k == FOLLOW_PARTIAL) {
				if (take != m)
					abort(); /* past the bound, every parser has decided */
				hlen += take;
				continue;
			}
			if (hq.head_len <= hlen || hq.head_len > hlen + take)
				abort();
			if (http_req_name(&hq, hold, name) < 0)
				strcpy(name, "-");
			o += (size_t)snprintf(out + o, outsz - o, " %s", name);
			if (o >= outsz)
				return 1;
			http_follow_head(&st, &hq);
			pos = hq.head_len - hlen;
			hlen = 0;
		}
		for (;;) {
			k = http_follow(&st, &q, p, m, &pos, &err);
			if (k == FOLLOW_DONE)
				break;
			if (k == FOLLOW_ERR)
				return 100 + err;
			if (k == FOLLOW_PARTIAL) {
				hlen = m - pos;
				memcpy(hold, p + pos, hlen);
				hq = q;
				break;
			}
			if (pos + q.head_len > m)
				abort();
			if (http_req_name(&q, p + pos, name) < 0)
				strcpy(name, "-");
			o += (size_t)snprintf(out + o, outsz - o, " %s", name);
			if (o >= outsz)
				return 1;
			http_follow_head(&st, &q);
			pos += q.head_len;
		}
	}
	return hlen ? 2 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t scratch[NAMES_HOLD_MAX];
	static char one[8192], two[8192];
	char n1[DNS_NAME_MAX], n2[DNS_NAME_MAX];
	const uint8_t *d = data + 1;
	size_t n, cut, e1 = 0, e2 = 0;
	enum sniff whole;
	int k1, k2, r1, r2;

	if (size < 1)
		return 0;
	n = size - 1;
	cut = n ? data[0] % (n + 1) : 0;
	whole = sniff_first(d, n);
	if (whole == SNIFF_TLS || whole == SNIFF_HTTP)
		for (size_t k = 0; k < n && k < 64; k++)
			if (sniff_first(d, k) == SNIFF_NEITHER)
				abort();
	/* A hello decided on the first piece is decided the same on it all. */
	k1 = tls_hello(d, cut, NAMES_HOLD_MAX, scratch, n1, &e1);
	k2 = tls_hello(d, n, NAMES_HOLD_MAX, scratch, n2, &e2);
	if (k1 != HELLO_MORE && (k1 != k2 || (k1 == HELLO_NAME && (e1 != e2 || strcmp(n1, n2)))))
		abort();
	if (k2 == HELLO_NAME && (e2 > n || e2 < 9))
		abort();
	/* The stream's heads, whole and in two pieces. */
	r1 = follow(d, n, n, one, sizeof(one));
	r2 = follow(d, n, cut, two, sizeof(two));
	if (r1 != 1 && r2 != 1 && (r1 != r2 || strcmp(one, two)))
		abort();
	return 0;
}
