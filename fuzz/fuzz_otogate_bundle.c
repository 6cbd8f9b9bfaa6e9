// FUZZ: cmd/otogate/bundle.c
/*
 * otogate's CA bundle index over any bytes (a bundle is the operator's file
 * or the host's, read before the chain starts; a bad one must be refused,
 * never crash the gateway). Indexed: every certificate lies inside the
 * decoded DER, one after the other, its subject inside it, and
 * bundle_subject finds the same subject again in its bytes alone; refused
 * or left to OpenSSL: nothing kept. Nothing may crash or read out of bounds.
 * The SSSE3 decoder and the scalar one give the same answer, byte for byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otogate/otogate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data indexed with the vector decoder or without: rc, and b and why. */
static int index_copy(const uint8_t *data, size_t size, int vector, struct bundle *b,
		      const char **why)
{
	/* The exact length, in a buffer of its own: a read past it is ASan's to see. */
	char *pem = malloc(size ? size : 1);

	if (!pem)
		abort();
	memcpy(pem, data, size);
	*why = NULL;
	bundle_vector = vector;
	return bundle_index(b, pem, size, why); /* pem is b's */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bundle b, s;
	const char *why = NULL, *swhy = NULL;
	size_t next = 0, off, slen;
	int rc = index_copy(data, size, 1, &b, &why);

	if (index_copy(data, size, 0, &s, &swhy) != rc || (why && !swhy) || (!why && swhy) ||
	    (why && strcmp(why, swhy) != 0) || s.n != b.n || s.used != b.used ||
	    (b.n && (memcmp(s.der, b.der, b.used) != 0 ||
		     memcmp(s.certs, b.certs, b.n * sizeof(*b.certs)) != 0)))
		abort();
	bundle_free(&s);
	if (rc != 0) {
		if (!why || b.certs || b.der || b.n)
			abort();
		return 0;
	}
	if (!b.n || b.used > b.cap || b.cap != size)
		abort();
	for (size_t i = 0; i < b.n; i++) {
		const struct bundle_cert *c = &b.certs[i];

		if (c->der != next || c->len > b.used - c->der || c->subject < c->der ||
		    c->subject_len > c->len || c->subject - c->der > c->len - c->subject_len)
			abort();
		if (bundle_subject(b.der + c->der, c->len, &off, &slen) != 0 ||
		    off != c->subject - c->der || slen != c->subject_len)
			abort();
		next = c->der + c->len;
	}
	if (next != b.used)
		abort();
	bundle_free(&b);
	return 0;
}
