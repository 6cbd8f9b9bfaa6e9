/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oto.h"

static int write_proc(pid_t pid, const char *file, const char *data, size_t len)
{
	char path[64];
	int fd;
	ssize_t w;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	w = write(fd, data, len);
	if (w >= 0 && (size_t)w != len) {
		w = -1;
		errno = EIO;
	}
	if (w < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int userns_map_self(pid_t pid, uid_t uid_in, uid_t uid_out, gid_t gid_in, gid_t gid_out)
{
	char line[64];
	size_t n;

	/* Unprivileged, a gid_map is only accepted once setgroups is denied (CVE-2014-8989). */
	if (write_proc(pid, "setgroups", "deny", 4) < 0 && errno != ENOENT)
		return -1;
	n = idmap_format(line, sizeof(line), uid_in, uid_out, 1);
	if (write_proc(pid, "uid_map", line, n) < 0)
		return -1;
	n = idmap_format(line, sizeof(line), gid_in, gid_out, 1);
	return write_proc(pid, "gid_map", line, n);
}

static int read_int(const char *path, long *v)
{
	char buf[32];

	if (file_read_at(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "%ld", v) == 1 ? 0 : -1;
}

const char *userns_hint(int err)
{
	long v;

	if (err == ENOSPC)
		return "the limit of user namespaces is reached (sysctl user.max_user_namespaces, "
		       "here or in an enclosing namespace such as another oto sandbox)";

	if (read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 && v)
		return USERNS_APPARMOR_HINT;
	if (read_int("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 && !v)
		return "unprivileged user namespaces are disabled "
		       "(sysctl kernel.unprivileged_userns_clone=1)";
	if (read_int("/proc/sys/user/max_user_namespaces", &v) == 0 && !v)
		return "user namespaces are disabled (sysctl user.max_user_namespaces > 0)";
	return "user namespaces are refused here: a container runtime's seccomp profile may "
	       "forbid unshare/clone with CLONE_NEWUSER (run the container with a profile "
	       "that allows it), or the namespace limit of an ancestor is reached";
}

/*
 * Where AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and
 * later), creating one may succeed while every capability in it is denied:
 * the first step that needs one fails with EPERM or EACCES. The hint for
 * that failure, or "" when the restriction is not what refused it.
 */
const char *userns_cap_hint(int err)
{
	long v;

	if ((err == EPERM || err == EACCES) &&
	    read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 && v)
		return " (" USERNS_APPARMOR_HINT ")";
	return "";
}
