/* SPDX-License-Identifier: ISC */
/*
 * --cow DIR: the role's writable trees as overlays (otomount(1), COPY ON
 * WRITE). Each overlay's lower layer is the host's tree, cloned read-only;
 * its upper and work directories are DIR/upper/NAME and DIR/work/NAME, so
 * what the agent changes lands in DIR, and the host's tree is untouched
 * until a person runs otodiff --commit. Every layer is given to the kernel
 * as a file descriptor opened without following a symlink, never as a path
 * it would look up again.
 *
 * DIR is the operator's: made (0700) when missing, never through a symlink,
 * refused inside any tree the view shows (the agent would see its own
 * upper layer, and could edit what otodiff applies), refused when it holds
 * anything but a session of the same trees. A session of the same trees is
 * resumed: its record (DIR/session: when it first started, which host tree
 * each overlay covers) is kept as it is, for otodiff's conflict check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

int cow_wants(const struct otomount_opts *o, const char *name)
{
	if (!o->cow_dir)
		return 0;
	if (!strcmp(name, "work"))
		return 1;
	if (!strcmp(name, "private"))
		return o->cow_private || o->cow_all;
	return o->cow_all && o->role == ROLE_MANAGER;
}

/* The host paths the view shows: DIR must be none of them, nor beneath one. */
static size_t shown_trees(const struct otomount_opts *o, struct stat *st, size_t max)
{
	static const char *const sys[] = { "/usr",   "/bin",	"/sbin", "/lib", "/lib32",
					   "/lib64", "/libx32", "/etc",	 NULL };
	size_t n = 0;

	if (o->agent_root && stat(o->agent_root, &st[n]) == 0)
		n++;
	for (const char *const *p = sys; *p && n < max; p++)
		if (stat(*p, &st[n]) == 0)
			n++;
	for (size_t i = 0; i < o->nops && n < max; i++) {
		const struct view_op *op = &o->ops[i];
		int fd = view_src_fd(op->src ? op->src : "");

		if (op->kind != OP_RO && op->kind != OP_RW)
			continue;
		if (fd >= 0 ? fstat(fd, &st[n]) == 0 : stat(op->src, &st[n]) == 0)
			n++;
	}
	return n;
}

/*
 * dir, or one of its parents up to the root, is one of the trees the view
 * shows (by device and inode: a bind mount of the tree elsewhere is found
 * too). 1 yes, 0 no, -1/errno.
 */
static int in_view(const struct otomount_opts *o, int dir)
{
	struct stat shown[64], st, up;
	size_t n = shown_trees(o, shown, 64);
	int fd = dup(dir), parent, r = 0;

	if (fd < 0)
		return -1;
	for (int depth = 0; depth < 4096; depth++) {
		if (fstat(fd, &st) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (shown[i].st_dev == st.st_dev && shown[i].st_ino == st.st_ino)
				r = 1;
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (r || fd < 0 || fstat(fd, &up) < 0 ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
			break;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

static void xnot_in_view(const struct otomount_opts *o, int fd, const char *dir)
{
	int r = in_view(o, fd);

	if (r != 0)
		die(EXIT_SYS, r < 0 ? errno : 0,
		    "unable to use %s as a session directory: it is in a tree the view shows "
		    "(the agent would see its own changes' store): choose one outside",
		    dir);
}

/*
 * overlayfs cannot hold another overlay's upper layer, and a container's
 * own root is an overlay: said before DIR is made, not as the kernel's "not
 * supported as upperdir" at the mount. fd: DIR, or the parent it goes in.
 */
static void xnot_on_overlay(int fd, const char *dir)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) == 0 && sf.f_type == OVERLAYFS_SUPER_MAGIC)
		die(EXIT_SYS, 0,
		    "unable to use %s as a session directory: it is on an overlay filesystem (a "
		    "container's root?), which cannot hold the session's layers (give a directory "
		    "on a volume or a tmpfs)",
		    dir);
}

/*
 * DIR, opened without a symlink anywhere in it, and checked outside the
 * view; made, 0700, when missing, once its parent is checked so: nothing is
 * made in a tree the view shows.
 */
static int xcow_open_dir(const struct otomount_opts *o, const char *dir)
{
	char parent[COW_PATH_MAX];
	const char *slash = strrchr(dir, '/');
	int fd = host_open(dir, O_PATH | O_NOFOLLOW), p;
	struct stat st;

	if (fd >= 0 || errno != ENOENT) {
		/* O_PATH | O_NOFOLLOW opens a symlink in the last component as itself. */
		if (fd >= 0 && fstat(fd, &st) == 0)
			errno = S_ISLNK(st.st_mode) ? ELOOP : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (fd < 0 || errno)
			die(EXIT_SYS, errno, "unable to open the session directory %s%s", dir,
			    path_why(errno));
		xnot_in_view(o, fd, dir);
		xnot_on_overlay(fd, dir);
		return fd;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	p = host_open(*parent ? parent : "/", O_PATH | O_DIRECTORY);
	if (p < 0)
		die(EXIT_SYS, errno, "unable to open %s to make the session directory in it%s",
		    *parent ? parent : "/", path_why(errno));
	xnot_in_view(o, p, dir);
	xnot_on_overlay(p, dir);
	if (mkdirat(p, slash + 1, 0700) < 0 && errno != EEXIST)
		die(EXIT_SYS, errno, "unable to make the session directory %s", dir);
	fd = sys_openat2(p, slash + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open the session directory %s%s", dir,
		    path_why(errno));
	close(p);
	return fd;
}

/* 1 when the directory fd holds nothing, 0 when it holds something, -1/errno. */
static int empty_dir(int fd)
{
	int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = d < 0 ? NULL : fdopendir(d);
	struct dirent *e;
	int r = 1;

	if (!dp) {
		if (d >= 0)
			close(d);
		return -1;
	}
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			r = 0;
	closedir(dp);
	return r;
}

/*
 * The session's start, as the kernel stamps files: every change made to a
 * host tree before it has an older or equal change time, every change
 * after it a newer or equal one (otodiff counts equal as changed). A
 * clock read is not that: since Linux 6.13 a file whose times were looked
 * at gets a fine-grained stamp on its next change, later than the coarse
 * clock (CLOCK_REALTIME_COARSE lags up to a tick), so files made just
 * before the session looked changed after it. So a marker in DIR is
 * looked at, then changed (fchmod), and its new change time is the start:
 * fine-grained where the kernel has such stamps, and later than every
 * stamp handed out before it; coarse (a tick's changes counted as after
 * it) where it has not.
 */
static void xcow_start_time(struct cow_state *c, const char *dir)
{
	struct stat st;
	int fd =
	    openat(c->dir, "start", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || fstat(fd, &st) < 0 || fchmod(fd, 0600) < 0 || fstat(fd, &st) < 0)
		die(EXIT_SYS, errno, "unable to mark the session's start in %s", dir);
	close(fd);
	if (unlinkat(c->dir, "start", 0) < 0)
		die(EXIT_SYS, errno, "unable to mark the session's start in %s", dir);
	c->rec.start_sec = st.st_ctim.tv_sec;
	c->rec.start_nsec = st.st_ctim.tv_nsec;
}

/* The record DIR holds (1), none in an empty DIR (0); dies on anything else. */
static int xcow_read_record(struct cow_state *c, const char *dir)
{
	char *buf = malloc(COW_SESSION_MAX);
	int fd = sys_openat2(c->dir, "session", O_RDONLY | O_NOFOLLOW, BENEATH);
	ssize_t n;

	if (!buf)
		die(EXIT_SYS, ENOMEM, "unable to read %s/session", dir);
	if (fd < 0 && errno == ENOENT) {
		free(buf);
		if (empty_dir(c->dir) != 1)
			die(EXIT_SYS, 0,
			    "unable to use %s as a session directory: not empty, and no session's "
			    "(give an empty or missing directory, or a session's to resume)",
			    dir);
		return 0;
	}
	n = fd < 0 ? -1 : fd_read_all(fd, buf, COW_SESSION_MAX);
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read %s/session%s", dir, path_why(errno));
	if (cow_session_parse(&c->rec, buf, (size_t)n) < 0)
		die(EXIT_REJECT, 0,
		    "unable to resume the session in %s: its record %s/session does "
		    "not parse",
		    dir, dir);
	close(fd);
	free(buf);
	return 1;
}

void xcow_begin(struct view_state *v, const struct otomount_opts *o)
{
	struct cow_state *c = &v->cow;
	const char *dir = o->cow_dir;
	struct stat st;
	ssize_t n;
	int fd;

	c->dir = xcow_open_dir(o, dir);
	if (fstat(c->dir, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat the session directory %s", dir);
	/* Another account's directory, or one it may write, could be planted with a session. */
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		die(EXIT_SYS, 0,
		    "unable to use %s as a session directory: it must be the caller's own, "
		    "writable by no one else",
		    dir);
	c->resume = xcow_read_record(c, dir);
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : fd_read_all(fd, c->boot, sizeof(c->boot) - 1);
	if (n <= 0)
		die(EXIT_SYS, errno,
		    "unable to read the boot id (/proc/sys/kernel/random/boot_id)");
	c->boot[n] = 0;
	close(fd);
	if (!c->resume)
		xcow_start_time(c, dir);
	c->ntrees = 0;
}

/*
 * DIR/top/name, a directory of the session's (made when missing, mode
 * 0700, or mode: the upper layer's top is the tree's top in the view, with
 * its mode; DIR's own 0700 keeps others out): an O_PATH fd.
 */
static int xsession_sub(struct cow_state *c, const char *top, const char *name, const char *dir,
			mode_t mode)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", top, name);
	if ((mkdirat(c->dir, top, 0700) < 0 && errno != EEXIST) ||
	    (mkdirat(c->dir, p, mode) < 0 && errno != EEXIST))
		die(EXIT_SYS, errno, "unable to make %s/%s", dir, p);
	fd = sys_openat2(c->dir, p, O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open %s/%s%s", dir, p, path_why(errno));
	return fd;
}

/* The tree's line in the record: checked against a resumed one, or added. */
static void xcow_note(struct cow_state *c, const char *name, int lower, const char *src,
		      const char *dir)
{
	struct cow_tree *t;
	struct stat st;

	if (fstat(lower, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat %s", src);
	if (c->resume) {
		for (size_t i = 0; i < c->rec.n; i++) {
			t = &c->rec.t[i];
			if (!strcmp(t->name, name) && !strcmp(t->host, src) &&
			    t->dev == (unsigned long long)st.st_dev &&
			    t->ino == (unsigned long long)st.st_ino) {
				c->ntrees++;
				return;
			}
		}
		die(EXIT_SYS, 0,
		    "unable to resume the session in %s: it is another tree's, not %s's on /%s",
		    dir, src, name);
	}
	if (c->rec.n >= COW_TREES_MAX || !cow_host_path_ok(src))
		die(EXIT_SYS, ENAMETOOLONG, "unable to record %s in the session", src);
	t = &c->rec.t[c->rec.n++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->host, sizeof(t->host), "%s", src);
	t->dev = (unsigned long long)st.st_dev;
	t->ino = (unsigned long long)st.st_ino;
	c->ntrees++;
}

/*
 * The overlays are volatile: overlayfs then skips the upper filesystem's
 * syncfs when the session's mount namespace goes (a sync of the whole host
 * filesystem DIR is on, at every session's end: most of --cow's launch
 * cost), and the agent's fsync. It marks its work directory
 * (work/NAME/work/incompat/volatile) and refuses to mount it again until the
 * mark is removed: what a crash meanwhile may have lost is not its to judge.
 * The mark is removed here only when the host has not restarted since the
 * session last ran (DIR/boot holds the boot id it ran under); otherwise
 * the session is refused, and otodiff refuses to commit it.
 */
static void xcow_volatile(struct cow_state *c, const char *name, const char *dir)
{
	char p[64], boot[40];
	int fd, m;
	ssize_t n;

	snprintf(p, sizeof(p), "work/%s/work/incompat", name);
	fd = sys_openat2(c->dir, p, O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	m = fd < 0 ? -1 : sys_openat2(fd, "volatile", O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	if (m < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(m);
	m = sys_openat2(c->dir, "boot", O_RDONLY | O_NOFOLLOW, BENEATH);
	n = m < 0 ? -1 : fd_read_all(m, boot, sizeof(boot) - 1);
	if (n != (ssize_t)strlen(c->boot) || memcmp(boot, c->boot, (size_t)n))
		die(EXIT_SYS, 0,
		    "unable to resume the session in %s: the host restarted while it was mounted "
		    "(writes may be lost): review it with otodiff, then discard it",
		    dir);
	/* The mark: volatile/ and the dirty file overlayfs keeps in it. */
	m = sys_openat2(fd, "volatile", O_PATH | O_DIRECTORY | O_NOFOLLOW, BENEATH);
	if (m < 0 || (unlinkat(m, "dirty", 0) < 0 && errno != ENOENT) ||
	    unlinkat(fd, "volatile", AT_REMOVEDIR) < 0)
		die(EXIT_SYS, errno, "unable to remove %s/%s/volatile", dir, p);
	close(m);
	close(fd);
}

/*
 * A mount inside the host's tree (a tmpfs on workspace/sub) is locked to it
 * in the sandbox's user namespace, and overlayfs refuses a lower layer with
 * locked mounts below it (EINVAL: it would reveal what they cover), as it
 * refuses a clone of that tree's top alone. That clone, tried first, says
 * why the overlay would fail, before anything is made in DIR.
 */
static void xcow_no_submount(int lower, const char *name, const char *src)
{
	int top = (int)syscall(SYS_open_tree, lower, "",
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

	if (top >= 0)
		close(top);
	else if (errno == EINVAL)
		die(EXIT_SYS, 0,
		    "unable to mount /%s copy-on-write: %s has a mount inside it, which "
		    "overlayfs in a user namespace refuses (unmount it, or run without --cow)",
		    name, src);
}

int xcow_overlay(struct view_state *v, const struct otomount_opts *o, const char *name, int lower,
		 const char *src)
{
	struct cow_state *c = &v->cow;
	char why[512];
	int upper, work, m;

	struct stat st;

	xcow_no_submount(lower, name, src);
	xcow_note(c, name, lower, src, o->cow_dir);
	if (fstat(lower, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat %s", src);
	upper = xsession_sub(c, "upper", name, o->cow_dir, st.st_mode & 01777);
	work = xsession_sub(c, "work", name, o->cow_dir, 0700);
	xcow_volatile(c, name, o->cow_dir);
	m = mnt_overlay(lower, upper, work, MNT_RW, why, sizeof(why));
	if (m < 0)
		die(EXIT_SYS, errno,
		    "unable to mount /%s copy-on-write (overlayfs in a user namespace: Linux "
		    "5.11 or later, the overlay module, user xattrs where %s is)%s%s",
		    name, o->cow_dir, *why ? ": " : "", why);
	close(upper);
	close(work);
	return m;
}

void xcow_end(struct view_state *v, const struct otomount_opts *o)
{
	struct cow_state *c = &v->cow;
	char buf[COW_SESSION_MAX];
	size_t n;
	int fd;

	if (c->resume && c->ntrees != c->rec.n)
		die(EXIT_SYS, 0,
		    "unable to resume the session in %s: it copied other trees on write (give "
		    "the same --cow options)",
		    o->cow_dir);
	/* The boot the overlays are mounted under: xcow_volatile's, and otodiff's. */
	fd = openat(c->dir, "boot", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fd_write_all(fd, c->boot, strlen(c->boot)) < 0 || close(fd) < 0)
		die(EXIT_SYS, errno, "unable to write %s/boot", o->cow_dir);
	if (c->resume)
		return;
	n = cow_session_format(buf, sizeof(buf), &c->rec);
	fd = n ? openat(c->dir, "session", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600)
	       : -1;
	if (fd < 0 || fd_write_all(fd, buf, n) < 0 || close(fd) < 0)
		die(EXIT_SYS, n ? errno : ENAMETOOLONG, "unable to write %s/session", o->cow_dir);
}
