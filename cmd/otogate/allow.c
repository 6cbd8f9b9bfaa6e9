/* SPDX-License-Identifier: ISC */
/*
 * What a grant's credential may do: its allow=METHOD:PREFIX rules, parsed and
 * matched against a request. Pure: no system call, no exit.
 *
 * The path is compared as the agent sent it, byte for byte, so the gateway
 * and the upstream must agree on what it names: a path an upstream could
 * read as another one (a "." or ".." segment, an empty one, a percent-encoded
 * "/", "." , "\" or "%", a backslash, a ';' that some servers cut a segment
 * at, any byte above 0x7f, raw or encoded, which some fold to ASCII: the
 * fullwidth dot, slash and backslash, the one- and two-dot leaders U+2024
 * and U+2025, the small full stop U+FE52 and reverse solidus U+FE68, an
 * overlong sequence...) is refused before it is matched, never normalised:
 * a normalised path would be one the upstream does not see. A prefix is
 * matched up to a segment's end ("/repos" serves /repos and /repos/x, never
 * /repository), the query is not part of it, the method is exact ("*" any).
 *
 * Nor may the request name another method or path than its request line's
 * where an upstream would look for one: a grant that limits requests
 * refuses the override headers and a _method parameter (allow_head_check),
 * for the request the upstream acts on must be the one judged.
 */
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "otogate.h"

#define NONASCII "a non-ASCII byte, raw or percent-encoded"

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
		if (raw >= 0x80)
			return NONASCII;
		if (raw <= 0x20 || raw == 0x7f)
			return "a control or space byte";
		c = next_byte(p, len, &i);
		if (c < 0)
			return "a malformed percent-encoding";
		if (raw != '%')
			continue;
		if (c == '/' || c == '\\' || c == '.' || c == '%' || c == ';')
			return "a percent-encoded / \\ . % or ;";
		if (c < 0x20 || c == 0x7f)
			return "a percent-encoded control byte";
		if (c >= 0x80)
			return NONASCII;
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
		       "//, . or .. segment, %2F, %2E, %5C, %25, ;, ?, # or non-ASCII byte)";
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

int grant_limits(const struct grant *g)
{
	return g->nallow > 0 || g->nask > 0 || g->ask_writes;
}

/*
 * Headers by which an upstream (Rack, express's method-override, Symfony,
 * Spring, IIS's URL Rewrite, a proxy in front of it) serves another method or
 * path than the request line's. Refused whatever their value, even empty.
 */
static const char *const OVERRIDES[] = {
	"X-HTTP-Method-Override", "X-HTTP-Method",     "X-Method-Override",  "X-Original-URL",
	"X-Rewrite-URL",	  "X-Original-Method", "X-Forwarded-Prefix",
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* The override the header name n[0, len) is, whatever its case, a '_' read as '-' (CGI servers
 * turn both into the same variable, HTTP_X_HTTP_METHOD_OVERRIDE), or NULL. */
static const char *override_header(const char *n, size_t len)
{
	for (size_t k = 0; k < sizeof(OVERRIDES) / sizeof(OVERRIDES[0]); k++) {
		const char *s = OVERRIDES[k];
		size_t i = 0;

		if (strlen(s) != len)
			continue;
		while (i < len && lower(n[i] == '_' ? '-' : n[i]) == lower(s[i]))
			i++;
		if (i == len)
			return s;
	}
	return NULL;
}

/*
 * A parameter's name, a decoded byte c at a time, read as PHP reads one
 * (Symfony, Laravel): leading spaces dropped, a space or '.' as '_', the
 * name cut at a NUL or '[' (an array); compared with "_method" in any case.
 */
static void name_byte(struct form_scan *s, int c)
{
	static const char M[] = "_method";

	if (s->cut)
		return;
	if (c == 0 || c == '[') {
		s->cut = 1;
		return;
	}
	if (c == ' ' && !s->n)
		return;
	if (c == ' ' || c == '.')
		c = '_';
	if (s->n == sizeof(M) - 1 || lower(c) != M[s->n]) {
		s->n = sizeof(M); /* not it */
		s->cut = 1;
		return;
	}
	s->n++;
}

/* The name read ends: was it "_method"? Then the next one. */
static void name_end(struct form_scan *s)
{
	if (s->n == sizeof("_method") - 1)
		s->found = 1;
	s->n = 0;
	s->cut = 0;
}

/* A urlencoded form's byte that is no escape's (url_byte). */
static void url_byte_plain(struct form_scan *s, int c)
{
	if (c == '&' || c == ';') {
		if (!s->value)
			name_end(s);
		s->value = 0;
		s->n = 0;
		s->cut = 0;
	} else if (s->value) {
		return;
	} else if (c == '=') {
		name_end(s);
		s->value = 1;
	} else {
		name_byte(s, c == '+' ? ' ' : c);
	}
}

/*
 * One raw byte of a urlencoded form: parameters end at '&' or ';' (Rack's
 * old split), a name at '='; a name's bytes decoded, "+" a space, "%XX" its
 * byte, a bad escape as it is (the '%' and what follows read again).
 */
static void url_byte(struct form_scan *s, int c)
{
	int h = http_hex((unsigned char)c);

	if (s->pct == 1) {
		s->pct = 0;
		if (h >= 0) {
			s->pct = 2;
			s->hi = (unsigned char)h;
			return;
		}
		url_byte_plain(s, '%');
	} else if (s->pct == 2) {
		s->pct = 0;
		if (h >= 0) {
			if (!s->value)
				name_byte(s, s->hi * 16 + h);
			return;
		}
		url_byte_plain(s, '%');
		url_byte_plain(s, "0123456789abcdef"[s->hi]);
	}
	if (c == '%') {
		s->pct = 1;
		return;
	}
	url_byte_plain(s, c);
}

/*
 * One byte of a multipart body: each "name=" (any case; filename= too, so
 * more is refused, never less) starts a name, quoted or not, that ends at
 * its closing quote, ';', a space or a line's end.
 */
static void multipart_byte(struct form_scan *s, int c)
{
	static const char NAME[] = "name=";

	if (s->in_name) {
		if (s->in_name == 1) {
			s->in_name = 2;
			if (c == '"') {
				s->quoted = 1;
				return;
			}
		}
		if ((s->quoted && c == '"') || (!s->quoted && (c == ';' || c == ' ')) ||
		    c == '\r' || c == '\n') {
			name_end(s);
			s->in_name = 0;
			s->quoted = 0;
		} else {
			name_byte(s, c);
		}
		return;
	}
	s->k = lower(c) == NAME[s->k] ? s->k + 1 : lower(c) == NAME[0];
	if (s->k == sizeof(NAME) - 1) {
		s->k = 0;
		s->in_name = 1;
		s->n = 0;
		s->cut = 0;
	}
}

/*
 * The length of p[0, len)'s first run of bytes none of which is one of
 * stop[0, n): eight bytes at a time (a byte is zero in x exactly when
 * (x - ONES) & ~x has its high bit), since a form body can be megabytes.
 */
static size_t span_without(const char *p, size_t len, const char *stop, size_t n)
{
	const uint64_t ones = UINT64_MAX / 255, highs = ones << 7;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w, hit = 0;

		memcpy(&w, p + i, 8);
		for (size_t k = 0; k < n; k++) {
			uint64_t x = w ^ (ones * (unsigned char)stop[k]);

			hit |= (x - ones) & ~x & highs;
		}
		if (hit)
			break;
	}
	while (i < len && !memchr(stop, p[i], n))
		i++;
	return i;
}

/*
 * Runs of bytes that cannot change the scan's answer are skipped whole: in
 * a value, or a name already not "_method", only '&', ';' and '=' count
 * (none is an escape's digit, and an escape cut short gives bytes these
 * states ignore); outside a multipart name, with none of "name=" matched,
 * only an 'n' does.
 */
void form_scan_feed(struct form_scan *s, const char *p, size_t len)
{
	for (size_t i = 0; i < len && !s->found; i++) {
		if (s->kind == FORM_URLENCODED) {
			if (s->value || s->cut)
				i += span_without(p + i, len - i, "&;=", 3);
			if (i < len)
				url_byte(s, (unsigned char)p[i]);
		} else {
			if (!s->in_name && !s->k)
				i += span_without(p + i, len - i, "nN", 2);
			if (i < len)
				multipart_byte(s, (unsigned char)p[i]);
		}
	}
}

int form_scan_end(struct form_scan *s)
{
	if (s->kind == FORM_URLENCODED) {
		if (s->pct)
			url_byte_plain(s, '%');
		if (s->pct == 2)
			url_byte_plain(s, "0123456789abcdef"[s->hi]);
		s->pct = 0;
		if (!s->value)
			name_end(s);
	} else if (s->in_name) {
		name_end(s);
	}
	return s->found;
}

/* Whether the query q[0, len) has a parameter a framework reads as "_method" (a form's rules). */
static int query_has_method(const char *q, size_t len)
{
	struct form_scan s = { .kind = FORM_URLENCODED };

	form_scan_feed(&s, q, len);
	return form_scan_end(&s);
}

/* NONASCII when p holds a byte past ASCII, raw or percent-encoded; else NULL. Pure. */
static const char *path_non_ascii(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)p[i] >= 0x80)
			return NONASCII;
		if (p[i] == '%' && i + 2 < len && http_hex((unsigned char)p[i + 1]) >= 8 &&
		    http_hex((unsigned char)p[i + 2]) >= 0)
			return NONASCII;
	}
	return NULL;
}

enum allow_verdict allow_head_check(const struct grant *g, const char *buf,
				    const struct http_req *r, const char **why)
{
	const char *t = buf + r->target.off, *q;
	size_t tlen = r->target.len, plen;

	*why = NULL;
	if (!grant_limits(g))
		return ALLOW_OK;
	q = memchr(t, '?', tlen);
	plen = q ? (size_t)(q - t) : tlen;
	/*
	 * allow= matches a path, so it must be one path only; ask= asks about
	 * every path it cannot judge (an encoded slash: npm's @scope%2fname),
	 * so only a byte an upstream could fold to ASCII is refused there.
	 */
	*why = g->nallow ? allow_path_check(t, plen) : path_non_ascii(t, plen);
	if (*why)
		return ALLOW_BADPATH;
	for (uint32_t k = 0; k < r->nheaders; k++) {
		*why = override_header(buf + r->h[k].name.off, r->h[k].name.len);
		if (*why)
			return ALLOW_OVERRIDE;
	}
	if (q && query_has_method(q + 1, tlen - plen - 1)) {
		*why = "a _method parameter";
		return ALLOW_OVERRIDE;
	}
	return ALLOW_OK;
}
