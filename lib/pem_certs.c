/* SPDX-License-Identifier: ISC */
/*
 * The certificates of an operator's PEM file, and nothing else of it. The
 * file is the operator's, but what it holds besides its certificates is not
 * the view's to have: a key-and-certificate file (mitmproxy-ca.pem, a
 * server's combined PEM) carries the CA's private key, which would let the
 * agent sign for any host the view trusts. So a private key anywhere refuses
 * the whole file, before a byte is written, rather than being left out:
 * the operator learns that the file was the wrong one. Text between blocks
 * (comments, openssl's "subject=" lines) and other blocks (a CRL,
 * parameters) are not certificates either, and never written. A
 * certificate's lines are base64 and nothing else, so no text rides inside
 * one. Pure.
 */
#include <string.h>
#include <strings.h>

#include "pem.h"

#define BEGIN "-----BEGIN "
#define END   "-----END "
#define DASH  "-----"

/* The line from p, up to end: its length without the LF, a CR before it, and trailing blanks. */
static size_t line_len(const char *p, const char *end, const char **next)
{
	const char *lf = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((lf ? lf : end) - p);

	*next = lf ? lf + 1 : end;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n;
}

static void note(struct pem_scan *s, size_t line, const char *label, size_t n)
{
	size_t k = 0;

	s->line = line;
	for (size_t i = 0; i < n && k < sizeof(s->label) - 1; i++)
		s->label[k++] = label[i] >= ' ' && label[i] <= '~' ? label[i] : '?';
	s->label[k] = 0;
}

/* Whether [p, p + n) holds what, in either case. */
static int has(const char *p, size_t n, const char *what)
{
	size_t w = strlen(what);

	for (size_t i = 0; i + w <= n; i++)
		if (!strncasecmp(p + i, what, w))
			return 1;
	return 0;
}

/* A line "-----BEGIN LABEL-----" or "-----END LABEL-----" (kw): LABEL's start and length. */
static int framing(const char *p, size_t n, const char *kw, const char **label, size_t *ln)
{
	size_t k = strlen(kw);

	if (n < k + 5 || memcmp(p, kw, k) || memcmp(p + n - 5, DASH, 5))
		return 0;
	*label = p + k;
	*ln = n - k - 5;
	return 1;
}

static int is_cert(const char *label, size_t n)
{
	return (n == 11 && !memcmp(label, "CERTIFICATE", 11)) ||
	       (n == 19 && !memcmp(label, "TRUSTED CERTIFICATE", 19));
}

static int base64_line(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '+' || p[i] == '/' || p[i] == '='))
			return 0;
	return 1;
}

/* A private key anywhere: a line with "-----BEGIN" and "PRIVATE", in either case. */
static int find_key(const char *in, size_t len, struct pem_scan *s)
{
	const char *p = in, *end = in + len, *next;
	size_t line = 0;

	while (p < end) {
		size_t n = line_len(p, end, &next);

		line++;
		if (has(p, n, "-----BEGIN") && has(p, n, "PRIVATE")) {
			note(s, line, p, n);
			return 1;
		}
		p = next;
	}
	return 0;
}

int pem_certs(const char *in, size_t len, char *out, size_t outsz, size_t *outlen,
	      struct pem_scan *s)
{
	const char *p = in, *end = in + len, *next, *l;
	size_t line = 0, begun = 0, labeln = 0, n, ln, o = 0;
	int cert = 0, open = 0;
	/* The open block's label: its bytes in in may be written over (out may be in). */
	char label[64];

	memset(s, 0, sizeof(*s));
	*outlen = 0;
	if (find_key(in, len, s))
		return PEM_EKEY;
	if (out && outsz < len + 1)
		return PEM_ESPACE;
	for (; p < end; p = next) {
		n = line_len(p, end, &next);
		line++;
		if (!open) {
			if (!framing(p, n, BEGIN, &l, &ln) || ln >= sizeof(label)) {
				/* Text between blocks; a BEGIN inside a line is no block's. */
				if (has(p, n, "-----BEGIN")) {
					note(s, line, p, n);
					return PEM_EBLOCK;
				}
				continue;
			}
			memcpy(label, l, ln);
			labeln = ln;
			begun = line;
			open = 1;
			cert = is_cert(l, ln);
		} else if (framing(p, n, END, &l, &ln)) {
			if (ln != labeln || memcmp(l, label, ln)) {
				note(s, line, p, n);
				return PEM_EBLOCK;
			}
			open = 0;
			if (!cert) {
				s->other++;
				continue;
			}
			s->certs++;
		} else if (has(p, n, "-----")) {
			note(s, line, p, n); /* a BEGIN or END of another block inside this one */
			return PEM_EBLOCK;
		} else if (!cert || !n) {
			continue;
		} else if (!base64_line(p, n)) {
			note(s, line, label, labeln);
			return PEM_EBLOCK;
		}
		/* A certificate's line: its BEGIN, a base64 line, its END. */
		if (cert && out) {
			memmove(out + o, p, n);
			out[o + n] = '\n';
		}
		if (cert)
			o += n + 1;
	}
	if (open) {
		note(s, begun, label, labeln);
		return PEM_EBLOCK;
	}
	if (!s->certs)
		return PEM_ENOCERT;
	*outlen = out ? o : 0;
	return PEM_OK;
}
