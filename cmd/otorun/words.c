/* SPDX-License-Identifier: ISC */
/*
 * otorun's words and their quoting. Pure: no system call, no exit.
 *
 * Every value from the command line or a config file reaches the chain
 * through quote_add, which single-quotes it whole (newlines, quotes, $(...),
 * globs included), or is checked first to be a plain number or name
 * (parse.c): the text --print shows holds no unquoted byte of the caller's,
 * and sh reads from it the very words otorun execs.
 *
 * Memory comes from one arena (arena_*), never freed while otorun runs (it
 * execs or exits soon); arena_free lets it all go at once (the unit tests).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otorun.h"

struct arena_block {
	struct arena_block *next;
	max_align_t data[];
};
static struct arena_block *arena;

void *arena_alloc(size_t n)
{
	struct arena_block *b = malloc(sizeof(*b) + n);

	if (!b)
		return NULL;
	b->next = arena;
	arena = b;
	return b->data;
}

void arena_free(void)
{
	while (arena) {
		struct arena_block *b = arena;

		arena = b->next;
		free(b);
	}
}

char *arena_strndup(const char *s, size_t n)
{
	size_t l = strnlen(s, n);
	char *r = arena_alloc(l + 1);

	if (r) {
		memcpy(r, s, l);
		r[l] = 0;
	}
	return r;
}

char *arena_printf(const char *fmt, ...)
{
	va_list ap;
	char *r;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(r = arena_alloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(r, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return r;
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2 + 64;
		char *p = arena_alloc(cap);

		if (!p) {
			b->oom = 1;
			return;
		}
		if (b->n)
			memcpy(p, b->p, b->n);
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void strbuf_str(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

static int is_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr(
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-",
			*s))
			return 0;
	return 1;
}

void quote_add(struct strbuf *b, const char *s)
{
	const char *q;

	if (is_safe(s)) {
		strbuf_str(b, s);
		return;
	}
	strbuf_add(b, "'", 1);
	while ((q = strchr(s, '\''))) {
		strbuf_add(b, s, (size_t)(q - s));
		strbuf_add(b, "'\\''", 4);
		s = q + 1;
	}
	strbuf_str(b, s);
	strbuf_add(b, "'", 1);
}

char *shown(const char *s)
{
	char *r = arena_strndup(s, strlen(s));

	for (char *p = r; p && *p; p++)
		if ((unsigned char)*p < 32 || *p == 127)
			*p = '?';
	return r;
}

static void words_push(struct words *w, char *s)
{
	if (!s || w->oom) {
		w->oom = 1;
		return;
	}
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap * 2 + 16;
		char **v = arena_alloc(cap * sizeof(*v));

		if (!v) {
			w->oom = 1;
			return;
		}
		if (w->n)
			memcpy(v, w->v, w->n * sizeof(*v));
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
}

void words_add(struct words *w, const char *lit, const char *val)
{
	char *s;

	strbuf_add(&w->text, " ", 1);
	if (!val) {
		quote_add(&w->text, lit);
		words_push(w, arena_strndup(lit, strlen(lit)));
		return;
	}
	strbuf_str(&w->text, lit);
	quote_add(&w->text, val);
	s = arena_printf("%s%s", lit, val);
	words_push(w, s);
}

void words_cat(struct words *dst, const struct words *src)
{
	if (src->oom)
		dst->oom = 1;
	for (size_t i = 0; i < src->n; i++)
		words_push(dst, src->v[i]);
	if (src->text.n)
		strbuf_add(&dst->text, src->text.p, src->text.n);
}
