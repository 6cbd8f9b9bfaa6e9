// UNIT: cmd/otoexec/filter.c cmd/otoexec/profile.c build/gen/otoexec/default_profile.c
// UNIT: build/gen/otoexec/dev_profile.c cmd/otoexec/parse.c cmd/otoexec/landlock_abi.c
// UNIT: cmd/otoexec/bpf.c lib/opt.c lib/fd_send.c lib/fd_msg_init.c
/*
 * otoexec's compiled filters (filter.c) against a reference: the allowlist's
 * prefix (bpf_prefix: the unknown numbers and the calls allowed without a
 * condition, as ranges) must give, for every number below 1100, the x32
 * numbers, a foreign architecture, and the arguments the built-in profiles
 * test, exactly what the same profile compiled without it (filter_mode's
 * plain: every number a libseccomp rule, as before the prefix) gives. Both
 * sets are run here by a small classic-BPF interpreter (bpf_run.h), and
 * their programs combined the kernel's way (the strictest action wins).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <seccomp.h>

#include "oto.h"
#include "otoexec/otoexec.h"
#include "bpf_run.h"

/* Every program of the set, the kernel's way: the strictest action, the last loaded first. */
static uint32_t verdict(const struct bpf_set *s, const struct seccomp_data *d)
{
	uint32_t best = SECCOMP_RET_ALLOW;

	for (size_t i = s->nprog; i-- > 0;) {
		int64_t r = bpf_run(s->prog[i].insn, s->prog[i].len, d);

		assert_true(r >= 0);
		if ((int32_t)((uint32_t)r & SECCOMP_RET_ACTION_FULL) <
		    (int32_t)(best & SECCOMP_RET_ACTION_FULL))
			best = (uint32_t)r;
	}
	return best;
}

static char *text_of(const char *name, size_t *tlen);

static void compile(const char *name, int plain, unsigned char **b, size_t *len, struct bpf_set *s)
{
	struct profile p;
	struct prof_error e;
	size_t tlen;
	char *text = text_of(name, &tlen);

	assert_non_null(text);
	assert_int_equal(profile_parse(text, tlen, &p, &e), 0);
	free(text);
	assert_int_equal(filter_compile(&p, &(const struct filter_mode){ .plain = plain }, b, len),
			 0);
	profile_free(&p);
	assert_int_equal(bpf_set_parse(*b, *len, filter_arch(), s), BPF_SET_OK);
}

/* Argument values the profiles' conditions turn on, and a few beside them. */
static const uint64_t ARGS[] = {
	0,
	1,
	2,
	3,
	10,
	16,
	17,
	0x5412,
	0x541c,
	0x20000,
	0x10000000,
	0x40000000,
	0x80000000,
	0x7fff,
	0x0800,
	0x4000,
	0xc00,
	0x1c0,
	0x8000,
	0xffffffff,
	0x100000000ULL,
	~0ULL,
	0x00000010ULL << 32,
	0x2000000,
	0x40000000ULL << 1,
	0x00400000,
};

static void same(const char *name)
{
	unsigned char *nb, *pb;
	size_t nlen, plen, checked = 0;
	struct bpf_set ns, ps;
	struct seccomp_data d;
	const size_t na = ARRAY_SIZE(ARGS);

	compile(name, 0, &nb, &nlen, &ns);
	compile(name, 1, &pb, &plen, &ps);
	/* The prefix is what made it smaller: about 190 instructions against 1277 for default. */
	assert_true(nlen < plen);
	/* The scattered profile's allowed calls (over 200) are libseccomp's rules, not ranges. */
	if (!strcmp(name, "scattered"))
		assert_true(ns.prog[ns.nprog - 1].len > 200);
	for (int arch = 0; arch < 2; arch++) {
		for (uint32_t nr = 0; nr < 1100 + 8; nr++) {
			memset(&d, 0, sizeof(d));
			d.arch = arch ? AUDIT_ARCH_I386 : filter_arch();
			d.nr = (int)(nr < 1100 ? nr : 0x40000000u + (nr - 1100) * 37);
			/* Every number with its arguments at 0, then each argument through ARGS. */
			for (size_t k = 0; k <= 6 * na; k++) {
				if (k) {
					memset(d.args, 0, sizeof(d.args));
					d.args[(k - 1) / na] = ARGS[(k - 1) % na];
				}
				if (verdict(&ns, &d) != verdict(&ps, &d))
					fail_msg("%s: arch %#x nr %d args %llx %llx %llx: %#x "
						 "against %#x",
						 name, d.arch, d.nr, (unsigned long long)d.args[0],
						 (unsigned long long)d.args[1],
						 (unsigned long long)d.args[2], verdict(&ns, &d),
						 verdict(&ps, &d));
				checked++;
			}
		}
	}
	assert_true(checked > 300000);
	free(nb);
	free(pb);
}

static void test_default_same_as_without_prefix(void **state)
{
	(void)state;
	same("default");
}

static void test_dev_same_as_without_prefix(void **state)
{
	(void)state;
	same("dev");
}

/*
 * A profile of its own that allows every other known call: too many ranges
 * for the prefix, so libseccomp takes the allowed calls as before (the
 * unknown numbers stay in the prefix), with the same verdicts.
 */
static char *text_of(const char *name, size_t *tlen)
{
	char *t;
	size_t len = 0, cap = 65536;

	if (strcmp(name, "scattered"))
		return profile_builtin_text(name, tlen);
	t = malloc(cap);
	assert_non_null(t);
	len += (size_t)snprintf(t, cap, "default errno EPERM\nunknown errno ENOSYS\n");
	for (int nr = 0, k = 0; nr < 1024; nr++) {
		char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (n && k++ % 2 == 0 && len + strlen(n) + 8 < cap)
			len += (size_t)snprintf(t + len, cap - len, "allow %s\n", n);
		free(n);
	}
	*tlen = len;
	return t;
}

static void test_scattered_profile_same_as_without_prefix(void **state)
{
	(void)state;
	same("scattered");
}

/* The interpreter itself, on a prefix of known shape: a number in a range, around it, the arch. */
static void test_prefix_shape(void **state)
{
	const uint32_t unk[][2] = { { 10, 12 }, { 20, 20 } }, alw[][2] = { { 0, 5 } };
	struct bpf_prefix_group g[2] = { { unk, 2, SECCOMP_RET_ERRNO | 38 },
					 { alw, 1, SECCOMP_RET_ALLOW } };
	struct sock_filter f[BPF_PREFIX_LEN(3, 2) + 1];
	size_t n = bpf_prefix(f, AUDIT_ARCH_X86_64, g, 2);
	struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64 };
	const int64_t fallthrough = 0x12345;

	(void)state;
	assert_int_equal(n, BPF_PREFIX_LEN(3, 2));
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (uint32_t)fallthrough);
	for (int nr = 0; nr < 30; nr++) {
		int64_t want = nr <= 5				    ? SECCOMP_RET_ALLOW
			       : (nr >= 10 && nr <= 12) || nr == 20 ? SECCOMP_RET_ERRNO | 38
								    : fallthrough;

		d.nr = nr;
		assert_int_equal(bpf_run(f, n + 1, &d), want);
	}
	d.arch = AUDIT_ARCH_I386;
	d.nr = 3;
	assert_int_equal(bpf_run(f, n + 1, &d), fallthrough);
	/* Over the limits: nothing written. */
	assert_int_equal(bpf_prefix(f, AUDIT_ARCH_X86_64, g, BPF_PREFIX_MAX_GROUPS + 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_shape),
		cmocka_unit_test(test_default_same_as_without_prefix),
		cmocka_unit_test(test_dev_same_as_without_prefix),
		cmocka_unit_test(test_scattered_profile_same_as_without_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
