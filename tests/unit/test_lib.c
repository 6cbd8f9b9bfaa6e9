// UNIT: lib/opt.c lib/wait.c lib/exec_code.c lib/status_fd_parse.c lib/status_format.c
// UNIT: lib/log_format.c lib/idmap_format.c lib/fd_read_all.c lib/fd_send.c lib/fd_msg_init.c lib/fd_recv.c
// UNIT: cmd/otons/parse.c lib/ptyenv_format.c lib/event_head.c lib/ptyenv_parse.c lib/json_str.c lib/session_line.c
// UNIT: lib/file_read_at.c lib/exec_fail_format.c lib/fd_write_all.c lib/record_thin.c
// UNIT: lib/fd_read_whole.c lib/policy_name_ok.c lib/tty_stat_parse.c lib/tty_nr_of.c
/* Unit tests of lib/'s pure parts (and otons' namespace names). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sys/sysmacros.h>

#include "oto.h"
#include "otons/otons.h"

/* A host name, strictly: what the agent resolves may hold any byte in a label. */
static void test_policy_name_ok(void **state)
{
	static const char *const good[] = { "a.b",
					    "registry.npmjs.example",
					    "xn--bcher-kva.example",
					    "a-b.c-d.example",
					    "x1.example",
					    "1x.2y" };
	static const char *const bad[] = { "",
					   "a",
					   "example",
					   "*.amazonaws.com",
					   "exfil.example:22",
					   "a b.example",
					   "a.example.",
					   ".a.example",
					   "a..example",
					   "-a.example",
					   "a-.example",
					   "a.-b",
					   "a_b.example",
					   "1.2.3.4",
					   "a.123",
					   "a.b\n--allow" };
	char big[300];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(policy_name_ok(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(policy_name_ok(bad[i]));
	/* 63 bytes a label, 253 in all. */
	memset(big, 'a', 64);
	memcpy(big + 64, ".example", 9);
	assert_false(policy_name_ok(big));
	assert_true(policy_name_ok(big + 1));
	for (size_t i = 0; i < 254; i++)
		big[i] = i % 2 ? '.' : 'a';
	big[253] = 0;
	assert_true(policy_name_ok(big));
	big[253] = 'a';
	big[254] = 0;
	assert_false(policy_name_ok(big));
}

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

static void test_opt_bytes(void **state)
{
	unsigned long long v = 0;

	(void)state;
	assert_int_equal(opt_bytes("1048576", ULLONG_MAX, &v), 0);
	assert_true(v == 1048576ULL);
	assert_int_equal(opt_bytes("512M", ULLONG_MAX, &v), 0);
	assert_true(v == 512ULL << 20);
	assert_int_equal(opt_bytes("2g", ULLONG_MAX, &v), 0);
	assert_true(v == 2ULL << 30);
	assert_int_equal(opt_bytes("4K", ULLONG_MAX, &v), 0);
	assert_true(v == 4096);
	assert_int_equal(opt_bytes("1T", ULLONG_MAX, &v), 0);
	assert_true(v == 1ULL << 40);
	assert_int_equal(opt_bytes("256m", ULLONG_MAX, &v), 0);
	assert_true(v == 256ULL << 20);
	assert_int_equal(opt_bytes("1t", ULLONG_MAX, &v), 0);
	assert_true(v == 1ULL << 40);
	assert_int_equal(opt_bytes("1k", 1024, &v), 0);
	assert_true(v == 1024);
	errno = 0;
	assert_int_equal(opt_bytes("2k", 2047, &v), -1);
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(opt_bytes("99999999999999999999g", ULLONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	const char *bad[] = { "",     "0",   "0M",  "M",  "-1",	 " 1", "1 ", "1MB",
			      "1.5G", "1e9", "max", "1q", "1 m", "k",  NULL };
	for (int i = 0; bad[i]; i++) {
		errno = 0;
		assert_int_equal(opt_bytes(bad[i], ULLONG_MAX, &v), -1);
		assert_int_equal(errno, EINVAL);
	}
	errno = 0;
	assert_int_equal(opt_bytes("99999999999999999999", ULLONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(opt_bytes("17179869184T", ULLONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
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
	assert_int_equal(wait_code(7 << 8), 7);	   /* exited 7 */
	assert_int_equal(wait_code(SIGKILL), 137); /* killed by 9 */
	assert_int_equal(wait_code(SIGTERM), 143);
	assert_int_equal(exec_code(ENOENT), 127);
	assert_int_equal(exec_code(ENOTDIR), 127);
	assert_int_equal(exec_code(EACCES), 126);
	assert_int_equal(exec_code(ENOEXEC), 126);
}

/* 127 says where the search was made; inside a view, what the view holds. */
static void test_exec_fail_format(void **state)
{
	char b[512];
	const char *holds = "/bin /usr /work";

	(void)state;
	exec_fail_format(b, sizeof(b), "x", EACCES, "/bin", NULL, NULL, holds);
	assert_string_equal(b, "unable to exec x");
	exec_fail_format(b, sizeof(b), "/a/x", ENOENT, NULL, NULL, NULL, NULL);
	assert_string_equal(b, "unable to exec /a/x");
	exec_fail_format(b, sizeof(b), "node", ENOENT, "/usr/bin:/bin", NULL, NULL, NULL);
	assert_string_equal(b, "unable to exec node: not found in PATH=/usr/bin:/bin");
	exec_fail_format(b, sizeof(b), "node", ENOENT, "/usr/bin:/bin", NULL, NULL, holds);
	assert_string_equal(b, "unable to exec node: not found in the sandbox's view "
			       "(PATH=/usr/bin:/bin; the view holds /bin /usr /work; a host path "
			       "outside it is not there: bind it with --ro SRC:DST)");
	exec_fail_format(b, sizeof(b), "/root/x", ENOTDIR, NULL, NULL, NULL, holds);
	assert_string_equal(b, "unable to exec /root/x: not found in the sandbox's view (the "
			       "view holds /bin /usr /work; a host path outside it is not there: "
			       "bind it with --ro SRC:DST)");
	exec_fail_format(b, sizeof(b), "s", ENOENT, "/w", "/w/s", "/root/node", holds);
	assert_string_equal(b, "unable to exec s: /w/s is there, but its interpreter /root/node "
			       "is not in the sandbox's view (the view holds /bin /usr /work; a "
			       "host path outside it is not there: bind it with --ro SRC:DST)");
	exec_fail_format(b, sizeof(b), "/w/s", ENOENT, NULL, "/w/s", NULL, NULL);
	assert_string_equal(b, "unable to exec /w/s: /w/s is there, but its interpreter (its #! "
			       "line or ELF loader) is not");
	/* Cut short, still a string. */
	assert_true(exec_fail_format(b, 8, "node", ENOENT, "/bin", NULL, NULL, holds) > 8);
	assert_string_equal(b, "unable ");
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

static void test_event_head(void **state)
{
	char buf[96], want[96];
	struct timespec t = { .tv_sec = 0, .tv_nsec = 999999999 };
	struct tm tm;

	(void)state;
	assert_int_equal(event_head(buf, sizeof(buf), &t, "net", "s1"), 67);
	assert_string_equal(
	    buf, "{\"time\":\"1970-01-01T00:00:00.999999Z\",\"source\":\"net\",\"session\":\"s1\"");
	t.tv_sec = -1;
	t.tv_nsec = 0;
	assert_true(event_head(buf, sizeof(buf), &t, "seccomp", "s1") > 0);
	assert_string_equal(
	    buf,
	    "{\"time\":\"1969-12-31T23:59:59.000000Z\",\"source\":\"seccomp\",\"session\":\"s1\"");
	/* Leap days and century years: what gmtime_r says, every 7 hours and a
	 * second from 1900 to 2400. */
	for (long long s = -2208988800LL; s < 13569465600LL; s += 25201) {
		time_t sec = (time_t)s;

		t.tv_sec = sec;
		assert_non_null(gmtime_r(&sec, &tm));
		strftime(
		    want, sizeof(want),
		    "{\"time\":\"%Y-%m-%dT%H:%M:%S.000000Z\",\"source\":\"x\",\"session\":\"s\"",
		    &tm);
		assert_true(event_head(buf, sizeof(buf), &t, "x", "s") > 0);
		assert_string_equal(buf, want);
	}
	/* Too small: nothing, never a cut head. */
	assert_int_equal(event_head(buf, 67, &t, "net", "s1"), 0);
	assert_int_equal(event_head(buf, 68, &t, "net", "s1"), 67);
}

static void test_session_lines(void **state)
{
	char buf[512];
	struct timespec t = { .tv_sec = 1796176282, .tv_nsec = 0 };
	struct session se = { .id = "0123abcd" };
	size_t n;
	const char *chain[] = { "/usr/bin/otonet",
				"--log-fd",
				"3",
				"--",
				"otons",
				"--",
				"otomount",
				"--role",
				"member",
				"--person=al\"x",
				"--",
				"otoexec",
				"--",
				"/bin/sh",
				"-c",
				"secret prompt",
				NULL };
	const char *alone[] = { "otons", "--share", "net", NULL };

	(void)state;
	n = session_open_line(buf, sizeof(buf), &t, &se, "otonet", 1000, "ana", chain);
	assert_int_equal(n, strlen(buf));
	/* The chain to the agent's program; its arguments are the agent's, not the chain's. */
	assert_string_equal(
	    buf, "{\"time\":\"2026-12-02T01:51:22.000000Z\",\"source\":\"session\","
		 "\"session\":\"0123abcd\",\"verdict\":\"open\",\"stage\":\"otonet\","
		 "\"uid\":1000,\"account\":\"ana\",\"role\":\"member\",\"person\":\"al\\\"x\","
		 "\"chain\":[\"/usr/bin/otonet\",\"--log-fd\",\"3\",\"--\",\"otons\",\"--\","
		 "\"otomount\",\"--role\",\"member\",\"--person=al\\\"x\",\"--\",\"otoexec\","
		 "\"--\",\"/bin/sh\"]}\n");
	/* A stage alone, without "--": its words; no otomount, no role. */
	assert_true(session_open_line(buf, sizeof(buf), &t, &se, "otons", 7, NULL, alone) > 0);
	assert_non_null(strstr(buf, "\"account\":null,\"role\":null,\"person\":null,"
				    "\"chain\":[\"otons\",\"--share\",\"net\"]}\n"));
	/* Words that do not fit are counted, and the line stays whole. */
	assert_true(session_open_line(buf, 300, &t, &se, "otonet", 1000, "ana", chain) > 0);
	assert_non_null(strstr(buf, "],\"more\":"));
	assert_int_equal(buf[strlen(buf) - 1], '\n');
	n = session_close_line(buf, sizeof(buf), &t, &se, 3, SESSION_END_EXIT, 0, 1234567890LL);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "{\"time\":\"2026-12-02T01:51:22.000000Z\",\"source\":\"session\","
				 "\"session\":\"0123abcd\",\"verdict\":\"close\",\"exit\":3,"
				 "\"signal\":0,\"end\":\"exit\",\"grace_kill\":false,"
				 "\"duration_ms\":1234.567}\n");
	assert_true(session_close_line(buf, sizeof(buf), &t, &se, 137, SESSION_END_GATEWAY, 1, 0) >
		    0);
	assert_non_null(strstr(buf, "\"exit\":137,\"signal\":9,\"end\":\"gateway-gone\","
				    "\"grace_kill\":true,"));
	assert_int_equal(session_close_line(buf, 100, &t, &se, 0, SESSION_END_EXIT, 0, 0), 0);
	assert_true(session_id_ok("a") && session_id_ok("job-17:run.2_x"));
	assert_false(
	    session_id_ok("") || session_id_ok("a b") || session_id_ok("a\"") ||
	    session_id_ok("0123456789012345678901234567890123456789012345678901234567890123x"));
	/* json_str: escapes, and nothing when it does not fit. */
	buf[0] = 'x';
	assert_int_equal(json_str(buf, sizeof(buf), 1, "a\"\\\n\xff", 5), 20);
	assert_string_equal(buf, "x\"a\\\"\\\\\\u000a\\u00ff\"");
	assert_int_equal(json_str(buf, 20, 1, "a\"\\\n\xff", 5), 0);
	assert_int_equal(json_str(buf, 21, 1, "a\"\\\n\xff", 5), 20);
}

static void test_idmap_format(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(idmap_format(buf, sizeof(buf), 0, 65534, 1), 10);
	assert_string_equal(buf, "0 65534 1\n");
	assert_int_equal(idmap_format(buf, 4, 0, 65534, 1), 0);
}

/* A writer that sends its bytes in pieces, pausing between them: short reads. */
static int pieces(const char *const *p)
{
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	if (fork() == 0) {
		close(fds[0]);
		for (; *p; p++) {
			if (write(fds[1], *p, strlen(*p)) < 0)
				_exit(1);
			usleep(20000);
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static void test_file_read_at(void **state)
{
	char dir[] = "/tmp/oto-unit-XXXXXX", buf[8];
	int d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(d >= 0);
	int fd = openat(d, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_int_equal(write(fd, "1234567", 7), 7);
	close(fd);
	/* Whole, NUL-terminated; one byte more than fits: EFBIG, never a cut text. */
	assert_int_equal(file_read_at(d, "f", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "1234567");
	errno = 0;
	assert_int_equal(file_read_at(d, "f", buf, 7), -1);
	assert_int_equal(errno, EFBIG);
	errno = 0;
	assert_int_equal(file_read_at(d, "none", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOENT);
	unlinkat(d, "f", 0);
	close(d);
	rmdir(dir);
}

static void test_fd_read_whole(void **state)
{
	static const char *const three[] = { "ab", "cd", "ef", NULL };
	char big[10000];
	size_t len = 99;
	char *b;
	int fd, p[2];

	(void)state;
	/* Read on after a short read, to the end, NUL-terminated. */
	fd = pieces(three);
	b = fd_read_whole(fd, 6, &len);
	assert_non_null(b);
	assert_int_equal(len, 6);
	assert_string_equal(b, "abcdef");
	free(b);
	close(fd);
	wait(NULL);
	/* One byte over max is EFBIG, even when it comes in a later read. */
	fd = pieces(three);
	errno = 0;
	assert_null(fd_read_whole(fd, 5, &len));
	assert_int_equal(errno, EFBIG);
	close(fd);
	wait(NULL);
	/* Nothing at all: an empty string; max 0 still holds it. */
	fd = pieces((const char *const[]){ NULL });
	b = fd_read_whole(fd, 0, &len);
	assert_non_null(b);
	assert_int_equal(len, 0);
	assert_string_equal(b, "");
	free(b);
	close(fd);
	wait(NULL);
	/* More than the first allocation: the buffer grows, every byte kept. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], big, sizeof(big)), sizeof(big));
	close(p[1]);
	b = fd_read_whole(p[0], SIZE_MAX, &len);
	assert_non_null(b);
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(b, big, sizeof(big));
	assert_int_equal(b[len], 0);
	free(b);
	close(p[0]);
	/* A bad fd: its errno. */
	errno = 0;
	assert_null(fd_read_whole(-1, 10, &len));
	assert_int_equal(errno, EBADF);
}

static void test_fd_read_all(void **state)
{
	static const char *const three[] = { "ab", "cd", "ef", NULL };
	char buf[8];
	int fd;

	(void)state;
	/* Read on after a short read, to the end. */
	fd = pieces(three);
	assert_int_equal(fd_read_all(fd, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "abcdef", 6);
	close(fd);
	wait(NULL);
	/* Exactly size bytes fit; one more is EFBIG, even when it comes later. */
	fd = pieces(three);
	assert_int_equal(fd_read_all(fd, buf, 6), 6);
	close(fd);
	wait(NULL);
	fd = pieces(three);
	assert_int_equal(fd_read_all(fd, buf, 5), -1);
	assert_int_equal(errno, EFBIG);
	close(fd);
	wait(NULL);
	/* Nothing at all: 0; a bad fd: its errno. */
	fd = pieces((const char *const[]){ NULL });
	assert_int_equal(fd_read_all(fd, buf, sizeof(buf)), 0);
	close(fd);
	wait(NULL);
	assert_int_equal(fd_read_all(-1, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EBADF);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* What a child read from p[0] to its end: the count and a sum of the bytes, to res. */
static pid_t drain(const int p[2], int res)
{
	pid_t pid = fork();
	unsigned long long r[2] = { 0, 0 };
	unsigned char buf[4096];
	int fd = p[0];
	ssize_t n;

	if (pid != 0)
		return pid;
	close(p[1]);
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		for (ssize_t i = 0; i < n; i++)
			r[0]++, r[1] += buf[i];
	_exit(write(res, r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

static void test_fd_write_all(void **state)
{
	const size_t len = 8 << 20;
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART: EINTR, short writes */
	struct itimerval tick = { { 0, 200 }, { 0, 200 } }, off = { 0 };
	unsigned long long r[2], sum = 0;
	unsigned char *buf = malloc(len);
	int p[2], res[2], st;
	pid_t pid;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < len; i++)
		sum += buf[i] = (unsigned char)(i * 7 + i / 4099);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(res), 0);
	pid = drain(p, res[1]);
	assert_true(pid > 0);
	close(p[0]);
	close(res[1]);
	/* Far more than a pipe holds, written through signals: every byte, once, in order. */
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &tick, NULL), 0);
	assert_int_equal(fd_write_all(p[1], buf, len), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
	close(p[1]);
	assert_int_equal(read(res[0], r, sizeof(r)), sizeof(r));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	assert_true(r[0] == len);
	assert_true(r[1] == sum);
	close(res[0]);
	/* Nothing to write: 0, no call. A bad fd, a reader gone: -1 and the errno. */
	assert_int_equal(fd_write_all(-1, buf, 0), 0);
	assert_int_equal(fd_write_all(-1, buf, 1), -1);
	assert_int_equal(errno, EBADF);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	assert_int_equal(fd_write_all(p[1], buf, 1), -1);
	assert_int_equal(errno, EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	free(buf);
}

static void test_fd_send_recv(void **state)
{
	int sv[2], p[2], fd;
	char c = 0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	/* An fd: the same pipe, close-on-exec on the receiving side. */
	assert_int_equal(fd_send(sv[0], p[0], 0), 0);
	fd = fd_recv(sv[1]);
	assert_true(fd > 2);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(read(fd, &c, 1), 1);
	assert_int_equal(c, 'x');
	close(fd);
	/* No fd: the sender's errno, or EINVAL when it gave none. */
	assert_int_equal(fd_send(sv[0], -1, EACCES), 0);
	assert_int_equal(fd_recv(sv[1]), -1);
	assert_int_equal(errno, EACCES);
	assert_int_equal(fd_send(sv[0], -1, 0), 0);
	assert_int_equal(fd_recv(sv[1]), -1);
	assert_int_equal(errno, EINVAL);
	/* Not a message of fd_send: EPROTO. */
	assert_int_equal(send(sv[0], "ab", 2, 0), 2);
	assert_int_equal(fd_recv(sv[1]), -1);
	assert_int_equal(errno, EPROTO);
	/* The peer gone without a word: ENOMSG; sending to it: EPIPE, no SIGPIPE. */
	close(sv[0]);
	assert_int_equal(fd_recv(sv[1]), -1);
	assert_int_equal(errno, ENOMSG);
	assert_int_equal(fd_send(sv[1], p[0], 0), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
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

static void test_ns_names_of_flags(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(otons_ns_names(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET, b, sizeof(b)),
			 11);
	assert_string_equal(b, "mnt pid net");
	assert_int_equal(otons_ns_names(0, b, sizeof(b)), 0);
	assert_string_equal(b, "");
	assert_int_equal(otons_ns_names(CLONE_NEWNS | CLONE_NEWPID, b, 7), 0);
}

/* A stat line's tty_nr, whatever the command's name holds; a pts's number, encoded. */
static void test_tty_stat(void **state)
{
	static const char *const bad[] = {
		"",
		"12 (sh S 1 12 12 34817 12",
		"12 (sh) S 1 12 12 x 12 0",
		"12 (sh) S 1 12 12",
		"12 (sh) S 1 12 12 34817",
		"12 (sh) S 1 12 12 99999999999 1 0",
	};
	const char *ok = "4242 (a) b) c) S 1 4242 4242 34817 4242 4194560 0\n";
	unsigned long t = 7;

	(void)state;
	assert_int_equal(tty_stat_parse(ok, strlen(ok), &t), 0);
	assert_int_equal(t, 34817);
	assert_int_equal(tty_stat_parse("1 (init) S 0 1 1 0 -1 4194560", 29, &t), 0);
	assert_int_equal(t, 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(tty_stat_parse(bad[i], strlen(bad[i]), &t), -1);
	/* /dev/pts/1 is 136:1, /dev/pts/300 136:300 (minor past a byte). */
	assert_int_equal(tty_nr_of(makedev(136, 1)), 34817);
	assert_int_equal(tty_nr_of(makedev(136, 300)),
			 (300 & 0xff) | (136 << 8) | ((300 & ~0xff) << 12));
	assert_int_equal(tty_nr_of(makedev(4, 1)), 1025);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt_ulong),
		cmocka_unit_test(test_opt_bytes),
		cmocka_unit_test(test_opt_id),
		cmocka_unit_test(test_opt_split2),
		cmocka_unit_test(test_wait_and_exec_codes),
		cmocka_unit_test(test_exec_fail_format),
		cmocka_unit_test(test_ptyenv),
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_log_format),
		cmocka_unit_test(test_event_head),
		cmocka_unit_test(test_session_lines),
		cmocka_unit_test(test_idmap_format),
		cmocka_unit_test(test_ns_names),
		cmocka_unit_test(test_fd_read_all),
		cmocka_unit_test(test_fd_read_whole),
		cmocka_unit_test(test_fd_write_all),
		cmocka_unit_test(test_file_read_at),
		cmocka_unit_test(test_fd_send_recv),
		cmocka_unit_test(test_ns_names_of_flags),
		cmocka_unit_test(test_policy_name_ok),
		cmocka_unit_test(test_tty_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
