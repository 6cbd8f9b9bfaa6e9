/* SPDX-License-Identifier: ISC */
/*
 * The kernel audit's read-log group, for the refusal log's Landlock lines
 * (otons --log-fd; otonet opens it for the otons behind it, which runs
 * unprivileged). Nothing of the host's audit changes: it is not switched on,
 * no rule is added, no daemon replaced. The caller's own audit session is:
 * loginuid := uid gives it (and all it starts) a session id of its own,
 * which nothing beneath can change (CAP_AUDIT_CONTROL), and by which the
 * sandbox's records are told from the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Whether the kernel's audit is on: 1, 0, or -1 with errno (EPERM outside the initial pid
 * namespace). */
static int audit_enabled(int fd)
{
	struct nlmsghdr req = { .nlmsg_len = NLMSG_LENGTH(0),
				.nlmsg_type = AUDIT_GET,
				.nlmsg_flags = NLM_F_REQUEST,
				.nlmsg_seq = 1 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static char buf[AUDIT_READER_MSG] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (sendto(fd, &req, req.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -1;
	for (int tries = 0; tries < 8; tries++) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int len;

		if (poll(&pf, 1, 1000) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		len = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				errno = e->error ? -e->error : EPROTO;
				return -1;
			}
			if (h->nlmsg_type == AUDIT_GET &&
			    h->nlmsg_len >= NLMSG_LENGTH(2 * sizeof(__u32))) {
				const struct audit_status *s = NLMSG_DATA(h);

				return s->enabled != 0;
			}
		}
	}
	errno = EPROTO;
	return -1;
}

static int fail(int fd, const char **why, const char *what, int err)
{
	if (fd >= 0)
		close(fd);
	*why = what;
	errno = err;
	return -1;
}

int audit_reader_open(uid_t uid, const char **why)
{
	int grp = AUDIT_NLGRP_READLOG, fd, lfd, n;
	char num[16];
	struct stat st;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return fail(fd, why, "unable to open the kernel's audit", errno);
	/* Unknown (< 0) outside the initial pid namespace: the records will tell. */
	if (audit_enabled(fd) == 0)
		return fail(fd, why,
			    "the kernel's audit is off (auditctl -e 1, or audit=1 at boot)", 0);
	/*
	 * The audit multicasts to the initial network namespace's sockets
	 * only. Its inode is a constant in recent kernels (PROC_NET_INIT_INO,
	 * seen on 6.18), and the first one allocated at boot in older ones.
	 */
	if (stat("/proc/self/ns/net", &st) == 0 && st.st_ino != 0xEFFFFFF9U &&
	    st.st_ino != 0xF0000000U)
		return fail(fd, why,
			    "the kernel's audit hands its records to the initial network namespace "
			    "only, and this is another",
			    0);
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		return fail(fd, why, "unable to join the audit's read-log group", errno);
	lfd = open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC);
	n = snprintf(num, sizeof(num), "%u", (unsigned int)uid);
	if (lfd < 0 || write(lfd, num, (size_t)n) != n) {
		int e = errno;

		if (lfd >= 0)
			close(lfd);
		return fail(fd, why,
			    "unable to give the sandbox an audit session of its own "
			    "(/proc/self/loginuid)",
			    e);
	}
	close(lfd);
	return fd;
}

int audit_reader_session(unsigned int *ses)
{
	char num[16];
	ssize_t n = file_read_at(AT_FDCWD, "/proc/self/sessionid", num, sizeof(num));
	unsigned long v;

	if (n <= 0)
		return -1;
	if (num[n - 1] == '\n')
		num[n - 1] = 0;
	if (opt_ulong(num, 0xfffffffeUL, &v) < 0) {
		errno = ESRCH; /* 4294967295: no session */
		return -1;
	}
	*ses = (unsigned int)v;
	return 0;
}
