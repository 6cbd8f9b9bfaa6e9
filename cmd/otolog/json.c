/* SPDX-License-Identifier: ISC */
/*
 * One JSON object on one line, read strictly (RFC 8259's grammar, less
 * what the record never holds): a line the agent shaped is refused with a
 * reason rather than read in some way no writer meant. Pure.
 */
#include <string.h>

#include "otolog.h"

struct rd {
	const char *p, *end;
	struct json_obj *o;
	size_t at; /* next free byte of o->buf */
	const char *why;
};

static void blanks(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
		r->p++;
}

static int fail(struct rd *r, const char *why)
{
	r->why = why;
	return -1;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void put(struct rd *r, unsigned char c)
{
	/* Never past cap: the decoded text is shorter than the line (see json_parse). */
	if (r->at < r->o->cap)
		r->o->buf[r->at++] = (char)c;
}

/* A code point from \u: a byte for U+0080..U+00FF (json_str's own way), else UTF-8. */
static void put_cp(struct rd *r, unsigned cp)
{
	if (cp < 0x100) {
		put(r, (unsigned char)cp);
	} else if (cp < 0x800) {
		put(r, (unsigned char)(0xc0 | cp >> 6));
		put(r, (unsigned char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put(r, (unsigned char)(0xe0 | cp >> 12));
		put(r, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
		put(r, (unsigned char)(0x80 | (cp & 0x3f)));
	} else {
		put(r, (unsigned char)(0xf0 | cp >> 18));
		put(r, (unsigned char)(0x80 | (cp >> 12 & 0x3f)));
		put(r, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
		put(r, (unsigned char)(0x80 | (cp & 0x3f)));
	}
}

/* \uXXXX, with its pair for a surrogate; r->p is after the 'u'. */
static int escape_u(struct rd *r)
{
	unsigned cp, lo;

	if (r->end - r->p < 4 || hex4(r->p, &cp) < 0)
		return fail(r, "a \\u escape without four hex digits");
	r->p += 4;
	if (!cp)
		return fail(r, "\\u0000 in a string");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, "a lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
		    hex4(r->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
			return fail(r, "a high surrogate without its pair");
		r->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_cp(r, cp);
	return 0;
}

/* A string at r->p (its opening quote): decoded into o->buf. */
static int string(struct rd *r, const char **s, size_t *len)
{
	size_t from = r->at;

	r->p++;
	for (;;) {
		unsigned char c;

		if (r->p >= r->end)
			return fail(r, "a string without its closing quote");
		c = (unsigned char)*r->p++;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(r, "a control byte in a string");
		if (c != '\\') {
			put(r, c);
			continue;
		}
		if (r->p >= r->end)
			return fail(r, "a string without its closing quote");
		c = (unsigned char)*r->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			put(r, c);
			break;
		case 'b':
			put(r, '\b');
			break;
		case 'f':
			put(r, '\f');
			break;
		case 'n':
			put(r, '\n');
			break;
		case 'r':
			put(r, '\r');
			break;
		case 't':
			put(r, '\t');
			break;
		case 'u':
			if (escape_u(r) < 0)
				return -1;
			break;
		default:
			return fail(r, "an unknown escape in a string");
		}
	}
	*len = r->at - from;
	put(r, 0);
	*s = r->o->buf + from;
	return 0;
}

static int digits(struct rd *r)
{
	const char *p = r->p;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > p ? 0 : -1;
}

/* A number's text, by the grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct rd *r, const char **s, size_t *len)
{
	const char *from = r->p;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (digits(r) < 0)
		return fail(r, "not a value");
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (digits(r) < 0)
			return fail(r, "a number without digits after its point");
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (digits(r) < 0)
			return fail(r, "a number without digits in its exponent");
	}
	if (r->p - from > 40)
		return fail(r, "a number longer than 40 bytes");
	*len = (size_t)(r->p - from);
	*s = r->o->buf + r->at;
	for (const char *q = from; q < r->p; q++)
		put(r, (unsigned char)*q);
	put(r, 0);
	return 0;
}

static int word(struct rd *r, const char *w, enum json_type t, struct json_val *v)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return fail(r, "not a value");
	r->p += n;
	v->type = t;
	v->s = w;
	v->len = n;
	return 0;
}

/* A value that is not an array. */
static int scalar(struct rd *r, struct json_val *v)
{
	memset(v, 0, sizeof(*v));
	if (r->p >= r->end)
		return fail(r, "a key without its value");
	switch (*r->p) {
	case '"':
		v->type = JSON_STR;
		return string(r, &v->s, &v->len);
	case 't':
		return word(r, "true", JSON_TRUE, v);
	case 'f':
		return word(r, "false", JSON_FALSE, v);
	case 'n':
		return word(r, "null", JSON_NULL, v);
	case '{':
		return fail(r, "a nested object");
	case '[':
		return fail(r, "a nested array");
	default:
		v->type = JSON_NUM;
		return number(r, &v->s, &v->len);
	}
}

static int array(struct rd *r, struct json_val *v)
{
	memset(v, 0, sizeof(*v));
	v->type = JSON_ARR;
	v->first = r->o->nitems;
	r->p++;
	blanks(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
		return 0;
	}
	for (;;) {
		if (r->o->nitems >= JSON_ITEMS)
			return fail(r, "more than 4096 values in arrays");
		blanks(r);
		if (scalar(r, &r->o->items[r->o->nitems]) < 0)
			return -1;
		r->o->nitems++;
		v->n++;
		blanks(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == ']') {
			r->p++;
			return 0;
		}
		return fail(r, "an array without its closing bracket");
	}
}

static int member(struct rd *r)
{
	struct json_obj *o = r->o;
	const char *key;
	size_t klen;

	if (o->nkv >= JSON_KEYS)
		return fail(r, "more than 64 keys");
	if (r->p >= r->end || *r->p != '"')
		return fail(r, "a key that is not a string");
	if (string(r, &key, &klen) < 0)
		return -1;
	for (size_t i = 0; i < o->nkv; i++)
		if (!strcmp(o->kv[i].key, key))
			return fail(r, "a key given twice");
	blanks(r);
	if (r->p >= r->end || *r->p != ':')
		return fail(r, "a key without its ':'");
	r->p++;
	blanks(r);
	o->kv[o->nkv].key = key;
	if (r->p < r->end && *r->p == '[' ? array(r, &o->kv[o->nkv].v) < 0
					  : scalar(r, &o->kv[o->nkv].v) < 0)
		return -1;
	o->nkv++;
	return 0;
}

int json_parse(struct json_obj *o, const char *line, size_t len, const char **why)
{
	/*
	 * Every string decodes to fewer bytes than its text (its quotes at
	 * least), which pays for its NUL; a number is followed by a byte of
	 * the line (',', ']' or '}') that pays for its own.
	 */
	struct rd r = { .p = line, .end = line + len, .o = o };

	o->nkv = o->nitems = 0;
	if (o->cap < len + 1)
		return *why = "the line is longer than the reader's buffer", -1;
	blanks(&r);
	if (r.p >= r.end || *r.p != '{')
		return *why = "not a JSON object", -1;
	r.p++;
	blanks(&r);
	if (r.p < r.end && *r.p == '}') {
		r.p++;
	} else {
		for (;;) {
			blanks(&r);
			if (member(&r) < 0)
				return *why = r.why, -1;
			blanks(&r);
			if (r.p < r.end && *r.p == ',') {
				r.p++;
				continue;
			}
			if (r.p < r.end && *r.p == '}') {
				r.p++;
				break;
			}
			return *why = "an object without its closing brace", -1;
		}
	}
	blanks(&r);
	if (r.p != r.end)
		return *why = "bytes after the object", -1;
	return 0;
}

const struct json_val *json_get(const struct json_obj *o, const char *key)
{
	for (size_t i = 0; i < o->nkv; i++)
		if (!strcmp(o->kv[i].key, key))
			return &o->kv[i].v;
	return NULL;
}

const char *json_str_of(const struct json_obj *o, const char *key)
{
	const struct json_val *v = json_get(o, key);

	return v && v->type == JSON_STR ? v->s : NULL;
}

int json_uint(const struct json_val *v, unsigned long long max, unsigned long long *out)
{
	unsigned long long n = 0;

	if (!v || v->type != JSON_NUM || !v->len || v->len > 20)
		return -1;
	for (size_t i = 0; i < v->len; i++) {
		unsigned d;

		if (v->s[i] < '0' || v->s[i] > '9')
			return -1;
		d = (unsigned)(v->s[i] - '0');
		if (n > (max - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*out = n;
	return 0;
}

int json_int(const struct json_val *v, long long *out)
{
	struct json_val u;
	unsigned long long n;

	if (!v || v->type != JSON_NUM)
		return -1;
	u = *v;
	if (u.len && u.s[0] == '-') {
		u.s++;
		u.len--;
	}
	if (json_uint(&u, 0x7fffffffffffffffULL, &n) < 0)
		return -1;
	*out = v->s[0] == '-' ? -(long long)n : (long long)n;
	return 0;
}
