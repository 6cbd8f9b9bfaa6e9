/* SPDX-License-Identifier: ISC */
/*
 * The scrubber's forms (http.h): the fixed ones, base64 at each alignment and
 * hexadecimal, computed once for the real value and, at the same places, for
 * the phantom, so a match is replaced by a string of its own length; and the
 * bytes a match can begin with, and the pairs of bytes, so that most bytes
 * of a response are let out after one table lookup, and nearly all of the
 * rest after a second (every form is two bytes long at least). Pure.
 */
#include <errno.h>
#include <string.h>

#include "http.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/*
 * The value s (n bytes) after a bytes of another string, in base64: of the
 * characters of the whole, those whose six bits are all s's, from the first
 * (bit 8a on) to the last (bits before 8(a + n)). Their number. Each from a
 * 16-bit window of the whole (a zero bytes, then s): a refresh of a login
 * makes some twenty scrubbers, and a loop bit by bit was most of its time.
 */
static size_t b64_inner(const uint8_t *s, size_t n, unsigned a, const char *alpha, uint8_t *out)
{
	uint8_t z[HTTP_MAX_SECRET + 4];
	size_t first = (8 * a + 5) / 6, end = (8 * a + 8 * n) / 6, k = 0;

	memset(z, 0, a);
	memcpy(z + a, s, n);
	z[a + n] = z[a + n + 1] = 0;
	for (size_t i = first; i < end; i++) {
		size_t bit = 6 * i;
		unsigned w = (unsigned)z[bit / 8] << 8 | z[bit / 8 + 1];

		out[k++] = (uint8_t)alpha[w >> (10 - bit % 8) & 63];
	}
	return k;
}

static size_t hex(const uint8_t *s, size_t n, uint8_t *out)
{
	static const char H[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = (uint8_t)H[s[i] >> 4];
		out[2 * i + 1] = (uint8_t)H[s[i] & 15];
	}
	return 2 * n;
}

/* c, and a letter's other case: their number in out. */
static size_t cases(uint8_t c, uint8_t out[2])
{
	out[0] = c;
	if (c >= 'a' && c <= 'z')
		out[1] = (uint8_t)(c - 32);
	else if (c >= 'A' && c <= 'Z')
		out[1] = (uint8_t)(c + 32);
	else
		return 1;
	return 2;
}

/* a then b may begin a form: so may a alone (first[] is the pairs' first bytes). */
static void pair_add(struct http_repl *r, uint8_t a, uint8_t b)
{
	r->pair[a][b] = 1;
	r->first[a] = 1;
}

/* Every a of as (na of them) before every b of bs (nb). */
static void pairs_add(struct http_repl *r, const uint8_t *as, size_t na, const uint8_t *bs,
		      size_t nb)
{
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			pair_add(r, as[i], bs[j]);
}

/*
 * The text form's first two bytes (http_repl_scan.c's text_byte): the
 * value's first byte in either case, then the second's start (itself in
 * either case, or an escape's % or \); or %, then the first byte's high
 * hex digit in either case; or \, then u (\u00hh) or the byte itself for
 * /, " and \.
 */
static void text_pairs(struct http_repl *r, const uint8_t *s)
{
	static const char H[] = "0123456789abcdef";
	uint8_t a[2], b[4], h[2];
	size_t na = cases(s[0], a), nb = cases(s[1], b), nh = cases((uint8_t)H[s[0] >> 4], h);

	b[nb++] = '%';
	b[nb++] = '\\';
	pairs_add(r, a, na, b, nb);
	pairs_add(r, (const uint8_t *)"%", 1, h, nh);
	pair_add(r, '\\', 'u');
	if (s[0] == '/' || s[0] == '"' || s[0] == '\\')
		pair_add(r, '\\', s[0]);
}

/* Keep the form just made unless an earlier one is the same (no +, / or -, _ in it). */
static void keep(struct http_repl *r)
{
	struct http_repl_form *f = &r->fixed[r->nfixed];

	for (size_t i = 0; i < r->nfixed; i++)
		if (r->fixed[i].len == f->len && r->fixed[i].ci == f->ci &&
		    !memcmp(r->fixed[i].real, f->real, f->len))
			return;
	/* Its first two bytes, in either case where it matches so (a form has 20 at least). */
	{
		uint8_t a[2], b[2];
		size_t na = f->ci ? cases(f->real[0], a) : (a[0] = f->real[0], 1);
		size_t nb = f->ci ? cases(f->real[1], b) : (b[0] = f->real[1], 1);

		pairs_add(r, a, na, b, nb);
	}
	r->nfixed++;
}

int http_repl_init(struct http_repl *r, const void *real, const void *phantom, size_t len)
{
	const uint8_t *s = real, *p = phantom;

	if (len < HTTP_MIN_SECRET || len > HTTP_MAX_SECRET) {
		errno = EINVAL;
		return -1;
	}
	r->real = s;
	r->phantom = p;
	r->len = len;
	r->held = 0;
	r->nfixed = 0;
	memset(r->first, 0, sizeof(r->first));
	memset(r->pair, 0, sizeof(r->pair));
	text_pairs(r, s);
	for (unsigned a = 0; a < 3; a++) {
		for (int url = 0; url < 2; url++) {
			struct http_repl_form *f = &r->fixed[r->nfixed];
			const char *alpha = url ? B64URL : B64;

			f->ci = 0;
			f->len = (uint16_t)b64_inner(s, len, a, alpha, f->real);
			b64_inner(p, len, a, alpha, f->phantom);
			keep(r);
		}
	}
	r->fixed[r->nfixed].ci = 1;
	r->fixed[r->nfixed].len = (uint16_t)hex(s, len, r->fixed[r->nfixed].real);
	hex(p, len, r->fixed[r->nfixed].phantom);
	keep(r);
	return 0;
}
