/* SPDX-License-Identifier: ISC */
/*
 * The refresh request, read as strictly as the token endpoint could read
 * it another way: a gateway that swaps the first of two keys while the
 * server reads the last, or that reads a name the server decodes
 * differently, would send the real where the agent chose. So anything
 * that two readers could read two ways is refused, and the one field's
 * value is swapped only once the whole body has been read.
 */
#include <string.h>

#include "login.h"

/* ---- the content type ---- */

static int ci_eq(const char *a, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	if (n != k)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];

		if (c != lit[i])
			return 0;
	}
	return 1;
}

static size_t ows(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* "TYPE" or "TYPE;charset=utf-8" (charset quoted or not), any case, spaces around. */
static int ctype_is(const char *s, size_t n, const char *type)
{
	size_t i = ows(s, 0, n), j = i, k;

	while (j < n && s[j] != ';' && s[j] != ' ' && s[j] != '\t')
		j++;
	if (!ci_eq(s + i, j - i, type))
		return 0;
	j = ows(s, j, n);
	if (j == n)
		return 1;
	if (s[j] != ';')
		return 0;
	j = ows(s, j + 1, n);
	k = j;
	while (k < n && s[k] != ' ' && s[k] != '\t')
		k++;
	if (ows(s, k, n) != n)
		return 0;
	return ci_eq(s + j, k - j, "charset=utf-8") || ci_eq(s + j, k - j, "charset=\"utf-8\"");
}

/* ---- a form ---- */

/* A byte a form encoder leaves as it is (WHATWG's and Node's querystring's sets). */
static int plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("-._~*!'()", c);
}

/* The decoded byte at *i of s, the raw bytes it took moved over (form_split checked them). */
static unsigned char dec(const char *s, size_t *i)
{
	if (s[*i] == '%') {
		int hi = http_hex((unsigned char)s[*i + 1]),
		    lo = http_hex((unsigned char)s[*i + 2]);

		if (hi >= 0 && lo >= 0) {
			*i += 3;
			return (unsigned char)(hi << 4 | lo);
		}
	}
	return s[(*i)++] == '+' ? ' ' : (unsigned char)s[*i - 1];
}

struct span {
	size_t start, end;
};

/* Two raw spans that decode to the same bytes. */
static int dec_eq(const char *s, struct span a, struct span b)
{
	size_t i = a.start, j = b.start;

	while (i < a.end && j < b.end)
		if (dec(s, &i) != dec(s, &j))
			return 0;
	return i == a.end && j == b.end;
}

/* A raw span that decodes to lit's n bytes. */
static int dec_is(const char *s, struct span a, const char *lit, size_t n)
{
	size_t i = a.start, k = 0;

	while (i < a.end && k < n)
		if (dec(s, &i) != (unsigned char)lit[k++])
			return 0;
	return i == a.end && k == n;
}

struct form {
	struct span name[LOGIN_REFRESH_MAX_PARAMS], value[LOGIN_REFRESH_MAX_PARAMS];
	size_t n;
};

/* Splits in on '&' into name=value parameters, each clean: 0 or an error. */
static int form_split(const char *in, size_t len, struct form *f)
{
	size_t i = 0;

	f->n = 0;
	if (!len)
		return LOGIN_REFRESH_EMISSING;
	for (;;) {
		size_t eq = 0, from = i;

		if (f->n == LOGIN_REFRESH_MAX_PARAMS)
			return LOGIN_REFRESH_EFORM;
		for (; i < len && in[i] != '&'; i++) {
			unsigned char c = (unsigned char)in[i];

			if (c == '=') {
				if (eq)
					return LOGIN_REFRESH_EFORM;
				eq = i;
			} else if (c == '%') {
				if (i + 2 >= len || http_hex((unsigned char)in[i + 1]) < 0 ||
				    http_hex((unsigned char)in[i + 2]) < 0)
					return LOGIN_REFRESH_EFORM;
				i += 2;
			} else if (c != '+' && !plain(c)) {
				return LOGIN_REFRESH_EFORM;
			}
		}
		if (!eq || eq == from)
			return LOGIN_REFRESH_EFORM;
		f->name[f->n] = (struct span){ from, eq };
		f->value[f->n++] = (struct span){ eq + 1, i };
		if (i == len)
			return 0;
		if (++i == len) /* a trailing '&' */
			return LOGIN_REFRESH_EFORM;
	}
}

/* The case of the hex letters in v's escapes: upper unless all are lower (RFC 3986 says upper). */
static int hex_upper(const char *in, struct span v)
{
	int lower = 0;

	for (size_t i = v.start; i < v.end; i++) {
		if (in[i] != '%')
			continue;
		for (size_t k = i + 1; k < i + 3; k++) {
			if (in[k] >= 'A' && in[k] <= 'F')
				return 1;
			lower |= in[k] >= 'a' && in[k] <= 'f';
		}
		i += 2;
	}
	return !lower;
}

/*
 * Writes real over the raw span v of out (which decodes to ph, as long as
 * real), each byte as the phantom's was: literal, or %HH in the case the
 * client writes.
 */
static int form_put(char *out, const char *in, struct span v, const char *real, const char *ph)
{
	const char *h = hex_upper(in, v) ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t i = v.start;

	for (size_t k = 0; i < v.end; k++) {
		unsigned char r = (unsigned char)real[k];

		if (r == (unsigned char)ph[k]) {
			(void)dec(in, &i);
			continue;
		}
		if (in[i] == '%') {
			out[i + 1] = h[r >> 4];
			out[i + 2] = h[r & 15];
			i += 3;
		} else if (in[i] != '+' && plain(r)) {
			out[i++] = (char)r;
		} else {
			return LOGIN_REFRESH_EENCODE;
		}
	}
	return 0;
}

/* The refresh pair whose phantom the decoded span holds, or -1. */
static int which_form(const char *in, struct span v, const struct login_pair *known, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (known[i].role == LOGIN_REFRESH && dec_is(in, v, known[i].phantom, known[i].len))
			return (int)i;
	return -1;
}

static int form_swap(const struct login_profile *p, const char *in, size_t len,
		     const struct login_pair *known, size_t nknown, char *out, size_t *used)
{
	struct form f;
	size_t field = 0, count = 0;
	int err = form_split(in, len, &f), k;

	if (err)
		return err;
	for (size_t i = 0; i < f.n; i++) {
		for (size_t j = 0; j < i; j++)
			if (dec_eq(in, f.name[i], f.name[j]))
				return LOGIN_REFRESH_EDUP;
		if (dec_is(in, f.name[i], p->token_field, strlen(p->token_field))) {
			field = i;
			count++;
		}
	}
	if (!count)
		return LOGIN_REFRESH_EMISSING;
	if (f.name[field].end - f.name[field].start != strlen(p->token_field) ||
	    memcmp(in + f.name[field].start, p->token_field, strlen(p->token_field)))
		return LOGIN_REFRESH_EKEY;
	k = which_form(in, f.value[field], known, nknown);
	if (k < 0)
		return LOGIN_REFRESH_ENOTPHANTOM;
	*used = (size_t)k;
	memcpy(out, in, len);
	return form_put(out, in, f.value[field], known[k].real, known[k].phantom);
}

/* ---- JSON ---- */

struct jfield {
	const char *field;
	size_t flen, count;
	struct json_value v;
};

static int jone(const struct json_value *v, void *arg)
{
	struct jfield *j = arg;

	if (v->path_len == j->flen && !memcmp(v->path, j->field, j->flen)) {
		j->count++;
		j->v = *v;
	}
	return 0;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The string value at start (after its quote) has the key field as written, at the top. */
static int key_plain(const char *in, size_t start, const char *field, size_t flen)
{
	size_t i = start - 1; /* the value's opening quote */

	while (i > 0 && is_ws(in[i - 1]))
		i--;
	if (i == 0 || in[--i] != ':')
		return 0;
	while (i > 0 && is_ws(in[i - 1]))
		i--;
	if (i < flen + 2 || in[i - 1] != '"' || in[i - flen - 2] != '"')
		return 0;
	if (memcmp(in + i - flen - 1, field, flen))
		return 0;
	/* The key's opening quote follows '{' or ',' (and space): the key is at the top. */
	i -= flen + 2;
	while (i > 0 && is_ws(in[i - 1]))
		i--;
	return i > 0 && (in[i - 1] == '{' || in[i - 1] == ',');
}

static int json_swap(const struct login_profile *p, const char *in, size_t len,
		     const struct login_pair *known, size_t nknown, char *out, size_t *used,
		     int *json_err)
{
	struct jfield j = { p->token_field, strlen(p->token_field), 0, { 0 } };
	size_t n;

	*json_err = json_scan(in, len, jone, &j, NULL);
	if (*json_err == JSON_EDUP)
		return LOGIN_REFRESH_EDUP;
	if (*json_err != JSON_OK)
		return LOGIN_REFRESH_EJSON;
	if (!j.count)
		return LOGIN_REFRESH_EMISSING;
	if (j.count > 1)
		return LOGIN_REFRESH_EDUP;
	if (j.v.kind != JSON_STRING)
		return LOGIN_REFRESH_ENOTSTR;
	if (!key_plain(in, j.v.start, j.field, j.flen))
		return LOGIN_REFRESH_EKEY;
	if (j.v.escaped)
		return LOGIN_REFRESH_EESCAPE;
	n = j.v.end - j.v.start;
	for (size_t i = 0; i < nknown; i++) {
		if (known[i].role != LOGIN_REFRESH || known[i].len != n ||
		    memcmp(in + j.v.start, known[i].phantom, n))
			continue;
		*used = i;
		memcpy(out, in, len);
		memcpy(out + j.v.start, known[i].real, n);
		return 0;
	}
	return LOGIN_REFRESH_ENOTPHANTOM;
}

int login_refresh_request(const struct login_profile *p, const char *ctype, size_t ctype_len,
			  const char *in, size_t len, const struct login_pair *known, size_t nknown,
			  char *out, size_t *used, struct login_refresh_work *w, int *json_err)
{
	int err, h;

	*json_err = JSON_OK;
	if (len > JSON_MAX_INPUT)
		return LOGIN_REFRESH_ETOOBIG;
	if (p->token_body == LOGIN_BODY_JSON) {
		if (!ctype || !ctype_is(ctype, ctype_len, "application/json"))
			return LOGIN_REFRESH_ECTYPE;
		err = json_swap(p, in, len, known, nknown, out, used, json_err);
	} else if (p->token_body == LOGIN_BODY_FORM) {
		if (!ctype || !ctype_is(ctype, ctype_len, "application/x-www-form-urlencoded"))
			return LOGIN_REFRESH_ECTYPE;
		err = form_swap(p, in, len, known, nknown, out, used);
	} else {
		return LOGIN_REFRESH_ENOTOKEN;
	}
	if (err)
		return err;
	/* With the field's phantom gone, any phantom still there is one the agent put elsewhere. */
	h = login_refresh_holds(out, len, known, nknown, LOGIN_SIDE_PHANTOM, w);
	if (h == -2)
		return LOGIN_REFRESH_ELEN;
	return h >= 0 ? LOGIN_REFRESH_ESTRAY : LOGIN_REFRESH_OK;
}
