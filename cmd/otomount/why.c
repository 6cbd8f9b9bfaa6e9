/* SPDX-License-Identifier: ISC */
/*
 * The agent's file of its session's refusals (OTO_WHY, oto(7)): when the
 * stages outside offered sockets (OTO_WHY_FD, a list), a small tmpfs of
 * its own holds one file, "why"; each of them gets a writable fd of it,
 * and the view gets a second, read-only mount of that tmpfs at WHY_DIR.
 *
 * Two mounts of one tmpfs, because a mount cannot be made read-only while
 * a file is open for writing through it (EBUSY): the writers' fds hold the
 * first mount, detached and never in the view; the agent reaches only the
 * clone, read-only, nosuid, nodev, noexec, and holds no capability to
 * remount it. No writer is inside: the agent can read the lines, never
 * forge or remove one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

/* Room for every writer's budget and last line: the file's hard bound. */
#define WHY_TMPFS_SIZE (64UL << 10)
#define WHY_WRITERS    8

void xwhy_prepare(struct view_state *v)
{
	const char *val = getenv("OTO_WHY_FD");
	unsigned long socks[WHY_WRITERS];
	size_t n = 0;
	char buf[256], *p, *tok, *save = NULL;
	int fs, file, tree;

	if (!val)
		return;
	if (strlen(val) >= sizeof(buf))
		die_usage("OTO_WHY_FD=%s: too long (the stages outside set it)", val);
	strcpy(buf, val);
	for (p = buf; (tok = strtok_r(p, ",", &save)); p = NULL) {
		if (n == WHY_WRITERS || opt_ulong(tok, 65535, &socks[n]) < 0 || socks[n] < 3)
			die_usage("OTO_WHY_FD=%s: not a list of sockets' fds (the stages outside "
				  "set it)",
				  val);
		n++;
	}
	unsetenv("OTO_WHY_FD");
	fs = mnt_tmpfs(WHY_TMPFS_SIZE, 4, "0755", MNT_RW | MOUNT_ATTR_NOEXEC);
	if (fs < 0)
		die(EXIT_SYS, errno, "unable to make the tmpfs for %s", WHY_PATH);
	file = openat(fs, "why", O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0444);
	if (file < 0)
		die(EXIT_SYS, errno, "unable to make %s", WHY_PATH);
	tree = mnt_clone(fs, "", MNT_RO | MOUNT_ATTR_NOEXEC);
	if (tree < 0)
		die(EXIT_SYS, errno, "unable to make a read-only mount of %s", WHY_DIR);
	close(fs);
	/* A writer gone already (its socket closed) writes nothing: not an error. */
	for (size_t i = 0; i < n; i++) {
		if (fd_send((int)socks[i], file, 0) < 0 && errno != EPIPE && errno != ECONNREFUSED)
			die(EXIT_SYS, errno, "unable to send %s to a stage outside (OTO_WHY_FD)",
			    WHY_PATH);
		close((int)socks[i]);
	}
	close(file);
	xplan_tree(&v->plan, WHY_DIR, tree, 1, "the session's refusals");
	if (setenv("OTO_WHY", WHY_PATH, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_WHY");
}
