/* SPDX-License-Identifier: ISC */
/*
 * What a grant's credential may do: its allow=METHOD:PREFIX rules, parsed and
 * matched against a request. Pure: no system call, no exit.
 *
 * The path is compared as the agent sent it, byte for byte, so the gateway
 * and the upstream must agree on what it names: a path an upstream could
 * read as another one (a "." or ".." segment, an empty one, a percent-encoded
 * "/", "." , "\" or "%", a backslash, a ';' that some servers cut a segment
 * at, an overlong or invalid UTF-8 sequence, a fullwidth dot or slash that
 * some fold to ASCII) is refused before it is matched, never normalised: a
 * normalised path would be one the upstream does not see. A prefix is
 * matched up to a segment's end ("/repos" serves /repos and /repos/x, never
 * /repository), the query is not part of it, the method is exact ("*" any).
 */
#include <string.h>

#include "http.h"
#include "otogate.h"

/* The path's bytes, percent-decoded: the byte at *i (moved past it), or -1 for a bad escape. */
static int next_byte(const char *p, size_t len, size_t *i)
{
	unsigned char c = (unsigned char)p[*i];
	int h, l;

	if (c != '%') {
		(*i)++;
		return c;
	}
	if (*i + 2 >= len)
		return -1;
	h = http_hex((unsigned char)p[*i + 1]);
	l = http_hex((unsigned char)p[*i + 2]);
	if (h < 0 || l < 0)
		return -1;
	*i += 3;
	return h * 16 + l;
}

/*
 * A UTF-8 sequence from its lead byte b (>= 0x80) and the decoded bytes that
 * follow: its length in the path's bytes consumed past *i, or -1 when it is
 * not the shortest form of a code point, or is U+FF0E, U+FF0F, U+FF3C.
 */
static int utf8_ok(const char *p, size_t len, size_t *i, int b)
{
	int n, cp, lo = 0x80, hi = 0xbf;

	if (b >= 0xc2 && b <= 0xdf)
		n = 1, cp = b & 0x1f;
	else if (b >= 0xe0 && b <= 0xef)
		n = 2, cp = b & 0x0f, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 3, cp = b & 0x07, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
	else
		return -1;
	for (int k = 0; k < n; k++) {
		int c;

		if (*i >= len)
			return -1;
		c = next_byte(p, len, i);
		if (c < lo || c > hi)
			return -1;
		lo = 0x80, hi = 0xbf;
		cp = cp << 6 | (c & 0x3f);
	}
	return cp == 0xff0e || cp == 0xff0f || cp == 0xff3c ? -1 : 0;
}

const char *allow_path_check(const char *p, size_t len)
{
	size_t i = 0, seg = 0;

	if (!len || p[0] != '/')
		return "not a path";
	while (i < len) {
		unsigned char raw = (unsigned char)p[i];
		int c;

		if (raw == '/') {
			size_t sl = i - seg;

			if (i && sl == 0)
				return "an empty segment (//)";
			if ((sl == 1 && p[seg] == '.') ||
			    (sl == 2 && p[seg] == '.' && p[seg + 1] == '.'))
				return "a . or .. segment";
			seg = ++i;
			continue;
		}
		if (raw == '\\')
			return "a backslash";
		if (raw == ';')
			return "a ; (path parameters)";
		if (raw == '#' || raw == '?')
			return "a # or ?";
		if (raw <= 0x20 || raw >= 0x7f)
			return "a control, space or non-ASCII byte";
		c = next_byte(p, len, &i);
		if (c < 0)
			return "a malformed percent-encoding";
		if (raw != '%')
			continue;
		if (c == '/' || c == '\\' || c == '.' || c == '%' || c == ';')
			return "a percent-encoded / \\ . % or ;";
		if (c < 0x20 || c == 0x7f)
			return "a percent-encoded control byte";
		if (c >= 0x80 && utf8_ok(p, len, &i, c) < 0)
			return "an invalid, overlong or look-alike UTF-8 sequence";
	}
	/* The last segment: "/a/." and "/a/.." too. */
	if ((len - seg == 1 && p[seg] == '.') ||
	    (len - seg == 2 && p[seg] == '.' && p[seg + 1] == '.'))
		return "a . or .. segment";
	return NULL;
}

int allow_parse(char *spec, struct grant_allow *a, const char **why)
{
	char *colon = strchr(spec, ':');
	size_t ml, pl;

	if (!colon) {
		*why = "allow=: not METHOD:PATH-PREFIX";
		return -1;
	}
	ml = (size_t)(colon - spec);
	if (!ml || ml > GATE_MAX_METHOD) {
		*why = "allow=: an empty method, or one longer than 32";
		return -1;
	}
	for (size_t i = 0; i < ml; i++)
		if (!http_tchar((unsigned char)spec[i])) {
			*why = "allow=: not a method (a token, or * for any)";
			return -1;
		}
	pl = strlen(colon + 1);
	if (pl > GATE_MAX_PREFIX) {
		*why = "allow=: a path prefix longer than 512";
		return -1;
	}
	if (allow_path_check(colon + 1, pl)) {
		*why = "allow=: the prefix must be a path in the form the gateway serves (/..., no "
		       "//, . or .. segment, %2F, %2E, %5C, %25, ;, ? or #)";
		return -1;
	}
	*colon = 0;
	a->method = spec;
	a->method_len = ml;
	a->prefix = colon + 1;
	a->prefix_len = pl;
	return 0;
}

static int prefix_match(const struct grant_allow *a, const char *p, size_t len)
{
	size_t n = a->prefix_len;

	if (len < n || memcmp(p, a->prefix, n))
		return 0;
	/* Up to a segment's end: "/repos" is not a prefix of "/repository". */
	return a->prefix[n - 1] == '/' || len == n || p[n] == '/';
}

enum allow_verdict allow_judge(const struct grant *g, const char *method, size_t mlen,
			       const char *target, size_t tlen, const char **why)
{
	const char *q = memchr(target, '?', tlen);
	size_t plen = q ? (size_t)(q - target) : tlen;

	*why = NULL;
	if (!g->nallow)
		return ALLOW_OK;
	*why = allow_path_check(target, plen);
	if (*why)
		return ALLOW_BADPATH;
	for (size_t i = 0; i < g->nallow; i++) {
		const struct grant_allow *a = &g->allow[i];

		if (!(a->method_len == 1 && a->method[0] == '*') &&
		    (a->method_len != mlen || memcmp(a->method, method, mlen)))
			continue;
		if (prefix_match(a, target, plen))
			return ALLOW_OK;
	}
	*why = "no allow= of the grant serves this method and path";
	return ALLOW_NOMATCH;
}
