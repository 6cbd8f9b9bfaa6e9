/* SPDX-License-Identifier: ISC */
/*
 * The agent's side: stdin to the socket, the socket to stdout, in one poll
 * loop. Only the socket is non-blocking: stdin and stdout are the caller's
 * (their file descriptions are shared, O_NONBLOCK on them would change them
 * for it too). stdin is read only when poll says it has data, stdout is
 * written blocking: a reader that stops reading holds back this direction
 * only, as a pipe would. A read from stdin waits until the last one is in
 * the socket, so at most one buffer is in flight each way.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "oto.h"
#include "otoconnect.h"

#define BUF_BYTES 65536

static int xconnect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		die(EXIT_SYS, errno, "unable to make a Unix socket");
	memcpy(sa.sun_path, path, strlen(path) + 1); /* fits: connect_path_ok */
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(EXIT_SYS, errno, "unable to connect to %s", path);
	if (fcntl(s, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_SYS, errno, "unable to make the socket non-blocking");
	return s;
}

static void xwrite_all(int fd, const char *p, size_t n)
{
	if (fd_write_all(fd, p, n) < 0)
		die(EXIT_SYS, errno, "unable to write to stdout");
}

void xclient_run(const struct otoconnect_opts *o)
{
	static char up[BUF_BYTES], down[BUF_BYTES];
	size_t up_len = 0, up_off = 0;
	int in_open = 1;
	int s;

	/* A peer gone shows as EPIPE on send (MSG_NOSIGNAL) and on stdout. */
	signal(SIGPIPE, SIG_IGN);
	s = xconnect(o->path);
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = in_open && !up_len ? 0 : -1, .events = POLLIN },
			{ .fd = s, .events = POLLIN | (up_len ? POLLOUT : 0) },
		};
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_SYS, errno, "unable to poll stdin and %s", o->path);
		}
		if (p[0].revents) {
			n = read(0, up, sizeof(up));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n < 0 && !(p[0].revents & POLLNVAL))
				die(EXIT_SYS, errno, "unable to read stdin");
			if (n <= 0) {
				/* Half-close: the tool reads its end, and may still answer. */
				in_open = 0;
				if (shutdown(s, SHUT_WR) < 0 && errno != ENOTCONN)
					die(EXIT_SYS, errno, "unable to shut %s down for writing",
					    o->path);
			} else {
				up_len = (size_t)n;
				up_off = 0;
			}
		}
		if (up_len && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = send(s, up + up_off, up_len - up_off, MSG_NOSIGNAL);
			if (n < 0 && errno == EPIPE) {
				/* The tool reads no more: what stdin still has goes nowhere. */
				in_open = 0;
				up_len = 0;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				die(EXIT_SYS, errno, "unable to send to %s", o->path);
			} else if (n > 0) {
				up_off += (size_t)n;
				if (up_off == up_len)
					up_len = 0;
			}
		}
		if (p[1].revents & (POLLIN | POLLERR | POLLHUP)) {
			n = recv(s, down, sizeof(down), 0);
			if (n == 0)
				exit(0); /* the tool's end of data: the connection is done */
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				die(EXIT_SYS, errno, "unable to read from %s", o->path);
			if (n > 0)
				xwrite_all(1, down, (size_t)n);
		}
	}
}
