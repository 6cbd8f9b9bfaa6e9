/* SPDX-License-Identifier: ISC */
/*
 * A login's refresh, at its profile's token endpoint (POST to the token
 * URL): the CLI sends its phantom refresh token, the provider must get the
 * real one, and the CLI must get phantoms back. So the request's body is
 * read whole (at most JSON_MAX_INPUT) and swapped by lib/login's strict
 * reader (login_refresh_request: the one field, or a 400 and nothing
 * sent); the answer is read whole too, and a 2xx's new tokens become fresh
 * phantoms (login_refresh_response, or a 502) while their reals go into
 * the login's table and, sealed, into the store (store_update), before the
 * CLI sees the answer: a crash after that loses nothing the provider has
 * already invalidated. An error answer that holds a real is a 502.
 *
 * Two sessions on one subscription: a refresh token the other session's
 * refresh made invalid comes back as invalid_grant; the store then holds
 * the newer one (that session wrote it), which is sent once more in place
 * of the phantom.
 *
 * One refresh at a time in the gateway (refresh_lock): the work area is
 * the gateway's one, and the table's pairs stay where they are while one
 * is under way.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "flow.h"
#include "http.h"
#include "login.h"
#include "oto.h"
#include "otogate.h"

#define STORE_WAIT_MS 5000 /* for the store's lock: another session's write */

/* The 504's reason: the token endpoint let the refresh's deadline (gate.refresh_ms) pass. */
static const char TIMED_OUT[] = "the token endpoint did not answer in time";

struct refresh {
	char ctype[512];
	size_t ctype_len;
	char head[OUT_SIZE + 64]; /* the request's head, rewritten */
	size_t head_len;
	char body[JSON_MAX_INPUT]; /* the agent's body */
	size_t len;
	char out[JSON_MAX_INPUT]; /* the body sent */
	char rhead[HTTP_MAX_HEAD];
	size_t rhead_len;
	int status, keep_alive;
	enum http_body_kind kind;
	char resp[JSON_MAX_INPUT]; /* the answer's body */
	size_t resp_len;
	char back[JSON_MAX_INPUT]; /* the answer the agent gets */
	char file[JSON_MAX_INPUT]; /* the new real login file */
	size_t file_len;
	struct login_pair known[GATE_LOGIN_PAIRS], fresh[LOGIN_NUM_ROLES];
	size_t nknown, nfresh;
};

int refresh_is(const struct gate_flow *f)
{
	const struct gate_login *l = f->g->login;
	size_t pl;

	if (!l->p.token_url[0] || f->g->port != l->token_port || strcmp(f->g->host, l->token_host))
		return 0;
	pl = strlen(l->token_path);
	return f->req.method.len == 4 && !memcmp(f->in + f->req.method.off, "POST", 4) &&
	       f->req.target.len == pl && !memcmp(f->in + f->req.target.off, l->token_path, pl);
}

/*
 * The head, checked and rewritten before the body overwrites in: exactly
 * one Content-Type (kept), Host the upstream's, nothing swapped in any
 * header. A chunked body goes with a Content-Length (refresh_length).
 * 0, or -1 (answered).
 */
static int take_head(struct gate_flow *f, struct refresh *r)
{
	struct http_rewrite rw = { 0 };
	unsigned int count, nct = 0;
	ssize_t n;

	for (uint32_t i = 0; i < f->req.nheaders; i++) {
		const struct http_header *h = &f->req.h[i];

		if (!flow_header_is(f, h, "content-type"))
			continue;
		if (++nct > 1 || h->value.len > sizeof(r->ctype)) {
			flow_refuse(f, 400, "a refresh with two Content-Type headers", NULL);
			return -1;
		}
		memcpy(r->ctype, f->in + h->value.off, h->value.len);
		r->ctype_len = h->value.len;
	}
	if (f->req.body.kind == HTTP_BODY_NONE) {
		flow_refuse(f, 400, "a refresh without a body", NULL);
		return -1;
	}
	rw.from = rw.to = f->g->phantom;
	rw.from_len = rw.to_len = f->g->len;
	rw.names = f->g->headers;
	rw.nnames = 0; /* the refresh token goes in the body alone */
	rw.host = f->g->hosthdr;
	rw.host_len = strlen(f->g->hosthdr);
	rw.identity = 1;
	n = http_head_rewrite(f->in, &f->req, &rw, r->head, OUT_SIZE, &count);
	if (n < 0) {
		flow_refuse(f, 400, "unable to rewrite the request's head", strerror(errno));
		return -1;
	}
	r->head_len = (size_t)n;
	return 0;
}

/*
 * A chunked request's head, for the body sent whole: Transfer-Encoding
 * and Expect dropped (the body is here already), Content-Length added.
 */
static void head_length(struct refresh *r, int chunked)
{
	char *p = r->head, *end = r->head + r->head_len, *w;
	char cl[48];
	size_t k;

	/* the request line stays */
	p = (char *)memchr(p, '\n', (size_t)(end - p)) + 1;
	w = p;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)(nl - p) + 1;

		if (ll == 2) /* the empty line */
			break;
		if (!(chunked && ll > 18 && !strncasecmp(p, "transfer-encoding:", 18)) &&
		    !(ll > 7 && !strncasecmp(p, "expect:", 7))) {
			memmove(w, p, ll);
			w += ll;
		}
		p += ll;
	}
	k = chunked ? (size_t)snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", r->len) : 0;
	memcpy(w, cl, k);
	w += k;
	memcpy(w, "\r\n", 2);
	w += 2;
	r->head_len = (size_t)(w - r->head);
}

/* The request's body, whole, into r->body: 0, or -1 (answered). */
static int read_body(struct gate_flow *f, struct refresh *r)
{
	size_t pos = f->req.head_len, used, doff, dlen;
	int err = HTTP_MORE, expect = 0;

	for (uint32_t i = 0; i < f->req.nheaders; i++)
		if (flow_header_is(f, &f->req.h[i], "expect") && f->req.h[i].value.len == 12 &&
		    !strncasecmp(f->in + f->req.h[i].value.off, "100-continue", 12))
			expect = 1;
	/* The body comes once the agent is told to: the gateway reads it whole first. */
	if (expect && agent_write_all(&f->ag, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
		return -1;
	r->len = 0;
	for (;;) {
		while (pos < f->inlen && err == HTTP_MORE) {
			err = http_body_feed(&f->req.body, f->in + pos, f->inlen - pos, &used,
					     &doff, &dlen);
			if (err != HTTP_OK && err != HTTP_MORE) {
				flow_refuse(f, 400, http_strerror(err), NULL);
				return -1;
			}
			if (dlen > sizeof(r->body) - r->len) {
				flow_refuse(f, 400, "a refresh body longer than 64 KiB", NULL);
				return -1;
			}
			memcpy(r->body + r->len, f->in + pos + doff, dlen);
			r->len += dlen;
			pos += used;
		}
		if (err == HTTP_OK)
			break;
		f->inlen = pos = 0;
		if (flow_agent_read(f) <= 0) {
			f->status = 0;
			f->error = "the agent closed inside a refresh's body";
			flow_log(f);
			return -1;
		}
	}
	/* What follows is the next request's (pipelined). */
	memmove(f->in, f->in + pos, f->inlen - pos);
	f->inlen -= pos;
	return 0;
}

/* The answer's head, then its body whole (bounded), from the upstream: 0, or -1 with f->error. */
static int read_answer(struct gate_flow *f, struct refresh *r)
{
	size_t pos, used, doff, dlen;
	int err;

	for (;;) {
		memset(&f->resp, 0, sizeof(f->resp));
		while ((err = http_resp_parse(&f->resp, f->rb, f->rblen, 0)) == HTTP_MORE)
			if (flow_up_read(f) <= 0) {
				f->error = errno == ETIMEDOUT
					       ? TIMED_OUT
					       : "the token endpoint closed before its answer";
				return -1;
			}
		if (err != HTTP_OK) {
			f->error = http_strerror(err);
			return -1;
		}
		if (f->resp.status >= 200)
			break;
		/* An interim answer (100 Continue): the body was sent already. */
		memmove(f->rb, f->rb + f->resp.head_len, f->rblen - f->resp.head_len);
		f->rblen -= f->resp.head_len;
	}
	for (uint32_t i = 0; i < f->resp.nheaders; i++) {
		const struct http_header *h = &f->resp.h[i];

		if (h->name.len == 16 &&
		    !strncasecmp(f->rb + h->name.off, "content-encoding", 16) &&
		    !(h->value.len == 8 && !strncasecmp(f->rb + h->value.off, "identity", 8))) {
			f->error = "the token endpoint sent an encoded answer (Content-Encoding)";
			return -1;
		}
	}
	memcpy(r->rhead, f->rb, f->resp.head_len);
	r->rhead_len = f->resp.head_len;
	r->status = f->resp.status;
	r->keep_alive = f->resp.keep_alive;
	r->kind = f->resp.body.kind;
	r->resp_len = 0;
	pos = f->resp.head_len;
	err = r->kind == HTTP_BODY_NONE ? HTTP_OK : HTTP_MORE;
	while (err == HTTP_MORE) {
		ssize_t got;

		while (pos < f->rblen && err == HTTP_MORE) {
			err = http_body_feed(&f->resp.body, f->rb + pos, f->rblen - pos, &used,
					     &doff, &dlen);
			if (err != HTTP_OK && err != HTTP_MORE) {
				f->error = http_strerror(err);
				return -1;
			}
			if (dlen > sizeof(r->resp) - r->resp_len) {
				f->error = "the token endpoint's answer is longer than 64 KiB";
				return -1;
			}
			memcpy(r->resp + r->resp_len, f->rb + pos + doff, dlen);
			r->resp_len += dlen;
			pos += used;
		}
		if (err == HTTP_OK)
			break;
		f->rblen = pos = 0;
		got = flow_up_read(f);
		if ((got == 0 || (got < 0 && errno == ENODATA)) && r->kind == HTTP_BODY_CLOSE)
			break;
		if (got <= 0) {
			f->error = got < 0 && errno == ETIMEDOUT
				       ? TIMED_OUT
				       : "the token endpoint closed inside its answer";
			return -1;
		}
	}
	memmove(f->rb, f->rb + pos, f->rblen - pos);
	f->rblen -= pos;
	if (!r->keep_alive || r->kind == HTTP_BODY_CLOSE) {
		upstream_close(&f->up);
		f->rblen = 0;
	}
	return 0;
}

/*
 * The request sent (head, r->out), the answer read: 0, or -1 with f->error
 * (a 502, or TIMED_OUT: a 504). The lock is held meanwhile, so the token
 * endpoint gets gate.refresh_ms for both, after the connect and handshake
 * (10 s each at most): a hung one would hold every refresh of the gateway.
 */
static int exchange(struct gate_flow *f, struct refresh *r, char *detail, size_t dsz)
{
	const char *why;
	int rc = -1;

	if (f->up.fd >= 0 && upstream_idle_closed(&f->up))
		upstream_close(&f->up);
	if (f->up.fd < 0 &&
	    upstream_open(upstream_context(f->gate), f->g, &f->up, &why, detail, dsz) < 0) {
		f->error = why;
		return -1;
	}
	f->up.deadline = upstream_deadline(f->gate->refresh_ms);
	if (upstream_write(&f->up, r->head, r->head_len) < 0 ||
	    upstream_write(&f->up, r->out, r->len) < 0) {
		f->error = errno == ETIMEDOUT
			       ? TIMED_OUT
			       : "the token endpoint closed before the refresh was sent";
	} else {
		f->up_bytes += r->head_len + r->len;
		rc = read_answer(f, r);
	}
	f->up.deadline = 0;
	if (rc < 0)
		upstream_close(&f->up);
	return rc;
}

/* The login's pairs, as the refresh functions take them (under refresh_lock: they stay). */
static void known_pairs(struct refresh *r, const struct login_table *t)
{
	r->nknown = t->n;
	for (size_t i = 0; i < t->n; i++) {
		r->known[i].role = t->tok[i].role;
		r->known[i].real = (const char *)t->tok[i].real;
		r->known[i].phantom = t->tok[i].phantom;
		r->known[i].len = t->tok[i].len;
	}
}

/* The answer to the agent: its head as it came, the body (one chunk when chunked). */
static int send_answer(struct gate_flow *f, struct refresh *r, const char *body)
{
	int chunked = r->kind == HTTP_BODY_CHUNKED;
	char size[24];
	struct iovec v[4] = {
		{ r->rhead, r->rhead_len },
		{ size, chunked && r->resp_len
			    ? (size_t)snprintf(size, sizeof(size), "%zx\r\n", r->resp_len)
			    : 0 },
		{ (void *)body, r->resp_len },
		{ (void *)(r->resp_len ? "\r\n0\r\n\r\n" : "0\r\n\r\n"),
		  chunked ? (r->resp_len ? 7 : 5) : 0 },
	};

	if (agent_writev_all(&f->ag, v, 4) < 0)
		return -1;
	f->down_bytes += v[0].iov_len + v[1].iov_len + v[2].iov_len + v[3].iov_len;
	return 0;
}

/*
 * The new real file sealed into the store, at once, its directory's fsync
 * left to the caller (sync_dir) once the agent has its answer: a power cut
 * between the rename and that sync loses the tokens as one between the
 * provider's answer and the rename would, and the agent does not wait for
 * the disk twice. 1 when that sync is owed, else 0. Without a directory
 * (--store-fd), or when the write fails, the session keeps the tokens
 * alone: said on stderr.
 */
static int keep(struct gate_flow *f, struct refresh *r, int64_t expires_in)
{
	const struct otogate_opts *o = f->gate->o;
	const struct gate_login *l = f->g->login;
	struct store_plain pe;
	int err, detail = 0;

	err = login_refresh_file(&l->p, (const char *)l->t->file, l->t->file_len, r->fresh,
				 r->nfresh, expires_in, (int64_t)time(NULL), r->file,
				 sizeof(r->file), &r->file_len);
	if (err) {
		sodium_memzero(r->file, sizeof(r->file));
		r->file_len = 0;
		warnx("--login %s: the refreshed login file: %s: the new tokens are kept for "
		      "this session only",
		      l->spec, login_refresh_strerror(err));
		return 0;
	}
	memcpy(l->t->file, r->file, r->file_len);
	l->t->file_len = r->file_len;
	if (o->store_dir < 0)
		return 0;
	pe.name = l->entry;
	pe.value = (const uint8_t *)r->file;
	pe.value_len = r->file_len;
	err = store_update(o->store_dir, o->store_name, o->key, &pe, 1, STORE_UPDATE_DIR_LATER,
			   STORE_WAIT_MS, &detail);
	if (err != STORE_UPD_OK)
		log_msg(LOG_WARN, err < STORE_UPD_NOTREG ? errno : 0,
			"--login %s: unable to keep the refreshed tokens in the store: %s", l->spec,
			store_update_strerror(err, detail));
	return err == STORE_UPD_OK;
}

/* The store's directory on disk, the rename in it lasting (keep). */
static void sync_dir(struct gate_flow *f)
{
	const struct gate_login *l = f->g->login;

	if (fsync(f->gate->o->store_dir) < 0)
		log_msg(LOG_WARN, errno, "--login %s: the store with the refreshed tokens: %s",
			l->spec, store_update_strerror(STORE_UPD_SYNC, 0));
}

/* Whether an error answer says the refresh token is no longer valid (RFC 6749, 5.2). */
static int invalid_grant(const struct refresh *r)
{
	return (r->status == 400 || r->status == 401) &&
	       memmem(r->resp, r->resp_len, "invalid_grant", 13);
}

/*
 * After invalid_grant: the store's file, read again (another session's
 * refresh may have put a newer one there; a rename makes every read
 * whole). When its refresh token is not the one just sent (known[used]),
 * and as long, it takes that pair's place in the table, and the file
 * becomes the login's: 1, a retry is worth it; else 0.
 */
static int store_newer(struct gate_flow *f, struct refresh *r, size_t used)
{
	const struct otogate_opts *o = f->gate->o;
	const struct gate_login *l = f->g->login;
	struct login_table *t = l->t;
	struct login_field fl[LOGIN_MAX_SECRETS];
	const struct login_secret *bad;
	struct store_view v;
	struct stat st;
	uint8_t *buf = NULL;
	int fd, idx, jerr, ok = 0;
	size_t at, vl;

	if (o->store_dir < 0)
		return 0;
	fd = openat(o->store_dir, o->store_name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > STORE_MAX_SIZE ||
	    !(buf = malloc((size_t)st.st_size + 1)) ||
	    fd_read_all(fd, buf, (size_t)st.st_size) != st.st_size)
		goto out;
	if (store_parse(buf, (size_t)st.st_size, &v) || (idx = store_find(&v, l->entry)) < 0)
		goto out;
	vl = v.e[idx].value_len;
	if (vl > sizeof(r->file) || store_open(&v, (uint32_t)idx, o->key, (uint8_t *)r->file))
		goto out;
	if (login_phantom(&l->p, r->file, vl, r->back, fl, phantom_rand, NULL, &bad, &jerr, &at))
		goto out;
	for (size_t i = 0; i < l->p.nsecrets; i++) {
		size_t n = fl[i].end - fl[i].start;
		const char *nr = r->file + fl[i].start;

		if (!fl[i].present || fl[i].secret->role != LOGIN_REFRESH)
			continue;
		if (n != r->known[used].len || !memcmp(nr, r->known[used].real, n))
			break;
		pthread_mutex_lock(&t->lock);
		memcpy(t->tok[used].real, nr, n);
		atomic_fetch_add(&t->gen, 1);
		pthread_mutex_unlock(&t->lock);
		memcpy(t->file, r->file, vl);
		t->file_len = vl;
		ok = 1;
		break;
	}
out:
	sodium_memzero(r->file, sizeof(r->file));
	sodium_memzero(r->back, sizeof(r->back));
	if (buf)
		free(buf);
	close(fd);
	return ok;
}

/* Under refresh_lock: the refresh sent, answered, kept. 0, or -1 (answered, logged). */
static int refresh_locked(struct gate_flow *f, struct refresh *r)
{
	const struct gate_login *l = f->g->login;
	struct login_refresh_work *w = f->gate->work;
	char detail[512], msg[640];
	int err, jerr = 0, k, owed, rc;
	int64_t expires_in = -1;
	size_t used = 0;

	for (int tries = 0;; tries++) {
		known_pairs(r, l->t);
		err = login_refresh_request(&l->p, r->ctype, r->ctype_len, r->body, r->len,
					    r->known, r->nknown, r->out, &used, w, &jerr);
		if (err) {
			snprintf(msg, sizeof(msg), "a refresh the gateway will not send: %s",
				 login_refresh_strerror(err));
			flow_refuse(f, 400, msg,
				    err == LOGIN_REFRESH_EJSON ? json_strerror(jerr) : NULL);
			return -1;
		}
		detail[0] = 0;
		if (exchange(f, r, detail, sizeof(detail)) < 0) {
			flow_refuse(f, f->error == TIMED_OUT ? 504 : 502, f->error, detail);
			return -1;
		}
		if (r->status >= 200 && r->status < 300)
			break;
		/* An error answer: passed on, unless it holds a real (an echo). */
		k = login_refresh_holds(r->rhead, r->rhead_len, r->known, r->nknown,
					LOGIN_SIDE_REAL, w);
		if (k == -1)
			k = login_refresh_holds(r->resp, r->resp_len, r->known, r->nknown,
						LOGIN_SIDE_REAL, w);
		if (k != -1) {
			flow_refuse(f, 502, "the token endpoint's error answer holds a real token",
				    NULL);
			return -1;
		}
		if (tries == 0 && invalid_grant(r) && store_newer(f, r, used))
			continue;
		f->status = r->status;
		if (send_answer(f, r, r->resp) < 0) {
			f->error = "the agent closed";
			flow_log(f);
			return -1;
		}
		flow_log(f);
		return 0;
	}
	err = login_refresh_response(r->resp, r->resp_len, r->known, r->nknown, r->back, r->fresh,
				     &r->nfresh, &expires_in, phantom_rand, NULL, w, &jerr);
	/* The head too: nothing of a real in any header. */
	if (!err && login_refresh_holds(r->rhead, r->rhead_len, r->fresh, r->nfresh,
					LOGIN_SIDE_REAL, w) != -1)
		err = LOGIN_REFRESH_EECHO;
	if (!err && login_refresh_holds(r->rhead, r->rhead_len, r->known, r->nknown,
					LOGIN_SIDE_REAL, w) != -1)
		err = LOGIN_REFRESH_EECHO;
	if (err) {
		flow_refuse(f, 502, "the token endpoint's answer refused",
			    login_refresh_strerror(err));
		return -1;
	}
	/* Kept first (the store too), then told: the provider has invalidated the old ones. */
	owed = keep(f, r, expires_in);
	for (size_t i = 0; i < r->nfresh; i++)
		if (login_table_add(l->t, r->fresh[i].role, r->fresh[i].real, r->fresh[i].phantom,
				    r->fresh[i].len) < 0)
			warnx("--login %s: a %s token of %zu bytes is not kept", l->spec,
			      login_role_name(r->fresh[i].role), r->fresh[i].len);
	f->status = r->status;
	rc = send_answer(f, r, r->back);
	if (owed)
		sync_dir(f);
	if (rc < 0) {
		f->error = "the agent closed";
		flow_log(f);
		return -1;
	}
	flow_log(f);
	return 0;
}

/*
 * What a refresh wrote, zeroed: the parts used, by their lengths (the
 * whole area is 600 KB, and zeroing it all made every refresh fault in
 * each of its pages).
 */
static void wipe(struct refresh *r)
{
	sodium_memzero(r->ctype, r->ctype_len);
	sodium_memzero(r->head, r->head_len);
	sodium_memzero(r->body, r->len);
	sodium_memzero(r->out, r->len);
	sodium_memzero(r->rhead, r->rhead_len);
	sodium_memzero(r->resp, r->resp_len);
	sodium_memzero(r->back, r->resp_len);
	sodium_memzero(r->file, r->file_len);
	sodium_memzero(r->known, sizeof(r->known));
	sodium_memzero(r->fresh, sizeof(r->fresh));
}

int refresh_serve(struct gate_flow *f)
{
	/* The last refresh's area when no other refresh holds it: no mapping made and
	 * unmapped (a TLB flush on every core the gateway runs on), no page faulted in. */
	struct refresh *r = atomic_exchange(&f->gate->refresh_spare, NULL);
	void *none = NULL;
	int rc = -1;

	if (!r)
		r = malloc(sizeof(*r));

	if (!r) {
		flow_refuse(f, 503, "out of memory for a refresh", NULL);
		return -1;
	}
	r->ctype_len = r->head_len = r->len = r->rhead_len = r->resp_len = r->file_len = 0;
	r->nknown = r->nfresh = 0;
	if (take_head(f, r) == 0 && read_body(f, r) == 0) {
		head_length(r, f->req.body.kind == HTTP_BODY_CHUNKED);
		pthread_mutex_lock(&f->gate->refresh_lock);
		rc = refresh_locked(f, r);
		pthread_mutex_unlock(&f->gate->refresh_lock);
	}
	wipe(r);
	if (!atomic_compare_exchange_strong(&f->gate->refresh_spare, &none, r))
		free(r);
	if (rc == 0 && (!f->req.keep_alive || f->resp.body.kind == HTTP_BODY_CLOSE))
		rc = -1;
	return rc;
}
