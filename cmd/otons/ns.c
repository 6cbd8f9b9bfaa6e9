/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

static void xwrite_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(data);

	/* The first step that needs a capability in the new user namespace. */
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		die(EXIT_SYS, errno, "unable to write %s%s", path,
		    errno == EROFS ? PROC_SYS_RO_HINT : userns_cap_hint(errno));
	close(fd);
}

void xotons_enter_userns(const struct otons_opts *o)
{
	uid_t outer_uid = getuid();
	gid_t outer_gid = getgid();
	uid_t uid = o->have_uid ? o->uid : outer_uid;
	gid_t gid = o->have_gid ? o->gid : outer_gid;

	if (!(o->unshare_flags & CLONE_NEWUSER))
		return;
	/* Outer namespace A: the caller's ids become the sandbox's ids. */
	if (unshare(CLONE_NEWUSER) < 0) {
		/* Read before the hint, which opens files of /proc (and sets errno). */
		int e = errno;

		die(EXIT_SYS, 0, "unable to create a user namespace: %s: %s", strerror(e),
		    userns_hint(e));
	}
	if (userns_map_self(0, uid, outer_uid, gid, outer_gid) < 0)
		die(EXIT_SYS, errno, "unable to write the uid/gid map of the user namespace");
	/*
	 * Limits are per user namespace and counted up the chain: with A's
	 * max_user_namespaces at 1, the namespace B made below uses up A's only
	 * slot, and nothing in B or under it can create another (ENOSPC). The
	 * agent lives in B, where it holds no capability over A's limit. This
	 * is bubblewrap's --disable-userns; it holds even without seccomp.
	 */
	xwrite_file("/proc/sys/user/max_user_namespaces", "1");
	if (unshare(CLONE_NEWUSER) < 0)
		die(EXIT_SYS, errno, "unable to create the nested user namespace");
	if (userns_map_self(0, uid, uid, gid, gid) < 0)
		die(EXIT_SYS, errno,
		    "unable to write the uid/gid map of the nested user namespace");
}

/*
 * A new network namespace starts with lo down: every local client and server
 * (a dev server and its browser test, a test suite's fixtures, a debugger's
 * port) would fail with ENETUNREACH. Up, it has 127.0.0.1 and ::1, and
 * nothing else: no way out of the namespace.
 */
static void xlo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		die(EXIT_SYS, errno, "unable to read the flags of lo in the new network namespace");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		die(EXIT_SYS, errno, "unable to bring up lo in the new network namespace");
	close(fd);
}

/* Whether a seccomp filter is on this process (Seccomp: 2 in /proc/self/status). */
static int seccomp_filtered(void)
{
	char buf[4096], *p;
	ssize_t n = file_read_at(AT_FDCWD, "/proc/self/status", buf, sizeof(buf));

	if (n <= 0)
		return 0;
	p = strstr(buf, "\nSeccomp:");
	return p && strtol(p + 9, NULL, 10) == 2;
}

/*
 * Past the first unshare, otons holds every capability in namespaces of its
 * own: EPERM there is no missing privilege but a filter in front of the call,
 * a container runtime's seccomp profile (Docker's and Podman's default allow
 * unshare and sethostname only with CAP_SYS_ADMIN) or a security module.
 */
static const char *refused_hint(int err)
{
	if (err != EPERM)
		return "";
	if (seccomp_filtered())
		return " (refused by the seccomp filter otons was started under, such as a "
		       "container's default profile: run the container with "
		       "deploy/seccomp-oto.json, README \"Deploying\")";
	return " (otons holds every capability in its own namespaces: a security module "
	       "refused it, such as a container's AppArmor profile, README \"Deploying\")";
}

void xotons_unshare_rest(const struct otons_opts *o, const struct otons_cgroup *cg)
{
	/* With --cgroup, pid 1 makes the cgroup namespace once it is in the leaf. */
	int flags = o->unshare_flags & ~CLONE_NEWUSER & ~(cg->on ? CLONE_NEWCGROUP : 0);

	if (flags && unshare(flags) < 0) {
		int e = errno;
		char names[64];

		otons_ns_names(flags, names, sizeof(names));
		die(EXIT_SYS, e, "unable to create the namespaces %s%s", names, refused_hint(e));
	}
	if (flags & CLONE_NEWNET)
		xlo_up();
	if ((flags & CLONE_NEWUTS) && sethostname(o->hostname, strlen(o->hostname)) < 0)
		die(EXIT_SYS, errno, "unable to set the host name%s", refused_hint(errno));
	/* Nothing mounted in here may ever propagate back to the caller's view. */
	if ((flags & CLONE_NEWNS) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die(EXIT_SYS, errno, "unable to make the mount namespace private");
}

void xotons_caps_ambient(void)
{
	cap_t caps = cap_get_proc();
	cap_value_t last = (cap_value_t)cap_max_bits();
	cap_flag_value_t have;

	if (!caps)
		die(EXIT_SYS, errno, "unable to read capabilities to make them ambient");
	/* A capability can be ambient only when it is permitted and inheritable. */
	for (cap_value_t c = 0; c < last; c++) {
		if (cap_get_flag(caps, c, CAP_PERMITTED, &have) == 0 && have == CAP_SET &&
		    cap_set_flag(caps, CAP_INHERITABLE, 1, &c, CAP_SET) < 0)
			die(EXIT_SYS, errno, "unable to set capability %d inheritable", (int)c);
	}
	if (cap_set_proc(caps) < 0)
		die(EXIT_SYS, errno, "unable to set inheritable capabilities");
	for (cap_value_t c = 0; c < last; c++) {
		if (cap_get_flag(caps, c, CAP_PERMITTED, &have) == 0 && have == CAP_SET &&
		    cap_set_ambient(c, CAP_SET) < 0)
			die(EXIT_SYS, errno, "unable to make capability %d ambient", (int)c);
	}
	cap_free(caps);
}
