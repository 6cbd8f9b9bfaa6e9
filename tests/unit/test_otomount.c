// UNIT: lib/opt.c cmd/otomount/parse.c cmd/otomount/etcgen.c
/* Unit tests of otomount's pure parts: option values and the generated /etc files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oto.h"
#include "otomount/otomount.h"

static void test_view_path_ok(void **state)
{
	const char *good[] = { "/a", "/work/.git/hooks", "/a/b.c/..d", "/.x", NULL };
	const char *bad[] = { "",	"/",	   "a",	  "a/b", "/a/",	  "//a", "/a//b",
			      "/a/./b", "/a/../b", "/..", "/.",	 "/a/..", NULL };

	(void)state;
	for (int i = 0; good[i]; i++)
		assert_int_equal(view_path_ok(good[i]), 0);
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(view_path_ok(bad[i]), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void test_view_name_ok(void **state)
{
	const char *good[] = { "alice", "a.b-c_D9", "..a", NULL };
	const char *bad[] = {
		"",	".",
		"..",	"a/b",
		"../x", "a b",
		"é",	"12345678901234567890123456789012345678901234567890123456789012345",
		NULL
	};

	(void)state;
	for (int i = 0; good[i]; i++)
		assert_int_equal(view_name_ok(good[i]), 0);
	for (int i = 0; bad[i]; i++)
		assert_int_equal(view_name_ok(bad[i]), -1);
}

static void test_view_parse_bind(void **state)
{
	char *src, *dst;

	(void)state;
	assert_int_equal(view_parse_bind("/srv/a:/data", &src, &dst), 0);
	assert_string_equal(src, "/srv/a");
	assert_string_equal(dst, "/data");
	free(src);
	/* A launcher's tree: fd=N, N from 3 to 65535. */
	assert_int_equal(view_parse_bind("fd=100:/opt/cargo", &src, &dst), 0);
	assert_string_equal(src, "fd=100");
	assert_string_equal(dst, "/opt/cargo");
	assert_int_equal(view_src_fd(src), 100);
	free(src);
	assert_int_equal(view_src_fd("/srv/a"), -1);
	const char *bad[] = { "/a",	  "/a:",	   ":/b",	  "a:/b",
			      "/a:b",	  "/a:/",	   "/a:/b/../c",  "",
			      "fd=:/b",	  "fd=2:/b",	   "fd=65536:/b", "fd=1x:/b",
			      "fd=-3:/b", "fd=000003x:/b", "fd=3:b",	  NULL };
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(view_parse_bind(bad[i], &src, &dst), -1);
		assert_int_equal(errno, EINVAL);
	}
}

/* A socket's DST is what a client gives connect(2): 107 bytes at most. */
static void test_view_parse_socket(void **state)
{
	char *src, *dst, arg[300], longest[108];

	(void)state;
	assert_int_equal(view_parse_socket("/run/tools/m.sock:/tools/metrics.sock", &src, &dst), 0);
	assert_string_equal(src, "/run/tools/m.sock");
	assert_string_equal(dst, "/tools/metrics.sock");
	free(src);
	memset(longest, 'a', sizeof(longest) - 1);
	longest[0] = '/';
	longest[107] = 0;
	snprintf(arg, sizeof(arg), "/s:%s", longest);
	assert_int_equal(view_parse_socket(arg, &src, &dst), 0);
	assert_int_equal(strlen(dst), 107);
	free(src);
	snprintf(arg, sizeof(arg), "/s:%sa", longest);
	errno = 0;
	src = (char *)"untouched";
	assert_int_equal(view_parse_socket(arg, &src, &dst), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	const char *bad[] = { "/a", "/a:", ":/b", "a:/b", "/a:b", "/a:/", "/a:/b/../c", "", NULL };
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(view_parse_socket(bad[i], &src, &dst), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void test_view_parse_tmpfs(void **state)
{
	char *dst;
	unsigned long size;

	(void)state;
	assert_int_equal(view_parse_tmpfs("/scratch", &dst, &size), 0);
	assert_string_equal(dst, "/scratch");
	assert_int_equal(size, 0);
	free(dst);
	assert_int_equal(view_parse_tmpfs("/s:16m", &dst, &size), 0);
	assert_string_equal(dst, "/s");
	assert_int_equal(size, 16UL << 20);
	free(dst);
	const char *bad[] = { "s", "/s:", "/s:0", "/s:x", "/:1m", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(view_parse_tmpfs(bad[i], &dst, &size), -1);
}

static void test_view_role(void **state)
{
	(void)state;
	assert_int_equal(view_role("manager"), ROLE_MANAGER);
	assert_int_equal(view_role("member"), ROLE_MEMBER);
	assert_int_equal(view_role("viewer"), ROLE_VIEWER);
	assert_int_equal(view_role("Manager"), ROLE_NONE);
	assert_int_equal(view_role(""), ROLE_NONE);
}

static void test_view_tmpfs_inodes(void **state)
{
	struct otomount_opts o = { 0 };

	(void)state;
	assert_int_equal(view_tmpfs_inodes(&o, 256UL << 20), 65536);
	assert_int_equal(view_tmpfs_inodes(&o, 1UL << 20), 256);
	assert_int_equal(view_tmpfs_inodes(&o, 6000), 16);
	/* Never 0: nr_inodes=0 is no limit at all. */
	assert_int_equal(view_tmpfs_inodes(&o, 1), 16);
	assert_int_equal(view_tmpfs_inodes(&o, ~0UL), ~0UL / 4096);
	o.tmp_inodes = 1000;
	assert_int_equal(view_tmpfs_inodes(&o, 256UL << 20), 1000);
	assert_int_equal(view_tmpfs_inodes(&o, 4096), 1000);
}

static void test_etc_files(void **state)
{
	char buf[256];
	size_t n;

	(void)state;
	n = etc_passwd(buf, sizeof(buf), "agent", 65534, 65534, "/home/agent");
	assert_string_equal(buf, "root:x:0:0:root:/root:/bin/sh\n"
				 "agent:x:65534:65534:agent:/home/agent:/bin/sh\n");
	assert_int_equal(n, strlen(buf));
	/* The agent as uid 0 in its namespace: one root line, with the view's home. */
	etc_passwd(buf, sizeof(buf), "agent", 0, 0, "/home/agent");
	assert_string_equal(buf, "root:x:0:0:root:/home/agent:/bin/sh\n");
	etc_group(buf, sizeof(buf), "bot", 1000);
	assert_string_equal(buf, "root:x:0:\nbot:x:1000:\n");
	etc_group(buf, sizeof(buf), "bot", 0);
	assert_string_equal(buf, "root:x:0:\n");
	n = etc_hosts(buf, sizeof(buf), "agent");
	assert_string_equal(buf, "127.0.0.1\tlocalhost\n127.0.1.1\tagent\n"
				 "::1\tlocalhost ip6-localhost ip6-loopback\n"
				 "ff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n");
	assert_int_equal(n, strlen(buf));
	/* Too small: 0, never a truncated file. */
	assert_int_equal(etc_passwd(buf, 10, "agent", 1, 1, "/h"), 0);
	assert_int_equal(etc_hosts(buf, 10, "agent"), 0);

	{
		const unsigned char rnd[16] = { 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
						0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x10 };

		assert_int_equal(etc_machine_id(buf, sizeof(buf), rnd), 33);
		assert_string_equal(buf, "000123456789abcdeffedcba98765410\n");
		assert_int_equal(etc_machine_id(buf, 33, rnd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_path_ok),	  cmocka_unit_test(test_view_name_ok),
		cmocka_unit_test(test_view_parse_bind),	  cmocka_unit_test(test_view_parse_socket),
		cmocka_unit_test(test_view_parse_tmpfs),  cmocka_unit_test(test_view_role),
		cmocka_unit_test(test_view_tmpfs_inodes), cmocka_unit_test(test_etc_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
