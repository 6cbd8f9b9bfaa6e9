/* SPDX-License-Identifier: ISC */
/*
 * otonet's requests, what is shown of them, otorun's session line, the
 * answers and the config lines: pure. A request is otonet's JSON line, read by its keys: no value
 * otonet writes holds a quote or a backslash, so a key's text ("port":)
 * is found only where it is that key; a line whose values do not look so
 * is refused, never shown: what reaches the terminal is printable ASCII.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "oto.h"
#include "otoask.h"

/* Where "key": is in s[0, n), past it; NULL when it is not there. */
static const char *field(const char *s, size_t n, const char *key)
{
	char k[24];
	size_t kl = (size_t)snprintf(k, sizeof(k), "\"%s\":", key);

	for (size_t i = 0; i + kl <= n; i++)
		if (!memcmp(s + i, k, kl))
			return s + i + kl;
	return NULL;
}

/*
 * The quoted string at p (before end) into out: printable ASCII without '"'
 * or '\\', at most size - 1 bytes. 0, or -1 when it is not one.
 */
static int str_at(const char *p, const char *end, char *out, size_t size)
{
	size_t i = 0;

	if (p >= end || *p++ != '"')
		return -1;
	for (; p < end && *p != '"'; p++) {
		if (*p < 0x20 || *p > 0x7e || *p == '\\' || i + 1 >= size)
			return -1;
		out[i++] = *p;
	}
	if (p == end)
		return -1;
	out[i] = 0;
	return 0;
}

/* A string value, printable ASCII without '"' or '\\': 0, 1 absent, -1 bad. */
static int str_field(const char *s, size_t n, const char *key, char *out, size_t size)
{
	const char *p = field(s, n, key);

	out[0] = 0;
	if (!p)
		return 1;
	return str_at(p, s + n, out, size);
}

/* A number value, 1 to max: 0, -1 absent or bad. */
static int num_field(const char *s, size_t n, const char *key, unsigned long max,
		     unsigned long *out)
{
	const char *p = field(s, n, key), *end = s + n;
	unsigned long v = 0;

	if (!p || p >= end || *p < '1' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

/* The first string of the array at "key":[ in s, into out: 0, 1 absent or empty, -1 bad. */
static int first_of_array(const char *s, size_t n, const char *key, char *out, size_t size)
{
	const char *p = field(s, n, key), *end = s + n;

	out[0] = 0;
	if (!p)
		return 1;
	if (p >= end || *p++ != '[')
		return -1;
	if (p < end && *p == ']')
		return 1;
	return str_at(p, end, out, size);
}

/* otogate's question: the grant, the request, its length (a number or null), its refs. */
static int gate_parse(const char *s, size_t n, struct ask_req *q)
{
	const char *l = field(s, n, "length");
	unsigned long v;

	q->gate = 1;
	if (str_field(s, n, "grant", q->grant, sizeof(q->grant)) ||
	    str_field(s, n, "method", q->method, sizeof(q->method)) ||
	    str_field(s, n, "host", q->host, sizeof(q->host)) ||
	    str_field(s, n, "path", q->path, sizeof(q->path)) ||
	    str_field(s, n, "rule", q->rule, sizeof(q->rule)) < 0 || !q->grant[0] ||
	    !q->method[0] || !q->host[0] || q->path[0] != '/' || !l ||
	    first_of_array(s, n, "refs", q->ref, sizeof(q->ref)) < 0)
		return -1;
	if ((size_t)(s + n - l) >= 4 && !memcmp(l, "null", 4))
		q->length = -1;
	else if (l < s + n && *l == '0')
		q->length = 0;
	else if (num_field(s, n, "length", 1UL << 40, &v) == 0)
		q->length = (long long)v;
	else
		return -1;
	if (q->ref[0] && num_field(s, n, "nrefs", 1024, &q->nrefs) < 0)
		return -1;
	return 0;
}

int ask_req_parse(const char *s, size_t n, struct ask_req *q)
{
	unsigned long id, port = 0;
	char src[16];

	memset(q, 0, sizeof(*q));
	if (n >= 2 && s[0] == '{' && s[n - 1] == '}' &&
	    !str_field(s, n, "source", src, sizeof(src)) && !strcmp(src, "gate")) {
		if (num_field(s, n, "id", 0xffffffffUL, &id) ||
		    str_field(s, n, "session", q->session, sizeof(q->session)) < 0 ||
		    gate_parse(s, n, q) < 0)
			goto bad;
		q->id = (uint32_t)id;
		return 0;
	}
	if (n < 2 || s[0] != '{' || s[n - 1] != '}' || num_field(s, n, "id", 0xffffffffUL, &id) ||
	    str_field(s, n, "proto", q->proto, sizeof(q->proto)) ||
	    str_field(s, n, "session", q->session, sizeof(q->session)) < 0 ||
	    str_field(s, n, "name", q->name, sizeof(q->name)) < 0 ||
	    str_field(s, n, "type", q->type, sizeof(q->type)) < 0 ||
	    str_field(s, n, "dst", q->dst, sizeof(q->dst)) < 0)
		goto bad;
	q->id = (uint32_t)id;
	q->dns = q->type[0] != 0;
	if (q->dns ? !q->name[0] : !q->dst[0] || num_field(s, n, "port", 65535, &port) < 0)
		goto bad;
	q->port = (unsigned)port;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

void ask_req_show(const struct ask_req *q, char *buf, size_t size)
{
	char len[32];

	if (q->gate) {
		if (q->length < 0)
			snprintf(len, sizeof(len), "a body of unknown length");
		else
			snprintf(len, sizeof(len), "%lld bytes", q->length);
		if (q->ref[0])
			snprintf(buf, size, "%s: %s %s%s (%s; %s, %lu ref%s)", q->grant, q->method,
				 q->host, q->path, len, q->ref, q->nrefs, q->nrefs == 1 ? "" : "s");
		else
			snprintf(buf, size, "%s: %s %s%s (%s)", q->grant, q->method, q->host,
				 q->path, len);
	} else if (q->dns)
		snprintf(buf, size, "%s (dns %s)", q->name, q->type);
	else if (q->name[0])
		snprintf(buf, size, "%s:%u (%s to %s)", q->name, q->port, q->proto, q->dst);
	else if (strchr(q->dst, ':'))
		snprintf(buf, size, "[%s]:%u (%s)", q->dst, q->port, q->proto);
	else
		snprintf(buf, size, "%s:%u (%s)", q->dst, q->port, q->proto);
}

int ask_is_session_line(const char *s, size_t n)
{
	char src[16];

	return n >= 2 && s[0] == '{' && !str_field(s, n, "source", src, sizeof(src)) &&
	       !strcmp(src, "session");
}

int ask_session_parse(const char *s, size_t n, struct ask_session *ss)
{
	memset(ss, 0, sizeof(*ss));
	/* A question's key: a line that is both is neither. */
	if (n < 2 || s[0] != '{' || s[n - 1] != '}' || !ask_is_session_line(s, n) ||
	    field(s, n, "id") || str_field(s, n, "session", ss->id, sizeof(ss->id)) || !ss->id[0] ||
	    str_field(s, n, "person", ss->person, sizeof(ss->person)) < 0 ||
	    str_field(s, n, "agent", ss->agent, sizeof(ss->agent)) < 0) {
		memset(ss, 0, sizeof(*ss));
		errno = EINVAL;
		return -1;
	}
	return 0;
}

void ask_session_label(const struct ask_session *ss, char *buf, size_t size)
{
	if (ss->person[0] && ss->agent[0])
		snprintf(buf, size, "%s: %s", ss->person, ss->agent);
	else if (ss->person[0] || ss->agent[0])
		snprintf(buf, size, "%s", ss->person[0] ? ss->person : ss->agent);
	else
		snprintf(buf, size, "session %.8s", ss->id);
}

const char *ask_key(int c)
{
	switch (c) {
	case 'y':
	case 'Y':
		return "allow-once";
	case 'a':
	case 'A':
		return "allow-session";
	case 'n':
	case 'N':
	case '\r':
	case '\n':
		return "deny";
	default:
		return NULL;
	}
}

void ask_config_line(const struct ask_req *q, const char *decision, char *buf, size_t size)
{
	if (q->gate) {
		/* A request is no destination: no config line allows it, a comment says what was.
		 */
		snprintf(buf, size,
			 "# %s (ask %u): %s %s %s%s (grant %s, %s): no line for a request\n",
			 decision, q->id, q->method, "on", q->host, q->path, q->grant, q->rule);
		return;
	}
	struct policy_dest d = { .proto = q->proto,
				 .addr = q->dns ? NULL : q->dst,
				 .name = q->name,
				 .port = q->dns ? 0 : q->port };
	char line[300], note[400];

	/* The same line otolog --policy writes: a name only when it is a host name. */
	if (policy_line(&d, line, sizeof(line), note, sizeof(note)) == POLICY_NONE)
		snprintf(buf, size, "# %s (ask %u): %s\n", decision, q->id, note);
	else
		snprintf(buf, size, "# %s (ask %u): %s\n%s\n", decision, q->id, note, line);
}
