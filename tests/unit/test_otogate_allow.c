// UNIT: cmd/otogate/allow.c cmd/otogate/parse.c lib/store_name_ok.c lib/opt.c
// UNIT: lib/http_req_parse.c lib/http_head_line.c lib/http_header_line.c lib/http_value_ok.c
// UNIT: lib/http_list_has.c
/*
 * Unit tests of what a grant's credential may do: allow= parsed, paths
 * checked, overrides refused, requests judged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otogate/otogate.h"

static struct grant g;
static char spec[8192];

static int grant(const char *s, const char **why)
{
	snprintf(spec, sizeof(spec), "K=https://api.test%s", s);
	return grant_parse(spec, &g, why);
}

static enum allow_verdict judge(const char *method, const char *target, const char **why)
{
	return allow_judge(&g, method, strlen(method), target, strlen(target), why);
}

static void test_allow_parse(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(grant("", &why), 0);
	assert_int_equal(g.nallow, 0);
	assert_int_equal(grant(",allow=GET:/repos/,header=X-T,allow=*:/user", &why), 0);
	assert_int_equal(g.nallow, 2);
	assert_int_equal(g.nheaders, 1);
	assert_string_equal(g.allow[0].method, "GET");
	assert_int_equal(g.allow[0].method_len, 3);
	assert_string_equal(g.allow[0].prefix, "/repos/");
	assert_int_equal(g.allow[0].prefix_len, 7);
	assert_string_equal(g.allow[1].method, "*");
	assert_string_equal(g.allow[1].prefix, "/user");
	/* Without header=, the default two still carry it. */
	assert_int_equal(grant(",allow=POST:/repos/org/repo/pulls", &why), 0);
	assert_int_equal(g.nheaders, 2);
	assert_int_equal(grant(",allow=GET:/", &why), 0);

	static const char *const BAD[] = {
		",allow=",
		",allow=GET",
		",allow=:/x",
		",allow=GET:",
		",allow=GET:x",
		",allow=G T:/x",
		",allow=GET:/a//b",
		",allow=GET:/a/../b",
		",allow=GET:/a/./b",
		",allow=GET:/a/..",
		",allow=GET:/a%2fb",
		",allow=GET:/a%2Eb",
		",allow=GET:/a%25b",
		",allow=GET:/a%5cb",
		",allow=GET:/a\\b",
		",allow=GET:/a;b",
		",allow=GET:/a?b",
		",allow=GET:/a#b",
		",allow=GET:/a b",
		",allow=GET:/a%zz",
		",allow=GET:/a%4",
		",allow=GET:/a%c0%ae",
		",allow=GET:/caf%C3%A9/",
		",allow=123456789012345678901234567890123:/x",
	};
	for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
		why = NULL;
		assert_int_equal(grant(BAD[i], &why), -1);
		assert_non_null(why);
		assert_memory_equal(why, "allow=", 6);
	}
	/* 32 rules, not 33. */
	char many[2048] = "";
	for (int i = 0; i < 32; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",allow=GET:/p%d", i);
	assert_int_equal(grant(many, &why), 0);
	assert_int_equal(g.nallow, 32);
	strcat(many, ",allow=GET:/q");
	assert_int_equal(grant(many, &why), -1);
	assert_string_equal(why, "allow=: at most 32 rules");
	/* A prefix of 512 bytes, not 513. */
	char longp[600] = ",allow=GET:/";
	memset(longp + 12, 'a', 511);
	assert_int_equal(grant(longp, &why), 0);
	strcat(longp, "a");
	assert_int_equal(grant(longp, &why), -1);
	assert_string_equal(why, "allow=: a path prefix longer than 512");
	assert_int_equal(grant(",allow=GET:/x,nope", &why), -1);
	assert_string_equal(why, "unknown grant option (header=NAME, allow=METHOD:PATH-PREFIX, "
				 "ask=METHOD:PATH-PREFIX, ask=writes or transparent)");
}

static void test_paths(void **state)
{
	static const char *const GOOD[] = {
		"/",	  "/a",		"/a/",		"/a/b.c",      "/a/.b",	   "/a/..b",
		"/a/b..", "/...",	"/a%20b",	"/a:b@c=d",    "/a+b,c$d", "/%41%42",
		"/%7e",	  "/%7E%2d%5f", "/~user/x_y-z", "/a!b'c(d)*e",
	};
	static const char *const BAD[] = {
		"",
		"a",
		"//",
		"/a//b",
		"/.",
		"/..",
		"/a/.",
		"/a/..",
		"/a/./b",
		"/a/../b",
		"/%2e",
		"/%2E%2E/x",
		"/a%2fb",
		"/a%2Fb",
		"/a%5cb",
		"/a%5Cb",
		"/a\\b",
		"/a%25",
		"/a%252e",
		"/a%",
		"/a%4",
		"/a%4g",
		"/a;b",
		"/..;/x",
		"/a%3bb",
		"/a#b",
		"/a?b",
		"/a b",
		"/a\x7f",
		"/a\x01",
		"/a%00",
		"/a%0a",
		"/a%7f",
		"/a%c0%ae",
		"/a%c1%bf",
		"/a%e0%80%ae",
		"/a%f0%80%80%ae",
		"/a%ed%a0%80",
		"/a%f4%90%80%80",
		"/a%f5%80%80%80",
		"/a%80",
		"/a%c3",
		"/a%c3%28",
		"/a%ef%bc%8e",
		"/a%EF%BC%8F",
		"/a%ef%bd%bc%ef%bc%bc",
		"/a\xc3\xa9",
		/* Every non-ASCII byte, encoded: UTF-8 well formed or not, look-alike or not. */
		"/caf%c3%a9",
		"/%E2%82%AC",
		"/%F0%9F%98%80",
		"/%ef%bc%8d",
		"/a%e2%80%a4",
		"/a%e2%80%a5",
		"/a%ef%b9%92",
		"/a%ef%b9%a8",
		"/a%C2%A0",
		"/a%ff",
		"/a\xe2\x80\xa4",
		"/a\xef\xb9\xa8",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(GOOD); i++)
		if (allow_path_check(GOOD[i], strlen(GOOD[i])))
			fail_msg("%s: %s", GOOD[i], allow_path_check(GOOD[i], strlen(GOOD[i])));
	for (size_t i = 0; i < ARRAY_SIZE(BAD); i++)
		if (!allow_path_check(BAD[i], strlen(BAD[i])))
			fail_msg("%s passed", BAD[i]);
	assert_string_equal(allow_path_check("/a/../b", 7), "a . or .. segment");
	assert_string_equal(allow_path_check("/a//b", 5), "an empty segment (//)");
	assert_string_equal(allow_path_check("/a%2fb", 6), "a percent-encoded / \\ . % or ;");
	assert_string_equal(allow_path_check("/a%zz", 5), "a malformed percent-encoding");
	assert_string_equal(allow_path_check("/a%e2%80%a5", 11),
			    "a non-ASCII byte, raw or percent-encoded");
	assert_string_equal(allow_path_check("/a\xef\xb9\x92", 5),
			    "a non-ASCII byte, raw or percent-encoded");
	assert_string_equal(allow_path_check("/a\x7f", 3), "a control or space byte");
	assert_string_equal(allow_path_check("/a%80", 5),
			    "a non-ASCII byte, raw or percent-encoded");
	assert_null(allow_path_check("/a%7F", 5) ? NULL : "passed");
	/* Only the bytes given: a '.' segment cut at len is judged as the last. */
	assert_non_null(allow_path_check("/a/..b", 5));
}

static void test_judge(void **state)
{
	const char *why;

	(void)state;
	/* No rule: everything, even a path a rule would refuse. */
	assert_int_equal(grant("", &why), 0);
	assert_int_equal(judge("DELETE", "/a/../b", &why), ALLOW_OK);
	assert_null(why);

	assert_int_equal(
	    grant(",allow=GET:/repos/,allow=POST:/repos/org/repo/pulls,allow=*:/user", &why), 0);
	/* clang-format off */
	static const struct { const char *m, *t; enum allow_verdict v; } CASES[] = {
		{ "GET", "/repos/", ALLOW_OK },
		{ "GET", "/repos/org/repo", ALLOW_OK },
		{ "GET", "/repos/org/repo?per_page=1&x=/../admin", ALLOW_OK },
		{ "GET", "/repos", ALLOW_NOMATCH },		/* "/repos/" needs its slash */
		{ "GET", "/repository", ALLOW_NOMATCH },
		{ "GET", "/Repos/x", ALLOW_NOMATCH },		/* case-sensitive */
		{ "get", "/repos/x", ALLOW_NOMATCH },		/* the method too */
		{ "HEAD", "/repos/x", ALLOW_NOMATCH },
		{ "POST", "/repos/x", ALLOW_NOMATCH },
		{ "GETX", "/repos/x", ALLOW_NOMATCH },
		{ "GE", "/repos/x", ALLOW_NOMATCH },
		{ "POST", "/repos/org/repo/pulls", ALLOW_OK },
		{ "POST", "/repos/org/repo/pulls/1/merge", ALLOW_OK },
		{ "POST", "/repos/org/repo/pullsx", ALLOW_NOMATCH },	/* a segment's end */
		{ "POST", "/repos/org/repo/pulls?x", ALLOW_OK },
		{ "POST", "/repos/org/repo", ALLOW_NOMATCH },
		{ "DELETE", "/user", ALLOW_OK },
		{ "PATCH", "/user/keys", ALLOW_OK },
		{ "GET", "/users", ALLOW_NOMATCH },
		{ "GET", "/admin", ALLOW_NOMATCH },
		{ "GET", "/", ALLOW_NOMATCH },
		{ "GET", "/repos/../admin", ALLOW_BADPATH },
		{ "GET", "/repos/%2e%2e/admin", ALLOW_BADPATH },
		{ "GET", "/repos/%2E%2E/admin", ALLOW_BADPATH },
		{ "GET", "/repos%2f..%2fadmin", ALLOW_BADPATH },
		{ "GET", "/repos//admin", ALLOW_BADPATH },
		{ "GET", "//repos/x", ALLOW_BADPATH },
		{ "GET", "/repos/..;/admin", ALLOW_BADPATH },
		{ "GET", "/repos/x\\..\\..\\admin", ALLOW_BADPATH },
		{ "GET", "/repos/%252e%252e/admin", ALLOW_BADPATH },
		{ "GET", "/repos/%c0%ae%c0%ae/admin", ALLOW_BADPATH },
		{ "GET", "/repos/x/..", ALLOW_BADPATH },
		{ "GET", "/%72epos/x", ALLOW_NOMATCH },		/* compared as sent */
	};
	/* clang-format on */
	for (size_t i = 0; i < ARRAY_SIZE(CASES); i++) {
		enum allow_verdict v = judge(CASES[i].m, CASES[i].t, &why);

		if (v != CASES[i].v)
			fail_msg("%s %s: %d, not %d", CASES[i].m, CASES[i].t, v, CASES[i].v);
		if (v == ALLOW_OK)
			assert_null(why);
		else
			assert_non_null(why);
	}
	assert_int_equal(judge("GET", "/admin", &why), ALLOW_NOMATCH);
	assert_string_equal(why, "no allow= of the grant serves this method and path");
	/* The target's length bounds what is read: "/repos/x" cut to "/repo". */
	assert_int_equal(allow_judge(&g, "GET", 3, "/repos/x", 5, &why), ALLOW_NOMATCH);
	assert_int_equal(allow_judge(&g, "GETX", 3, "/repos/x", 8, &why), ALLOW_OK);
}

/* head_check(HEADERS, TARGET): the request "POST TARGET" with the header lines HEADERS checked. */
static char head[4096];
static struct http_req req;

static enum allow_verdict head_check(const char *hdrs, const char *target, const char **why)
{
	int n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: x\r\n%s\r\n", target, hdrs);

	memset(&req, 0, sizeof(req));
	assert_int_equal(http_req_parse(&req, head, (size_t)n), 0);
	return allow_head_check(&g, head, &req, why);
}

static void test_overrides(void **state)
{
	const char *why;

	(void)state;
	/* A grant that does not limit requests: nothing is checked. */
	assert_int_equal(grant("", &why), 0);
	assert_false(grant_limits(&g));
	assert_int_equal(
	    head_check("X-HTTP-Method-Override: DELETE\r\n", "/a/../b?_method=x", &why), ALLOW_OK);
	assert_null(why);

	assert_int_equal(grant(",allow=POST:/repos/o/r/issues", &why), 0);
	assert_true(grant_limits(&g));
	/* clang-format off */
	static const struct { const char *h, *t, *why; } HEADERS[] = {
		{ "X-HTTP-Method-Override: DELETE\r\n", "/repos/o/r/issues", "X-HTTP-Method-Override" },
		{ "x-http-method-override: DELETE\r\n", "/repos/o/r/issues", "X-HTTP-Method-Override" },
		{ "X_HTTP_METHOD_OVERRIDE: DELETE\r\n", "/repos/o/r/issues", "X-HTTP-Method-Override" },
		{ "X-HTTP-Method-Override:\r\n", "/repos/o/r/issues", "X-HTTP-Method-Override" },
		{ "A: b\r\nX-HTTP-Method: PUT\r\nC: d\r\n", "/repos/o/r/issues", "X-HTTP-Method" },
		{ "X-Method-Override: PATCH\r\n", "/repos/o/r/issues", "X-Method-Override" },
		{ "X-Original-URL: /admin\r\n", "/repos/o/r/issues", "X-Original-URL" },
		{ "X-ORIGINAL-URL: /admin\r\nX-Original-URL: /admin\r\n", "/repos/o/r/issues", "X-Original-URL" },
		{ "X-Rewrite-URL: /admin\r\n", "/repos/o/r/issues", "X-Rewrite-URL" },
		{ "X-Original-Method: DELETE\r\n", "/repos/o/r/issues", "X-Original-Method" },
		{ "X-Forwarded-Prefix: /admin\r\n", "/repos/o/r/issues", "X-Forwarded-Prefix" },
		{ "", "/repos/o/r/issues?_method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?a=1&_method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?a=1;_method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?_METHOD=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?%5Fmethod=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?%5f%6d%65%74%68%6f%64=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?_method", "a _method parameter" },
		{ "", "/repos/o/r/issues?_method=", "a _method parameter" },
		{ "", "/repos/o/r/issues?.method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?+_method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?%20%20_method=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?_method[]=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?_method%00x=DELETE", "a _method parameter" },
		{ "", "/repos/o/r/issues?x=1&&_method=DELETE&y", "a _method parameter" },
		{ "", "/repos/o/r/issues%e2%80%a4", "a non-ASCII byte, raw or percent-encoded" },
		{ "", "/repos/o/r/../admin", "a . or .. segment" },
	};
	static const struct { const char *h, *t; } PASS[] = {
		{ "", "/repos/o/r/issues" },
		{ "", "/admin" }, /* for allow_judge to refuse */
		{ "X-HTTP-Method-Overrides: DELETE\r\nX-HTTP: x\r\nX-Original-URLs: /\r\n", "/repos/o/r/issues" },
		{ "Accept: x-http-method-override\r\nX-Forwarded-For: 1.2.3.4\r\n", "/repos/o/r/issues" },
		{ "", "/repos/o/r/issues?method=DELETE&_methods=x&x_method=y&a=_method" },
		{ "", "/repos/o/r/issues?_metho=x&_method_=x&__method=x&_me%74hod%3d" },
		{ "", "/repos/o/r/issues?q=%C3%A9" }, /* the query may hold any encoding */
		{ "", "/repos/o/r/issues?" },
		{ "", "/repos/o/r/issues?&;=_method" },
		{ "", "/repos/o/r/issues?x%" },
	};
	/* clang-format on */
	for (size_t i = 0; i < ARRAY_SIZE(HEADERS); i++) {
		enum allow_verdict v = head_check(HEADERS[i].h, HEADERS[i].t, &why);

		if (v == ALLOW_OK || !why || strcmp(why, HEADERS[i].why))
			fail_msg("%s %s: %d %s", HEADERS[i].h, HEADERS[i].t, v, why ? why : "-");
		/* The last two: the path, checked first. */
		assert_int_equal(v, i + 2 >= ARRAY_SIZE(HEADERS) ? ALLOW_BADPATH : ALLOW_OVERRIDE);
	}
	for (size_t i = 0; i < ARRAY_SIZE(PASS); i++)
		if (head_check(PASS[i].h, PASS[i].t, &why) != ALLOW_OK)
			fail_msg("%s %s: %s", PASS[i].h, PASS[i].t, why);
}

/* s fed whole, and split at every offset: the same answer each way. */
static int form_has(enum form_kind kind, const char *s)
{
	size_t len = strlen(s);
	struct form_scan whole = { .kind = kind };
	int found;

	form_scan_feed(&whole, s, len);
	found = form_scan_end(&whole);
	for (size_t cut = 1; cut < len; cut++) {
		struct form_scan a = { .kind = kind };

		form_scan_feed(&a, s, cut);
		form_scan_feed(&a, s + cut, len - cut);
		if (form_scan_end(&a) != found)
			fail_msg("%s cut at %zu: %d, whole: %d", s, cut, !found, found);
	}
	return found;
}

/*
 * form_has of s with pad bytes of a value before it and after it, each a run
 * the scanner skips eight bytes at a time: the same answer as s alone, so
 * no skip passes the byte that ends a run, at any alignment.
 */
static int form_padded(enum form_kind kind, const char *s, size_t pad)
{
	char b[256];
	char run[64];

	assert_true(pad < sizeof(run) && strlen(s) + 2 * pad + 16 < sizeof(b));
	memset(run, 'y', pad);
	run[pad] = 0;
	if (kind == FORM_URLENCODED)
		snprintf(b, sizeof(b), "v=%s&%s&w=%s", run, s, run);
	else
		snprintf(b, sizeof(b), "%s\r\n%s\r\n%s", run, s, run);
	return form_has(kind, b);
}

/* A form body's _method (Rack, Symfony), urlencoded or multipart, in any pieces. */
static void test_form_bodies(void **state)
{
	static const char *const URL_YES[] = {
		"_method=DELETE",  "title=x&_method=DELETE",
		"a=1;_METHOD=PUT", "%5Fmethod=x",
		"%5fmethod=x",	   "_me%74hod=x",
		"+_method=x",	   " _method=x",
		".method=x",	   "_method[]=x",
		"_method",	   "a=1&_method",
		"_method%00x=1",   "a=%zz&_method=1",
	};
	static const char *const URL_NO[] = {
		"",	      "title=_method",	     "x_method=1",
		"_methodx=1", "a=1%26_method=2",     "%5F%6Dethod%=1",
		"_meth",      "a=_method&b=_method", "%_method=1",
		"_method%=1",
	};
	static const char *const MULTI_YES[] = {
		"--b\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nDELETE\r\n--b--",
		"Content-Disposition: form-data; NAME=_method\r\n",
		"Content-Disposition: form-data; name=\"_Method[]\"\r\n",
		"Content-Disposition: form-data; name=\".method\"; x=y\r\n",
		"Content-Disposition: form-data; filename=\"_method\"\r\n",
		"nnname=_method",
		"name=_method",
	};
	static const char *const MULTI_NO[] = {
		"Content-Disposition: form-data; name=\"x\"\r\n\r\n_method\r\n",
		"Content-Disposition: form-data; name=\"_methods\"\r\n",
		"name=\"x_method\"",
		"_method=1",
		"name =\"_method\"",
	};

	(void)state;
	for (size_t pad = 0; pad <= 40; pad++) {
		for (size_t i = 0; i < ARRAY_SIZE(URL_YES); i++)
			if (!form_padded(FORM_URLENCODED, URL_YES[i], pad))
				fail_msg("urlencoded, not found: %s (pad %zu)", URL_YES[i], pad);
		for (size_t i = 0; i < ARRAY_SIZE(URL_NO); i++)
			if (form_padded(FORM_URLENCODED, URL_NO[i], pad))
				fail_msg("urlencoded, found: %s (pad %zu)", URL_NO[i], pad);
		for (size_t i = 0; i < ARRAY_SIZE(MULTI_YES); i++)
			if (!form_padded(FORM_MULTIPART, MULTI_YES[i], pad))
				fail_msg("multipart, not found: %s (pad %zu)", MULTI_YES[i], pad);
		for (size_t i = 0; i < ARRAY_SIZE(MULTI_NO); i++)
			if (form_padded(FORM_MULTIPART, MULTI_NO[i], pad))
				fail_msg("multipart, found: %s (pad %zu)", MULTI_NO[i], pad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_parse), cmocka_unit_test(test_paths),
		cmocka_unit_test(test_judge),	    cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_form_bodies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
