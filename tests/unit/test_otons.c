// UNIT: cmd/otons/parse.c lib/event_head.c lib/json_str.c lib/record_thin.c
/* Unit tests of otons' pure parts: namespace names, the cgroup options' values, cgroupfs text. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "otons/otons.h"

static void test_ns_names(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(otons_ns_flag("mnt"), CLONE_NEWNS);
	assert_int_equal(otons_ns_flag("mount"), CLONE_NEWNS);
	assert_int_equal(otons_ns_flag("cgroup"), CLONE_NEWCGROUP);
	assert_int_equal(otons_ns_flag("time"), 0);
	assert_int_equal(otons_ns_names(CLONE_NEWNS | CLONE_NEWCGROUP, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "mnt cgroup");
	assert_int_equal(otons_ns_names(CLONE_NEWNS | CLONE_NEWCGROUP, buf, 8), 0);
}

static void test_cpus_parse(void **state)
{
	unsigned long q = 0;

	(void)state;
	assert_int_equal(otons_cpus_parse("1", &q), 0);
	assert_int_equal(q, 100000);
	assert_int_equal(otons_cpus_parse("1.5", &q), 0);
	assert_int_equal(q, 150000);
	assert_int_equal(otons_cpus_parse("0.25", &q), 0);
	assert_int_equal(q, 25000);
	assert_int_equal(otons_cpus_parse("0.01", &q), 0);
	assert_int_equal(q, 1000);
	assert_int_equal(otons_cpus_parse("4096", &q), 0);
	assert_int_equal(q, 409600000);
	const char *bad[] = { "", ".5", "1.", "1.234", "-1", "1,5", "one", "1 ", NULL };
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(otons_cpus_parse(bad[i], &q), -1);
		assert_int_equal(errno, EINVAL);
	}
	const char *range[] = { "0", "0.00", "4097", "99999999999", NULL };
	for (int i = 0; range[i]; i++) {
		errno = 0;
		assert_int_equal(otons_cpus_parse(range[i], &q), -1);
		assert_int_equal(errno, ERANGE);
	}
}

static void test_word_in(void **state)
{
	(void)state;
	assert_true(otons_word_in("cpuset cpu io memory pids\n", "cpu"));
	assert_true(otons_word_in("cpuset cpu io memory pids\n", "pids"));
	assert_true(otons_word_in("memory", "memory"));
	assert_false(otons_word_in("cpuset io memory\n", "cpu"));
	assert_false(otons_word_in("hugetlb\n", "memory"));
	assert_false(otons_word_in("", "pids"));
	assert_false(otons_word_in("rdma_pids", "pids"));
	assert_false(otons_word_in("pids", ""));
}

static void test_cgroup2_mount(void **state)
{
	char out[64];

	(void)state;
	const char *hybrid =
	    "25 1 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
	    "30 25 0:26 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
	    "31 30 0:27 / /sys/fs/cgroup/memory rw shared:9 - cgroup cgroup rw,memory\n"
	    "40 30 0:35 / /sys/fs/cgroup/unified rw shared:12 - cgroup2 cgroup2 rw\n";
	assert_int_equal(otons_cgroup2_mount(hybrid, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	/* A cgroup2 mount seen from inside a cgroup namespace has another root: skipped. */
	const char *nested = "50 1 0:35 /../.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
			     "51 1 0:35 / /mnt/my\\040cg rw - cgroup2 none rw,nsdelegate\n";
	assert_int_equal(otons_cgroup2_mount(nested, out, sizeof(out)), 0);
	assert_string_equal(out, "/mnt/my cg");
	errno = 0;
	assert_int_equal(
	    otons_cgroup2_mount("25 1 0:22 / /sys rw - sysfs sysfs rw\n", out, sizeof(out)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(otons_cgroup2_mount("", out, sizeof(out)), -1);
	assert_int_equal(otons_cgroup2_mount("garbage - cgroup2 x\n", out, sizeof(out)), -1);
	/* Too long for out: not found rather than cut. */
	assert_int_equal(otons_cgroup2_mount(hybrid, out, 8), -1);
}

static void test_events_value(void **state)
{
	unsigned long long v = 7;

	(void)state;
	const char *mem = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 1\n";
	assert_int_equal(otons_events_value(mem, "oom_kill", &v), 0);
	assert_true(v == 2);
	assert_int_equal(otons_events_value(mem, "max", &v), 0);
	assert_true(v == 12);
	assert_int_equal(otons_events_value("populated 0\nfrozen 0\n", "populated", &v), 0);
	assert_true(v == 0);
	errno = 0;
	assert_int_equal(otons_events_value(mem, "oom_kil", &v), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(otons_events_value("max x\n", "max", &v), -1);
	assert_int_equal(otons_events_value("", "max", &v), -1);
}

static void test_refusal_format(void **state)
{
	char buf[512];
	struct timespec t = { .tv_sec = 1764568800, .tv_nsec = 123456789 };
	struct otons_refusal rf = { .session = "ab12",
				    .pid = 42,
				    .comm = "py\"x",
				    .exe = "/usr/bin/python3",
				    .name = "unshare",
				    .nr = 272,
				    .args = { 268435456, 0, 0, 0, 0, 18446744073709551615ULL },
				    .count = 7 };

	(void)state;
	int n = otons_refusal_format(buf, sizeof(buf), &t, &rf);

	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "{\"time\":\"2025-12-01T06:00:00.123456Z\",\"source\":\"seccomp\","
				 "\"session\":\"ab12\",\"verdict\":\"deny\",\"pid\":42,"
				 "\"comm\":\"py\\\"x\",\"exe\":\"/usr/bin/python3\","
				 "\"syscall\":\"unshare\",\"nr\":272,\"args\":[268435456,0,0,0,0,"
				 "18446744073709551615],\"errno\":\"EPERM\",\"count\":7}\n");
	/* A number without a name, and a name that would need escaping: "?". */
	rf.name = NULL;
	rf.nr = 999;
	rf.comm = rf.exe = NULL;
	assert_true(otons_refusal_format(buf, sizeof(buf), &t, &rf) > 0);
	assert_non_null(strstr(buf, "\"comm\":null,\"exe\":null,\"syscall\":\"?\",\"nr\":999"));
	rf.name = "a\"b";
	assert_true(otons_refusal_format(buf, sizeof(buf), &t, &rf) > 0);
	assert_non_null(strstr(buf, "\"syscall\":\"?\""));
	/* Too small: nothing, never a cut line, whatever the size. */
	rf.name = "bpf";
	rf.comm = "bpf-loop";
	rf.exe = "/work/bpf-loop";
	n = otons_refusal_format(buf, sizeof(buf), &t, &rf);
	for (size_t size = 1; size <= (size_t)n; size++)
		assert_int_equal(otons_refusal_format(buf, size, &t, &rf), 0);
	assert_int_equal(otons_refusal_format(buf, (size_t)n + 1, &t, &rf), n);
}

static void test_audit_records(void **state)
{
	static const char access[] =
	    "audit(1796176282.394:5): domain=1e5c09ee7 blockers=fs.read_file "
	    "path=\"/etc/hostname\" dev=\"vda\" ino=733";
	/* A path with a space: the audit writes it in hex, unquoted. */
	static const char hexed[] = "audit(1796176282.394:6): domain=1e5c09ee7 "
				    "blockers=fs.write_file,fs.truncate path=2F746D702F6120620A "
				    "dev=\"vda\" ino=12";
	/* The event's SYSCALL record: the program, comm in hex (a space). */
	static const char sys[] = "arch=c000003e syscall=257 success=no exit=-13 ppid=1 pid=4242 "
				  "auid=4294967295 uid=0 ses=9 comm=6361742078 "
				  "exe=\"/usr/bin/cat\" key=(null)";
	char buf[1024], v[64];
	long long sec;
	unsigned int ms;
	unsigned long long serial;
	size_t body;
	struct timespec t;
	int n;

	(void)state;
	assert_int_equal(otons_audit_stamp(access, strlen(access), &sec, &ms, &serial, &body), 0);
	assert_true(sec == 1796176282LL && ms == 394 && serial == 5);
	assert_string_equal(access + body, "domain=1e5c09ee7 blockers=fs.read_file "
					   "path=\"/etc/hostname\" dev=\"vda\" ino=733");
	assert_int_equal(otons_audit_stamp("audit(17.5)", 11, &sec, &ms, &serial, &body), -1);
	assert_int_equal(otons_audit_stamp("type=1300", 9, &sec, &ms, &serial, &body), -1);
	assert_int_equal(otons_audit_stamp("audit(1.1000:2): x", 18, &sec, &ms, &serial, &body),
			 -1);
	/* Fields, quoted or not; a key is a whole word. */
	assert_int_equal(
	    otons_audit_field(access + body, strlen(access + body), "path", v, sizeof(v)), 13);
	assert_string_equal(v, "/etc/hostname");
	assert_int_equal(
	    otons_audit_field(access + body, strlen(access + body), "ino", v, sizeof(v)), 3);
	assert_string_equal(v, "733");
	assert_int_equal(
	    otons_audit_field(access + body, strlen(access + body), "in", v, sizeof(v)), -1);
	assert_int_equal(otons_audit_field(access + body, strlen(access + body), "path", v, 13),
			 -1);
	assert_int_equal(otons_audit_field("ses=4 pid=9", 11, "pid", v, sizeof(v)), 1);
	assert_string_equal(v, "9");

	t = (struct timespec){ .tv_sec = 1796176282, .tv_nsec = 394000000 };
	n = otons_landlock_format(buf, sizeof(buf), &t, "s9", 4242, access + body,
				  strlen(access + body), sys, strlen(sys), 3);
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf,
			    "{\"time\":\"2026-12-02T01:51:22.394000Z\",\"source\":\"landlock\","
			    "\"session\":\"s9\",\"verdict\":\"deny\",\"pid\":4242,"
			    "\"comm\":\"cat x\",\"exe\":\"/usr/bin/cat\",\"domain\":\"1e5c09ee7\","
			    "\"blockers\":\"fs.read_file\",\"path\":\"/etc/hostname\","
			    "\"dev\":\"vda\",\"ino\":\"733\",\"count\":3}\n");
	assert_int_equal(otons_audit_stamp(hexed, strlen(hexed), &sec, &ms, &serial, &body), 0);
	assert_true(otons_landlock_format(buf, sizeof(buf), &t, "s9", 1, hexed + body,
					  strlen(hexed + body), "", 0, 1) > 0);
	assert_non_null(strstr(buf,
			       ",\"blockers\":\"fs.write_file,fs.truncate\","
			       "\"path\":\"/tmp/a b\\u000a\",\"dev\":\"vda\",\"ino\":\"12\","));
	/* A quote or a backslash never ends the string early. */
	assert_true(
	    otons_landlock_format(buf, sizeof(buf), &t, "s9", 1, "path=2F225C", 11, "", 0, 1) > 0);
	assert_non_null(strstr(buf, ",\"path\":\"/\\\"\\\\\","));
	/* Too small: nothing, never a cut line. */
	assert_int_equal(otons_landlock_format(buf, 120, &t, "s9", 1, access + body,
					       strlen(access + body), sys, strlen(sys), 1),
			 0);
}

static void test_worth_a_line(void **state)
{
	char got[256] = "";

	(void)state;
	for (unsigned long c = 1; c <= 100000; c++)
		if (otons_worth_a_line(c))
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%lu ", c);
	assert_string_equal(got, "1 2 3 4 5 6 7 8 9 10 100 1000 10000 100000 ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ns_names),     cmocka_unit_test(test_cpus_parse),
		cmocka_unit_test(test_word_in),	     cmocka_unit_test(test_cgroup2_mount),
		cmocka_unit_test(test_events_value), cmocka_unit_test(test_audit_records),
		cmocka_unit_test(test_worth_a_line), cmocka_unit_test(test_refusal_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
