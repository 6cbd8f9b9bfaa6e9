/* SPDX-License-Identifier: ISC */
/*
 * Files the host runs later, read-only in the view (otomount(1), PROTECTED
 * FILES). What the agent writes in /work, /private, or a manager's
 * /knowledge and /config stays on the host after the session, where a
 * person's git, shell, direnv or editor later runs some of it with the
 * person's privileges: a hook, a core.fsmonitor or core.hooksPath in a
 * repository's config, a .bashrc. Each writable tree of the view is walked
 * once, after the view is built and before the agent exists, and:
 *
 *   - in every git repository at any depth (a .git directory, a bare
 *     repository, a submodule's git directory under .git/modules, a linked
 *     worktree's under .git/worktrees), GITDIR_RO (hooks, config, and what
 *     sends git to other config, hooks or objects: commondir, gitdir, the
 *     alternates, a rebase's state) become read-only binds of themselves,
 *     and each git directory (worktrees/ and modules/ too) a read-write bind
 *     of itself: a mount point cannot be renamed or removed (EBUSY), so the
 *     agent cannot move one aside and put one of its own in its place. Its
 *     own git still commits, branches and fetches: objects, refs, the index,
 *     HEAD and the logs stay writable;
 *   - what the repository's config (and what it includes) names in the
 *     tree: core.hooksPath, include targets, a command's path
 *     (lib/gitcfg_paths.c), and the hook managers' files beside its .git
 *     (WORKTOP: .husky, .pre-commit-config.yaml, lefthook's);
 *   - a .git file (a worktree's or a submodule's "gitdir:" pointer) becomes
 *     read-only, so it cannot be aimed at a git directory the agent made;
 *   - at each tree's top, the shell and tool start-up files of START below.
 *
 * Only what exists at launch can be made read-only without making anything
 * in the host's tree (a mount needs its mount point). The walk never
 * follows a symlink, never enters a git directory but for its modules, and
 * is bounded (PROTECT_MAX_DIRS directories in all): past the bound the
 * launch stops, rather than leave part of a tree unprotected. --writable
 * exempts a path and all beneath it; --protect adds one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

#define PROTECT_MAX_DIRS 200000UL
#define CONFIG_MAX	 (1UL << 20) /* a config file read for the paths it names */
#define INCLUDE_DEPTH	 8
#define NAMED_MAX	 64 /* paths one config file names */

/* The names, shared with otodiff: lib/protect_names.c. */
#define START	  protect_start
#define GITDIR_RO protect_gitdir
#define WORKTOP	  protect_worktop

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct walk {
	const struct otomount_opts *o;
	char path[PATH_MAX]; /* the directory being read, in the view */
	unsigned long dirs, mounts;
	dev_t dev;	  /* the last directory's filesystem, and whether its st_nlink */
	int dev_counts;	  /* counts subdirectories (leaf) */
	const char *tree; /* the tree's top, for messages */
	int top;	  /* the tree's top (O_PATH), for the paths a config names */
	char *watch;	  /* the paths watched for (OTO_APPEARED): their lines */
	size_t wlen, wcap;
	unsigned long nwatch;
	int tops[APPEARED_TREES_MAX]; /* each tree's top, O_PATH, for otons */
	size_t ntops;
	char buf[65536]; /* getdents64 */
};

/* path (in the view) is p, or beneath it. */
static int under(const char *path, const char *p)
{
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		n--;
	return !strncmp(path, p, n) && (path[n] == 0 || path[n] == '/' || n == 1);
}

static int exempt(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->o->nwritable; i++)
		if (under(path, w->o->writable[i]))
			return 1;
	return 0;
}

/* Into p, a directory beneath w->path (join's), and back: the length to go back to. */
static size_t enter(struct walk *w, const char *p)
{
	size_t keep = strlen(w->path);

	memcpy(w->path, p, strlen(p) + 1);
	return keep;
}

static void leave(struct walk *w, size_t keep)
{
	w->path[keep] = 0;
}

/* path + "/" + name into out: -1 when too long. */
static int join(char *out, const char *path, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(path, "/") ? path : "", name);

	return n > 0 && n < PATH_MAX ? 0 : -1;
}

/*
 * dir's entry name, of the view's path, a bind of itself: read-only, or
 * read-write (a mount point that cannot be moved). ENOENT: not there, 0.
 */
static int xbind_self(struct walk *w, int dir, const char *name, const char *path, int ro)
{
	int target = sys_openat2(dir, name, O_PATH | O_NOFOLLOW,
				 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	struct stat st;
	int tree;

	if (target < 0 && errno == ENOENT)
		return 0;
	if (target < 0 || fstat(target, &st) < 0)
		die(EXIT_SYS, errno, "unable to open %s to protect it", path);
	/* A symlink is left as it is: it runs nothing, and a bind would follow it. */
	if (S_ISLNK(st.st_mode) || (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))) {
		close(target);
		return 0;
	}
	tree = mnt_clone(target, "", ro ? MNT_RO : MNT_RW);
	if (tree < 0 || mnt_move(tree, target) < 0)
		die(EXIT_SYS, errno, "unable to make %s %s", path,
		    ro ? "read-only (a protected file)" : "a mount point (a git directory)");
	debugx("%s %s", ro ? "protect" : "pin", path);
	w->mounts++;
	close(tree);
	close(target);
	return 1;
}

static void xprotect_name(struct walk *w, int dir, const char *name, int ro)
{
	char p[PATH_MAX];

	if (join(p, w->path, name) < 0)
		die(EXIT_SYS, ENAMETOOLONG, "unable to protect %s/%s", w->path, name);
	if (!exempt(w, p))
		xbind_self(w, dir, name, p, ro);
}

static int xwalk(struct walk *w, int dir);

/* A view path's part beneath the tree's top ("" for the top). */
static const char *rel_of(const struct walk *w, const char *path)
{
	const char *r = path + strlen(w->tree);

	while (*r == '/')
		r++;
	return r;
}

/* One line of the list: "TAG\tA\n", or "TAG\tA\tB\n". */
static void xwatch_text(struct walk *w, char tag, const char *a, const char *b)
{
	int n = snprintf(NULL, 0, "%c\t%s%s%s\n", tag, a, b ? "\t" : "", b ? b : "");

	if (w->wlen + (size_t)n + 1 > w->wcap) {
		size_t cap = w->wcap ? w->wcap * 2 : 65536;
		char *g;

		while (cap < w->wlen + (size_t)n + 1)
			cap *= 2;
		if (cap > APPEARED_BYTES_MAX || !(g = realloc(w->watch, cap)))
			die(EXIT_SYS, E2BIG,
			    "unable to list the paths to watch in %s: over %lu MiB (exempt a "
			    "subtree with --writable, at the risk otomount(1) describes)",
			    w->tree, APPEARED_BYTES_MAX >> 20);
		w->watch = g;
		w->wcap = cap;
	}
	snprintf(w->watch + w->wlen, w->wcap - w->wlen, "%c\t%s%s%s\n", tag, a, b ? "\t" : "",
		 b ? b : "");
	w->wlen += (size_t)n;
}

/*
 * rel (beneath the tree's top), which git would follow or run and which a
 * mount cannot protect because it is not there: otons says at the
 * session's end if it appeared.
 */
static void xwatch(struct walk *w, const char *rel, const char *why)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", w->tree, rel) >= (int)sizeof(p) || exempt(w, p) ||
	    strpbrk(rel, "\t\n"))
		return; /* exempt, or a name no line can carry (the host's own) */
	if (++w->nwatch > APPEARED_MAX)
		die(EXIT_SYS, E2BIG,
		    "unable to watch the paths git would follow in %s: more than %lu (exempt a "
		    "subtree with --writable, at the risk otomount(1) describes)",
		    w->tree, APPEARED_MAX);
	xwatch_text(w, 'W', rel, why);
}

static int absent(int dir, const char *name)
{
	struct stat st;

	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

/* dir's name (dir is the view's w->path): watched when absent, else protected. */
static void xguard(struct walk *w, int dir, const char *name, const char *why)
{
	char rel[PATH_MAX];
	const char *r = rel_of(w, w->path);

	if (!absent(dir, name)) {
		xprotect_name(w, dir, name, 1);
		return;
	}
	if (snprintf(rel, sizeof(rel), "%s%s%s", r, *r ? "/" : "", name) < (int)sizeof(rel))
		xwatch(w, rel, why ? why : protect_why(name));
}

/*
 * rel, a path a repository's config names beneath the tree's top: made
 * read-only when it exists, is no symlink and is not the top itself (a
 * hooksPath of the whole tree would leave the agent nothing to write).
 */
static void xprotect_named(struct walk *w, const char *rel)
{
	char parent[PATH_MAX], p[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	int dir;

	if (!*rel || snprintf(p, sizeof(p), "%s/%s", w->tree, rel) >= (int)sizeof(p) ||
	    exempt(w, p))
		return;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 0, rel);
	dir = sys_openat2(w->top, *parent ? parent : ".", O_PATH | O_DIRECTORY | O_CLOEXEC,
			  RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (dir < 0 || absent(dir, slash ? slash + 1 : rel)) {
		if (dir < 0 && errno != ENOENT)
			debugx("not protected: %s (its directory: %s)", p, strerror(errno));
		else
			xwatch(w, rel, protect_why(""));
		if (dir >= 0)
			close(dir);
		return;
	}
	xbind_self(w, dir, slash ? slash + 1 : rel, p, 1);
	close(dir);
}

struct named {
	size_t n;
	int over;
	enum gitcfg_kind kind[NAMED_MAX];
	char *val[NAMED_MAX];
};

static void on_named(void *arg, enum gitcfg_kind kind, const char *val)
{
	struct named *nm = arg;

	if (nm->n >= NAMED_MAX || !(nm->val[nm->n] = strdup(val))) {
		nm->over = 1;
		return;
	}
	nm->kind[nm->n++] = kind;
}

/* The config file cfg (beneath the tree's top) read: what it names, into nm. */
static void xread_named(struct walk *w, const char *cfg, struct named *nm)
{
	char p[PATH_MAX];
	char *buf;
	ssize_t len;
	int fd = sys_openat2(w->top, cfg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
			     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	memset(nm, 0, sizeof(*nm));
	if (fd < 0)
		return;
	buf = malloc(CONFIG_MAX);
	if (!buf)
		die(EXIT_SYS, ENOMEM, "unable to read %s/%s to protect what it names", w->tree,
		    cfg);
	len = fd_read_all(fd, buf, CONFIG_MAX);
	close(fd);
	snprintf(p, sizeof(p), "%s/%s", w->tree, cfg);
	if (len < 0 || (size_t)len >= CONFIG_MAX)
		die(EXIT_SYS, len < 0 ? errno : EFBIG,
		    "unable to read %s to protect the paths it names%s", p,
		    len < 0 ? "" : " (over 1 MiB)");
	(void)gitcfg_paths(buf, (size_t)len, on_named, nm);
	free(buf);
	if (nm->over)
		die(EXIT_SYS, E2BIG,
		    "unable to protect the paths %s names: more than %d (exempt its repository "
		    "with --writable, at the risk otomount(1) describes)",
		    p, NAMED_MAX);
}

/*
 * What the config file cfg names beneath the tree's top, made read-only:
 * hooksPath and commands relative to the repository's top (top), includes
 * relative to cfg's directory, and what those include in turn.
 */
static void xprotect_config(struct walk *w, const char *cfg, const char *top, unsigned depth)
{
	struct named nm;
	char dir[PATH_MAX], rel[PATH_MAX];
	const char *slash = strrchr(cfg, '/');

	if (depth > INCLUDE_DEPTH)
		die(EXIT_SYS, ELOOP,
		    "unable to protect what %s/%s includes: more than %d includes deep", w->tree,
		    cfg, INCLUDE_DEPTH);
	xread_named(w, cfg, &nm);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - cfg) : 0, cfg);
	for (size_t i = 0; i < nm.n; i++) {
		const char *from = nm.kind[i] == GITCFG_INCLUDE ? dir : top;

		/* Outside the tree (absolute, ~, above its top): not the agent's to write. */
		if (nm.kind[i] != GITCFG_WORKTREE &&
		    gitcfg_join(rel, sizeof(rel), from, nm.val[i]) == 0) {
			xprotect_named(w, rel);
			if (nm.kind[i] == GITCFG_INCLUDE)
				xprotect_config(w, rel, top, depth + 1);
		}
		free(nm.val[i]);
	}
}

/* A repository's top (the directory holding its .git, dir): the hook managers' files. */
static void xprotect_worktop(struct walk *w, int dir)
{
	for (const char *const *n = WORKTOP; *n; n++)
		xguard(w, dir, *n, NULL);
}

/*
 * A git directory's insides (dir, the view's w->path): what git runs and
 * follows, each linked worktree's too (worktrees/NAME, each a mount point,
 * as worktrees/ is, so that none is moved aside and made again), and what
 * its config names, relative to the repository's top (top, beneath the
 * tree's; NULL: the config's core.worktree, else the git directory).
 */
static void xgit_insides(struct walk *w, int dir, const char *top)
{
	char cfg[PATH_MAX], wt[PATH_MAX], gtop[PATH_MAX];
	const char *grel = rel_of(w, w->path);
	int d;

	for (const char *const *n = GITDIR_RO; *n; n++)
		xguard(w, dir, *n, NULL);
	if (absent(dir, "worktrees"))
		xguard(w, dir, "worktrees", NULL);
	d = openat(dir, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d >= 0) {
		char p[PATH_MAX];
		size_t keep;
		struct dirent *e;
		DIR *dp;

		if (join(p, w->path, "worktrees") < 0)
			die(EXIT_SYS, ENAMETOOLONG, "unable to protect %s/worktrees", w->path);
		dp = fdopendir(dup(d));
		if (!dp)
			die(EXIT_SYS, errno, "unable to read %s to protect it", p);
		keep = enter(w, p);
		while ((e = readdir(dp))) {
			char q[PATH_MAX];
			int sub;
			size_t k2;

			if (e->d_name[0] == '.' || join(q, p, e->d_name) < 0 || exempt(w, q))
				continue;
			sub = openat(d, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				continue; /* not a directory: git reads nothing of it */
			k2 = enter(w, q);
			for (const char *const *n = GITDIR_RO; *n; n++)
				xprotect_name(w, sub, *n, 1);
			leave(w, k2);
			close(sub);
			xprotect_name(w, d, e->d_name, 0);
		}
		closedir(dp);
		leave(w, keep);
		close(d);
		xprotect_name(w, dir, "worktrees", 0);
	}
	if (!top) {
		/* A bare repository's or a submodule's: core.worktree says where its top is. */
		struct named nm;

		snprintf(cfg, sizeof(cfg), "%s%sconfig", grel, *grel ? "/" : "");
		xread_named(w, cfg, &nm);
		snprintf(gtop, sizeof(gtop), "%s", grel);
		for (size_t i = 0; i < nm.n; i++) {
			if (nm.kind[i] == GITCFG_WORKTREE &&
			    gitcfg_join(wt, sizeof(wt), grel, nm.val[i]) == 0)
				snprintf(gtop, sizeof(gtop), "%s", wt);
			free(nm.val[i]);
		}
		top = gtop;
	}
	snprintf(cfg, sizeof(cfg), "%s%sconfig", grel, *grel ? "/" : "");
	xprotect_config(w, cfg, top, 0);
	snprintf(cfg, sizeof(cfg), "%s%sconfig.worktree", grel, *grel ? "/" : "");
	xprotect_config(w, cfg, top, 0);
}

/* Filesystems whose directories count their subdirectories in st_nlink (2 + each). */
static int nlink_counts(unsigned long type)
{
	return type == 0xEF53 /* ext2, 3, 4 */ || type == 0x58465342 /* xfs */ ||
	       type == 0x01021994 /* tmpfs */;
}

/*
 * name, a directory in dir (the view's path p), when it has no subdirectory
 * on a filesystem that says so (st_nlink 2): nothing in it can be a git
 * directory or a bare repository, only a .git file, which is protected here,
 * and it is not read (most of a source tree's directories are such leaves:
 * reading their entries was most of the walk's time). 1 when done.
 */
static int xleaf(struct walk *w, int dir, const char *name, const char *p)
{
	struct stat st, g;
	struct statfs fs;
	char dotgit[NAME_MAX + 6];

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_nlink != 2)
		return 0;
	if (st.st_dev != w->dev) {
		int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		w->dev = st.st_dev;
		w->dev_counts =
		    fd >= 0 && fstatfs(fd, &fs) == 0 && nlink_counts((unsigned long)fs.f_type);
		if (fd >= 0)
			close(fd);
	}
	if (!w->dev_counts)
		return 0;
	if (++w->dirs > PROTECT_MAX_DIRS)
		return 0; /* xwalk says why */
	snprintf(dotgit, sizeof(dotgit), "%s/.git", name);
	if (fstatat(dir, dotgit, &g, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(g.st_mode)) {
		int sub = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		size_t keep;

		if (sub < 0)
			die(EXIT_SYS, errno, "unable to open %s to protect its files", p);
		keep = enter(w, p);
		xprotect_name(w, sub, ".git", 1);
		xprotect_worktop(w, sub);
		leave(w, keep);
		close(sub);
	}
	return 1;
}

/* A git directory: name, in dir (the view's w->path). Its modules are git directories too. */
static void xgitdir(struct walk *w, int dir, const char *name)
{
	char p[PATH_MAX], mp[PATH_MAX], top[PATH_MAX];
	size_t keep, kept;
	int g, m;

	if (join(p, w->path, name) < 0)
		die(EXIT_SYS, ENAMETOOLONG, "unable to protect %s/%s", w->path, name);
	if (exempt(w, p))
		return;
	g = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g < 0)
		die(EXIT_SYS, errno, "unable to open %s to protect it", p);
	snprintf(top, sizeof(top), "%s", rel_of(w, w->path));
	keep = enter(w, p);
	xgit_insides(w, g, top);
	/*
	 * Submodules' git directories: .git/modules/NAME/ (and nested modules),
	 * each a mount point, and modules/ too.
	 */
	m = openat(g, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (m >= 0) {
		if (join(mp, p, "modules") < 0)
			die(EXIT_SYS, ENAMETOOLONG, "unable to protect %s/modules", p);
		kept = enter(w, mp);
		xwalk(w, m);
		close(m);
		leave(w, kept);
		xprotect_name(w, g, "modules", 0);
	}
	close(g);
	leave(w, keep);
	xprotect_name(w, dir, name, 0);
}

/*
 * The directory dir (the view's w->path): its git directories and .git
 * files protected, then each subdirectory walked (not a git directory's
 * insides, not through a symlink). A directory that is itself a git
 * directory (a bare repository, a submodule's under .git/modules) has its
 * insides protected and is walked no further: 1 then, for its caller to
 * make it a mount point.
 */
static int xwalk(struct walk *w, int dir)
{
	char **subs = NULL, **gits = NULL;
	size_t nsubs = 0, ngits = 0;
	int bare = 0;
	long n;

	if (++w->dirs > PROTECT_MAX_DIRS)
		die(EXIT_SYS, E2BIG,
		    "unable to protect the files the host runs later in %s: more than %lu "
		    "directories (exempt a subtree with --writable, at the risk otomount(1) "
		    "describes)",
		    w->tree, PROTECT_MAX_DIRS);
	while ((n = syscall(SYS_getdents64, dir, w->buf, sizeof(w->buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(w->buf + off);
			const char *name = d->d_name;
			unsigned char type = d->d_type;
			struct stat st;

			off += d->d_reclen;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (type == DT_UNKNOWN) {
				if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				type = S_ISDIR(st.st_mode)   ? DT_DIR
				       : S_ISREG(st.st_mode) ? DT_REG
							     : 0;
			}
			/* A bare repository: HEAD, config, objects/ and refs/ side by side. */
			if (type == DT_REG && (!strcmp(name, "HEAD") || !strcmp(name, "config")))
				bare |= name[0] == 'H' ? 1 : 2;
			if (type == DT_DIR && (!strcmp(name, "objects") || !strcmp(name, "refs")))
				bare |= name[0] == 'o' ? 4 : 8;
			if (!strcmp(name, ".git") && type == DT_REG) {
				xprotect_name(w, dir, name, 1);
				xprotect_worktop(w, dir);
				continue;
			}
			if (type != DT_DIR)
				continue;
			{
				char ***list = !strcmp(name, ".git") ? &gits : &subs;
				size_t *cnt = list == &gits ? &ngits : &nsubs;
				char **l = realloc(*list, (*cnt + 1) * sizeof(**list));

				if (!l || !(l[*cnt] = strdup(name)))
					die(EXIT_SYS, ENOMEM, "unable to walk %s: out of memory",
					    w->path);
				*list = l;
				++*cnt;
			}
		}
	}
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read the directory %s to protect it", w->path);
	if (bare == 15) {
		/* This directory is a git directory: protect its insides, walk no further. */
		xgit_insides(w, dir, NULL);
		for (size_t i = 0; i < nsubs; i++)
			free(subs[i]);
		nsubs = 0;
	}
	if (ngits)
		xprotect_worktop(w, dir);
	for (size_t i = 0; i < ngits; i++) {
		xgitdir(w, dir, gits[i]);
		free(gits[i]);
	}
	for (size_t i = 0; i < nsubs; i++) {
		char p[PATH_MAX];
		size_t keep;
		int sub, is_git;

		if (join(p, w->path, subs[i]) < 0)
			die(EXIT_SYS, ENAMETOOLONG, "unable to walk %s/%s", w->path, subs[i]);
		if (!exempt(w, p) && !xleaf(w, dir, subs[i], p)) {
			sub = openat(dir, subs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0)
				die(EXIT_SYS, errno, "unable to open %s to protect its files", p);
			keep = enter(w, p);
			is_git = xwalk(w, sub);
			leave(w, keep);
			close(sub);
			/* Not to be moved aside and made again. */
			if (is_git)
				xprotect_name(w, dir, subs[i], 0);
		}
		free(subs[i]);
	}
	free(subs);
	free(gits);
	return bare == 15;
}

/* One writable tree of the view, top: its start-up files, and every repository in it. */
static void xprotect_tree(struct view_state *v, struct walk *w, const char *top)
{
	int dir;

	if (exempt(w, top))
		return;
	dir = path_open_beneath(v->root, top, O_RDONLY | O_DIRECTORY);
	if (dir < 0)
		die(EXIT_SYS, errno, "unable to open %s in the view to protect its files", top);
	w->tree = top;
	w->top = dir;
	if (w->ntops >= APPEARED_TREES_MAX)
		die(EXIT_SYS, E2BIG,
		    "unable to protect the files of %s: more than %d writable trees", top,
		    APPEARED_TREES_MAX);
	w->tops[w->ntops] = openat(dir, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->tops[w->ntops++] < 0)
		die(EXIT_SYS, errno, "unable to open %s to watch it", top);
	xwatch_text(w, 'T', top, NULL);
	snprintf(w->path, sizeof(w->path), "%s", top);
	for (const char *const *n = START; *n; n++)
		xprotect_name(w, dir, *n, 1);
	(void)xwalk(w, dir);
	close(dir);
	w->top = -1;
}

/*
 * The watched paths to otons (OTO_APPEARED), in one message: a sealed
 * memfd of the lines and each tree's top. Without otons' socket, nothing.
 */
static void xwatch_send(struct walk *w)
{
	const char *v = getenv("OTO_APPEARED");
	int fds[1 + APPEARED_TREES_MAX], mfd;
	char c[CMSG_SPACE(sizeof(fds))], one = 'W';
	struct iovec io = { .iov_base = &one, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = c };
	struct cmsghdr *h;
	unsigned long sock;

	if (v) {
		if (opt_ulong(v, 65535, &sock) < 0 || sock < 3)
			die_usage("OTO_APPEARED=%s: not a socket's fd (otons sets it)", v);
		unsetenv("OTO_APPEARED");
		mfd = memfd_create("oto-appeared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (mfd < 0 || fd_write_all(mfd, w->watch, w->wlen) < 0 ||
		    fcntl(mfd, F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
			die(EXIT_SYS, errno, "unable to write the paths to watch for otons");
		fds[0] = mfd;
		memcpy(fds + 1, w->tops, w->ntops * sizeof(int));
		memset(c, 0, sizeof(c));
		m.msg_controllen = CMSG_SPACE((1 + w->ntops) * sizeof(int));
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN((1 + w->ntops) * sizeof(int));
		memcpy(CMSG_DATA(h), fds, (1 + w->ntops) * sizeof(int));
		if (sendmsg((int)sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
			die(EXIT_SYS, errno,
			    "unable to send the paths to watch to otons (OTO_APPEARED)");
		close((int)sock);
		close(mfd);
	}
	for (size_t i = 0; i < w->ntops; i++)
		close(w->tops[i]);
	w->ntops = 0;
	free(w->watch);
	w->watch = NULL;
	w->wlen = w->wcap = 0;
}

void xprotect(struct view_state *v, const struct otomount_opts *o)
{
	static struct walk w;

	w.o = o;
	w.dirs = w.mounts = w.nwatch = 0;
	w.dev = 0;
	w.dev_counts = 0;
	if (o->role == ROLE_MEMBER || o->role == ROLE_MANAGER)
		xprotect_tree(v, &w, "/work");
	if (o->role == ROLE_MANAGER) {
		xprotect_tree(v, &w, "/knowledge");
		xprotect_tree(v, &w, "/config");
	}
	if (o->role != ROLE_NONE)
		xprotect_tree(v, &w, "/private");
	for (size_t i = 0; i < o->nops; i++) {
		struct stat st;
		int fd;

		if (o->ops[i].kind != OP_RW)
			continue;
		fd = path_open_beneath(v->root, o->ops[i].dst, O_PATH);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			xprotect_tree(v, &w, o->ops[i].dst);
		if (fd >= 0)
			close(fd);
	}
	for (size_t i = 0; i < o->nprotect; i++) {
		const char *p = o->protect[i], *slash = strrchr(p, '/');
		char parent[PATH_MAX];
		int dir;

		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - p), p);
		dir = path_open_beneath(v->root, *parent ? parent : "/", O_PATH | O_DIRECTORY);
		if (dir < 0 || !xbind_self(&w, dir, slash + 1, p, 1))
			die(EXIT_SYS, dir < 0 ? errno : ENOENT,
			    "unable to --protect %s (it must be a file or directory of the view, "
			    "not "
			    "a symlink)",
			    p);
		close(dir);
	}
	debugx("protected files: %lu directories walked, %lu mounts, %lu paths watched", w.dirs,
	       w.mounts, w.nwatch);
	xwatch_send(&w);
}
