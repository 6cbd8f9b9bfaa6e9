// UNIT: cmd/otogate/bundle.c
/* Unit tests of the CA bundle's index: PEM blocks decoded, each certificate's subject found. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otogate/otogate.h"

/* openssl req -x509 -newkey ec (P-256) -subj "/CN=oto unit/O=oto": 412 bytes of DER. */
#define BODY                                                                                       \
	"MIIBmDCCAT2gAwIBAgIUVW9Sn0a5TtU9cfo0zQKDSGMYM1AwCgYIKoZIzj0EAwIw\n"                       \
	"ITERMA8GA1UEAwwIb3RvIHVuaXQxDDAKBgNVBAoMA290bzAeFw0yNjEyMDUyMzM5\n"                       \
	"MjRaFw0zNjEyMDIyMzM5MjRaMCExETAPBgNVBAMMCG90byB1bml0MQwwCgYDVQQK\n"                       \
	"DANvdG8wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQf/L1BZWiW2Z/mCmjfMLiK\n"                       \
	"LbOBNdBPtAUDx2QW6+avb8x5aMZ/SGAqsvql4YJHzikc+jItGqwZx2WFSWsKQFA4\n"                       \
	"o1MwUTAdBgNVHQ4EFgQUhJSsnfnpVFOk376wY5PFkJQW5ukwHwYDVR0jBBgwFoAU\n"                       \
	"hJSsnfnpVFOk376wY5PFkJQW5ukwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD\n"                       \
	"AgNJADBGAiEAo5BU9a51d4PPCTnper2eRMg6zyHlZ83IfvNxE1qY6agCIQCNU5Mf\n"                       \
	"XxP7sOBe0ja5VH1lT2gmF7t6ftn6WmQ9igGHhA==\n"
#define CERT	    "-----BEGIN CERTIFICATE-----\n" BODY "-----END CERTIFICATE-----\n"
#define DER_LEN	    412
#define SUBJECT_AT  114 /* openssl asn1parse: the subject's SEQUENCE */
#define SUBJECT_LEN 35
/* The subject's DER: SEQUENCE { SET { CN "oto unit" } SET { O "oto" } }. */
static const uint8_t SUBJECT[SUBJECT_LEN] = {
	0x30, 0x21, 0x31, 0x11, 0x30, 0x0f, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c,
	0x08, 'o',  't',  'o',	' ',  'u',  'n',  'i',	't',  0x31, 0x0c, 0x30,
	0x0a, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x0c, 0x03, 'o',  't',  'o',
};

/* pem[0, len), copied: the index decodes over its text and frees it. */
static int index_len(struct bundle *b, const char *pem, size_t len, const char **why)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, pem, len);
	*why = NULL;
	return bundle_index(b, copy, len, why);
}

static int index_of(struct bundle *b, const char *pem, const char **why)
{
	return index_len(b, pem, strlen(pem), why);
}

static void assert_cert(const struct bundle *b, size_t i)
{
	const struct bundle_cert *c = &b->certs[i];

	assert_int_equal(c->len, DER_LEN);
	assert_int_equal(c->subject - c->der, SUBJECT_AT);
	assert_int_equal(c->subject_len, SUBJECT_LEN);
	assert_memory_equal(b->der + c->subject, SUBJECT, SUBJECT_LEN);
	assert_int_equal(b->der[c->der], 0x30);
}

static void test_one_and_many(void **state)
{
	struct bundle b;
	const char *why;
	char *many = malloc(200 * (sizeof(CERT) + 32));
	size_t n = 0;

	(void)state;
	assert_int_equal(index_of(&b, CERT, &why), 0);
	assert_int_equal(b.n, 1);
	assert_cert(&b, 0);
	bundle_free(&b);
	/* Comments and names between blocks (as Fedora's bundle has), 200 certificates. */
	assert_non_null(many);
	for (int i = 0; i < 200; i++)
		n += (size_t)sprintf(many + n, "# root %d\n%s\n", i, CERT);
	assert_int_equal(bundle_index(&b, many, n, &why), 0); /* many is b's */
	assert_int_equal(b.n, 200);
	for (size_t i = 0; i < 200; i++)
		assert_cert(&b, i);
	assert_int_equal(b.certs[199].der, 199 * DER_LEN);
	assert_ptr_equal(b.der, many);
	bundle_free(&b);
}

static void test_line_ends(void **state)
{
	struct bundle b;
	const char *why;
	char crlf[2 * sizeof(CERT)], *o = crlf;

	(void)state;
	/* CRLF line ends, and the last line without its end. */
	for (const char *p = CERT; *p; p++) {
		if (*p == '\n')
			*o++ = '\r';
		*o++ = *p;
	}
	*o = 0;
	assert_int_equal(index_of(&b, crlf, &why), 0);
	assert_cert(&b, 0);
	bundle_free(&b);
	crlf[strlen(crlf) - 2] = 0;
	assert_int_equal(index_of(&b, crlf, &why), 0);
	assert_int_equal(b.n, 1);
	bundle_free(&b);
}

static void test_refused(void **state)
{
	static const struct {
		const char *pem, *why;
	} bad[] = {
		{ "", "no certificate in it" },
		{ "# only a comment\n", "no certificate in it" },
		{ "-----BEGIN CERTIFICATE-----\n" BODY, "a certificate without its END line" },
		{ "-----BEGIN CERTIFICATE-----\n" BODY "-----END CERTIFICATE----\n",
		  "a certificate without its END line" },
		{ "-----BEGIN CERTIFICATE-----\n" BODY CERT, "a certificate without its END line" },
		{ "-----BEGIN CERTIFICATE-----\nMIIB!mDCC\n-----END CERTIFICATE-----\n",
		  "a certificate that is not base64" },
		{ "-----BEGIN CERTIFICATE-----\nMII=BmDC\n-----END CERTIFICATE-----\n",
		  "a certificate that is not base64" },
		{ "-----BEGIN CERTIFICATE-----\nMIIBmDC\n-----END CERTIFICATE-----\n",
		  "a certificate that is not base64" },
		{ "-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----\n",
		  "a block that is not a certificate" },
		/* SEQUENCE of 4 bytes holding an INTEGER: not a certificate. */
		{ "-----BEGIN CERTIFICATE-----\nMAQCAgEA\n-----END CERTIFICATE-----\n",
		  "a block that is not a certificate" },
		/* A good certificate, then one cut short. */
		{ CERT "-----BEGIN CERTIFICATE-----\nMIIBmDCCAT2gAwIBAgIUVW9Sn0a5\n"
		       "-----END CERTIFICATE-----\n",
		  "a block that is not a certificate" },
	};
	static const struct {
		const char *pem, *why;
	} other[] = {
		{ "-----BEGIN TRUSTED CERTIFICATE-----\n" BODY
		  "-----END TRUSTED CERTIFICATE-----\n",
		  "a block that is not a CERTIFICATE" },
		{ CERT "-----BEGIN X509 CRL-----\nMAA=\n-----END X509 CRL-----\n",
		  "a block that is not a CERTIFICATE" },
		{ "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n" BODY
		  "-----END CERTIFICATE-----\n",
		  "a certificate with PEM headers" },
	};
	struct bundle b;
	const char *why;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(index_of(&b, bad[i].pem, &why), -1);
		assert_string_equal(why, bad[i].why);
		assert_null(b.certs);
		assert_int_equal(b.n, 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
		assert_int_equal(index_of(&b, other[i].pem, &why), 1);
		assert_string_equal(why, other[i].why);
		assert_null(b.certs);
	}
}

/* Every prefix of a bundle of two: indexed whole, or refused; never read past its end. */
static void test_every_cut(void **state)
{
	const char two[] = CERT CERT;
	struct bundle b;
	const char *why;
	int whole = 0;

	(void)state;
	for (size_t n = 0; n <= strlen(two); n++) {
		int rc = index_len(&b, two, n, &why);

		assert_true(rc == 0 || rc == -1);
		if (rc == 0) {
			assert_true(b.n == 1 || b.n == 2);
			whole += b.n == 2;
		}
		bundle_free(&b);
	}
	/* The whole text, and the text without its last line end. */
	assert_int_equal(whole, 2);
}

/* CERT's base64 in pem: 0 and its DER as ever, or -1 with why. */
static int reindex(const char *body, uint8_t *der, const char **why)
{
	struct bundle b;
	char pem[2048];
	int rc;

	assert_true(strlen(body) < sizeof(pem) - 64);
	snprintf(pem, sizeof(pem), "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----\n",
		 body);
	rc = index_of(&b, pem, why);
	if (rc == 0) {
		assert_int_equal(b.n, 1);
		assert_cert(&b, 0);
		assert_memory_equal(b.der, der, DER_LEN);
	} else {
		assert_null(b.certs);
	}
	bundle_free(&b);
	return rc;
}

/*
 * The decoder takes four characters at a time where it can, one at a time
 * elsewhere: the same base64 wrapped at every width, and with a space, a
 * tab or a CR at every offset, gives the same DER; a character that is not
 * base64 at every offset (a dash, a byte over 127, one more pad), none.
 */
static void test_every_wrap(void **state)
{
	static const char body[] = BODY;
	char flat[sizeof(body)], text[2 * sizeof(body)];
	uint8_t der[DER_LEN];
	struct bundle b;
	const char *why;
	size_t n = 0;

	(void)state;
	assert_int_equal(index_of(&b, CERT, &why), 0);
	memcpy(der, b.der, DER_LEN);
	bundle_free(&b);
	for (const char *p = body; *p; p++)
		if (*p != '\n')
			flat[n++] = *p;
	flat[n] = 0;
	for (size_t w = 1; w <= n; w++) {
		size_t t = 0;

		for (size_t i = 0; i < n; i++) {
			if (i && i % w == 0)
				text[t++] = '\n';
			text[t++] = flat[i];
		}
		text[t] = 0;
		assert_int_equal(reindex(text, der, &why), 0);
	}
	for (size_t at = 0; at <= strlen(body); at++) {
		static const char same[] = " \t\r", bad[] = "-\xc3=!";

		for (size_t k = 0; k < strlen(same) + strlen(bad); k++) {
			char c = k < strlen(same) ? same[k] : bad[k - strlen(same)];

			memcpy(text, body, at);
			text[at] = c;
			strcpy(text + at + 1, body + at);
			if (k < strlen(same)) {
				assert_int_equal(reindex(text, der, &why), 0);
			} else {
				assert_int_equal(reindex(text, der, &why), -1);
				assert_string_equal(why, "a certificate that is not base64");
			}
		}
	}
}

/* test_every_wrap with the scalar decoder alone: the same answers. */
static void test_every_wrap_scalar(void **state)
{
	bundle_vector = 0;
	test_every_wrap(state);
	bundle_vector = 1;
}

/*
 * The SSSE3 decoder against the scalar one: every byte value at every
 * offset of the 16-character blocks of a line of CERT's signature (its
 * 8th line; from its 9th character on, every character is inside the
 * signature's BIT STRING, so one of the alphabet leaves a certificate).
 * The same answer from both, and the same DER, byte for byte.
 */
static void test_vector_and_scalar_agree(void **state)
{
	static const char cert[] = CERT;
	const char *line = strstr(cert, "AgNJADBG");
	size_t at = (size_t)(line - cert), len = strlen(cert);
	char text[sizeof(cert)];

	(void)state;
	assert_non_null(strstr(cert, "AgNJADBG"));
	for (size_t p = 8; p < 64; p++) {
		for (int c = 0; c < 256; c++) {
			struct bundle v, s;
			const char *vwhy, *swhy;
			int vrc, src;

			memcpy(text, cert, len);
			text[at + p] = (char)c;
			bundle_vector = 1;
			vrc = index_len(&v, text, len, &vwhy);
			bundle_vector = 0;
			src = index_len(&s, text, len, &swhy);
			bundle_vector = 1;
			assert_int_equal(vrc, src);
			if (vrc == 0) {
				assert_int_equal(v.n, 1);
				assert_int_equal(v.used, s.used);
				assert_memory_equal(v.der, s.der, v.used);
				assert_cert(&v, 0);
			} else {
				assert_string_equal(vwhy, swhy);
			}
			/* The alphabet: a certificate still; ':' a header; other bytes: none. */
			if (isalnum(c) || c == '+' || c == '/')
				assert_int_equal(vrc, 0);
			else if (c == ':')
				assert_string_equal(vwhy, "a certificate with PEM headers");
			else if (c == 0 || !strchr(" \t\r\n", c))
				assert_string_equal(vwhy, "a certificate that is not base64");
			bundle_free(&v);
			bundle_free(&s);
		}
	}
}

/* The DER walk: the optional version, lengths in DER's form only, nothing after the end. */
static void test_der(void **state)
{
	struct bundle b;
	const char *why;
	uint8_t der[DER_LEN + 8], v1[DER_LEN];
	size_t off, slen;

	(void)state;
	assert_int_equal(index_of(&b, CERT, &why), 0);
	memcpy(der, b.der, DER_LEN);
	bundle_free(&b);
	assert_int_equal(bundle_subject(der, DER_LEN, &off, &slen), 0);
	assert_int_equal(off, SUBJECT_AT);
	/* Every shorter length, and one byte more: refused. */
	for (size_t n = 0; n < DER_LEN; n++)
		assert_int_equal(bundle_subject(der, n, &off, &slen), -1);
	der[DER_LEN] = 0;
	assert_int_equal(bundle_subject(der, DER_LEN + 1, &off, &slen), -1);
	/* A v1 certificate has no [0] version: the 5 bytes at 8 gone, both lengths 5 less. */
	memcpy(v1, der, 8);
	memcpy(v1 + 8, der + 13, DER_LEN - 13);
	v1[3] -= 5;
	v1[7] -= 5;
	assert_int_equal(bundle_subject(v1, DER_LEN - 5, &off, &slen), 0);
	assert_int_equal(off, SUBJECT_AT - 5);
	assert_int_equal(slen, SUBJECT_LEN);
	/* The outer length in a longer form than needed (0x83 00 01 98): not DER. */
	{
		uint8_t longer[DER_LEN + 1] = { 0x30, 0x83, 0x00, 0x01, 0x98 };

		memcpy(longer + 5, der + 4, DER_LEN - 4);
		assert_int_equal(bundle_subject(longer, DER_LEN + 1, &off, &slen), -1);
		/* In its DER form, the same bytes are a certificate. */
		memcpy(longer, der, DER_LEN);
		assert_int_equal(bundle_subject(longer, DER_LEN, &off, &slen), 0);
	}
	/* A byte after the signature, inside the certificate's SEQUENCE: refused. */
	{
		uint8_t more[DER_LEN + 1];

		memcpy(more, der, DER_LEN);
		more[DER_LEN] = 0;
		more[3]++;
		assert_int_equal(bundle_subject(more, DER_LEN + 1, &off, &slen), -1);
	}
	/* An indefinite length (0x80): refused. */
	der[1] = 0x80;
	assert_int_equal(bundle_subject(der, DER_LEN, &off, &slen), -1);
	der[1] = 0x82;
	/* The serial's tag changed: not a certificate's shape. */
	der[13] = 0x04;
	assert_int_equal(bundle_subject(der, DER_LEN, &off, &slen), -1);
	der[13] = 0x02;
	/* A tbsCertificate longer than the certificate: refused. */
	der[7]++;
	assert_int_equal(bundle_subject(der, DER_LEN, &off, &slen), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_and_many),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_every_wrap),
		cmocka_unit_test(test_every_wrap_scalar),
		cmocka_unit_test(test_vector_and_scalar_agree),
		cmocka_unit_test(test_der),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
