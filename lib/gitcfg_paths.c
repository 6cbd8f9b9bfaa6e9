/* SPDX-License-Identifier: ISC */
/*
 * The paths a git config file names (oto.h): what otomount protects and
 * otodiff flags beside the config itself. Pure. The syntax is git's
 * (git-config(1), CONFIGURATION FILE): sections "[name]", "[name "sub"]" and
 * "[name.sub]", keys case-insensitive, values with quotes, backslash escapes,
 * comments and continued lines. A file that does not parse is judged as far
 * as it parses (git refuses the whole of it, which runs nothing).
 */
#include <string.h>

#include "oto.h"

#define KEY_MAX 256

/*
 * The keys whose value names a path or a command, by section and key ("*":
 * any key), and where: ANY in the section or a subsection of it, SUB only
 * in a subsection ("filter "lfs".clean"), TOP only in the section itself.
 */
enum where { ANY, SUB, TOP };

static const struct {
	const char *section, *key;
	enum where where;
	enum gitcfg_kind kind;
} KEYS[] = {
	{ "core", "hookspath", TOP, GITCFG_HOOKS },
	{ "core", "worktree", TOP, GITCFG_WORKTREE },
	{ "include", "path", TOP, GITCFG_INCLUDE },
	{ "includeif", "path", SUB, GITCFG_INCLUDE },
	{ "core", "fsmonitor", TOP, GITCFG_COMMAND },
	{ "core", "editor", TOP, GITCFG_COMMAND },
	{ "core", "pager", TOP, GITCFG_COMMAND },
	{ "core", "sshcommand", TOP, GITCFG_COMMAND },
	{ "core", "askpass", TOP, GITCFG_COMMAND },
	{ "core", "gitproxy", TOP, GITCFG_COMMAND },
	{ "sequence", "editor", TOP, GITCFG_COMMAND },
	{ "diff", "external", TOP, GITCFG_COMMAND },
	{ "diff", "textconv", SUB, GITCFG_COMMAND },
	{ "diff", "command", SUB, GITCFG_COMMAND },
	{ "filter", "clean", SUB, GITCFG_COMMAND },
	{ "filter", "smudge", SUB, GITCFG_COMMAND },
	{ "filter", "process", SUB, GITCFG_COMMAND },
	{ "merge", "driver", SUB, GITCFG_COMMAND },
	{ "difftool", "cmd", SUB, GITCFG_COMMAND },
	{ "mergetool", "cmd", SUB, GITCFG_COMMAND },
	{ "gpg", "program", ANY, GITCFG_COMMAND },
	{ "credential", "helper", ANY, GITCFG_COMMAND },
	{ "interactive", "difffilter", TOP, GITCFG_COMMAND },
	{ "uploadpack", "packobjectshook", TOP, GITCFG_COMMAND },
	{ "remote", "uploadpack", SUB, GITCFG_COMMAND },
	{ "remote", "receivepack", SUB, GITCFG_COMMAND },
	{ "alias", "*", TOP, GITCFG_COMMAND },
	{ "pager", "*", TOP, GITCFG_COMMAND },
};

struct parse {
	const char *p, *end;
	char section[KEY_MAX];
	int has_sub;
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_line(struct parse *s)
{
	while (s->p < s->end && *s->p != '\n')
		s->p++;
	if (s->p < s->end)
		s->p++;
}

/* "[name]", "[name "sub"]", "[name.sub]": the name (lowered) into s->section. -1: malformed. */
static int section(struct parse *s)
{
	size_t n = 0;

	s->p++;
	s->has_sub = 0;
	while (s->p < s->end && (is_alnum(*s->p) || *s->p == '-' || *s->p == '.')) {
		if (*s->p == '.')
			s->has_sub = 1; /* the old form: [name.sub] */
		if (!s->has_sub) {
			if (n + 1 >= KEY_MAX)
				return -1;
			s->section[n++] = (char)lower(*s->p);
		}
		s->p++;
	}
	s->section[n] = 0;
	if (s->p < s->end && is_space(*s->p)) {
		while (s->p < s->end && is_space(*s->p))
			s->p++;
		if (s->p >= s->end || *s->p != '"')
			return -1;
		for (s->p++; s->p < s->end && *s->p != '"'; s->p++) {
			if (*s->p == '\n')
				return -1;
			if (*s->p == '\\' && s->p + 1 < s->end)
				s->p++;
		}
		if (s->p >= s->end)
			return -1;
		s->p++;
		s->has_sub = 1;
	}
	if (s->p >= s->end || *s->p != ']' || !n)
		return -1;
	s->p++;
	return 0;
}

/* A value, unquoted and unescaped, into out: its length, -1 when malformed or too long. */
static long value(struct parse *s, char *out, size_t size)
{
	size_t n = 0, trail = 0;
	int quoted = 0;

	while (s->p < s->end && is_space(*s->p))
		s->p++;
	while (s->p < s->end) {
		char c = *s->p++;

		if (c == '\n') {
			if (quoted)
				return -1;
			break;
		}
		if (!quoted && (c == '#' || c == ';')) {
			skip_line(s);
			break;
		}
		if (c == '"') {
			quoted = !quoted;
			trail = n; /* "a " keeps its space */
			continue;
		}
		if (c == '\\') {
			if (s->p >= s->end)
				return -1;
			c = *s->p++;
			if (c == '\n')
				continue; /* a continued line */
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'b')
				c = '\b';
			else if (c != '\\' && c != '"')
				return -1;
			trail = n + 1;
		} else if (!quoted && is_space(c)) {
			/* git keeps inner space but not the value's trailing space. */
			if (n + 1 >= size)
				return -1;
			out[n++] = ' ';
			continue;
		} else {
			trail = n + 1;
		}
		if (n + 1 >= size)
			return -1;
		out[n++] = c;
	}
	if (quoted)
		return -1;
	if (n > trail)
		n = trail;
	out[n] = 0;
	return (long)n;
}

/* The kind of section.key's value, -1 when it names nothing. */
static int kind_of(const char *sec, int has_sub, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(KEYS); i++)
		if (!strcmp(KEYS[i].section, sec) &&
		    (!strcmp(KEYS[i].key, "*") || !strcmp(KEYS[i].key, key)) &&
		    (KEYS[i].where == ANY || (KEYS[i].where == SUB) == !!has_sub))
			return (int)KEYS[i].kind;
	return -1;
}

/* A command's first word, in place, when it is a path with a slash; else "". */
static void first_word(char *v)
{
	char *w = v, *e;

	while (*w == ' ' || *w == '!')
		w++;
	e = w;
	while (*e && *e != ' ' && *e != '\t' && *e != '\n')
		e++;
	*e = 0;
	if (!strchr(w, '/')) {
		*v = 0;
		return;
	}
	memmove(v, w, strlen(w) + 1);
}

int gitcfg_paths(const char *buf, size_t len, gitcfg_fn fn, void *arg)
{
	char val[4096];
	struct parse s = { .p = buf, .end = buf + len };

	s.section[0] = 0;
	while (s.p < s.end) {
		char key[KEY_MAX];
		size_t n = 0;
		int k;

		while (s.p < s.end && (is_space(*s.p) || *s.p == '\n'))
			s.p++;
		if (s.p >= s.end)
			break;
		if (*s.p == '#' || *s.p == ';') {
			skip_line(&s);
			continue;
		}
		if (*s.p == '[') {
			if (section(&s) < 0)
				return -1;
			continue; /* a key may follow on the same line */
		}
		if (!((*s.p >= 'a' && *s.p <= 'z') || (*s.p >= 'A' && *s.p <= 'Z')) ||
		    !s.section[0])
			return -1;
		while (s.p < s.end && (is_alnum(*s.p) || *s.p == '-')) {
			if (n + 1 >= sizeof(key))
				return -1;
			key[n++] = (char)lower(*s.p++);
		}
		key[n] = 0;
		while (s.p < s.end && is_space(*s.p))
			s.p++;
		if (s.p < s.end && *s.p == '=') {
			s.p++;
			if (value(&s, val, sizeof(val)) < 0)
				return -1;
		} else if (s.p >= s.end || *s.p == '\n' || *s.p == '#' || *s.p == ';') {
			skip_line(&s);
			continue; /* a boolean true: no path */
		} else {
			return -1;
		}
		k = kind_of(s.section, s.has_sub, key);
		if (k < 0 || !*val)
			continue;
		if (k == GITCFG_COMMAND)
			first_word(val);
		if (*val)
			fn(arg, (enum gitcfg_kind)k, val);
	}
	return 0;
}
