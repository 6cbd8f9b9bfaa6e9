/* SPDX-License-Identifier: ISC */
#include <string.h>

#include <sodium.h>

#include "login.h"

#define MAX_TIME    253402300799LL /* 9999-12-31T23:59:59Z */
#define PAYLOAD_MAX 8192	   /* a JWT's claims, decoded */

struct find {
	const char *path;
	const char *in;
	size_t count;
	struct json_value v;
};

static int one(const struct json_value *v, void *arg)
{
	struct find *f = arg;

	if (strlen(f->path) == v->path_len && !memcmp(f->path, v->path, v->path_len)) {
		f->count++;
		f->v = *v;
	}
	return 0;
}

/* The one value at path in in: 0, or -1 (not JSON, none, or twice). */
static int find(const char *in, size_t len, const char *path, struct json_value *v)
{
	struct find f = { path, in, 0, { 0 } };

	if (json_scan(in, len, one, &f, NULL) != JSON_OK || f.count != 1)
		return -1;
	*v = f.v;
	return 0;
}

/* A number's integer part (a fraction dropped), not negative, no exponent. */
static int whole(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > MAX_TIME * 1000)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (i == 0 || (i < n && s[i] != '.') || memchr(s, 'e', n) || memchr(s, 'E', n))
		return -1;
	*out = v;
	return 0;
}

static int num(const char *s, size_t n, size_t at, size_t k, int *out)
{
	int v = 0;

	if (at + k > n)
		return -1;
	for (size_t i = at; i < at + k; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (Hinnant's days_from_civil). */
static int64_t days(int64_t y, int m, int d)
{
	int64_t era, yoe, doy;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), RFC 3339, section 5.6. */
static int rfc3339(const char *s, size_t n, int64_t *out)
{
	static const int MDAYS[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, se, oh = 0, om = 0, sign = 0;
	size_t i = 19;

	if (num(s, n, 0, 4, &y) || n < 20 || s[4] != '-' || num(s, n, 5, 2, &mo) || s[7] != '-' ||
	    num(s, n, 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || num(s, n, 11, 2, &h) ||
	    s[13] != ':' || num(s, n, 14, 2, &mi) || s[16] != ':' || num(s, n, 17, 2, &se))
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > MDAYS[mo - 1] || h > 23 || mi > 59 ||
	    se > 60)
		return -1;
	if (s[i] == '.') {
		size_t from = ++i;

		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == from)
			return -1;
	}
	if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '+' ? 1 : -1;
		if (num(s, n, i + 1, 2, &oh) || i + 3 >= n || s[i + 3] != ':' ||
		    num(s, n, i + 4, 2, &om) || oh > 23 || om > 59)
			return -1;
		i += 6;
	} else {
		return -1;
	}
	if (i != n)
		return -1;
	*out = days(y, mo, d) * 86400 + h * 3600 + mi * 60 + (se == 60 ? 59 : se) -
	       sign * (oh * 3600 + om * 60);
	return 0;
}

/* A JWT's exp claim (seconds). */
static int jwt_exp(const char *s, size_t n, int64_t *out)
{
	unsigned char claims[PAYLOAD_MAX];
	const char *a = memchr(s, '.', n), *b;
	size_t clen;
	struct json_value v;

	if (!a || !(b = memchr(a + 1, '.', n - (size_t)(a + 1 - s))) ||
	    sodium_base642bin(claims, sizeof(claims), a + 1, (size_t)(b - a - 1), NULL, &clen, NULL,
			      sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
		return -1;
	if (find((const char *)claims, clen, "exp", &v) || v.kind != JSON_NUMBER)
		return -1;
	return whole((const char *)claims + v.start, v.end - v.start, out);
}

int login_expiry(const struct login_profile *p, const char *in, size_t len, int64_t *when)
{
	struct json_value v;
	int64_t t = 0;
	int rc;

	if (p->expiry_as == LOGIN_EXP_NONE || find(in, len, p->expiry, &v))
		return -1;
	switch (p->expiry_as) {
	case LOGIN_EXP_MS:
	case LOGIN_EXP_S:
		if (v.kind != JSON_NUMBER)
			return -1;
		rc = whole(in + v.start, v.end - v.start, &t);
		if (!rc && p->expiry_as == LOGIN_EXP_MS)
			t /= 1000;
		break;
	case LOGIN_EXP_RFC3339:
		rc = v.kind == JSON_STRING && !v.escaped
			 ? rfc3339(in + v.start, v.end - v.start, &t)
			 : -1;
		break;
	case LOGIN_EXP_JWT:
		rc = v.kind == JSON_STRING && !v.escaped
			 ? jwt_exp(in + v.start, v.end - v.start, &t)
			 : -1;
		break;
	case LOGIN_EXP_NONE:
	default:
		return -1;
	}
	if (rc || t < 0 || t > MAX_TIME)
		return -1;
	*when = t;
	return 0;
}
