/* SPDX-License-Identifier: ISC */
/*
 * One connection of --serve: the tool runs on two pipes, and this process
 * copies bytes between them and the connection. The connection is never
 * the tool's own: a Unix socket carries descriptors (SCM_RIGHTS) besides
 * bytes, so a tool that read its stdin with recvmsg(2) would receive the
 * agent's descriptors (a directory of the agent's, walked with .. to the
 * tool's /), and the agent those a tool sent. read(2) here takes bytes
 * only: the kernel closes what arrives without a control buffer to take
 * it, and a pipe carries no descriptor at all.
 *
 * Each direction ends on its own, as on the socket before: the client's
 * half-close is the tool's end of input; the tool's end of output (its
 * stdout closed, or its exit) is the client's end of data (SHUT_WR). A
 * side that goes away stops its direction: the tool's stdin closed drops
 * what the client still sends, the client gone closes the tool's stdout
 * (a write there is SIGPIPE, as on the socket). Only this process's ends
 * are non-blocking: the tool's are its own. At most one buffer each way.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oto.h"
#include "otoconnect.h"

#define BUF_BYTES 65536

/* One direction: from, to; what is read and not yet written. */
struct way {
	int from, to;
	size_t len, off;
	char buf[BUF_BYTES];
};

noreturn static void xtool(const struct otoconnect_opts *o, int in, int out)
{
	/* SIGPIPE as a program expects it. */
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		die(EXIT_SYS, errno, "unable to give the connection's pipes to %s", o->argv[0]);
	xexec(o->argv);
}

static void xnonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die(EXIT_SYS, errno, "unable to make the connection's relay non-blocking");
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The next bytes of w from w->from, when its buffer is empty: -1 at its end or on an error. */
static int way_read(struct way *w)
{
	ssize_t n = read(w->from, w->buf, sizeof(w->buf));

	if (n > 0) {
		w->len = (size_t)n;
		w->off = 0;
	}
	return n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)) ? 0 : -1;
}

/* What w holds, to w->to, as far as it goes now: -1 when w->to takes no more (EPIPE). */
static int way_write(struct way *w)
{
	ssize_t n = write(w->to, w->buf + w->off, w->len - w->off);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	w->off += (size_t)n;
	if (w->off == w->len)
		w->len = 0;
	return 0;
}

static void xrelay_copy(int sock, int tin, int tout)
{
	static struct way up, down; /* 64 KiB each: off the stack */

	up = (struct way){ .from = sock, .to = tin };
	down = (struct way){ .from = tout, .to = sock };
	while (up.to >= 0 || down.to >= 0) {
		short sev = (short)((up.from >= 0 && !up.len ? POLLIN : 0) |
				    (down.to >= 0 && down.len ? POLLOUT : 0));
		/*
		 * A side with nothing asked of it is left out (a socket hung up
		 * would wake poll for ever), but the tool's stdin: with no event
		 * asked, its POLLERR still says the tool closed it.
		 */
		struct pollfd p[3] = {
			{ .fd = sev ? sock : -1, .events = sev },
			{ .fd = up.to, .events = up.len ? POLLOUT : 0 },
			{ .fd = down.from >= 0 && !down.len ? down.from : -1, .events = POLLIN },
		};

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_SYS, errno, "unable to poll the connection and the tool's pipes");
		}
		/* The client's bytes: its half-close or its end is the tool's end of input. */
		if ((sev & POLLIN) && p[0].revents && way_read(&up) < 0)
			up.from = -1;
		/* The client gone: the tool's output goes nowhere, its next write is SIGPIPE. */
		if ((sev & POLLOUT) && p[0].revents && way_write(&down) < 0) {
			down.len = 0;
			down.to = -1;
			close_fd(&down.from);
		}
		/* The tool's stdin closed: what the client still sends goes nowhere. */
		if ((p[1].revents & POLLERR) || (p[1].revents && up.len && way_write(&up) < 0)) {
			up.len = 0;
			up.from = -1;
			close_fd(&up.to);
		}
		if (p[2].revents && way_read(&down) < 0)
			close_fd(&down.from);
		if (up.from < 0 && !up.len)
			close_fd(&up.to);
		if (down.from < 0 && !down.len && down.to >= 0) {
			if (shutdown(sock, SHUT_WR) < 0 && errno != ENOTCONN)
				warnx("unable to shut the connection down for writing: %s",
				      strerror(errno));
			down.to = -1;
		}
	}
}

noreturn void xrelay_run(const struct otoconnect_opts *o, int listener, int sock)
{
	int in[2], out[2], status;
	pid_t pid;

	close(listener);
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the pipes for %s", o->argv[0]);
	pid = fork();
	if (pid < 0)
		die(EXIT_SYS, errno, "unable to fork %s", o->argv[0]);
	if (pid == 0) {
		close(sock);
		xtool(o, in[0], out[1]);
	}
	close(in[0]);
	close(out[1]);
	xnonblock(sock);
	xnonblock(in[1]);
	xnonblock(out[0]);
	xrelay_copy(sock, in[1], out[0]);
	close(sock);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_SYS, errno, "unable to wait for %s", o->argv[0]);
	exit(wait_code(status));
}
