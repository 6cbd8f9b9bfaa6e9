/* SPDX-License-Identifier: ISC */
/* The session's record (oto.h): its lines, and the ids it takes. Pure. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "oto.h"

int session_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n > SESSION_ID_MAX)
		return 0;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._:-", *p)))
			return 0;
	return 1;
}

/* printf at buf + at: the new length, 0 when it does not fit. */
static size_t put(char *buf, size_t size, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!at || at >= size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size - at ? at + (size_t)n : 0;
}

static size_t put_str(char *buf, size_t size, size_t at, const char *key, const char *val)
{
	at = put(buf, size, at, ",\"%s\":", key);
	if (!at)
		return 0;
	return val ? json_str(buf, size, at, val, strlen(val)) : put(buf, size, at, "null");
}

static const char *base(const char *word)
{
	const char *slash = strrchr(word, '/');

	return slash ? slash + 1 : word;
}

static int is_stage(const char *word)
{
	static const char *const STAGES[] = { "otogate",   "otonet",  "otons",	    "otomount",
					      "otosecret", "otoexec", "otoconnect", NULL };

	for (const char *const *p = STAGES; *p; p++)
		if (!strcmp(base(word), *p))
			return 1;
	return 0;
}

/* The value of otomount's option opt (--role, --person) in its words [from, to). */
static const char *stage_value(const char *const argv[], size_t from, size_t to, const char *opt)
{
	size_t n = strlen(opt);

	for (size_t i = from; i < to; i++) {
		if (!strncmp(argv[i], opt, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
		if (!strcmp(argv[i], opt) && i + 1 < to)
			return argv[i + 1];
	}
	return NULL;
}

/*
 * The chain's extent: the words from argv[0] to the agent's program, which
 * is the word after a stage's "--" that is not a stage. *role and *person:
 * otomount's, if it is in the chain.
 */
static size_t chain_scan(const char *const argv[], const char **role, const char **person)
{
	size_t i = 0, from;

	*role = *person = NULL;
	while (argv[i] && is_stage(argv[i])) {
		from = i + 1;
		while (argv[i] && strcmp(argv[i], "--"))
			i++;
		if (!strcmp(base(argv[from - 1]), "otomount")) {
			*role = stage_value(argv, from, i, "--role");
			*person = stage_value(argv, from, i, "--person");
		}
		if (!argv[i])
			return i;
		i++;
	}
	/* The agent's program: the chain's last word. */
	return argv[i] ? i + 1 : i;
}

size_t session_open_line(char *buf, size_t size, const struct timespec *t, const struct session *s,
			 const char *stage, unsigned int uid, const char *account,
			 const char *const argv[])
{
	const char *role, *person;
	size_t n = chain_scan(argv, &role, &person),
	       at = (size_t)event_head(buf, size, t, "session", s->id);
	size_t words = 0;

	at = put(buf, size, at, ",\"verdict\":\"open\",\"stage\":\"%s\",\"uid\":%u", stage, uid);
	at = put_str(buf, size, at, "account", account);
	at = put_str(buf, size, at, "role", role);
	at = put_str(buf, size, at, "person", person);
	at = put(buf, size, at, ",\"chain\":[");
	if (!at)
		return 0;
	/* The words while they fit with room for the end (64 bytes). */
	for (; words < n; words++) {
		size_t next = at + (words ? 1 : 0);

		if (words)
			buf[at] = ',';
		next = next < size - 64
			   ? json_str(buf, size - 64, next, argv[words], strlen(argv[words]))
			   : 0;
		if (!next)
			break;
		at = next;
	}
	if (words < n)
		at = put(buf, size, at, "],\"more\":%zu}\n", n - words);
	else
		at = put(buf, size, at, "]}\n");
	return at;
}

size_t session_close_line(char *buf, size_t size, const struct timespec *t, const struct session *s,
			  int code, enum session_end end, int grace_kill, long long duration_ns)
{
	static const char *const ENDS[] = { "exit", "signal", "terminal-gone", "parent-gone",
					    "gateway-gone" };
	size_t at = (size_t)event_head(buf, size, t, "session", s->id);

	if (duration_ns < 0)
		duration_ns = 0;
	return put(buf, size, at,
		   ",\"verdict\":\"close\",\"exit\":%d,\"signal\":%d,\"end\":\"%s\","
		   "\"grace_kill\":%s,\"duration_ms\":%lld.%03lld}\n",
		   code, code > 128 && code <= 128 + 64 ? code - 128 : 0,
		   (unsigned int)end < ARRAY_SIZE(ENDS) ? ENDS[end] : "exit",
		   grace_kill ? "true" : "false", duration_ns / 1000000, duration_ns / 1000 % 1000);
}
