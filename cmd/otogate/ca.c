/* SPDX-License-Identifier: ISC */
/*
 * The session CA of the transparent grants: made at start, in memory only.
 * An EC P-256 key (fast to make: launch time counts) whose private part
 * lives in OpenSSL's secure heap (mmap'd, mlock'd, never swapped or
 * dumped), a CA certificate name-constrained to the granted hosts, and one
 * leaf certificate for those hosts alone, valid from a minute ago for
 * GATE_CA_HOURS. Once the leaf is signed, the CA's key is freed: nothing
 * can mint another certificate, for any name, even from inside the
 * gateway. The leaf's key stays in the secure heap for the TLS server
 * context the flows of transparent grants are served with.
 *
 * What leaves: the CA certificate (public, PEM) in a sealed memfd that
 * the child inherits as OTO_GATE_CA=FD; otomount adds it, and it alone,
 * to the view's trust.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "oto.h"
#include "otogate.h"

#define GATE_CA_HOURS	 24
#define GATE_SECURE_HEAP (64 * 1024)
#define GATE_SECURE_MIN	 32

static const char *ossl_err(void)
{
	unsigned long e = ERR_get_error();
	const char *s = e ? ERR_reason_error_string(e) : NULL;

	return s ? s : "unknown error";
}

static EVP_PKEY *xkey(void)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");

	if (!k)
		die(EXIT_SYS, 0, "unable to make the session CA's key: %s", ossl_err());
	return k;
}

static void xext(X509 *c, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v;
	X509_EXTENSION *e;

	X509V3_set_ctx_nodb(&v);
	X509V3_set_ctx(&v, issuer, c, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v, nid, value);
	if (!e || X509_add_ext(c, e, -1) != 1)
		die(EXIT_SYS, 0, "unable to add an extension to the session certificate: %s",
		    ossl_err());
	X509_EXTENSION_free(e);
}

/* "DNS:a,DNS:b" for the transparent grants (names: grant_parse refuses an address), with prefix
 * before each ("permitted;"). */
static void xhosts_list(const struct otogate_opts *o, const char *prefix, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < o->ngrants; i++) {
		const struct grant *g = &o->grants[i];
		int w;

		if (!g->transparent)
			continue;
		w = snprintf(buf + at, size - at, "%s%sDNS:%s", at ? "," : "", prefix, g->host);
		if (w < 0 || (size_t)w >= size - at)
			die(EXIT_SYS, ENOSPC, "unable to list the transparent hosts");
		at += (size_t)w;
	}
}

/* A certificate of key for cn, issued by issuer (NULL: itself), from..to seconds from now. */
static X509 *xcert(EVP_PKEY *key, X509 *issuer, const char *cn, long from, long to)
{
	X509 *c = X509_new();
	X509_NAME *n = X509_NAME_new();
	unsigned char serial[16];
	BIGNUM *bn;

	if (!c || !n || RAND_bytes(serial, sizeof(serial)) != 1)
		die(EXIT_SYS, 0, "unable to make a session certificate: %s", ossl_err());
	serial[0] &= 0x7f;
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c)) ||
	    X509_set_version(c, 2) != 1 || !X509_gmtime_adj(X509_getm_notBefore(c), from) ||
	    !X509_gmtime_adj(X509_getm_notAfter(c), to) ||
	    X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC, (const unsigned char *)"oto session",
				       -1, -1, 0) != 1 ||
	    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
				       0) != 1 ||
	    X509_set_subject_name(c, n) != 1 ||
	    X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer) : n) != 1 ||
	    X509_set_pubkey(c, key) != 1)
		die(EXIT_SYS, 0, "unable to make a session certificate: %s", ossl_err());
	BN_free(bn);
	X509_NAME_free(n);
	return c;
}

static void xsign(X509 *c, EVP_PKEY *k)
{
	if (!X509_sign(c, k, EVP_sha256()))
		die(EXIT_SYS, 0, "unable to sign a session certificate: %s", ossl_err());
}

/* The CA's certificate, as PEM, in a sealed memfd (not close-on-exec: the child's). */
static int xca_memfd(X509 *ca)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *pem;
	long n;
	int fd;

	if (!b || PEM_write_bio_X509(b, ca) != 1)
		die(EXIT_SYS, 0, "unable to write the session CA: %s", ossl_err());
	n = BIO_get_mem_data(b, &pem);
	fd = memfd_create("oto-session-ca", MFD_ALLOW_SEALING);
	if (fd < 0 || fd_write_all(fd, pem, (size_t)n) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		die(EXIT_SYS, errno, "unable to pass the session CA on (memfd)");
	BIO_free(b);
	return fd;
}

int xca_make(struct otogate_opts *o, void **server_ctx)
{
	char names[GATE_MAX_GRANTS * (GATE_MAX_HOST + 32)],
	    nc[sizeof(names) + 16 * GATE_MAX_GRANTS];
	EVP_PKEY *cakey, *leafkey;
	X509 *ca, *leaf;
	SSL_CTX *ctx;
	int fd;

	/*
	 * The secure heap before any key exists: the private keys' numbers are
	 * allocated there (mlock'd; 2 means it could not be locked, which still
	 * keeps them out of the ordinary heap and out of a core).
	 */
	if (!CRYPTO_secure_malloc_initialized() &&
	    CRYPTO_secure_malloc_init(GATE_SECURE_HEAP, GATE_SECURE_MIN) == 0)
		warnx("the session CA's key is not in locked memory (the secure heap failed)");
	xhosts_list(o, "", names, sizeof(names));
	xhosts_list(o, "permitted;", nc, sizeof(nc));
	cakey = xkey();
	leafkey = xkey();
	ca = xcert(cakey, NULL, "oto session CA", -60, GATE_CA_HOURS * 3600L);
	xext(ca, ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
	xext(ca, ca, NID_key_usage, "critical,keyCertSign");
	xext(ca, ca, NID_subject_key_identifier, "hash");
	xext(ca, ca, NID_name_constraints, nc);
	xsign(ca, cakey);
	leaf = xcert(leafkey, ca, "oto session", -60, GATE_CA_HOURS * 3600L);
	xext(leaf, ca, NID_basic_constraints, "critical,CA:FALSE");
	xext(leaf, ca, NID_key_usage, "critical,digitalSignature");
	xext(leaf, ca, NID_ext_key_usage, "serverAuth");
	xext(leaf, ca, NID_subject_alt_name, names);
	xext(leaf, ca, NID_authority_key_identifier, "keyid");
	xsign(leaf, cakey);
	/* No other certificate will ever be signed: the CA's key goes now. */
	EVP_PKEY_free(cakey);

	ctx = SSL_CTX_new(TLS_server_method());
	if (ctx)
		SSL_CTX_set_security_level(ctx, 2); /* no configuration file is read (main.c) */
	if (!ctx || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_use_certificate(ctx, leaf) != 1 || SSL_CTX_use_PrivateKey(ctx, leafkey) != 1 ||
	    SSL_CTX_add1_chain_cert(ctx, ca) != 1 || SSL_CTX_check_private_key(ctx) != 1)
		die(EXIT_SYS, 0, "unable to make the session's TLS server: %s", ossl_err());
	/* Nothing to resume: each flow's handshake is a full one. No ALPN: HTTP/1.1. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
	fd = xca_memfd(ca);
	X509_free(leaf);
	X509_free(ca);
	EVP_PKEY_free(leafkey);
	*server_ctx = ctx;
	debugx("session CA made for %s", names);
	return fd;
}
