/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

void plan_add(struct view_state *v, enum plan_kind kind, const char *dst, char *data, size_t len,
	      mode_t mode)
{
	struct plan *p = v->plan;

	/* Grown by doubling: about a hundred entries, one allocation or two. */
	if (v->nplan == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		p = realloc(v->plan, v->cap * sizeof(*p));
		if (!p)
			die(EXIT_SYS, errno, "out of memory");
		v->plan = p;
	}
	p += v->nplan++;
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->dst = dst;
	p->tree = -1;
	p->src_fd = -1;
	p->data = data;
	p->len = len;
	p->mode = mode;
}

void plan_tree(struct view_state *v, const char *dst, int tree, int is_dir)
{
	plan_add(v, P_TREE, dst, NULL, 0, 0);
	v->plan[v->nplan - 1].tree = tree;
	v->plan[v->nplan - 1].is_dir = is_dir;
}

int host_open(const char *path, int flags)
{
	return sys_openat2(AT_FDCWD, path, flags, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/*
 * Every tmpfs gets an inode cap: the kernel's default (half of RAM, in pages)
 * lets empty files pin gigabytes of kernel memory (view_tmpfs_inodes).
 */
static int fs_tmpfs(unsigned long size, unsigned long inodes, const char *mode, uid_t uid,
		    gid_t gid, unsigned int attr)
{
	char s[24], n[24], u[16], g[16];
	const char *opts[] = { "source", "tmpfs", "size", s,	 "nr_inodes", n,   "mode",
			       mode,	 "uid",	  u,	  "gid", g,	      NULL };

	snprintf(s, sizeof(s), "%lu", size);
	snprintf(n, sizeof(n), "%lu", inodes);
	snprintf(u, sizeof(u), "%u", (unsigned)uid);
	snprintf(g, sizeof(g), "%u", (unsigned)gid);
	return mnt_fs("tmpfs", opts, attr);
}

void view_read_host(struct view_state *v)
{
	/*
	 * Follow the host's symlink (systemd-resolved's stub, otonet's overlay)
	 * on purpose: the view gets a copy of what it says, not the link.
	 */
	int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : fd_read_all(fd, v->resolv, sizeof(v->resolv));

	/* None on the host, none in the view; one cut short would mislead. */
	if (n < 0)
		log_msg(LOG_WARN, errno, "unable to read /etc/resolv.conf: the view's is empty");
	v->resolv_len = n < 0 ? 0 : (size_t)n;
	if (fd >= 0)
		close(fd);
	if (gethostname(v->hostname, sizeof(v->hostname) - 1) < 0)
		strcpy(v->hostname, "agent");
}

/* A source in the agent's tree: no symlink anywhere, never above the root. */
static int agent_tree(int agent, const char *root, const char *sub, unsigned int attr)
{
	int fd = sys_openat2(agent, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			     RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	int tree;

	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open %s/%s (a symlink is refused)", root, sub);
	tree = mnt_clone(fd, "", attr);
	if (tree < 0)
		die(EXIT_SYS, errno, "unable to bind %s/%s", root, sub);
	close(fd);
	return tree;
}

static void prepare_role(struct view_state *v, const struct otomount_opts *o)
{
	int agent = host_open(o->agent_root, O_PATH | O_DIRECTORY | O_NOFOLLOW);
	int mgr = o->role == ROLE_MANAGER;
	char *people;

	if (agent < 0)
		die(EXIT_SYS, errno, "unable to open the agent root %s (a symlink is refused)",
		    o->agent_root);
	plan_tree(
	    v, "/work",
	    agent_tree(agent, o->agent_root, "workspace", o->role == ROLE_VIEWER ? MNT_RO : MNT_RW),
	    1);
	plan_tree(v, "/knowledge",
		  agent_tree(agent, o->agent_root, "knowledge", mgr ? MNT_RW : MNT_RO), 1);
	if (mgr)
		plan_tree(v, "/config", agent_tree(agent, o->agent_root, "config", MNT_RW), 1);
	if (asprintf(&people, "people/%s", o->person) < 0)
		die(EXIT_SYS, errno, "out of memory");
	plan_tree(v, "/private", agent_tree(agent, o->agent_root, people, MNT_RW), 1);
	close(agent);
}

/* /usr as it is; /bin, /lib... as the host has them: a symlink stays a symlink. */
static void prepare_system(struct view_state *v)
{
	static const char *const top[] = { "/usr",   "/bin",   "/sbin",	  "/lib",
					   "/lib32", "/lib64", "/libx32", NULL };

	for (const char *const *p = top; *p; p++) {
		struct stat st;
		int fd = host_open(*p, O_PATH | O_NOFOLLOW);

		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || fstat(fd, &st) < 0)
			die(EXIT_SYS, errno, "unable to open %s", *p);
		if (S_ISLNK(st.st_mode)) {
			char t[PATH_MAX];
			ssize_t n = readlinkat(fd, "", t, sizeof(t) - 1);
			char *link = n < 0 ? NULL : strndup(t, (size_t)n);

			if (!link)
				die(EXIT_SYS, errno, "unable to read the symlink %s", *p);
			plan_add(v, P_LINK, *p, link, (size_t)n, 0);
		} else if (S_ISDIR(st.st_mode)) {
			int tree = mnt_clone(fd, "", MNT_RO);

			if (tree < 0)
				die(EXIT_SYS, errno, "unable to bind %s", *p);
			plan_tree(v, *p, tree, 1);
		}
		close(fd);
	}
}

static void prepare_custom(struct view_state *v, const struct otomount_opts *o)
{
	for (size_t i = 0; i < o->nops; i++) {
		const struct view_op *op = &o->ops[i];
		unsigned long size;
		struct stat st;
		int fd, tree;

		switch (op->kind) {
		case OP_RO:
		case OP_RW:
			fd = host_open(op->src, O_PATH | O_NOFOLLOW);
			if (fd < 0)
				die(EXIT_SYS, errno, "unable to open %s (a symlink is refused)",
				    op->src);
			if (fstat(fd, &st) < 0)
				die(EXIT_SYS, errno, "unable to stat %s", op->src);
			if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
				die(EXIT_SYS, EINVAL, "unable to bind %s: not a file or directory",
				    op->src);
			tree = mnt_clone(fd, "", op->kind == OP_RO ? MNT_RO : MNT_RW);
			if (tree < 0)
				die(EXIT_SYS, errno, "unable to bind %s", op->src);
			close(fd);
			plan_tree(v, op->dst, tree, S_ISDIR(st.st_mode));
			break;
		case OP_TMPFS:
			size = op->size ? op->size : o->tmp_size;
			tree = fs_tmpfs(size, view_tmpfs_inodes(o, size), "0755", getuid(),
					getgid(), MNT_RW);
			if (tree < 0)
				die(EXIT_SYS, errno, "unable to make a tmpfs for %s", op->dst);
			plan_tree(v, op->dst, tree, 1);
			break;
		case OP_HIDE:
			plan_add(v, P_MASK, op->dst, NULL, 0, 0);
			break;
		case OP_RO_WITHIN:
		default:
			plan_add(v, P_RO_WITHIN, op->dst, NULL, 0, 0);
			break;
		}
	}
}

void view_prepare(struct view_state *v, const struct otomount_opts *o)
{
	unsigned long inodes = view_tmpfs_inodes(o, o->tmp_size);
	int home, tmp;

	/*
	 * Read-only before the agent runs: it holds our mount points, as many
	 * as the operator's views make, far fewer than this.
	 */
	v->root = fs_tmpfs(1UL << 20, 65536, "0755", getuid(), getgid(), MNT_RW);
	if (v->root < 0)
		die(EXIT_SYS, errno, "unable to make the root tmpfs");
	prepare_system(v);
	etc_prepare(v, o);
	home = fs_tmpfs(o->tmp_size, inodes, "0700", getuid(), getgid(), MNT_RW);
	tmp = fs_tmpfs(o->tmp_size, inodes, "1777", getuid(), getgid(), MNT_RW);
	if (home < 0 || tmp < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for $HOME or /tmp");
	plan_tree(v, o->home, home, 1);
	plan_tree(v, "/tmp", tmp, 1);
	proc_prepare(v);
	dev_prepare(v, o);
	if (o->role != ROLE_NONE)
		prepare_role(v, o);
	prepare_custom(v, o);
}

/* The scratch tmpfs on the old root: gone with it after pivot_root. */
static const char *const SCRATCH_AT[] = { "/tmp", "/mnt", "/dev", NULL };

static void make_scratch(struct view_state *v)
{
	int tmp, f, mp;

	v->scratch = fs_tmpfs(64UL << 10, 16, "0700", getuid(), getgid(), MNT_RW);
	if (v->scratch < 0)
		die(EXIT_SYS, errno, "unable to make the scratch tmpfs");
	/* A mount point, and the two masks, then read-only. */
	if (mkdirat(v->scratch, "root", 0755) < 0 || mkdirat(v->scratch, "empty", 0555) < 0 ||
	    (f = openat(v->scratch, "null", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0)
		die(EXIT_SYS, errno, "unable to fill the scratch tmpfs");
	close(f);
	if (mnt_setattr(v->scratch, MNT_RO, 0) < 0)
		die(EXIT_SYS, errno, "unable to fill the scratch tmpfs");
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
		die(EXIT_SYS, errno, "unable to mount the new root");
	close(mp);
	v->null_fd = sys_openat2(v->scratch, "null", O_PATH, RESOLVE_BENEATH);
	v->empty_fd = sys_openat2(v->scratch, "empty", O_PATH | O_DIRECTORY, RESOLVE_BENEATH);
	if (v->null_fd < 0 || v->empty_fd < 0)
		die(EXIT_SYS, errno, "unable to open the masks");
}

/*
 * A writable fd of the directory that will hold dst's last component, kept
 * for the next entry in the same directory (the /etc files come in a row).
 * Forgotten whenever a mount is attached: it could cover the directory.
 */
static char cached_dir[PATH_MAX];
static int cached_fd = -1;

static void dir_forget(void)
{
	if (cached_fd >= 0)
		close(cached_fd);
	cached_fd = -1;
	cached_dir[0] = 0;
}

static int dir_of(int rootfd, const char *dst, const char **name)
{
	const char *slash = strrchr(dst, '/');
	size_t len = (size_t)(slash - dst);
	int dir;

	*name = slash + 1;
	if (cached_fd >= 0 && len == strlen(cached_dir) && !strncmp(dst, cached_dir, len))
		return cached_fd;
	dir_forget();
	if (len >= sizeof(cached_dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(cached_dir, dst, len);
	cached_dir[len] = 0;
	dir = path_make_beneath(rootfd, len ? cached_dir : "/", 1);
	if (dir < 0)
		return -1;
	/* O_PATH fds cannot be written through: reopen it as a directory. */
	cached_fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dir);
	return cached_fd;
}

static void write_file(int rootfd, const struct plan *p)
{
	const char *name;
	int dir = dir_of(rootfd, p->dst, &name);
	int fd = dir < 0 ? -1
			 : openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				  p->mode);

	if (fd < 0)
		die(EXIT_SYS, errno, "unable to write %s", p->dst);
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

static void make_link(int rootfd, const struct plan *p)
{
	const char *name;
	int dir = dir_of(rootfd, p->dst, &name);

	if (dir < 0 || symlinkat(p->data, dir, name) < 0)
		die(EXIT_SYS, errno, "unable to make the symlink %s", p->dst);
}

static void mask(struct view_state *v, const char *dst)
{
	struct stat st;
	int target = path_open_beneath(v->root, dst, O_PATH | O_NOFOLLOW);
	int is_dir = 1, tree;

	if (target >= 0) {
		if (fstat(target, &st) < 0)
			die(EXIT_SYS, errno, "unable to stat %s", dst);
		is_dir = S_ISDIR(st.st_mode);
		close(target);
	}
	tree = mnt_clone(is_dir ? v->empty_fd : v->null_fd, "", MNT_RO | MOUNT_ATTR_NOEXEC);
	if (tree < 0 || path_mount_at(v->root, tree, dst, is_dir) < 0)
		die(EXIT_SYS, errno, "unable to hide %s", dst);
	close(tree);
}

static void ro_within(struct view_state *v, const char *dst)
{
	int target = path_open_beneath(v->root, dst, O_PATH | O_NOFOLLOW);
	struct stat st;
	int tree;

	if (target < 0)
		die(EXIT_SYS, errno, "unable to open %s in the view (a symlink is refused)", dst);
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

void view_build(struct view_state *v)
{
	/* Modes as written (mode-0 mask, copied /etc modes), without fchmod. */
	v->umask = umask(0);
	make_scratch(v);
	for (size_t i = 0; i < v->nplan; i++) {
		const struct plan *p = &v->plan[i];

		static const char *const what[] = { "mount", "symlink", "file", "hide",
						    "read-only" };

		debugx("%s %s", what[p->kind], p->dst);
		if (p->kind != P_FILE && p->kind != P_LINK)
			dir_forget();
		switch (p->kind) {
		case P_TREE:
			if (path_mount_at(v->root, p->tree, p->dst, p->is_dir) < 0)
				die(EXIT_SYS, errno, "unable to mount %s", p->dst);
			if (!is_ro_later(v, p->tree))
				close(p->tree);
			break;
		case P_LINK:
			make_link(v->root, p);
			break;
		case P_FILE:
			write_file(v->root, p);
			break;
		case P_MASK:
			mask(v, p->dst);
			break;
		case P_RO_WITHIN:
		default:
			ro_within(v, p->dst);
			break;
		}
	}
	dir_forget();
	proc_mask(v);
}

noreturn void view_enter(struct view_state *v, const struct otomount_opts *o)
{
	const char *cwd = o->role != ROLE_NONE ? "/work" : o->home;

	/* Filled during the build, read-only from now on. */
	for (size_t i = 0; i < v->n_ro_later; i++)
		if (mnt_setattr(v->ro_later[i], MNT_RO | MOUNT_ATTR_NOEXEC, 0) < 0)
			die(EXIT_SYS, errno, "unable to make a tmpfs read-only");
	if (mnt_setattr(v->root, MNT_RO, 0) < 0)
		die(EXIT_SYS, errno, "unable to make the new root read-only");
	umask(v->umask);
	debugx("pivot_root, then %s", cwd);
	if (mnt_pivot(v->root) < 0)
		die(EXIT_SYS, errno, "unable to pivot_root into the new root");
	if (chdir(cwd) < 0)
		die(EXIT_SYS, errno, "unable to enter %s", cwd);
	/* The caller's $HOME does not exist in the view. */
	setenv("HOME", o->home, 1);
	/*
	 * Tell the later stages that paths now name the view, where the agent
	 * writes: otoexec then refuses a profile by path (OTO_VIEW, consumed there).
	 */
	setenv("OTO_VIEW", "1", 1);
	xexec(o->argv);
}
