// UNIT: lib/json_scan.c lib/phantom_shape.c lib/phantom_shape_of.c
// UNIT: lib/login_profile_parse.c lib/login_profile_text.c lib/login_role_name.c lib/policy_name_ok.c
// UNIT: lib/login_file_ok.c
// UNIT: lib/login_refresh_request.c lib/login_refresh_response.c lib/login_refresh_holds.c
// UNIT: lib/login_refresh_file.c lib/login_refresh_strerror.c
// UNIT: lib/http_repl_init.c lib/http_repl_scan.c
/*
 * Unit tests of the refresh at the gateway: the token endpoint's request
 * with the real refresh token swapped in (the three CLIs' bodies, and what
 * a hostile agent would send), the answer's new tokens turned into
 * phantoms (and what a hostile endpoint would answer), and the login file
 * the store gets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "login.h"

static struct login_refresh_work W;
static char OUT[JSON_MAX_INPUT + 1];

/* Fixed "random" bytes: a counter. */
static void counter(uint8_t *buf, size_t n, void *arg)
{
	uint8_t *c = arg;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)((*c)++ * 37 + 11);
}

static void profile(const char *name, struct login_profile *p)
{
	const char *t = login_profile_text(name), *why;
	size_t line;

	assert_int_equal(login_profile_parse(t, strlen(t), p, &line, &why), 0);
}

/* The session's tokens: reals, and phantoms made as the gateway makes them. */
#define CLAUDE_RT  "sk-ant-ort01-Kq8fJ2mXw9Lp4Rt7Vb3Nc6Hd1Gs5Fa0Ze8Yu2Io4Pq6Wr9Tx3Mv7Bn1Lk5Jh8"
#define CLAUDE_RT2 "sk-ant-ort01-Zz1yY2xX3wW4vV5uU6tT7sS8rR9qQ0pP1oO2nN3mM4lL5kK6jJ7iI8hH9gG0fF"
#define CLAUDE_AT  "sk-ant-oat01-Aa1bB2cC3dD4eE5fF6gG7hH8iI9jJ0kK1lL2mM3nN4oO5pP6qQ7rR8sS9tT0u"
#define GEMINI_RT  "1//0gJk3Lm9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8Qw1Er4Ty7Ui0Op3As6Df9G"
#define GEMINI_AT  "ya29.a0AfB_byC1d2E3f4G5h6I7j8K9l0M1n2O3p4Q5r6S7t8U9v0W1x2Y3z4A5b6C7d8E9"
#define JWT_HEAD   "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
#define JWT_CLAIMS "eyJleHAiOjE3NjUwMDAwMDAsImNoYXRncHRfcGxhbiI6InBsdXMifQ"
#define CODEX_AT   JWT_HEAD "." JWT_CLAIMS ".c2lnbmF0dXJlLW9mLXRoZS1hY2Nlc3MtdG9rZW4tMTIzNDU2"
#define CODEX_ID   JWT_HEAD "." JWT_CLAIMS ".c2lnbmF0dXJlLW9mLXRoZS1pZC10b2tlbi0xMjM0NTY3ODkw"
#define CODEX_RT   "rt_Hk2Jd8Lq5Wm1Xn7Pz3Rv9Tb4Yc6Fg0Sa2De8Qh5Ku1Mw7Np3Bj9Lx4Vz6Gc0Ty2Rf8"

struct session {
	struct login_pair pair[8];
	char ph[8][512];
	size_t n;
	uint8_t seed;
};

static const struct login_pair *add(struct session *s, enum login_role role, const char *real)
{
	struct login_pair *p = &s->pair[s->n];

	memset(s->ph[s->n], 0, sizeof(s->ph[0]));
	assert_int_equal(phantom_shape(real, strlen(real), s->ph[s->n], counter, &s->seed),
			 PHANTOM_OK);
	*p = (struct login_pair){ role, real, s->ph[s->n], strlen(real) };
	s->n++;
	return p;
}

/* fmt's copy with each "@K@" replaced by pair K's phantom (K in 0-7). */
static size_t body(char *buf, size_t size, const char *fmt, const struct session *s)
{
	size_t n = 0;

	for (const char *c = fmt; *c;) {
		if (c[0] == '@' && c[1] >= '0' && c[1] <= '7' && c[2] == '@') {
			const struct login_pair *p = &s->pair[c[1] - '0'];

			assert_true(n + p->len < size);
			memcpy(buf + n, p->phantom, p->len);
			n += p->len;
			c += 3;
		} else {
			assert_true(n + 1 < size);
			buf[n++] = *c++;
		}
	}
	buf[n] = 0;
	return n;
}

static int request(const struct login_profile *p, const char *ctype, const char *in, size_t len,
		   const struct session *s, size_t *used)
{
	int jerr;

	memset(OUT, 0, sizeof(OUT));
	return login_refresh_request(p, ctype, ctype ? strlen(ctype) : 0, in, len, s->pair, s->n,
				     OUT, used, &W, &jerr);
}

/* ---- the request ---- */

static void test_request_claude(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 1 };
	char in[1024], want[1024];
	const char *fmt = "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"@1@\","
			  "\"client_id\":\"9d1c250a-e61b-44d9-88ed-5944d1962f5e\","
			  "\"scope\":\"user:profile user:inference user:sessions:claude_code\"}";
	size_t n, used = 99;

	(void)state;
	profile("claude", &p);
	add(&s, LOGIN_ACCESS, CLAUDE_AT);
	add(&s, LOGIN_REFRESH, CLAUDE_RT);
	n = body(in, sizeof(in), fmt, &s);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_OK);
	assert_int_equal(used, 1);
	/* The same length (the head's Content-Length stays), the real in the field only. */
	snprintf(want, sizeof(want),
		 "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"%s\","
		 "\"client_id\":\"9d1c250a-e61b-44d9-88ed-5944d1962f5e\","
		 "\"scope\":\"user:profile user:inference user:sessions:claude_code\"}",
		 CLAUDE_RT);
	assert_int_equal(strlen(want), n);
	assert_memory_equal(OUT, want, n);
	assert_int_equal(OUT[n], 0);

	/* A second refresh in the session: its phantom maps to the newer real. */
	add(&s, LOGIN_REFRESH, CLAUDE_RT2);
	fmt = "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"@2@\"}";
	n = body(in, sizeof(in), fmt, &s);
	assert_int_equal(request(&p, "Application/JSON; charset=UTF-8", in, n, &s, &used),
			 LOGIN_REFRESH_OK);
	assert_int_equal(used, 2);
	snprintf(want, sizeof(want), "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"%s\"}",
		 CLAUDE_RT2);
	assert_int_equal(strlen(want), n);
	assert_memory_equal(OUT, want, n);
}

static void test_request_codex(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 7 };
	char in[1024], want[1024];
	size_t n, used = 99;

	(void)state;
	profile("codex", &p);
	add(&s, LOGIN_ID, CODEX_ID);
	add(&s, LOGIN_ACCESS, CODEX_AT);
	add(&s, LOGIN_REFRESH, CODEX_RT);
	n = body(in, sizeof(in),
		 "{\n  \"client_id\": \"app_EMoamEEZ73f0CkXaXp7hrann\",\n  \"grant_type\": "
		 "\"refresh_token\",\n  \"refresh_token\": \"@2@\"\n}",
		 &s);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_OK);
	assert_int_equal(used, 2);
	snprintf(want, sizeof(want),
		 "{\n  \"client_id\": \"app_EMoamEEZ73f0CkXaXp7hrann\",\n  \"grant_type\": "
		 "\"refresh_token\",\n  \"refresh_token\": \"%s\"\n}",
		 CODEX_RT);
	assert_int_equal(strlen(want), n);
	assert_memory_equal(OUT, want, n);
}

/* What URLSearchParams writes: '/' as %2F (or %2f, kept as it came). */
static void test_request_gemini(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 3 };
	char in[1024], want[1024], enc[256];
	size_t n, used = 99, k = 0;
	const struct login_pair *rt;
	static const char *const CTYPES[] = {
		"application/x-www-form-urlencoded",
		"application/x-www-form-urlencoded;charset=UTF-8",
		" application/x-www-form-urlencoded ; charset=\"utf-8\" ",
	};

	(void)state;
	profile("gemini", &p);
	add(&s, LOGIN_ACCESS, GEMINI_AT);
	rt = add(&s, LOGIN_REFRESH, GEMINI_RT);
	/* The phantom keeps the real's "//", so both encode to the same length. */
	assert_memory_equal(rt->phantom + 1, "//", 2);
	for (size_t i = 0; i < rt->len; i++)
		k += (size_t)snprintf(enc + k, sizeof(enc) - k,
				      rt->phantom[i] == '/' ? "%%2F" : "%c", rt->phantom[i]);
	for (size_t c = 0; c < 3; c++) {
		n = (size_t)snprintf(
		    in, sizeof(in),
		    "refresh_token=%s&client_id=681255809395-oo8ft2oprdrnp9e3aqf6av3h"
		    "mdib135j.apps.googleusercontent.com&client_secret=GOCSPX-4uHgMPm"
		    "-1o7Sk-geV6Cu5clXFsxl&grant_type=refresh_token",
		    enc);
		assert_int_equal(request(&p, CTYPES[c], in, n, &s, &used), LOGIN_REFRESH_OK);
		assert_int_equal(used, 1);
		snprintf(want, sizeof(want),
			 "refresh_token=1%%2F%%2F%s&client_id=681255809395-oo8ft2oprdrnp9e3aqf6av3h"
			 "mdib135j.apps.googleusercontent.com&client_secret=GOCSPX-4uHgMPm"
			 "-1o7Sk-geV6Cu5clXFsxl&grant_type=refresh_token",
			 GEMINI_RT + 3);
		assert_int_equal(strlen(want), n);
		assert_memory_equal(OUT, want, n);
	}
	/* Lower-case escapes stay lower-case; a phantom letter written %HH gets the real's %HH. */
	for (size_t i = 0; enc[i]; i++)
		if (enc[i] == 'F' && i > 1 && enc[i - 2] == '%')
			enc[i] = 'f';
	n = (size_t)snprintf(in, sizeof(in), "grant_type=refresh_token&refresh_token=%.*s%%%02X%s",
			     (int)(strlen(enc) - 1), enc, (unsigned char)rt->phantom[rt->len - 1],
			     "");
	assert_int_equal(request(&p, CTYPES[0], in, n, &s, &used), LOGIN_REFRESH_OK);
	snprintf(want, sizeof(want), "grant_type=refresh_token&refresh_token=1%%2f%%2f%.*s%%%02X",
		 (int)(rt->len - 4), GEMINI_RT + 3, (unsigned char)GEMINI_RT[rt->len - 1]);
	assert_int_equal(strlen(want), n);
	assert_memory_equal(OUT, want, n);
}

/* A client that encodes every byte, lower-case: the real is written so too. */
static void test_request_form_encoded(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 3 };
	char in[1024], want[1024];
	size_t n, k, used;
	const struct login_pair *rt;
	struct login_pair odd;

	(void)state;
	profile("gemini", &p);
	rt = add(&s, LOGIN_REFRESH, GEMINI_RT);
	n = k = (size_t)snprintf(in, sizeof(in), "refresh_token=");
	memcpy(want, in, n);
	for (size_t i = 0; i < rt->len; i++) {
		n += (size_t)snprintf(in + n, sizeof(in) - n, "%%%02x",
				      (unsigned char)rt->phantom[i]);
		k += (size_t)snprintf(want + k, sizeof(want) - k, "%%%02x",
				      (unsigned char)rt->real[i]);
	}
	assert_int_equal(request(&p, "application/x-www-form-urlencoded", in, n, &s, &used),
			 LOGIN_REFRESH_OK);
	assert_int_equal(k, n);
	assert_memory_equal(OUT, want, n);
	/* A real byte that a literal phantom byte cannot stand for: refused, never longer. */
	odd = *rt;
	odd.real = "1/+0gJk3Lm9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8Qw1Er4Ty7Ui0Op3As6Df9G";
	odd.phantom = "1/a0gJk3Lm9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8Qw1Er4Ty7Ui0Op3As6Df9H";
	s.pair[0] = odd;
	n = (size_t)snprintf(in, sizeof(in), "refresh_token=1%%2Fa%s", odd.phantom + 3);
	assert_int_equal(request(&p, "application/x-www-form-urlencoded", in, n, &s, &used),
			 LOGIN_REFRESH_EENCODE);
}

static void test_request_ctype(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 1 };
	char in[512];
	size_t n, used;
	static const char *const BAD[] = {
		"text/plain",
		"application/json, text/plain", /* two types in one value */
		"application/json; charset=latin1",
		"application/json; charset=utf-8; x=y",
		"application/jsonx",
		"application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x",
		"",
		NULL,
	};

	(void)state;
	profile("claude", &p);
	add(&s, LOGIN_REFRESH, CLAUDE_RT);
	n = body(in, sizeof(in), "{\"refresh_token\":\"@0@\"}", &s);
	for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++)
		assert_int_equal(request(&p, BAD[i], in, n, &s, &used), LOGIN_REFRESH_ECTYPE);
	assert_int_equal(request(&p, "application/json;charset=\"utf-8\"", in, n, &s, &used),
			 LOGIN_REFRESH_OK);
	/* A form profile takes no JSON. */
	profile("gemini", &p);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_ECTYPE);
	/* A profile without a token endpoint swaps nothing. */
	p.token_body = LOGIN_BODY_NONE;
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_ENOTOKEN);
}

/* The agent's forgeries: each refused, with its reason. */
static void test_request_hostile_json(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 5 };
	char in[1024], esc[512];
	size_t n, used;
	const struct login_pair *rt;
	static const struct {
		const char *fmt;
		int err;
	} CASES[] = {
		/* Sent twice to the field, or a second field holding it. */
		{ "{\"refresh_token\":\"@1@\",\"refresh_token\":\"@1@\"}", LOGIN_REFRESH_EDUP },
		{ "{\"refresh_token\":\"@1@\",\"refresh\\u005ftoken\":\"@1@\"}",
		  LOGIN_REFRESH_EDUP },
		{ "{\"refresh\\u005ftoken\":\"@1@\"}", LOGIN_REFRESH_EKEY },
		{ "{\"refresh_token\":\"@1@\",\"token\":\"@1@\"}", LOGIN_REFRESH_ESTRAY },
		{ "{\"refresh_token\":\"@1@\",\"x\":{\"refresh_token\":\"@1@\"}}",
		  LOGIN_REFRESH_ESTRAY },
		{ "{\"refresh_token\":\"@1@\",\"@1@\":1}", LOGIN_REFRESH_ESTRAY },
		/* Forged extra fields holding another known phantom. */
		{ "{\"refresh_token\":\"@1@\",\"access_token\":\"@0@\"}", LOGIN_REFRESH_ESTRAY },
		{ "{\"refresh_token\":\"@1@\",\"redirect\":\"https://x.example/?t=@0@\"}",
		  LOGIN_REFRESH_ESTRAY },
		/* The field holding something else. */
		{ "{\"refresh_token\":\"@0@\"}", LOGIN_REFRESH_ENOTPHANTOM },
		{ "{\"refresh_token\":\"@1@x\"}", LOGIN_REFRESH_ENOTPHANTOM },
		{ "{\"refresh_token\":\"sk-ant-ort01-guess\"}", LOGIN_REFRESH_ENOTPHANTOM },
		{ "{\"refresh_token\":[\"@1@\"]}", LOGIN_REFRESH_EMISSING },
		{ "{\"refresh_token\":1}", LOGIN_REFRESH_ENOTSTR },
		{ "{\"x\":{\"refresh_token\":\"@1@\"}}", LOGIN_REFRESH_EMISSING },
		{ "[\"@1@\"]", LOGIN_REFRESH_EMISSING },
		{ "{}", LOGIN_REFRESH_EMISSING },
		/* Not strict JSON. */
		{ "{\"refresh_token\":\"@1@\"} {}", LOGIN_REFRESH_EJSON },
		{ "{\"refresh_token\":\"@1@\",}", LOGIN_REFRESH_EJSON },
		{ "{'refresh_token':'@1@'}", LOGIN_REFRESH_EJSON },
		{ "", LOGIN_REFRESH_EJSON },
	};

	(void)state;
	profile("claude", &p);
	add(&s, LOGIN_ACCESS, CLAUDE_AT);
	rt = add(&s, LOGIN_REFRESH, CLAUDE_RT);
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		n = body(in, sizeof(in), CASES[i].fmt, &s);
		if (request(&p, "application/json", in, n, &s, &used) != CASES[i].err)
			fail_msg("case %zu: %s", i,
				 login_refresh_strerror(
				     request(&p, "application/json", in, n, &s, &used)));
	}
	/* The phantom escaped in the field: the server would read what the gateway did not. */
	n = (size_t)snprintf(in, sizeof(in), "{\"refresh_token\":\"\\u0073%s\"}", rt->phantom + 1);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_EESCAPE);
	/* Elsewhere, \u-escaped, percent-encoded, upper-cased, in base64: still the phantom. */
	n = 0;
	for (size_t i = 0; i < rt->len; i++)
		n += (size_t)snprintf(esc + n, sizeof(esc) - n, "\\u%04x",
				      (unsigned char)rt->phantom[i]);
	n = body(in, sizeof(in), "{\"refresh_token\":\"@1@\",\"x\":\"", &s);
	n += (size_t)snprintf(in + n, sizeof(in) - n, "%s\"}", esc);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_ESTRAY);
	n = body(in, sizeof(in), "{\"refresh_token\":\"@1@\",\"x\":\"", &s);
	for (size_t i = 0; i < rt->len; i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "%%%02X",
				      (unsigned char)rt->phantom[i]);
	n += (size_t)snprintf(in + n, sizeof(in) - n, "\"}");
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_ESTRAY);
	n = body(in, sizeof(in), "{\"refresh_token\":\"@1@\",\"x\":\"", &s);
	sodium_bin2base64(in + n, sizeof(in) - n, (const unsigned char *)rt->phantom, rt->len,
			  sodium_base64_VARIANT_ORIGINAL);
	n += strlen(in + n);
	n += (size_t)snprintf(in + n, sizeof(in) - n, "\"}");
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_ESTRAY);
	/* A field named with a '.' (a profile may): the key and a nesting make one path. */
	strcpy(p.token_field, "a.b");
	n = body(in, sizeof(in), "{\"a.b\":\"@1@\",\"a\":{\"b\":\"x\"}}", &s);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_EDUP);
	n = body(in, sizeof(in), "{\"a\":{\"b\":\"@1@\"}}", &s);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_EKEY);
	n = body(in, sizeof(in), "{\"a.b\":\"@1@\"}", &s);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_OK);
	/* Too long for the gateway to hold. */
	assert_int_equal(login_refresh_request(&p, "application/json", 16, in, JSON_MAX_INPUT + 1,
					       s.pair, s.n, OUT, &used, &W, &(int){ 0 }),
			 LOGIN_REFRESH_ETOOBIG);
}

static void test_request_hostile_form(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 9 };
	char in[8192];
	size_t n, used;
	static const struct {
		const char *fmt;
		int err;
	} CASES[] = {
		{ "refresh_token=@1@&refresh_token=@1@", LOGIN_REFRESH_EDUP },
		{ "refresh_token=@1@&refresh%5Ftoken=@1@", LOGIN_REFRESH_EDUP },
		{ "refresh_token=@1@&refresh%5ftoken=x", LOGIN_REFRESH_EDUP },
		{ "a=1&b=2&a=3&refresh_token=@1@", LOGIN_REFRESH_EDUP },
		{ "refresh%5Ftoken=@1@", LOGIN_REFRESH_EKEY },
		{ "refresh_token=@1@&token=@1@", LOGIN_REFRESH_ESTRAY },
		{ "refresh_token=@1@&access_token=@0@", LOGIN_REFRESH_ESTRAY },
		{ "refresh_token=@0@", LOGIN_REFRESH_ENOTPHANTOM },
		{ "refresh_token=", LOGIN_REFRESH_ENOTPHANTOM },
		{ "grant_type=refresh_token", LOGIN_REFRESH_EMISSING },
		{ "", LOGIN_REFRESH_EMISSING },
		/* Not a clean form: another separator, a bare name, a bad escape, raw bytes. */
		{ "refresh_token=@1@;x=1", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&", LOGIN_REFRESH_EFORM },
		{ "&refresh_token=@1@", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&=x", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x=a=b", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x=%2", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x=%zz", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x=a b", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@&x={}", LOGIN_REFRESH_EFORM },
		{ "refresh_token=@1@\r\n", LOGIN_REFRESH_EFORM },
	};

	(void)state;
	profile("gemini", &p);
	add(&s, LOGIN_ACCESS, GEMINI_AT);
	add(&s, LOGIN_REFRESH, CLAUDE_RT); /* no '/': the phantom goes as it is */
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		int err;

		n = body(in, sizeof(in), CASES[i].fmt, &s);
		err = request(&p, "application/x-www-form-urlencoded", in, n, &s, &used);
		if (err != CASES[i].err)
			fail_msg("case %zu: %s", i, login_refresh_strerror(err));
	}
	/* The phantom percent-encoded in another parameter. */
	n = body(in, sizeof(in), "refresh_token=@1@&x=", &s);
	for (size_t i = 0; i < s.pair[1].len; i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "%%%02x",
				      (unsigned char)s.pair[1].phantom[i]);
	assert_int_equal(request(&p, "application/x-www-form-urlencoded", in, n, &s, &used),
			 LOGIN_REFRESH_ESTRAY);
	/* More parameters than a refresh sends. */
	n = body(in, sizeof(in), "refresh_token=@1@", &s);
	for (int i = 0; i < LOGIN_REFRESH_MAX_PARAMS; i++)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "&p%d=1", i);
	assert_int_equal(request(&p, "application/x-www-form-urlencoded", in, n, &s, &used),
			 LOGIN_REFRESH_EFORM);
}

/*
 * The gateway buffers the body until it ends: a part of one is never
 * passed. Were it passed, a JSON part is refused at every cut; a form
 * part too, but for the cuts after the field's value, which read as a
 * whole form (with the last value cut short): hence the rule.
 */
static void test_request_parts(void **state)
{
	struct login_profile p;
	struct session s = { .seed = 2 };
	char in[1024];
	size_t n, used, at;

	(void)state;
	profile("claude", &p);
	add(&s, LOGIN_REFRESH, CLAUDE_RT);
	n = body(in, sizeof(in), "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"@0@\"}",
		 &s);
	for (size_t k = 0; k < n; k++)
		assert_int_not_equal(request(&p, "application/json", in, k, &s, &used),
				     LOGIN_REFRESH_OK);
	assert_int_equal(request(&p, "application/json", in, n, &s, &used), LOGIN_REFRESH_OK);
	profile("gemini", &p);
	n = body(in, sizeof(in), "refresh_token=@0@&grant_type=refresh_token", &s);
	at = strlen("refresh_token=") + s.pair[0].len;
	for (size_t k = 0; k < n; k++)
		assert_int_equal(request(&p, "application/x-www-form-urlencoded", in, k, &s,
					 &used) == LOGIN_REFRESH_OK,
				 k == at || k >= at + strlen("&grant_type="));
}

/* ---- the response ---- */

static int response(const char *in, size_t len, const struct session *s, struct login_pair *fresh,
		    size_t *nfresh, int64_t *expires_in)
{
	uint8_t seed = 77;
	int jerr;

	memset(OUT, 0, sizeof(OUT));
	return login_refresh_response(in, len, s->pair, s->n, OUT, fresh, nfresh, expires_in,
				      counter, &seed, &W, &jerr);
}

/* out equals in but at the fresh tokens' spans, which hold phantoms of the same shape. */
static void check_fresh(const char *in, size_t len, const struct login_pair *fresh, size_t n)
{
	for (size_t i = 0; i < len; i++) {
		int inside = 0;

		for (size_t k = 0; k < n; k++)
			inside |= i >= (size_t)(fresh[k].real - in) &&
				  i < (size_t)(fresh[k].real - in) + fresh[k].len;
		if (!inside)
			assert_int_equal(OUT[i], in[i]);
	}
	for (size_t k = 0; k < n; k++) {
		assert_ptr_equal(fresh[k].phantom, OUT + (fresh[k].real - in));
		assert_memory_not_equal(fresh[k].phantom, fresh[k].real, fresh[k].len);
		assert_int_equal(phantom_shape_of(fresh[k].phantom, fresh[k].len),
				 phantom_shape_of(fresh[k].real, fresh[k].len));
		assert_null(memmem(OUT, len, fresh[k].real, fresh[k].len));
	}
}

static void test_response_claude(void **state)
{
	struct session s = { .seed = 4 };
	struct login_pair fresh[LOGIN_NUM_ROLES];
	size_t nf;
	int64_t exp;
	char in[2048];
	size_t n;

	(void)state;
	add(&s, LOGIN_ACCESS, CLAUDE_AT);
	add(&s, LOGIN_REFRESH, CLAUDE_RT);
	n = (size_t)snprintf(
	    in, sizeof(in),
	    "{\"token_type\":\"Bearer\",\"access_token\":\"%s\",\"expires_in\":28800,"
	    "\"refresh_token\":\"%s\",\"scope\":\"user:inference user:profile\","
	    "\"organization\":{\"uuid\":\"0d6a3c2e-1b7f-4f4e-9c2a-8b5d7e6f1a2b\","
	    "\"name\":\"x\"},\"account\":{\"uuid\":\"5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c\","
	    "\"email_address\":\"a@example.org\"}}",
	    CLAUDE_AT "x", CLAUDE_RT2);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	assert_int_equal(nf, 2);
	assert_int_equal(fresh[0].role, LOGIN_ACCESS);
	assert_int_equal(fresh[0].len, strlen(CLAUDE_AT) + 1);
	assert_memory_equal(fresh[0].real, CLAUDE_AT "x", fresh[0].len);
	assert_int_equal(fresh[1].role, LOGIN_REFRESH);
	assert_memory_equal(fresh[1].real, CLAUDE_RT2, fresh[1].len);
	assert_memory_equal(fresh[1].phantom, "sk-ant-ort01-", 13);
	assert_int_equal(exp, 28800);
	check_fresh(in, n, fresh, nf);
	assert_null(memmem(OUT, n, CLAUDE_RT, strlen(CLAUDE_RT)));
}

static void test_response_codex_gemini(void **state)
{
	struct session s = { .seed = 4 };
	struct login_pair fresh[LOGIN_NUM_ROLES];
	size_t nf;
	int64_t exp;
	char in[2048];
	size_t n;

	(void)state;
	add(&s, LOGIN_ACCESS, CODEX_AT);
	add(&s, LOGIN_REFRESH, CODEX_RT);
	add(&s, LOGIN_ID, CODEX_ID);
	/* New ones: the signatures differ (a JWT's phantom keeps header and claims). */
	n = (size_t)snprintf(in, sizeof(in),
			     "{\"id_token\":\"%sA\",\"access_token\":\"%sB\",\"refresh_token\":"
			     "\"%sC\",\"token_type\":\"Bearer\",\"expires_in\":864000}",
			     CODEX_ID, CODEX_AT, CODEX_RT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	assert_int_equal(nf, 3);
	assert_int_equal(fresh[0].role, LOGIN_ACCESS);
	assert_int_equal(fresh[1].role, LOGIN_REFRESH);
	assert_int_equal(fresh[2].role, LOGIN_ID);
	assert_memory_equal(fresh[2].phantom, JWT_HEAD "." JWT_CLAIMS ".",
			    strlen(JWT_HEAD JWT_CLAIMS) + 2);
	assert_int_equal(exp, 864000);
	check_fresh(in, n, fresh, nf);

	/* Google keeps its refresh token: none in the answer; the id_token when asked. */
	s.n = 0;
	add(&s, LOGIN_ACCESS, GEMINI_AT);
	add(&s, LOGIN_REFRESH, GEMINI_RT);
	n = (size_t)snprintf(
	    in, sizeof(in),
	    "{\n  \"access_token\": \"%s9\",\n  \"expires_in\": 3599,\n  \"scope\": "
	    "\"openid https://www.googleapis.com/auth/cloud-platform\",\n  "
	    "\"token_type\": \"Bearer\",\n  \"id_token\": \"%s\"\n}",
	    GEMINI_AT, CODEX_ID);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	assert_int_equal(nf, 2);
	assert_int_equal(fresh[0].role, LOGIN_ACCESS);
	assert_int_equal(fresh[1].role, LOGIN_ID);
	assert_int_equal(exp, 3599);
	check_fresh(in, n, fresh, nf);

	/* A provider that answers the same refresh token: taken, as a new pair. */
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"refresh_token\":\"%s\"}",
			     GEMINI_AT, GEMINI_RT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	assert_int_equal(nf, 2);
	assert_int_equal(exp, -1);
	check_fresh(in, n, fresh, nf);
	/* Tokens that are not strings are no tokens; expires_in not whole seconds is none. */
	n = (size_t)snprintf(in, sizeof(in),
			     "{\"access_token\":null,\"id_token\":1,\"expires_in\":3.5e3}");
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	assert_int_equal(nf, 0);
	assert_int_equal(exp, -1);
	assert_memory_equal(OUT, in, n);
}

/* Writes the old real refresh token in one encoding into buf: its length. */
static size_t encode(char *buf, size_t size, int how, const char *v)
{
	size_t n = strlen(v), k = 0;
	char raw[512];

	switch (how) {
	case 0: /* as it is */
		return (size_t)snprintf(buf, size, "%s", v);
	case 1: /* upper-cased */
		for (; k < n; k++)
			buf[k] = (char)(v[k] >= 'a' && v[k] <= 'z' ? v[k] - 32 : v[k]);
		buf[k] = 0;
		return k;
	case 2: /* percent, every byte */
		for (size_t i = 0; i < n; i++)
			k += (size_t)snprintf(buf + k, size - k, "%%%02X", (unsigned char)v[i]);
		return k;
	case 3: /* \u, every other byte */
		for (size_t i = 0; i < n; i++)
			k += (size_t)snprintf(buf + k, size - k, i % 2 ? "%c" : "\\u%04x",
					      (unsigned char)v[i]);
		return k;
	case 4: /* '/' as \/ */
		for (size_t i = 0; i < n; i++)
			k += (size_t)snprintf(buf + k, size - k, v[i] == '/' ? "\\/" : "%c", v[i]);
		return k;
	default: /* base64 (std, url), after 0, 1 or 2 bytes of something else */
	{
		int a = (how - 5) % 3, url = (how - 5) / 3;

		memcpy(raw, "ab", (size_t)a);
		memcpy(raw + a, v, n);
		sodium_bin2base64(buf, size, (unsigned char *)raw, n + (size_t)a,
				  url ? sodium_base64_VARIANT_URLSAFE
				      : sodium_base64_VARIANT_ORIGINAL);
		return strlen(buf);
	}
	}
}

static void test_response_hostile(void **state)
{
	struct session s = { .seed = 4 };
	struct login_pair fresh[LOGIN_NUM_ROLES];
	size_t nf, n, k;
	int64_t exp;
	char in[4096], enc[1024];
	int jerr;

	(void)state;
	add(&s, LOGIN_ACCESS, GEMINI_AT);
	add(&s, LOGIN_REFRESH, GEMINI_RT);
	/* The old real refresh token echoed in another field, in each encoding. */
	for (int how = 0; how < 11; how++) {
		k = encode(enc, sizeof(enc), how, GEMINI_RT);
		n = (size_t)snprintf(in, sizeof(in),
				     "{\"access_token\":\"%s9\",\"refresh_token\":\"%sZ\","
				     "\"debug\":\"%.*s\"}",
				     GEMINI_AT, GEMINI_RT, (int)k, enc);
		if (response(in, n, &s, fresh, &nf, &exp) != LOGIN_REFRESH_EECHO)
			fail_msg("encoding %d: not refused", how);
		assert_int_equal(nf, 0);
		/* And in an error body, passed on only without a real in it. */
		n = (size_t)snprintf(
		    in, sizeof(in),
		    "{\"error\":\"invalid_grant\",\"error_description\":\"Bad token "
		    "%.*s\"}",
		    (int)k, enc);
		assert_int_equal(login_refresh_holds(in, n, s.pair, s.n, LOGIN_SIDE_REAL, &W), 1);
		n = (size_t)snprintf(in, sizeof(in), "<html><body>%.*s</body></html>", (int)k, enc);
		assert_int_equal(login_refresh_holds(in, n, s.pair, s.n, LOGIN_SIDE_REAL, &W), 1);
	}
	n = (size_t)snprintf(in, sizeof(in),
			     "{\"error\":\"invalid_grant\",\"error_description\":"
			     "\"Token has been expired or revoked.\"}");
	assert_int_equal(login_refresh_holds(in, n, s.pair, s.n, LOGIN_SIDE_REAL, &W), -1);
	/* The old access token, or the new one, echoed in another field. */
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"x\":\"%s\"}", GEMINI_AT,
			     GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EECHO);
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"x\":[\"%s9\"]}",
			     GEMINI_AT, GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EECHO);
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"%s9\":1}", GEMINI_AT,
			     GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EECHO);
	/* The old refresh token as the new access token: it would go out as a Bearer. */
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s\"}", GEMINI_RT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_ESWAP);
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"id_token\":\"%s9\"}",
			     GEMINI_AT, GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_ESWAP);
	/* A token escaped, a key twice, an escaped key making a second one, not JSON. */
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"\\u0079%s9\"}", GEMINI_AT + 1);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EESCAPE);
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"%s9\",\"access_token\":\"%s8\"}",
			     GEMINI_AT, GEMINI_AT);
	assert_int_equal(login_refresh_response(in, n, s.pair, s.n, OUT, fresh, &nf, &exp, counter,
						&(uint8_t){ 1 }, &W, &jerr),
			 LOGIN_REFRESH_EJSON);
	assert_int_equal(jerr, JSON_EDUP);
	n = (size_t)snprintf(in, sizeof(in),
			     "{\"access_token\":\"%s9\",\"access\\u005ftoken\":\"%s8\"}", GEMINI_AT,
			     GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EJSON);
	n = (size_t)snprintf(in, sizeof(in), "access_token=%s9", GEMINI_AT);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_EJSON);
	/* A token too short for a phantom the scrubber can look for. */
	n = (size_t)snprintf(in, sizeof(in), "{\"access_token\":\"ya29.short\"}");
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_ELEN);
	assert_int_equal(login_refresh_response(in, JSON_MAX_INPUT + 1, s.pair, s.n, OUT, fresh,
						&nf, &exp, counter, &(uint8_t){ 1 }, &W, &jerr),
			 LOGIN_REFRESH_ETOOBIG);
}

/*
 * A token split across reads: the gateway passes the body once whole, so
 * the reads' boundaries do not matter to what comes out. Were a part
 * passed, every part of an answer is refused: it is not JSON.
 */
static void test_response_parts(void **state)
{
	struct session s = { .seed = 4 };
	struct login_pair fresh[LOGIN_NUM_ROLES];
	size_t nf, n;
	int64_t exp;
	char in[1024], whole[1024], buf[1024];

	(void)state;
	add(&s, LOGIN_REFRESH, CLAUDE_RT);
	n = (size_t)snprintf(in, sizeof(in),
			     "{\"access_token\":\"%s\",\"refresh_token\":\"%s\",\"expires_in\":60}",
			     CLAUDE_AT, CLAUDE_RT2);
	assert_int_equal(response(in, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
	memcpy(whole, OUT, n);
	for (size_t k = 0; k < n; k++) {
		/* Two reads, cut at k, buffered, then the whole: the same bytes out. */
		memcpy(buf, in, k);
		memcpy(buf + k, in + k, n - k);
		assert_int_equal(response(buf, n, &s, fresh, &nf, &exp), LOGIN_REFRESH_OK);
		assert_memory_equal(OUT, whole, n);
		assert_int_equal(response(in, k, &s, fresh, &nf, &exp), LOGIN_REFRESH_EJSON);
	}
}

/* ---- the login file ---- */

static void test_file(void **state)
{
	struct login_profile p;
	struct login_pair fresh[3];
	char out[2048], want[2048];
	size_t n;
	const char *claude =
	    "{\"claudeAiOauth\":{\"accessToken\":\"" CLAUDE_AT "\",\"refreshToken\":\"" CLAUDE_RT
	    "\",\"expiresAt\":1765000000000,\"scopes\":[\"user:inference\"],"
	    "\"subscriptionType\":\"max\"}}";
	const char *gemini =
	    "{\n  \"access_token\": \"" GEMINI_AT "\",\n  \"refresh_token\": \"" GEMINI_RT
	    "\",\n  \"scope\": \"openid\",\n  \"token_type\": \"Bearer\",\n"
	    "  \"expiry_date\": 1765000000000\n}\n";
	const char *codex = "{\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\"" CODEX_ID
			    "\",\"access_token\":\"" CODEX_AT "\",\"refresh_token\":\"" CODEX_RT
			    "\",\"account_id\":\"acc\"},\"last_refresh\":\"2025-12-01T00:00:00Z\"}";

	(void)state;
	profile("claude", &p);
	fresh[0] =
	    (struct login_pair){ LOGIN_ACCESS, CLAUDE_AT "new", NULL, strlen(CLAUDE_AT) + 3 };
	fresh[1] = (struct login_pair){ LOGIN_REFRESH, CLAUDE_RT2, NULL, strlen(CLAUDE_RT2) };
	assert_int_equal(login_refresh_file(&p, claude, strlen(claude), fresh, 2, 28800, 1766000000,
					    out, sizeof(out), &n),
			 LOGIN_REFRESH_OK);
	snprintf(want, sizeof(want),
		 "{\"claudeAiOauth\":{\"accessToken\":\"%snew\",\"refreshToken\":\"%s\","
		 "\"expiresAt\":1766028800000,\"scopes\":[\"user:inference\"],"
		 "\"subscriptionType\":\"max\"}}",
		 CLAUDE_AT, CLAUDE_RT2);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	/* Too small an output; a file that is not JSON; a secret that is not a string. */
	assert_int_equal(login_refresh_file(&p, claude, strlen(claude), fresh, 2, 28800, 1766000000,
					    out, n - 1, &n),
			 LOGIN_REFRESH_ENOSPC);
	assert_int_equal(login_refresh_file(&p, claude, strlen(claude) - 1, fresh, 2, -1, 0, out,
					    sizeof(out), &n),
			 LOGIN_REFRESH_EFILE);
	assert_int_equal(login_refresh_file(&p, "{\"claudeAiOauth\":{\"accessToken\":1}}", 36,
					    fresh, 2, -1, 0, out, sizeof(out), &n),
			 LOGIN_REFRESH_EFILE);
	fresh[1].real = "sk-ant-ort01-\"quote";
	fresh[1].len = strlen(fresh[1].real);
	assert_int_equal(
	    login_refresh_file(&p, claude, strlen(claude), fresh, 2, -1, 0, out, sizeof(out), &n),
	    LOGIN_REFRESH_EESCAPE);

	/* gemini: the refresh token kept (none new), the id_token added, the expiry in ms. */
	profile("gemini", &p);
	fresh[0] = (struct login_pair){ LOGIN_ACCESS, GEMINI_AT "9", NULL, strlen(GEMINI_AT) + 1 };
	fresh[1] = (struct login_pair){ LOGIN_ID, CODEX_ID, NULL, strlen(CODEX_ID) };
	assert_int_equal(login_refresh_file(&p, gemini, strlen(gemini), fresh, 2, 3599, 1766000000,
					    out, sizeof(out), &n),
			 LOGIN_REFRESH_OK);
	snprintf(want, sizeof(want),
		 "{\n  \"access_token\": \"%s9\",\n  \"refresh_token\": \"%s\",\n  \"scope\": "
		 "\"openid\",\n  \"token_type\": \"Bearer\",\n  \"expiry_date\": 1766003599000,"
		 "\"id_token\":\"%s\"\n}\n",
		 GEMINI_AT, GEMINI_RT, CODEX_ID);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	/* No expires_in: the expiry stays. */
	assert_int_equal(login_refresh_file(&p, gemini, strlen(gemini), fresh, 1, -1, 1766000000,
					    out, sizeof(out), &n),
			 LOGIN_REFRESH_OK);
	assert_int_equal(n, strlen(gemini) + 1);
	assert_non_null(memmem(out, n, "1765000000000", 13));
	/* Into an empty object: no comma. */
	assert_int_equal(login_refresh_file(&p, "{ }", 3, fresh, 1, -1, 0, out, sizeof(out), &n),
			 LOGIN_REFRESH_OK);
	snprintf(want, sizeof(want), "{\"access_token\":\"%s9\" }", GEMINI_AT);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);

	/* codex: the three tokens, its expiry in the JWT itself, the rest as it was. */
	profile("codex", &p);
	fresh[0] = (struct login_pair){ LOGIN_REFRESH, CODEX_RT "x", NULL, strlen(CODEX_RT) + 1 };
	fresh[1] = (struct login_pair){ LOGIN_ID, CODEX_ID "y", NULL, strlen(CODEX_ID) + 1 };
	fresh[2] = (struct login_pair){ LOGIN_ACCESS, CODEX_AT "z", NULL, strlen(CODEX_AT) + 1 };
	assert_int_equal(login_refresh_file(&p, codex, strlen(codex), fresh, 3, 864000, 1766000000,
					    out, sizeof(out), &n),
			 LOGIN_REFRESH_OK);
	snprintf(
	    want, sizeof(want),
	    "{\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\"%sy\",\"access_token\":\"%sz\","
	    "\"refresh_token\":\"%sx\",\"account_id\":\"acc\"},"
	    "\"last_refresh\":\"2025-12-01T00:00:00Z\"}",
	    CODEX_ID, CODEX_AT, CODEX_RT);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e < LOGIN_REFRESH_NUM_ERR; e++)
		assert_string_not_equal(login_refresh_strerror(e), "unknown error");
	assert_string_equal(login_refresh_strerror(LOGIN_REFRESH_NUM_ERR), "unknown error");
	assert_string_equal(login_refresh_strerror(-1), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_claude),
		cmocka_unit_test(test_request_codex),
		cmocka_unit_test(test_request_gemini),
		cmocka_unit_test(test_request_form_encoded),
		cmocka_unit_test(test_request_ctype),
		cmocka_unit_test(test_request_hostile_json),
		cmocka_unit_test(test_request_hostile_form),
		cmocka_unit_test(test_request_parts),
		cmocka_unit_test(test_response_claude),
		cmocka_unit_test(test_response_codex_gemini),
		cmocka_unit_test(test_response_hostile),
		cmocka_unit_test(test_response_parts),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
