/* SPDX-License-Identifier: ISC */
/*
 * The login file the CLI would have written after the refresh, with the
 * reals: each value spliced at its span, every other byte kept, so the
 * file stays the CLI's (its order, its spacing, the fields oto does not
 * know). A field the file lacks is added at the top only: where a nested
 * one would go is the CLI's business, and every profile's optional secret
 * is a top-level key.
 */
#include <stdio.h>
#include <string.h>

#include "login.h"

#define MAX_EDITS (LOGIN_MAX_SECRETS + 1)

struct edit {
	const char *path;
	const char *text; /* the new value: a string's contents, or a number */
	size_t len;
	int string;
	size_t count;
	struct json_value v;
};

struct edits {
	struct edit e[MAX_EDITS];
	size_t n;
};

static int one(const struct json_value *v, void *arg)
{
	struct edits *s = arg;

	for (size_t i = 0; i < s->n; i++) {
		if (strlen(s->e[i].path) == v->path_len &&
		    !memcmp(s->e[i].path, v->path, v->path_len)) {
			s->e[i].count++;
			s->e[i].v = *v;
		}
	}
	return 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int put(char *out, size_t size, size_t *at, const char *s, size_t n)
{
	if (n > size - *at)
		return -1;
	memcpy(out + *at, s, n);
	*at += n;
	return 0;
}

/* A path that is one top-level key, written as it is in JSON. */
static int top_key(const char *path)
{
	return !strpbrk(path, ".[\"\\");
}

int login_refresh_file(const struct login_profile *p, const char *in, size_t len,
		       const struct login_pair *fresh, size_t nfresh, int64_t expires_in,
		       int64_t now, char *out, size_t size, size_t *out_len)
{
	struct edits s;
	char num[24];
	size_t at = 0, from = 0, end = len, order[MAX_EDITS], no = 0;
	int add = 0, empty = 0;

	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < p->nsecrets; i++) {
		for (size_t k = 0; k < nfresh; k++) {
			if (fresh[k].role != p->secret[i].role)
				continue;
			for (size_t b = 0; b < fresh[k].len; b++) {
				unsigned char c = (unsigned char)fresh[k].real[b];

				if (c < 0x20 || c == '"' || c == '\\')
					return LOGIN_REFRESH_EESCAPE;
			}
			s.e[s.n++] = (struct edit){
				p->secret[i].path, fresh[k].real, fresh[k].len, 1, 0, { 0 }
			};
			break;
		}
	}
	if (expires_in >= 0 && (p->expiry_as == LOGIN_EXP_MS || p->expiry_as == LOGIN_EXP_S)) {
		int64_t t = now + expires_in;
		int k = snprintf(num, sizeof(num), "%lld",
				 (long long)(p->expiry_as == LOGIN_EXP_MS ? t * 1000 : t));

		s.e[s.n++] = (struct edit){ p->expiry, num, (size_t)k, 0, 0, { 0 } };
	}
	if (json_scan(in, len, one, &s, NULL) != JSON_OK)
		return LOGIN_REFRESH_EFILE;
	for (size_t i = 0; i < s.n; i++) {
		struct edit *e = &s.e[i];
		size_t j;

		if (e->count > 1 ||
		    (e->count && e->v.kind != (e->string ? JSON_STRING : JSON_NUMBER)))
			return LOGIN_REFRESH_EFILE;
		if (!e->count) {
			add |= top_key(e->path);
			continue;
		}
		/* In the order of the file, for one pass over it. */
		for (j = no++; j > 0 && s.e[order[j - 1]].v.start > e->v.start; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	if (add) {
		/* Added fields go after the top object's last value, before its closing brace. */
		while (end > 0 && is_ws(in[end - 1]))
			end--;
		if (!end || in[end - 1] != '}')
			return LOGIN_REFRESH_EFILE;
		end--;
		while (end > 0 && is_ws(in[end - 1]))
			end--;
		empty = end > 0 && in[end - 1] == '{';
	}
	for (size_t k = 0; k < no; k++) {
		const struct edit *e = &s.e[order[k]];

		if (put(out, size, &at, in + from, e->v.start - from) ||
		    put(out, size, &at, e->text, e->len))
			return LOGIN_REFRESH_ENOSPC;
		from = e->v.end;
	}
	if (put(out, size, &at, in + from, end - from))
		return LOGIN_REFRESH_ENOSPC;
	if (add) {
		for (size_t i = 0; i < s.n; i++) {
			const struct edit *e = &s.e[i];

			if (e->count || !top_key(e->path))
				continue;
			if ((!empty && put(out, size, &at, ",", 1)) ||
			    put(out, size, &at, "\"", 1) ||
			    put(out, size, &at, e->path, strlen(e->path)) ||
			    put(out, size, &at, e->string ? "\":\"" : "\":", e->string ? 3 : 2) ||
			    put(out, size, &at, e->text, e->len) ||
			    (e->string && put(out, size, &at, "\"", 1)))
				return LOGIN_REFRESH_ENOSPC;
			empty = 0;
		}
		if (put(out, size, &at, in + end, len - end))
			return LOGIN_REFRESH_ENOSPC;
	}
	*out_len = at;
	return LOGIN_REFRESH_OK;
}
