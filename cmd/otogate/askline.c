/* SPDX-License-Identifier: ISC */
/*
 * The lines of asking (otogate(1), Asking; otonet(1), ASKING), pure: the
 * question to the decider (source "gate"), its answer "ID DECISION", the
 * record's lines of a question and of its outcome, otonet's questions
 * renumbered for the one connection, and the 403 of a request not allowed.
 * Every byte the agent chose (a method, a path, a ref's name) is written
 * as a JSON string's escape when it is not printable ASCII.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "http.h"
#include "oto.h"
#include "otogate.h"

#define GATE_LINE_MAX 1024 /* a question's line, as otonet's (otonet(1), ASKING) */

const char *const gate_decision_name[] = {
	[GATE_ALLOW_ONCE] = "allow-once",
	[GATE_ALLOW_SESSION] = "allow-session",
	[GATE_DENY] = "deny",
	[GATE_TIMEOUT] = "timeout",
	[GATE_GONE] = "decider-gone",
	[GATE_LIMIT] = "limit",
};
_Static_assert(ARRAY_SIZE(gate_decision_name) == GATE_NUM_DECISIONS,
	       "gate_decision_name[] does not name every enum gate_decision");

int gate_answer_parse(const char *s, size_t n, uint32_t *id, enum gate_decision *d)
{
	uint64_t v = 0;
	size_t i = 0;

	if (!n || s[0] < '1' || s[0] > '9')
		return -1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	if (i == n || s[i] != ' ')
		return -1;
	i++;
	/* Only the three a decider may give: the others are the gateway's own. */
	for (int k = GATE_ALLOW_ONCE; k <= GATE_DENY; k++) {
		size_t len = strlen(gate_decision_name[k]);

		if (n - i == len && !memcmp(s + i, gate_decision_name[k], len)) {
			*id = (uint32_t)v;
			*d = (enum gate_decision)k;
			return 0;
		}
	}
	return -1;
}

/* The byte at s[*i], percent-decoded (a malformed escape is itself), *i moved past it. */
static int decoded(const char *s, size_t len, size_t *i)
{
	int h, l;

	if (s[*i] == '%' && *i + 2 < len && (h = http_hex((unsigned char)s[*i + 1])) >= 0 &&
	    (l = http_hex((unsigned char)s[*i + 2])) >= 0) {
		*i += 3;
		return h * 16 + l;
	}
	return (unsigned char)s[(*i)++];
}

int ask_rule_match(const struct grant_allow *a, const char *method, size_t mlen, const char *p,
		   size_t plen)
{
	size_t i = 0, k = 0;
	int last = 0;

	if (!(a->method_len == 1 && a->method[0] == '*') &&
	    (a->method_len != mlen || strncasecmp(a->method, method, mlen)))
		return 0;
	if (allow_path_check(p, plen))
		return 1;
	while (k < a->prefix_len) {
		if (i == plen)
			return 0;
		last = decoded(a->prefix, a->prefix_len, &k);
		if (decoded(p, plen, &i) != last)
			return 0;
	}
	/* Up to a segment's end, as allow=: "/repos" is not a prefix of "/repository". */
	return last == '/' || i == plen || p[i] == '/';
}

/* s's len bytes as a JSON string at buf + at: the new length, 0 when it does not fit. */
static size_t jstr(char *buf, size_t size, size_t at, const char *s, size_t len)
{
	return at && at < size ? json_str(buf, size, at, s, len) : 0;
}

static size_t lit(char *buf, size_t size, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (!at || at + n >= size)
		return 0;
	memcpy(buf + at, s, n);
	return at + n;
}

/* ',"grant":...,"path":...': what the question and the record say of the request (the
 * order of the gateway's request lines). */
static size_t fields(char *buf, size_t size, size_t at, const struct gate_question *q)
{
	at = lit(buf, size, at, ",\"grant\":");
	at = jstr(buf, size, at, q->grant, strlen(q->grant));
	at = lit(buf, size, at, ",\"method\":");
	at = jstr(buf, size, at, q->method, q->method_len);
	at = lit(buf, size, at, ",\"host\":");
	at = jstr(buf, size, at, q->host, strlen(q->host));
	at = lit(buf, size, at, ",\"path\":");
	return jstr(buf, size, at, q->path, q->path_len);
}

/* A ref update as shown: "REF OLD..NEW", each id cut to 12 digits. */
static size_t ref_put(char *buf, size_t size, size_t at, const struct pkt_ref *r)
{
	char s[PKT_MAX_REF + 32];
	int n = snprintf(s, sizeof(s), "%s %.12s..%.12s", r->name, r->old, r->new);

	return jstr(buf, size, at, s, (size_t)n);
}

size_t gate_question_format(char *buf, size_t size, const struct timespec *t, const char *session,
			    uint32_t id, const struct gate_question *q)
{
	char num[64];
	size_t at, cap = size < GATE_LINE_MAX ? size : GATE_LINE_MAX, tail;

	at = (size_t)event_head(buf, cap, t, "gate", session);
	snprintf(num, sizeof(num), ",\"id\":%u", id);
	at = lit(buf, cap, at, num);
	at = fields(buf, cap, at, q);
	if (q->length >= 0)
		snprintf(num, sizeof(num), ",\"length\":%lld", q->length);
	else
		snprintf(num, sizeof(num), ",\"length\":null");
	at = lit(buf, cap, at, num);
	at = lit(buf, cap, at, ",\"rule\":");
	at = jstr(buf, cap, at, q->rule, strlen(q->rule));
	if (!at)
		return 0;
	if (q->push) {
		/* Room kept for ',"nrefs":N}' and the newline; the list takes what is left. */
		snprintf(num, sizeof(num), ",\"nrefs\":%zu}\n", q->push->n);
		tail = strlen(num);
		if (at + tail + 13 >= cap)
			return 0;
		at = lit(buf, cap - tail, at, ",\"refs\":[");
		for (size_t i = 0; i < q->push->n; i++) {
			size_t next =
			    ref_put(buf, cap - tail - 1, at + (i ? 1 : 0), &q->push->refs[i]);

			if (!next)
				break;
			if (i)
				buf[at] = ',';
			at = next;
		}
		buf[at++] = ']';
		memcpy(buf + at, num, tail);
		return at + tail;
	}
	return lit(buf, cap, at, "}\n") ? at + 2 : 0;
}

size_t gate_ask_log_format(char *buf, size_t size, long long sec, long msec,
			   const struct gate_question *q, uint32_t id, const char *decision)
{
	char num[96];
	size_t at;

	at = (size_t)snprintf(num, sizeof(num), "{\"time\":%lld.%03ld", sec, msec);
	if (size <= at)
		return 0;
	memcpy(buf, num, at);
	at = fields(buf, size, at, q);
	if (decision) {
		snprintf(
		    num, sizeof(num), ",\"verdict\":\"%s\",\"rule\":\"ask\",\"decision\":\"%s\"",
		    strcmp(decision, "allow-once") && strcmp(decision, "allow-session") ? "deny"
											: "allow",
		    decision);
		at = lit(buf, size, at, num);
	} else {
		at = lit(buf, size, at, ",\"verdict\":\"ask\",\"rule\":");
		at = jstr(buf, size, at, q->rule, strlen(q->rule));
	}
	snprintf(num, sizeof(num), ",\"ask\":%u}\n", id);
	at = lit(buf, size, at, num);
	return at;
}

size_t gate_net_renumber(const char *n, size_t len, uint32_t id, char *out, size_t size,
			 uint32_t *was)
{
	static const char KEY[] = ",\"id\":";
	const char *k = memmem(n, len, KEY, sizeof(KEY) - 1);
	size_t pre, i;
	uint64_t v = 0;
	int w;

	if (!k)
		return 0;
	pre = (size_t)(k - n) + sizeof(KEY) - 1;
	for (i = pre; i < len && n[i] >= '0' && n[i] <= '9' && i - pre < 10; i++)
		v = v * 10 + (uint64_t)(n[i] - '0');
	if (i == pre || v == 0 || v > UINT32_MAX || i == len || (n[i] != ',' && n[i] != '}'))
		return 0;
	w = snprintf(NULL, 0, "%u", id);
	if (pre + (size_t)w + (len - i) + 1 > size)
		return 0;
	memcpy(out, n, pre);
	snprintf(out + pre, (size_t)w + 1, "%u", id);
	memcpy(out + pre + (size_t)w, n + i, len - i);
	out[pre + (size_t)w + len - i] = '\n';
	*was = (uint32_t)v;
	return pre + (size_t)w + len - i + 1;
}

size_t gate_deny_format(char *buf, size_t size, const char *why)
{
	char msg[512], body[600];
	size_t bl;
	int w;

	snprintf(msg, sizeof(msg), "otogate: %s", why);
	memcpy(body, "{\"error\":", 9);
	bl = json_str(body, sizeof(body) - 2, 9, msg, strlen(msg));
	if (!bl)
		return 0;
	memcpy(body + bl, "}\n", 2);
	bl += 2;
	w = snprintf(buf, size,
		     "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n%.*s",
		     bl, (int)bl, body);
	return w < 0 || (size_t)w >= size ? 0 : (size_t)w;
}
