/* SPDX-License-Identifier: ISC */
/*
 * A session's changes: each tree's upper layer (DIR/upper/NAME) walked and
 * compared with the host's tree, entry by entry, into a list. The upper
 * layer is the agent's work: every name, mode and xattr in it is read
 * without being trusted (no symlink followed, depth and entries bounded,
 * overlayfs's own marks read by exact name). The host's side is opened
 * beneath its tree's top, never through a symlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "otodiff.h"

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

int open_nofollow(const char *path, int flags)
{
	return sys_openat2(AT_FDCWD, path, flags, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

int open_beneath(int dirfd, const char *path, int flags)
{
	return sys_openat2(dirfd, *path ? path : ".", flags, BENEATH);
}

const char *view_path(const struct cowdir *s, size_t tree, const char *rel)
{
	static char buf[PATH_MAX + 32];

	snprintf(buf, sizeof(buf), "/%s%s%s", s->rec.t[tree].name, *rel ? "/" : "", rel);
	return buf;
}

/*
 * Whether a tree's overlay was mounted (volatile: otomount's cow.c) under
 * another boot than this one and not since: a crash meanwhile may have lost
 * what the agent wrote.
 */
static int stale(struct cowdir *s, const char *name)
{
	char p[64], a[40], b[40];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC), g;
	ssize_t n = fd < 0 ? -1 : fd_read_all(fd, a, sizeof(a)), m;

	if (fd >= 0)
		close(fd);
	/*
	 * work/NAME/work and what is in it are mode 0 (overlayfs's): opened
	 * up for their owner (rm_open_at), as overlayfs makes them anew at
	 * every mount.
	 */
	snprintf(p, sizeof(p), "work/%s", name);
	fd = open_beneath(s->dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	for (const char *const *d = (const char *const[]){ "work", "incompat", NULL };
	     fd >= 0 && *d; d++) {
		g = rm_open_at(fd, *d);
		close(fd);
		fd = g;
	}
	g = fd < 0 ? -1 : openat(fd, "volatile", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (g < 0)
		return 0;
	close(g);
	g = open_beneath(s->dir, "boot", O_RDONLY | O_NOFOLLOW);
	m = g < 0 ? -1 : fd_read_all(g, b, sizeof(b));
	if (g >= 0)
		close(g);
	return n <= 0 || n != m || memcmp(a, b, (size_t)n);
}

void xsession_open(struct cowdir *s, const char *dir)
{
	char buf[COW_SESSION_MAX];
	int fd;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	s->dir = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (s->dir < 0)
		die(EXIT_SYS, errno, "unable to open the session directory %s%s", dir,
		    errno == ELOOP ? " (a symlink is refused)" : "");
	fd = open_beneath(s->dir, "session", O_RDONLY | O_NOFOLLOW);
	n = fd < 0 ? -1 : fd_read_all(fd, buf, sizeof(buf));
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read %s/session (is it a session directory?)", dir);
	close(fd);
	if (cow_session_parse(&s->rec, buf, (size_t)n) < 0)
		die(EXIT_REJECT, 0, "unable to read %s/session: not a session's record", dir);
	for (size_t i = 0; i < s->rec.n; i++) {
		const struct cow_tree *t = &s->rec.t[i];
		char p[64];
		struct stat st;

		snprintf(p, sizeof(p), "upper/%s", t->name);
		s->upper[i] = open_beneath(s->dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (s->upper[i] < 0)
			die(EXIT_SYS, errno, "unable to open %s/%s", dir, p);
		s->host[i] = sys_openat2(AT_FDCWD, t->host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
					 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (s->host[i] < 0 || fstat(s->host[i], &st) < 0)
			die(EXIT_SYS, errno, "unable to open the host's tree %s", t->host);
		/* Renamed, or replaced by another directory since: not the tree the session saw. */
		if ((unsigned long long)st.st_dev != t->dev ||
		    (unsigned long long)st.st_ino != t->ino)
			die(EXIT_REJECT, 0,
			    "the host's tree %s is not the directory the session started on",
			    t->host);
		s->stale |= stale(s, t->name);
	}
}

static enum node node_of(mode_t m)
{
	return S_ISREG(m) ? N_FILE : S_ISDIR(m) ? N_DIR : S_ISLNK(m) ? N_LINK : N_OTHER;
}

static struct change *xadd(struct cowdir *s, enum change_kind k, size_t tree, const char *rel)
{
	struct change *c;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		c = realloc(s->c, cap * sizeof(*c));
		if (!c)
			die(EXIT_SYS, ENOMEM, "unable to list the changes");
		s->c = c;
		s->cap = cap;
	}
	c = &s->c[s->n++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->tree = tree;
	c->rel = strdup(rel);
	if (!c->rel)
		die(EXIT_SYS, ENOMEM, "unable to list the changes");
	return c;
}

/* What the list says of a change's size: the upper's, the host's (NULL: none). */
static struct change *sized(struct change *c, const struct stat *us, const struct stat *hs)
{
	if (us) {
		c->up_size = us->st_size;
		c->up_alloc = (off_t)us->st_blocks * 512;
	}
	if (hs)
		c->host_size = hs->st_size;
	return c;
}

/* Whether two regular files hold the same bytes (1), differ (0); -1/errno. */
int same_content(int a, int b)
{
	static char x[65536], y[65536];
	struct stat sa, sb;

	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return -1;
	if (sa.st_size != sb.st_size)
		return 0;
	for (off_t off = 0;;) {
		ssize_t n = pread(a, x, sizeof(x), off), m;

		if (n < 0)
			return -1;
		if (n == 0)
			return 1;
		m = pread(b, y, (size_t)n, off);
		if (m != n)
			return m < 0 ? -1 : 0;
		if (memcmp(x, y, (size_t)n))
			return 0;
		off += n;
	}
}

/* Whether the upper file and the host's hold the same (1), differ (0); dies on errors. */
static int xsame(int up, int host, const char *name, const char *what)
{
	int a = openat(up, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int b = a < 0 ? -1 : openat(host, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int r = b < 0 ? -1 : same_content(a, b);

	if (r < 0)
		die(EXIT_SYS, errno, "unable to compare %s", what);
	close(a);
	close(b);
	return r;
}

static int same_link(int up, int host, const char *name)
{
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t n = readlinkat(up, name, a, sizeof(a)), m = readlinkat(host, name, b, sizeof(b));

	return n >= 0 && n == m && !memcmp(a, b, (size_t)n);
}

struct walk {
	struct cowdir *s;
	size_t tree;
	char rel[PATH_MAX];
	int depth;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of the directory fd (its own fd kept); NULL-terminated. */
static char **xnames(int fd, const char *what, size_t *n)
{
	int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = d < 0 ? NULL : fdopendir(d);
	char **l = NULL;
	struct dirent *e;

	*n = 0;
	if (!dp)
		die(EXIT_SYS, errno, "unable to read the directory %s", what);
	while ((e = readdir(dp))) {
		char **m;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		m = realloc(l, (*n + 2) * sizeof(*l));
		if (!m || !(m[*n] = strdup(e->d_name)))
			die(EXIT_SYS, ENOMEM, "unable to read the directory %s", what);
		l = m;
		l[++*n] = NULL;
	}
	closedir(dp);
	if (l)
		qsort(l, *n, sizeof(*l), by_name);
	return l;
}

static void free_names(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* An xattr of dir's entry name: its length into buf (size), -1 when it has none. */
static ssize_t xattr_of(int dir, const char *name, const char *key, char *buf, size_t size)
{
	char p[64 + NAME_MAX];

	snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dir, name);
	return lgetxattr(p, key, buf, size);
}

static void xwalk(struct walk *w, int up, int host, int opaque);

/* One entry of the upper layer, name in up (the host's directory host, or -1). */
static void xentry(struct walk *w, int up, int host, const char *name)
{
	struct cowdir *s = w->s;
	const char *what = path_shown(view_path(s, w->tree, w->rel));
	char opq[8];
	ssize_t on = -1;
	struct stat us, hs;
	enum node hn = N_NONE;
	enum upper_kind k;
	struct change *c;
	int sub, hsub;

	memset(&hs, 0, sizeof(hs));
	if (fstatat(up, name, &us, AT_SYMLINK_NOFOLLOW) < 0)
		die(EXIT_SYS, errno, "unable to stat %s in the upper layer", what);
	if (S_ISDIR(us.st_mode))
		on = xattr_of(up, name, "user.overlay.opaque", opq, sizeof(opq));
	/* Marks otomount's overlays never make (no redirects, no metacopy): refused. */
	if (xattr_of(up, name, "user.overlay.redirect", NULL, 0) >= 0 ||
	    xattr_of(up, name, "user.overlay.metacopy", NULL, 0) >= 0)
		die(EXIT_REJECT, 0,
		    "%s: a redirect or metacopy in the upper layer (not made by "
		    "otomount --cow): refused",
		    what);
	k = upper_kind(us.st_mode, us.st_rdev, on >= 0 ? opq : NULL, on >= 0 ? (size_t)on : 0);
	if (host >= 0) {
		if (fstatat(host, name, &hs, AT_SYMLINK_NOFOLLOW) == 0)
			hn = node_of(hs.st_mode);
		else if (errno != ENOENT)
			die(EXIT_SYS, errno, "unable to stat %s on the host", what);
	}
	switch (k) {
	case U_WHITEOUT:
		if (hn != N_NONE)
			sized(xadd(s, C_DEL, w->tree, w->rel), NULL, &hs)->host = hn;
		return;
	case U_DIR:
	case U_OPAQUE_DIR:
		if (hn == N_DIR && (us.st_mode & 07777) != (hs.st_mode & 07777)) {
			c = xadd(s, C_MODE, w->tree, w->rel);
			c->up = c->host = N_DIR;
			c->up_mode = us.st_mode & 07777;
			c->host_mode = hs.st_mode & 07777;
		} else if (hn != N_DIR) {
			if (hn != N_NONE)
				sized(xadd(s, C_DEL, w->tree, w->rel), NULL, &hs)->host = hn;
			c = xadd(s, C_ADD, w->tree, w->rel);
			c->up = N_DIR;
			c->up_mode = us.st_mode & 07777;
		}
		sub = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		hsub = hn == N_DIR
			   ? openat(host, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			   : -1;
		if (sub < 0 || (hn == N_DIR && hsub < 0))
			die(EXIT_SYS, errno, "unable to open the directory %s", what);
		xwalk(w, sub, hsub, k == U_OPAQUE_DIR);
		close(sub);
		if (hsub >= 0)
			close(hsub);
		return;
	case U_FILE:
	case U_LINK:
		if (hn == node_of(us.st_mode)) {
			int same =
			    k == U_LINK ? same_link(up, host, name) : xsame(up, host, name, what);

			if (!same) {
				c = sized(xadd(s, C_MOD, w->tree, w->rel), &us, &hs);
				c->up = c->host = hn;
				c->up_mode = us.st_mode & 07777;
			}
			if (k == U_FILE && (us.st_mode & 07777) != (hs.st_mode & 07777)) {
				c = sized(xadd(s, C_MODE, w->tree, w->rel), &us, &hs);
				c->up = c->host = N_FILE;
				c->up_mode = us.st_mode & 07777;
				c->host_mode = hs.st_mode & 07777;
			}
			return;
		}
		if (hn != N_NONE)
			sized(xadd(s, C_DEL, w->tree, w->rel), NULL, &hs)->host = hn;
		c = sized(xadd(s, C_ADD, w->tree, w->rel), &us, NULL);
		c->up = node_of(us.st_mode);
		c->up_mode = us.st_mode & 07777;
		c->origin = xattr_of(up, name, "user.overlay.origin", NULL, 0) >= 0;
		return;
	case U_SETID:
	case U_DEVICE:
	case U_OTHER:
	default:
		c = xadd(s, C_SKIP, w->tree, w->rel);
		c->why = k == U_SETID	 ? "setuid or setgid"
			 : k == U_DEVICE ? "a device node"
					 : "not a file, directory or symlink";
		return;
	}
}

static int has_name(char **l, size_t n, const char *name)
{
	return bsearch(&name, l, n, sizeof(*l), by_name) != NULL;
}

/* The directory up of the upper layer at w->rel, over the host's host (-1: none). */
static void xwalk(struct walk *w, int up, int host, int opaque)
{
	size_t nu, nh = 0, keep = strlen(w->rel);
	char **names = xnames(up, path_shown(view_path(w->s, w->tree, w->rel)), &nu), **hn = NULL;

	if (++w->depth > SCAN_MAX_DEPTH)
		die(EXIT_REJECT, 0, "%s: deeper than %d directories: refused",
		    path_shown(view_path(w->s, w->tree, w->rel)), SCAN_MAX_DEPTH);
	for (size_t pass = 0; pass < 2; pass++) {
		char **l = pass ? hn : names;
		size_t n = pass ? nh : nu;

		if (pass && (!opaque || host < 0))
			break;
		if (pass)
			hn = l = xnames(host, path_shown(view_path(w->s, w->tree, w->rel)), &n),
			nh = n;
		for (size_t i = 0; i < n; i++) {
			struct stat hs;

			if (++w->s->entries > SCAN_MAX_ENTRIES)
				die(EXIT_REJECT, 0,
				    "more than %lu entries in the upper layer: refused",
				    SCAN_MAX_ENTRIES);
			if (keep + 1 + strlen(l[i]) >= sizeof(w->rel))
				die(EXIT_REJECT, 0, "%s/...: a path longer than %d bytes: refused",
				    path_shown(view_path(w->s, w->tree, w->rel)), PATH_MAX);
			snprintf(w->rel + keep, sizeof(w->rel) - keep, "%s%s", keep ? "/" : "",
				 l[i]);
			if (!pass)
				xentry(w, up, host, l[i]);
			else if (!has_name(names, nu, l[i]) &&
				 fstatat(host, l[i], &hs, AT_SYMLINK_NOFOLLOW) == 0)
				sized(xadd(w->s, C_DEL, w->tree, w->rel), NULL, &hs)->host =
				    node_of(hs.st_mode);
			w->rel[keep] = 0;
		}
	}
	w->depth--;
	free_names(names, nu);
	free_names(hn, nh);
}

void xscan(struct cowdir *s)
{
	static struct walk w;

	for (size_t i = 0; i < s->rec.n; i++) {
		struct stat us, hs;

		w.s = s;
		w.tree = i;
		w.rel[0] = 0;
		w.depth = 0;
		if (fstat(s->upper[i], &us) < 0 || fstat(s->host[i], &hs) < 0)
			die(EXIT_SYS, errno, "unable to stat /%s's tops", s->rec.t[i].name);
		if ((us.st_mode & 07777) != (hs.st_mode & 07777)) {
			struct change *c = xadd(s, C_MODE, i, "");

			c->up = c->host = N_DIR;
			c->up_mode = us.st_mode & 07777;
			c->host_mode = hs.st_mode & 07777;
		}
		xwalk(&w, s->upper[i], s->host[i], 0);
	}
}

/* The host's file of a deletion, and the upper's of an addition: the same bytes. */
static int renamed(const struct cowdir *s, const struct change *del, const struct change *add)
{
	int a = open_beneath(s->host[del->tree], del->rel, O_RDONLY | O_NOFOLLOW);
	int b = open_beneath(s->upper[add->tree], add->rel, O_RDONLY | O_NOFOLLOW);
	int r = a >= 0 && b >= 0 && same_content(a, b) == 1;

	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return r;
}

void xscan_renames(struct cowdir *s)
{
	unsigned long tries = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct change *d = &s->c[i];

		if (d->kind != C_DEL || d->host != N_FILE)
			continue;
		for (size_t j = 0; j < s->n && tries < 100000; j++) {
			struct change *a = &s->c[j];

			if (a->kind != C_ADD || a->up != N_FILE || a->from)
				continue;
			tries++;
			if (renamed(s, d, a)) {
				a->kind = C_RENAME;
				a->from = d->rel;
				a->from_tree = d->tree;
				d->hidden = 1;
				break;
			}
		}
	}
}
