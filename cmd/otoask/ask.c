/* SPDX-License-Identifier: ISC */
/*
 * The sessions: each connection to --listen is one (or --fd's socket), its
 * first line may say who asks (otorun's session line), its questions go to
 * one queue, shown one at a time at the terminal with a countdown, the
 * sessions taking turns; the key read there (no echo, no line editing: one
 * key is an answer) answers the question shown, on its own session's socket;
 * what was allowed is appended to --save. One poll over the listening
 * socket, the sessions, the terminal and a signalfd: SIGINT, SIGTERM and
 * SIGHUP end it with the terminal as it was and the socket removed (each
 * relay then denies what is pending, fail closed).
 *
 * A session whose controlling terminal is otoask's own ends otoask: its
 * agent reads the keys typed there, and could answer for the person.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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

/* One session: a connection, who asks, its bytes not yet a line. */
struct conn {
	int fd; /* -1: a free slot */
	int dead;
	pid_t pid;
	unsigned int lines, pending;
	int flooded, garbled; /* said once: too many pending, a line that does not read */
	int named;	      /* its label is who asks (the session line) or its id */
	char label[200];
	char in[ASK_LINE];
	size_t inlen;
};

/* One question pending, of session conn. */
struct pend {
	int used;
	unsigned int conn;
	uint64_t seq, due; /* arrival order; ms when its countdown ends */
	struct ask_req q;
};

struct asker {
	const struct otoask_opts *o;
	int lfd; /* listening, -1 once --once has its session */
	int tty, save, sigfd, raw;
	unsigned long tty_nr; /* otoask's terminal, as /proc/PID/stat says */
	struct termios old;
	struct conn c[ASK_SESSIONS];
	struct pend p[ASK_QUEUE];
	unsigned int npend, next; /* next: the session whose turn is next */
	uint64_t seq, shown_at;
	int shown; /* the question on the terminal (index in p), -1 none */
	long left; /* the seconds last shown, -1 to show it again */
};

static struct asker A;

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

/* The terminal as it was, the socket removed, then the exit: every way out goes here. */
static noreturn void xend(struct asker *a, int code, int err, const char *what)
{
	tty_restore(a);
	if (a->lfd >= 0 && a->o->listen)
		unlink(a->o->listen);
	if (what)
		die(code, err, "unable to %s", what);
	exit(code);
}

static void xtty_say(struct asker *a, const char *s)
{
	if (fd_write_all(a->tty, s, strlen(s)) < 0)
		xend(a, EXIT_SYS, errno, "write to the terminal");
}

/* A line of otoask's own at the terminal, below the prompt shown (drawn again after). */
static void xnote(struct asker *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void xnote(struct asker *a, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (a->shown >= 0) {
		xtty_say(a, "\n");
		a->left = -1;
	}
	memcpy(line, "otoask: ", 8);
	va_start(ap, fmt);
	n = vsnprintf(line + 8, sizeof(line) - 9, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(line) - 10)
		n = (int)(sizeof(line) - 10);
	memcpy(line + 8 + n, "\n", 2);
	xtty_say(a, line);
}

/*
 * Whether the peer on fd shares otoask's terminal: 1 (said, with the fix),
 * 0. A peer in a pid namespace this one does not see cannot be told: it is
 * served (otorun, at the other end, checks too).
 */
static int peer_on_my_tty(const struct asker *a, int fd, pid_t *pid)
{
	unsigned long t;

	return tty_of_peer(fd, pid, &t) == 0 && t && t == a->tty_nr;
}

/*
 * A session on otoask's terminal: otoask itself is where it must not be
 * (in the background of the agent's terminal, eating its keys), so it ends
 * there, the terminal as it was, and says why in one line. Exits 101.
 */
static noreturn void xrefuse(struct asker *a, pid_t pid)
{
	tty_restore(a);
	if (a->lfd >= 0 && a->o->listen)
		unlink(a->o->listen);
	die(EXIT_REJECT, 0,
	    "refused the session of pid %d: its terminal is mine, where its agent could type the "
	    "answers; run otoask in a terminal of its own (another window, a tmux pane)",
	    (int)pid);
}

int xask_socket(const struct otoask_opts *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int type = 0, fd;
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
	if (listen(fd, 16) < 0) {
		unlink(o->listen);
		die(EXIT_SYS, errno, "unable to listen on %s", o->listen);
	}
	debugx("waiting for sessions at %s", o->listen);
	return fd;
}

/* The answer to q, on session k's socket; what it allowed, to --save. */
static void xanswer(struct asker *a, unsigned int k, const struct ask_req *q, const char *d)
{
	char line[64], cfg[800];
	int n = snprintf(line, sizeof(line), "%u %s\n", q->id, d);

	/* A session that does not take its answer at once is not reading: gone. */
	if (!a->c[k].dead && send(a->c[k].fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		a->c[k].dead = 1;
	if (a->save < 0 || !strcmp(d, "deny"))
		return;
	ask_config_line(q, d, cfg, sizeof(cfg));
	if (fd_write_all(a->save, cfg, strlen(cfg)) < 0)
		xend(a, EXIT_SYS, errno, "write to --save");
}

static void pend_drop(struct asker *a, int i)
{
	struct conn *c = &a->c[a->p[i].conn];

	a->p[i].used = 0;
	a->npend--;
	if (!--c->pending)
		c->flooded = 0;
	if (a->shown == i)
		a->shown = -1;
}

/* The prompt for the question shown, with the seconds left. */
static void xprompt(struct asker *a, long left)
{
	const struct pend *e = &a->p[a->shown];
	char what[400], line[700];

	ask_req_show(&e->q, what, sizeof(what));
	snprintf(line, sizeof(line), "\rotoask: [%s] #%u %s: allow? [y/n/a] n in %lds ",
		 a->c[e->conn].label, e->q.id, what, left);
	xtty_say(a, line);
	a->left = left;
}

/* The question shown is decided d (why: shown after it); the next session's turn. */
static void xdecided(struct asker *a, const char *d, const char *why)
{
	char line[96];
	unsigned int k = a->p[a->shown].conn;

	xanswer(a, k, &a->p[a->shown].q, d);
	snprintf(line, sizeof(line), "-> %s%s\n", d, why);
	xtty_say(a, line);
	pend_drop(a, a->shown);
	a->next = (k + 1) % ASK_SESSIONS;
}

/* Session k's end: its questions dropped (its relay is gone, or denies them). */
static void xconn_end(struct asker *a, unsigned int k, const char *why)
{
	struct conn *c = &a->c[k];

	if (a->shown >= 0 && a->p[a->shown].conn == k) {
		xtty_say(a, "-> the session ended\n");
		a->shown = -1;
	}
	for (int i = 0; i < ASK_QUEUE; i++)
		if (a->p[i].used && a->p[i].conn == k)
			pend_drop(a, i);
	close(c->fd);
	c->fd = -1;
	xnote(a, "[%s] ended%s", c->label, why);
	/* With --once or --fd, the session was otoask's whole job. */
	if (a->o->once)
		xend(a, *why ? EXIT_SYS : 0, 0, NULL);
}

/* One line of session k (len bytes, no newline): who asks, or a question. */
static void xline(struct asker *a, unsigned int k, const char *s, size_t len)
{
	struct conn *c = &a->c[k];
	struct ask_session ss;
	struct ask_req q;
	int i;

	c->lines++;
	if (ask_is_session_line(s, len)) {
		if (c->lines > 1)
			xnote(a, "warning: [%s] a session line after its first line: ignored",
			      c->label);
		else if (ask_session_parse(s, len, &ss) < 0)
			xnote(a,
			      "warning: [%s] a session line that does not read: its questions "
			      "are labelled by their session",
			      c->label);
		else {
			ask_session_label(&ss, c->label, sizeof(c->label));
			c->named = 1;
			xnote(a, "[%s] session %.8s began (pid %d)", c->label, ss.id, (int)c->pid);
		}
		return;
	}
	if (ask_req_parse(s, len, &q) < 0) {
		if (!c->garbled++)
			xnote(a,
			      "warning: [%s] a question that does not read: left to the "
			      "relay's timeout",
			      c->label);
		return;
	}
	/* No session line that reads: the session's id is who asks. */
	if (!c->named && q.session[0]) {
		snprintf(c->label, sizeof(c->label), "session %.8s", q.session);
		c->named = 1;
	}
	/* A flood waits its turn: past its share, a session's questions are denied at once. */
	if (c->pending == ASK_PER_SESSION || a->npend == ASK_QUEUE) {
		if (!c->flooded++)
			xnote(a, "[%s] %u questions pending: denying more until they are answered",
			      c->label, c->pending);
		xanswer(a, k, &q, "deny");
		return;
	}
	for (i = 0; a->p[i].used; i++)
		;
	a->p[i] = (struct pend){ .used = 1, .conn = k, .seq = a->seq++, .q = q };
	a->p[i].due = now_ms() + a->o->timeout * 1000;
	a->npend++;
	c->pending++;
}

static void xconn_input(struct asker *a, unsigned int k)
{
	struct conn *c = &a->c[k];
	ssize_t got = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	char *nl;

	if (got < 0 && errno == EINTR)
		return;
	if (got <= 0) {
		xconn_end(a, k, "");
		return;
	}
	c->inlen += (size_t)got;
	while (!c->dead && (nl = memchr(c->in, '\n', c->inlen))) {
		size_t len = (size_t)(nl - c->in);

		xline(a, k, c->in, len);
		memmove(c->in, nl + 1, c->inlen - len - 1);
		c->inlen -= len + 1;
	}
	if (!c->dead && c->inlen == sizeof(c->in))
		xconn_end(a, k, ": a line longer than 1024 bytes");
}

/* A new session on fd, in a free slot: refused when it shares otoask's terminal. */
static void xconn_take(struct asker *a, int fd)
{
	pid_t pid = 0;
	unsigned int k;

	if (peer_on_my_tty(a, fd, &pid))
		xrefuse(a, pid);
	for (k = 0; k < ASK_SESSIONS && a->c[k].fd >= 0; k++)
		;
	if (k == ASK_SESSIONS) {
		xnote(a, "warning: refused the session of pid %d: %d sessions already", (int)pid,
		      ASK_SESSIONS);
		close(fd);
		return;
	}
	a->c[k] = (struct conn){ .fd = fd, .pid = pid };
	snprintf(a->c[k].label, sizeof(a->c[k].label), "pid %d", (int)pid);
	/* --once: one session; nobody else may connect once it has begun. */
	if (a->o->once && a->lfd >= 0) {
		unlink(a->o->listen);
		close(a->lfd);
		a->lfd = -1;
	}
}

static void xaccept(struct asker *a)
{
	int fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
			xend(a, EXIT_SYS, errno, "accept a session");
		return;
	}
	xconn_take(a, fd);
}

static void xtty_input(struct asker *a)
{
	char c;
	const char *d;

	if (read(a->tty, &c, 1) != 1)
		return;
	d = ask_key((unsigned char)c);
	/* A key typed as the question came was meant for the one before. */
	if (d && a->shown >= 0 && now_ms() - a->shown_at >= ASK_KEY_GUARD_MS)
		xdecided(a, d, "");
}

/* The question of the session whose turn it is (its oldest), or -1. */
static int pend_next(const struct asker *a)
{
	for (unsigned int j = 0; j < ASK_SESSIONS; j++) {
		unsigned int k = (a->next + j) % ASK_SESSIONS;
		int best = -1;

		if (a->c[k].fd < 0 || !a->c[k].pending)
			continue;
		for (int i = 0; i < ASK_QUEUE; i++)
			if (a->p[i].used && a->p[i].conn == k &&
			    (best < 0 || a->p[i].seq < a->p[best].seq))
				best = i;
		if (best >= 0)
			return best;
	}
	return -1;
}

/* Questions past their countdown denied; the turn's question on the terminal. */
static void xtick(struct asker *a)
{
	uint64_t t = now_ms();
	char what[400];
	long left;

	for (int i = 0; i < ASK_QUEUE; i++) {
		struct pend *e = &a->p[i];

		if (!e->used || i == a->shown || t < e->due)
			continue;
		ask_req_show(&e->q, what, sizeof(what));
		xnote(a, "[%s] #%u %s: -> deny (no answer in time)", a->c[e->conn].label, e->q.id,
		      what);
		xanswer(a, e->conn, &e->q, "deny");
		pend_drop(a, i);
	}
	if (a->shown >= 0 && t >= a->p[a->shown].due) {
		xdecided(a, "deny", " (no answer in time)");
		t = now_ms();
	}
	if (a->shown < 0) {
		a->shown = pend_next(a);
		if (a->shown < 0)
			return;
		a->shown_at = t;
		a->left = -1;
	}
	left = (long)((a->p[a->shown].due - t + 999) / 1000);
	if (left != a->left)
		xprompt(a, left);
}

static void xsetup(struct asker *a)
{
	struct termios raw;
	sigset_t set;

	a->tty = open(a->o->tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (a->tty < 0 || tcgetattr(a->tty, &a->old) < 0)
		xend(a, EXIT_SYS, errno, "open the terminal");
	if (tty_of(0, &a->tty_nr) < 0)
		xend(a, EXIT_SYS, errno, "read the terminal's number in /proc/self/stat");
	a->save = -1;
	if (a->o->save) {
		a->save = open(a->o->save, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (a->save < 0)
			xend(a, EXIT_SYS, errno, "open --save");
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	a->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (a->sigfd < 0)
		xend(a, EXIT_SYS, errno, "create a signalfd");
	/* One key is an answer, and it is not echoed. */
	raw = a->old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(a->tty, TCSAFLUSH, &raw) < 0)
		xend(a, EXIT_SYS, errno, "set the terminal");
	a->raw = 1;
}

noreturn void xask_serve(const struct otoask_opts *o, int sock)
{
	struct asker *a = &A;

	memset(a, 0, sizeof(*a));
	a->o = o;
	a->shown = -1;
	a->lfd = o->fd >= 0 ? -1 : sock;
	for (unsigned int k = 0; k < ASK_SESSIONS; k++)
		a->c[k].fd = -1;
	xsetup(a);
	if (o->fd >= 0)
		xconn_take(a, sock);
	for (;;) {
		struct pollfd p[3 + ASK_SESSIONS];
		unsigned int at[ASK_SESSIONS], n = 3;

		for (unsigned int k = 0; k < ASK_SESSIONS; k++)
			if (a->c[k].fd >= 0 && a->c[k].dead)
				xconn_end(a, k, ": it does not take its answers");
		xtick(a);
		p[0] = (struct pollfd){ .fd = a->lfd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = a->tty, .events = POLLIN };
		p[2] = (struct pollfd){ .fd = a->sigfd, .events = POLLIN };
		for (unsigned int k = 0; k < ASK_SESSIONS; k++)
			if (a->c[k].fd >= 0) {
				at[n - 3] = k;
				p[n++] = (struct pollfd){ .fd = a->c[k].fd, .events = POLLIN };
			}
		if (poll(p, n, a->npend ? 200 : -1) < 0 && errno != EINTR)
			xend(a, EXIT_SYS, errno, "wait for questions");
		if (p[2].revents) {
			struct signalfd_siginfo si;

			if (read(a->sigfd, &si, sizeof(si)) != sizeof(si))
				si.ssi_signo = SIGTERM;
			xtty_say(a, "\n");
			xend(a, 128 + (int)si.ssi_signo, 0, NULL);
		}
		for (unsigned int j = 3; j < n; j++)
			if (p[j].revents && a->c[at[j - 3]].fd == p[j].fd)
				xconn_input(a, at[j - 3]);
		if (p[0].revents & POLLIN)
			xaccept(a);
		if (p[1].revents & POLLIN)
			xtty_input(a);
	}
}
