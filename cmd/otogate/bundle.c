/* SPDX-License-Identifier: ISC */
/*
 * The CA bundle's index, pure: each PEM certificate of the bundle decoded
 * to DER and its subject found, without building a certificate object.
 * OpenSSL's own load decodes every certificate whole, its public key
 * through the providers: about 33 ms for Debian's 144 roots with musl,
 * the better part of the gateway's start, all of it before the agent may
 * run. Decoding base64 and walking four ASN.1 headers per certificate
 * takes about 0.2 ms for Debian's 220 KB (one pass: the END lines found by
 * their dashes, the base64 four characters at a time); the verifier then
 * asks trust.c for the certificates of one subject, the only ones ever
 * parsed whole.
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

/*
 * Base64 (with line breaks) into out: its length, or -1. Four characters
 * of the alphabet at a time where the last quantum is complete, one at a
 * time otherwise (a line's end, the padding, anything else): the same
 * steps, so the same bytes and the same answer, at a fifth of the time
 * on a bundle's 64-character lines.
 */
static ssize_t b64_decode(uint8_t *out, const char *in, size_t len)
{
	const unsigned char *u = (const unsigned char *)in;
	uint32_t acc = 0;
	size_t n = 0, q = 0, pad = 0;

	for (size_t i = 0; i < len; i++) {
		int v;

		/* Whole quanta while nothing is pending: 4 characters, 3 bytes. */
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
			if (v != -3)
				return -1;
			pad++;
			v = 0;
		} else if (pad) {
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
static int block_decode(struct bundle *b, const char *pem, size_t from, size_t to, const char **why)
{
	struct bundle_cert *c = &b->certs[b->n];
	size_t off, slen;
	ssize_t dlen;

	dlen = b64_decode(b->der + b->used, pem + from, to - from);
	if (dlen < 0 && memchr(pem + from, ':', to - from)) {
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

int bundle_index(struct bundle *b, const char *pem, size_t len, const char **why)
{
	size_t at = 0, llen, line, room = 0;

	memset(b, 0, sizeof(*b));
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
		/* Base64 is 4 characters for 3 bytes: the text's length bounds the DER's. */
		if (!b->der && (b->der = malloc(len)) != NULL)
			b->cap = len;
		if (!b->der || certs_grow(b, &room) < 0) {
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
		rc = block_decode(b, pem, from, to, why);
		if (rc) {
			bundle_free(b);
			return rc;
		}
	}
	if (!b->n) {
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
