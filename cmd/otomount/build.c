/* SPDX-License-Identifier: ISC */
/*
 * The plan made in the new root, entry by entry: mounts attached, files
 * written, symlinks made, masks and read-only binds laid over what is there.
 * Every target is made and opened beneath the new root's fd (path.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

/* The scratch tmpfs on the old root: gone with it after pivot_root. */
static const char *const SCRATCH_AT[] = { "/tmp", "/mnt", "/dev", NULL };

void xbuild_scratch(struct view_state *v)
{
	int tmp, f, mp;

	v->dir.fd = -1; /* the build starts here: no directory kept yet */
	v->scratch = mnt_tmpfs(64UL << 10, 16, "0700", MNT_RW);
	if (v->scratch < 0)
		die(EXIT_SYS, errno, "unable to make the scratch tmpfs");
	/* A mount point, and the two masks, then read-only. */
	if (mkdirat(v->scratch, "root", 0755) < 0 || mkdirat(v->scratch, "empty", 0555) < 0 ||
	    (f = openat(v->scratch, "null", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0)
		die(EXIT_SYS, errno, "unable to make root, empty and null in the scratch tmpfs");
	close(f);
	if (mnt_setattr(v->scratch, MNT_RO, 0) < 0)
		die(EXIT_SYS, errno, "unable to make the scratch tmpfs read-only");
	/*
	 * Any directory of the old root will do: every source is a detached
	 * clone by now, so what the scratch covers is never looked up again.
	 */
	for (const char *const *d = SCRATCH_AT;; d++) {
		if (!*d)
			die(EXIT_SYS, errno,
			    "unable to mount the scratch tmpfs on /tmp, /mnt or /dev");
		tmp = host_open(*d, O_PATH | O_DIRECTORY | O_NOFOLLOW);
		if (tmp >= 0 && mnt_move(v->scratch, tmp) == 0)
			break;
		if (tmp >= 0)
			close(tmp);
	}
	close(tmp);
	mp = sys_openat2(v->scratch, "root", O_PATH | O_DIRECTORY, RESOLVE_BENEATH);
	if (mp < 0 || mnt_move(v->root, mp) < 0)
		die(EXIT_SYS, errno, "unable to mount the new root on the scratch tmpfs");
	close(mp);
	v->null_fd = sys_openat2(v->scratch, "null", O_PATH, RESOLVE_BENEATH);
	v->empty_fd = sys_openat2(v->scratch, "empty", O_PATH | O_DIRECTORY, RESOLVE_BENEATH);
	if (v->null_fd < 0 || v->empty_fd < 0)
		die(EXIT_SYS, errno, "unable to open the masks (scratch null and empty)");
}

/*
 * A writable fd of the directory that will hold dst's last component, kept
 * for the next entry in the same directory (the /etc files come in a row).
 * Forgotten whenever a mount is attached: it could cover the directory.
 */
static void dir_forget(struct build_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	d->path[0] = 0;
}

static int dir_of(struct view_state *v, const char *dst, const char **name)
{
	struct build_dir *d = &v->dir;
	const char *slash = strrchr(dst, '/');
	size_t len = (size_t)(slash - dst);
	int dir;

	*name = slash + 1;
	if (d->fd >= 0 && len == strlen(d->path) && !strncmp(dst, d->path, len))
		return d->fd;
	dir_forget(d);
	if (len >= sizeof(d->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(d->path, dst, len);
	d->path[len] = 0;
	dir = path_make_beneath(&v->host, v->root, len ? d->path : "/", 1);
	if (dir < 0)
		return -1;
	/* O_PATH fds cannot be written through: reopen it as a directory. */
	d->fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dir);
	return d->fd;
}

static void xwrite_file(struct view_state *v, const struct plan_entry *p)
{
	const char *name;
	int dir = dir_of(v, p->dst, &name);
	int fd = dir < 0 ? -1
			 : openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				  p->mode);

	if (fd < 0)
		die(EXIT_SYS, errno, "unable to create %s", p->dst);
	if (p->src_fd >= 0) {
		/* In the kernel, host file to tmpfs: no copy through our memory. */
		size_t left = p->len;
		ssize_t n;

		while (left && (n = sendfile(fd, p->src_fd, NULL, left)) > 0)
			left -= (size_t)n;
		if (left)
			die(EXIT_SYS, left == p->len ? errno : EIO, "unable to copy %s", p->dst);
		close(p->src_fd);
	} else if (write(fd, p->data, p->len) != (ssize_t)p->len) {
		die(EXIT_SYS, errno, "unable to write %s", p->dst);
	}
	close(fd);
}

static void xmake_link(struct view_state *v, const struct plan_entry *p)
{
	const char *name;
	int dir = dir_of(v, p->dst, &name);

	if (dir < 0 || symlinkat(p->data, dir, name) < 0)
		die(EXIT_SYS, errno, "unable to make the symlink %s", p->dst);
}

/*
 * A mask over dst, which must be there: hiding what is not there would make
 * it (in a host tree, on the host), and an agent's tree may gain it later
 * anyway. As --ro-within, a missing dst is refused.
 */
static void xbuild_mask(struct view_state *v, const char *dst)
{
	struct stat st;
	int target = path_open_beneath(v->root, dst, O_PATH | O_NOFOLLOW);
	int tree;

	if (target < 0)
		die(EXIT_SYS, errno, "unable to hide %s: it must be in the view%s", dst,
		    path_why(errno));
	if (fstat(target, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat %s", dst);
	/* O_PATH | O_NOFOLLOW opens a symlink as itself: a mount there would follow it. */
	if (S_ISLNK(st.st_mode))
		die(EXIT_SYS, ELOOP, "unable to hide %s: a symlink is refused", dst);
	tree = mnt_clone(S_ISDIR(st.st_mode) ? v->empty_fd : v->null_fd, "",
			 MNT_RO | MOUNT_ATTR_NOEXEC);
	if (tree < 0 || mnt_move(tree, target) < 0)
		die(EXIT_SYS, errno, "unable to hide %s", dst);
	close(tree);
	close(target);
}

static void xro_within(struct view_state *v, const char *dst)
{
	int target = path_open_beneath(v->root, dst, O_PATH | O_NOFOLLOW);
	struct stat st;
	int tree;

	if (target < 0)
		die(EXIT_SYS, errno, "unable to open %s in the view%s", dst, path_why(errno));
	if (fstat(target, &st) < 0 || S_ISLNK(st.st_mode))
		die(EXIT_SYS, S_ISLNK(st.st_mode) ? ELOOP : errno, "unable to open %s in the view",
		    dst);
	tree = mnt_clone(target, "", MNT_RO);
	if (tree < 0 || mnt_move(tree, target) < 0)
		die(EXIT_SYS, errno, "unable to make %s read-only", dst);
	close(tree);
	close(target);
}

static int is_ro_later(const struct view_state *v, int fd)
{
	for (size_t i = 0; i < v->n_ro_later; i++)
		if (v->ro_later[i] == fd)
			return 1;
	return 0;
}

/* A detached tree onto its mount point's fd (dst's), both closed but for a tree kept. */
static void xbuild_move(const struct view_state *v, const char *dst, int tree, int target,
			const char *src)
{
	debugx("mount %s", dst);
	if (mnt_move(tree, target) < 0)
		die(EXIT_SYS, errno, "unable to mount %s on %s (move_mount)", src, dst);
	close(target);
	if (!is_ro_later(v, tree))
		close(tree);
}

/* A detached tree on dst, its mount point made first (a directory, or a file). */
static void xbuild_attach(struct view_state *v, const char *dst, int tree, int is_dir,
			  const char *src)
{
	int target;

	dir_forget(&v->dir);
	target = path_make_beneath(&v->host, v->root, dst, is_dir);
	if (target < 0 && errno == EXDEV)
		die(EXIT_SYS, ENOENT,
		    "unable to mount %s on %s: it is not there, and it would be made in a host "
		    "tree of the view (otomount makes nothing on the host: make it there first)",
		    src, dst);
	if (target < 0)
		die(EXIT_SYS, errno, "unable to make the mount point %s for %s", dst, src);
	xbuild_move(v, dst, tree, target, src);
}

/* /etc's directories, once its thread is done, and the mask laid over one of them. */
static void xbuild_etc(struct view_state *v)
{
	struct etc_trees t;

	xetc_join(v, &t);
	/* Their mount points are the thread's, in the tmpfs that is /etc by now. */
	for (size_t i = 0; i < t.n; i++)
		if (t.dirs[i].tree >= 0)
			xbuild_move(v, t.dirs[i].dst, t.dirs[i].tree, t.dirs[i].at, t.dirs[i].dst);
	if (t.mask) {
		debugx("hide %s", t.mask);
		xbuild_mask(v, t.mask);
	}
}

void xbuild_entry(struct view_state *v, const struct plan_entry *p)
{
	static const char *const what[] = {
		[P_TREE] = "mount", [P_LINK] = "symlink",	 [P_FILE] = "file",
		[P_MASK] = "hide",  [P_RO_WITHIN] = "read-only", [P_ETC] = "/etc",
	};
	_Static_assert(ARRAY_SIZE(what) == P_NUM_KINDS, "a name for each kind");

	if (p->kind != P_TREE && p->kind != P_ETC)
		debugx("%s %s", what[p->kind], p->dst);
	if (p->kind != P_FILE && p->kind != P_LINK)
		dir_forget(&v->dir);
	switch (p->kind) {
	case P_TREE:
		xbuild_attach(v, p->dst, p->tree, p->is_dir, p->src);
		break;
	case P_ETC:
		xbuild_etc(v);
		break;
	case P_LINK:
		xmake_link(v, p);
		break;
	case P_FILE:
		xwrite_file(v, p);
		break;
	case P_MASK:
		xbuild_mask(v, p->dst);
		break;
	case P_RO_WITHIN:
	default:
		xro_within(v, p->dst);
		break;
	}
}

void build_done(struct view_state *v)
{
	dir_forget(&v->dir);
}
