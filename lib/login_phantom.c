/* SPDX-License-Identifier: ISC */
/*
 * The whole file is read before anything is replaced: a secret found twice
 * (a key that holds '.' and a nesting that make one path) or a file that
 * turns out not to be JSON past the secrets is refused, never half done.
 */
#include <string.h>

#include "login.h"

struct found {
	const struct login_profile *p;
	struct login_field *f;
	size_t count[LOGIN_MAX_SECRETS];
	enum json_kind kind[LOGIN_MAX_SECRETS];
	int escaped[LOGIN_MAX_SECRETS];
};

static int one(const struct json_value *v, void *arg)
{
	struct found *s = arg;

	for (size_t i = 0; i < s->p->nsecrets; i++) {
		if (strlen(s->p->secret[i].path) != v->path_len ||
		    memcmp(s->p->secret[i].path, v->path, v->path_len))
			continue;
		s->count[i]++;
		s->kind[i] = v->kind;
		s->escaped[i] = v->escaped;
		s->f[i].start = v->start;
		s->f[i].end = v->end;
	}
	return 0;
}

int login_phantom(const struct login_profile *p, const char *in, size_t len, char *out,
		  struct login_field *f, phantom_rand_fn rnd, void *arg,
		  const struct login_secret **bad, int *json_err, size_t *at)
{
	struct found s;
	int err;

	memset(&s, 0, sizeof(s));
	memset(f, 0, p->nsecrets * sizeof(*f));
	s.p = p;
	s.f = f;
	*json_err = json_scan(in, len, one, &s, at);
	if (*json_err != JSON_OK)
		return LOGIN_EJSON;
	for (size_t i = 0; i < p->nsecrets; i++) {
		if (bad)
			*bad = &p->secret[i];
		f[i].secret = &p->secret[i];
		f[i].present = s.count[i] > 0;
		if (!s.count[i] && p->secret[i].optional)
			continue;
		if (!s.count[i])
			return LOGIN_EMISSING;
		if (s.count[i] > 1)
			return LOGIN_ETWICE;
		if (s.kind[i] != JSON_STRING)
			return LOGIN_ENOTSTR;
		/* An escape would make the span's bytes differ from the value the CLI sends. */
		if (s.escaped[i])
			return LOGIN_EESCAPE;
	}
	memcpy(out, in, len);
	for (size_t i = 0; i < p->nsecrets; i++) {
		size_t n = f[i].end - f[i].start;

		if (!f[i].present)
			continue;
		if (bad)
			*bad = &p->secret[i];
		f[i].shape = phantom_shape_of(in + f[i].start, n);
		err = phantom_shape(in + f[i].start, n, out + f[i].start, rnd, arg);
		if (err == PHANTOM_ESHORT)
			return LOGIN_ESHORT;
		if (err != PHANTOM_OK)
			return LOGIN_ESAME;
	}
	if (bad)
		*bad = NULL;
	return LOGIN_OK;
}
