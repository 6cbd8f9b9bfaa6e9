// UNIT: lib/ptyenv.c lib/opt.c lib/wait.c lib/exec.c lib/status.c lib/log.c lib/userns.c lib/optdie.c cmd/otons/opts.c
/* Unit tests of lib/'s pure parts (and otons' namespace names). */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "oto.h"
#include "otons/otons.h"

static void test_opt_ulong(void **state)
{
	unsigned long v = 99;

	(void)state;
	assert_int_equal(opt_ulong("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(opt_ulong("10", 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(opt_ulong("11", 10, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(opt_ulong("99999999999999999999999", ~0UL, &v), -1);
	assert_int_equal(errno, ERANGE);
	const char *bad[] = { "", " 1", "-1", "+1", "1x", "0x10", "1 ", NULL };
	for (int i = 0; bad[i]; i++) {
		assert_int_equal(opt_ulong(bad[i], 100, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(opt_ulong(NULL, 100, &v), -1);
}

static void test_opt_id(void **state)
{
	unsigned int id;

	(void)state;
	assert_int_equal(opt_id("4294967294", &id), 0);
	assert_int_equal(id, 4294967294U);
	assert_int_equal(opt_id("4294967295", &id), -1); /* (uid_t)-1 is never an id */
	assert_int_equal(opt_id("65534", &id), 0);
	assert_int_equal(id, 65534);
}

static void test_opt_split2(void **state)
{
	char a[8], b[8];

	(void)state;
	assert_int_equal(opt_split2("src:dst", a, sizeof(a), b, sizeof(b)), 0);
	assert_string_equal(a, "src");
	assert_string_equal(b, "dst");
	assert_int_equal(opt_split2("a:b:c", a, sizeof(a), b, sizeof(b)), 0);
	assert_string_equal(b, "b:c");
	assert_int_equal(opt_split2("nocolon", a, sizeof(a), b, sizeof(b)), -1);
	assert_int_equal(opt_split2(":b", a, sizeof(a), b, sizeof(b)), -1);
	assert_int_equal(opt_split2("a:", a, sizeof(a), b, sizeof(b)), -1);
	assert_int_equal(opt_split2("toolongname:b", a, sizeof(a), b, sizeof(b)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
}

static void test_wait_and_exec_codes(void **state)
{
	(void)state;
	assert_int_equal(wait_code(7 << 8), 7);  /* exited 7 */
	assert_int_equal(wait_code(SIGKILL), 137); /* killed by 9 */
	assert_int_equal(wait_code(SIGTERM), 143);
	assert_int_equal(exec_code(ENOENT), 127);
	assert_int_equal(exec_code(ENOTDIR), 127);
	assert_int_equal(exec_code(EACCES), 126);
	assert_int_equal(exec_code(ENOEXEC), 126);
}

static void test_ptyenv(void **state)
{
	char buf[32];
	int sock = -1;
	unsigned int m = 99;

	(void)state;
	assert_int_equal(ptyenv_format(buf, sizeof(buf), 5, 7), 5);
	assert_string_equal(buf, "5:012");
	assert_int_equal(ptyenv_format(buf, sizeof(buf), 12, 4), 4);
	assert_string_equal(buf, "12:2");
	assert_int_equal(ptyenv_format(buf, sizeof(buf), 3, 0), 2);
	assert_string_equal(buf, "3:");
	assert_int_equal(ptyenv_format(buf, 3, 5, 7), 0);
	assert_int_equal(ptyenv_parse("5:012", &sock, &m), 0);
	assert_int_equal(sock, 5);
	assert_int_equal(m, 7);
	assert_int_equal(ptyenv_parse("3:", &sock, &m), 0);
	assert_int_equal(sock, 3);
	assert_int_equal(m, 0);
	assert_int_equal(ptyenv_parse("1048576:1", &sock, &m), 0);
	assert_int_equal(m, 2);
	const char *bad[] = { "",     ":",	"5",	"5:3", "5:00",	   "5:10",
			      "5:0 ", " 5:0",	"05:0", "2:0", "0:",	   "-5:0",
			      "+5:0", "5:012x", "x:0",	"5;0", "1048577:", "99999999999999999999:0",
			      NULL };
	for (int i = 0; bad[i]; i++) {
		sock = -1;
		errno = 0;
		assert_int_equal(ptyenv_parse(bad[i], &sock, &m), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(sock, -1);
	}
	assert_int_equal(ptyenv_parse(NULL, &sock, &m), -1);
}

static void test_status_line(void **state)
{
	char buf[64];
	size_t n;

	(void)state;
	assert_int_equal(status_fd_parse("3"), 3);
	assert_int_equal(status_fd_parse("2"), -1);
	assert_int_equal(status_fd_parse("x"), -1);
	assert_int_equal(status_fd_parse(NULL), -1);
	n = status_format(buf, sizeof(buf), "otons", 127, 2, "unable to exec x");
	assert_string_equal(buf, "otons 127 2 unable to exec x\n");
	assert_int_equal(n, strlen(buf));
	/* Cut short, it is still one line. */
	n = status_format(buf, 16, "otons", 127, 2, "unable to exec something long");
	assert_int_equal(n, 15);
	assert_int_equal(buf[14], '\n');
}

static size_t fmt(char *buf, size_t size, enum log_level l, int err, const char *f, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, f);
	n = log_format(buf, size, "otomount", l, err, f, ap);
	va_end(ap);
	return n;
}

static void test_log_format(void **state)
{
	char buf[128];

	(void)state;
	fmt(buf, sizeof(buf), LOG_FATAL, ENOENT, "unable to bind %s on %s", "/srv/a", "/work");
	assert_string_equal(buf, "otomount: fatal: unable to bind /srv/a on /work: "
				 "No such file or directory\n");
	fmt(buf, sizeof(buf), LOG_WARN, 0, "x");
	assert_string_equal(buf, "otomount: warning: x\n");
	/* Truncated: one line, newline last, NUL after it. */
	assert_int_equal(fmt(buf, 20, LOG_INFO, 0, "a very long message indeed"), 19);
	assert_int_equal(buf[18], '\n');
	assert_null(memchr(buf, '\n', 18));
}

static void test_idmap_format(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(idmap_format(buf, sizeof(buf), 0, 65534, 1), 10);
	assert_string_equal(buf, "0 65534 1\n");
	assert_int_equal(idmap_format(buf, 4, 0, 65534, 1), 0);
}

static void test_ns_names(void **state)
{
	(void)state;
	assert_int_equal(otons_ns_flag("net"), CLONE_NEWNET);
	assert_int_equal(otons_ns_flag("mnt"), CLONE_NEWNS);
	assert_int_equal(otons_ns_flag("mount"), CLONE_NEWNS);
	assert_int_equal(otons_ns_flag("cgroup"), CLONE_NEWCGROUP);
	assert_int_equal(otons_ns_flag("time"), 0);
	assert_int_equal(otons_ns_flag(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_ulong),	 cmocka_unit_test(test_opt_id),
		cmocka_unit_test(test_opt_split2),	 cmocka_unit_test(test_wait_and_exec_codes),
		cmocka_unit_test(test_ptyenv),	 cmocka_unit_test(test_status_line),	 cmocka_unit_test(test_log_format),
		cmocka_unit_test(test_idmap_format), cmocka_unit_test(test_ns_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
