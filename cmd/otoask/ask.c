/* SPDX-License-Identifier: ISC */
/*
 * The session: requests read from the relay's socket into a queue, shown
 * one at a time at the terminal with a countdown, the key read there
 * (no echo, no line editing: one key is an answer), the answer written
 * back, what was allowed appended to --save. One poll over the socket, the
 * terminal and a signalfd: SIGINT, SIGTERM and SIGHUP end it with the
 * terminal as it was (the relay then denies what is pending, fail closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otoask.h"

struct asker {
	const struct otoask_opts *o;
	int sock, tty, save, sigfd, raw, eof;
	struct termios old;
	char in[2 * ASK_LINE];
	size_t inlen;
	struct ask_req q[ASK_QUEUE];
	uint64_t due[ASK_QUEUE]; /* ms: when each one's countdown ends */
	unsigned int head, n;
	int showing; /* q[head] is on the terminal */
	long left;   /* the seconds last shown */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void tty_restore(struct asker *a)
{
	if (a->raw)
		tcsetattr(a->tty, TCSAFLUSH, &a->old);
	a->raw = 0;
}

/* The terminal as it was, then the exit: every way out of a session goes here. */
static noreturn void xend(struct asker *a, int code, int err, const char *what)
{
	tty_restore(a);
	if (what)
		die(code, err, "unable to %s", what);
	exit(code);
}

static void xtty_say(struct asker *a, const char *s)
{
	if (fd_write_all(a->tty, s, strlen(s)) < 0)
		xend(a, EXIT_SYS, errno, "write to the terminal");
}

int xask_socket(const struct otoask_opts *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int type = 0, fd, conn;
	socklen_t l = sizeof(type);
	mode_t old;

	if (o->fd >= 0) {
		if (getsockopt(o->fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_STREAM)
			die_usage("--fd %d: not a stream socket", o->fd);
		if (fcntl(o->fd, F_SETFD, FD_CLOEXEC) < 0)
			die(EXIT_SYS, errno, "unable to make fd %d close-on-exec", o->fd);
		return o->fd;
	}
	memcpy(sa.sun_path, o->listen, strlen(o->listen) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to create a socket");
	/* Mode 600 from the start: no moment when another account may connect. */
	old = umask(077);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die(EXIT_SYS, errno, "unable to listen on %s (bind)", o->listen);
	umask(old);
	if (listen(fd, 1) < 0)
		die(EXIT_SYS, errno, "unable to listen on %s", o->listen);
	debugx("waiting for the session at %s", o->listen);
	while ((conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (conn < 0)
		die(EXIT_SYS, errno, "unable to accept the session on %s", o->listen);
	/* One session: nobody else may connect once it has begun. */
	unlink(o->listen);
	close(fd);
	return conn;
}

/* The answer to q, on the socket; what it allowed, to --save. */
static void xanswer(struct asker *a, const struct ask_req *q, const char *d)
{
	char line[64], cfg[800];
	int n = snprintf(line, sizeof(line), "%u %s\n", q->id, d);

	if (fd_write_all(a->sock, line, (size_t)n) < 0)
		xend(a, EXIT_SYS, errno, "answer the relay");
	if (a->save < 0 || !strcmp(d, "deny"))
		return;
	ask_config_line(q, d, cfg, sizeof(cfg));
	if (fd_write_all(a->save, cfg, strlen(cfg)) < 0)
		xend(a, EXIT_SYS, errno, "write to --save");
}

/* The prompt for the request shown, with the seconds left. */
static void xprompt(struct asker *a, long left)
{
	const struct ask_req *q = &a->q[a->head];
	char what[400], line[600];

	ask_req_show(q, what, sizeof(what));
	snprintf(line, sizeof(line), "\rotoask: #%u %s, session %.8s: allow? [y/n/a] n in %lds ",
		 q->id, what, q->session, left);
	xtty_say(a, line);
	a->left = left;
}

/* The request shown is decided d (why: shown after it). */
static void xdecided(struct asker *a, const char *d, const char *why)
{
	char line[96];

	xanswer(a, &a->q[a->head], d);
	snprintf(line, sizeof(line), "-> %s%s\n", d, why);
	xtty_say(a, line);
	a->head = (a->head + 1) % ASK_QUEUE;
	a->n--;
	a->showing = 0;
}

/* The requests in a->in, whole lines, to the queue (a full queue denies at once). */
static void xtake_lines(struct asker *a)
{
	char *nl;

	while ((nl = memchr(a->in, '\n', a->inlen))) {
		size_t len = (size_t)(nl - a->in);
		struct ask_req q;

		if (ask_req_parse(a->in, len, &q) < 0) {
			warnx("a request that does not read: left to the relay's timeout");
		} else if (a->n == ASK_QUEUE) {
			xanswer(a, &q, "deny");
		} else {
			unsigned int k = (a->head + a->n) % ASK_QUEUE;

			a->q[k] = q;
			a->due[k] = now_ms() + a->o->timeout * 1000;
			a->n++;
		}
		memmove(a->in, nl + 1, a->inlen - len - 1);
		a->inlen -= len + 1;
	}
	if (a->inlen == sizeof(a->in))
		xend(a, EXIT_SYS, EMSGSIZE, "read a request (a line too long)");
}

static void xsock_input(struct asker *a)
{
	ssize_t got = read(a->sock, a->in + a->inlen, sizeof(a->in) - a->inlen);

	if (got < 0 && errno == EINTR)
		return;
	if (got <= 0) {
		a->eof = 1;
		return;
	}
	a->inlen += (size_t)got;
	xtake_lines(a);
}

static void xtty_input(struct asker *a)
{
	char c;
	const char *d;

	if (read(a->tty, &c, 1) != 1)
		return;
	d = ask_key((unsigned char)c);
	if (d && a->showing)
		xdecided(a, d, "");
}

/* The queue's head on the terminal, or decided by its countdown. */
static void xtick(struct asker *a)
{
	uint64_t t = now_ms();
	long left;

	if (!a->n)
		return;
	if (t >= a->due[a->head]) {
		if (!a->showing)
			xprompt(a, 0);
		xdecided(a, "deny", " (no answer in time)");
		return;
	}
	left = (long)((a->due[a->head] - t + 999) / 1000);
	if (!a->showing || left != a->left) {
		a->showing = 1;
		xprompt(a, left);
	}
}

static void xsetup(struct asker *a)
{
	struct termios raw;
	sigset_t set;

	a->tty = open(a->o->tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (a->tty < 0 || tcgetattr(a->tty, &a->old) < 0)
		die(EXIT_SYS, errno, "unable to open the terminal %s", a->o->tty);
	a->save = -1;
	if (a->o->save) {
		a->save = open(a->o->save, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (a->save < 0)
			die(EXIT_SYS, errno, "unable to open --save %s", a->o->save);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	a->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (a->sigfd < 0)
		die(EXIT_SYS, errno, "unable to create a signalfd");
	/* One key is an answer, and it is not echoed. */
	raw = a->old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(a->tty, TCSAFLUSH, &raw) < 0)
		die(EXIT_SYS, errno, "unable to set the terminal %s", a->o->tty);
	a->raw = 1;
}

noreturn void xask_serve(const struct otoask_opts *o, int sock)
{
	struct asker a;

	memset(&a, 0, sizeof(a));
	a.o = o;
	a.sock = sock;
	xsetup(&a);
	for (;;) {
		struct pollfd p[3] = { { .fd = a.sock, .events = POLLIN },
				       { .fd = a.tty, .events = POLLIN },
				       { .fd = a.sigfd, .events = POLLIN } };

		xtick(&a);
		/* The session is over: the relay's end closed (it denies nothing more). */
		if (a.eof) {
			if (a.showing)
				xtty_say(&a, "-> the session ended\n");
			xend(&a, 0, 0, NULL);
		}
		if (poll(p, 3, a.n ? 200 : -1) < 0 && errno != EINTR)
			xend(&a, EXIT_SYS, errno, "wait for requests");
		if (p[2].revents) {
			struct signalfd_siginfo si;

			if (read(a.sigfd, &si, sizeof(si)) != sizeof(si))
				si.ssi_signo = SIGTERM;
			xtty_say(&a, "\n");
			xend(&a, 128 + (int)si.ssi_signo, 0, NULL);
		}
		if (p[0].revents)
			xsock_input(&a);
		if (p[1].revents & POLLIN)
			xtty_input(&a);
	}
}
