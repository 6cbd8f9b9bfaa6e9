// UNIT: lib/json_scan.c lib/json_strerror.c lib/phantom_shape.c lib/phantom_shape_of.c
// UNIT: lib/login_profile_parse.c lib/login_profile_text.c lib/login_role_name.c
// UNIT: lib/login_phantom.c lib/login_profile_fits.c lib/login_expiry.c lib/login_strerror.c
// UNIT: lib/policy_name_ok.c lib/login_file_ok.c
/*
 * Unit tests of the login file's mechanism: the strict JSON reader, the
 * phantom of one secret, profiles, and a login file turned into its phantom.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "login.h"

/* ---- json_scan ---- */

struct seen {
	char text[4096]; /* "path=kind:span;" for each value */
	size_t n;
	int stop_at; /* stop at this value (1-based), 0 never */
};

static int record(const struct json_value *v, void *arg)
{
	struct seen *s = arg;
	static const char KIND[] = "snTFN";

	s->n++;
	snprintf(s->text + strlen(s->text), sizeof(s->text) - strlen(s->text), "%.*s=%c%s:%zu-%zu;",
		 (int)v->path_len, v->path, KIND[v->kind], v->escaped ? "e" : "", v->start, v->end);
	return s->stop_at && (int)s->n == s->stop_at;
}

static int scan(const char *doc, struct seen *s, size_t *at)
{
	memset(s, 0, sizeof(*s));
	return json_scan(doc, strlen(doc), record, s, at);
}

static void test_json_values_and_spans(void **state)
{
	struct seen s;
	size_t at;

	(void)state;
	assert_int_equal(scan("{\"a\":{\"b\":\"xy\",\"c\":[1,true,{\"d\":null}]},\"e\":-0.5e+3,"
			      "\"f\":false,\"g\\n\":\"q\\\"\"}",
			      &s, &at),
			 JSON_OK);
	assert_string_equal(s.text, "a.b=s:11-13;a.c[0]=n:20-21;a.c[1]=T:22-26;a.c[2].d=N:32-36;"
				    "e=n:44-51;f=F:56-61;g\n=se:69-72;");
	/* Any value at the top, whitespace around it. */
	assert_int_equal(scan(" \t\r\n\"x\" ", &s, &at), JSON_OK);
	assert_string_equal(s.text, "=s:5-6;");
	/* Huge numbers are numbers: a reader of a field bounds them itself. */
	assert_int_equal(scan("{\"n\":123456789012345678901234567890e99999}", &s, &at), JSON_OK);
	/* The callback stops the scan. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	assert_int_equal(json_scan("[1,2,3]", 7, record, &s, &at), JSON_ESTOP);
	assert_int_equal(s.n, 2);
	/* An empty object and array hold no value. */
	assert_int_equal(scan("{\"a\":{},\"b\":[]}", &s, &at), JSON_OK);
	assert_int_equal(s.n, 0);
}

static void test_json_refusals(void **state)
{
	static const struct {
		const char *doc;
		int err;
		size_t at;
	} CASES[] = {
		{ "", JSON_ESYNTAX, 0 },
		{ "{\"a\":1,\"a\":2}", JSON_EDUP, 7 },
		/* The same key, written with an escape: one key to every other reader. */
		{ "{\"accessToken\":\"x\",\"access\\u0054oken\":\"y\"}", JSON_EDUP, 19 },
		{ "{\"a\":{\"k\":1},\"b\":{\"k\":1,\"k\":2}}", JSON_EDUP, 24 },
		{ "\"\\ud800\"", JSON_ESURROGATE, 1 },
		{ "\"\\udc00\\ud800\"", JSON_ESURROGATE, 1 },
		{ "\"\\ud800\\u0041\"", JSON_ESURROGATE, 1 },
		{ "\"\xc0\x80\"", JSON_EUTF8, 1 },	   /* an overlong NUL */
		{ "\"\xed\xa0\x80\"", JSON_EUTF8, 1 },	   /* a surrogate, encoded */
		{ "\"\xf4\x90\x80\x80\"", JSON_EUTF8, 1 }, /* past U+10FFFF */
		{ "\"\xe2\x82\"", JSON_EUTF8, 1 },	   /* cut short */
		{ "\"\xff\"", JSON_EUTF8, 1 },
		{ "\"a\tb\"", JSON_ESYNTAX, 2 },
		{ "\"\\x\"", JSON_ESYNTAX, 1 },
		{ "\"\\u12g4\"", JSON_ESYNTAX, 1 },
		{ "\xef\xbb\xbf{}", JSON_ESYNTAX, 0 }, /* a byte order mark */
		{ "{} x", JSON_ESYNTAX, 3 },
		{ "{}{}", JSON_ESYNTAX, 2 },
		{ "{\"a\":1,}", JSON_ESYNTAX, 7 },
		{ "[1,]", JSON_ESYNTAX, 3 },
		{ "{\"a\" 1}", JSON_ESYNTAX, 5 },
		{ "{a:1}", JSON_ESYNTAX, 1 },
		{ "01", JSON_ESYNTAX, 1 },
		{ "1.", JSON_ESYNTAX, 2 },
		{ "-", JSON_ESYNTAX, 1 },
		{ "1e", JSON_ESYNTAX, 2 },
		{ "+1", JSON_ESYNTAX, 0 },
		{ "tru", JSON_ESYNTAX, 0 },
		{ "nul", JSON_ESYNTAX, 0 },
		{ "'a'", JSON_ESYNTAX, 0 },
		{ "\"abc", JSON_ESYNTAX, 4 },
	};
	struct seen s;
	size_t at;

	(void)state;
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		int err = scan(CASES[i].doc, &s, &at);

		if (err != CASES[i].err || at != CASES[i].at)
			fail_msg("case %zu (%s): %s at %zu", i, CASES[i].doc, json_strerror(err),
				 at);
	}
	/* A NUL byte, in a string or outside one. */
	assert_int_equal(json_scan("\"a\0b\"", 5, NULL, NULL, &at), JSON_ESYNTAX);
	assert_int_equal(at, 2);
	assert_int_equal(json_scan("{}\0", 3, NULL, NULL, &at), JSON_ESYNTAX);
	assert_string_equal(json_strerror(JSON_EDUP), "a key twice in one object");
	assert_string_equal(json_strerror(-1), "unknown error");
}

static void test_json_bounds(void **state)
{
	static char doc[JSON_MAX_INPUT + 2];
	struct seen s;
	size_t at, n;

	(void)state;
	/* 16 levels, then 17. */
	strcpy(doc, "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]");
	assert_int_equal(scan(doc, &s, &at), JSON_OK);
	strcpy(doc, "{\"a\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}");
	assert_int_equal(scan(doc, &s, &at), JSON_EDEPTH);
	assert_int_equal(at, 20);
	/* 64 KiB, then a byte more. */
	memset(doc, ' ', JSON_MAX_INPUT);
	doc[0] = '1';
	assert_int_equal(json_scan(doc, JSON_MAX_INPUT, NULL, NULL, &at), JSON_OK);
	assert_int_equal(json_scan(doc, JSON_MAX_INPUT + 1, NULL, NULL, &at), JSON_ETOOBIG);
	/* A path of 512 bytes, then 513. */
	n = (size_t)sprintf(doc, "{\"%0510d\":{\"a\":1}}", 0);
	assert_int_equal(json_scan(doc, n, NULL, NULL, &at), JSON_OK);
	n = (size_t)sprintf(doc, "{\"%0511d\":{\"a\":1}}", 0);
	assert_int_equal(json_scan(doc, n, NULL, NULL, &at), JSON_EPATH);
	/* 512 keys open, then 513. */
	n = 0;
	doc[n++] = '{';
	for (int i = 0; i < JSON_MAX_KEYS; i++)
		n += (size_t)sprintf(doc + n, "%s\"%d\":0", i ? "," : "", i);
	strcpy(doc + n, "}");
	assert_int_equal(json_scan(doc, n + 1, NULL, NULL, &at), JSON_OK);
	strcpy(doc + n, ",\"x\":0}");
	assert_int_equal(json_scan(doc, n + 7, NULL, NULL, &at), JSON_EKEYS);
	/* A closed object's keys are not counted against the next one. */
	n = 0;
	doc[n++] = '[';
	for (int j = 0; j < 3; j++) {
		n += (size_t)sprintf(doc + n, "%s{", j ? "," : "");
		for (int i = 0; i < 300; i++)
			n += (size_t)sprintf(doc + n, "%s\"%d\":0", i ? "," : "", i);
		doc[n++] = '}';
	}
	doc[n++] = ']';
	assert_int_equal(json_scan(doc, n, NULL, NULL, &at), JSON_OK);
}

/* ---- phantom_shape ---- */

/* Fixed "random" bytes: a counter from a seed. */
static void counter(uint8_t *buf, size_t n, void *arg)
{
	uint8_t *c = arg;

	for (size_t i = 0; i < n; i++)
		buf[i] = (*c)++ * 37;
}

static void zeros(uint8_t *buf, size_t n, void *arg)
{
	(void)arg;
	memset(buf, 0, n);
}

/* A JWT with header {"alg":"RS256","typ":"JWT"} and claims {"exp":1765000000}. */
#define JWT_HEAD   "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
#define JWT_CLAIMS "eyJleHAiOjE3NjUwMDAwMDB9"
#define JWT_SIG	   "c2lnbmF0dXJlLW9mLXRoZS1pc3N1ZXItMTIzNDU2Nzg5"
#define JWT	   JWT_HEAD "." JWT_CLAIMS "." JWT_SIG

static int only_in(const char *a, const char *b, size_t from, const char *set)
{
	for (size_t i = from; a[i]; i++)
		if (!strchr(set, a[i]) && a[i] != b[i])
			return 0;
	return 1;
}

static void test_phantom_shape(void **state)
{
	static const char B64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char out[256];
	uint8_t seed = 1;
	const char *v;
	size_t n;

	(void)state;
	assert_int_equal(phantom_shape_of(JWT, strlen(JWT)), PHANTOM_JWT);
	/* A JWT: header and claims kept, the signature new, as long, base64url. */
	n = strlen(JWT);
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom_shape(JWT, n, out, counter, &seed), PHANTOM_OK);
	assert_int_equal(strlen(out), n);
	assert_memory_equal(out, JWT_HEAD "." JWT_CLAIMS ".", strlen(JWT_HEAD JWT_CLAIMS) + 2);
	assert_memory_not_equal(out + n - strlen(JWT_SIG), JWT_SIG, 8);
	for (size_t i = n - strlen(JWT_SIG); i < n; i++)
		assert_non_null(strchr(B64, out[i]));
	/* Not JWTs: a bad header, two parts, four parts, an empty part, a '+'. */
	static const char *const NOT[] = {
		"bm90LWpzb24." JWT_CLAIMS "." JWT_SIG, /* "not-json" */
		"WzFd." JWT_CLAIMS "." JWT_SIG,	       /* "[1]": JSON, not an object */
		JWT_HEAD "." JWT_CLAIMS,
		JWT "." JWT_SIG,
		JWT_HEAD ".." JWT_SIG,
		JWT_HEAD "." JWT_CLAIMS ".a+b",
	};
	for (size_t i = 0; i < sizeof(NOT) / sizeof(NOT[0]); i++)
		assert_int_equal(phantom_shape_of(NOT[i], strlen(NOT[i])), PHANTOM_OPAQUE);
	/* An opaque token: its prefix and punctuation kept, letters and digits new. */
	v = "sk-ant-ort01-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_a-bcdefgh";
	n = strlen(v);
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom_shape(v, n, out, counter, &seed), PHANTOM_OK);
	assert_memory_equal(out, "sk-ant-ort01-", 13);
	assert_true(
	    only_in(out, v, 13, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"));
	assert_int_equal(out[49], '_');
	assert_int_equal(out[51], '-');
	assert_memory_not_equal(out + 13, v + 13, 8);
	/* A JWT with a bad header is opaque: its claims are not kept either. */
	v = NOT[0];
	n = strlen(v);
	assert_int_equal(phantom_shape(v, n, out, counter, &seed), PHANTOM_OK);
	assert_memory_not_equal(out + 12, v + 12, 8);
	/* Hex stays hex, in its case; digits stay digits. */
	v = "0123456789abcdef0123456789abcdef";
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom_shape(v, 32, out, counter, &seed), PHANTOM_OK);
	assert_true(only_in(out, v, 0, "0123456789abcdef"));
	v = "0123456789ABCDEF0123456789ABCDEF";
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom_shape(v, 32, out, counter, &seed), PHANTOM_OK);
	assert_true(only_in(out, v, 0, "0123456789ABCDEF"));
	v = "31415926535897932384";
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom_shape(v, 20, out, counter, &seed), PHANTOM_OK);
	assert_true(only_in(out, v, 0, "0123456789"));
	/* Too few characters to replace: 15 after the prefix, or a short signature. */
	v = "sk-ant-oat01-abcdefghijklmno";
	assert_int_equal(phantom_shape(v, strlen(v), out, counter, &seed), PHANTOM_ESHORT);
	v = JWT_HEAD "." JWT_CLAIMS ".abcdefghijklmno";
	assert_int_equal(phantom_shape(v, strlen(v), out, counter, &seed), PHANTOM_ESHORT);
	/* Random bytes that make the value itself: refused. */
	v = "0000000000000000";
	assert_int_equal(phantom_shape(v, 16, out, zeros, NULL), PHANTOM_ESAME);
}

/* ---- profiles ---- */

static void test_profile_builtins(void **state)
{
	static struct login_profile p;
	const char *why = NULL, *t;
	size_t line = 99;

	(void)state;
	t = login_profile_text("claude");
	assert_int_equal(login_profile_parse(t, strlen(t), &p, &line, &why), 0);
	assert_string_equal(p.file, ".claude/.credentials.json");
	assert_int_equal(p.nsecrets, 2);
	assert_string_equal(p.secret[1].path, "claudeAiOauth.refreshToken");
	assert_int_equal(p.secret[1].role, LOGIN_REFRESH);
	assert_int_equal(p.expiry_as, LOGIN_EXP_MS);
	assert_string_equal(p.host[0], "api.anthropic.com");
	assert_int_equal(p.token_body, LOGIN_BODY_JSON);
	assert_string_equal(p.token_field, "refresh_token");
	t = login_profile_text("codex");
	assert_int_equal(login_profile_parse(t, strlen(t), &p, &line, &why), 0);
	assert_int_equal(p.nsecrets, 3);
	assert_int_equal(p.expiry_as, LOGIN_EXP_JWT);
	t = login_profile_text("gemini");
	assert_int_equal(login_profile_parse(t, strlen(t), &p, &line, &why), 0);
	assert_int_equal(p.token_body, LOGIN_BODY_FORM);
	assert_true(p.secret[2].optional);
	assert_null(login_profile_text("other"));
	assert_string_equal(login_role_name(LOGIN_ID), "id");
}

static void test_profile_refusals(void **state)
{
	static const struct {
		const char *text;
		size_t line;
		const char *why;
	} CASES[] = {
		{ "file ../x\n", 1,
		  "file: expected a path under the home, without . or .. components" },
		{ "file /etc/x", 1,
		  "file: expected a path under the home, without . or .. components" },
		{ "file a/./b", 1,
		  "file: expected a path under the home, without . or .. components" },
		{ "file a//b", 1,
		  "file: expected a path under the home, without . or .. components" },
		{ "file a b", 1, "expected: file PATH" },
		{ "file a\nfile b", 2, "a second file line" },
		{ "#\n secret a.b owner", 2, "secret: expected the role access, refresh or id" },
		{ "secret a access\nsecret b access", 2, "secret: a second secret of that role" },
		{ "secret a access\nsecret a refresh", 2, "secret: that key path twice" },
		{ "secret a access optional", 1, "secret: the access token cannot be optional" },
		{ "secret a refresh maybe", 1,
		  "expected: secret KEYPATH access|refresh|id [optional]" },
		{ "expiry a days", 1, "expiry: expected ms, s, rfc3339 or jwt" },
		{ "host 1.2.3.4", 1, "host: expected a host name" },
		{ "host a.example\nhost a.example", 2, "host: that name twice" },
		{ "token http://a.example/t json r", 1,
		  "token: expected https://HOST[:PORT]/PATH" },
		{ "token https://a.example json r", 1, "token: expected https://HOST[:PORT]/PATH" },
		{ "token https://a.example:0/t json r", 1,
		  "token: expected https://HOST[:PORT]/PATH" },
		{ "token https://a.example:70000/t json r", 1,
		  "token: expected https://HOST[:PORT]/PATH" },
		{ "token https://a.example/t xml r", 1, "token: expected the body json or form" },
		{ "token https://a.example/t form r=x", 1,
		  "token: expected a field name of [A-Za-z0-9_.-], at most 63" },
		{ "owner me", 1, "expected file, secret, expiry, host or token" },
		{ "a b c d e f", 1, "more words than any line takes" },
		{ "", 0, "no file line" },
		{ "file a\nhost a.example", 0, "no secret of the role access" },
		{ "file a\nsecret t access", 0, "no host line: the access token would go nowhere" },
		{ "file a\nsecret t access\nsecret r refresh\nhost a.example", 0,
		  "a refresh secret and no token line" },
		{ "file a\nsecret t access\nhost a.example\ntoken https://a.example/t json r", 0,
		  "a token line and no refresh secret" },
	};
	static struct login_profile p;
	const char *why;
	size_t line;

	(void)state;
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		why = NULL;
		line = 99;
		if (login_profile_parse(CASES[i].text, strlen(CASES[i].text), &p, &line, &why) !=
			-1 ||
		    line != CASES[i].line || !why || strcmp(why, CASES[i].why))
			fail_msg("case %zu (%s): line %zu: %s", i, CASES[i].text, line,
				 why ? why : "(none)");
	}
	/* A fourth CLI, in a few lines; comments and blank lines anywhere. */
	const char *t = "# a CLI\n\nfile .x/login.json   # here\nsecret auth.tok access\n"
			"host api.x.example\nexpiry auth.until rfc3339\n";
	assert_int_equal(login_profile_parse(t, strlen(t), &p, &line, &why), 0);
	assert_int_equal(p.expiry_as, LOGIN_EXP_RFC3339);
	assert_int_equal(p.token_body, LOGIN_BODY_NONE);
	/* A NUL byte in a line. */
	assert_int_equal(login_profile_parse("file a\0b", 8, &p, &line, &why), -1);
	assert_string_equal(why, "a NUL byte");
}

/* ---- login_phantom, login_expiry ---- */

#define AT                                                                                         \
	"sk-ant-oat01-"                                                                            \
	"Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLlZzXxCcVvBbNnMm-qwertyu"
#define RT                                                                                         \
	"sk-ant-ort01-"                                                                            \
	"Pp0Oo9Ii8Uu7Yy6Tt5Rr4Ee3Ww2Qq1AaSsDdFfGgHhJjKkLlZzXxCc_vbnmasd"
#define CLAUDE_FILE                                                                                \
	"{\n  \"claudeAiOauth\": {\n    \"accessToken\": \"" AT "\",\n    \"refreshToken\": \"" RT \
	"\",\n    \"expiresAt\": 1765119943000,\n    \"scopes\": [\"user:inference\"],\n"          \
	"    \"subscriptionType\": \"max\"\n  }\n}\n"

static struct login_profile prof;

static void profile(const char *name)
{
	const char *why, *t = login_profile_text(name);
	size_t line;

	assert_int_equal(login_profile_parse(t, strlen(t), &prof, &line, &why), 0);
}

static int phantom(const char *file, char *out, struct login_field *f, const char **badpath)
{
	const struct login_secret *bad = NULL;
	uint8_t seed = 7;
	size_t at;
	int jerr, err;

	err = login_phantom(&prof, file, strlen(file), out, f, counter, &seed, &bad, &jerr, &at);
	*badpath = bad ? bad->path : NULL;
	return err;
}

static void test_login_phantom(void **state)
{
	static const char FILE_[] = CLAUDE_FILE;
	char out[sizeof(FILE_)];
	struct login_field f[LOGIN_MAX_SECRETS];
	const char *bad;
	size_t n = strlen(FILE_), a, r;

	(void)state;
	profile("claude");
	memset(out, 0, sizeof(out));
	assert_int_equal(phantom(FILE_, out, f, &bad), LOGIN_OK);
	assert_null(bad);
	a = (size_t)(strstr(FILE_, AT) - FILE_);
	r = (size_t)(strstr(FILE_, RT) - FILE_);
	assert_int_equal(f[0].start, a);
	assert_int_equal(f[0].end, a + strlen(AT));
	assert_int_equal(f[1].start, r);
	assert_int_equal(f[0].shape, PHANTOM_OPAQUE);
	assert_true(f[0].present && f[1].present);
	/* Every byte but the two spans as it was; no byte of a secret's random part kept. */
	assert_int_equal(strlen(out), n);
	for (size_t i = 0; i < n; i++) {
		int in_a = i >= a + 13 && i < a + strlen(AT),
		    in_r = i >= r + 13 && i < r + strlen(RT);

		if (!in_a && !in_r)
			assert_int_equal(out[i], FILE_[i]);
	}
	assert_memory_not_equal(out + a + 13, AT + 13, 8);
	assert_memory_not_equal(out + r + 13, RT + 13, 8);
	assert_true(login_profile_fits(&prof, FILE_, n));
	assert_false(login_profile_fits(&prof, "{\"tokens\":{}}", 13));
}

static void test_login_refusals(void **state)
{
	char out[1024];
	struct login_field f[LOGIN_MAX_SECRETS];
	const char *bad;

	(void)state;
	profile("claude");
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":\"" AT "\"}}", out, f, &bad),
			 LOGIN_EMISSING);
	assert_string_equal(bad, "claudeAiOauth.refreshToken");
	/* The same path twice: a key holding '.', beside the nesting. */
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":\"" AT
				 "\",\"refreshToken\":\"" RT
				 "\"},\"claudeAiOauth.accessToken\":\"" AT "\"}",
				 out, f, &bad),
			 LOGIN_ETWICE);
	assert_string_equal(bad, "claudeAiOauth.accessToken");
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":12,\"refreshToken\":\"" RT
				 "\"}}",
				 out, f, &bad),
			 LOGIN_ENOTSTR);
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-\\u0041bcdefgh"
				 "ijklmnopqrstuvw\",\"refreshToken\":\"" RT "\"}}",
				 out, f, &bad),
			 LOGIN_EESCAPE);
	assert_string_equal(bad, "claudeAiOauth.accessToken");
	/* A key twice through an escape: not JSON to this reader. */
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":\"" AT
				 "\",\"access\\u0054oken\":\"" AT "\",\"refreshToken\":\"" RT
				 "\"}}",
				 out, f, &bad),
			 LOGIN_EJSON);
	assert_int_equal(phantom("{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-short\","
				 "\"refreshToken\":\"" RT "\"}}",
				 out, f, &bad),
			 LOGIN_ESHORT);
	assert_string_equal(login_strerror(LOGIN_ETWICE), "is there twice");
	/* gemini's id_token is optional: a file without it is taken. */
	profile("gemini");
	assert_int_equal(phantom("{\"access_token\":\"ya29.a0AfH6SMBx-Q1w2E3r4T5y6U7i8O9p0\","
				 "\"refresh_token\":\"1//0gQ1w2E3r4T5y6U7i8O9p0AaSsDdFf\","
				 "\"expiry_date\":1765119943123,\"token_type\":\"Bearer\"}",
				 out, f, &bad),
			 LOGIN_OK);
	assert_false(f[2].present);
}

static void test_login_expiry(void **state)
{
	int64_t t = 0;

	(void)state;
	profile("claude");
	assert_int_equal(login_expiry(&prof, CLAUDE_FILE, strlen(CLAUDE_FILE), &t), 0);
	assert_int_equal(t, 1765119943);
	profile("gemini");
	assert_int_equal(login_expiry(&prof, "{\"expiry_date\":1765119943999.5}", 31, &t), 0);
	assert_int_equal(t, 1765119943);
	assert_int_equal(login_expiry(&prof, "{\"expiry_date\":-1}", 18, &t), -1);
	assert_int_equal(login_expiry(&prof, "{\"expiry_date\":1e3}", 19, &t), -1);
	assert_int_equal(login_expiry(&prof, "{\"expiry_date\":99999999999999999999}", 36, &t), -1);
	assert_int_equal(login_expiry(&prof, "{\"expiry_date\":\"1\"}", 19, &t), -1);
	assert_int_equal(login_expiry(&prof, "{}", 2, &t), -1);
	profile("codex");
	assert_int_equal(login_expiry(&prof, "{\"tokens\":{\"access_token\":\"" JWT "\"}}",
				      strlen("{\"tokens\":{\"access_token\":\"" JWT "\"}}"), &t),
			 0);
	assert_int_equal(t, 1765000000);
	{
		const char *p = "file a\nsecret t access\nhost a.example\nexpiry u rfc3339\n";
		const char *why;
		size_t line;

		assert_int_equal(login_profile_parse(p, strlen(p), &prof, &line, &why), 0);
		assert_int_equal(
		    login_expiry(&prof, "{\"u\":\"2025-12-07T15:25:43.5+01:00\"}", 35, &t), 0);
		assert_int_equal(t, 1765117543);
		assert_int_equal(login_expiry(&prof, "{\"u\":\"2025-12-07T15:25:43Z\"}", 28, &t),
				 0);
		assert_int_equal(t, 1765121143);
		assert_int_equal(login_expiry(&prof, "{\"u\":\"2025-13-07T15:25:43Z\"}", 28, &t),
				 -1);
		assert_int_equal(login_expiry(&prof, "{\"u\":\"2025-12-07 15:25:43Z\"}", 28, &t),
				 -1);
		assert_int_equal(login_expiry(&prof, "{\"u\":\"2025-12-07T15:25:43\"}", 27, &t),
				 -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values_and_spans),
		cmocka_unit_test(test_json_refusals),
		cmocka_unit_test(test_json_bounds),
		cmocka_unit_test(test_phantom_shape),
		cmocka_unit_test(test_profile_builtins),
		cmocka_unit_test(test_profile_refusals),
		cmocka_unit_test(test_login_phantom),
		cmocka_unit_test(test_login_refusals),
		cmocka_unit_test(test_login_expiry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
