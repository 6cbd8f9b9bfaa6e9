/* SPDX-License-Identifier: ISC */
/*
 * The profile text format (see man/otoexec.1, PROFILES). One statement a line,
 * '#' starts a comment, words are separated by blanks:
 *
 *   default ACTION                 calls and arguments no rule matches
 *   unknown ACTION                 numbers this build's syscall table lacks
 *   ACTION NAME... [if COND [and COND]...]
 *   drop NAME...                   forget the rules given so far for NAME
 *                                  (a profile built on another: the dev profile)
 *
 *   ACTION := allow | kill | errno ERRNO      ERRNO := EPERM | ENOSYS | ... | N
 *   COND   := argN OP VALUE | argN & MASK == VALUE     OP := == != < <= > >=
 *
 * Pure: no allocation but the rule array, no I/O. libseccomp's name table is
 * read-only data, so resolving names here keeps the parser side-effect free.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoexec.h"

#define LINE_MAX_LEN 4096
#define MAX_WORDS    512

static const struct {
	const char *name;
	int err;
} ERRNOS[] = {
	{ "EPERM", EPERM },
	{ "ENOENT", ENOENT },
	{ "EIO", EIO },
	{ "E2BIG", E2BIG },
	{ "EBADF", EBADF },
	{ "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM },
	{ "EACCES", EACCES },
	{ "EFAULT", EFAULT },
	{ "EBUSY", EBUSY },
	{ "EEXIST", EEXIST },
	{ "EINVAL", EINVAL },
	{ "ENOSPC", ENOSPC },
	{ "EROFS", EROFS },
	{ "ENOSYS", ENOSYS },
	{ "ENOTSUP", ENOTSUP },
	{ "EAFNOSUPPORT", EAFNOSUPPORT },
	{ "EPROTONOSUPPORT", EPROTONOSUPPORT },
	{ "ENOTTY", ENOTTY },
	{ "ESRCH", ESRCH },
	{ "ECHILD", ECHILD },
	{ "ENODEV", ENODEV },
};

int profile_errno_parse(const char *s)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; i < ARRAY_SIZE(ERRNOS); i++)
		if (!strcmp(s, ERRNOS[i].name))
			return ERRNOS[i].err;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	/* The kernel keeps 16 bits of SECCOMP_RET_DATA; errno 0 would mean success. */
	if (errno || *end || v == 0 || v > 4095)
		return -1;
	return (int)v;
}

const char *profile_errno_name(int err)
{
	for (size_t i = 0; i < ARRAY_SIZE(ERRNOS); i++)
		if (ERRNOS[i].err == err)
			return ERRNOS[i].name;
	return NULL;
}

__attribute__((format(printf, 3, 0))) static int fail(struct prof_error *e, int line,
						      const char *fmt, const char *arg)
{
	e->line = line;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	/* fmt is always one of this file's literals, with at most one %s. */
	/* cppcheck-suppress wrongPrintfScanfArgNum */
	snprintf(e->msg, sizeof(e->msg), fmt, arg ? arg : "");
#pragma GCC diagnostic pop
	return -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* "allow" | "kill" | "errno E": the number of words used, or -1. */
static int parse_action(char **w, size_t n, struct prof_action *a, struct prof_error *e, int line)
{
	if (n == 0)
		return fail(e, line, "missing action", NULL);
	if (!strcmp(w[0], "allow")) {
		a->act = PACT_ALLOW;
		a->err = 0;
		return 1;
	}
	if (!strcmp(w[0], "kill")) {
		a->act = PACT_KILL;
		a->err = 0;
		return 1;
	}
	if (!strcmp(w[0], "errno")) {
		if (n < 2)
			return fail(e, line, "errno needs a value (EPERM, ENOSYS, or 1-4095)",
				    NULL);
		a->act = PACT_ERRNO;
		a->err = profile_errno_parse(w[1]);
		if (a->err < 0)
			return fail(e, line, "unknown errno '%.60s'", w[1]);
		return 2;
	}
	return fail(e, line, "unknown action '%.60s' (allow, kill, errno E)", w[0]);
}

static const struct {
	const char *s;
	enum prof_op op;
} OPS[] = {
	{ "==", POP_EQ }, { "!=", POP_NE }, { "<", POP_LT },
	{ "<=", POP_LE }, { ">", POP_GT },  { ">=", POP_GE },
};

/* One condition starting at w[0]; the number of words used, or -1. */
static int parse_cond(char **w, size_t n, struct prof_cond *c, struct prof_error *e, int line)
{
	size_t i;

	if (n < 3)
		return fail(e, line, "incomplete condition (argN OP VALUE)", NULL);
	if (strncmp(w[0], "arg", 3) || w[0][3] < '0' || w[0][3] > '5' || w[0][4])
		return fail(e, line, "bad argument '%.60s' (arg0 to arg5)", w[0]);
	c->arg = (unsigned int)(w[0][3] - '0');
	c->mask = 0;
	if (!strcmp(w[1], "&")) {
		if (n < 5)
			return fail(e, line, "incomplete condition (argN & MASK == VALUE)", NULL);
		if (parse_u64(w[2], &c->mask) < 0)
			return fail(e, line, "bad mask '%.60s'", w[2]);
		if (strcmp(w[3], "=="))
			return fail(e, line, "a masked condition compares with ==, not '%.60s'",
				    w[3]);
		if (parse_u64(w[4], &c->value) < 0)
			return fail(e, line, "bad value '%.60s'", w[4]);
		c->op = POP_MASKED_EQ;
		return 5;
	}
	for (i = 0; i < ARRAY_SIZE(OPS); i++)
		if (!strcmp(w[1], OPS[i].s))
			break;
	if (i == ARRAY_SIZE(OPS))
		return fail(e, line, "unknown operator '%.60s' (== != < <= > >= &)", w[1]);
	c->op = OPS[i].op;
	if (parse_u64(w[2], &c->value) < 0)
		return fail(e, line, "bad value '%.60s'", w[2]);
	return 3;
}

static int add_rule(struct profile *p, const struct prof_rule *r)
{
	if (p->nrules == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct prof_rule *n = realloc(p->rules, cap * sizeof(*n));

		if (!n)
			return -1;
		p->rules = n;
		p->cap = cap;
	}
	p->rules[p->nrules++] = *r;
	return 0;
}

static int strictness(const struct prof_action *a)
{
	return a->act == PACT_KILL ? 2 : a->act == PACT_ERRNO ? 1 : 0;
}

static const struct prof_rule *unconditional(const struct profile *p, int nr)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].nr == nr && p->rules[i].ncond == 0)
			return &p->rules[i];
	return NULL;
}

int profile_rule_is_arg_denial(const struct profile *p, const struct prof_rule *r)
{
	return r->ncond > 0 && unconditional(p, r->nr) != NULL;
}

/* One statement, split into words. */
static int parse_words(char **w, size_t n, struct profile *p, struct prof_error *e, int line,
		       int *have_default)
{
	struct prof_rule r;
	size_t names, i;
	int k;

	if (!strcmp(w[0], "default") || !strcmp(w[0], "unknown")) {
		int isdef = w[0][0] == 'd';
		struct prof_action a;

		k = parse_action(w + 1, n - 1, &a, e, line);
		if (k < 0)
			return -1;
		if ((size_t)k + 1 != n)
			return fail(e, line, "unexpected '%.60s'", w[k + 1]);
		if (isdef ? *have_default : p->have_unknown)
			return fail(e, line, "'%s' given twice", w[0]);
		if (isdef) {
			p->def = a;
			*have_default = 1;
		} else {
			p->unknown = a;
			p->have_unknown = 1;
		}
		return 0;
	}
	if (!strcmp(w[0], "drop")) {
		if (n < 2)
			return fail(e, line, "no system call named", NULL);
		for (i = 1; i < n; i++) {
			int nr = seccomp_syscall_resolve_name(w[i]);
			size_t kept = 0;

			if (nr == __NR_SCMP_ERROR)
				return fail(e, line, "unknown system call '%.60s'", w[i]);
			for (size_t j = 0; j < p->nrules; j++)
				if (p->rules[j].nr != nr)
					p->rules[kept++] = p->rules[j];
			p->nrules = kept;
		}
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.line = line;
	k = parse_action(w, n, &r.a, e, line);
	if (k < 0)
		return -1;
	w += k;
	n -= (size_t)k;
	for (names = 0; names < n && strcmp(w[names], "if"); names++)
		;
	if (names == 0)
		return fail(e, line, "no system call named", NULL);
	if (names < n) {
		i = names + 1;
		for (;;) {
			if (r.ncond == PROF_MAX_CONDS)
				return fail(e, line, "more than 6 conditions", NULL);
			k = parse_cond(w + i, n - i, &r.cond[r.ncond], e, line);
			if (k < 0)
				return -1;
			for (unsigned int j = 0; j < r.ncond; j++)
				if (r.cond[j].arg == r.cond[r.ncond].arg)
					return fail(e, line,
						    "an argument is compared twice in one rule",
						    NULL);
			r.ncond++;
			i += (size_t)k;
			if (i == n)
				break;
			if (strcmp(w[i], "and") || i + 1 == n)
				return fail(e, line, "expected 'and CONDITION' at '%.60s'", w[i]);
			i++;
		}
	}
	for (i = 0; i < names; i++) {
		int nr = seccomp_syscall_resolve_name(w[i]);

		if (nr == __NR_SCMP_ERROR)
			return fail(e, line, "unknown system call '%.60s'", w[i]);
		r.nr = nr;
		if (add_rule(p, &r) < 0) {
			e->line = 0;
			snprintf(e->msg, sizeof(e->msg), "out of memory");
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

/*
 * What one seccomp filter cannot say, refused here with the line to fix: two
 * unconditional rules for one call, and a conditional rule that is not
 * stricter than the call's unconditional rule (libseccomp lets an
 * unconditional rule override conditional ones; the stricter conditional ones
 * go to a second filter, and the kernel enforces the stricter result).
 */
static int check(const struct profile *p, struct prof_error *e)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct prof_rule *r = &p->rules[i], *u = unconditional(p, r->nr);
		const char *fmt;
		char *name, buf[64];

		if (!u || u == r)
			continue;
		if (r->ncond == 0)
			fmt = "a second unconditional rule for %s";
		else if (strictness(&r->a) <= strictness(&u->a))
			fmt =
			    "a conditional rule must be stricter than the unconditional one for %s";
		else
			continue;
		/* libseccomp returns the name in malloc'd memory. */
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, r->nr);
		snprintf(buf, sizeof(buf), "%.30s (line %d)", name ? name : "?", u->line);
		free(name);
		return fail(e, r->line, fmt, buf);
	}
	return 0;
}

int profile_parse(const char *text, size_t len, struct profile *p, struct prof_error *e)
{
	char buf[LINE_MAX_LEN + 1];
	char *w[MAX_WORDS];
	size_t pos = 0;
	int line = 0, have_default = 0;

	memset(p, 0, sizeof(*p));
	memset(e, 0, sizeof(*e));
	while (pos < len) {
		size_t end = pos, n = 0, l;
		char *s;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		l = end - pos;
		if (l > LINE_MAX_LEN) {
			fail(e, line, "line longer than 4096 bytes", NULL);
			goto bad;
		}
		memcpy(buf, text + pos, l);
		buf[l] = 0;
		pos = end + 1;
		if (memchr(buf, 0, l)) {
			fail(e, line, "NUL byte in the text", NULL);
			goto bad;
		}
		if ((s = strchr(buf, '#')))
			*s = 0;
		for (char *t = strtok_r(buf, " \t\r", &s); t; t = strtok_r(NULL, " \t\r", &s)) {
			if (n == MAX_WORDS) {
				fail(e, line, "more than 512 words", NULL);
				goto bad;
			}
			w[n++] = t;
		}
		if (n && parse_words(w, n, p, e, line, &have_default) < 0)
			goto bad;
	}
	if (!have_default) {
		fail(e, line ? line : 1, "no 'default' action", NULL);
		goto bad;
	}
	if (check(p, e) < 0)
		goto bad;
	return 0;
bad:
	profile_free(p);
	return -1;
}

void profile_free(struct profile *p)
{
	free(p->rules);
	p->rules = NULL;
	p->nrules = p->cap = 0;
}

char *profile_builtin_text(const char *name, size_t *len)
{
	size_t d = strlen(OTOEXEC_DEFAULT_PROFILE), v = strlen(OTOEXEC_DEV_PROFILE);
	char *t;

	if (strcmp(name, "default") && strcmp(name, "dev")) {
		errno = ENOENT;
		return NULL;
	}
	*len = d + (strcmp(name, "dev") ? 0 : v);
	if (!(t = malloc(*len + 1)))
		return NULL;
	memcpy(t, OTOEXEC_DEFAULT_PROFILE, d);
	memcpy(t + d, OTOEXEC_DEV_PROFILE, *len - d);
	t[*len] = 0;
	return t;
}
