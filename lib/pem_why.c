/* SPDX-License-Identifier: ISC */
/* pem_certs' refusal in words, naming the fix. Pure. */
#include <stdio.h>

#include "pem.h"

const char *pem_why(int err, const struct pem_scan *s, char *buf, size_t n)
{
	switch (err) {
	case PEM_OK:
		snprintf(buf, n, "%zu certificates", s->certs);
		break;
	case PEM_EKEY:
		snprintf(buf, n,
			 "a private key at line %zu (%s): give a file of the CA's certificates "
			 "alone (openssl x509 -in FILE -out ca.crt)",
			 s->line, s->label);
		break;
	case PEM_ENOCERT:
		snprintf(buf, n, "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
		break;
	case PEM_EBLOCK:
		snprintf(buf, n,
			 "a PEM block that does not read at line %zu (%s): a block without its "
			 "END, or a certificate's line that is not base64",
			 s->line, s->label);
		break;
	case PEM_ESPACE:
	default:
		snprintf(buf, n, "no room for its certificates");
		break;
	}
	return buf;
}
