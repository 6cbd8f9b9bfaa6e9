// UNIT: cmd/otosecret/input.c cmd/otosecret/parse.c lib/store_name_ok.c lib/opt.c
/* Unit tests of otosecret's pure parts: seal's lines, --use (the store: test_store.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otosecret/otosecret.h"

static void test_input_lines(void **state)
{
	size_t nl, vl;
	const char *v;

	(void)state;
	assert_int_equal(input_line("A=b=c", 5, &nl, &v, &vl), INPUT_LITERAL);
	assert_int_equal(nl, 1);
	assert_int_equal(vl, 3);
	assert_memory_equal(v, "b=c", 3);
	assert_int_equal(input_line("A=", 2, &nl, &v, &vl), INPUT_LITERAL);
	assert_int_equal(vl, 0);
	assert_int_equal(input_line("KEY:base64=AA==", 15, &nl, &v, &vl), INPUT_BASE64);
	assert_int_equal(nl, 3);
	assert_int_equal(vl, 4);
	assert_int_equal(input_line("TOKEN", 5, &nl, &v, &vl), INPUT_PROMPT);
	assert_int_equal(nl, 5);
	assert_int_equal(input_line("", 0, &nl, &v, &vl), INPUT_SKIP);
	assert_int_equal(input_line("# x=1", 5, &nl, &v, &vl), INPUT_SKIP);
	assert_int_equal(input_line("=x", 2, &nl, &v, &vl), INPUT_BAD);
	assert_int_equal(input_line("A:hex=00", 8, &nl, &v, &vl), INPUT_BAD);
	assert_int_equal(input_line("A B=1", 5, &nl, &v, &vl), INPUT_BAD);
	assert_int_equal(input_line("1A=1", 4, &nl, &v, &vl), INPUT_BAD);
}

static void test_use_parse(void **state)
{
	struct use u;
	const char *why = NULL;
	char s1[] = "TOKEN", s2[] = "TOKEN:env=GH_TOKEN", s3[] = "K:file=/run/k", s4[] = "K:fd=7",
	     s5[] = "K:env", b1[] = "K:fd=2", b2[] = "K:file=rel", b3[] = "K:tty", b4[] = "-K",
	     b5[] = "K:env=A-B", b6[] = "K:fd=x", b7[] = "K:file=/dir/", b8[] = "K:fd=65536";

	(void)state;
	assert_int_equal(use_parse(s1, &u, &why), 0);
	assert_int_equal(u.how, HOW_ENV);
	assert_string_equal(u.target, "TOKEN");
	assert_int_equal(use_parse(s2, &u, &why), 0);
	assert_string_equal(u.name, "TOKEN");
	assert_string_equal(u.target, "GH_TOKEN");
	assert_int_equal(use_parse(s3, &u, &why), 0);
	assert_int_equal(u.how, HOW_FILE);
	assert_string_equal(u.target, "/run/k");
	assert_int_equal(use_parse(s4, &u, &why), 0);
	assert_int_equal(u.how, HOW_FD);
	assert_int_equal(u.fd, 7);
	assert_int_equal(use_parse(s5, &u, &why), 0);
	assert_string_equal(u.target, "K");
	char *bad[] = { b1, b2, b3, b4, b5, b6, b7, b8 };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		assert_int_equal(use_parse(bad[i], &u, &why), -1);
		assert_non_null(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_lines),
		cmocka_unit_test(test_use_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
