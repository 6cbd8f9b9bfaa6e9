/* SPDX-License-Identifier: ISC */
/*
 * pem: the certificates of an operator's PEM file (--ca-file), and nothing
 * else of it, as pure code (no system call, no allocation, no exit):
 *
 *   - pem_certs: a file's CERTIFICATE and TRUSTED CERTIFICATE blocks,
 *     written out with LF line ends; a private key anywhere refuses the
 *     whole file, so that a key-and-certificate file (mitmproxy's
 *     mitmproxy-ca.pem) never puts its key where the agent reads;
 *   - pem_why: the refusal in words, for a one-line message.
 */
#ifndef PEM_H
#define PEM_H

#include <stddef.h>

enum pem_err {
	PEM_OK = 0,
	PEM_EKEY,    /* a BEGIN line whose label names a private key (…PRIVATE…) */
	PEM_ENOCERT, /* no CERTIFICATE block */
	PEM_EBLOCK,  /* a block without its END, a line in a certificate that is not base64 */
	PEM_ESPACE,  /* out is smaller than len + 1 */
};

/* What pem_certs saw. line and label: the refused block's BEGIN line (from 1) and label. */
struct pem_scan {
	size_t certs; /* certificate blocks written */
	size_t other; /* other blocks left out: a CRL, parameters, a request, a public key */
	size_t line;
	char label[64]; /* printable ASCII, cut at 63 bytes, NUL-ended */
};

/*
 * pem_certs.c: the blocks of in[0, len) that are certificates, written to
 * out (outsz bytes; out NULL to check only): each as its BEGIN line, its
 * base64 lines without trailing white space or CR, its END line. Text
 * between blocks and blocks of other kinds are left out (s->other counts
 * them). out may be in itself: nothing is written past what was read but
 * the last line's LF. Returns PEM_OK with *outlen set (at most len + 1
 * bytes: PEM_ESPACE when outsz is smaller), or an error with s->line and
 * s->label. A private key is looked for first, anywhere
 * in the file (a "-----BEGIN" and "PRIVATE" on one line, either case):
 * PEM_EKEY whatever else is wrong. Pure.
 */
int pem_certs(const char *in, size_t len, char *out, size_t outsz, size_t *outlen,
	      struct pem_scan *s);

/* pem_why.c: err in words with where (the line, the label), into buf (n bytes). Pure. */
const char *pem_why(int err, const struct pem_scan *s, char *buf, size_t n);

#endif
