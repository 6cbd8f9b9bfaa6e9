/* SPDX-License-Identifier: ISC */
/*
 * The order of otomount's work, step by step from main: what is read from
 * the host, what is planned (sources.c, etc.c, special.c, into plan.c's
 * list), how it is built (build.c), and the way into the new root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

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

void xview_prepare(struct view_state *v, const struct otomount_opts *o)
{
	unsigned long inodes = view_tmpfs_inodes(o, o->tmp_size);
	int home, tmp;

	/*
	 * Read-only before the agent runs: it holds our mount points, as many
	 * as the operator's views make, far fewer than this.
	 */
	/* Named, so that a stage exec'ing in the view can tell it is in one. */
	v->root = mnt_tmpfs_named(VIEW_ROOT_SOURCE, 1UL << 20, 65536, "0755", MNT_RW);
	if (v->root < 0)
		die(EXIT_SYS, errno, "unable to make the root tmpfs");
	/*
	 * Modes as written (mode-0 mask, copied /etc modes), without fchmod:
	 * from here, as /etc's thread starts writing.
	 */
	v->umask = umask(0);
	xetc_start(v, o);
	xsources_system(v);
	home = mnt_tmpfs(o->tmp_size, inodes, "0700", MNT_RW);
	if (home < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for $HOME (%s)", o->home);
	if (o->home_skel)
		xhome_skel(home, o->home_skel);
	xhome_login(home, o);
	tmp = mnt_tmpfs(o->tmp_size, inodes, "1777", MNT_RW);
	if (tmp < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for /tmp");
	xplan_tree(&v->plan, o->home, home, 1, "a tmpfs");
	xplan_tree(&v->plan, "/tmp", tmp, 1, "a tmpfs");
	xproc_prepare(v);
	xdev_prepare(v, o);
	if (o->role != ROLE_NONE)
		xsources_role(v, o);
	/*
	 * /etc's directories as late as can be, for its thread's sake, and
	 * before the custom sources: one may go beneath one of them.
	 */
	xplan_add(&v->plan, P_ETC, "/etc", NULL, 0, 0);
	xsources_custom(v, o);
	xsources_ca(v, o);
	xwhy_prepare(v);
}

void xview_build(struct view_state *v, const struct otomount_opts *o)
{
	xbuild_scratch(v);
	for (size_t i = 0; i < v->plan.n; i++)
		xbuild_entry(v, &v->plan.e[i]);
	build_done(v);
	/*
	 * In the view as built, custom binds included, and before the agent
	 * exists: it can neither race the walk nor see a tree unprotected.
	 */
	xprotect(v, o);
	xproc_mask(v);
}

/* Where the tree fd was mounted, for messages. */
static const char *tree_dst(const struct view_state *v, int tree)
{
	for (size_t i = 0; i < v->plan.n; i++)
		if (v->plan.e[i].kind == P_TREE && v->plan.e[i].tree == tree)
			return v->plan.e[i].dst;
	return "a tmpfs";
}

noreturn void xview_enter(struct view_state *v, const struct otomount_opts *o)
{
	const char *cwd = o->role != ROLE_NONE ? "/work" : o->home;

	/* Filled during the build, read-only from now on. */
	for (size_t i = 0; i < v->n_ro_later; i++)
		if (mnt_setattr(v->ro_later[i], MNT_RO | MOUNT_ATTR_NOEXEC, 0) < 0)
			die(EXIT_SYS, errno, "unable to make %s read-only",
			    tree_dst(v, v->ro_later[i]));
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
