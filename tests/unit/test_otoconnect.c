// UNIT: lib/opt.c cmd/otoconnect/parse.c
/* Unit tests of otoconnect's pure parts: the socket path and --mode. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "oto.h"
#include "otoconnect/otoconnect.h"

static void test_connect_path_ok(void **state)
{
	char p[110];

	(void)state;
	assert_int_equal(connect_path_ok("/tools/metrics.sock"), 0);
	assert_int_equal(connect_path_ok("rel.sock"), 0);
	memset(p, 'a', 107);
	p[107] = 0;
	assert_int_equal(connect_path_ok(p), 0); /* 107 bytes and the NUL: sun_path */
	p[107] = 'a';
	p[108] = 0;
	errno = 0;
	assert_int_equal(connect_path_ok(p), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(connect_path_ok(""), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(connect_path_ok("/a\nb"), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_connect_parse_mode(void **state)
{
	mode_t m = 1;

	(void)state;
	assert_int_equal(connect_parse_mode("600", &m), 0);
	assert_int_equal(m, 0600);
	assert_int_equal(connect_parse_mode("0660", &m), 0);
	assert_int_equal(m, 0660);
	assert_int_equal(connect_parse_mode("0", &m), 0);
	assert_int_equal(m, 0);
	assert_int_equal(connect_parse_mode("777", &m), 0);
	assert_int_equal(m, 0777);
	const char *bad[] = { "",     "8",    "1000",  "4755", "-1", "0x1",
			      " 600", "600 ", "00600", "rw",   NULL };
	for (int i = 0; bad[i]; i++) {
		m = 1;
		errno = 0;
		assert_int_equal(connect_parse_mode(bad[i], &m), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(m, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_path_ok),
		cmocka_unit_test(test_connect_parse_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
