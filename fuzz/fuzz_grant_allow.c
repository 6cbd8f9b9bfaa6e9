// FUZZ: cmd/otogate/parse.c cmd/otogate/allow.c
/*
 * otogate's --grant options and its allow= matcher over any bytes. Input:
 * the grant's options (after "K=https://api.test"), a NUL, the method, a
 * space, the request's target. A grant that parses has only rules whose
 * method is a token and whose prefix is a path in the form the gateway
 * serves; a request it serves (with rules) has a path in that form with no
 * "." or ".." segment, no empty one, no encoded '/', '.', '\' or '%', and
 * names a rule whose method is its own (or "*") and whose prefix ends at a
 * segment's end of it; the same request judged with its target cut
 * anywhere never reads past the cut. When the request is a whole head that
 * parses, allow_head_check passes it only if the grant limits nothing, or
 * its path has no byte above 0x7f (raw or %80 to %FF), no header is an
 * override (any case, '_' for '-') and no query parameter is named
 * "_method" as sent. Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "otogate/otogate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct grant g;
static char spec[4096];

static int has(const char *p, size_t len, const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i + n <= len; i++)
		if (!strncasecmp(p + i, s, n))
			return 1;
	return 0;
}

static void check_served(const char *m, size_t ml, const char *t, size_t tl)
{
	const char *q = memchr(t, '?', tl);
	size_t pl = q ? (size_t)(q - t) : tl;
	int found = 0;

	if (!pl || t[0] != '/' || has(t, pl, "//") || has(t, pl, "/./") || has(t, pl, "/../") ||
	    has(t, pl, "%2e") || has(t, pl, "%2f") || has(t, pl, "%5c") || has(t, pl, "%25") ||
	    has(t, pl, "\\") || has(t, pl, ";") || has(t, pl, "#"))
		abort();
	if ((pl >= 2 && !memcmp(t + pl - 2, "/.", 2)) || (pl >= 3 && !memcmp(t + pl - 3, "/..", 3)))
		abort();
	for (size_t i = 0; i < g.nallow; i++) {
		const struct grant_allow *a = &g.allow[i];
		size_t n = a->prefix_len;

		if (!(a->method_len == 1 && a->method[0] == '*') &&
		    (a->method_len != ml || memcmp(a->method, m, ml)))
			continue;
		if (pl >= n && !memcmp(t, a->prefix, n) &&
		    (a->prefix[n - 1] == '/' || pl == n || t[n] == '/'))
			found = 1;
	}
	if (!found)
		abort();
}

static int has_hex_at(const char *p, size_t len, size_t i)
{
	return i + 2 < len && p[i] == '%' && strchr("89abcdefABCDEF", p[i + 1]) && p[i + 1] &&
	       http_hex((unsigned char)p[i + 2]) >= 0;
}

static void check_head(const char *req, size_t rl)
{
	static const char *const OVER[] = {
		"x-http-method-override", "x-http-method", "x-method-override",
		"x-original-url",	  "x-rewrite-url", "x-original-method",
		"x-forwarded-prefix",
	};
	static struct http_req r;
	const char *why, *t, *q;
	size_t tl, pl;

	memset(&r, 0, sizeof(r));
	if (http_req_parse(&r, req, rl) != HTTP_OK)
		return;
	if (allow_head_check(&g, req, &r, &why) != ALLOW_OK) {
		if (!why || !grant_limits(&g))
			abort();
		return;
	}
	if (!grant_limits(&g))
		return;
	t = req + r.target.off;
	tl = r.target.len;
	q = memchr(t, '?', tl);
	pl = q ? (size_t)(q - t) : tl;
	for (size_t i = 0; i < pl; i++)
		if ((unsigned char)t[i] >= 0x80 || has_hex_at(t, pl, i))
			abort();
	for (uint32_t k = 0; k < r.nheaders; k++) {
		char n[64];
		size_t nl = r.h[k].name.len;

		if (nl >= sizeof(n))
			continue;
		for (size_t i = 0; i < nl; i++)
			n[i] = req[r.h[k].name.off + i] == '_' ? '-' : req[r.h[k].name.off + i];
		for (size_t o = 0; o < sizeof(OVER) / sizeof(OVER[0]); o++)
			if (strlen(OVER[o]) == nl && !strncasecmp(n, OVER[o], nl))
				abort();
	}
	for (size_t i = pl; q && i + 7 <= tl; i++)
		if ((t[i] == '?' || t[i] == '&' || t[i] == ';') && i + 8 <= tl &&
		    !strncasecmp(t + i + 1, "_method", 7) &&
		    (i + 8 == tl || strchr("=&;[", t[i + 8])))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char HEAD[] = "K=https://api.test";
	const uint8_t *nul = memchr(data, 0, size);
	size_t ol = nul ? (size_t)(nul - data) : size;
	const char *why;
	char *req, *sp;
	size_t rl;

	if (ol + sizeof(HEAD) > sizeof(spec))
		return 0;
	memcpy(spec, HEAD, sizeof(HEAD) - 1);
	memcpy(spec + sizeof(HEAD) - 1, data, ol);
	spec[sizeof(HEAD) - 1 + ol] = 0;
	if (grant_parse(spec, &g, &why) < 0) {
		if (!why)
			abort();
		return 0;
	}
	for (size_t i = 0; i < g.nallow; i++) {
		const struct grant_allow *a = &g.allow[i];

		if (!a->method_len || a->method_len > GATE_MAX_METHOD ||
		    a->prefix_len > GATE_MAX_PREFIX || allow_path_check(a->prefix, a->prefix_len))
			abort();
		for (size_t k = 0; k < a->method_len; k++)
			if (!http_tchar((unsigned char)a->method[k]))
				abort();
	}
	if (!nul)
		return 0;
	/* The request, in a buffer of its own size: ASan sees any read past it. */
	rl = size - ol - 1;
	req = malloc(rl ? rl : 1);
	if (!req)
		return 0;
	memcpy(req, nul + 1, rl);
	sp = memchr(req, ' ', rl);
	if (sp) {
		size_t ml = (size_t)(sp - req), tl = rl - ml - 1;

		for (size_t cut = 0; cut <= tl; cut++) {
			enum allow_verdict v = allow_judge(&g, req, ml, sp + 1, cut, &why);

			if (v != ALLOW_OK && !why)
				abort();
			if (v == ALLOW_OK && g.nallow)
				check_served(req, ml, sp + 1, cut);
		}
	}
	check_head(req, rl);
	free(req);
	return 0;
}
