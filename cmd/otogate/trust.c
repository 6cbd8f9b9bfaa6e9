/* SPDX-License-Identifier: ISC */
/*
 * The upstreams' trust. The CA bundle is read whole at start (after the
 * lockdown there is no file to read it from) and indexed by bundle.c,
 * which checks every block without building a certificate; the verifier's
 * store then asks a lookup method of ours for the certificates of a
 * subject, which are parsed then and kept in the store, as OpenSSL's
 * hashed directory lookup does from files. Subjects are matched as OpenSSL
 * matches them (X509_NAME_cmp, its canonical form), each parsed once, at
 * the first lookup: the start pays for reading and base64 alone, and an
 * upstream's first handshake for its one or two issuers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "oto.h"
#include "otogate.h"
#include "pem.h"

/* A bundle larger than this is not a CA bundle (Debian's is 220 KB). */
#define TRUST_MAX (16 << 20)

struct trust {
	struct bundle b;
	X509_NAME **names;    /* each certificate's subject, parsed at the first lookup */
	pthread_mutex_t lock; /* lookups come from every flow's thread */
};

static void names_parse(struct trust *t)
{
	t->names = calloc(t->b.n ? t->b.n : 1, sizeof(X509_NAME *));
	for (size_t i = 0; t->names && i < t->b.n; i++) {
		const unsigned char *p = t->b.der + t->b.certs[i].subject;

		t->names[i] = d2i_X509_NAME(NULL, &p, (long)t->b.certs[i].subject_len);
	}
}

/*
 * The store's question: the certificates whose subject is name. Each one
 * found goes into the store (the verifier then sees every candidate, a
 * cross-signed root's both copies included); the first is the answer.
 */
static int by_subject(X509_LOOKUP *lu, X509_LOOKUP_TYPE type, const X509_NAME *name,
		      X509_OBJECT *ret)
{
	struct trust *t = X509_LOOKUP_get_method_data(lu);
	X509_STORE *store = X509_LOOKUP_get_store(lu);
	int found = 0;

	if (type != X509_LU_X509 || !t || !store)
		return 0;
	pthread_mutex_lock(&t->lock);
	if (!t->names)
		names_parse(t);
	for (size_t i = 0; t->names && i < t->b.n; i++) {
		const unsigned char *p;
		X509 *x;

		if (!t->names[i] || X509_NAME_cmp(t->names[i], name) != 0)
			continue;
		p = t->b.der + t->b.certs[i].der;
		x = d2i_X509(NULL, &p, (long)t->b.certs[i].len);
		if (!x)
			continue;
		if (X509_STORE_add_cert(store, x) == 1 && !found)
			found = X509_OBJECT_set1_X509(ret, x) == 1;
		X509_free(x);
	}
	pthread_mutex_unlock(&t->lock);
	ERR_clear_error();
	return found;
}

/* FILE whole, as the gateway's user may read it: its bytes (NUL-ended), or dies. */
static char *xread_bundle(const char *file, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		die(EXIT_SYS, errno, "unable to read the CA bundle %s", file);
	if (!S_ISREG(st.st_mode) || st.st_size > TRUST_MAX)
		die(EXIT_SYS, S_ISREG(st.st_mode) ? EFBIG : EINVAL,
		    "unable to read the CA bundle %s", file);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		die(EXIT_SYS, ENOMEM, "unable to read the CA bundle %s", file);
	n = fd_read_all(fd, buf, (size_t)st.st_size);
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read the CA bundle %s", file);
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

void *xtrust_load(const char *file, int given)
{
	X509_STORE *store = X509_STORE_new();
	X509_LOOKUP_METHOD *m;
	X509_LOOKUP *lu;
	struct trust *t;
	const char *why = NULL;
	size_t len, n;
	char *pem = xread_bundle(file, &len), key[256];
	struct pem_scan s;
	int rc;

	/*
	 * --ca-file is certificates, as otomount's and otorun's: a file with a private key is
	 * the wrong one (a CA's key and certificate together), refused rather than kept in the
	 * gateway's memory. The rest of it is the bundle reader's to judge, as the host's.
	 */
	if (given && pem_certs(pem, len, NULL, 0, &n, &s) == PEM_EKEY)
		die(EXIT_REJECT, 0, "--ca-file %s: %s", file,
		    pem_why(PEM_EKEY, &s, key, sizeof(key)));

	t = calloc(1, sizeof(*t));
	if (!store || !t || pthread_mutex_init(&t->lock, NULL) != 0)
		die(EXIT_SYS, ENOMEM, "unable to load the CA bundle %s", file);
	rc = bundle_index(&t->b, pem, len, &why); /* pem is t->b's now */
	if (rc < 0)
		die(EXIT_SYS, 0, "unable to load the CA bundle %s: %s", file, why);
	if (rc > 0) {
		/* What only OpenSSL reads: its own load, every certificate at once. */
		debugx("the CA bundle %s has %s: loaded whole", file, why);
		pthread_mutex_destroy(&t->lock);
		free(t);
		if (X509_STORE_load_file(store, file) != 1)
			die(EXIT_SYS, 0, "unable to load the CA bundle %s: %s", file,
			    ERR_reason_error_string(ERR_get_error()));
		return store;
	}
	m = X509_LOOKUP_meth_new("otogate bundle");
	if (!m || X509_LOOKUP_meth_set_get_by_subject(m, by_subject) != 1)
		die(EXIT_SYS, 0, "unable to load the CA bundle %s: %s", file,
		    ERR_reason_error_string(ERR_get_error()));
	lu = X509_STORE_add_lookup(store, m);
	if (!lu || X509_LOOKUP_set_method_data(lu, t) != 1)
		die(EXIT_SYS, 0, "unable to load the CA bundle %s: %s", file,
		    ERR_reason_error_string(ERR_get_error()));
	debugx("the CA bundle %s: %zu certificates", file, t->b.n);
	return store;
}
