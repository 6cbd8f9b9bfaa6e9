// FUZZ: lib/pem_certs.c lib/pem_why.c
/*
 * --ca-file's scanner (lib/pem_certs.c) over any bytes: the operator's
 * file, read before the chain starts; it must be refused or reduced to its
 * certificates, never crash. Kept: what comes out is lines of base64
 * between a certificate's BEGIN and END lines and nothing else, scans again
 * to itself, and is the same whether written in place or elsewhere; a
 * refusal writes nothing and says where.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* out[0, len): certificates' framing lines and base64 lines, each ended by LF. */
static int certs_only(const char *out, size_t len)
{
	static const char *const FRAMING[] = {
		"-----BEGIN CERTIFICATE-----",
		"-----END CERTIFICATE-----",
		"-----BEGIN TRUSTED CERTIFICATE-----",
		"-----END TRUSTED CERTIFICATE-----",
	};
	const char *p = out, *end = out + len;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		int ok = 0;

		if (!lf)
			return 0;
		n = (size_t)(lf - p);
		for (size_t i = 0; i < 4; i++)
			ok |= n == strlen(FRAMING[i]) && !memcmp(p, FRAMING[i], n);
		if (!ok)
			for (size_t i = 0; i < n; i++)
				if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					    "0123456789+/=",
					    p[i]) ||
				    !p[i])
					return 0;
		p = lf + 1;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exact lengths, in buffers of their own: a read past them is ASan's to see. */
	char *in = malloc(size ? size : 1), *out = malloc(size + 1), *same = malloc(size + 1),
	     *again = malloc(size + 1), why[256];
	struct pem_scan s, t;
	size_t len, len2, len3;
	int rc;

	if (!in || !out || !same || !again)
		abort();
	memcpy(in, data, size);
	memcpy(same, data, size);
	rc = pem_certs(in, size, out, size + 1, &len, &s);
	if (pem_certs(same, size, same, size + 1, &len2, &t) != rc || len2 != len ||
	    memcmp(out, same, len) != 0 || s.line != t.line || strcmp(s.label, t.label) != 0)
		abort();
	if (pem_certs(in, size, NULL, 0, &len3, &t) != rc || len3 != 0)
		abort();
	if (!pem_why(rc, &s, why, sizeof(why))[0] || strlen(s.label) >= sizeof(s.label))
		abort();
	if (rc != PEM_OK) {
		if (len != 0 || (s.line == 0) != (rc == PEM_ENOCERT || rc == PEM_ESPACE))
			abort();
	} else {
		if (!s.certs || len > size + 1 || !certs_only(out, len))
			abort();
		/* Certificates only: they scan again to themselves. */
		if (pem_certs(out, len, again, size + 1, &len2, &t) != PEM_OK || len2 != len ||
		    t.certs != s.certs || t.other != 0 || memcmp(again, out, len) != 0)
			abort();
	}
	free(in);
	free(out);
	free(same);
	free(again);
	return 0;
}
