/* SPDX-License-Identifier: ISC */
/*
 * A phantom keeps what the CLI or a person reads of a token (a JWT's
 * claims, an opaque token's kind in its prefix, its length and
 * punctuation) and nothing that would let a holder use it: every character
 * that carries the secret is drawn anew. The random characters come from
 * bytes by a modulo; the slight bias does not matter, a phantom being no
 * secret.
 */
#include <string.h>

#include "login.h"

static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char ALNUM[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
static const char HEXLO[] = "0123456789abcdef", HEXUP[] = "0123456789ABCDEF";
static const char DIGITS[] = "0123456789";

static int alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Random bytes, one a call, drawn 64 at a time. */
struct pool {
	uint8_t b[64];
	size_t left;
	phantom_rand_fn rnd;
	void *arg;
};

static uint8_t next(struct pool *p)
{
	if (!p->left) {
		p->rnd(p->b, sizeof(p->b), p->arg);
		p->left = sizeof(p->b);
	}
	return p->b[--p->left];
}

int phantom_shape(const char *v, size_t len, char *out, phantom_rand_fn rnd, void *arg)
{
	struct pool pool = { .left = 0, .rnd = rnd, .arg = arg };
	size_t from = 0, n = 0;

	memcpy(out, v, len);
	if (phantom_shape_of(v, len) == PHANTOM_JWT) {
		/* The signature: base64url, its last character canonical (no stray bits). */
		from = (size_t)((const char *)memrchr(v, '.', len) - v) + 1;
		if (len - from < PHANTOM_MIN_RANDOM)
			return PHANTOM_ESHORT;
		for (size_t i = from; i < len; i++)
			out[i] = B64URL[next(&pool) & 63];
		if ((len - from) % 4 == 2)
			out[len - 1] = B64URL[(next(&pool) & 3) << 4];
		else if ((len - from) % 4 == 3)
			out[len - 1] = B64URL[(next(&pool) & 15) << 2];
	} else {
		const char *set = NULL;
		int lo = 1, up = 1, dig = 1;

		for (size_t i = 0; i < len && i < 16; i++)
			if (v[i] == '-' || v[i] == '_')
				from = i + 1;
		for (size_t i = from; i < len; i++) {
			if (!alnum(v[i]))
				continue;
			n++;
			lo &= (v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f');
			up &= (v[i] >= '0' && v[i] <= '9') || (v[i] >= 'A' && v[i] <= 'F');
			dig &= v[i] >= '0' && v[i] <= '9';
		}
		if (n < PHANTOM_MIN_RANDOM)
			return PHANTOM_ESHORT;
		set = dig ? DIGITS : lo ? HEXLO : up ? HEXUP : ALNUM;
		for (size_t i = from; i < len; i++)
			if (alnum(v[i]))
				out[i] = set[next(&pool) % strlen(set)];
	}
	if (!memcmp(out, v, len))
		return PHANTOM_ESAME;
	return PHANTOM_OK;
}
