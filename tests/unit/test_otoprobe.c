// UNIT: cmd/otoprobe/parse.c lib/opt.c
/* Unit tests of otoprobe's pure parts: parsers, verdicts, escaping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otoprobe/otoprobe.h"

static void test_hostns_parse(void **state)
{
	unsigned long id = 0;
	int ns = -1;

	(void)state;
	assert_int_equal(hostns_parse("net:4026531833", &ns, &id), 0);
	assert_int_equal(ns, NS_NET);
	assert_int_equal(id, 4026531833UL);
	assert_int_equal(hostns_parse("user:1", &ns, &id), 0);
	assert_int_equal(ns, NS_USER);
	assert_int_equal(hostns_parse("cgroup:4294967295", &ns, &id), 0);
	assert_int_equal(ns, NS_CGROUP);
	const char *bad[] = { "net",   "net:",	 ":5",	    "mount:5",	      "time:5",
			      "net:0", "net:-1", "net:12a", "net:4294967296", "NET:5",
			      "",      NULL };
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(hostns_parse(bad[i], &ns, &id), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void test_ns_is_initial(void **state)
{
	(void)state;
	assert_true(ns_is_initial(NS_NET, 4026531833UL));
	assert_true(ns_is_initial(NS_USER, 4026531837UL));
	assert_true(ns_is_initial(NS_MNT, 4026531832UL));
	assert_true(ns_is_initial(NS_PID, 4026531836UL));
	assert_true(ns_is_initial(NS_IPC, 4026531839UL));
	assert_true(ns_is_initial(NS_UTS, 4026531838UL));
	assert_true(ns_is_initial(NS_CGROUP, 4026531835UL));
	assert_false(ns_is_initial(NS_NET, 4026531837UL)); /* the user one */
	assert_false(ns_is_initial(NS_NET, 4026532542UL));
	assert_false(ns_is_initial(NS_COUNT, 4026531833UL));
	assert_false(ns_is_initial(-1, 4026531833UL));
}

static const char STATUS[] = "Name:\totoprobe\nUmask:\t0022\nCapInh:\t0000000000000000\n"
			     "CapPrm:\t000001ffffffffff\nNoNewPrivs:\t1\nSeccomp:\t2\n"
			     "Seccomp_filters:\t2\n";

static void test_status_field(void **state)
{
	char v[32];

	(void)state;
	assert_int_equal(status_field(STATUS, "CapPrm", v, sizeof(v)), 0);
	assert_string_equal(v, "000001ffffffffff");
	assert_int_equal(status_field(STATUS, "Seccomp", v, sizeof(v)), 0);
	assert_string_equal(v, "2"); /* not Seccomp_filters */
	assert_int_equal(status_field(STATUS, "Seccomp_filters", v, sizeof(v)), 0);
	assert_string_equal(v, "2");
	assert_int_equal(status_field(STATUS, "Name", v, sizeof(v)), 0);
	assert_string_equal(v, "otoprobe");
	assert_int_equal(status_field(STATUS, "NoNewPrivs", v, sizeof(v)), 0);
	assert_string_equal(v, "1");
	assert_int_equal(status_field(STATUS, "CapAmb", v, sizeof(v)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(status_field(STATUS, "Cap", v, sizeof(v)), -1); /* a prefix only */
	assert_int_equal(status_field(STATUS, "CapPrm", v, 16), -1);	 /* 16 + NUL */
	assert_int_equal(errno, ERANGE);
	assert_int_equal(status_field("", "Name", v, sizeof(v)), -1);
}

static void test_mountinfo_parse(void **state)
{
	struct mountinfo_ent e;
	char l1[] =
	    "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n";
	char l2[] = "40 36 0:5 / /a\\040b\\134c ro,nosuid - tmpfs tmpfs rw";
	char l3[] = "41 36 0:6 / /x rw shared:3 master:4 - proc proc rw";
	char l4[] = "42 36 0:7 / /read rwx - tmpfs t rw"; /* "rwx" is not "rw" */
	char bad1[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw";
	char bad2[] = "36 35 98:0 /mnt1";
	char bad3[] = "36 35 98:0 /mnt1 /mnt2 rw -";

	(void)state;
	assert_int_equal(mountinfo_parse(l1, &e), 0);
	assert_string_equal(e.mountpoint, "/mnt2");
	assert_string_equal(e.options, "rw,noatime");
	assert_string_equal(e.fstype, "ext3");
	assert_int_equal(e.writable, 1);
	assert_int_equal(mountinfo_parse(l2, &e), 0);
	assert_string_equal(e.mountpoint, "/a b\\c");
	assert_string_equal(e.fstype, "tmpfs");
	assert_int_equal(e.writable, 0);
	assert_int_equal(mountinfo_parse(l3, &e), 0);
	assert_string_equal(e.fstype, "proc");
	assert_int_equal(e.writable, 1);
	assert_int_equal(mountinfo_parse(l4, &e), 0);
	assert_int_equal(e.writable, 0);
	assert_int_equal(mountinfo_parse(bad1, &e), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(mountinfo_parse(bad2, &e), -1);
	assert_int_equal(mountinfo_parse(bad3, &e), -1);
}

static void test_uidmap_verdict(void **state)
{
	(void)state;
	assert_int_equal(uidmap_verdict("         0          0 4294967295\n"), V_GAP);
	assert_int_equal(uidmap_verdict("     65534      65534          1\n"), V_OK);
	assert_int_equal(uidmap_verdict("0 100000 65536\n"), V_OK);
	assert_int_equal(uidmap_verdict("0 0 1\n"), V_GAP);		 /* root is root */
	assert_int_equal(uidmap_verdict("1000 1000 1\n0 0 1\n"), V_GAP); /* second line */
	assert_int_equal(uidmap_verdict(""), V_GAP);			 /* no map at all */
	assert_int_equal(uidmap_verdict("garbage\n"), V_GAP);
}

static void test_syscall_verdict(void **state)
{
	static const int extra[] = { ENOSPC };

	(void)state;
	assert_int_equal(syscall_verdict(EPERM, NULL, 0), V_OK);
	assert_int_equal(syscall_verdict(EACCES, NULL, 0), V_OK);
	assert_int_equal(syscall_verdict(ENOSYS, NULL, 0), V_OK);
	assert_int_equal(syscall_verdict(0, NULL, 0), V_GAP);
	assert_int_equal(syscall_verdict(EINVAL, NULL, 0), V_GAP);
	assert_int_equal(syscall_verdict(EFAULT, NULL, 0), V_GAP);
	assert_int_equal(syscall_verdict(EBADF, NULL, 0), V_GAP);
	assert_int_equal(syscall_verdict(ENOSPC, NULL, 0), V_GAP);
	assert_int_equal(syscall_verdict(ENOSPC, extra, 1), V_OK);
	assert_int_equal(syscall_verdict(0, extra, 1), V_GAP);
}

static void test_connect_verdict(void **state)
{
	static const int ok[] = { EACCES,   EPERM,	   ENETUNREACH,	 EHOSTUNREACH,
				  ENETDOWN, EADDRNOTAVAIL, EAFNOSUPPORT, ECONNREFUSED };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		assert_int_equal(connect_verdict(ok[i]), V_OK);
	assert_int_equal(connect_verdict(0), V_GAP);
	assert_int_equal(connect_verdict(ETIMEDOUT), V_GAP);
	assert_int_equal(connect_verdict(ECONNRESET), V_GAP);
	assert_int_equal(connect_verdict(EINVAL), V_GAP);
}

static void test_env_name_is_secret(void **state)
{
	const char *yes[] = { "OPENAI_API_KEY", "GITHUB_TOKEN",	    "db_password",
			      "AWS_REGION",	"MY_SECRET",	    "GH_PAT",
			      "x_pat",		"SSH_AUTH_SOCK",    "HTTP_PASSWD",
			      "SESSION_ID",	"CREDENTIALS_FILE", NULL };
	const char *no[] = { "PATH", "HOME", "TERM", "LANG", "PATTERN", "PWD", "SHLVL", "", NULL };

	(void)state;
	for (int i = 0; yes[i]; i++)
		assert_true(env_name_is_secret(yes[i]));
	for (int i = 0; no[i]; i++)
		assert_false(env_name_is_secret(no[i]));
}

static void test_json_escape(void **state)
{
	char b[128];

	(void)state;
	assert_int_equal(json_escape(b, sizeof(b), "plain /path"), 11);
	assert_string_equal(b, "plain /path");
	json_escape(b, sizeof(b), "q\"b\\n\nt\t\x01\x7f");
	assert_string_equal(b, "q\\\"b\\\\n\\u000at\\u0009\\u0001\\u007f");
	json_escape(b, sizeof(b), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(b, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* valid UTF-8 kept */
	/* Invalid: lone continuation, overlong, surrogate, truncated, 0xff. */
	json_escape(b, sizeof(b), "\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xff");
	assert_string_equal(b,
			    "\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd");
	/* Truncation: the length needed, and a terminated prefix. */
	assert_int_equal(json_escape(b, 4, "a\"bc"), 5);
	assert_string_equal(b, "a\\\"");
	assert_int_equal(json_escape(NULL, 0, "\n"), 6);
}

static void test_text_escape(void **state)
{
	char b[128];

	(void)state;
	text_escape(b, sizeof(b), "/a b/caf\xc3\xa9");
	assert_string_equal(b, "/a b/caf\xc3\xa9");
	/* An escape sequence planted in a file name stays inert. */
	text_escape(b, sizeof(b), "x\x1b[2Jy\n\\");
	assert_string_equal(b, "x\\x1b[2Jy\\x0a\\x5c");
	text_escape(b, sizeof(b),
		    "\xc2\x9b"
		    "31m\xff");
	assert_string_equal(b, "\\xc2\\x9b31m\\xff"); /* C1 CSI */
	assert_int_equal(text_escape(NULL, 0, "\x01"), 4);
}

static void test_errno_name(void **state)
{
	char b[24];

	(void)state;
	assert_string_equal(errno_name(EPERM, b, sizeof(b)), "EPERM");
	assert_string_equal(errno_name(ENETUNREACH, b, sizeof(b)), "ENETUNREACH");
	assert_string_equal(errno_name(EADDRNOTAVAIL, b, sizeof(b)), "EADDRNOTAVAIL");
	assert_string_equal(errno_name(4000, b, sizeof(b)), "errno 4000");
	assert_string_equal(b, "errno 4000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostns_parse),	cmocka_unit_test(test_ns_is_initial),
		cmocka_unit_test(test_status_field),	cmocka_unit_test(test_mountinfo_parse),
		cmocka_unit_test(test_uidmap_verdict),	cmocka_unit_test(test_syscall_verdict),
		cmocka_unit_test(test_connect_verdict), cmocka_unit_test(test_env_name_is_secret),
		cmocka_unit_test(test_json_escape),	cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_errno_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
