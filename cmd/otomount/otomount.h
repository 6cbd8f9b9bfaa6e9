/* SPDX-License-Identifier: ISC */
/*
 * otomount's files, each section below one of them. main.c calls view.c,
 * which orders the work: the sources (sources.c, etc.c, special.c) are opened
 * into plan entries (plan.c), which build.c then makes in the new root.
 * Nothing below view.c calls back into it.
 */
#ifndef OTOMOUNT_H
#define OTOMOUNT_H

#include <limits.h>
#include <stddef.h>
#include <linux/mount.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "oto.h"

enum role { ROLE_NONE, ROLE_MANAGER, ROLE_MEMBER, ROLE_VIEWER };

/* A custom view entry, applied in command-line order after the role's mounts. */
enum op_kind { OP_RO, OP_RW, OP_TMPFS, OP_HIDE, OP_RO_WITHIN, OP_SOCKET };

struct view_op {
	enum op_kind kind;
	char *src;	    /* OP_RO, OP_RW, OP_SOCKET: a host path */
	char *dst;	    /* a path in the view */
	unsigned long size; /* OP_TMPFS: bytes, 0 = the --tmp-size default */
};

struct otomount_opts {
	const char *agent_root;
	enum role role;
	const char *person;
	const char *user_name;	  /* in the generated passwd */
	const char *home;	  /* $HOME in the view */
	const char *home_skel;	  /* --home-skel: copied into $HOME; NULL: none */
	const char *ca_file;	  /* --ca-file: CAs the view trusts too; NULL: none */
	unsigned long tmp_size;	  /* bytes, for /tmp, /dev/shm and --tmpfs */
	unsigned long tmp_inodes; /* for the same; 0 = by each one's size */
	struct view_op *ops;
	size_t nops;
	const char **writable; /* --writable: view paths the protected-files walk leaves alone */
	size_t nwritable;
	const char **protect; /* --protect: more view paths to make read-only */
	size_t nprotect;
	const char *cow_dir; /* --cow: the session directory; NULL: none */
	int cow_private;     /* --cow-private */
	int cow_all;	     /* --cow-all */
	char **argv;	     /* the next program */
};

/* ---- skel.c: --home-skel's copy into the home tmpfs (a mount fd); dies 101, 111 ---- */
void xhome_skel(int home, const char *skel);
/*
 * ---- login.c: OTO_LOGIN's files (otogate --login) into the home tmpfs (a
 * mount fd), after --home-skel's; dies 100 (a bad value, or a file the
 * skeleton has already), 101 (an fd not sealed), 111 ----
 */
void xhome_login(int home, const struct otomount_opts *o);

/* ---- opts.c: the option loop; exits 0 (--help) or 100 ---- */
void xotomount_parse(struct otomount_opts *o, int argc, char **argv);

/* ---- parse.c: the option values. Each returns 0, or -1 with errno EINVAL/ERANGE. Pure. ---- */
int view_path_ok(const char *p); /* absolute, no ".", "..", "//", not "/" alone */
int view_name_ok(const char *s); /* a person's name: [A-Za-z0-9._-], not "." or ".." */
/* SRC:DST; SRC may be fd=N, a detached tree a launcher opened (view_src_fd). */
int view_parse_bind(const char *arg, char **src, char **dst);
int view_src_fd(const char *src); /* N of "fd=N" (3 to 65535), else -1 */
int view_parse_tmpfs(const char *arg, char **dst, unsigned long *size); /* DST[:SIZE] */
/* SRC:DST as view_parse_bind, and DST short enough for connect(2) (sun_path). */
int view_parse_socket(const char *arg, char **src, char **dst);
enum role view_role(const char *s); /* ROLE_NONE if unknown */
/* The nr_inodes of a tmpfs the agent writes, of size bytes. Never 0 (no limit). */
unsigned long view_tmpfs_inodes(const struct otomount_opts *o, unsigned long size);
#define TMPFS_INODES_MAX 4294967295UL /* for --tmp-inodes */

/* ---- sys.c: the new mount API, raw syscalls (musl has no wrappers). -1/errno ---- */
int mnt_clone(int fd, const char *path, unsigned int attr); /* a detached recursive copy */
int mnt_setattr(int fd, unsigned int attr, int recursive);
int mnt_fs(const char *type, const char *const *opts, unsigned int attr); /* fsopen..fsmount */
/* A detached tmpfs with a size and an inode cap (mode: octal text). */
int mnt_tmpfs(unsigned long size, unsigned long inodes, const char *mode, unsigned int attr);
/* The same, its source (mountinfo's) named: the view's root is VIEW_ROOT_SOURCE. */
int mnt_tmpfs_named(const char *source, unsigned long size, unsigned long inodes, const char *mode,
		    unsigned int attr);
int mnt_move(int tree, int target_fd);
/*
 * A detached overlay: lower (read-only), upper and work (directories on one
 * filesystem) given as fds. On failure, what the kernel said in why ("" if
 * nothing).
 */
int mnt_overlay(int lower, int upper, int work, unsigned int attr, char *why, size_t size);
int mnt_id_of(int fd, unsigned long long *id); /* the mount fd is on (statx's stx_mnt_id) */

/* ---- pivot.c: entering a private mount namespace, leaving the old root. -1/errno ---- */
int mnt_make_private_ns(void);	/* unshare(CLONE_NEWNS), then everything private */
int mnt_pivot(int new_root_fd); /* pivot_root there, detach the old root */

/* ---- path.c: paths opened without following a symlink anywhere in them. -1/errno ---- */
/* A host path. */
int host_open(const char *path, int flags);
/* A path in the new root, never leaving it. */
int path_open_beneath(int rootfd, const char *path, int flags);
/*
 * Why an open above failed, for the message: " (a symlink is refused)" for
 * ELOOP, " (it does not exist)" for ENOENT, "" for any other errno.
 */
const char *path_why(int err);
/* The mounts that are the host's trees, by mount id (the view's: view_state.host). */
struct host_trees {
	unsigned long long *id;
	size_t n;
};
/*
 * Create the missing directories of path, and path itself (a dir, or an empty
 * file when !is_dir), beneath rootfd; return an O_PATH fd of it. Nothing is
 * made on a mount h names (path_host_tree): there, -1 with errno EXDEV (what
 * is missing would be made in the host's tree).
 */
int path_make_beneath(const struct host_trees *h, int rootfd, const char *path, int is_dir);
/*
 * tree, a clone of a host path, is the host's: named in h, and
 * path_make_beneath makes nothing on it. -1/ENOMEM.
 */
int path_host_tree(struct host_trees *h, int tree);

/*
 * ---- plan.c: the view, planned ----
 * Every host path is opened (each source cloned into a detached tree) while
 * the host is still where it was, into a list of entries; build.c then makes
 * them in the new root in list order: parents before children.
 */
enum plan_kind {
	P_TREE,	     /* attach a detached mount tree */
	P_LINK,	     /* a symlink */
	P_FILE,	     /* a regular file with this content, in a tmpfs still rw */
	P_MASK,	     /* an empty read-only dir, or a mode-0 empty file, over dst */
	P_RO_WITHIN, /* make dst, already in the view, read-only */
	P_ETC,	     /* wait for /etc's thread, attach its directories (etc.c) */
	P_NUM_KINDS, /* the count of the above */
};

struct plan_entry {
	enum plan_kind kind;
	const char *dst; /* absolute, in the view */
	const char *src; /* P_TREE: what the tree is, for messages (a host path, "a tmpfs") */
	int tree;	 /* P_TREE */
	int is_dir;	 /* P_TREE: the mount point is a directory, not a file */
	char *data;	 /* P_LINK: the target; P_FILE: the content, or */
	int src_fd;	 /* P_FILE: a host file to copy (read-only fd), or -1 */
	size_t len;
	mode_t mode;
};

struct plan {
	struct plan_entry *e;
	size_t n, cap;
};

/* A new entry at the end (tree and src_fd -1); dies 111 out of memory. */
struct plan_entry *xplan_add(struct plan *p, enum plan_kind kind, const char *dst, char *data,
			     size_t len, mode_t mode);
/* A P_TREE entry: tree (a detached mount of src) on dst. */
void xplan_tree(struct plan *p, const char *dst, int tree, int is_dir, const char *src);

#define MNT_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define MNT_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* ---- cow.c: --cow DIR, the writable trees as overlays whose changes go to DIR ---- */
struct view_state;
struct cow_state {
	int dir;		/* DIR, an O_PATH fd */
	int resume;		/* DIR held a session of the same trees */
	size_t ntrees;		/* the trees made so far */
	struct cow_session rec; /* DIR/session: read, or to write */
	char boot[40];		/* this boot's id */
};

/* Whether the role's tree /name is an overlay. Pure. */
int cow_wants(const struct otomount_opts *o, const char *name);
/* DIR opened (made), checked, its record read: before the first tree. */
void xcow_begin(struct view_state *v, const struct otomount_opts *o);
/* The overlay of /name over lower (a read-only clone of src): a detached mount. */
int xcow_overlay(struct view_state *v, const struct otomount_opts *o, const char *name, int lower,
		 const char *src);
/* After the last tree: the record written, or a resumed one checked whole. */
void xcow_end(struct view_state *v, const struct otomount_opts *o);

/* ---- view.c: the order of the work, from main; its state, shared below ---- */
struct view_state {
	int root;	 /* the new root: a tmpfs */
	int scratch;	 /* a tmpfs on the old /tmp: holds the new root's mount point */
	int null_fd;	 /* scratch/null: an empty file with mode 0, masks files */
	int empty_fd;	 /* scratch/empty: an empty directory, masks directories */
	int ro_later[4]; /* tmpfs filled during the build, made read-only after */
	size_t n_ro_later;
	mode_t umask;	     /* the caller's, set back before exec */
	struct etc_job *etc; /* /etc, filled by a thread of its own (etc.c) */
	struct plan plan;
	struct host_trees host; /* sources.c names them, build.c makes nothing on them */
	struct cow_state cow;	/* --cow */
	/* build.c: the directory the last file or link went in, kept for the next */
	struct build_dir {
		char path[PATH_MAX];
		int fd; /* -1: none */
	} dir;
	char hostname[65];
	char resolv[65536]; /* the host's resolv.conf, read before anything else */
	size_t resolv_len;
};

void view_read_host(struct view_state *v);
void xview_prepare(struct view_state *v, const struct otomount_opts *o);
void xview_build(struct view_state *v, const struct otomount_opts *o);
noreturn void xview_enter(struct view_state *v, const struct otomount_opts *o);

/* ---- sources.c: the host's trees in the view: the system's, the role's, the custom ---- */
void xsources_system(struct view_state *v);
void xsources_role(struct view_state *v, const struct otomount_opts *o);
void xsources_custom(struct view_state *v, const struct otomount_opts *o);
/* ca.c: --ca-file's bundle, planned over the distribution's; dies 101, 111. */
void xsources_ca(struct view_state *v, const struct otomount_opts *o);
/* why.c: with OTO_WHY_FD, the agent's file of refusals made, sent, planned at WHY_DIR. */
void xwhy_prepare(struct view_state *v);

/* ---- etc.c: /etc, an allowlist of the host's and the generated files ---- */
struct etc_tree {
	char *dst; /* in the view */
	int tree;  /* a detached clone of the host's directory; -1: none */
	int at;	   /* its mount point, made in /etc's tmpfs (O_PATH) */
};

/* What /etc's thread leaves to be made: build.c attaches the trees, then the mask. */
struct etc_trees {
	const struct etc_tree *dirs; /* in the allowlist's order */
	size_t n;
	const char *mask; /* a path to hide once they are attached; NULL: none */
};

void xetc_start(struct view_state *v, const struct otomount_opts *o); /* the thread */
void xetc_join(struct view_state *v, struct etc_trees *out);	      /* at P_ETC */

/* ---- etcgen.c: the files' contents. Each returns its length, 0 when too long. Pure. ---- */
size_t etc_passwd(char *buf, size_t size, const char *user, uid_t uid, gid_t gid, const char *home);
size_t etc_group(char *buf, size_t size, const char *user, gid_t gid);
size_t etc_hosts(char *buf, size_t size, const char *hostname);
size_t etc_machine_id(char *buf, size_t size, const unsigned char rnd[16]);
/* /etc/oto-protected: why a write in a writable tree can fail (otomount(1), Protected files). */
#define ETC_PROTECTED                                                                              \
	"oto: git's hooks, config and redirections, and the start-up files a person's tools "      \
	"run, are read-only in the writable trees: a write fails with EROFS, a rename onto one "   \
	"with EBUSY (otomount(1), Protected files)\n"

/* ---- special.c: /dev and /proc ---- */
void xdev_prepare(struct view_state *v, const struct otomount_opts *o);
void xproc_prepare(struct view_state *v);
void xproc_mask(struct view_state *v); /* after the build: Docker's masked and read-only paths */

/*
 * ---- protect.c: files the host runs later, read-only in every writable tree ----
 * (git directories at any depth, start-up files at each tree's top), made
 * after the plan is built, before the pivot.
 */
void xprotect(struct view_state *v, const struct otomount_opts *o);

/* ---- build.c: the plan made in the new root ---- */
/* The scratch tmpfs on the old root: the new root's mount point, and the masks. */
void xbuild_scratch(struct view_state *v);
void xbuild_entry(struct view_state *v, const struct plan_entry *e);
void build_done(struct view_state *v); /* forget the directory kept between entries */

#endif
