/* SPDX-License-Identifier: ISC */
/*
 * The changes applied to the host's trees. First every change is checked,
 * and if one conflicts nothing is applied: a path the host changed since
 * the session started (its ctime, which no one but the kernel sets, is not
 * before the recorded start), a file the session changed that the host
 * deleted or renamed meanwhile (a copied-up file whose directory the host
 * changed), a symlink on the host in a path's way, a file the host runs
 * later (unless --allow-protected). Then each change, in order (a
 * directory before what is in it): a file or symlink written beside its
 * place under a temporary name and renamed over it (atomic per file), a
 * directory made, a deletion removed without following a symlink, a mode
 * set; never a setuid or setgid bit, never a device node. Every host path
 * is opened beneath its tree's top with no symlink followed. Run as root,
 * what is made gets the owner of the file it replaces, or of its directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "otodiff.h"

struct place {
	int dir;	  /* the host's directory the change is in; -1: not there */
	int dir_err;	  /* why not */
	const char *base; /* the change's name in it */
	struct stat st;	  /* the host's entry there, if any */
	int exists;
};

/* The host's side of rel in tree: its directory opened, its entry stat'ed. */
static void locate(const struct cowdir *s, size_t tree, const char *rel, struct place *p)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(rel, '/');

	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 0, rel);
	p->base = slash ? slash + 1 : rel;
	p->dir = open_beneath(s->host[tree], parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	p->dir_err = p->dir < 0 ? errno : 0;
	p->exists =
	    p->dir >= 0 && *rel && fstatat(p->dir, p->base, &p->st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!*rel) /* the tree's top */
		p->exists = fstat(s->host[tree], &p->st) == 0;
}

static int after_start(const struct cowdir *s, const struct stat *st)
{
	return st->st_ctim.tv_sec > s->rec.start_sec ||
	       (st->st_ctim.tv_sec == s->rec.start_sec && st->st_ctim.tv_nsec >= s->rec.start_nsec);
}

static void conflict(const struct cowdir *s, size_t tree, const char *rel, const char *why,
		     size_t *n)
{
	fputs("otodiff: conflict: ", stderr);
	path_show(stderr, view_path(s, tree, rel));
	fprintf(stderr, ": %s\n", why);
	++*n;
}

/* Anything beneath the host's directory dir changed since the start: its first path, in rel. */
static int changed_below(const struct cowdir *s, int dir, char *rel, size_t keep, int depth)
{
	int fd = rm_open_at(dir, ".");
	DIR *dp = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int r = 0;

	if (!dp)
		return fd >= 0 ? (close(fd), 1) : 1;
	while (!r && (e = readdir(dp))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		snprintf(rel + keep, PATH_MAX - keep, "/%s", e->d_name);
		if (after_start(s, &st) || depth > 256) {
			r = 1;
		} else if (S_ISDIR(st.st_mode)) {
			int sub =
			    openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 || changed_below(s, sub, rel, strlen(rel), depth + 1);
			if (sub >= 0)
				close(sub);
		}
		if (!r)
			rel[keep] = 0;
	}
	closedir(dp);
	return r;
}

static size_t check(const struct cowdir *s, const struct change *c, const struct otodiff_opts *o)
{
	struct place p;
	size_t n = 0;

	if (c->kind == C_SKIP)
		return 0;
	if (!o->allow_protected && c->runs_later)
		conflict(s, c->tree, c->rel,
			 "a file the host runs later (review it, then give --allow-protected)", &n);
	locate(s, c->tree, c->rel, &p);
	if (p.dir < 0 && p.dir_err == ELOOP)
		conflict(s, c->tree, c->rel, "a symlink on the host in its path", &n);
	else if (p.exists && after_start(s, &p.st))
		conflict(s, c->tree, c->rel, "changed on the host since the session started", &n);
	else if (!p.exists && c->origin && c->kind != C_RENAME && p.dir >= 0) {
		struct stat d;

		if (fstat(p.dir, &d) == 0 && after_start(s, &d))
			conflict(s, c->tree, c->rel,
				 "deleted or renamed on the host since the session started", &n);
	} else if (p.exists && c->kind == C_DEL && S_ISDIR(p.st.st_mode)) {
		char rel[PATH_MAX];
		int sub = openat(p.dir, p.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		snprintf(rel, sizeof(rel), "%s", c->rel);
		if (sub < 0 || changed_below(s, sub, rel, strlen(rel), 0))
			conflict(s, c->tree, rel, "changed on the host since the session started",
				 &n);
		if (sub >= 0)
			close(sub);
	}
	if (over_max(s, c)) {
		char why[160];

		snprintf(why, sizeof(why),
			 "%lld bytes, over --max-size (%llu): review it, then give a larger "
			 "--max-size",
			 (long long)c->up_size, s->max_size);
		conflict(s, c->tree, c->rel, why, &n);
	}
	if (p.dir >= 0)
		close(p.dir);
	return n;
}

/* Who owns what a commit run by root makes: the file replaced, else its directory. */
static void owner_for(const struct place *p, uid_t *u, gid_t *g)
{
	struct stat d;

	*u = (uid_t)-1;
	*g = (gid_t)-1;
	if (geteuid() != 0)
		return;
	if (p->exists) {
		*u = p->st.st_uid;
		*g = p->st.st_gid;
	} else if (fstat(p->dir, &d) == 0) {
		*u = d.st_uid;
		*g = d.st_gid;
	}
}

/*
 * A file's bytes, its holes left holes: only the ranges SEEK_DATA finds are
 * read and written, then the size set. A sparse file of 10 TiB with no
 * data takes no room on the host. What is past the size seen first (the
 * agent may still be writing) is not copied; past max, nothing is (EFBIG).
 */
static int copy_fd(int from, int to, unsigned long long max)
{
	char buf[65536];
	struct stat st;
	off_t data = 0, end;

	if (fstat(from, &st) < 0)
		return -1;
	if ((unsigned long long)st.st_size > max) {
		errno = EFBIG;
		return -1;
	}
	end = st.st_size;
	while (data < end) {
		off_t hole, d = lseek(from, data, SEEK_DATA);

		if (d < 0 && errno == ENXIO) /* no data past data: a hole to the end */
			break;
		/* A filesystem without SEEK_DATA: all of it is data. */
		hole = d < 0 ? (errno == EINVAL ? end : -1) : lseek(from, d, SEEK_HOLE);
		data = d < 0 ? data : d;
		if (hole < 0)
			return -1;
		if (hole > end)
			hole = end;
		while (data < hole) {
			size_t want =
			    (size_t)(hole - data < (off_t)sizeof(buf) ? hole - data
								      : (off_t)sizeof(buf));
			ssize_t n = pread(from, buf, want, data);

			if (n <= 0) /* shrunk meanwhile: the size set below */
				return n < 0 ? -1 : ftruncate(to, end);
			if (lseek(to, data, SEEK_SET) < 0 || fd_write_all(to, buf, (size_t)n) < 0)
				return -1;
			data += n;
		}
	}
	return ftruncate(to, end);
}

/* A file or a symlink of the upper layer, written as tmp beside p->base, then renamed over it. */
static int put(const struct cowdir *s, const struct change *c, const struct place *p)
{
	char tmp[64];
	struct stat us;
	uid_t u;
	gid_t g;
	int up = open_beneath(s->upper[c->tree], c->rel, O_PATH | O_NOFOLLOW), out = -1, r = -1;

	snprintf(tmp, sizeof(tmp), ".otodiff.%ld.%ld", (long)getpid(), (long)random());
	owner_for(p, &u, &g);
	if (up < 0 || fstat(up, &us) < 0)
		goto out;
	if (S_ISLNK(us.st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlinkat(up, "", t, sizeof(t) - 1);

		if (n < 0)
			goto out;
		t[n] = 0;
		/* Made as a symlink, never followed: what it names is not read. */
		if (symlinkat(t, p->dir, tmp) < 0)
			goto out;
		if (fchownat(p->dir, tmp, u, g, AT_SYMLINK_NOFOLLOW) < 0 && geteuid() == 0)
			goto undo;
	} else {
		char self[32];
		int in;

		if (!S_ISREG(us.st_mode) || (us.st_mode & (S_ISUID | S_ISGID))) {
			errno = EPERM;
			goto out;
		}
		snprintf(self, sizeof(self), "/proc/self/fd/%d", up);
		in = open(self, O_RDONLY | O_CLOEXEC);
		out = in < 0 ? -1
			     : openat(p->dir, tmp,
				      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0) {
			if (in >= 0)
				close(in);
			goto out;
		}
		r = copy_fd(in, out, s->max_size);
		close(in);
		if (r < 0 || fchmod(out, us.st_mode & 01777) < 0 ||
		    (geteuid() == 0 && fchown(out, u, g) < 0) ||
		    futimens(out, (struct timespec[2]){ us.st_atim, us.st_mtim }) < 0)
			goto undo;
	}
	r = renameat(p->dir, tmp, p->dir, p->base);
	if (r == 0)
		goto out;
undo:
	r = errno;
	unlinkat(p->dir, tmp, 0);
	errno = r;
	r = -1;
out:
	if (out >= 0)
		close(out);
	if (up >= 0)
		close(up);
	return r;
}

static int apply(const struct cowdir *s, const struct change *c)
{
	struct place p;
	uid_t u;
	gid_t g;
	int r = -1;

	locate(s, c->tree, c->rel, &p);
	if (p.dir < 0) {
		errno = p.dir_err;
		return -1;
	}
	switch (c->kind) {
	case C_DEL:
		r = rm_tree(p.dir, p.base);
		break;
	case C_MODE:
		r = c->up == N_DIR ? 0 /* at the end */
		    : *c->rel ? fchmodat(p.dir, p.base, c->up_mode & 01777, AT_SYMLINK_NOFOLLOW)
			      : fchmod(s->host[c->tree], c->up_mode & 01777);
		break;
	case C_ADD:
	case C_MOD:
	case C_RENAME:
		if (c->up != N_DIR) {
			r = put(s, c, &p);
			break;
		}
		/* 0700 while it is filled; its mode at the end (dir_modes). */
		owner_for(&p, &u, &g);
		r = mkdirat(p.dir, p.base, 0700);
		if (r == 0 && geteuid() == 0)
			r = fchownat(p.dir, p.base, u, g, AT_SYMLINK_NOFOLLOW);
		break;
	case C_SKIP:
	default:
		r = 0;
		break;
	}
	close(p.dir);
	return r;
}

/*
 * The directories' modes, last, deepest first: a directory the agent made
 * read-only is filled before it becomes so.
 */
static int dir_modes(const struct cowdir *s, const struct change **bad)
{
	for (size_t i = s->n; i-- > 0;) {
		const struct change *c = &s->c[i];
		struct place p;
		int r;

		if (c->up != N_DIR || (c->kind != C_ADD && c->kind != C_MODE))
			continue;
		locate(s, c->tree, c->rel, &p);
		r = p.dir < 0 ? -1
		    : *c->rel ? fchmodat(p.dir, p.base, c->up_mode & 01777, AT_SYMLINK_NOFOLLOW)
			      : fchmod(s->host[c->tree], c->up_mode & 01777);
		if (p.dir >= 0)
			close(p.dir);
		if (r < 0) {
			*bad = c;
			return -1;
		}
	}
	return 0;
}

/* The record's start moved to now: what is committed is the base of what comes next. */
static void xrestart(struct cowdir *s, const char *dir)
{
	char buf[COW_SESSION_MAX];
	struct timespec t;
	struct stat st;
	size_t n;
	int fd;

	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	s->rec.start_sec = t.tv_sec;
	s->rec.start_nsec = t.tv_nsec;
	n = cow_session_format(buf, sizeof(buf), &s->rec);
	unlinkat(s->dir, "session.new", 0);
	fd = openat(s->dir, "session.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0 || !n || fd_write_all(fd, buf, n) < 0 || fstat(s->dir, &st) < 0 ||
	    (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) < 0) || close(fd) < 0 ||
	    renameat(s->dir, "session.new", s->dir, "session") < 0)
		die(EXIT_SYS, errno, "unable to write %s/session", dir);
}

int xcommit(struct cowdir *s, const struct otodiff_opts *o)
{
	size_t bad = 0, done = 0;

	for (size_t i = 0; i < s->n; i++)
		bad += check(s, &s->c[i], o);
	if (bad)
		die(EXIT_REJECT, 0, "nothing committed: %zu conflict%s (above)", bad,
		    bad == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++) {
		const struct change *c = &s->c[i];

		if (apply(s, c) < 0) {
			int e = errno;

			fflush(stdout);
			die(EXIT_SYS, e, "unable to commit %s (%zu change%s committed before it)",
			    path_shown(view_path(s, c->tree, c->rel)), done, done == 1 ? "" : "s");
		}
		if (!c->hidden)
			show_line(stdout, s, c);
		done += c->kind != C_SKIP;
	}
	{
		const struct change *c;

		if (dir_modes(s, &c) < 0)
			die(EXIT_SYS, errno, "unable to set the mode of %s",
			    path_shown(view_path(s, c->tree, c->rel)));
	}
	xrestart(s, o->dir);
	if (fflush(stdout) == EOF)
		die(EXIT_SYS, errno, "unable to write what was committed");
	return 0;
}
