/* SPDX-License-Identifier: ISC */
/*
 * The decider's connection (--ask-fd; otogate(1), Asking): one per
 * session, shared by the flows' questions and by otonet's, relayed.
 *
 * A flow whose request an ask= rule matches sends its question (one line,
 * one send, under the lock) and waits on the condition variable for its
 * answer, at most --ask-timeout. One thread reads the decider's answers and
 * wakes the flow an answer is for. The same thread reads otonet's questions
 * on the gateway's end of otonet's socket (the chain's --ask-fd) and sends
 * each to the decider under an id of the connection's (otonet numbers its
 * own from 1, as the gateway does): an answer for it goes back to otonet
 * under otonet's id. So every id the decider sees is unique, and a decider
 * answers the two as one.
 *
 * Fail closed, as otonet's relay: a decider that closes its end, writes a
 * line that is not an answer, a line too long, or an id it was never given,
 * or does not take a question at once, is gone. Its socket is closed, every
 * waiting flow denied, every later question denied without asking, and
 * otonet's socket closed too: otonet then denies its own (decider-gone).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otogate.h"

#define ASK_LINE    1024 /* a line, with its newline, as otonet's */
#define ASK_WAITING 256	 /* the gateway's questions pending at once */
#define ASK_NET_IDS 512	 /* otonet's questions remembered (otonet has 256 pending at most) */
#define ASK_SESSION 256	 /* allow-session answers kept */

struct ask_waiting {
	uint32_t id; /* 0: a free entry */
	int decided;
	enum gate_decision d;
};
struct ask_net_id {
	uint32_t id, net; /* the connection's id, otonet's */
};
struct ask_allowed {
	const struct grant *g;
	char method[GATE_MAX_METHOD];
	size_t method_len;
	const struct grant_allow *rule; /* NULL: ask=writes, any path */
	uint32_t id;
};

struct gate_ask {
	int fd, net;
	unsigned long timeout_ms;
	const char *session;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t next; /* the last id given */
	int gone;
	struct ask_waiting w[ASK_WAITING];
	struct ask_net_id nid[ASK_NET_IDS];
	size_t nnid;
	struct ask_allowed s[ASK_SESSION];
	size_t ns;
	char in[ASK_LINE], nin[ASK_LINE]; /* the decider's line, otonet's */
	size_t inlen, ninlen;
};

/* The decider is gone (under the lock): every waiting flow woken, otonet's socket closed. */
static void ask_gone(struct gate_ask *a, const char *why)
{
	if (a->gone)
		return;
	a->gone = 1;
	warnx("gateway: the decider (--ask-fd) %s: every question is denied from now on", why);
	shutdown(a->fd, SHUT_RDWR);
	if (a->net >= 0)
		shutdown(a->net, SHUT_RDWR);
	pthread_cond_broadcast(&a->cond);
}

/* line[0, n) to the decider, whole at once (under the lock), or it is gone. */
static int ask_send(struct gate_ask *a, const char *line, size_t n)
{
	if (a->gone)
		return -1;
	if (send(a->fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)n) {
		ask_gone(a, "did not take a question");
		return -1;
	}
	return 0;
}

static uint32_t ask_next_id(struct gate_ask *a)
{
	return ++a->next ? a->next : ++a->next;
}

/* One answer line: the flow's, or otonet's. -1 when it is not an answer. */
static int ask_answer(struct gate_ask *a, const char *s, size_t n)
{
	enum gate_decision d;
	uint32_t id;
	char out[64];

	if (gate_answer_parse(s, n, &id, &d) < 0 || id > a->next)
		return -1;
	for (size_t i = 0; i < ASK_WAITING; i++)
		if (a->w[i].id == id && !a->w[i].decided) {
			a->w[i].decided = 1;
			a->w[i].d = d;
			pthread_cond_broadcast(&a->cond);
			return 0;
		}
	for (size_t i = 0; i < ASK_NET_IDS && a->net >= 0; i++)
		if (a->nid[i].id == id) {
			int w = snprintf(out, sizeof(out), "%u %s\n", a->nid[i].net,
					 gate_decision_name[d]);

			a->nid[i].id = 0;
			/* otonet reads its socket in its loop: a full one is a relay gone. */
			if (send(a->net, out, (size_t)w, MSG_DONTWAIT | MSG_NOSIGNAL) != w)
				warnx("gateway: unable to pass an answer on to otonet");
			return 0;
		}
	/* An id no longer waited for (its time ran out): no error, as otonet's. */
	return 0;
}

/*
 * One of otonet's questions: renumbered and sent on. One without an id is
 * dropped (otonet's time denies it); the decider that does not take it is
 * gone, and otonet hears so.
 */
static void ask_net_question(struct gate_ask *a, const char *s, size_t n)
{
	char line[ASK_LINE];
	uint32_t id = ask_next_id(a), was = 0;
	size_t len = gate_net_renumber(s, n, id, line, sizeof(line), &was);

	if (!len) {
		warnx("gateway: otonet wrote a question without an id, or too long: dropped");
		return;
	}
	if (ask_send(a, line, len) == 0)
		a->nid[a->nnid++ % ASK_NET_IDS] = (struct ask_net_id){ .id = id, .net = was };
}

/*
 * Lines from fd into buf (its len so far), each handed to one(a, line, n)
 * under the lock. Returns 0, 1 at the end of fd, -1 when a line is garbage
 * or too long.
 */
static int ask_read(struct gate_ask *a, int fd, char *buf, size_t *len,
		    int (*one)(struct gate_ask *, const char *, size_t))
{
	ssize_t got = recv(fd, buf + *len, ASK_LINE - *len, MSG_DONTWAIT);
	char *nl;
	int rc = 0;

	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : 1;
	if (got == 0)
		return 1;
	*len += (size_t)got;
	pthread_mutex_lock(&a->lock);
	while (rc == 0 && (nl = memchr(buf, '\n', *len))) {
		size_t n = (size_t)(nl - buf);

		rc = one(a, buf, n);
		memmove(buf, nl + 1, *len - n - 1);
		*len -= n + 1;
	}
	pthread_mutex_unlock(&a->lock);
	if (rc == 0 && *len == ASK_LINE)
		rc = -2;
	return rc;
}

static int net_one(struct gate_ask *a, const char *s, size_t n)
{
	ask_net_question(a, s, n);
	return 0;
}

static void *ask_main(void *arg)
{
	struct gate_ask *a = arg;
	struct pollfd p[2] = { { .fd = a->fd, .events = POLLIN },
			       { .fd = a->net, .events = POLLIN } };
	int rc;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			rc = ask_read(a, a->fd, a->in, &a->inlen, ask_answer);
			if (rc) {
				pthread_mutex_lock(&a->lock);
				ask_gone(a, rc == 1    ? "closed its end"
					    : rc == -2 ? "wrote a line too long"
						       : "wrote a line that is not an answer");
				pthread_mutex_unlock(&a->lock);
				break;
			}
		}
		if (p[1].fd >= 0 && p[1].revents) {
			rc = ask_read(a, a->net, a->nin, &a->ninlen, net_one);
			/* otonet gone (or a line too long from it): its questions end there. */
			if (rc)
				p[1].fd = -1;
		}
	}
	return NULL;
}

struct gate_ask *ask_start(int fd, int net, unsigned long timeout_ms, const char *session)
{
	struct gate_ask *a = calloc(1, sizeof(*a));
	pthread_condattr_t ca;
	pthread_attr_t at;
	pthread_t t;
	int rc;

	if (!a)
		return NULL;
	a->fd = fd;
	a->net = net;
	a->timeout_ms = timeout_ms;
	a->session = session;
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	rc = pthread_create(&t, &at, ask_main, a);
	pthread_attr_destroy(&at);
	if (rc) {
		free(a);
		errno = rc;
		return NULL;
	}
	return a;
}

uint32_t ask_allowed(struct gate_ask *a, const struct grant *g, const char *method, size_t mlen,
		     const char *path, size_t plen)
{
	uint32_t id = 0;

	pthread_mutex_lock(&a->lock);
	for (size_t i = 0; i < a->ns && !id; i++) {
		const struct ask_allowed *s = &a->s[i];

		if (s->g != g || s->method_len != mlen || memcmp(s->method, method, mlen))
			continue;
		/* A path the gateway cannot judge is never covered: asked again. */
		if (!s->rule || (!allow_path_check(path, plen) &&
				 ask_rule_match(s->rule, method, mlen, path, plen)))
			id = s->id;
	}
	pthread_mutex_unlock(&a->lock);
	return id;
}

/* An allow-session answer kept (under the lock): full, it allowed once. */
static void ask_remember(struct gate_ask *a, const struct grant *g, const struct grant_allow *rule,
			 const struct gate_question *q, uint32_t id)
{
	struct ask_allowed *s;

	if (a->ns == ASK_SESSION || q->method_len > sizeof(s->method)) {
		warnx("gateway: %d allow-session answers kept: ask %u allowed once", ASK_SESSION,
		      id);
		return;
	}
	s = &a->s[a->ns++];
	s->g = g;
	memcpy(s->method, q->method, q->method_len);
	s->method_len = q->method_len;
	s->rule = rule;
	s->id = id;
}

enum gate_decision ask_question(struct gate_ask *a, const struct grant *g,
				const struct grant_allow *rule, const struct gate_question *q,
				uint32_t *id, void (*logq)(void *arg, uint32_t id), void *arg)
{
	char line[ASK_LINE];
	struct timespec now, deadline;
	struct ask_waiting *w = NULL;
	enum gate_decision d;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)(a->timeout_ms / 1000);
	deadline.tv_nsec += (long)(a->timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&a->lock);
	*id = ask_next_id(a);
	for (size_t i = 0; i < ASK_WAITING && !w; i++)
		if (!a->w[i].id)
			w = &a->w[i];
	if (a->gone || !w) {
		logq(arg, *id);
		d = a->gone ? GATE_GONE : GATE_LIMIT;
		pthread_mutex_unlock(&a->lock);
		return d;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	n = gate_question_format(line, sizeof(line), &now, a->session, *id, q);
	logq(arg, *id);
	if (!n || ask_send(a, line, n) < 0) {
		d = a->gone ? GATE_GONE : GATE_LIMIT;
		pthread_mutex_unlock(&a->lock);
		return d;
	}
	w->id = *id;
	w->decided = 0;
	while (!w->decided && !a->gone)
		if (pthread_cond_timedwait(&a->cond, &a->lock, &deadline) == ETIMEDOUT)
			break;
	d = w->decided ? w->d : a->gone ? GATE_GONE : GATE_TIMEOUT;
	w->id = 0;
	if (d == GATE_ALLOW_SESSION)
		ask_remember(a, g, rule, q, *id);
	pthread_mutex_unlock(&a->lock);
	return d;
}
