// UNIT: cmd/otogate/allow.c cmd/otogate/parse.c lib/store_name_ok.c lib/opt.c
/* Unit tests of what a grant's credential may do: allow= parsed, paths checked, requests judged. */
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
	assert_int_equal(grant(",allow=GET:/caf%C3%A9/", &why), 0);

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
	assert_string_equal(
	    why, "unknown grant option (header=NAME, allow=METHOD:PATH-PREFIX or transparent)");
}

static void test_paths(void **state)
{
	static const char *const GOOD[] = {
		"/",	    "/a",	"/a/",	   "/a/b.c",	   "/a/.b",	  "/a/..b",
		"/a/b..",   "/...",	"/a%20b",  "/caf%c3%a9",   "/%E2%82%AC",  "/%F0%9F%98%80",
		"/a:b@c=d", "/a+b,c$d", "/%41%42", "/~user/x_y-z", "/a!b'c(d)*e", "/%ef%bc%8d",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_parse),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
