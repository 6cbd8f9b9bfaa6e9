// UNIT: cmd/otoexec/profile.c build/gen/otoexec/default_profile.c build/gen/otoexec/dev_profile.c
// UNIT: cmd/otoexec/parse.c cmd/otoexec/landlock_abi.c cmd/otoexec/bpf.c lib/opt.c
/*
 * Unit tests of otoexec's pure parts (the built-in profiles, opts.c, profile.c: the glob
 * above): the profile parser, rlimits, capability and variable names, the
 * filter set format (bpf.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>
#include <linux/filter.h>
#include <seccomp.h>

#include "oto.h"
#include "otoexec/otoexec.h"

static int parse(const char *text, struct profile *p, struct prof_error *e)
{
	return profile_parse(text, strlen(text), p, e);
}

static void bad(const char *text, int line, const char *msg)
{
	struct profile p;
	struct prof_error e;

	assert_int_equal(parse(text, &p, &e), -1);
	assert_int_equal(e.line, line);
	assert_string_equal(e.msg, msg);
	assert_null(p.rules);
}

static const struct prof_rule *find(const struct profile *p, const char *name, size_t nth)
{
	int nr = seccomp_syscall_resolve_name(name);

	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].nr == nr && nth-- == 0)
			return &p->rules[i];
	return NULL;
}

static void test_default_profile(void **state)
{
	struct profile p;
	struct prof_error e;
	const struct prof_rule *r;

	(void)state;
	assert_int_equal(parse(OTOEXEC_DEFAULT_PROFILE, &p, &e), 0);
	assert_true(p.nrules > 300);
	assert_int_equal(p.def.act, PACT_ERRNO);
	assert_int_equal(p.def.err, EPERM);
	assert_true(p.have_unknown);
	assert_int_equal(p.unknown.err, ENOSYS);
	/* ioctl: allowed, TIOCSTI and TIOCLINUX refused on the low 32 bits, in filter 2. */
	r = find(&p, "ioctl", 0);
	assert_non_null(r);
	assert_int_equal(r->a.act, PACT_ALLOW);
	assert_int_equal(r->ncond, 0);
	r = find(&p, "ioctl", 1);
	assert_non_null(r);
	assert_int_equal(r->a.err, EPERM);
	assert_int_equal(r->cond[0].arg, 1);
	assert_int_equal(r->cond[0].op, POP_MASKED_EQ);
	assert_int_equal(r->cond[0].mask, 0xffffffffULL);
	assert_int_equal(r->cond[0].value, 0x5412);
	assert_true(profile_rule_is_arg_denial(&p, r));
	assert_int_equal(find(&p, "ioctl", 2)->cond[0].value, 0x541c);
	/* clone: only without namespace flags, in the allowlist itself. */
	r = find(&p, "clone", 0);
	assert_int_equal(r->cond[0].mask, 0x7e020000);
	assert_int_equal(r->cond[0].value, 0);
	assert_false(profile_rule_is_arg_denial(&p, r));
	assert_int_equal(find(&p, "clone3", 0)->a.err, ENOSYS);
	/* netlink only for the route protocol. */
	r = find(&p, "socket", 3);
	assert_int_equal(r->ncond, 2);
	assert_int_equal(r->cond[0].value, 16);
	assert_int_equal(r->cond[1].arg, 2);
	assert_int_equal(r->cond[1].value, 0);
	/* Refused ones are written out; none is allowed anywhere. */
	static const char *const refused[] = { "mount",
					       "keyctl",
					       "bpf",
					       "ptrace",
					       "io_uring_setup",
					       "userfaultfd",
					       "open_by_handle_at",
					       "init_module",
					       "unshare",
					       "setns",
					       "perf_event_open",
					       "kexec_load" };
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		r = find(&p, refused[i], 0);
		assert_non_null(r);
		assert_int_equal(r->a.act, PACT_ERRNO);
		assert_null(find(&p, refused[i], 1));
	}
	profile_free(&p);
}

static void test_syntax(void **state)
{
	struct profile p;
	struct prof_error e;

	(void)state;
	/* Comments, blanks, tabs, CRLF, no final newline, several names, numbers. */
	assert_int_equal(
	    parse("# c\n\n  default\tkill # x\r\nallow read write\r\n"
		  "errno 13 mkdir if arg1 & 0x1c0 == 0x40 and arg0 != 0\n"
		  "errno EACCES open if arg2 <= 5\nkill getppid if arg0 > 0x10 and arg1 >= 1 "
		  "and arg2 < 2\nunknown allow",
		  &p, &e),
	    0);
	assert_int_equal(p.def.act, PACT_KILL);
	assert_int_equal(p.unknown.act, PACT_ALLOW);
	assert_int_equal(p.nrules, 5);
	assert_int_equal(p.rules[1].nr, seccomp_syscall_resolve_name("write"));
	assert_int_equal(p.rules[2].line, 5);
	assert_int_equal(p.rules[2].a.err, 13);
	assert_int_equal(p.rules[2].ncond, 2);
	assert_int_equal(p.rules[2].cond[0].mask, 0x1c0);
	assert_int_equal(p.rules[2].cond[0].value, 0x40);
	assert_int_equal(p.rules[2].cond[1].op, POP_NE);
	assert_int_equal(p.rules[3].cond[0].op, POP_LE);
	assert_int_equal(p.rules[4].cond[0].op, POP_GT);
	assert_int_equal(p.rules[4].cond[1].op, POP_GE);
	assert_int_equal(p.rules[4].cond[2].op, POP_LT);
	profile_free(&p);
	/* Six conditions are the most a call has arguments for. */
	assert_int_equal(parse("default allow\nerrno EPERM mmap if arg0 == 0 and arg1 == 1 and "
			       "arg2 == 2 and arg3 == 3 and arg4 == 4 and arg5 == 5\n",
			       &p, &e),
			 0);
	assert_int_equal(p.rules[0].ncond, 6);
	profile_free(&p);
	/* A name this architecture lacks is accepted, with a pseudo number. */
	assert_int_equal(parse("default allow\nerrno EPERM chown32\n", &p, &e), 0);
	assert_true(p.rules[0].nr < 0);
	profile_free(&p);
}

static void test_errors(void **state)
{
	(void)state;
	bad("", 1, "no 'default' action");
	bad("allow read\n", 1, "no 'default' action");
	bad("default allow\ndefault kill\n", 2, "'default' given twice");
	bad("default allow\nunknown kill\nunknown kill\n", 3, "'unknown' given twice");
	bad("default allow extra\n", 1, "unexpected 'extra'");
	bad("default\n", 1, "missing action");
	bad("default errno\n", 1, "errno needs a value (EPERM, ENOSYS, or 1-4095)");
	bad("default errno 0\n", 1, "unknown errno '0'");
	bad("default errno 4096\n", 1, "unknown errno '4096'");
	bad("default errno -1\n", 1, "unknown errno '-1'");
	bad("default allow\nallow\n", 2, "no system call named");
	bad("default allow\nerrno EPERM\n", 2, "no system call named");
	bad("default allow\nallow read if\n", 2, "incomplete condition (argN OP VALUE)");
	bad("default allow\nallow read if arg0 ==\n", 2, "incomplete condition (argN OP VALUE)");
	bad("default allow\nallow read if arg0 & 1 ==\n", 2,
	    "incomplete condition (argN & MASK == VALUE)");
	bad("default allow\nallow read if arg0 & x == 1 and\n", 2, "bad mask 'x'");
	bad("default allow\nallow read if arg0 & 1 != 1\n", 2,
	    "a masked condition compares with ==, not '!='");
	bad("default allow\nallow read if arg0 & 1 == y\n", 2, "bad value 'y'");
	bad("default allow\nallow read if arg0 == 1 and\n", 2, "expected 'and CONDITION' at 'and'");
	bad("default allow\nallow read if arg0 == 1 and arg0 == 2\n", 2,
	    "an argument is compared twice in one rule");
	bad("default allow\nallow read if arg6 == 1\n", 2, "bad argument 'arg6' (arg0 to arg5)");
	bad("default allow\nallow read if arg == 1\n", 2, "bad argument 'arg' (arg0 to arg5)");
	bad("default allow\nallow read if arg00 == 1\n", 2, "bad argument 'arg00' (arg0 to arg5)");
	bad("default allow\nallow read if arg0 == 99999999999999999999\n", 2,
	    "bad value '99999999999999999999'");
	bad("default allow\nallow read if arg0 == -1\n", 2, "bad value '-1'");
	bad("default allow\nallow read if arg0 == 1 and arg1 == 1 and arg2 == 1 and arg3 == 1 and "
	    "arg4 == 1 and arg5 == 1 and arg0 == 1\n",
	    2, "more than 6 conditions");
	bad("default allow\nallow read nosuchcall\n", 2, "unknown system call 'nosuchcall'");
	bad("default allow\nerrno EPERM read\nallow read\n", 3,
	    "a second unconditional rule for read (line 2)");
	bad("default allow\nerrno EPERM read\nallow read if arg0 == 1\n", 3,
	    "a conditional rule must be stricter than the unconditional one for read (line 2)");
	bad("default allow\nerrno EPERM read\nerrno EACCES read if arg0 == 1\n", 3,
	    "a conditional rule must be stricter than the unconditional one for read (line 2)");
	bad("default allow\nfrobnicate read\n", 2,
	    "unknown action 'frobnicate' (allow, kill, errno E)");
}

static void test_nul_and_long_lines(void **state)
{
	static char big[5000];
	struct profile p;
	struct prof_error e;
	const char nul[] = "default allow\nallow re\0ad\n";

	(void)state;
	assert_int_equal(profile_parse(nul, sizeof(nul) - 1, &p, &e), -1);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.msg, "NUL byte in the text");
	memset(big, ' ', sizeof(big) - 1);
	memcpy(big, "default allow", 13);
	assert_int_equal(parse(big, &p, &e), -1);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.msg, "line longer than 4096 bytes");
	/* A long name fits the message, cut. */
	memset(big, 'a', 300);
	big[300] = 0;
	char text[5100];
	snprintf(text, sizeof(text), "default allow\nallow %s\n", big);
	assert_int_equal(parse(text, &p, &e), -1);
	assert_true(strlen(e.msg) < sizeof(e.msg));
}

static void test_errno_names(void **state)
{
	(void)state;
	assert_int_equal(profile_errno_parse("EPERM"), EPERM);
	assert_int_equal(profile_errno_parse("ENOSYS"), ENOSYS);
	assert_int_equal(profile_errno_parse("1"), 1);
	assert_int_equal(profile_errno_parse("4095"), 4095);
	assert_int_equal(profile_errno_parse("0"), -1);
	assert_int_equal(profile_errno_parse("eperm"), -1);
	assert_int_equal(profile_errno_parse("12x"), -1);
	assert_string_equal(profile_errno_name(EACCES), "EACCES");
	assert_null(profile_errno_name(4000));
}

static void test_rlimit_parse(void **state)
{
	struct rlim_opt r;

	(void)state;
	assert_int_equal(rlimit_parse("nofile=64:128", &r), 0);
	assert_int_equal(r.resource, RLIMIT_NOFILE);
	assert_int_equal(r.soft, 64);
	assert_int_equal(r.hard, 128);
	assert_int_equal(rlimit_parse("core=0", &r), 0);
	assert_int_equal(r.resource, RLIMIT_CORE);
	assert_int_equal(r.soft, 0);
	assert_int_equal(r.hard, 0);
	assert_int_equal(rlimit_parse("as=1:unlimited", &r), 0);
	assert_true(r.hard == RLIM_INFINITY);
	assert_int_equal(rlimit_parse("stack=unlimited", &r), 0);
	assert_true(r.soft == RLIM_INFINITY && r.hard == RLIM_INFINITY);
	assert_int_equal(rlimit_parse("nofile=10:5", &r), -1);
	assert_int_equal(rlimit_parse("nofile=unlimited:5", &r), -1);
	assert_int_equal(rlimit_parse("nofiles=1", &r), -1);
	assert_int_equal(rlimit_parse("nofile", &r), -1);
	assert_int_equal(rlimit_parse("nofile=", &r), -1);
	assert_int_equal(rlimit_parse("nofile=1:", &r), -1);
	assert_int_equal(rlimit_parse("nofile=-1", &r), -1);
	assert_int_equal(rlimit_parse("nofile=1:2:3", &r), -1);
	assert_int_equal(rlimit_parse("=1", &r), -1);
	assert_int_equal(rlimit_parse("averyveryverylongname=1", &r), -1);
}

static void test_cap_names(void **state)
{
	(void)state;
	assert_int_equal(cap_parse("net_bind_service"), 10);
	assert_int_equal(cap_parse("CAP_NET_BIND_SERVICE"), 10);
	assert_int_equal(cap_parse("cap_kill"), 5);
	assert_int_equal(cap_parse("SYS_ADMIN"), 21);
	assert_int_equal(cap_parse("all"), -1);
	assert_int_equal(cap_parse("12"), -1);
	assert_int_equal(cap_parse(""), -1);
	assert_int_equal(cap_parse("cap_"), -1);
	assert_int_equal(cap_parse("net-admin"), -1);
	assert_int_equal(cap_parse("cap_bogus"), -1);
	assert_int_equal(cap_parse("net_admin,kill"), -1);
}

static void test_env_refused(void **state)
{
	(void)state;
	assert_true(env_name_refused("LD_PRELOAD"));
	assert_true(env_name_refused("LD_LIBRARY_PATH"));
	assert_true(env_name_refused("LD_AUDIT"));
	assert_true(env_name_refused("BASH_ENV"));
	assert_true(env_name_refused("ENV"));
	assert_true(env_name_refused("GCONV_PATH"));
	assert_true(env_name_refused("MALLOC_CHECK_"));
	assert_true(env_name_refused("BASH_FUNC_x%%"));
	assert_true(env_name_refused("GLIBC_TUNABLES"));
	assert_false(env_name_refused("HOME"));
	assert_false(env_name_refused("SSH_AUTH_SOCK"));
	assert_false(env_name_refused("LDFLAGS"));
	assert_false(env_name_refused("ENVIRONMENT"));
}

/* What a partial Landlock ABI leaves unrestricted, by name (for the warning). */
static void test_landlock_abi(void **state)
{
	char b[160];

	(void)state;
	assert_int_equal(landlock_handled(1), 0x1fff);
	assert_int_equal(landlock_handled(2), 0x3fff);
	assert_int_equal(landlock_handled(3), 0x7fff);
	assert_int_equal(landlock_handled(4), 0x7fff);
	assert_int_equal(landlock_handled(7), 0xffff);
	assert_int_equal(landlock_unenforced(1, b, sizeof(b)), 83);
	assert_string_equal(b, "LANDLOCK_ACCESS_FS_REFER, LANDLOCK_ACCESS_FS_TRUNCATE, "
			       "LANDLOCK_ACCESS_FS_IOCTL_DEV");
	landlock_unenforced(2, b, sizeof(b));
	assert_string_equal(b, "LANDLOCK_ACCESS_FS_TRUNCATE, LANDLOCK_ACCESS_FS_IOCTL_DEV");
	landlock_unenforced(4, b, sizeof(b));
	assert_string_equal(b, "LANDLOCK_ACCESS_FS_IOCTL_DEV");
	assert_int_equal(landlock_unenforced(5, b, sizeof(b)), 0);
	assert_string_equal(b, "");
	/* Too small a buffer: 0, never a name cut short. */
	assert_int_equal(landlock_unenforced(1, b, 30), 0);
	assert_string_equal(rlimit_name(RLIMIT_NOFILE), "nofile");
	assert_string_equal(rlimit_name(RLIMIT_AS), "as");
	assert_string_equal(rlimit_name(-1), "?");
}

/* A set of n programs of len[i] instructions each (instruction k of program i: code i, k = k). */
static size_t mkset(unsigned char *b, uint32_t arch, size_t n, const size_t *len)
{
	size_t pos = bpf_set_head(b, arch, (uint32_t)n);

	for (size_t i = 0; i < n; i++) {
		pos += bpf_set_prog_head(b + pos, (uint32_t)len[i]);
		for (size_t k = 0; k < len[i]; k++) {
			struct sock_filter f = { .code = (uint16_t)i, .k = (uint32_t)k };

			memcpy(b + pos, &f, sizeof(f));
			pos += sizeof(f);
		}
	}
	assert_int_equal(pos, bpf_set_size(len, n));
	return pos;
}

static void test_bpf_set(void **state)
{
	static _Alignas(8) unsigned char b[BPF_SET_MAX_BYTES + 64];
	const size_t two[] = { 3, 5 }, big[] = { 4096, 4096, 4096, 4096 }, over[] = { 4097 };
	struct bpf_set s;
	size_t n;
	uint32_t v;

	(void)state;
	n = mkset(b, 0xc000003e, 2, two);
	assert_int_equal(n, 16 + 8 + 24 + 8 + 40);
	assert_int_equal(bpf_set_parse(b, n, 0xc000003e, &s), BPF_SET_OK);
	assert_int_equal(s.nprog, 2);
	assert_int_equal(s.arch, 0xc000003e);
	assert_int_equal(s.prog[0].len, 3);
	assert_int_equal(s.prog[1].len, 5);
	assert_ptr_equal(s.prog[0].insn, (const void *)(b + 24));
	assert_ptr_equal(s.prog[1].insn, (const void *)(b + 56));
	assert_int_equal(s.prog[1].insn[4].code, 1);
	assert_int_equal(s.prog[1].insn[4].k, 4);
	/* Whole, but for another machine: told apart, arch filled in. */
	assert_int_equal(bpf_set_parse(b, n, 0x40000003, &s), BPF_SET_ARCH);
	assert_int_equal(s.arch, 0xc000003e);
	/* Every cut short of the whole is truncated (or no head at all). */
	for (size_t cut = 0; cut < n; cut++) {
		enum bpf_set_err e = bpf_set_parse(b, cut, 0xc000003e, &s);

		assert_int_equal(e, cut < 16 ? BPF_SET_NOT : BPF_SET_SHORT);
		assert_int_equal(s.nprog, 0);
	}
	assert_int_equal(bpf_set_parse(b, n + 8, 0xc000003e, &s), BPF_SET_TRAILING);
	assert_int_equal(bpf_set_parse(b, n + 1, 0xc000003e, &s), BPF_SET_TRAILING);
	/* The instructions are used in place: an odd address is refused. */
	memmove(b + 1, b, n);
	assert_int_equal(bpf_set_parse(b + 1, n, 0xc000003e, &s), BPF_SET_ALIGN);
	memmove(b, b + 1, n);
	/* Head fields. */
	b[0] = 'O';
	assert_int_equal(bpf_set_parse(b, n, 0xc000003e, &s), BPF_SET_NOT);
	b[0] = 'o';
	for (v = 0; v < 8; v++) {
		memcpy(b + 12, &v, 4);
		assert_int_equal(bpf_set_parse(b, n, 0xc000003e, &s), v == 2 ? BPF_SET_OK
								      : v == 0 || v > 4
									  ? BPF_SET_COUNT
								      : v == 1 ? BPF_SET_TRAILING
									       : BPF_SET_SHORT);
	}
	v = 2;
	memcpy(b + 12, &v, 4);
	v = 1;
	memcpy(b + 20, &v, 4);
	assert_int_equal(bpf_set_parse(b, n, 0xc000003e, &s), BPF_SET_FLAGS);
	v = 0;
	memcpy(b + 20, &v, 4);
	memcpy(b + 16, &v, 4);
	assert_int_equal(bpf_set_parse(b, n, 0xc000003e, &s), BPF_SET_LENGTH);
	/* The limits: 4 programs of 4096 instructions, and no more. */
	n = mkset(b, 7, 4, big);
	assert_int_equal(n, BPF_SET_MAX_BYTES);
	assert_int_equal(bpf_set_parse(b, n, 7, &s), BPF_SET_OK);
	assert_int_equal(s.prog[3].len, 4096);
	n = mkset(b, 7, 1, over);
	assert_int_equal(bpf_set_parse(b, n, 7, &s), BPF_SET_LENGTH);
	/* A length whose bytes would overflow a size_t product is truncated, not wrapped. */
	v = 4096;
	memcpy(b + 16, &v, 4);
	assert_int_equal(bpf_set_parse(b, 16 + 8 + 8, 7, &s), BPF_SET_SHORT);
	for (int e = BPF_SET_OK; e <= BPF_SET_ARCH; e++)
		assert_string_not_equal(bpf_set_strerror((enum bpf_set_err)e), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_profile), cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_errors),		cmocka_unit_test(test_nul_and_long_lines),
		cmocka_unit_test(test_errno_names),	cmocka_unit_test(test_rlimit_parse),
		cmocka_unit_test(test_cap_names),	cmocka_unit_test(test_landlock_abi),
		cmocka_unit_test(test_env_refused),	cmocka_unit_test(test_bpf_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
