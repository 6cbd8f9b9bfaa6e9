/* SPDX-License-Identifier: ISC */
/*
 * What git would follow or run that appeared in a writable tree during the
 * session (otons(1), otomount(1) "Protected files"), said at its end.
 *
 * otomount makes read-only what git runs and follows in every repository
 * of a writable tree, but only what exists at launch: a mount needs its
 * mount point, and no view option makes anything on the host. What is not
 * there (a .git/commondir, a rebase's todo list, the hooks directory a
 * config names) it lists instead, and sends the list with each tree's top
 * on the socket otons offers here (OTO_APPEARED). The supervisor, which
 * outlives the sandbox and holds the trees' tops, looks each path up once
 * the sandbox has ended: each that is there now is one warning on stderr
 * and one record line (--log-fd), so the person knows before running git
 * there. The list is otomount's, written before the agent existed; its
 * socket end is closed before the agent's exec. Bounded: the list's bytes
 * (APPEARED_BYTES_MAX), the lines said (APPEARED_SAID, then one line with
 * the count).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

#define APPEARED_SAID 100

void xotons_appeared_offer(struct otons_appeared *a, char *const argv[])
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	int sv[2];
	char val[16];

	a->sock = a->child_sock = -1;
	/* Only otomount reads it: no other program gets the socket and its variable. */
	base = base ? base + 1 : argv[0];
	if (!base || strcmp(base, "otomount"))
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    fd_cloexec(sv[1], 0) < 0)
		die(EXIT_SYS, errno, "unable to make the socket for what appears (OTO_APPEARED)");
	snprintf(val, sizeof(val), "%d", sv[1]);
	if (setenv("OTO_APPEARED", val, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_APPEARED");
	a->sock = sv[0];
	a->child_sock = sv[1];
}

void otons_appeared_parent(struct otons_appeared *a)
{
	if (a->child_sock >= 0)
		close(a->child_sock);
	a->child_sock = -1;
	unsetenv("OTO_APPEARED");
}

void otons_appeared_child(struct otons_appeared *a)
{
	if (a->sock >= 0)
		close(a->sock);
	a->sock = -1;
}

/* rel beneath top is there: a file, a directory, or a symlink in its way. */
static int there(int top, const char *rel)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve =
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, top, rel, &how, sizeof(how));

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ELOOP;
}

static void say(int log_fd, const char *session, const char *top, const char *rel, const char *why,
		int *write_failed)
{
	char path[PATH_MAX + 64], line[PATH_MAX * 2 + 512];
	struct timespec ts;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	log_msg(LOG_WARN, 0, "%s appeared in the session: %s (look at it before running git there)",
		path, why);
	if (log_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = (size_t)event_head(line, sizeof(line), &ts, "protect", session);
	if (n)
		n = json_str(line, sizeof(line),
			     n + (size_t)snprintf(line + n, sizeof(line) - n,
						  ",\"verdict\":\"appeared\",\"path\":"),
			     path, strlen(path));
	if (n && n + 10 < sizeof(line)) {
		memcpy(line + n, ",\"why\":", 7);
		n = json_str(line, sizeof(line), n + 7, why, strlen(why));
	}
	if (n && n + 2 < sizeof(line)) {
		memcpy(line + n, "}\n", 2);
		n += 2;
		if (write(log_fd, line, n) != (ssize_t)n && !*write_failed) {
			*write_failed = 1;
			log_msg(LOG_WARN, errno, "unable to write the record (--log-fd %d)",
				log_fd);
		}
	}
}

void otons_appeared_finish(struct otons_appeared *a, int log_fd, const char *session)
{
	int fds[1 + APPEARED_TREES_MAX], nfds = 0, tree = -1, write_failed = 0;
	char c[CMSG_SPACE(sizeof(fds))], one, *buf = NULL, *line, *end;
	struct iovec io = { .iov_base = &one, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = c, .msg_controllen = sizeof(c)
	};
	const char *top = "";
	unsigned long said = 0;
	ssize_t len = -1;

	if (a->sock < 0)
		return;
	/* The sandbox has ended: the one message is there, or none will come. */
	if (recvmsg(a->sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) == 1) {
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
			if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
				nfds = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
				memcpy(fds, CMSG_DATA(h), (size_t)nfds * sizeof(int));
			}
	}
	close(a->sock);
	a->sock = -1;
	if (nfds > 0 && (buf = malloc(APPEARED_BYTES_MAX + 1)))
		len = pread(fds[0], buf, APPEARED_BYTES_MAX, 0);
	for (line = buf, end = buf + (len > 0 ? len : 0); len > 0 && line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line)), *tab;

		if (!nl)
			break;
		*nl = 0;
		tab = strchr(line + 2, '\t');
		if (line[0] == 'T' && line[1] == '\t') {
			tree++;
			top = line + 2;
		} else if (line[0] == 'W' && line[1] == '\t' && tab && tree >= 0 &&
			   tree + 1 < nfds) {
			*tab = 0;
			if (there(fds[1 + tree], line + 2) && ++said <= APPEARED_SAID)
				say(log_fd, session, top, line + 2, tab + 1, &write_failed);
		}
		line = nl + 1;
	}
	if (said > APPEARED_SAID)
		log_msg(LOG_WARN, 0,
			"%lu more paths git would follow or run appeared in the session (the first "
			"%d are above)",
			said - APPEARED_SAID, APPEARED_SAID);
	free(buf);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
}
