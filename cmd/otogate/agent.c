/* SPDX-License-Identifier: ISC */
/*
 * The agent's side of a flow: the socket otonet handed over, read and
 * written blocking by the flow's thread; for a transparent grant, TLS over
 * it, the gateway in the role of the grant's host with the session's leaf
 * (ca.c). The handshake must name that host (SNI): otonet hands over only
 * such flows, and the gateway checks it again.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "oto.h"
#include "otogate.h"

/* Records written at once: small pieces (a head, a chunk's size) are gathered up to this. */
#define GATHER 16384

int agent_accept(struct agent *a, void *server_ctx, const char *host, const char **why)
{
	SSL *ssl = SSL_new(server_ctx);
	const char *sni;

	if (!ssl || SSL_set_fd(ssl, a->fd) != 1) {
		SSL_free(ssl);
		*why = "unable to start TLS with the agent";
		return -1;
	}
	ERR_clear_error();
	if (SSL_accept(ssl) != 1) {
		unsigned long e = ERR_peek_error();
		const char *r = e ? ERR_reason_error_string(e) : NULL;

		SSL_free(ssl);
		ERR_clear_error();
		/* The reason (OpenSSL's static text), or the agent closed: an agent trying another
		 * way. */
		*why = r ? r : "the agent closed in the TLS handshake";
		return -1;
	}
	sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	if (!sni || strcasecmp(sni, host)) {
		SSL_free(ssl);
		*why = "the agent's TLS names another host";
		return -1;
	}
	a->ssl = ssl;
	return 0;
}

ssize_t agent_recv(struct agent *a, void *buf, size_t len)
{
	ssize_t n;
	size_t got;
	int e;

	if (!a->ssl) {
		do
			n = recv(a->fd, buf, len, 0);
		while (n < 0 && errno == EINTR);
		return n;
	}
	ERR_clear_error();
	errno = 0;
	if (SSL_read_ex(a->ssl, buf, len, &got) == 1)
		return (ssize_t)got;
	e = SSL_get_error(a->ssl, 0);
	ERR_clear_error();
	/* A close with or without close_notify: the agent is done either way. */
	if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && !errno))
		return 0;
	if (e != SSL_ERROR_SYSCALL || !errno)
		errno = EPROTO;
	return -1;
}

int agent_write_all(struct agent *a, const void *buf, size_t len)
{
	size_t done;

	if (!a->ssl)
		return fd_write_all(a->fd, buf, len);
	if (!len)
		return 0;
	ERR_clear_error();
	if (SSL_write_ex(a->ssl, buf, len, &done) == 1 && done == len)
		return 0;
	ERR_clear_error();
	errno = EPIPE;
	return -1;
}

static int plain_writev(int fd, struct iovec *v, int cnt)
{
	int n = 0;

	while (n < cnt && !v[n].iov_len)
		n++;
	while (n < cnt) {
		ssize_t w = writev(fd, v + n, cnt - n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		while (n < cnt && (size_t)w >= v[n].iov_len)
			w -= (ssize_t)v[n++].iov_len;
		if (n < cnt) {
			v[n].iov_base = (char *)v[n].iov_base + w;
			v[n].iov_len -= (size_t)w;
		}
	}
	return 0;
}

int agent_writev_all(struct agent *a, struct iovec *v, int cnt)
{
	char buf[GATHER];
	size_t at = 0;

	if (!a->ssl)
		return plain_writev(a->fd, v, cnt);
	/* Pieces gathered into records of up to GATHER bytes; a large one goes as it is. */
	for (int i = 0; i < cnt; i++) {
		if (at + v[i].iov_len <= sizeof(buf)) {
			memcpy(buf + at, v[i].iov_base, v[i].iov_len);
			at += v[i].iov_len;
			continue;
		}
		if (agent_write_all(a, buf, at) < 0 ||
		    agent_write_all(a, v[i].iov_base, v[i].iov_len) < 0)
			return -1;
		at = 0;
	}
	return agent_write_all(a, buf, at);
}

void agent_close(struct agent *a)
{
	if (a->ssl) {
		SSL_shutdown(a->ssl);
		SSL_free(a->ssl);
		a->ssl = NULL;
	}
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}
