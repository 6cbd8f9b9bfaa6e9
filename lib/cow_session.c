/* SPDX-License-Identifier: ISC */
/*
 * A copy-on-write session's record (DIR/session): what otomount --cow wrote
 * at the session's first start, and what otodiff needs to commit: when it
 * started, and which host tree each overlay's lower layer is. Written by
 * otomount outside the agent's view; read by otodiff on the host, strictly
 * (a line out of place rejects the whole file). Pure.
 *
 *   oto-cow 1
 *   start SEC.NSEC
 *   tree NAME DEV INO HOSTPATH      (one per tree: work, private, knowledge, config)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"

static const char *const TREE_NAMES[] = { "work", "private", "knowledge", "config", NULL };

int cow_tree_name_ok(const char *name)
{
	for (const char *const *n = TREE_NAMES; *n; n++)
		if (!strcmp(name, *n))
			return 1;
	return 0;
}

int cow_host_path_ok(const char *p)
{
	size_t n = strlen(p);

	if (p[0] != '/' || n >= COW_PATH_MAX)
		return 0;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 32 || *c == 127)
			return 0;
	return 1;
}

size_t cow_session_format(char *buf, size_t size, const struct cow_session *s)
{
	size_t at;
	int n = snprintf(buf, size, "oto-cow 1\nstart %lld.%09ld\n", s->start_sec, s->start_nsec);

	if (n < 0 || (size_t)n >= size)
		return 0;
	at = (size_t)n;
	for (size_t i = 0; i < s->n; i++) {
		const struct cow_tree *t = &s->t[i];

		if (!cow_tree_name_ok(t->name) || !cow_host_path_ok(t->host))
			return 0;
		n = snprintf(buf + at, size - at, "tree %s %llu %llu %s\n", t->name, t->dev, t->ino,
			     t->host);
		if (n < 0 || (size_t)n >= size - at)
			return 0;
		at += (size_t)n;
	}
	return at;
}

/* A decimal number of at most 20 digits at p (before end), then the byte stop. */
static const char *num(const char *p, const char *end, unsigned long long *out, char stop)
{
	unsigned long long v = 0;
	const char *s = p;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (~0ULL - 9) / 10)
			return NULL;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (p == s || p >= end || *p != stop)
		return NULL;
	*out = v;
	return p + 1;
}

/* "NAME DEV INO HOSTPATH" at p, len bytes, no newline: into s's next tree. */
static int tree_line(struct cow_session *s, const char *p, size_t len)
{
	const char *end = p + len, *sp = memchr(p, ' ', len);
	struct cow_tree *t;
	size_t hl;

	if (s->n >= COW_TREES_MAX || !sp || (size_t)(sp - p) >= sizeof(t->name))
		return -1;
	t = &s->t[s->n];
	memcpy(t->name, p, (size_t)(sp - p));
	t->name[sp - p] = 0;
	if (!cow_tree_name_ok(t->name))
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->t[i].name, t->name))
			return -1;
	p = num(sp + 1, end, &t->dev, ' ');
	p = p ? num(p, end, &t->ino, ' ') : NULL;
	if (!p)
		return -1;
	hl = (size_t)(end - p);
	if (hl >= sizeof(t->host))
		return -1;
	memcpy(t->host, p, hl);
	t->host[hl] = 0;
	if (strlen(t->host) != hl || !cow_host_path_ok(t->host))
		return -1;
	s->n++;
	return 0;
}

int cow_session_parse(struct cow_session *s, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *q;
	unsigned long long sec, nsec;

	memset(s, 0, sizeof(*s));
	if (len < 16 || memcmp(p, "oto-cow 1\nstart ", 16))
		return -1;
	q = num(p + 16, end, &sec, '.');
	q = q ? num(q, end, &nsec, '\n') : NULL;
	if (!q || nsec > 999999999ULL || sec > (1ULL << 40))
		return -1;
	s->start_sec = (long long)sec;
	s->start_nsec = (long)nsec;
	for (p = q; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl || nl - p < 5 || memcmp(p, "tree ", 5) ||
		    tree_line(s, p + 5, (size_t)(nl - p - 5)) < 0)
			return -1;
		p = nl + 1;
	}
	return s->n ? 0 : -1;
}
