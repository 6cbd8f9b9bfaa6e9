/* SPDX-License-Identifier: ISC */
/*
 * The CA bundle's index, pure: each PEM certificate of the bundle decoded
 * to DER and its subject found, without building a certificate object.
 * OpenSSL's own load decodes every certificate whole, its public key
 * through the providers: about 33 ms for Debian's 144 roots with musl,
 * the better part of the gateway's start, all of it before the agent may
 * run. Decoding base64 and walking four ASN.1 headers per certificate
 * takes about 0.12 ms for Debian's 220 KB in a new process (one pass: the
 * END lines found by their dashes, the base64 sixteen characters at a
 * time with SSSE3, four at a time without); the verifier then asks
 * trust.c for the certificates of one subject, the only ones ever parsed
 * whole.
 *
 * The DER is written over the PEM text it comes from (base64 is 4
 * characters for 3 bytes: each write lands on characters already read),
 * so the bundle takes one buffer, the one the file was read into, and not
 * a second one to fault in at every start. Together they took the index
 * at start from 0.20 ms to 0.12 (0.16 with the one buffer alone).
 *
 * What this refuses is what would make the load fail at start: a block
 * that is not base64, or not one DER certificate whose tbsCertificate
 * reaches a subject. A block of another kind (TRUSTED CERTIFICATE, a CRL),
 * or one with PEM headers, is not indexed: bundle_index says so and the
 * caller loads the bundle with OpenSSL's own reader instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <tmmintrin.h>
#endif

#include "otogate.h"

#define BEGIN "-----BEGIN "
#define END   "-----END "
#define DASH  "-----"
#define CERT  "CERTIFICATE"

/* An ASN.1 header at p[0, len): its tag (low tag numbers only), header and content lengths. */
static int der_header(const uint8_t *p, size_t len, uint8_t *tag, size_t *hl, size_t *cl)
{
	size_t n, v = 0;

	if (len < 2 || (p[0] & 0x1f) == 0x1f)
		return -1;
	*tag = p[0];
	if (!(p[1] & 0x80)) {
		*hl = 2;
		*cl = p[1];
	} else {
		/* Definite long form only, in at most 4 bytes, and minimal (DER). */
		n = p[1] & 0x7f;
		if (n == 0 || n > 4 || len < 2 + n || p[2] == 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			v = v << 8 | p[2 + i];
		if (v < 0x80)
			return -1;
		*hl = 2 + n;
		*cl = v;
	}
	return *cl <= len - *hl ? 0 : -1;
}

int bundle_subject(const uint8_t *der, size_t len, size_t *off, size_t *slen)
{
	uint8_t tag;
	size_t hl, cl, at, tbs = 0, tbs_end = 0;

	/* Certificate ::= SEQUENCE, the whole block and nothing after it. */
	if (der_header(der, len, &tag, &hl, &cl) < 0 || tag != 0x30 || hl + cl != len)
		return -1;
	/*
	 * Its three parts, exactly: tbsCertificate (a SEQUENCE, whose content
	 * is kept), the signature's algorithm (a SEQUENCE), the signature (a
	 * BIT STRING).
	 */
	at = hl;
	for (int i = 0; i < 3; i++) {
		static const uint8_t want[3] = { 0x30, 0x30, 0x03 };

		if (der_header(der + at, len - at, &tag, &hl, &cl) < 0 || tag != want[i])
			return -1;
		if (i == 0) {
			tbs = at + hl;
			tbs_end = tbs + cl;
		}
		at += hl + cl;
	}
	if (at != len)
		return -1;
	at = tbs;
	/* [0] version (optional), serialNumber, signature, issuer, validity: stepped over. */
	for (int i = 0; i < 5; i++) {
		static const uint8_t want[5] = { 0xa0, 0x02, 0x30, 0x30, 0x30 };

		if (der_header(der + at, tbs_end - at, &tag, &hl, &cl) < 0)
			return -1;
		if (i == 0 && tag != 0xa0)
			continue;
		if (tag != want[i])
			return -1;
		at += hl + cl;
	}
	/* subject ::= Name, a SEQUENCE: kept whole, header included. */
	if (der_header(der + at, tbs_end - at, &tag, &hl, &cl) < 0 || tag != 0x30)
		return -1;
	*off = at;
	*slen = hl + cl;
	return 0;
}

/* The next line of pem[at, len): its start and length without the end of line; the next at. */
static size_t next_line(const char *pem, size_t len, size_t at, size_t *llen)
{
	const char *nl = memchr(pem + at, '\n', len - at);
	size_t end = nl ? (size_t)(nl - pem) : len;

	*llen = end - at;
	if (*llen && pem[at + *llen - 1] == '\r')
		(*llen)--;
	return nl ? end + 1 : len;
}

/* Whether the line l[0, n) opens a PEM block, of any label. */
static int line_begins(const char *l, size_t n)
{
	return n >= strlen(BEGIN) && !memcmp(l, BEGIN, strlen(BEGIN));
}

static int line_is(const char *l, size_t n, const char *pre, const char *label)
{
	size_t p = strlen(pre), b = strlen(label), d = strlen(DASH);

	return n == p + b + d && !memcmp(l, pre, p) && !memcmp(l + p, label, b) &&
	       !memcmp(l + p + b, DASH, d);
}

/*
 * Each byte's base64 value; -2 for a line break or a space, -3 for the
 * padding, -1 for anything else (every byte of 128 or more). A table, for
 * the bundle's 220 KB: libsodium's decoder is constant-time, which public
 * certificates do not need.
 */
#define NONE16 -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
/* clang-format off */
static const short B64[256] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -2, -2, -1, -1, -2, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -3, -1, -1,
	-1,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
	-1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
	NONE16, NONE16, NONE16, NONE16, NONE16, NONE16, NONE16, NONE16,
};
/* clang-format on */

int bundle_vector = 1;

#if defined(__x86_64__)
/*
 * Sixteen characters of the alphabet at in into their 12 bytes at out (16
 * bytes written, the last 4 zero): 1; or 0, nothing written, when one of
 * them is not of the alphabet. SSSE3, as base64 decoders commonly do it:
 * each character's class from its high and low nibbles (two table
 * lookups whose AND is zero for the alphabet alone), its value by an
 * offset chosen by the high nibble ('/' told from '+' apart), the 6-bit
 * values packed by two multiply-adds, the bytes put in order by a shuffle.
 * The tests compare it with the scalar path on every input they have.
 */
__attribute__((target("ssse3"))) static int b64_16(uint8_t *out, const unsigned char *in)
{
	/* clang-format off */
	/* A bit per high nibble: 2 (+ /), 3 (digits), 4 and 6 (A-O a-o), 5 and 7 (P-Z p-z). */
	const __m128i hi_class = _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
					       0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
	/* By low nibble: the bits of the high nibbles with which it is no base64 character. */
	const __m128i lo_class = _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
					       0x11, 0x11, 0x13, 0x1a, 0x1b, 0x1b, 0x1b, 0x1a);
	/* clang-format on */
	/* The offset to its value, by high nibble; '/' at 1 (2, less 1 for the match below). */
	const __m128i offset =
	    _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i nibble = _mm_set1_epi8(0x0f);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)in);
	__m128i hi = _mm_and_si128(_mm_srli_epi32(v, 4), nibble);
	__m128i lo = _mm_and_si128(v, nibble);
	__m128i bad = _mm_and_si128(_mm_shuffle_epi8(lo_class, lo), _mm_shuffle_epi8(hi_class, hi));
	__m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('/'));

	if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xffff)
		return 0;
	v = _mm_add_epi8(v, _mm_shuffle_epi8(offset, _mm_add_epi8(hi, slash)));
	/* Pairs into 12 bits (a << 6 | b), pairs of those into 24 (little-endian). */
	v = _mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140));
	v = _mm_madd_epi16(v, _mm_set1_epi32(0x00011000));
	v = _mm_shuffle_epi8(v,
			     _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
	_mm_storeu_si128((__m128i *)(void *)out, v);
	return 1;
}

/* Whether b64_16 may run: bundle_vector, and SSSE3 (asked once a bundle: CPUID may trap). */
static int vector_ok(void)
{
	unsigned int a, b, c, d;

	return bundle_vector && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3);
}
#else
static int b64_16(uint8_t *out, const unsigned char *in)
{
	(void)out;
	(void)in;
	return 0;
}

static int vector_ok(void)
{
	return 0;
}
#endif

/*
 * Base64 (with line breaks) into out, which may be in itself: each write
 * lands on characters already read. Its length, or -1 with *bad at the
 * first character that is not of it (len when the text ends short).
 * Sixteen characters of the alphabet at a time where the last quantum is
 * complete and vec says so (room being left for the vector's 16 bytes),
 * four at a time after that, one at a time elsewhere (a line's end, the
 * padding, anything else): the same steps, so the same bytes and the same
 * answer.
 */
static ssize_t b64_decode(uint8_t *out, size_t room, const char *in, size_t len, int vec,
			  size_t *bad)
{
	const unsigned char *u = (const unsigned char *)in;
	uint32_t acc = 0;
	size_t n = 0, q = 0, pad = 0;

	*bad = len;
	for (size_t i = 0; i < len; i++) {
		int v;

		/* Whole quanta while nothing is pending: 16 characters, 12 bytes. */
		while (vec && q == 0 && !pad && len - i >= 16 && room - n >= 16 &&
		       b64_16(out + n, u + i)) {
			n += 12;
			i += 16;
		}
		/* Then 4 characters, 3 bytes. */
		while (q == 0 && !pad && len - i >= 4) {
			int a = B64[u[i]], b = B64[u[i + 1]], c = B64[u[i + 2]], d = B64[u[i + 3]];
			uint32_t w;

			if ((a | b | c | d) < 0)
				break;
			w = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
			out[n++] = (uint8_t)(w >> 16);
			out[n++] = (uint8_t)(w >> 8);
			out[n++] = (uint8_t)w;
			i += 4;
		}
		if (i == len)
			break;
		v = B64[u[i]];
		if (v < 0) {
			if (v == -2)
				continue;
			if (v != -3) {
				*bad = i;
				return -1;
			}
			pad++;
			v = 0;
		} else if (pad) {
			*bad = i;
			return -1; /* data after the padding */
		}
		acc = acc << 6 | (uint32_t)v;
		if (++q == 4) {
			out[n++] = (uint8_t)(acc >> 16);
			out[n++] = (uint8_t)(acc >> 8);
			out[n++] = (uint8_t)acc;
			acc = 0;
			q = 0;
		}
	}
	if (q || pad > 2)
		return -1;
	return (ssize_t)(n - pad);
}

/* Decode one block's base64 (lines [from, to) of pem) into b->der at b->used. */
static int block_decode(struct bundle *b, const char *pem, size_t from, size_t to, int vec,
			const char **why)
{
	struct bundle_cert *c = &b->certs[b->n];
	size_t off, slen, bad;
	ssize_t dlen;

	dlen = b64_decode(b->der + b->used, b->cap - b->used, pem + from, to - from, vec, &bad);
	/*
	 * Before bad, only base64 (now DER in part); a ':' would be at or
	 * after it, where nothing was written.
	 */
	if (dlen < 0 && memchr(pem + from + bad, ':', to - from - bad)) {
		/* "Proc-Type: ...": an encrypted block, or one with headers. */
		*why = "a certificate with PEM headers";
		return 1;
	}
	if (dlen < 0) {
		*why = "a certificate that is not base64";
		return -1;
	}
	if (bundle_subject(b->der + b->used, (size_t)dlen, &off, &slen) < 0) {
		*why = "a block that is not a certificate";
		return -1;
	}
	c->der = b->used;
	c->len = (size_t)dlen;
	c->subject = b->used + off;
	c->subject_len = slen;
	b->used += (size_t)dlen;
	b->n++;
	return 0;
}

/* Room for one more certificate in b->certs: 0, or -1. */
static int certs_grow(struct bundle *b, size_t *room)
{
	struct bundle_cert *c;
	size_t n = *room ? *room * 2 : 64;

	if (b->n < *room)
		return 0;
	c = realloc(b->certs, n * sizeof(*c));
	if (!c)
		return -1;
	b->certs = c;
	*room = n;
	return 0;
}

/*
 * The END line of the block whose base64 starts at from: its start, at
 * which the base64 ends; 0 with why when there is none. Only a line that
 * begins with a dash can end the block or break it (base64 has no dash):
 * the dashes are found with memchr, not the lines.
 */
static size_t block_end(const char *pem, size_t len, size_t from, const char **why)
{
	size_t at = from, llen;

	for (;;) {
		const char *d = memchr(pem + at, '-', len - at);
		size_t to;

		if (!d)
			break;
		to = (size_t)(d - pem);
		at = next_line(pem, len, to, &llen);
		if (to > from && pem[to - 1] != '\n')
			continue; /* a dash inside a line: not base64, said by the decoder */
		if (line_is(pem + to, llen, END, CERT))
			return to;
		if (line_begins(pem + to, llen))
			break;
	}
	*why = "a certificate without its END line";
	return 0;
}

int bundle_index(struct bundle *b, char *pem, size_t len, const char **why)
{
	size_t at = 0, llen, line, room = 0;
	int vec = vector_ok();

	memset(b, 0, sizeof(*b));
	/* Base64 is 4 characters for 3 bytes: the DER fits in the text it is decoded over. */
	b->der = (uint8_t *)pem;
	b->cap = len;
	while (at < len) {
		line = at;
		at = next_line(pem, len, at, &llen);
		if (!line_begins(pem + line, llen))
			continue; /* text between blocks: comments, a name */
		if (!line_is(pem + line, llen, BEGIN, CERT)) {
			/* "-----BEGIN LABEL-----" of another label: OpenSSL's reader's. */
			int other = llen > strlen(BEGIN) + strlen(DASH) &&
				    !memcmp(pem + line + llen - strlen(DASH), DASH, strlen(DASH));

			*why =
			    other ? "a block that is not a CERTIFICATE" : "a malformed BEGIN line";
			bundle_free(b);
			return other ? 1 : -1;
		}
		if (certs_grow(b, &room) < 0) {
			bundle_free(b);
			*why = strerror(ENOMEM);
			return -1;
		}
		/* Its base64, up to the END line of the same label. */
		size_t from = at, to = block_end(pem, len, from, why);
		int rc;

		if (!to) {
			bundle_free(b);
			return -1;
		}
		at = next_line(pem, len, to, &llen);
		rc = block_decode(b, pem, from, to, vec, why);
		if (rc) {
			bundle_free(b);
			return rc;
		}
	}
	if (!b->n) {
		bundle_free(b);
		*why = "no certificate in it";
		return -1;
	}
	return 0;
}

void bundle_free(struct bundle *b)
{
	free(b->certs);
	free(b->der);
	b->certs = NULL;
	b->der = NULL;
	b->n = b->used = b->cap = 0;
}
