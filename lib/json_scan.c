/* SPDX-License-Identifier: ISC */
/*
 * A recursive descent over RFC 8259's grammar, its depth bounded by
 * JSON_MAX_DEPTH. Keys are decoded into the path buffer as they are read;
 * the keys of the open objects are kept as (hash, raw span) on the stack,
 * so a key twice in one object is found however it was escaped.
 */
#include <stdint.h>
#include <string.h>

#include "http.h"
#include "json.h"

struct key {
	uint64_t hash;
	uint32_t start, end; /* the raw span, for an exact comparison */
};

struct scan {
	const unsigned char *in;
	size_t len, pos;
	json_scan_fn fn;
	void *arg;
	char path[JSON_MAX_PATH];
	size_t plen;
	struct key keys[JSON_MAX_KEYS];
	size_t nkeys;
};

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0. RFC 3629, table 3-7. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0; /* a continuation byte, an overlong lead (c0, c1), or past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* a surrogate, encoded */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (n < k || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return k;
}

/* Four hex digits at in + i (len bytes in all): the value, or -1. */
static long hex4(const unsigned char *in, size_t len, size_t i)
{
	long v = 0;

	if (len - i < 4)
		return -1;
	for (size_t k = 0; k < 4; k++) {
		int h = http_hex(in[i + k]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t utf8_put(unsigned long cp, unsigned char out[4])
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string whose opening quote is at s->pos: checked, and (dec not NULL)
 * decoded into dec, at most *dlen bytes (more: JSON_EPATH); *dlen is then
 * the decoded length, *hash its FNV-1a. s->pos ends past the closing quote.
 */
static int string(struct scan *s, size_t *start, size_t *end, int *escaped, char *dec, size_t *dlen,
		  uint64_t *hash)
{
	const unsigned char *in = s->in;
	size_t i = s->pos + 1, n = 0, max = dec ? *dlen : 0;
	uint64_t h = 14695981039346656037ULL;

	*start = i;
	*escaped = 0;
	for (;;) {
		unsigned char b[4], c;
		size_t k;

		if (i >= s->len) {
			s->pos = i;
			return JSON_ESYNTAX;
		}
		c = in[i];
		if (c == '"')
			break;
		if (c < 0x20) {
			s->pos = i;
			return JSON_ESYNTAX; /* a control character, NUL included */
		}
		if (c == '\\') {
			static const char ESC[] = "\"\\/bfnrt", VAL[] = "\"\\/\b\f\n\r\t";
			const char *e;

			*escaped = 1;
			if (i + 1 >= s->len) {
				s->pos = i;
				return JSON_ESYNTAX;
			}
			c = in[i + 1];
			if (c == 'u') {
				long cp = hex4(in, s->len, i + 2);

				if (cp < 0) {
					s->pos = i;
					return JSON_ESYNTAX;
				}
				i += 6;
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					s->pos = i - 6;
					return JSON_ESURROGATE; /* a low half first */
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					long lo = -1;

					if (i + 1 < s->len && in[i] == '\\' && in[i + 1] == 'u')
						lo = hex4(in, s->len, i + 2);
					if (lo < 0xdc00 || lo > 0xdfff) {
						s->pos = i - 6;
						return JSON_ESURROGATE; /* a high half alone */
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				}
				k = utf8_put((unsigned long)cp, b);
			} else if (c && (e = strchr(ESC, c))) {
				b[0] = (unsigned char)VAL[e - ESC];
				k = 1;
				i += 2;
			} else {
				s->pos = i;
				return JSON_ESYNTAX;
			}
		} else {
			k = utf8_len(in + i, s->len - i);
			if (!k) {
				s->pos = i;
				return JSON_EUTF8;
			}
			memcpy(b, in + i, k);
			i += k;
		}
		if (dec) {
			if (n + k > max) {
				s->pos = i;
				return JSON_EPATH;
			}
			memcpy(dec + n, b, k);
		}
		for (size_t j = 0; j < k; j++)
			h = (h ^ b[j]) * 1099511628211ULL;
		n += k;
	}
	*end = i;
	s->pos = i + 1;
	if (dec) {
		*dlen = n;
		*hash = h;
	}
	return JSON_OK;
}

static void ws(struct scan *s)
{
	while (s->pos < s->len && (s->in[s->pos] == ' ' || s->in[s->pos] == '\t' ||
				   s->in[s->pos] == '\n' || s->in[s->pos] == '\r'))
		s->pos++;
}

static int digits(struct scan *s)
{
	size_t from = s->pos;

	while (s->pos < s->len && s->in[s->pos] >= '0' && s->in[s->pos] <= '9')
		s->pos++;
	return s->pos > from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct scan *s)
{
	if (s->pos < s->len && s->in[s->pos] == '-')
		s->pos++;
	if (s->pos < s->len && s->in[s->pos] == '0')
		s->pos++;
	else if (!digits(s))
		return JSON_ESYNTAX;
	if (s->pos < s->len && s->in[s->pos] == '.') {
		s->pos++;
		if (!digits(s))
			return JSON_ESYNTAX;
	}
	if (s->pos < s->len && (s->in[s->pos] == 'e' || s->in[s->pos] == 'E')) {
		s->pos++;
		if (s->pos < s->len && (s->in[s->pos] == '+' || s->in[s->pos] == '-'))
			s->pos++;
		if (!digits(s))
			return JSON_ESYNTAX;
	}
	return JSON_OK;
}

static int report(struct scan *s, enum json_kind kind, size_t start, size_t end, int escaped)
{
	struct json_value v = { s->path, s->plen, kind, start, end, escaped };

	return s->fn && s->fn(&v, s->arg) ? JSON_ESTOP : JSON_OK;
}

/* Whether two keys' raw spans decode to the same bytes. */
static int same_key(struct scan *s, const struct key *a, const struct key *b)
{
	char da[JSON_MAX_PATH], db[JSON_MAX_PATH];
	size_t la = sizeof(da), lb = sizeof(db), st, en, pos = s->pos;
	uint64_t h;
	int esc, same;

	/* Both were decoded once already: this cannot fail. */
	s->pos = a->start - 1;
	string(s, &st, &en, &esc, da, &la, &h);
	s->pos = b->start - 1;
	string(s, &st, &en, &esc, db, &lb, &h);
	s->pos = pos;
	same = la == lb && !memcmp(da, db, la);
	return same;
}

static int value(struct scan *s, int depth);

static int object(struct scan *s, int depth)
{
	size_t base = s->plen, first = s->nkeys;
	int err;

	s->pos++; /* '{' */
	ws(s);
	if (s->pos < s->len && s->in[s->pos] == '}') {
		s->pos++;
		return JSON_OK;
	}
	for (;;) {
		size_t st, en, dlen, at = base ? base + 1 : base;
		struct key *k;
		uint64_t h;
		int esc;

		if (s->pos >= s->len || s->in[s->pos] != '"')
			return JSON_ESYNTAX;
		if (at > sizeof(s->path))
			return JSON_EPATH;
		dlen = sizeof(s->path) - at;
		err = string(s, &st, &en, &esc, s->path + at, &dlen, &h);
		if (err)
			return err;
		if (s->nkeys == JSON_MAX_KEYS) {
			s->pos = st - 1;
			return JSON_EKEYS;
		}
		k = &s->keys[s->nkeys];
		*k = (struct key){ h, (uint32_t)st, (uint32_t)en };
		for (size_t j = first; j < s->nkeys; j++)
			if (s->keys[j].hash == h && same_key(s, &s->keys[j], k)) {
				s->pos = st - 1;
				return JSON_EDUP;
			}
		s->nkeys++;
		if (base)
			s->path[base] = '.';
		s->plen = at + dlen;
		ws(s);
		if (s->pos >= s->len || s->in[s->pos] != ':')
			return JSON_ESYNTAX;
		s->pos++;
		err = value(s, depth);
		if (err)
			return err;
		s->plen = base;
		ws(s);
		if (s->pos < s->len && s->in[s->pos] == ',') {
			s->pos++;
			ws(s);
			continue;
		}
		if (s->pos < s->len && s->in[s->pos] == '}') {
			s->pos++;
			s->nkeys = first; /* this object's keys are done with */
			return JSON_OK;
		}
		return JSON_ESYNTAX;
	}
}

static int array(struct scan *s, int depth)
{
	size_t base = s->plen;
	unsigned long n = 0;
	int err;

	s->pos++; /* '[' */
	ws(s);
	if (s->pos < s->len && s->in[s->pos] == ']') {
		s->pos++;
		return JSON_OK;
	}
	for (;;) {
		char idx[24];
		size_t k = 0;
		unsigned long v = n++;

		/* "[N]", the digits written backwards then turned. */
		do {
			idx[k++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		if (base + k + 2 > sizeof(s->path))
			return JSON_EPATH;
		s->path[base] = '[';
		for (size_t j = 0; j < k; j++)
			s->path[base + 1 + j] = idx[k - 1 - j];
		s->path[base + 1 + k] = ']';
		s->plen = base + k + 2;
		err = value(s, depth);
		if (err)
			return err;
		s->plen = base;
		ws(s);
		if (s->pos < s->len && s->in[s->pos] == ',') {
			s->pos++;
			continue;
		}
		if (s->pos < s->len && s->in[s->pos] == ']') {
			s->pos++;
			return JSON_OK;
		}
		return JSON_ESYNTAX;
	}
}

static int value(struct scan *s, int depth)
{
	static const struct {
		const char *word;
		enum json_kind kind;
	} WORDS[] = { { "true", JSON_TRUE }, { "false", JSON_FALSE }, { "null", JSON_NULL } };
	size_t st, en;
	int esc, err;
	unsigned char c;

	ws(s);
	if (s->pos >= s->len)
		return JSON_ESYNTAX;
	c = s->in[s->pos];
	if (c == '{' || c == '[') {
		if (depth == JSON_MAX_DEPTH)
			return JSON_EDEPTH;
		return c == '{' ? object(s, depth + 1) : array(s, depth + 1);
	}
	if (c == '"') {
		err = string(s, &st, &en, &esc, NULL, NULL, NULL);
		return err ? err : report(s, JSON_STRING, st, en, esc);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		st = s->pos;
		err = number(s);
		return err ? err : report(s, JSON_NUMBER, st, s->pos, 0);
	}
	for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++) {
		size_t n = strlen(WORDS[i].word);

		if (s->len - s->pos >= n && !memcmp(s->in + s->pos, WORDS[i].word, n)) {
			st = s->pos;
			s->pos += n;
			return report(s, WORDS[i].kind, st, s->pos, 0);
		}
	}
	return JSON_ESYNTAX;
}

int json_scan(const char *in, size_t len, json_scan_fn fn, void *arg, size_t *at)
{
	struct scan s;
	int err;

	s.in = (const unsigned char *)in;
	s.len = len;
	s.pos = 0;
	s.fn = fn;
	s.arg = arg;
	s.plen = 0;
	s.nkeys = 0;
	if (len > JSON_MAX_INPUT) {
		err = JSON_ETOOBIG;
		s.pos = JSON_MAX_INPUT;
	} else {
		err = value(&s, 0);
		if (!err) {
			ws(&s);
			if (s.pos != len)
				err = JSON_ESYNTAX; /* something after the value */
		}
	}
	if (at)
		*at = s.pos;
	return err;
}
