/* SPDX-License-Identifier: ISC */
/*
 * The upstreams: each grant's host resolved once at start-up (the gateway
 * connects to those addresses and no other, and after its lockdown could
 * not read /etc/resolv.conf anyway), the CA bundle read into memory
 * (trust.c), and a TLS client context that verifies the certificate chain
 * and the host name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "oto.h"
#include "otogate.h"

#define CONNECT_TIMEOUT_MS 10000
#define READ_AHEAD	   (64 * 1024) /* OpenSSL's read buffer, per connection */

void *xupstream_init(struct otogate_opts *o)
{
	const char *ca = o->ca_file ? o->ca_file : X509_get_default_cert_file();

	for (size_t i = 0; i < o->ngrants; i++) {
		struct grant *g = &o->grants[i];
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
		char port[8];
		int rc;

		snprintf(port, sizeof(port), "%u", (unsigned int)g->port);
		hints.ai_flags = g->is_ip ? AI_NUMERICHOST : 0;
		rc = getaddrinfo(g->host, port, &hints, &res);
		if (rc)
			die(EXIT_SYS, 0,
			    "unable to resolve %s (--grant %s): %s (upstreams are resolved at "
			    "start: add %s to /etc/hosts, or check the host of the --grant)",
			    g->host, g->name, gai_strerror(rc), g->host);
		for (a = res; a && g->naddr < GATE_MAX_ADDRS; a = a->ai_next) {
			if (a->ai_addrlen > sizeof(g->addr[0]))
				continue;
			memcpy(&g->addr[g->naddr], a->ai_addr, a->ai_addrlen);
			g->addrlen[g->naddr++] = a->ai_addrlen;
		}
		freeaddrinfo(res);
		if (!g->naddr)
			die(EXIT_SYS, 0, "unable to resolve %s (--grant %s): no address", g->host,
			    g->name);
	}
	/* Read whole now: after the lockdown there is no file to read it from. */
	return xtrust_load(ca, o->ca_file != NULL);
}

/*
 * The TLS client context over the bundle's store, made at the first flow
 * that needs it, not at start: OpenSSL's first context costs about 3 ms
 * of CPU (its providers and algorithm tables, set up once), which the
 * sandbox's own start would share two cores with. No configuration file
 * is read (main.c: the gateway's root is empty by then anyway): the
 * security level is set here, Debian's (2), whatever the host's file says.
 */
static SSL_CTX *context_new(X509_STORE *store)
{
	SSL_CTX *ctx;

	/* OpenSSL's TLS set-up, here and not at start (main.c): no file read. */
	if (OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		return NULL;
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx)
		return NULL;
	SSL_CTX_set_cert_store(ctx, store);
	SSL_CTX_set_security_level(ctx, 2);
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* No session tickets or resumption to keep: each connection is verified in full. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	/*
	 * Read what the socket holds, not a record's header and then its body:
	 * a response's head and body (two records, often in one segment) in
	 * one read(2) instead of four. What is read ahead waits in OpenSSL's
	 * buffer: upstream_idle_closed looks there too.
	 */
	SSL_CTX_set_read_ahead(ctx, 1);
	SSL_CTX_set_default_read_buffer_len(ctx, READ_AHEAD);
	return ctx;
}

void *upstream_context(struct gate *g)
{
	void *ctx;

	pthread_mutex_lock(&g->tls_lock);
	if (!g->tls_client)
		g->tls_client = context_new(g->store);
	ctx = g->tls_client;
	pthread_mutex_unlock(&g->tls_lock);
	return ctx;
}

static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err = 0, rc;
	socklen_t l = sizeof(err);

	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return -1;
	if (connect(fd, sa, len) < 0) {
		if (errno != EINPROGRESS)
			return -1;
		do
			rc = poll(&p, 1, CONNECT_TIMEOUT_MS);
		while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
			return -1;
		if (err) {
			errno = err;
			return -1;
		}
	}
	return fcntl(fd, F_SETFL, 0);
}

int upstream_open(void *client_ctx, const struct grant *g, struct upstream *u, const char **why,
		  char *detail, size_t dsz)
{
	const struct timeval hs = { .tv_sec = CONNECT_TIMEOUT_MS / 1000 };
	SSL *ssl;
	int fd = -1, one = 1, rc;
	long vr;

	detail[0] = 0;
	u->fd = -1;
	u->ssl = NULL;
	u->ended = u->end_errno = 0;
	for (size_t i = 0; i < g->naddr && fd < 0; i++) {
		fd = socket(g->addr[i].ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect_timeout(fd, (const struct sockaddr *)&g->addr[i], g->addrlen[i]) < 0) {
			snprintf(detail, dsz, "%s", strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		*why = "unable to connect to the upstream";
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ssl = client_ctx ? SSL_new(client_ctx) : NULL;
	if (!ssl) {
		close(fd);
		*why = "unable to start TLS";
		return -1;
	}
	if (g->is_ip) {
		if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), g->host) != 1)
			goto tls_fail;
	} else if (SSL_set1_host(ssl, g->host) != 1 ||
		   SSL_set_tlsext_host_name(ssl, g->host) != 1) {
		goto tls_fail;
	}
	if (SSL_set_fd(ssl, fd) != 1)
		goto tls_fail;
	/* The handshake on a blocking socket, bounded as the connect is: an upstream that
	 * takes the connection and says nothing would hold the flow (a refresh: the lock). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &hs, sizeof(hs)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &hs, sizeof(hs)) < 0)
		goto tls_fail;
	ERR_clear_error();
	if ((rc = SSL_connect(ssl)) != 1) {
		int se = SSL_get_error(ssl, rc);

		vr = SSL_get_verify_result(ssl);
		if (vr != X509_V_OK) {
			*why = "the upstream's certificate does not verify";
			snprintf(detail, dsz, "%s", X509_verify_cert_error_string(vr));
		} else {
			unsigned long e = ERR_get_error();

			*why = "the TLS handshake with the upstream failed";
			snprintf(detail, dsz, "%s",
				 se == SSL_ERROR_WANT_READ || se == SSL_ERROR_WANT_WRITE
				     ? "no answer within 10 s"
				 : e ? ERR_reason_error_string(e)
				     : "closed");
		}
		SSL_free(ssl);
		close(fd);
		return -1;
	}
	/* Non-blocking from now on: upstream_read takes what has come, and waits in poll(2). */
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		*why = "unable to set up the upstream's socket";
		snprintf(detail, dsz, "%s", strerror(errno));
		SSL_free(ssl);
		close(fd);
		return -1;
	}
	u->fd = fd;
	u->ssl = ssl;
	return 0;
tls_fail:
	SSL_free(ssl);
	close(fd);
	*why = "unable to set up TLS";
	return -1;
}

void upstream_close(struct upstream *u)
{
	if (u->ssl) {
		SSL_shutdown(u->ssl);
		SSL_free(u->ssl);
	}
	if (u->fd >= 0)
		close(u->fd);
	u->ssl = NULL;
	u->fd = -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long upstream_deadline(int ms)
{
	return now_ms() + ms;
}

/* The ms left before u's deadline for poll(2): -1 with none, 0 once passed. */
static int wait_ms(const struct upstream *u)
{
	long long left;

	if (!u->deadline)
		return -1;
	left = u->deadline - now_ms();
	return left <= 0 ? 0 : left < INT_MAX ? (int)left : INT_MAX;
}

/*
 * Wait until fd can do what TLS wants (SSL_ERROR_WANT_READ or _WRITE): 0, or
 * -1 (ETIMEDOUT once u's deadline has passed; ECONNABORTED once u->watch's
 * peer has closed, and the upstream has nothing to do yet).
 */
static int tls_wait(const struct upstream *u, int want)
{
	struct pollfd p[2] = {
		{ .fd = u->fd, .events = want == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN },
		{ .fd = u->watch, .events = POLLRDHUP },
	};
	int rc;

	do
		rc = poll(p, u->watch >= 0 ? 2 : 1, wait_ms(u));
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		errno = ETIMEDOUT;
	if (rc > 0 && !p[0].revents) {
		errno = ECONNABORTED;
		return -1;
	}
	return rc <= 0 ? -1 : 0;
}

/*
 * What has come: at least one record's data (waiting for it), and then every
 * complete record OpenSSL has read ahead, as long as buf has room (never
 * waiting for more): a response's head and body, or a stream's records,
 * leave for the agent together.
 */
ssize_t upstream_read(struct upstream *u, void *buf, size_t len)
{
	size_t got = 0, n;
	int e;

	if (u->ended) {
		errno = u->end_errno;
		return errno ? -1 : 0;
	}
	/* Nothing read ahead: the socket first (a read would only say EAGAIN). */
	if (!SSL_has_pending(u->ssl) && tls_wait(u, SSL_ERROR_WANT_READ) < 0)
		return -1;
	for (;;) {
		ERR_clear_error();
		if (SSL_read_ex(u->ssl, (char *)buf + got, len - got, &n) == 1) {
			got += n;
			if (got < len && SSL_has_pending(u->ssl))
				continue;
			return (ssize_t)got;
		}
		e = SSL_get_error(u->ssl, 0);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			if (got)
				return (ssize_t)got;
			if (tls_wait(u, e) < 0)
				return -1;
			continue;
		}
		break;
	}
	/* A clean close_notify is the end; anything else (a reset, a truncation) an error. */
	if (e == SSL_ERROR_ZERO_RETURN)
		u->end_errno = 0;
	/* The TCP connection closed without close_notify: ENODATA, the caller decides. */
	else if (e == SSL_ERROR_SSL &&
		 ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
		u->end_errno = ENODATA;
	else
		u->end_errno = e == SSL_ERROR_SYSCALL && errno ? errno : EPROTO;
	ERR_clear_error();
	/* After data: the data now, the end at the next call. */
	u->ended = 1;
	if (got)
		return (ssize_t)got;
	errno = u->end_errno;
	return errno ? -1 : 0;
}

int upstream_write(struct upstream *u, const void *buf, size_t len)
{
	size_t done;
	int e;

	if (!len)
		return 0;
	for (;;) {
		ERR_clear_error();
		if (SSL_write_ex(u->ssl, buf, len, &done) == 1 && done == len)
			return 0;
		e = SSL_get_error(u->ssl, 0);
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			break;
		if (tls_wait(u, e) < 0) {
			if (errno != ETIMEDOUT)
				break;
			ERR_clear_error();
			errno = ETIMEDOUT;
			return -1;
		}
	}
	ERR_clear_error();
	errno = EPIPE;
	return -1;
}

int upstream_idle_closed(struct upstream *u)
{
	struct pollfd p = { .fd = u->fd, .events = POLLIN };

	return SSL_has_pending(u->ssl) || poll(&p, 1, 0) != 0;
}
