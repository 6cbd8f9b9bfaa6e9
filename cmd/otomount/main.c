/* SPDX-License-Identifier: ISC */
/*
 * otomount: build the agent's filesystem view in a mount namespace of its
 * own, pivot_root into it, and run the next stage in /work.
 *
 * Consumes: argv up to "--"; OTO_STATUS_FD (reported to, passed on).
 * Passes on: the rest of argv, exec'd in the new root with HOME set to the
 * view's home; every inherited fd; capabilities unchanged (otoexec drops them).
 * Exits: 100 usage, 111 a system call failed (not allowed to mount here, a
 * source that is a symlink or missing), 126/127 exec.
 */
#include <errno.h>
#include <string.h>

#include "oto.h"
#include "otomount.h"

int main(int argc, char **argv)
{
	struct otomount_opts o;
	static struct view_state v;

	log_init(argv[0]);
	xotomount_parse(&o, argc, argv);

	/* 1. What the view copies from the host, read while the host is visible. */
	view_read_host(&v);

	/*
	 * 2. A mount namespace of our own, all private: nothing done below can
	 *    propagate out. EPERM here means we may not mount at all.
	 */
	if (mnt_make_private_ns() < 0)
		die(EXIT_SYS, errno,
		    "not allowed to change the mount namespace (run under otons, or as root)");

	/*
	 * 3. Open every source (no symlinks followed) and clone it into a
	 *    detached tree, read-only where it must be, before the first mount:
	 *    from here on, no host path string is looked up again. /etc is the
	 *    exception that proves it: a thread fills it meanwhile (etc.c),
	 *    each name looked up beneath the host's /etc fd, opened first.
	 */
	xview_prepare(&v, &o);

	/*
	 * 4. The new root on a tmpfs, filled in plan order; the files the host
	 *    runs later made read-only in every writable tree; /proc masks last.
	 */
	xview_build(&v, &o);

	/* 5. Read-only where filled, pivot_root, detach the old root, exec. */
	xview_enter(&v, &o);
}
