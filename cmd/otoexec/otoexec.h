/* SPDX-License-Identifier: ISC */
#ifndef OTOEXEC_H
#define OTOEXEC_H

#include <stddef.h>
#include <stdnoreturn.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- profile.c: the text format of a seccomp profile. Pure. ---- */

enum prof_act { PACT_ALLOW, PACT_ERRNO, PACT_KILL };

enum prof_op { POP_EQ, POP_NE, POP_LT, POP_LE, POP_GT, POP_GE, POP_MASKED_EQ };

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

/* default_profile.c, dev_profile.c: the built-in profiles' texts. dev is
 * the default's text followed by OTOEXEC_DEV_PROFILE. */
extern const char OTOEXEC_DEFAULT_PROFILE[];
extern const char OTOEXEC_DEV_PROFILE[];

/* ---- filter.c ---- */
/* Build both filters, export them as pfc to fd (explain), or load them.
 * notify_sock >= 0 (OTO_REFUSALS): EPERM refusals notify, and the listener
 * goes to otons on that socket, which is closed. */
int filter_explain(const struct profile *p, int fd);
int filter_load(const struct profile *p, int notify_sock);

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

/* ---- parse.c: the option values. Pure: 0 on success, -1 on a bad value ---- */
int rlimit_parse(const char *s, struct rlim_opt *r);
const char *rlimit_name(int resource);	     /* "nofile" for RLIMIT_NOFILE; "?" */
int cap_parse(const char *s);		     /* capability number, -1 when unknown */
int env_name_valid(const char *s, size_t n); /* 1 for [A-Za-z_][A-Za-z0-9_]*, n bytes */
int env_name_refused(const char *name);	     /* 1 for LD_* and the like */
int profile_is_builtin(const char *name);    /* "default" or "dev": built in, not a file */

/* ---- landlock_abi.c: what each Landlock ABI restricts. Pure ---- */
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
void xsb_landlock(const struct otoexec_opts *o);
void xsb_switch_ids(const struct otoexec_opts *o);
void xsb_drop_caps(const struct otoexec_opts *o);
void xsb_no_new_privs(void);
char **xsb_build_env(const struct otoexec_opts *o);
noreturn void xsb_exec(char **argv, char **envp);

#endif
