// UNIT: lib/pem_certs.c lib/pem_why.c
/* Unit tests of --ca-file's scanner: the certificates of a PEM file, a private key refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "pem.h"

#define CERT                                                                                       \
	"-----BEGIN CERTIFICATE-----\n"                                                            \
	"MIIBmDCCAT2gAwIBAgIUVW9Sn0a5TtU9cfo0zQKDSGMYM1AwCgYIKoZIzj0EAwIw\n"                       \
	"ITERMA8GA1UEAwwIb3RvIHVuaXQxDDAKBgNVBAoMA290bzAeFw0yNjEyMDUyMzM5\n"                       \
	"-----END CERTIFICATE-----\n"

static char out[8192];

/* in scanned (out may be in: a copy of it is scanned in place too, and must agree). */
static int scan(const char *in, size_t *len, struct pem_scan *s)
{
	char *copy = malloc(strlen(in) + 1);
	size_t clen;
	struct pem_scan cs;
	int rc, crc;

	assert_non_null(copy);
	memcpy(copy, in, strlen(in));
	rc = pem_certs(in, strlen(in), out, sizeof(out), len, s);
	crc = pem_certs(copy, strlen(in), copy, strlen(in) + 1, &clen, &cs);
	assert_int_equal(rc, crc);
	if (rc == PEM_OK) {
		assert_int_equal(*len, clen);
		assert_memory_equal(out, copy, clen);
	}
	free(copy);
	return rc;
}

static void test_certificates_only(void **state)
{
	struct pem_scan s;
	size_t len;

	(void)state;
	/* Comments, openssl's subject= lines, a CRL, parameters, CRLF, trailing blanks: the
	 * certificates alone come out, with LF. */
	assert_int_equal(
	    scan("# a comment\nsubject=CN = x\r\n" CERT "junk\n-----BEGIN X509 CRL-----\nAAAA\n"
		 "-----END X509 CRL-----\n-----BEGIN CERTIFICATE-----\r\n"
		 "MIIBmDCCAT2gAwIBAgIUVW9Sn0a5TtU9cfo0zQKDSGMYM1AwCgYIKoZIzj0EAwIw  \r\n\r\n"
		 "ITERMA8GA1UEAwwIb3RvIHVuaXQxDDAKBgNVBAoMA290bzAeFw0yNjEyMDUyMzM5\r\n"
		 "-----END CERTIFICATE-----\r\n-----BEGIN DH PARAMETERS-----\nAA==\n"
		 "-----END DH PARAMETERS-----",
		 &len, &s),
	    PEM_OK);
	assert_int_equal(s.certs, 2);
	assert_int_equal(s.other, 2);
	assert_int_equal(len, 2 * strlen(CERT));
	assert_memory_equal(out, CERT CERT, len);
	/* TRUSTED CERTIFICATE (OpenSSL's, with trust settings): a certificate too. */
	assert_int_equal(scan("-----BEGIN TRUSTED CERTIFICATE-----\nQUJD\n"
			      "-----END TRUSTED CERTIFICATE-----",
			      &len, &s),
			 PEM_OK);
	assert_int_equal(s.certs, 1);
	assert_int_equal(len, 75);
	assert_memory_equal(out, "-----BEGIN TRUSTED CERTIFICATE-----\nQUJD\n", 41);
	/* Checking only: nothing written, the same answer. */
	assert_int_equal(pem_certs(CERT, strlen(CERT), NULL, 0, &len, &s), PEM_OK);
	assert_int_equal(s.certs, 1);
	assert_int_equal(pem_certs(CERT, strlen(CERT), out, strlen(CERT), &len, &s), PEM_ESPACE);
}

/* Every kind of private key, wherever it stands, refuses the whole file, before anything. */
static void test_a_private_key_refuses_the_file(void **state)
{
	static const char *const KEYS[] = {
		"-----BEGIN PRIVATE KEY-----",
		"-----BEGIN RSA PRIVATE KEY-----",
		"-----BEGIN EC PRIVATE KEY-----",
		"-----BEGIN DSA PRIVATE KEY-----",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY-----",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----",
		"-----BEGIN ANY PRIVATE KEY-----",
		"-----begin private key-----",
		"junk before it -----BEGIN PRIVATE KEY-----",
	};
	char file[1024], why[256];
	struct pem_scan s;
	size_t len;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(KEYS); i++) {
		/* After a certificate (mitmproxy-ca.pem has the key first; either way). */
		snprintf(file, sizeof(file), "%s%s\r\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\r\n", CERT,
			 KEYS[i]);
		out[0] = 'x';
		assert_int_equal(scan(file, &len, &s), PEM_EKEY);
		assert_int_equal(len, 0);
		assert_int_equal(out[0], 'x');
		assert_int_equal(s.line, 5);
		assert_string_equal(s.label, KEYS[i]);
		/* Inside a certificate's block, or with the file cut after it. */
		snprintf(file, sizeof(file), "-----BEGIN CERTIFICATE-----\n%s\n", KEYS[i]);
		assert_int_equal(scan(file, &len, &s), PEM_EKEY);
		assert_int_equal(s.line, 2);
	}
	assert_int_equal(scan("-----BEGIN RSA PRIVATE KEY-----\n" CERT, &len, &s), PEM_EKEY);
	assert_string_equal(
	    pem_why(PEM_EKEY, &s, why, sizeof(why)),
	    "a private key at line 1 (-----BEGIN RSA PRIVATE KEY-----): give a file "
	    "of the CA's certificates alone (openssl x509 -in FILE -out ca.crt)");
}

static void test_what_does_not_read(void **state)
{
	char why[256];
	struct pem_scan s;
	size_t len;

	(void)state;
	/* No certificate at all: text, a key's public half, nothing. */
	assert_int_equal(scan("not a cert\n", &len, &s), PEM_ENOCERT);
	assert_int_equal(scan("", &len, &s), PEM_ENOCERT);
	assert_int_equal(
	    scan("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", &len, &s),
	    PEM_ENOCERT);
	assert_int_equal(s.other, 1);
	assert_string_equal(pem_why(PEM_ENOCERT, &s, why, sizeof(why)),
			    "no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
	/* Cut: no END. */
	assert_int_equal(scan("x\n-----BEGIN CERTIFICATE-----\nAAAA\n", &len, &s), PEM_EBLOCK);
	assert_int_equal(s.line, 2);
	assert_string_equal(s.label, "CERTIFICATE");
	/* Text inside a certificate, a header line, another END, a BEGIN inside a line. */
	assert_int_equal(scan("-----BEGIN CERTIFICATE-----\nAAAA\nsecret text\n"
			      "-----END CERTIFICATE-----\n",
			      &len, &s),
			 PEM_EBLOCK);
	assert_int_equal(s.line, 3);
	assert_string_equal(
	    pem_why(PEM_EBLOCK, &s, why, sizeof(why)),
	    "a PEM block that does not read at line 3 (CERTIFICATE): a block without "
	    "its END, or a certificate's line that is not base64");
	assert_int_equal(scan("-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\nAAAA\n"
			      "-----END CERTIFICATE-----\n",
			      &len, &s),
			 PEM_EBLOCK);
	assert_int_equal(
	    scan("-----BEGIN CERTIFICATE-----\nAAAA\n-----END X509 CRL-----\n", &len, &s),
	    PEM_EBLOCK);
	assert_int_equal(s.line, 3);
	assert_int_equal(scan("-----BEGIN CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\n"
			      "-----END CERTIFICATE-----\n",
			      &len, &s),
			 PEM_EBLOCK);
	assert_int_equal(scan(CERT "x -----BEGIN CERTIFICATE-----\n", &len, &s), PEM_EBLOCK);
	/* A NUL inside a certificate's line. */
	assert_int_equal(
	    pem_certs("-----BEGIN CERTIFICATE-----\nAA\0A\n-----END CERTIFICATE-----\n", 59, out,
		      sizeof(out), &len, &s),
	    PEM_EBLOCK);
}

/* 1 MiB of certificates (a large bundle): linear, and the same bytes out. */
static void test_a_large_file(void **state)
{
	size_t n = strlen(CERT), count = (1 << 20) / n, len;
	char *big = malloc(count * n + 1), *o = malloc(count * n + 1);
	struct pem_scan s;

	(void)state;
	assert_non_null(big);
	assert_non_null(o);
	for (size_t i = 0; i < count; i++)
		memcpy(big + i * n, CERT, n);
	assert_int_equal(pem_certs(big, count * n, o, count * n + 1, &len, &s), PEM_OK);
	assert_int_equal(s.certs, count);
	assert_int_equal(len, count * n);
	assert_memory_equal(o, big, len);
	free(big);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_certificates_only),
		cmocka_unit_test(test_a_private_key_refuses_the_file),
		cmocka_unit_test(test_what_does_not_read),
		cmocka_unit_test(test_a_large_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
