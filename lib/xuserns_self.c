/* SPDX-License-Identifier: ISC */
/*
 * A process that confines itself (otonet's relay, otogate's gateway) enters
 * a user and mount namespace of its own, with its own uid and gid mapped to
 * themselves: the kernel sees the same ids, and the new namespace's
 * capabilities reach nothing outside it. The same gid matters: ping sockets
 * check the caller's gid against the host's net.ipv4.ping_group_range.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oto.h"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, text, len);
	if (w < 0 || (size_t)w != len) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

void xuserns_self(const char *who)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	char line[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		die(EXIT_SYS, errno, "%s: unable to enter a new user and mount namespace", who);
	/*
	 * A process that is not dumpable has root's /proc/self files, which its
	 * own user cannot write: the flag is up for just these writes.
	 */
	if (dumpable != 1 && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "%s: unable to write its id maps (dumpable)", who);
	/* An unprivileged gid_map needs setgroups denied first (CVE-2014-8989). */
	if (write_file("/proc/self/setgroups", "deny") < 0)
		die(EXIT_SYS, errno, "%s: unable to write /proc/self/setgroups", who);
	snprintf(line, sizeof(line), "%u %u 1", (unsigned int)uid, (unsigned int)uid);
	if (write_file("/proc/self/uid_map", line) < 0)
		die(EXIT_SYS, errno, "%s: unable to write its uid_map", who);
	snprintf(line, sizeof(line), "%u %u 1", (unsigned int)gid, (unsigned int)gid);
	if (write_file("/proc/self/gid_map", line) < 0)
		die(EXIT_SYS, errno, "%s: unable to write its gid_map", who);
	if (dumpable != 1 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "%s: unable to make itself not dumpable", who);
}
