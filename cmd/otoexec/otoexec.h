/* SPDX-License-Identifier: ISC */
/*
 * otoexec's files, each section below one of them. main.c: the steps;
 * opts.c: the command line (dies 100); parse.c: the option values,
 * profile.c: the profile text format and the built-in profiles
 * (default.profile, dev.profile, embedded by the build), bpf.c: a compiled
 * filter set, the bytes otoexec loads, landlock_abi.c: what each Landlock
 * ABI restricts (pure, all four); filter.c: a profile made into its
 * libseccomp filters (gen/bpfgen.c runs it at build time for the built-in
 * profiles); sandbox.c: the steps that change the process, in main's order
 * (each dies on failure); tty.c: the pty otons offers, made here.
 */
#ifndef OTOEXEC_H
#define OTOEXEC_H

#include <stddef.h>
#include <stdnoreturn.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- profile.c: the text format of a seccomp profile. Pure. ---- */

enum prof_act { PACT_ALLOW, PACT_ERRNO, PACT_KILL };

enum prof_op { POP_EQ, POP_NE, POP_LT, POP_LE, POP_GT, POP_GE, POP_MASKED_EQ, POP_NUM };

#define PROF_MAX_CONDS 6

struct prof_cond {
	unsigned int arg; /* 0..5 */
	enum prof_op op;
	uint64_t mask; /* POP_MASKED_EQ only */
	uint64_t value;
};

struct prof_action {
	enum prof_act act;
	int err; /* PACT_ERRNO */
};

struct prof_rule {
	struct prof_action a;
	int nr;	  /* native syscall number */
	int line; /* where the rule was written */
	unsigned int ncond;
	struct prof_cond cond[PROF_MAX_CONDS];
};

struct profile {
	struct prof_action def;	    /* calls and arguments no rule matches */
	struct prof_action unknown; /* numbers this build's syscall table does not know */
	int have_unknown;
	struct prof_rule *rules;
	size_t nrules, cap;
};

struct prof_error {
	int line;
	char msg[160];
};

/*
 * Parse text (len bytes, need not be NUL-terminated) into p. 0 on success; -1
 * with e filled (line and reason) when the text does not parse, names an
 * unknown call, or combines rules the filter cannot express; -1 with errno
 * ENOMEM and e->line 0 when out of memory. p is freed on failure.
 */
int profile_parse(const char *text, size_t len, struct profile *p, struct prof_error *e);
void profile_free(struct profile *p);
int profile_errno_parse(const char *s);	 /* "EPERM", "1" -> 1; -1 when unknown */
const char *profile_errno_name(int err); /* NULL when it has no name here */
/* 1 when r's action must be enforced by the second (argument) filter. */
int profile_rule_is_arg_denial(const struct profile *p, const struct prof_rule *r);

/*
 * The text of a built-in profile, malloc'd and NUL-terminated: "default", or
 * "dev", which is the default's text followed by dev.profile's lines. NULL
 * with errno ENOENT for another name, ENOMEM.
 */
char *profile_builtin_text(const char *name, size_t *len);

/* The built-in profiles' texts, default.profile and dev.profile, which the
 * build embeds (build/gen/otoexec/). dev is the default's text followed by
 * OTOEXEC_DEV_PROFILE. */
extern const char OTOEXEC_DEFAULT_PROFILE[];
extern const char OTOEXEC_DEV_PROFILE[];

/* ---- bpf.c: a compiled filter set, the bytes otoexec loads (format there). Pure. ---- */
#define BPF_SET_MAGIC	  "otobpf1\n"
#define BPF_SET_MAX	  4    /* programs in a set */
#define BPF_SET_MAXINSNS  4096 /* the kernel's BPF_MAXINSNS */
#define BPF_SET_MAX_BYTES (16 + BPF_SET_MAX * (8 + BPF_SET_MAXINSNS * 8))

struct sock_filter;

struct bpf_set {
	uint32_t arch; /* AUDIT_ARCH_* */
	size_t nprog;
	struct {
		const struct sock_filter *insn; /* in the parsed buffer */
		uint16_t len;
	} prog[BPF_SET_MAX];
};

enum bpf_set_err {
	BPF_SET_OK,
	BPF_SET_NOT,
	BPF_SET_ALIGN,
	BPF_SET_COUNT,
	BPF_SET_LENGTH,
	BPF_SET_FLAGS,
	BPF_SET_SHORT,
	BPF_SET_TRAILING,
	BPF_SET_ARCH, /* whole, but s->arch is not arch */
};

/* Check the len bytes at buf (4-aligned) and point s into them. */
enum bpf_set_err bpf_set_parse(const void *buf, size_t len, uint32_t arch, struct bpf_set *s);
const char *bpf_set_strerror(enum bpf_set_err e);
/* Writing one: its size for nprog programs of insns[i] instructions, then the
 * head and each program's head (returning the bytes written) before its
 * instructions. */
size_t bpf_set_size(const size_t *insns, size_t nprog);
size_t bpf_set_head(unsigned char *out, uint32_t arch, uint32_t nprog);
size_t bpf_set_prog_head(unsigned char *out, uint32_t insns);

/*
 * bpf_prefix: the instructions put before the allowlist that return, on
 * arch, each group's ret for the numbers in its ranges (each [lo, hi],
 * inclusive; groups and ranges checked in order), and fall through to the
 * allowlist for anything else: BPF_PREFIX_LEN(ranges, groups) instructions
 * written to out, or 0 when over the limits.
 */
#define BPF_PREFIX_MAX_RANGES  96
#define BPF_PREFIX_MAX_GROUPS  2
#define BPF_PREFIX_LEN(nr, ng) (4 + 2 * (nr) + (ng))
struct bpf_prefix_group {
	const uint32_t (*range)[2];
	size_t n;
	uint32_t ret;
};
size_t bpf_prefix(struct sock_filter *out, uint32_t arch, const struct bpf_prefix_group *g,
		  size_t ng);

/* The built-in profiles' sets, compiled by the build from their texts
 * (gen/bpfgen.c, into $(O)/gen/otoexec_bpf.c); 8-aligned. */
extern const unsigned char OTOEXEC_DEFAULT_BPF[], OTOEXEC_DEV_BPF[];
extern const size_t OTOEXEC_DEFAULT_BPF_LEN, OTOEXEC_DEV_BPF_LEN;
/* The same, their EPERM refusals notifications (the refusal log, otons --log-fd). */
extern const unsigned char OTOEXEC_DEFAULT_NOTIFY_BPF[], OTOEXEC_DEV_NOTIFY_BPF[];
extern const size_t OTOEXEC_DEFAULT_NOTIFY_BPF_LEN, OTOEXEC_DEV_NOTIFY_BPF_LEN;

/* ---- filter.c ---- */
/*
 * How a profile is compiled. notify: the allowlist's EPERM refusals made user
 * notifications (the refusal log, otons --log-fd). plain: without the
 * allowlist's prefix (bpf_prefix): the unit test's reference.
 */
struct filter_mode {
	int notify;
	int plain;
};
/* Build both filters and export them as pfc to fd (explain). -1 with errno. */
int filter_explain(const struct profile *p, const struct filter_mode *mode, int fd);
/*
 * Compile p with libseccomp into a filter set (bpf.c), in load order, into a
 * malloc'd buffer (*out, *len), as mode says. -1 with errno.
 */
int filter_compile(const struct profile *p, const struct filter_mode *mode, unsigned char **out,
		   size_t *len);
/*
 * Load each program of s, in order (seccomp(2), flags 0 as libseccomp's
 * seccomp_load used). -1 with errno; no_new_privs must be set. With
 * notify_sock >= 0 (OTO_REFUSALS), the allowlist (a set compiled with
 * notify) gets a listener, sent to otons on that socket, which is closed.
 */
int filter_load(const struct bpf_set *s, int notify_sock);
/* The architecture this build's filters are for (AUDIT_ARCH_*). */
uint32_t filter_arch(void);

/* ---- opts.c ---- */
#define MAX_KEEP 64

struct rlim_opt {
	int resource;
	uint64_t soft, hard;
};

struct otoexec_opts {
	const char *profile; /* "default" or a file */
	int profile_fd;	     /* --profile-fd N, or -1 */
	int explain;
	int print_bpf;
	int bpf_fd;	  /* --bpf-fd N, or -1 */
	int test_foreign; /* OTO_TEST_BPF_FOREIGN (tests only) */
	const char *print_profile;
	int keep_fd[MAX_KEEP];
	size_t nkeep_fd;
	int keep_cap[MAX_KEEP];
	size_t nkeep_cap;
	struct rlim_opt rlim[32];
	size_t nrlim;
	const char *ll_ro[MAX_KEEP], *ll_rw[MAX_KEEP];
	size_t nll_ro, nll_rw;
	int ll_strict;
	uid_t uid;
	gid_t gid;
	int have_uid, have_gid;
	const char *env_set[MAX_KEEP]; /* NAME=VALUE */
	size_t nenv_set;
	const char *env_keep[MAX_KEEP];
	size_t nenv_keep;
	int new_session;
	char **argv;
};

/* The option loop; exits 0 (--help) or 100. */
void xotoexec_parse(struct otoexec_opts *o, int argc, char **argv);

/* ---- parse.c: the option values. Each returns 0, or -1 on a bad value. Pure. ---- */
int rlimit_parse(const char *s, struct rlim_opt *r);
const char *rlimit_name(int resource);	     /* "nofile" for RLIMIT_NOFILE; "?" */
int cap_parse(const char *s);		     /* capability number, -1 when unknown */
int env_name_valid(const char *s, size_t n); /* 1 for [A-Za-z_][A-Za-z0-9_]*, n bytes */
int env_name_refused(const char *name);	     /* 1 for LD_* and the like */
int profile_is_builtin(const char *name);    /* "default" or "dev": built in, not a file */

/* ---- landlock_abi.c: what each Landlock ABI restricts. Pure. ---- */
/* Every filesystem right the ABI knows: a ruleset handles them all. */
uint64_t landlock_handled(int abi);
/* The names of the rights later ABIs add that abi lacks, ", "-separated, into
 * buf ("" for none); the length, 0 when buf is too small. */
size_t landlock_unenforced(int abi, char *buf, size_t size);

/* ---- sandbox.c: the steps with side effects; each dies 111 (100) on failure ---- */
/* The process limit (RLIMIT_NPROC) when --rlimit nproc is not given. */
#define OTOEXEC_NPROC 4096U

/* tty.c: the pty otons offers (OTO_PTY): 1 when made, 0 when none was offered. */
int xsb_pty(void);
/* OTO_REFUSALS (otons --log-fd): the socket the seccomp listener goes to; -1 without. */
int xsb_refusals(void);
void xsb_close_fds(const struct otoexec_opts *o, int status_fd, int refusals);
void xsb_rlimits(const struct otoexec_opts *o);
void xsb_landlock(const struct otoexec_opts *o, int refusals);
void xsb_switch_ids(const struct otoexec_opts *o);
void xsb_drop_caps(const struct otoexec_opts *o);
void xsb_no_new_privs(void);
char **xsb_build_env(const struct otoexec_opts *o);
noreturn void xsb_exec(char **argv, char **envp);

#endif
