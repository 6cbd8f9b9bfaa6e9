// FUZZ: cmd/otogate/parse.c cmd/otogate/allow.c cmd/otonet/parse.c lib/store_name_ok.c lib/opt.c
// FUZZ: lib/http_req_parse.c lib/http_head_rewrite.c lib/http_value_ok.c lib/http_head_line.c lib/http_list_has.c
// FUZZ: lib/http_header_line.c lib/http_body_feed.c
/*
 * What a transparent grant adds, over any bytes. The input's first byte
 * chooses:
 *   - even: the rest is a --grant value: grant_parse never reads out of
 *     bounds; a grant it takes, formatted into OTO_GATEWAY
 *     (gateway_env_format) with two plain grants around it, parses again in
 *     otonet (gateway_parse) to the same ports, and a transparent one to the
 *     same host and port;
 *   - odd: the rest is the credentials of a Basic Authorization (user, ':',
 *     password: the phantom put in where the input's second byte says),
 *     encoded, in a request's head: rewritten, its value decodes to the
 *     same bytes with every phantom the real value, and nothing else moved;
 *     the same value with its base64 broken is swapped as bytes or left.
 * Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "otogate/otogate.h"
#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char PHANTOM[] = "oto-phantom-abcdefghijklmnop";
static const char REAL[] = "ghp_REAL_0123456789_abcdefghij";

static void grant_case(const uint8_t *d, size_t n)
{
	char spec[600], env[GATE_MAX_GRANTS * (GATE_MAX_HOST + 16) + 16];
	struct grant g[3];
	const char *why = NULL;
	uint16_t ports[NET_MAX_GATEWAY];
	struct gate_host gates[NET_MAX_GATEWAY];
	size_t np = 0, ng = 0;
	int fd = -1;

	if (n >= sizeof(spec))
		n = sizeof(spec) - 1;
	memcpy(spec, d, n);
	spec[n] = 0;
	memset(g, 0, sizeof(g));
	if (grant_parse(spec, &g[1], &why) < 0) {
		if (!why)
			abort();
		return;
	}
	g[0].gw_port = 8001;
	g[1].gw_port = 8002;
	g[2].gw_port = 8003;
	if (!gateway_env_format(env, sizeof(env), 9, g, 3))
		abort();
	if (gateway_parse(env, &fd, ports, &np, gates, &ng) < 0 || fd != 9)
		abort();
	if (g[1].transparent) {
		if (np != 2 || ng != 1 || ports[0] != 8001 || ports[1] != 8003 ||
		    gates[0].gw_port != 8002 || gates[0].port != g[1].port ||
		    strcmp(gates[0].name, g[1].host))
			abort();
	} else if (np != 3 || ng != 0 || ports[1] != 8002) {
		abort();
	}
}

static size_t b64(const uint8_t *s, size_t n, char *out)
{
	static const char B[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);

		out[o++] = B[v >> 18];
		out[o++] = B[v >> 12 & 63];
		out[o++] = i + 1 < n ? B[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? B[v & 63] : '=';
	}
	return o;
}

/* The Authorization value of the head in out (n bytes), base64-decoded into dec: its length. */
static size_t auth_decoded(const char *out, size_t n, uint8_t *dec)
{
	static const char B[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *a = memmem(out, n, "Authorization: Basic ", 21), *e;
	size_t o = 0, len;
	unsigned v = 0;
	int bits = 0;

	if (!a)
		abort();
	a += 21;
	e = memmem(a, n - (size_t)(a - out), "\r\n", 2);
	if (!e)
		abort();
	len = (size_t)(e - a);
	for (size_t i = 0; i < len && a[i] != '='; i++) {
		const char *c = strchr(B, a[i]);

		if (!c || !a[i])
			abort();
		v = v << 6 | (unsigned)(c - B);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			dec[o++] = (uint8_t)(v >> bits);
		}
	}
	return o;
}

static void basic_case(const uint8_t *d, size_t n)
{
	static char head[HTTP_MAX_HEAD], out[3 * HTTP_MAX_HEAD];
	static uint8_t cred[4096], want[8192], got[8192];
	static struct http_req r;
	static const char *const NAMES[] = { "Authorization" };
	struct http_rewrite w = {
		PHANTOM, REAL, strlen(PHANTOM), strlen(REAL), NAMES, 1, NULL, 0, 0
	};
	size_t at, cn = 0, wn = 0, hn, gn, put = 0;
	unsigned int count;
	ssize_t on;

	if (!n)
		return;
	at = d[0];
	d++;
	n--;
	if (n > 1000)
		n = 1000;
	/* The credentials: the input with the phantom put in at every at-th byte (0: once, first),
	 * 16 times at most. */
	for (size_t i = 0; i <= n; i++) {
		if (put < 16 && ((at && i % at == 0) || (!at && i == 0))) {
			put++;
			memcpy(cred + cn, PHANTOM, strlen(PHANTOM));
			cn += strlen(PHANTOM);
			memcpy(want + wn, REAL, strlen(REAL));
			wn += strlen(REAL);
		}
		if (i < n) {
			cred[cn++] = d[i];
			want[wn++] = d[i];
		}
	}
	hn = (size_t)snprintf(head, sizeof(head),
			      "GET /%s HTTP/1.1\r\nHost: a\r\nAuthorization: Basic ", PHANTOM);
	hn += b64(cred, cn, head + hn);
	memcpy(head + hn, "\r\n\r\n", 4);
	hn += 4;
	memset(&r, 0, sizeof(r));
	if (http_req_parse(&r, head, hn) != HTTP_OK)
		abort();
	on = http_head_rewrite(head, &r, &w, out, sizeof(out), &count);
	if (on < 0)
		abort();
	gn = auth_decoded(out, (size_t)on, got);
	/*
	 * The input's bytes may hold a phantom's prefix that the phantom put
	 * after it completes (a match the rewrite takes, and want does not
	 * have): then only the count of real values tells.
	 */
	if (!memmem(d, n, "oto-", 4) && (gn != wn || memcmp(got, want, wn)))
		abort();
	/* The path's phantom stays: never in the request line. */
	if (memcmp(out, "GET /", 5) || memcmp(out + 5, PHANTOM, strlen(PHANTOM)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		basic_case(data + 1, size - 1);
	else
		grant_case(data + 1, size - 1);
	return 0;
}
