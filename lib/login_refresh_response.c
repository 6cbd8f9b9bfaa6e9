/* SPDX-License-Identifier: ISC */
/*
 * The token endpoint's answer, before the agent sees it: the new tokens
 * become phantoms, and the body is refused whole when a real token would
 * still reach the agent some other way. The endpoint is the provider's,
 * reached over TLS, so an echo is a fault or a hostile server: either way
 * the agent gets no part of it. The check runs on the rewritten body, so
 * the token fields themselves, now phantoms, need no exception.
 */
#include <string.h>

#include "login.h"

#define MAX_EXPIRES (10LL * 366 * 86400)

static const char *const FIELD[LOGIN_NUM_ROLES] = {
	[LOGIN_ACCESS] = "access_token",
	[LOGIN_REFRESH] = "refresh_token",
	[LOGIN_ID] = "id_token",
};

struct found {
	struct json_value tok[LOGIN_NUM_ROLES];
	int has[LOGIN_NUM_ROLES];
	struct json_value exp;
	int has_exp;
};

static int is(const struct json_value *v, const char *name)
{
	return v->path_len == strlen(name) && !memcmp(v->path, name, v->path_len);
}

static int one(const struct json_value *v, void *arg)
{
	struct found *f = arg;

	for (int r = 0; r < LOGIN_NUM_ROLES; r++) {
		if (is(v, FIELD[r]) && v->kind == JSON_STRING) {
			f->tok[r] = *v;
			f->has[r] = 1;
		}
	}
	if (is(v, "expires_in") && v->kind == JSON_NUMBER) {
		f->exp = *v;
		f->has_exp = 1;
	}
	return 0;
}

/* Whole seconds, digits only, up to MAX_EXPIRES; else -1. */
static int64_t seconds(const char *s, size_t n)
{
	int64_t v = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
		if (v > MAX_EXPIRES)
			return -1;
	}
	return v;
}

static int same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !memcmp(a, b, an);
}

int login_refresh_response(const char *in, size_t len, const struct login_pair *known,
			   size_t nknown, char *out, struct login_pair *fresh, size_t *nfresh,
			   int64_t *expires_in, phantom_rand_fn rnd, void *arg,
			   struct login_refresh_work *w, int *json_err)
{
	struct found f;
	size_t n = 0;
	int h;

	*nfresh = 0;
	*expires_in = -1;
	*json_err = JSON_OK;
	if (len > JSON_MAX_INPUT)
		return LOGIN_REFRESH_ETOOBIG;
	memset(&f, 0, sizeof(f));
	/* json_scan refuses a key twice: no first-or-last question about which token is new. */
	*json_err = json_scan(in, len, one, &f, NULL);
	if (*json_err != JSON_OK)
		return LOGIN_REFRESH_EJSON;
	memcpy(out, in, len);
	for (int r = 0; r < LOGIN_NUM_ROLES; r++) {
		const struct json_value *v = &f.tok[r];
		const char *real = in + v->start;
		size_t k = v->end - v->start;
		int err;

		if (!f.has[r])
			continue;
		/* The CLI would read the decoded value, which is not what out would hold. */
		if (v->escaped)
			return LOGIN_REFRESH_EESCAPE;
		if (k < HTTP_MIN_SECRET || k > HTTP_MAX_SECRET)
			return LOGIN_REFRESH_ELEN;
		/* A known real in a field of another role would go where that role goes. */
		for (size_t i = 0; i < nknown; i++)
			if ((int)known[i].role != r && same(real, k, known[i].real, known[i].len))
				return LOGIN_REFRESH_ESWAP;
		for (size_t i = 0; i < n; i++)
			if (same(real, k, fresh[i].real, fresh[i].len))
				return LOGIN_REFRESH_ESWAP;
		err = phantom_shape(real, k, out + v->start, rnd, arg);
		if (err == PHANTOM_ESHORT)
			return LOGIN_REFRESH_ESHORT;
		if (err != PHANTOM_OK)
			return LOGIN_REFRESH_ESAME;
		fresh[n++] = (struct login_pair){ (enum login_role)r, real, out + v->start, k };
	}
	/* Any real left in out, the old ones or the new, in any form, would reach the agent. */
	h = login_refresh_holds(out, len, known, nknown, LOGIN_SIDE_REAL, w);
	if (h == -1)
		h = login_refresh_holds(out, len, fresh, n, LOGIN_SIDE_REAL, w);
	if (h == -2)
		return LOGIN_REFRESH_ELEN;
	if (h >= 0)
		return LOGIN_REFRESH_EECHO;
	if (f.has_exp)
		*expires_in = seconds(in + f.exp.start, f.exp.end - f.exp.start);
	*nfresh = n;
	return LOGIN_REFRESH_OK;
}
