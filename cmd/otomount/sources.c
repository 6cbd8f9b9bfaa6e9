/* SPDX-License-Identifier: ISC */
/*
 * The host's trees in the view: the system's (/usr, /bin, /lib...), the
 * role's (the agent's tree), and the custom ones (--ro, --rw, --socket,
 * --tmpfs, --hide, --ro-within). Each source is opened without following a symlink
 * and cloned into a detached tree now, while the host is still visible.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

/* /usr as it is; /bin, /lib... as the host has them: a symlink stays a symlink. */
void xsources_system(struct view_state *v)
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
			xplan_add(&v->plan, P_LINK, *p, link, (size_t)n, 0);
		} else if (S_ISDIR(st.st_mode)) {
			int tree = mnt_clone(fd, "", MNT_RO);

			if (tree < 0 || path_host_tree(&v->host, tree) < 0)
				die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", *p, *p);
			xplan_tree(&v->plan, *p, tree, 1, *p);
		}
		close(fd);
	}
}

/*
 * A source in the agent's tree on dst: no symlink anywhere, never above the
 * root. With --cow, a writable tree is an overlay over a read-only clone.
 */
static void xagent_tree(struct view_state *v, const struct otomount_opts *o, int agent,
			const char *sub, const char *dst, unsigned int attr)
{
	const char *root = o->agent_root;
	int cow = attr == MNT_RW && cow_wants(o, dst + 1);
	int fd = sys_openat2(agent, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW,
			     RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	char *src;
	int tree;

	/* The hint before the errno's text: the status line keeps the errno (ENOENT). */
	if (fd < 0 && errno == ENOENT)
		die(EXIT_SYS, ENOENT,
		    "unable to open %s/%s (it does not exist; make it: mkdir -p %s/%s, and chown "
		    "it "
		    "to the agent's account if the role writes it)",
		    root, sub, root, sub);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open %s/%s%s", root, sub, path_why(errno));
	if (asprintf(&src, "%s/%s", root, sub) < 0)
		die(EXIT_SYS, errno, "unable to bind %s/%s on %s: out of memory", root, sub, dst);
	tree = mnt_clone(fd, "", cow ? MNT_RO : attr);
	if (tree >= 0 && cow) {
		int lower = tree;

		tree = xcow_overlay(v, o, dst + 1, lower, src);
		close(lower);
	}
	if (tree < 0 || path_host_tree(&v->host, tree) < 0)
		die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", src, dst);
	close(fd);
	xplan_tree(&v->plan, dst, tree, 1, src);
}

void xsources_role(struct view_state *v, const struct otomount_opts *o)
{
	int agent = host_open(o->agent_root, O_PATH | O_DIRECTORY | O_NOFOLLOW);
	int mgr = o->role == ROLE_MANAGER;
	const char *root = o->agent_root;
	char *people;

	/* A newcomer's first run: say what the tree holds and who owns it. */
	if (agent < 0 && errno == ENOENT)
		die(EXIT_SYS, ENOENT,
		    "unable to open the agent root %s (it does not exist; make it: mkdir -p "
		    "%s/workspace %s/knowledge %s/people/%s, and chown -R to the agent's account "
		    "the "
		    "parts the role writes)",
		    root, root, root, root, o->person);
	if (agent < 0)
		die(EXIT_SYS, errno, "unable to open the agent root %s%s", root, path_why(errno));
	if (o->cow_dir)
		xcow_begin(v, o);
	xagent_tree(v, o, agent, "workspace", "/work", o->role == ROLE_VIEWER ? MNT_RO : MNT_RW);
	xagent_tree(v, o, agent, "knowledge", "/knowledge", mgr ? MNT_RW : MNT_RO);
	if (mgr)
		xagent_tree(v, o, agent, "config", "/config", MNT_RW);
	if (asprintf(&people, "people/%s", o->person) < 0)
		die(EXIT_SYS, errno, "unable to bind %s/people/%s on /private: out of memory", root,
		    o->person);
	xagent_tree(v, o, agent, people, "/private", MNT_RW);
	if (o->cow_dir)
		xcow_end(v, o);
	close(agent);
}

/*
 * A source a launcher opened (fd=N): a detached tree it cloned, with its
 * attributes set (otorun, run by root: a path the --as account could not
 * reach). Taken as it is, close-on-exec from now: the agent never holds it.
 * Its kind, in *st. Dies 111 when N is not open or not a tree of that kind.
 */
static int xgiven_tree(const struct view_op *op, struct stat *st)
{
	int fd = view_src_fd(op->src);

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fstat(fd, st) < 0)
		die(EXIT_SYS, errno, "%s:%s: not an open fd", op->src, op->dst);
	if (op->kind == OP_SOCKET ? !S_ISSOCK(st->st_mode)
				  : !S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		die(EXIT_SYS, 0, "%s:%s: not a tree of a %s", op->src, op->dst,
		    op->kind == OP_SOCKET ? "socket" : "file or directory");
	return fd;
}

/*
 * One host Unix socket, bound alone on a file of the view: nothing else of
 * its directory is there. Read-only, which does not stop connect(2): the
 * kernel checks only write permission on the socket's inode (unix(7)), and
 * refuses EROFS for regular files, directories and symlinks, never a socket.
 * What it stops is the agent's chmod, chown or utimes of the socket (EROFS);
 * the mount point itself cannot be unlinked or renamed (EBUSY). Who may
 * connect is the socket's mode and owner, set by whoever serves it.
 */
static void xsocket(struct view_state *v, const struct view_op *op)
{
	struct stat st;
	int fd, tree;

	if (view_src_fd(op->src) >= 0) {
		xplan_tree(&v->plan, op->dst, xgiven_tree(op, &st), 0, op->src);
		return;
	}
	fd = host_open(op->src, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open the socket %s%s", op->src, path_why(errno));
	if (fstat(fd, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat %s", op->src);
	/* O_PATH | O_NOFOLLOW opens a symlink in the last component as itself. */
	if (S_ISLNK(st.st_mode))
		die(EXIT_SYS, ELOOP, "unable to open the socket %s (a symlink is refused)",
		    op->src);
	if (!S_ISSOCK(st.st_mode))
		die(EXIT_SYS, ENOTSOCK, "unable to bind %s on %s: not a socket", op->src, op->dst);
	tree = mnt_clone(fd, "", MNT_RO);
	if (tree < 0)
		die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", op->src, op->dst);
	close(fd);
	xplan_tree(&v->plan, op->dst, tree, 0, op->src);
}

void xsources_custom(struct view_state *v, const struct otomount_opts *o)
{
	for (size_t i = 0; i < o->nops; i++) {
		const struct view_op *op = &o->ops[i];
		unsigned long size;
		struct stat st;
		int fd, tree;

		switch (op->kind) {
		case OP_RO:
		case OP_RW:
			if (view_src_fd(op->src) >= 0) {
				tree = xgiven_tree(op, &st);
				if (path_host_tree(&v->host, tree) < 0)
					die(EXIT_SYS, errno, "unable to bind %s on %s", op->src,
					    op->dst);
				xplan_tree(&v->plan, op->dst, tree, S_ISDIR(st.st_mode), op->src);
				break;
			}
			fd = host_open(op->src, O_PATH | O_NOFOLLOW);
			if (fd < 0)
				die(EXIT_SYS, errno, "unable to open %s%s", op->src,
				    path_why(errno));
			if (fstat(fd, &st) < 0)
				die(EXIT_SYS, errno, "unable to stat %s", op->src);
			/* O_PATH | O_NOFOLLOW opens a symlink in the last component as itself. */
			if (S_ISLNK(st.st_mode))
				die(EXIT_SYS, ELOOP, "unable to open %s%s", op->src,
				    path_why(ELOOP));
			if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
				die(EXIT_SYS, EINVAL,
				    "unable to bind %s on %s: not a file or directory", op->src,
				    op->dst);
			tree = mnt_clone(fd, "", op->kind == OP_RO ? MNT_RO : MNT_RW);
			if (tree < 0 || path_host_tree(&v->host, tree) < 0)
				die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", op->src,
				    op->dst);
			close(fd);
			xplan_tree(&v->plan, op->dst, tree, S_ISDIR(st.st_mode), op->src);
			break;
		case OP_SOCKET:
			xsocket(v, op);
			break;
		case OP_TMPFS:
			size = op->size ? op->size : o->tmp_size;
			tree = mnt_tmpfs(size, view_tmpfs_inodes(o, size), "0755", MNT_RW);
			if (tree < 0)
				die(EXIT_SYS, errno, "unable to make a tmpfs for %s", op->dst);
			xplan_tree(&v->plan, op->dst, tree, 1, "a tmpfs");
			break;
		case OP_HIDE:
			xplan_add(&v->plan, P_MASK, op->dst, NULL, 0, 0);
			break;
		case OP_RO_WITHIN:
		default:
			xplan_add(&v->plan, P_RO_WITHIN, op->dst, NULL, 0, 0);
			break;
		}
	}
}
