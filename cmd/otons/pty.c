/* SPDX-License-Identifier: ISC */
/*
 * The sandbox's own terminal: a pty whose slave lives in the sandbox's devpts,
 * relayed by the supervisor to the operator's terminal.
 *
 * Why: a program that shares the operator's terminal holds a descriptor of
 * it. It can read the operator's keys after the sandbox ends (a process left
 * in the background), change its modes, and, where TIOCSTI is allowed, type
 * into the operator's shell. And inside otomount's view the operator's
 * /dev/pts/N does not exist (the view has a devpts of its own): `tty` says
 * "not a tty", ttyname() fails. With a pty of its own, the agent holds only
 * the slave; the supervisor, outside the sandbox's pid namespace, holds the
 * master and copies bytes: keys from the operator's terminal to the master,
 * the pty's output to the operator's terminal. Nothing else crosses. The
 * output goes through a filter (ttyfilter.c): what would act beyond drawing
 * (the clipboard, a title report the terminal answers by typing the
 * agent's text) never reaches the operator's terminal.
 *
 * Who does what:
 * - otons (here) decides, before the fork, whether there is to be a pty: when
 *   it has a terminal (the first of stdin, stdout, stderr that is one, or its
 *   controlling terminal: tty.c), or always with --pty, never with --no-pty.
 *   It makes a socket pair and hands one end to the sandbox, named with which
 *   fds the slave is to replace in OTO_PTY (lib/ptyenv.c).
 * - The slave must be a node of the devpts the agent sees (otomount mounts a
 *   new instance), so the pty can only be made in the sandbox, after the view
 *   exists, by the process that becomes the agent: otoexec (its tty.c) opens
 *   /dev/ptmx there, sends the master here (SCM_RIGHTS, one fd, once), makes
 *   the slave its controlling terminal in a new session and its stdio.
 *   Without otomount, /dev/ptmx is the host's, and so is the devpts of the
 *   pty: the agent sees the host's /dev/pts there anyway. Without otoexec in
 *   the chain, nothing takes the socket: the program then shares the
 *   operator's terminal as it would with --no-pty (and inherits the socket).
 * - The supervisor (supervise.c, with the functions below) relays.
 *
 * The supervisor reads from the sandbox only the pty's output, and one
 * message on the socket: a sender (otoexec, or whatever holds the socket
 * without otoexec) gets to give one fd, which must be a pty master, and is
 * then cut off. Every fd on our side is polled and non-blocking where it is
 * ours alone; each direction holds at most OTONS_RELAY_BUF bytes, and nothing
 * is read while they wait: a program that writes faster than the operator's
 * terminal takes blocks in its own write, not us in ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

/* The most written out once the sandbox has ended (a pty holds far less). */
#define FLUSH_MAX (1UL << 20)
/* How long the operator's side may take to accept what is left, each time. */
#define FLUSH_WAIT_MS 2000
/* One write at most: on a blocking fd, what poll's POLLOUT promises room for. */
#define WRITE_MAX 4096
/*
 * How long the terminal has to answer otons' question at the end. A
 * terminal answers in a round trip (about a millisecond here, more over
 * ssh); one that never answers (a program reading a pty) costs this once.
 */
#define DRAIN_MS 300
/* One read of the agent's output at most: what the filter makes of it fits the buffer. */
#define READ_MAX 4096
_Static_assert(TTYF_OUT_MAX(READ_MAX) <= OTONS_RELAY_BUF, "the filter's output fits to_out");

/*
 * A file description of the operator's terminal of our own, non-blocking:
 * O_NONBLOCK on the one we inherited would be the operator's shell's too (it
 * shares it), and it could then fail with EAGAIN, during the session or after
 * a crash of ours. Through /proc/self/fd, or /dev/tty when the terminal is
 * our controlling one (that open checks no mode: it works after --as). -1:
 * neither worked, the shared one is used (blocking, written after POLLOUT,
 * at most WRITE_MAX at a time).
 */
static int tty_reopen(const struct otons_tty *t)
{
	struct stat a, b;
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", t->fd);
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && t->pgrp > 0)
		fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &a) < 0 || fstat(t->fd, &b) < 0 || a.st_rdev != b.st_rdev) {
		close(fd);
		return -1;
	}
	return fd;
}

void xotons_pty_offer(struct otons_pty *p, enum otons_pty_mode mode, const struct otons_tty *t)
{
	char val[32];
	int sv[2];

	*p = (struct otons_pty){ .sock = -1, .child_sock = -1, .master = -1, .in = -1, .out = -1 };
	ttyf_init(&p->filter);
	if (mode == OTONS_PTY_OFF || (mode == OTONS_PTY_AUTO && t->fd < 0))
		return;
	if (t->fd >= 0) {
		/* The slave stands in for the terminal wherever the program had it. */
		for (int fd = 0; fd <= 2; fd++)
			if (isatty(fd))
				p->stdio |= 1U << fd;
		p->term = 1;
		/* tty.c's /dev/tty is already ours alone, and non-blocking. */
		p->in = t->opened ? -1 : tty_reopen(t);
		p->own_io = p->in >= 0;
		if (p->in < 0)
			p->in = t->fd;
		p->out = p->in;
	} else {
		/* --pty without a terminal: the pty is the program's stdio, relayed to ours. */
		p->stdio = 7;
		p->in = 0;
		p->out = 1;
	}
	/*
	 * SEQPACKET: one message is one message. The sandbox's end stays open
	 * across exec (it is for a later stage); ours is non-blocking, so that a
	 * sender can never hold us in recvmsg.
	 */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0 || fd_cloexec(sv[1], 0) < 0)
		die(EXIT_SYS, errno, "unable to make the socket for the sandbox's pty");
	p->sock = sv[0];
	p->child_sock = sv[1];
	if (!ptyenv_format(val, sizeof(val), sv[1], p->stdio) || setenv("OTO_PTY", val, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_PTY");
	debugx("a pty offered to the sandbox: OTO_PTY=%s", val);
}

void otons_pty_parent(struct otons_pty *p)
{
	if (p->child_sock >= 0)
		close(p->child_sock);
	p->child_sock = -1;
}

void otons_pty_child(struct otons_pty *p)
{
	if (p->sock >= 0)
		close(p->sock);
	if (p->own_io)
		close(p->in);
	p->sock = p->in = p->out = -1;
	p->own_io = 0;
}

int otons_pty_init(struct otons_pty *p)
{
	int null;

	if (p->child_sock < 0)
		return 0;
	/* Only the program's end may keep the socket open: its EOF means "no pty". */
	close(p->child_sock);
	p->child_sock = -1;
	/*
	 * pid 1 is in the sandbox's pid namespace: it keeps no descriptor of the
	 * operator's terminal either (it never writes to it from here on).
	 */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd <= 2; fd++)
		if (p->stdio & (1U << fd) && (null < 0 || dup2(null, fd) < 0))
			close(fd);
	if (null > 2)
		close(null);
	return 1;
}

/* A pty master, and nothing else: the multiplexer's device, with a pty number. */
static int is_master(int fd)
{
	struct stat st;
	unsigned int n;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
	       minor(st.st_rdev) == 2 && ioctl(fd, TIOCGPTN, &n) == 0;
}

int otons_pty_winch(struct otons_pty *p, const struct otons_tty *t)
{
	struct winsize ws;

	if (p->master < 0)
		return 0;
	/* The kernel sends SIGWINCH to the pty's foreground group when it changes. */
	if (p->term && ioctl(t->fd, TIOCGWINSZ, &ws) == 0)
		ioctl(p->master, TIOCSWINSZ, &ws);
	return 1;
}

/*
 * Keys go to the pty only while our process group has the operator's
 * terminal: read in the background, it would stop us (SIGTTIN); raw modes
 * set there would be the foreground job's. Run when the master comes and
 * after every SIGCONT (fg sends one; the shell may have set its own modes
 * while we were stopped).
 */
void otons_pty_cont(struct otons_pty *p, const struct otons_tty *t)
{
	if (p->master < 0)
		return;
	/* --pty without a terminal: stdin is read from the start, whoever has the foreground. */
	if (!p->term) {
		p->reading = 1;
		return;
	}
	p->reading = otons_tty_foreground(t);
	if (p->reading && otons_tty_raw(t) < 0)
		log_msg(LOG_DEBUG, errno, "unable to set the terminal raw");
	otons_pty_winch(p, t);
}

/* The one message on the socket; the socket is closed after it, whatever it was. */
static void take_master(struct otons_pty *p, const struct otons_tty *t)
{
	int fd = fd_recv(p->sock);

	if (fd < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close(p->sock);
	p->sock = -1;
	if (fd < 0) {
		/* ENOMSG: closed without a word (no stage took it, or it failed). */
		if (errno != ENOMSG)
			log_msg(LOG_WARN, errno, "no pty for the sandbox");
		return;
	}
	/*
	 * Flags exactly O_NONBLOCK: O_ASYNC and the like, set by the sender,
	 * go. Packet mode off: a read then returns only what the program wrote.
	 */
	if (!is_master(fd) || fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ||
	    ioctl(fd, TIOCPKT, &(int){ 0 }) < 0) {
		warnx("no pty for the sandbox: the fd sent is not a pty master");
		close(fd);
		return;
	}
	p->master = fd;
	debugx("pty master received");
	otons_pty_cont(p, t);
}

static int out_write(struct otons_pty *p)
{
	struct otons_buf *b = &p->to_out;
	size_t n = b->len > WRITE_MAX ? WRITE_MAX : b->len;
	ssize_t w = write(p->out, b->b + b->off, n);

	if (w > 0) {
		b->off += (size_t)w;
		b->len -= (size_t)w;
		return 0;
	}
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	/* The operator's side is gone (a hangup): what comes is dropped from now on. */
	p->out_dead = 1;
	b->len = 0;
	return -1;
}

/*
 * The agent's output, through the filter (ttyfilter.c): what reaches the
 * operator's terminal is drawing, never what acts beyond it. Returns how
 * many bytes were read (the filter may have kept none of them).
 */
static ssize_t master_read(struct otons_pty *p)
{
	struct otons_buf *b = &p->to_out;
	unsigned char raw[READ_MAX];
	ssize_t r = read(p->master, raw, sizeof(raw));

	if (r > 0) {
		b->off = 0;
		b->len = p->out_dead ? 0 : ttyf_run(&p->filter, raw, (size_t)r, b->b);
	} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
		/* EIO: no process holds the slave any more. */
		p->master_hup = 1;
	}
	return r;
}

static void master_write(struct otons_pty *p)
{
	struct otons_buf *b = &p->to_master;
	ssize_t w = write(p->master, b->b + b->off, b->len);

	if (w > 0) {
		b->off += (size_t)w;
		b->len -= (size_t)w;
	} else if (w == 0 || (errno != EAGAIN && errno != EINTR)) {
		p->master_hup = 1;
		b->len = 0;
	}
}

static void in_read(struct otons_pty *p, short revents)
{
	struct otons_buf *b = &p->to_master;
	ssize_t r = read(p->in, b->b, sizeof(b->b));
	struct termios m;

	if (r > 0) {
		b->off = 0;
		b->len = (size_t)r;
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR) && !(revents & (POLLHUP | POLLERR)))
		return;
	p->in_eof = 1;
	/*
	 * Relaying stdin (--pty without a terminal), its end is the end of the
	 * program's input: what a user types for it, VEOF, while the pty's line
	 * discipline is canonical (raw, a program has its own way to end).
	 */
	if (!p->term && tcgetattr(p->master, &m) == 0 && (m.c_lflag & ICANON)) {
		b->off = 0;
		b->b[0] = (char)m.c_cc[VEOF];
		b->len = 1;
	}
}

int otons_pty_fds(const struct otons_pty *p, struct pollfd *pf)
{
	int n = 0;
	short ev = 0;

	if (p->sock >= 0)
		pf[n++] = (struct pollfd){ .fd = p->sock, .events = POLLIN };
	if (p->master < 0)
		return n;
	/*
	 * An fd is polled only for what we can take now: a hung-up master or
	 * terminal reports POLLHUP whatever is asked, and polled while its
	 * buffer waits, it would wake us for ever.
	 */
	if (!p->master_hup) {
		if (!p->to_out.len)
			ev |= POLLIN;
		if (p->to_master.len)
			ev |= POLLOUT;
	}
	if (ev)
		pf[n++] = (struct pollfd){ .fd = p->master, .events = ev };
	if (p->reading && !p->in_eof && !p->master_hup && !p->to_master.len)
		pf[n++] = (struct pollfd){ .fd = p->in, .events = POLLIN };
	if (p->to_out.len && !p->out_dead)
		pf[n++] = (struct pollfd){ .fd = p->out, .events = POLLOUT };
	return n;
}

void otons_pty_events(struct otons_pty *p, const struct otons_tty *t, const struct pollfd *pf,
		      int n)
{
	for (int i = 0; i < n; i++) {
		if (!pf[i].revents)
			continue;
		if (pf[i].fd == p->sock && p->sock >= 0) {
			take_master(p, t);
		} else if (pf[i].fd == p->master && p->master >= 0) {
			if (pf[i].revents & POLLOUT)
				master_write(p);
			if (pf[i].events & POLLIN)
				master_read(p);
			else if (pf[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				p->master_hup = 1;
		} else if (pf[i].events & POLLOUT) {
			if (out_write(p) < 0 && pf[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				p->out_dead = 1;
				p->to_out.len = 0;
			}
		} else {
			in_read(p, pf[i].revents);
		}
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * What the terminal types for the agent after the agent has gone (its
 * answers to the agent's last questions: a cursor position, a colour) would
 * be the operator's shell's input. The terminal answers in order, so
 * everything it still owes the agent comes before its answer to a question
 * of ours (TTYF_SENTINEL, which the filter never lets the agent ask): read
 * and thrown away up to it, DRAIN_MS at most. What the operator typed
 * meanwhile goes with it. When no answer came, what did come is thrown
 * away with what the kernel holds (TCIFLUSH).
 */
static void drain(struct otons_pty *p, const struct otons_tty *t)
{
	long long end = now_ms() + DRAIN_MS;
	unsigned int st = 0;
	char buf[256];

	for (;;) {
		long long left = end - now_ms();
		struct pollfd pf = { .fd = p->in, .events = POLLIN };
		ssize_t r;

		if (left <= 0 || poll(&pf, 1, (int)left) <= 0)
			break;
		r = read(p->in, buf, sizeof(buf));
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			return;
		if (ttyf_answer(&st, buf, (size_t)r))
			return;
	}
	tcflush(t->fd, TCIFLUSH);
}

/*
 * The terminal is the operator's again: what the agent set on it (ttyf_reset:
 * attributes, the mouse, the alternate screen, bracketed paste...) is undone,
 * and its answers still owed to the agent are drained. Nothing to do when
 * nothing but text reached it: the agent asked it nothing either. Only
 * while we hold the foreground: in the background, a read would stop us.
 */
static void give_back(struct otons_pty *p, const struct otons_tty *t)
{
	struct otons_buf *b = &p->to_out;
	struct pollfd pf;
	int ask;

	if (!p->term || p->out_dead || b->len)
		return;
	b->off = 0;
	b->len = ttyf_reset(&p->filter, b->b, TTYF_RESET_MAX);
	if (!b->len)
		return;
	ask = p->reading && !p->in_eof && otons_tty_foreground(t);
	if (ask) {
		memcpy(b->b + b->len, TTYF_SENTINEL, strlen(TTYF_SENTINEL));
		b->len += strlen(TTYF_SENTINEL);
	}
	while (b->len && !p->out_dead) {
		pf = (struct pollfd){ .fd = p->out, .events = POLLOUT };
		if (poll(&pf, 1, FLUSH_WAIT_MS) <= 0)
			return;
		out_write(p);
	}
	if (ask && !p->out_dead)
		drain(p, t);
}

void otons_pty_finish(struct otons_pty *p, const struct otons_tty *t)
{
	struct pollfd pf;
	size_t total = 0;
	ssize_t r;

	/* The program may have ended before we took the master it sent. */
	if (p->sock >= 0)
		take_master(p, t);
	if (p->sock >= 0)
		close(p->sock);
	p->sock = -1;
	if (p->master < 0)
		return;
	/*
	 * What the sandbox wrote last is still in the pty (nobody holds the
	 * slave now, so nothing more comes, except from what --share pid left
	 * running: FLUSH_MAX bounds that). A read flushes the kernel's queue
	 * before it says there is nothing (EAGAIN) or no writer is left (EIO).
	 */
	while (!p->out_dead) {
		if (p->to_out.len) {
			pf = (struct pollfd){ .fd = p->out, .events = POLLOUT };
			if (poll(&pf, 1, FLUSH_WAIT_MS) <= 0)
				break;
			out_write(p);
			continue;
		}
		if (p->master_hup || total >= FLUSH_MAX)
			break;
		r = master_read(p);
		if (r <= 0)
			break;
		total += (size_t)r;
	}
	give_back(p, t);
	close(p->master);
	p->master = -1;
	if (p->own_io)
		close(p->in);
}
