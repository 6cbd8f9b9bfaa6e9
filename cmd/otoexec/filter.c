/* SPDX-License-Identifier: ISC */
/*
 * A profile becomes two libseccomp filters:
 *
 *  1. the allowlist: the profile's default action, one rule per call, the
 *     conditional rules of calls without an unconditional rule (their
 *     misses fall to the default), and the unknown action for every number
 *     below 1024 that this build's table does not name; the unknown numbers
 *     and the calls allowed without a condition are ranges in a prefix that
 *     libseccomp does not write (bpf_prefix), not a rule each;
 *  2. the argument denials: default allow, and the conditional rules that are
 *     stricter than their call's unconditional rule (ioctl TIOCSTI). One
 *     libseccomp filter cannot hold both, because an unconditional rule
 *     overrides the conditional ones of the same call; the kernel runs every
 *     filter and keeps the strictest answer.
 *
 * Both accept only the native architecture: the x86-64 filter also refuses x32
 * numbers (bit 30), and int 0x80 arrives with the i386 audit arch; a process
 * that tries either is killed, since no honest program does.
 *
 * filter_compile exports both as raw BPF into a filter set (bpf.c);
 * filter_load loads a set. The build runs filter_compile on the built-in
 * profiles (gen/bpfgen.c), and otoexec on a profile file, so both paths load
 * what libseccomp generated, through the one load. A new action (a notifying
 * filter, say) is an action() case here and, if the kernel wants a flag for
 * it, that program's flag in filter_load.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otoexec.h"

#define UNKNOWN_LIMIT 1024

/*
 * The mode (struct filter_mode, the caller's) comes down to each function
 * that reads it. notify: when otons asked for a refusal log, the allowlist's
 * EPERM refusals become user notifications, which otons' supervisor answers
 * with EPERM (and logs). Only the allowlist's: the kernel keeps the strictest
 * answer of all filters, and an errno outranks a notification. plain:
 * without the prefix, every number a libseccomp rule, as before it existed:
 * the unit test's reference, which the prefixed filter must equal for every
 * number, architecture and argument it tries.
 */
static uint32_t action(const struct filter_mode *m, const struct prof_action *a)
{
	switch (a->act) {
	case PACT_ALLOW:
		return SCMP_ACT_ALLOW;
	case PACT_KILL:
		return SCMP_ACT_KILL_PROCESS;
	case PACT_ERRNO:
	default:
		if (m->notify && a->err == EPERM)
			return SCMP_ACT_NOTIFY;
		return SCMP_ACT_ERRNO((uint32_t)a->err);
	}
}

static const enum scmp_compare OPMAP[] = {
	[POP_EQ] = SCMP_CMP_EQ,
	[POP_NE] = SCMP_CMP_NE,
	[POP_LT] = SCMP_CMP_LT,
	[POP_LE] = SCMP_CMP_LE,
	[POP_GT] = SCMP_CMP_GT,
	[POP_GE] = SCMP_CMP_GE,
	[POP_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
};
_Static_assert(ARRAY_SIZE(OPMAP) == POP_NUM, "a comparison for each operator");

static int add(scmp_filter_ctx ctx, const struct filter_mode *m, uint32_t def,
	       const struct prof_rule *r)
{
	struct scmp_arg_cmp c[PROF_MAX_CONDS];
	uint32_t act = action(m, &r->a);
	int rc;

	/* A name this architecture lacks (chown32 on x86-64) compiles to nothing. */
	if (r->nr < 0 || act == def)
		return 0;
	for (unsigned int i = 0; i < r->ncond; i++) {
		c[i].arg = r->cond[i].arg;
		c[i].op = OPMAP[r->cond[i].op];
		if (r->cond[i].op == POP_MASKED_EQ) {
			c[i].datum_a = r->cond[i].mask;
			c[i].datum_b = r->cond[i].value;
		} else {
			c[i].datum_a = r->cond[i].value;
			c[i].datum_b = 0;
		}
	}
	rc = seccomp_rule_add_array(ctx, act, r->nr, r->ncond, c);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

static scmp_filter_ctx new_ctx(uint32_t def)
{
	scmp_filter_ctx ctx = seccomp_init(def);

	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * A binary tree of syscall numbers keeps the cost per call flat (about
	 * log2 of the rules), where the default linear list grows with them.
	 */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
	    /* no_new_privs is set by otoexec itself, in its place in the order. */
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0) {
		seccomp_release(ctx);
		errno = EINVAL;
		return NULL;
	}
	return ctx;
}

static int named(const struct profile *p, int nr)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].nr == nr)
			return 1;
	return 0;
}

/*
 * A call the prefix may allow (bpf_prefix), instead of a libseccomp rule: one
 * unconditional rule names it, an allow, where the default is not (its
 * conditional rules, if any, are argument denials: the second filter's). Two
 * unconditional rules for one call are left to libseccomp, which refuses
 * them as before.
 */
static int prefix_may_allow(const struct profile *p, const struct filter_mode *m, int nr)
{
	const struct prof_rule *u = NULL;

	if (m->plain || nr < 0 || nr >= UNKNOWN_LIMIT || p->def.act == PACT_ALLOW)
		return 0;
	for (size_t i = 0; i < p->nrules; i++) {
		if (p->rules[i].nr != nr || p->rules[i].ncond)
			continue;
		if (u)
			return 0;
		u = &p->rules[i];
	}
	return u && u->a.act == PACT_ALLOW;
}

/*
 * The allowlist's prefix, as ranges of numbers below 1024: the numbers this
 * build's table does not name and the profile does not either, when the
 * profile gives them an action of their own (the first group), and the
 * calls the prefix allows (the second), whose ranges may span unknown
 * numbers (the first group took those already). allows: the calls in the
 * second group's ranges, which the allowlist's libseccomp part leaves out.
 */
struct prefix {
	uint32_t range[BPF_PREFIX_MAX_RANGES][2];
	struct bpf_prefix_group g[BPF_PREFIX_MAX_GROUPS];
	const char *what[BPF_PREFIX_MAX_GROUPS]; /* for --explain: which group it is */
	size_t ng, used;
	char allows[UNKNOWN_LIMIT];
};

/* nr into the current group's open range, or a new one: -1 with E2BIG past the limit. */
static int prefix_add(struct prefix *x, int nr, int *open)
{
	struct bpf_prefix_group *g = &x->g[x->ng];

	if (!*open) {
		if (x->used == BPF_PREFIX_MAX_RANGES) {
			errno = E2BIG;
			return -1;
		}
		if (!g->n)
			g->range = (const uint32_t(*)[2]) & x->range[x->used];
		x->range[x->used++][0] = (uint32_t)nr;
		g->n++;
		*open = 1;
	}
	x->range[x->used - 1][1] = (uint32_t)nr;
	return 0;
}

/* 0, or -1 with E2BIG: too many ranges of unknown numbers for a prefix. */
static int prefix_build(const struct profile *p, const struct filter_mode *m, struct prefix *x)
{
	int unk_on = !m->plain && p->have_unknown && action(m, &p->unknown) != action(m, &p->def);
	char unknown[UNKNOWN_LIMIT];
	int open = 0;

	memset(x, 0, sizeof(*x));
	for (int nr = 0; nr < UNKNOWN_LIMIT; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		unknown[nr] = (char)(unk_on && !name && !named(p, nr));
		free(name);
	}
	x->g[x->ng].ret = action(m, &p->unknown);
	for (int nr = 0; nr < UNKNOWN_LIMIT; nr++)
		if (!unknown[nr])
			open = 0;
		else if (prefix_add(x, nr, &open) < 0)
			return -1;
	if (x->g[x->ng].n)
		x->what[x->ng++] = "unknown here";
	open = 0;
	x->g[x->ng].ret = SCMP_ACT_ALLOW;
	for (int nr = 0; nr < UNKNOWN_LIMIT; nr++)
		if ((x->allows[nr] = (char)prefix_may_allow(p, m, nr))) {
			if (prefix_add(x, nr, &open) == 0)
				continue;
			/* Too scattered for a prefix (a profile of its own): rules, as before. */
			x->used -= x->g[x->ng].n;
			memset(&x->g[x->ng], 0, sizeof(x->g[x->ng]));
			memset(x->allows, 0, sizeof(x->allows));
			break;
		} else if (!unknown[nr]) {
			open = 0;
		}
	if (x->g[x->ng].n)
		x->what[x->ng++] = "allow";
	return 0;
}

static scmp_filter_ctx build_main(const struct profile *p, const struct filter_mode *m,
				  const struct prefix *x)
{
	uint32_t def = action(m, &p->def);
	scmp_filter_ctx ctx = new_ctx(def);

	if (!ctx)
		return NULL;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct prof_rule *r = &p->rules[i];

		if (profile_rule_is_arg_denial(p, r) ||
		    (!r->ncond && r->nr >= 0 && r->nr < UNKNOWN_LIMIT && x->allows[r->nr]))
			continue;
		if (add(ctx, m, def, r) < 0)
			goto bad;
	}
	if (m->plain && p->have_unknown && action(m, &p->unknown) != def) {
		struct prof_rule r = { .a = p->unknown };

		for (int nr = 0; nr < UNKNOWN_LIMIT; nr++) {
			char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
			int known = name != NULL;

			free(name);
			r.nr = nr;
			if (!known && !named(p, nr) && add(ctx, m, def, &r) < 0)
				goto bad;
		}
	}
	return ctx;
bad:
	seccomp_release(ctx);
	return NULL;
}

/*
 * NULL with errno 0 when the profile has no argument denials. Whatever the
 * mode, they do not notify: the allowlist alone does, one listener per process.
 */
static scmp_filter_ctx build_args(const struct profile *p)
{
	static const struct filter_mode quiet = { 0 };
	scmp_filter_ctx ctx = NULL;

	errno = 0;
	for (size_t i = 0; i < p->nrules; i++) {
		if (!profile_rule_is_arg_denial(p, &p->rules[i]))
			continue;
		if (!ctx && !(ctx = new_ctx(SCMP_ACT_ALLOW)))
			return NULL;
		if (add(ctx, &quiet, SCMP_ACT_ALLOW, &p->rules[i]) < 0) {
			int e = errno;

			seccomp_release(ctx);
			errno = e;
			return NULL;
		}
	}
	return ctx;
}

static int wr(int fd, const char *s)
{
	return write(fd, s, strlen(s)) < 0 ? -1 : 0;
}

/*
 * Both filters (*a NULL where no argument is denied), the allowlist beside
 * its prefix x (prefix_build); -1 with errno, nothing held.
 */
static int build_both(const struct profile *p, const struct filter_mode *mode,
		      const struct prefix *x, scmp_filter_ctx *m, scmp_filter_ctx *a)
{
	*m = build_main(p, mode, x);
	if (!*m)
		return -1;
	*a = build_args(p);
	if (!*a && errno) {
		seccomp_release(*m);
		return -1;
	}
	return 0;
}

int filter_explain(const struct profile *p, const struct filter_mode *mode, int fd)
{
	scmp_filter_ctx m, a;
	static struct prefix x;
	char line[128];
	int rc;

	if (prefix_build(p, mode, &x) < 0 || build_both(p, mode, &x, &m, &a) < 0)
		return -1;
	rc = wr(fd, "# filter 1 of 2: the allowlist\n");
	/* Its prefix, which libseccomp does not write: checked first. */
	for (size_t k = 0; !rc && k < x.ng; k++)
		for (size_t i = 0; !rc && i < x.g[k].n; i++) {
			snprintf(line, sizeof(line),
				 "# first, on this architecture: numbers %u to %u -> 0x%08x (%s)\n",
				 x.g[k].range[i][0], x.g[k].range[i][1], x.g[k].ret, x.what[k]);
			rc = wr(fd, line);
		}
	if (!rc)
		rc = seccomp_export_pfc(m, fd);
	if (!rc && a) {
		rc = wr(
		    fd,
		    "# filter 2 of 2: argument denials (the kernel keeps the stricter result)\n");
		if (!rc)
			rc = seccomp_export_pfc(a, fd);
	}
	seccomp_release(m);
	if (a)
		seccomp_release(a);
	if (rc < 0 && rc != -1)
		errno = -rc;
	return rc < 0 ? -1 : 0;
}

/*
 * Export each filter as raw BPF (libseccomp's seccomp_export_bpf, the same
 * generator seccomp_load runs) into a memfd, in load order: the argument
 * filter first, since the allowlist may refuse seccomp() itself and must be
 * the last filter installed.
 */
int filter_compile(const struct profile *p, const struct filter_mode *mode, unsigned char **out,
		   size_t *len)
{
	scmp_filter_ctx ctx[2];
	size_t n = 0, insns[2], pos, plen = 0;
	off_t at[3] = { 0 };
	unsigned char *b = NULL;
	int fd = -1, rc = 0, e;
	static struct prefix x;
	struct sock_filter prefix[BPF_PREFIX_LEN(BPF_PREFIX_MAX_RANGES, BPF_PREFIX_MAX_GROUPS)];

	if (prefix_build(p, mode, &x) < 0)
		return -1;
	if (x.ng)
		plen = bpf_prefix(prefix, filter_arch(), x.g, x.ng);
	if (build_both(p, mode, &x, &ctx[1], &ctx[0]) < 0)
		return -1;
	if (!ctx[0]) {
		ctx[0] = ctx[1];
		ctx[1] = NULL;
	}
	fd = memfd_create("otoexec-bpf", MFD_CLOEXEC);
	if (fd < 0)
		goto bad;
	for (n = 0; n < 2 && ctx[n]; n++) {
		if ((rc = seccomp_export_bpf(ctx[n], fd)) < 0) {
			errno = -rc;
			goto bad;
		}
		if ((at[n + 1] = lseek(fd, 0, SEEK_CUR)) < 0)
			goto bad;
		insns[n] = (size_t)(at[n + 1] - at[n]) / sizeof(struct sock_filter);
		if ((size_t)(at[n + 1] - at[n]) % sizeof(struct sock_filter) || !insns[n] ||
		    insns[n] + plen > BPF_SET_MAXINSNS) {
			errno = E2BIG;
			goto bad;
		}
	}
	/* The prefix goes before the allowlist, the last program. */
	insns[n - 1] += plen;
	*len = bpf_set_size(insns, n);
	if (!(b = malloc(*len)))
		goto bad;
	pos = bpf_set_head(b, filter_arch(), (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		size_t pre = i == n - 1 ? plen : 0,
		       sz = (insns[i] - pre) * sizeof(struct sock_filter);

		pos += bpf_set_prog_head(b + pos, (uint32_t)insns[i]);
		memcpy(b + pos, prefix, pre * sizeof(struct sock_filter));
		pos += pre * sizeof(struct sock_filter);
		if (pread(fd, b + pos, sz, at[i]) != (ssize_t)sz) {
			errno = errno ? errno : EIO;
			goto bad;
		}
		pos += sz;
	}
	close(fd);
	for (size_t i = 0; i < 2; i++)
		if (ctx[i])
			seccomp_release(ctx[i]);
	*out = b;
	return 0;
bad:
	e = errno;
	free(b);
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < 2; i++)
		if (ctx[i])
			seccomp_release(ctx[i]);
	errno = e;
	return -1;
}

uint32_t filter_arch(void)
{
	return seccomp_arch_native();
}

int filter_load(const struct bpf_set *s, int notify_sock)
{
	for (size_t i = 0; i < s->nprog; i++) {
		struct sock_fprog prog = {
			.len = s->prog[i].len,
			.filter = (struct sock_filter *)s->prog[i].insn,
		};
		/*
		 * Flags 0, as libseccomp's seccomp_load passed them (its defaults:
		 * no TSYNC, otoexec has one thread; no LOG; no SPEC_ALLOW); with a
		 * refusal log, the allowlist (always the last) gets a listener.
		 */
		unsigned int flags =
		    notify_sock >= 0 && i == s->nprog - 1 ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0U;
		long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);

		if (rc < 0)
			return -1;
		if (!flags)
			continue;
		/* The listener to otons' supervisor, outside: nothing here keeps it. */
		if (fd_send(notify_sock, (int)rc, 0) < 0)
			return -1;
		close((int)rc);
		close(notify_sock);
	}
	return 0;
}
