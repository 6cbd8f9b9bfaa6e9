/* SPDX-License-Identifier: ISC */
/*
 * Which changes the host runs later (otodiff(1)): the names of
 * lib/protect_names.c, and the paths a repository's own config names
 * inside it (core.hooksPath, include.path and includeIf's targets, a
 * command's path). A repository is each directory above a change that holds
 * a .git directory, in the session's upper layer or else on the host; its
 * config (and what that includes) is read as the commit would leave it.
 * Bounded: REPOS_MAX repositories, NAMED_MAX paths, INCLUDE_DEPTH; past a
 * bound every change counts.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otodiff.h"

#define REPOS_MAX     256
#define NAMED_MAX     1024
#define INCLUDE_DEPTH 8
#define CONFIG_MAX    (1UL << 20)

struct named {
	const struct cowdir *s;
	size_t tree;
	struct {
		size_t tree;
		char *dir; /* a repository's top, relative to its tree's top */
	} repo[REPOS_MAX];
	size_t nrepo;
	struct {
		size_t tree;
		char *rel;
	} path[NAMED_MAX];
	size_t npath;
	const char *base; /* the repository being read, and its config's directory */
	const char *cfgdir;
	unsigned depth;
	int full; /* a bound was met */
};

/* rel (beneath the session's tree) opened as the commit would leave it: upper first. */
static int open_merged(const struct cowdir *s, size_t tree, const char *rel, int flags)
{
	int fd = open_beneath(s->upper[tree], rel, flags | O_NOFOLLOW);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISCHR(st.st_mode))
		return fd;
	if (fd >= 0) {
		close(fd); /* a whiteout: deleted by the session */
		return -1;
	}
	return open_beneath(s->host[tree], rel, flags | O_NOFOLLOW);
}

static void add_path(struct named *n, const char *rel)
{
	if (n->npath >= NAMED_MAX || !(n->path[n->npath].rel = strdup(rel))) {
		n->full = 1;
		return;
	}
	n->path[n->npath++].tree = n->tree;
}

static void read_config(struct named *n, const char *rel);

static void on_value(void *arg, enum gitcfg_kind kind, const char *val)
{
	struct named *n = arg;
	char p[PATH_MAX];
	const char *from = kind == GITCFG_INCLUDE ? n->cfgdir : n->base;

	if (kind == GITCFG_WORKTREE || gitcfg_join(p, sizeof(p), from, val) < 0)
		return; /* outside the tree: not the session's to change */
	add_path(n, p);
	if (kind == GITCFG_INCLUDE)
		read_config(n, p);
}

/* A config file (rel in the tree) and what it includes, each path it names into n. */
static void read_config(struct named *n, const char *rel)
{
	char dir[PATH_MAX], *buf;
	const char *saved = n->cfgdir, *slash = strrchr(rel, '/');
	ssize_t len;
	int fd;

	if (n->depth >= INCLUDE_DEPTH) {
		n->full = 1;
		return;
	}
	fd = open_merged(n->s, n->tree, rel, O_RDONLY);
	if (fd < 0)
		return;
	buf = malloc(CONFIG_MAX);
	len = buf ? fd_read_all(fd, buf, CONFIG_MAX) : -1;
	close(fd);
	if (len >= 0) {
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 0, rel);
		n->cfgdir = dir;
		n->depth++;
		(void)gitcfg_paths(buf, (size_t)len, on_value, n);
		n->depth--;
		n->cfgdir = saved;
	}
	free(buf);
}

/* dir (in tree), a directory above a change: its repository's named paths, once. */
static void visit(struct named *n, size_t tree, const char *dir)
{
	char git[PATH_MAX];
	int fd;

	for (size_t i = 0; i < n->nrepo; i++)
		if (n->repo[i].tree == tree && !strcmp(n->repo[i].dir, dir))
			return;
	snprintf(git, sizeof(git), "%s%s.git", dir, *dir ? "/" : "");
	fd = open_merged(n->s, tree, git, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return;
	close(fd);
	if (n->nrepo >= REPOS_MAX || !(n->repo[n->nrepo].dir = strdup(dir))) {
		n->full = 1;
		return;
	}
	n->repo[n->nrepo++].tree = tree;
	n->tree = tree;
	n->base = dir;
	snprintf(git, sizeof(git), "%s%s.git/config", dir, *dir ? "/" : "");
	read_config(n, git);
}

static int at_or_under(const char *p, const char *pre)
{
	size_t k = strlen(pre);

	return !*pre || (!strncmp(p, pre, k) && (p[k] == 0 || p[k] == '/'));
}

static int named(const struct named *n, size_t tree, const char *rel)
{
	for (size_t i = 0; i < n->npath; i++)
		if (n->path[i].tree == tree && at_or_under(rel, n->path[i].rel))
			return 1;
	return 0;
}

/* Every directory above rel (the top included), visited. */
static void visit_above(struct named *n, size_t tree, const char *rel)
{
	char dir[PATH_MAX];
	size_t len = strlen(rel);

	if (len >= sizeof(dir))
		return;
	memcpy(dir, rel, len + 1);
	for (;;) {
		char *slash = strrchr(dir, '/');

		if (!slash) {
			visit(n, tree, "");
			return;
		}
		*slash = 0;
		visit(n, tree, dir);
	}
}

void scan_runs_later(struct cowdir *s)
{
	struct named *n = calloc(1, sizeof(*n));

	/* Out of memory: every change counts, rather than one slip through. */
	if (!n) {
		for (size_t i = 0; i < s->n; i++)
			s->c[i].runs_later = 1;
		return;
	}
	n->s = s;
	for (size_t i = 0; i < s->n; i++) {
		visit_above(n, s->c[i].tree, s->c[i].rel);
		if (s->c[i].from)
			visit_above(n, s->c[i].from_tree, s->c[i].from);
	}
	for (size_t i = 0; i < s->n; i++) {
		struct change *c = &s->c[i];

		c->runs_later =
		    protect_runs_later(c->rel) || named(n, c->tree, c->rel) ||
		    (c->from && (protect_runs_later(c->from) || named(n, c->from_tree, c->from)));
		/* Past a bound, every change counts, rather than one slip through. */
		c->runs_later |= n->full;
	}
	for (size_t i = 0; i < n->nrepo; i++)
		free(n->repo[i].dir);
	for (size_t i = 0; i < n->npath; i++)
		free(n->path[i].rel);
	free(n);
}
