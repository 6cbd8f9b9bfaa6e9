/* SPDX-License-Identifier: ISC */
/*
 * One flow of the agent, on a thread of its own, with blocking I/O: its
 * requests one after the other (keep-alive), each read with lib/http's
 * parser, its head rewritten (the phantom becomes the real value in the
 * grant's headers only, Host becomes the upstream's, identity encoding asked
 * for and ranges dropped), forwarded with its body as it
 * came, and the response streamed back as it arrives (server-sent events
 * included), the real value, as it is and in its common encodings, turned
 * back into the phantom in its head and its body: the body decoded from its
 * chunks first, and framed again; a body in a Content-Encoding is refused.
 *
 * Whatever goes wrong before a response has begun is answered with an HTTP
 * error and a one-line body; after, the agent's connection is closed. Either
 * way one log line says what happened. A request the gateway refuses never
 * reaches an upstream. What goes to the agent is written with fd_write_all:
 * the gateway ignores SIGPIPE (main.c), so an agent gone is EPIPE, not a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"
#include "flow.h"

void flow_log(struct gate_flow *f)
{
	struct gate_logrec r = { 0 };
	struct timespec ts;
	char line[8192];
	size_t n;

	if (f->gate->log_fd < 0 && !f->gate->why)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	r.sec = (long long)ts.tv_sec;
	r.msec = ts.tv_nsec / 1000000;
	r.grant = f->g ? f->g->name : "-";
	r.host = f->g ? f->g->host : "-";
	r.method = f->method;
	r.method_len = f->method_len;
	r.path = f->path;
	r.path_len = f->path_len;
	r.status = f->status;
	r.up = f->up_bytes;
	r.down = f->down_bytes;
	r.error = f->error;
	n = gate_log_format(line, sizeof(line), &r);
	if (!n)
		return;
	/* One write: the lines of concurrent flows never mix. */
	if (f->gate->log_fd >= 0 && write(f->gate->log_fd, line, n) < 0)
		log_msg(LOG_DEBUG, errno, "unable to write a log line");
	/* The agent's short line, from the same line (lib/why_format.c): a refusal's only. */
	if (f->gate->why) {
		pthread_mutex_lock(&f->gate->why_lock);
		why_note(f->gate->why, line, n);
		pthread_mutex_unlock(&f->gate->why_lock);
	}
}

/* The gateway's own answer resp[0, n) with status, for the reason msg: logged, then the flow ends.
 */
static void answer(struct gate_flow *f, int status, const char *msg, const char *resp, size_t n)
{
	if (n && agent_write_all(&f->ag, resp, n) == 0)
		f->down_bytes += n;
	f->status = status;
	f->error = msg;
	flow_log(f);
	infox("port %d (%s): %d %s", f->port, f->g ? f->g->name : "no grant", status, msg);
}

/* The gateway's own answer, before any byte of a response: logged, then the flow ends. */
void flow_refuse(struct gate_flow *f, int status, const char *why, const char *detail)
{
	char msg[512], head[1024];

	if (detail && *detail)
		snprintf(msg, sizeof(msg), "%s: %s", why, detail);
	else
		snprintf(msg, sizeof(msg), "%s", why);
	answer(f, status, msg, head, gate_error_format(head, sizeof(head), status, msg));
}

/* More of the agent's bytes into in: the count, 0 at its end, -1 on error. */
ssize_t flow_agent_read(struct gate_flow *f)
{
	ssize_t n;

	if (f->inlen == sizeof(f->in)) {
		errno = ENOBUFS;
		return -1;
	}
	n = agent_recv(&f->ag, f->in + f->inlen, sizeof(f->in) - f->inlen);
	if (n > 0)
		f->inlen += (size_t)n;
	return n;
}

/* The request's head: 1 read, 0 the agent is done, -1 refused (answered). */
static int read_head(struct gate_flow *f)
{
	int err;

	memset(&f->req, 0, sizeof(f->req));
	f->method_len = f->path_len = 0;
	for (;;) {
		err = http_req_parse(&f->req, f->in, f->inlen);
		if (err == HTTP_OK) {
			const char *t = f->in + f->req.target.off;
			const char *q = memchr(t, '?', f->req.target.len);

			f->method_len = f->req.method.len < sizeof(f->method) ? f->req.method.len
									      : sizeof(f->method);
			memcpy(f->method, f->in + f->req.method.off, f->method_len);
			/* The path without the query: a query may hold anything, phantoms included.
			 */
			f->path_len = q ? (size_t)(q - t) : f->req.target.len;
			if (f->path_len > sizeof(f->path))
				f->path_len = sizeof(f->path);
			memcpy(f->path, t, f->path_len);
			return 1;
		}
		if (err != HTTP_MORE) {
			flow_refuse(f, http_status(err), http_strerror(err), NULL);
			return -1;
		}
		if (flow_agent_read(f) <= 0) {
			/* Between requests, or inside blank lines: a clean end. */
			if (f->req.pos == f->inlen && !f->req.seen_line)
				return 0;
			f->status = 0;
			f->error = "the agent closed inside a request's head";
			flow_log(f);
			return -1;
		}
	}
}

/*
 * Another grant's phantom anywhere in the head: the agent aims one
 * credential at another's host. A login's phantoms are not refused: a CLI
 * sends them where it will (login_sights).
 */
static const struct grant *foreign_phantom(const struct gate_flow *f)
{
	const struct otogate_opts *o = f->gate->o;

	for (size_t i = 0; i < o->ngrants; i++) {
		const struct grant *h = &o->grants[i];

		if (h != f->g && !h->login && memmem(f->in, f->req.head_len, h->phantom, h->len))
			return h;
	}
	return NULL;
}

/*
 * A login's phantom where no grant puts its real value (the path, the
 * query, another header, another grant's host) goes out as it is: a line
 * in the record says where, so a person sees why the request fails.
 */
static void login_sights(struct gate_flow *f)
{
	struct login_sight w[16];
	struct timespec ts;
	char line[1024];
	size_t n, k;

	if (f->gate->log_fd < 0 || !f->gate->o->nlogins)
		return;
	n = login_seen(f->gate->o, f->g, f->in, &f->req, w, sizeof(w) / sizeof(w[0]));
	clock_gettime(CLOCK_REALTIME, &ts);
	for (size_t i = 0; i < n; i++) {
		k = gate_sight_format(line, sizeof(line), (long long)ts.tv_sec,
				      ts.tv_nsec / 1000000, w[i].login->entry, f->g->host,
				      login_role_name(w[i].role), w[i].where, w[i].where_len,
				      w[i].header);
		if (k && write(f->gate->log_fd, line, k) < 0)
			log_msg(LOG_DEBUG, errno, "unable to write a log line");
	}
}

int flow_header_is(const struct gate_flow *f, const struct http_header *h, const char *name)
{
	size_t n = strlen(name);

	return h->name.len == n && !strncasecmp(f->in + h->name.off, name, n);
}

/*
 * The form kinds a request's body is read as for a _method (FORM_URLENCODED,
 * FORM_MULTIPART, as bits), under a grant that limits requests: by each
 * Content-Type; with none, a urlencoded form (Rack reads a POST without one
 * as a form). 0: none to read.
 */
static unsigned int form_kinds(const struct gate_flow *f)
{
	static const char URL[] = "application/x-www-form-urlencoded", MULTI[] = "multipart/";
	unsigned int kinds = 0;
	int typed = 0;

	if (!grant_limits(f->g) || f->req.body.kind == HTTP_BODY_NONE)
		return 0;
	for (uint32_t i = 0; i < f->req.nheaders; i++) {
		const struct http_header *h = &f->req.h[i];
		const char *v = f->in + h->value.off;
		size_t vl = h->value.len;

		if (!flow_header_is(f, h, "content-type"))
			continue;
		typed = 1;
		if (vl >= sizeof(URL) - 1 && !strncasecmp(v, URL, sizeof(URL) - 1))
			kinds |= 1U << FORM_URLENCODED;
		else if (vl >= sizeof(MULTI) - 1 && !strncasecmp(v, MULTI, sizeof(MULTI) - 1))
			kinds |= 1U << FORM_MULTIPART;
	}
	return typed ? kinds : 1U << FORM_URLENCODED;
}

/*
 * The request's body, as it came, to the upstream: 0, or -1 (the flow ends).
 * Under a grant that limits requests, a form's _method (form_kinds) is
 * looked for in each piece before it is sent: found, the piece is not, the
 * request stays unfinished, and the flow ends with a 400 (the caller's).
 */
static int forward_body(struct gate_flow *f)
{
	size_t pos = f->req.head_len, used, doff, dlen;
	unsigned int kinds = form_kinds(f);
	struct form_scan url = { .kind = FORM_URLENCODED }, multi = { .kind = FORM_MULTIPART };
	int err;

	if (f->req.body.kind == HTTP_BODY_NONE)
		goto done;
	for (;;) {
		while (pos < f->inlen) {
			err = http_body_feed(&f->req.body, f->in + pos, f->inlen - pos, &used,
					     &doff, &dlen);
			if (err != HTTP_OK && err != HTTP_MORE) {
				f->status = 400;
				f->error = http_strerror(err);
				return -1;
			}
			if (kinds & (1U << FORM_URLENCODED))
				form_scan_feed(&url, f->in + pos + doff, dlen);
			if (kinds & (1U << FORM_MULTIPART))
				form_scan_feed(&multi, f->in + pos + doff, dlen);
			if (err == HTTP_OK && (kinds & (1U << FORM_URLENCODED)))
				form_scan_end(&url);
			if (err == HTTP_OK && (kinds & (1U << FORM_MULTIPART)))
				form_scan_end(&multi);
			if (url.found || multi.found) {
				f->status = 400;
				f->error =
				    "a method or URL override the upstream could act on: a _method "
				    "parameter in the form body";
				return -1;
			}
			if (upstream_write(&f->up, f->in + pos, used) < 0) {
				f->status = 502;
				f->error = "the upstream closed while the request was sent";
				return -1;
			}
			f->up_bytes += used;
			pos += used;
			if (err == HTTP_OK)
				goto done;
		}
		f->inlen = pos = 0;
		if (flow_agent_read(f) <= 0) {
			f->status = 0;
			f->error = "the agent closed inside a request's body";
			return -1;
		}
	}
done:
	/* What follows is the next request's (pipelined). */
	memmove(f->in, f->in + pos, f->inlen - pos);
	f->inlen -= pos;
	return 0;
}

/* A request with a body and "Expect: 100-continue" (RFC 9110, 10.1.1). */
static int expects_continue(const struct gate_flow *f)
{
	if (f->req.body.kind == HTTP_BODY_NONE)
		return 0;
	for (uint32_t i = 0; i < f->req.nheaders; i++) {
		const struct http_header *h = &f->req.h[i];

		if (flow_header_is(f, h, "expect") && h->value.len == 12 &&
		    !strncasecmp(f->in + h->value.off, "100-continue", 12))
			return 1;
	}
	return 0;
}

ssize_t flow_up_read(struct gate_flow *f)
{
	ssize_t n;

	if (f->rblen == sizeof(f->rb)) {
		errno = ENOBUFS;
		return -1;
	}
	n = upstream_read(&f->up, f->rb + f->rblen, sizeof(f->rb) - f->rblen);
	if (n > 0)
		f->rblen += (size_t)n;
	return n;
}

/*
 * The scrubbers in turn (a login's grant has one for each of its file's
 * secrets): in[0, len) to out (scrub_max bytes). Returns what came out.
 */
static size_t scrub(struct gate_flow *f, const char *in, size_t len, char *out, int final)
{
	size_t n;

	if (!f->nmore)
		return http_repl_scan(&f->repl, in, len, out, final);
	n = http_repl_scan(&f->repl, in, len, f->tmp, final);
	for (size_t i = 0; i < f->nmore; i++)
		n = http_repl_scan(&f->more[i], f->tmp + (i & 1) * TMP_SIZE, n,
				   i + 1 == f->nmore ? out : f->tmp + ((i + 1) & 1) * TMP_SIZE,
				   final);
	return n;
}

/* The most bytes scrub writes for len bytes in: len and what every scrubber holds. */
static size_t scrub_max(const struct gate_flow *f, size_t len)
{
	len = http_repl_max(&f->repl, len);
	for (size_t i = 0; i < f->nmore; i++)
		len += f->more[i].held;
	return len;
}

/*
 * The response's head scrubbed in place: every form of the real value becomes
 * the phantom's, of the same length (the head is shorter than rep).
 */
static void scrub_head(struct gate_flow *f)
{
	size_t n;

	/* nothing of an earlier response's, cut short */
	f->repl.held = 0;
	for (size_t i = 0; i < f->nmore; i++)
		f->more[i].held = 0;
	n = scrub(f, f->rb, f->resp.head_len, f->rep, 0);
	n += scrub(f, NULL, 0, f->rep + n, 1);
	memcpy(f->rb, f->rep, n);
}

/*
 * A body in a Content-Encoding other than identity (asked for: struct
 * http_rewrite's identity) would carry the value compressed, where no scrubber
 * sees it: such a response is refused whole.
 */
static const char *encoded_body(const struct gate_flow *f)
{
	if (f->resp.body.kind == HTTP_BODY_NONE)
		return NULL;
	for (uint32_t i = 0; i < f->resp.nheaders; i++) {
		const struct http_header *h = &f->resp.h[i];

		if (h->name.len == 16 &&
		    !strncasecmp(f->rb + h->name.off, "content-encoding", 16) &&
		    !(h->value.len == 8 && !strncasecmp(f->rb + h->value.off, "identity", 8)))
			return "the upstream sent an encoded body (Content-Encoding), although "
			       "asked "
			       "for identity";
	}
	return NULL;
}

/*
 * Data out of the replacer, framed as a chunk when the body is chunked, in
 * one writev with the response's head when that is still held: an event of
 * a stream leaves at once and whole, and a small response as one segment.
 * With len 0, only the held head (if any).
 */
static int send_data(struct gate_flow *f, const char *buf, size_t len, int chunked)
{
	char size[24];
	struct iovec v[4];
	size_t total;

	v[0].iov_base = f->rb;
	v[0].iov_len = f->held;
	v[1].iov_base = size;
	v[1].iov_len = len && chunked ? (size_t)snprintf(size, sizeof(size), "%zx\r\n", len) : 0;
	v[2].iov_base = (void *)buf;
	v[2].iov_len = len;
	v[3].iov_base = (void *)"\r\n";
	v[3].iov_len = len && chunked ? 2 : 0;
	total = v[0].iov_len + v[1].iov_len + len + v[3].iov_len;
	if (!total)
		return 0;
	f->held = 0;
	if (agent_writev_all(&f->ag, v, 4) < 0)
		return -1;
	f->down_bytes += total;
	return 0;
}

/* Why a flow ends whose agent closed while the upstream's answer was awaited (AGENT_GONE). */
static const char AGENT_GONE[] = "the agent closed while the upstream's response was awaited";

/*
 * The response, streamed: 0 when it is complete (the connection may carry
 * the next), -1 when the flow must end (logged; or a body that ended with
 * the upstream's close). With until_continue, a 100 (Continue) is passed on
 * and 1 returned: the request's body is to follow.
 */
static int stream_response(struct gate_flow *f, int until_continue)
{
	int head = f->method_len == 4 && !memcmp(f->method, "HEAD", 4);
	int err, chunked, began = 0;
	size_t pos, used, doff, dlen, n, replen = 0;
	ssize_t r;

	for (;;) {
		memset(&f->resp, 0, sizeof(f->resp));
		while ((err = http_resp_parse(&f->resp, f->rb, f->rblen, head)) == HTTP_MORE) {
			r = flow_up_read(f);
			if (r <= 0) {
				/* A close with or without TLS's close_notify: the same to the
				 * agent. */
				f->error = r < 0 && errno == ECONNABORTED
					       ? AGENT_GONE
					       : "the upstream closed before its response";
				goto failed;
			}
		}
		if (err != HTTP_OK) {
			f->error = http_strerror(err);
			goto failed;
		}
		scrub_head(f);
		began = 1;
		pos = f->resp.head_len;
		if (f->resp.status >= 200) {
			/* Sent with the body's first bytes, or before the next wait. */
			f->held = f->resp.head_len;
			break;
		}
		if (agent_write_all(&f->ag, f->rb, f->resp.head_len) < 0) {
			f->error = "the agent closed";
			f->status = f->resp.status;
			goto failed;
		}
		f->down_bytes += f->resp.head_len;
		/* An interim response (100 Continue): the final one follows. */
		memmove(f->rb, f->rb + pos, f->rblen - pos);
		f->rblen -= pos;
		if (until_continue && f->resp.status == 100)
			return 1;
	}
	f->status = f->resp.status;
	chunked = f->resp.body.kind == HTTP_BODY_CHUNKED;
	f->error = encoded_body(f);
	if (f->error)
		goto failed;
	err = f->resp.body.kind == HTTP_BODY_NONE ? HTTP_OK : HTTP_MORE;
	while (err == HTTP_MORE) {
		while (pos < f->rblen) {
			err = http_body_feed(&f->resp.body, f->rb + pos, f->rblen - pos, &used,
					     &doff, &dlen);
			if (err != HTTP_OK && err != HTTP_MORE) {
				f->error = http_strerror(err);
				goto failed;
			}
			/*
			 * What came in one read leaves in one write (one chunk, when
			 * chunked), however the upstream cut it in chunks.
			 */
			/* In pieces that fit rep with what the scrubbers hold. */
			for (size_t k, at = 0; at < dlen; at += k) {
				k = dlen - at;
				if (replen + scrub_max(f, k) > sizeof(f->rep)) {
					if (send_data(f, f->rep, replen, chunked) < 0) {
						f->error = "the agent closed";
						goto failed;
					}
					replen = 0;
				}
				if (scrub_max(f, k) > sizeof(f->rep))
					k = sizeof(f->rep) - scrub_max(f, 0);
				replen += scrub(f, f->rb + pos + doff + at, k, f->rep + replen, 0);
			}
			pos += used;
			if (err == HTTP_OK)
				break;
		}
		if (err == HTTP_OK)
			break;
		/* Before waiting on the upstream: what the agent can have already. */
		if (send_data(f, f->rep, replen, chunked) < 0) {
			f->error = "the agent closed";
			goto failed;
		}
		replen = 0;
		f->rblen = pos = 0;
		r = flow_up_read(f);
		/*
		 * A body delimited by the close: its end, with or without TLS's
		 * close_notify (many servers send none). The agent sees the close
		 * either way, as it would from the upstream itself.
		 */
		if ((r == 0 || (r < 0 && errno == ENODATA)) && f->resp.body.kind == HTTP_BODY_CLOSE)
			break;
		if (r <= 0) {
			f->error = r < 0 && errno == ECONNABORTED
				       ? AGENT_GONE
				       : "the upstream closed inside its response";
			goto failed;
		}
	}
	/* The held bytes: fewer than the value's length, and no part of it (and the head, if held).
	 */
	if (replen + scrub_max(f, 0) > sizeof(f->rep)) {
		if (send_data(f, f->rep, replen, chunked) < 0) {
			f->error = "the agent closed";
			goto failed;
		}
		replen = 0;
	}
	n = replen + scrub(f, NULL, 0, f->rep + replen, 1);
	if (send_data(f, f->rep, n, chunked) < 0 ||
	    (chunked && agent_write_all(&f->ag, "0\r\n\r\n", 5) < 0)) {
		f->error = "the agent closed";
		goto failed;
	}
	if (chunked)
		f->down_bytes += 5;
	memmove(f->rb, f->rb + pos, f->rblen - pos);
	f->rblen -= pos;
	flow_log(f);
	/* A body that ended with the upstream's close ends the agent's connection too: it is how
	 * the agent learns where the body ends. */
	if (f->resp.body.kind == HTTP_BODY_CLOSE)
		return -1;
	if (!f->resp.keep_alive) {
		upstream_close(&f->up);
		f->rblen = 0;
	}
	return 0;
failed:
	/*
	 * f->error says why. Whether the agent has seen any of the response
	 * decides what it gets: nothing yet (no head, or the head still held),
	 * the gateway's own 502; part of it, the end of the connection. An
	 * agent gone gets nothing: its line in the record, with the status the
	 * upstream had given (0: none yet), is no refusal, so nothing for the
	 * agent's file or stderr (a person who cancels often would fill both).
	 */
	if (f->error == AGENT_GONE) {
		f->held = 0;
		flow_log(f);
		return -1;
	}
	if (!began || f->held) {
		f->held = 0;
		flow_refuse(f, 502, f->error, NULL);
		return -1;
	}
	flow_log(f);
	infox("port %d (%s): %s", f->port, f->g->name, f->error);
	return -1;
}

/*
 * stream_response, with the agent's connection watched while the upstream
 * is awaited: an agent that closes it (a CLI whose person cancelled) ends
 * the flow at once, and with it the upstream's request (a model that would
 * go on generating, and billing, for nobody). A half-close reads as a
 * close, as it does to nginx.
 */
static int relay_response(struct gate_flow *f, int until_continue)
{
	int rc;

	f->up.watch = f->ag.fd;
	rc = stream_response(f, until_continue);
	f->up.watch = -1;
	return rc;
}

/* ---- asking (ask=; otogate(1), Asking) ---------------------------------------- */

/*
 * The requests ask=writes leaves alone: those that read. The methods that
 * read, exactly so (any other is asked), and git's fetch: smart HTTP posts
 * every clone, fetch and ref listing to .../git-upload-pack (p[0, pl), no
 * query), which only sends; a push is .../git-receive-pack, asked.
 */
static int reads(const char *m, size_t n, const char *p, size_t pl)
{
	static const char UPLOAD[] = "/git-upload-pack";
	const size_t ul = sizeof(UPLOAD) - 1;

	return (n == 3 && !memcmp(m, "GET", 3)) || (n == 4 && !memcmp(m, "HEAD", 4)) ||
	       (n == 7 && !memcmp(m, "OPTIONS", 7)) ||
	       (n == 4 && !memcmp(m, "POST", 4) && pl >= ul && !memcmp(p + pl - ul, UPLOAD, ul));
}

/* A Content-Encoding other than identity on the request (its body unreadable here). */
static int req_encoded(const struct gate_flow *f)
{
	for (uint32_t i = 0; i < f->req.nheaders; i++) {
		const struct http_header *h = &f->req.h[i];

		if (flow_header_is(f, h, "content-encoding") &&
		    !(h->value.len == 8 && !strncasecmp(f->in + h->value.off, "identity", 8)))
			return 1;
	}
	return 0;
}

static void agent_timeout(struct gate_flow *f, unsigned long ms)
{
	struct timeval tv = { .tv_sec = (time_t)(ms / 1000), .tv_usec = (long)(ms % 1000) * 1000 };

	setsockopt(f->ag.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/*
 * A push's ref updates (pkt.c), read from the body's start while the
 * request is held: its bytes stay in in, and go to the upstream as they
 * came once allowed (forward_body reads the body again from its start).
 * Bounded: what in holds, within --ask-timeout. 0, or -1 (answered).
 */
static int read_push(struct gate_flow *f)
{
	struct http_body b = f->req.body; /* a copy: forward_body's starts afresh */
	size_t pos = f->req.head_len, used, doff, dlen, pu;
	int err = HTTP_MORE, r;
	ssize_t got;

	memset(&f->push, 0, sizeof(f->push));
	if (req_encoded(f)) {
		flow_refuse(f, 400, "a push in a Content-Encoding: its ref updates cannot be read",
			    NULL);
		return -1;
	}
	if (b.kind == HTTP_BODY_NONE) {
		flow_refuse(f, 400, "a push without a body", NULL);
		return -1;
	}
	/* The agent waits for this before its body: the gateway says it, the upstream is not
	 * asked (its own 100, later, is passed on as any interim answer). */
	if (expects_continue(f)) {
		if (agent_write_all(&f->ag, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
			return -1;
		f->continued = 1;
	}
	agent_timeout(f, f->gate->o->ask_timeout_ms);
	for (;;) {
		while (pos < f->inlen && err == HTTP_MORE) {
			err = http_body_feed(&b, f->in + pos, f->inlen - pos, &used, &doff, &dlen);
			if (err != HTTP_OK && err != HTTP_MORE) {
				flow_refuse(f, 400, http_strerror(err), NULL);
				return -1;
			}
			r = dlen ? pkt_cmds_feed(&f->push, f->in + pos + doff, dlen, &pu) : 0;
			if (r < 0) {
				flow_refuse(f, 400, "a push the gateway will not ask about",
					    f->push.err);
				return -1;
			}
			if (r == 1) {
				agent_timeout(f, 0);
				return 0;
			}
			pos += used;
		}
		if (err == HTTP_OK) {
			flow_refuse(f, 400, "a push whose body ends inside its ref updates", NULL);
			return -1;
		}
		got = flow_agent_read(f);
		if (got < 0 && errno == ENOBUFS) {
			flow_refuse(f, 400,
				    "a push whose ref updates are longer than the gateway holds",
				    NULL);
			return -1;
		}
		if (got <= 0) {
			flow_refuse(f, 400, "a push whose ref updates did not come in time", NULL);
			return -1;
		}
	}
}

/*
 * A request answered here while its body may still be coming: the rest of
 * the body read and dropped (at most 16 MiB, each read within 2 s), so that
 * the agent reads the answer rather than a reset while it still sends (git
 * writes its whole pack before it reads).
 */
static void drain_body(struct gate_flow *f)
{
	size_t pos = f->req.head_len, used, doff, dlen;
	unsigned long long total = 0;
	int err = HTTP_MORE;
	ssize_t got;

	if (f->req.body.kind == HTTP_BODY_NONE)
		return;
	agent_timeout(f, 2000);
	for (;;) {
		while (pos < f->inlen && err == HTTP_MORE) {
			err = http_body_feed(&f->req.body, f->in + pos, f->inlen - pos, &used,
					     &doff, &dlen);
			pos += used;
		}
		if (err != HTTP_MORE || total > (16ULL << 20))
			return;
		f->inlen = pos = 0;
		got = flow_agent_read(f);
		if (got <= 0)
			return;
		total += (unsigned long long)got;
	}
}

struct asked {
	struct gate_flow *f;
	const struct gate_question *q;
};

static void ask_log(struct gate_flow *f, const struct gate_question *q, uint32_t id,
		    const char *decision)
{
	struct timespec ts;
	char line[4096];
	size_t n;

	if (f->gate->log_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = gate_ask_log_format(line, sizeof(line), (long long)ts.tv_sec, ts.tv_nsec / 1000000, q,
				id, decision);
	if (n && write(f->gate->log_fd, line, n) < 0)
		log_msg(LOG_DEBUG, errno, "unable to write a log line");
}

static void ask_log_question(void *arg, uint32_t id)
{
	struct asked *a = arg;

	ask_log(a->f, a->q, id, NULL);
}

/*
 * A request an ask= rule of its grant matches is held, nothing of it sent,
 * and asked about (ask.c), unless an allow-session answer covers it.
 * Returns 0 to go on (not asked, or allowed), -1 when it was answered here
 * (denied, or refused before the question): the flow ends.
 */
static int hold(struct gate_flow *f)
{
	const struct grant *g = f->g;
	const char *m = f->in + f->req.method.off, *t = f->in + f->req.target.off;
	const char *q = memchr(t, '?', f->req.target.len);
	size_t ml = f->req.method.len, pl = q ? (size_t)(q - t) : f->req.target.len, n;
	const struct grant_allow *rule = NULL;
	char rs[GATE_MAX_METHOD + GATE_MAX_PREFIX + 8], msg[768];
	struct gate_question qu = { 0 };
	struct asked ctx = { f, &qu };
	enum gate_decision d;
	uint32_t id;
	int matched = 0;

	for (size_t i = 0; i < g->nask && !matched; i++)
		if (ask_rule_match(&g->ask[i], m, ml, t, pl))
			rule = &g->ask[i], matched = 1;
	if (!matched && !(g->ask_writes && !reads(m, ml, t, pl)))
		return 0;
	if (ask_allowed(f->gate->ask, g, m, ml, t, pl))
		return 0;
	if (rule)
		snprintf(rs, sizeof(rs), "ask=%.*s:%.*s", (int)rule->method_len, rule->method,
			 (int)rule->prefix_len, rule->prefix);
	else
		snprintf(rs, sizeof(rs), "ask=writes");
	qu.grant = g->name;
	qu.host = g->host;
	qu.method = m;
	qu.method_len = ml;
	qu.path = t;
	qu.path_len = pl;
	qu.rule = rs;
	qu.length = f->req.body.kind == HTTP_BODY_NONE	   ? 0
		    : f->req.body.kind == HTTP_BODY_LENGTH ? (long long)f->req.body.left
							   : -1;
	if (ml == 4 && !memcmp(m, "POST", 4) && pl >= 17 &&
	    !memcmp(t + pl - 17, "/git-receive-pack", 17)) {
		if (read_push(f) < 0)
			return -1;
		/* No ref update (git's probe before a large push, a bare flush-pkt): receive-pack
		 * reads no pack after it, and nothing changes. Not asked. */
		if (!f->push.n)
			return 0;
		qu.push = &f->push;
	}
	d = ask_question(f->gate->ask, g, rule, &qu, &id, ask_log_question, &ctx);
	ask_log(f, &qu, id, gate_decision_name[d]);
	if (d == GATE_ALLOW_ONCE || d == GATE_ALLOW_SESSION)
		return 0;
	if (d == GATE_DENY)
		snprintf(msg, sizeof(msg), "the person denied this request (%s)", rs);
	else if (d == GATE_TIMEOUT)
		snprintf(msg, sizeof(msg), "no answer from the decider in %lu s (%s)",
			 f->gate->o->ask_timeout_ms / 1000, rs);
	else if (d == GATE_GONE)
		snprintf(msg, sizeof(msg), "no decider to ask: denied (%s)", rs);
	else
		snprintf(msg, sizeof(msg), "too many questions pending: denied (%s)", rs);
	/* git shows a refused ref update's reason, never a 403's body: its report-status. */
	snprintf(rs, sizeof(rs), "otogate: %.*s", (int)(sizeof(rs) - 10), msg);
	if (qu.push && (n = pkt_deny_format(f->rep, sizeof(f->rep), &f->push, rs)))
		answer(f, 200, msg, f->rep, n);
	else
		answer(f, 403, msg, f->rep, gate_deny_format(f->rep, sizeof(f->rep), msg));
	drain_body(f);
	return -1;
}

/*
 * A login's grant: its table's pairs, copied when a refresh has added some
 * (the table's gen moved), and a scrubber for each, repl the first's and
 * more the others': every real of the session, the refresh and id tokens
 * too, is scrubbed from every response. 0, or -1 (memory).
 */
static int tok_sync(struct gate_flow *f)
{
	struct login_table *t = f->g->login->t;
	size_t n;

	if (!f->tok) {
		f->tok = calloc(GATE_LOGIN_PAIRS, sizeof(*f->tok));
		f->treal = malloc(GATE_LOGIN_PAIRS * HTTP_MAX_SECRET);
		f->tmp = malloc(2 * TMP_SIZE);
		if (!f->tok || !f->treal || !f->tmp)
			return -1;
		for (size_t i = 0; i < GATE_LOGIN_PAIRS; i++)
			f->tok[i].real = f->treal + i * HTTP_MAX_SECRET;
	} else if (f->tgen == atomic_load(&t->gen)) {
		return 0;
	}
	pthread_mutex_lock(&t->lock);
	n = t->n;
	for (size_t i = 0; i < n; i++) {
		f->tok[i].role = t->tok[i].role;
		f->tok[i].len = t->tok[i].len;
		memcpy(f->tok[i].real, t->tok[i].real, t->tok[i].len);
		memcpy(f->tok[i].phantom, t->tok[i].phantom, t->tok[i].len);
	}
	f->tgen = t->gen;
	pthread_mutex_unlock(&t->lock);
	if (n - 1 > f->nmore_cap) {
		struct http_repl *m = calloc(n - 1, sizeof(*m));

		if (!m)
			return -1;
		if (f->more) {
			sodium_memzero(f->more, f->nmore_cap * sizeof(*f->more));
			free(f->more);
		}
		f->more = m;
		f->nmore_cap = n - 1;
	}
	f->ntok = n;
	f->nmore = 0;
	if (http_repl_init(&f->repl, f->tok[0].real, f->tok[0].phantom, f->tok[0].len) < 0)
		return -1;
	for (size_t i = 1; i < n; i++) {
		if (http_repl_init(&f->more[f->nmore], f->tok[i].real, f->tok[i].phantom,
				   f->tok[i].len) < 0)
			return -1;
		f->nmore++;
	}
	return 0;
}

/*
 * The access pair a login's request is for: the newest whose phantom the
 * head holds (a CLI sends its new phantom once it has refreshed, and may
 * still send an older one on another flow), else the newest.
 */
static const struct login_tok *tok_access(const struct gate_flow *f)
{
	const struct login_tok *pick = NULL;

	for (size_t i = f->ntok; i-- > 0;) {
		const struct login_tok *k = &f->tok[i];

		if (k->role != LOGIN_ACCESS)
			continue;
		if (memmem(f->in, f->req.head_len, k->phantom, k->len))
			return k;
		if (!pick)
			pick = k;
	}
	return pick;
}

static void serve(struct gate_flow *f)
{
	struct http_rewrite rw;
	const struct grant *other;
	const char *why;
	char detail[512];
	unsigned int count;
	ssize_t n;

	for (;;) {
		f->up_bytes = f->down_bytes = 0;
		f->status = 0;
		f->error = NULL;
		if (read_head(f) <= 0)
			return;
		if (!f->g) {
			flow_refuse(f, 421, "no grant on this port", NULL);
			return;
		}
		if (f->g->login && tok_sync(f) < 0) {
			flow_refuse(f, 503, "out of memory for the login's tokens", NULL);
			return;
		}
		/* What the credential may do (allow=): judged on the whole head, before any of it
		 * is rewritten or sent, so a refused request never carries the real value. First
		 * that the request the upstream acts on is the one judged: no override. */
		switch (allow_head_check(f->g, f->in, &f->req, &why)) {
		case ALLOW_BADPATH:
			flow_refuse(f, 400, "a path the upstream could read as another", why);
			return;
		case ALLOW_OVERRIDE:
			flow_refuse(f, 400, "a method or URL override the upstream could act on",
				    why);
			return;
		case ALLOW_OK:
		case ALLOW_NOMATCH:
		default:
			break;
		}
		switch (allow_judge(f->g, f->in + f->req.method.off, f->req.method.len,
				    f->in + f->req.target.off, f->req.target.len, &why)) {
		case ALLOW_BADPATH:
			flow_refuse(f, 400, "a path the upstream could read as another", why);
			return;
		case ALLOW_NOMATCH:
			flow_refuse(f, 403, why, NULL);
			return;
		case ALLOW_OK:
		default:
			break;
		}
		other = foreign_phantom(f);
		if (other) {
			snprintf(detail, sizeof(detail), "%s is not for %s", other->name,
				 f->g->host);
			flow_refuse(f, 403, "the phantom of another grant", detail);
			return;
		}
		login_sights(f);
		/* Asked about (ask=): held here, before anything of it is rewritten or sent. */
		f->continued = 0;
		if ((f->g->nask || f->g->ask_writes) && hold(f) < 0)
			return;
		/* A login's token endpoint: the refresh is read whole, and swapped there. */
		if (f->g->login && refresh_is(f)) {
			if (refresh_serve(f) < 0)
				return;
			continue;
		}
		rw.from = f->g->phantom;
		rw.from_len = rw.to_len = f->g->len;
		rw.to = (const char *)f->g->real;
		if (f->g->login) {
			const struct login_tok *k = tok_access(f);

			rw.from = k->phantom;
			rw.from_len = rw.to_len = k->len;
			rw.to = (const char *)k->real;
		}
		rw.names = f->g->headers;
		rw.nnames = f->g->nheaders;
		rw.host = f->g->hosthdr;
		rw.host_len = strlen(f->g->hosthdr);
		/*
		 * Every request of a grant, whether it carries the phantom or not:
		 * an upstream may echo a value it was sent on an earlier request.
		 */
		rw.identity = 1;
		n = http_head_rewrite(f->in, &f->req, &rw, f->out, sizeof(f->out), &count);
		if (n < 0) {
			flow_refuse(f, 400, "unable to rewrite the request's head",
				    strerror(errno));
			return;
		}
		/*
		 * A kept-alive upstream connection that has something to say while
		 * idle has closed it (or is about to): a new one, rather than a
		 * request sent into a connection that is gone.
		 */
		if (f->up.fd >= 0 && upstream_idle_closed(&f->up))
			upstream_close(&f->up);
		if (f->up.fd < 0 && upstream_open(upstream_context(f->gate), f->g, &f->up, &why,
						  detail, sizeof(detail)) < 0) {
			sodium_memzero(f->out, (size_t)n);
			flow_refuse(f, 502, why, detail);
			return;
		}
		if (upstream_write(&f->up, f->out, (size_t)n) < 0) {
			sodium_memzero(f->out, (size_t)n);
			flow_refuse(f, 502, "the upstream closed before the request was sent",
				    NULL);
			return;
		}
		sodium_memzero(f->out, (size_t)n);
		f->up_bytes += (unsigned long long)n;
		/*
		 * "Expect: 100-continue": the agent sends the body once told to. The
		 * upstream's answer comes first: a 100 is passed on and the body
		 * follows; a final answer is passed on, and the flow ends (the agent
		 * may send the body or not: where its next request starts is unknown).
		 */
		if (!f->continued && expects_continue(f) && relay_response(f, 1) != 1)
			return;
		if (forward_body(f) < 0) {
			if (f->status)
				flow_refuse(f, f->status, f->error, NULL);
			else
				flow_log(f);
			return;
		}
		if (relay_response(f, 0) < 0 || !f->req.keep_alive)
			return;
	}
}

/* The flow's memory, wiped: its scrubbers hold the values in every form. */
static void flow_free(struct gate_flow *f)
{
	if (f->more) {
		sodium_memzero(f->more, f->nmore_cap * sizeof(*f->more));
		free(f->more);
	}
	if (f->tmp) {
		sodium_memzero(f->tmp, 2 * TMP_SIZE);
		free(f->tmp);
	}
	if (f->treal) {
		sodium_memzero(f->treal, GATE_LOGIN_PAIRS * HTTP_MAX_SECRET);
		free(f->treal);
	}
	if (f->tok) {
		sodium_memzero(f->tok, GATE_LOGIN_PAIRS * sizeof(*f->tok));
		free(f->tok);
	}
	sodium_memzero(f, sizeof(*f));
	free(f);
}

static void *flow_main(void *arg)
{
	struct gate_flow *f = arg;
	struct gate *gate = f->gate; /* f is wiped before the count goes down */

	/* A transparent grant's flow: TLS first, as its host, with the session's leaf. */
	if (f->g && f->g->transparent &&
	    agent_accept(&f->ag, f->gate->tls_server, f->g->host, &f->error) < 0) {
		flow_log(f);
		infox("port %d (%s): %s", f->port, f->g->name, f->error);
	} else {
		serve(f);
	}
	upstream_close(&f->up);
	agent_close(&f->ag);
	flow_free(f);
	atomic_fetch_sub(&gate->nflows, 1);
	return NULL;
}

int flow_start(struct gate *gate, int fd, int port)
{
	struct gate_flow *f;
	pthread_attr_t a;
	pthread_t t;
	int rc;

	if (atomic_fetch_add(&gate->nflows, 1) >= MAX_FLOWS) {
		atomic_fetch_sub(&gate->nflows, 1);
		close(fd);
		errno = EMFILE;
		return -1;
	}
	f = malloc(sizeof(*f));
	if (!f) {
		atomic_fetch_sub(&gate->nflows, 1);
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	f->gate = gate;
	f->port = port;
	f->g = NULL;
	f->more = NULL;
	f->nmore = 0;
	f->tmp = NULL;
	for (size_t i = 0; i < gate->o->ngrants; i++)
		if (gate->o->grants[i].gw_port == port)
			f->g = &gate->o->grants[i];
	/* The forms of the value, once for the flow's responses (main checked its length). */
	f->tok = NULL;
	f->treal = NULL;
	f->ntok = f->nmore_cap = 0;
	f->tgen = 0;
	/* A login's grant: its scrubbers from its table, at each request (tok_sync). */
	if (f->g && !f->g->login &&
	    http_repl_init(&f->repl, f->g->real, f->g->phantom, f->g->len) < 0) {
		atomic_fetch_sub(&gate->nflows, 1);
		close(fd);
		flow_free(f);
		errno = ENOMEM;
		return -1;
	}
	f->ag.fd = fd;
	f->ag.ssl = NULL;
	f->up.fd = -1;
	f->up.ssl = NULL;
	f->up.deadline = 0;
	f->up.watch = -1;
	f->inlen = f->rblen = f->held = 0;
	f->method_len = f->path_len = 0;
	f->up_bytes = f->down_bytes = 0;
	f->status = 0;
	f->error = NULL;
	memset(&f->req, 0, sizeof(f->req));
	/* otonet's end is non-blocking; this thread reads and writes it blocking. */
	fcntl(fd, F_SETFL, 0);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 * 1024);
	rc = pthread_create(&t, &a, flow_main, f);
	pthread_attr_destroy(&a);
	if (rc) {
		atomic_fetch_sub(&gate->nflows, 1);
		close(fd);
		flow_free(f);
		errno = rc;
		return -1;
	}
	return 0;
}
