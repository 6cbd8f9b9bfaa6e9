/* SPDX-License-Identifier: ISC */
/*
 * The scrubber's scan (http.h): at each position of the bytes held and the
 * bytes new, each form is tried; a whole match leaves as the phantom in the
 * same form, a match cut by the end of what has come is held with all that
 * follows it, and any other byte leaves as it is. A byte that begins no form
 * (first[]) is let out at once, and a run of them in one copy. Pure.
 *
 * The text form is matched greedily, an escape before a literal byte: a
 * value holding '%' or '\' whose echo could be read two ways is read the
 * escaped way first. A hostile upstream can make each position cost up to
 * the longest form (6 bytes to the value's byte): the work is bounded by
 * the response's length times that.
 *
 * A byte that begins a form but whose next byte does not go on with any
 * (pair[]) leaves too: every form is longer than two bytes, and the forms
 * are read from the left, so what two bytes refuse no later byte accepts.
 * Text has such a byte every few bytes (the value's first letter, a
 * digit): 4 to 5 ms per MiB of text went to trying the forms there, 0.4
 * to 0.5 now; 0.36 for a MiB of one letter, 0.53 before.
 */
#include <string.h>

#include "http.h"

enum { NO, YES, PART };

/* The held bytes, then the new ones, as one string; -1 past its end. */
struct win {
	const uint8_t *h, *in;
	size_t hn, n;
};

static int at(const struct win *w, size_t i)
{
	if (i < w->hn)
		return w->h[i];
	i -= w->hn;
	return i < w->n ? w->in[i] : -1;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Two hex digits at i, i + 1 equal to c: YES, NO, or PART (cut by the end). */
static int hex2(const struct win *w, size_t i, uint8_t c)
{
	int a = at(w, i), b;

	if (a < 0)
		return PART;
	if (hexval(a) != c >> 4)
		return NO;
	b = at(w, i + 1);
	if (b < 0)
		return PART;
	return hexval(b) == (c & 15) ? YES : NO;
}

/* One byte c of the value at i in the text form: YES with *n bytes, NO, or PART. */
static int text_byte(const struct win *w, size_t i, uint8_t c, size_t *n)
{
	int x = at(w, i), y, k;

	if (x < 0)
		return PART;
	if (x == '%') {
		k = hex2(w, i + 1, c);
		if (k == YES) {
			*n = 3;
			return YES;
		}
		if (k == PART)
			return PART;
	} else if (x == '\\') {
		y = at(w, i + 1);
		if (y < 0)
			return PART;
		if (y == 'u') {
			int z0 = at(w, i + 2), z1 = at(w, i + 3);

			if (z0 < 0 || (z0 == '0' && z1 < 0))
				return PART;
			if (z0 == '0' && z1 == '0') {
				k = hex2(w, i + 4, c);
				if (k == YES) {
					*n = 6;
					return YES;
				}
				if (k == PART)
					return PART;
			}
		} else if (y == c && (c == '/' || c == '"' || c == '\\')) {
			*n = 2;
			return YES;
		}
	}
	if (lower(x) == lower(c)) {
		*n = 1;
		return YES;
	}
	return NO;
}

/* The text form at p: YES with its length in *len (written as the phantom's into out), NO,
 * PART. */
static int text_match(const struct http_repl *r, const struct win *w, size_t p, size_t *len,
		      uint8_t *out)
{
	/* %HH in uppercase (RFC 3986, 2.1), \u00hh in lowercase (as JSON encoders write it). */
	static const char H[] = "0123456789ABCDEF", h[] = "0123456789abcdef";
	size_t i = p, n = 0;

	for (size_t k = 0; k < r->len; k++) {
		int m = text_byte(w, i, r->real[k], &n);

		if (m != YES)
			return m;
		if (out) {
			uint8_t c = r->phantom[k];

			switch (n) {
			case 1:
				*out++ = c;
				break;
			case 2: /* \/ : two bytes, and the phantom's byte is a letter */
				*out++ = c;
				*out++ = c;
				break;
			case 3:
				*out++ = '%';
				*out++ = (uint8_t)H[c >> 4];
				*out++ = (uint8_t)H[c & 15];
				break;
			default:
				memcpy(out, "\\u00", 4);
				out[4] = (uint8_t)h[c >> 4];
				out[5] = (uint8_t)h[c & 15];
				out += 6;
				break;
			}
		}
		i += n;
	}
	*len = i - p;
	return YES;
}

static int fixed_match(const struct http_repl_form *f, const struct win *w, size_t p)
{
	for (size_t k = 0; k < f->len; k++) {
		int x = at(w, p + k);

		if (x < 0)
			return PART;
		if (x != f->real[k] && !(f->ci && lower(x) == f->real[k]))
			return NO;
	}
	return YES;
}

/*
 * Every form at p: YES (the longest whole match, its length in *len), PART or
 * NO. While a form could still match (and the stream goes on), PART, even if
 * another matched already: the longest must win however the stream is cut.
 */
static int match(const struct http_repl *r, const struct win *w, size_t p, int final, size_t *len,
		 int *which)
{
	int part = 0, m;
	size_t n;

	*len = 0;
	m = text_match(r, w, p, &n, NULL);
	if (m == YES) {
		*len = n;
		*which = -1;
	}
	part |= m == PART;
	for (size_t i = 0; i < r->nfixed; i++) {
		m = fixed_match(&r->fixed[i], w, p);
		if (m == YES && r->fixed[i].len > *len) {
			*len = r->fixed[i].len;
			*which = (int)i;
		}
		part |= m == PART;
	}
	if (part && !final)
		return PART;
	return *len ? YES : NO;
}

/*
 * From q on, before e: the first byte a form may begin at (its next byte
 * may go on), or e. Four pairs at a time, one branch: in text a byte that
 * begins a form comes every few bytes, a pair that does hardly ever.
 */
static const uint8_t *skip(const struct http_repl *r, const uint8_t *q, const uint8_t *e)
{
	for (;; q++) {
		while (e - q >= 5 && !(r->pair[q[0]][q[1]] | r->pair[q[1]][q[2]] |
				       r->pair[q[2]][q[3]] | r->pair[q[3]][q[4]]))
			q += 4;
		while (q < e && !r->first[*q])
			q++;
		/* The last byte: its next is to come, held if a form may begin there. */
		if (e - q < 2 || r->pair[q[0]][q[1]])
			return q;
	}
}

size_t http_repl_scan(struct http_repl *r, const void *in, size_t len, void *out, int final)
{
	struct win w = { r->hold, in, r->held, len };
	size_t total = r->held + len, p = 0, n, o = 0;
	uint8_t *dst = out;
	int which = -1, m;

	while (p < total) {
		/* A run of bytes that begin nothing, among the new ones: one copy. */
		if (p >= w.hn) {
			const uint8_t *s = w.in + (p - w.hn), *e = w.in + len, *q = skip(r, s, e);

			memcpy(dst + o, s, (size_t)(q - s));
			o += (size_t)(q - s);
			p += (size_t)(q - s);
			if (p == total)
				break;
		} else if (!r->first[w.h[p]]) {
			dst[o++] = w.h[p++];
			continue;
		}
		m = match(r, &w, p, final, &n, &which);
		if (m == YES) {
			if (which < 0)
				text_match(r, &w, p, &n, dst + o);
			else
				memcpy(dst + o, r->fixed[which].phantom, n);
			o += n;
			p += n;
		} else if (m == PART) {
			/* Held: fewer bytes than the longest form, from p on. */
			size_t keep = total - p;

			if (p < w.hn) {
				memmove(r->hold, r->hold + p, w.hn - p);
				if (len)
					memcpy(r->hold + (w.hn - p), in, len);
			} else {
				memcpy(r->hold, w.in + (p - w.hn), keep);
			}
			r->held = keep;
			return o;
		} else {
			/* No match; at the end, a form cut short is none either. */
			dst[o++] = (uint8_t)at(&w, p);
			p++;
		}
	}
	r->held = 0;
	return o;
}
