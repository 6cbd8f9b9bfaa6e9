/* SPDX-License-Identifier: ISC */
/*
 * The operator's terminal, given back as the sandbox found it.
 *
 * Without a pty of its own (pty.c), the program shares the terminal otons
 * was started on, and may leave it raw and without echo, with its output
 * suspended, or with a process group of its own in the foreground: the
 * operator's shell would then be unusable, or never get the terminal back.
 * With one, the supervisor itself makes the terminal raw while it relays. The supervisor notes the
 * terminal's state before the sandbox starts and restores it once the sandbox is gone (pid 1 has
 * been reaped: with a new pid namespace, nothing of the sandbox is left to change it again).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

/*
 * The terminal: the first of stdin, stdout and stderr that is one; else the
 * controlling terminal, which the program can still open as /dev/tty (it is
 * in otomount's /dev) with all three redirected.
 */
static int tty_find(int *opened)
{
	int fd;

	*opened = 0;
	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd))
			return fd;
	/* O_NONBLOCK: a serial line without carrier would block the open. */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		*opened = 1;
	return fd;
}

void otons_tty_save(struct otons_tty *t)
{
	t->fd = tty_find(&t->opened);
	if (t->fd < 0)
		return;
	if (tcgetattr(t->fd, &t->attr) < 0) {
		/* Not a terminal after all (isatty raced a hangup): nothing to keep. */
		otons_tty_forget(t);
		return;
	}
	/* Fails (ENOTTY) unless this is our controlling terminal: no job control then. */
	t->pgrp = tcgetpgrp(t->fd);
	if (t->pgrp <= 0)
		t->pgrp = -1;
	debugx("terminal on fd %d, foreground process group %d", t->fd, (int)t->pgrp);
}

void otons_tty_forget(struct otons_tty *t)
{
	if (t->opened)
		close(t->fd);
	t->fd = -1;
	t->opened = 0;
}

/* No process left in group pgrp (it was the sandbox's, which is gone). */
static int pgrp_empty(pid_t pgrp)
{
	return kill(-pgrp, 0) < 0 && errno == ESRCH;
}

void otons_tty_restore(const struct otons_tty *t)
{
	sigset_t ttou, saved;
	pid_t fg = -1;
	/*
	 * Warnings wait until the end: stderr may be this terminal, with its
	 * output still suspended, and a write there would block us for ever.
	 */
	const char *failed = NULL;
	int err = 0;

	if (t->fd < 0)
		return;
	/*
	 * While the sandbox had the foreground, we are a background process:
	 * tcsetpgrp and tcsetattr would stop us with SIGTTOU (or fail with EIO
	 * in an orphaned group). The kernel lets them through when SIGTTOU is
	 * blocked, and then sends nothing: no signal is left pending.
	 */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &saved);
	if (t->pgrp > 0) {
		/*
		 * The foreground goes back to the group that had it at start only
		 * when the one holding it now is empty: the sandbox's. A live one
		 * was put there by the operator's shell (otons sent to the
		 * background with ^Z and bg, another job brought forward), and
		 * taking it from that shell would be our own version of the bug.
		 * The kernel refuses a group that is gone or in another session.
		 */
		fg = tcgetpgrp(t->fd);
		if (fg < 0) {
			failed = "read the terminal's foreground process group";
			err = errno;
		} else if (fg != t->pgrp && (fg == 0 || pgrp_empty(fg))) {
			if (tcsetpgrp(t->fd, t->pgrp) < 0) {
				failed = "give the terminal back to the process group it had";
				err = errno;
			}
			fg = tcgetpgrp(t->fd);
		}
	}
	/*
	 * The modes are ours to restore only while our own group holds the
	 * foreground (or on a terminal that is not our controlling terminal):
	 * otherwise the shell in the foreground owns them (readline switches
	 * them per line) and restores them itself.
	 *
	 * TCSANOW, not TCSADRAIN: draining waits until the output queued so far
	 * has been sent, and output the program suspended (tcflow TCOOFF, an
	 * XOFF) or a line nobody reads would hold us there for ever, the exit
	 * status with us. Nor TCSAFLUSH, which would throw away what the
	 * operator typed ahead.
	 */
	if (!failed && (t->pgrp <= 0 || fg == getpgrp())) {
		/* Output suspended with tcflow(TCOOFF) stays so until TCOON. */
		if (tcflow(t->fd, TCOON) < 0) {
			failed = "resume the terminal's output";
			err = errno;
		} else if (tcsetattr(t->fd, TCSANOW, &t->attr) < 0) {
			failed = "restore the terminal's modes";
			err = errno;
		}
	}
	/* One line; the exit status stays the program's. */
	if (failed)
		log_msg(LOG_WARN, err, "unable to %s", failed);
	sigprocmask(SIG_SETMASK, &saved, NULL);
}

int otons_tty_foreground(const struct otons_tty *t)
{
	/* Not our controlling terminal: no job control, nobody to take it from. */
	return t->pgrp <= 0 || tcgetpgrp(t->fd) == getpgrp();
}

/*
 * While the sandbox has a pty of its own, the operator's terminal passes every
 * byte through: the line discipline (echo, line editing, ^C and ^Z turned into
 * signals, \n to \r\n) is the pty's, set by the agent's programs. Like ssh's
 * raw mode: the line's own settings (speed, parity, size) are left alone.
 * The modes saved at start are what otons_tty_restore sets back.
 */
int otons_tty_raw(const struct otons_tty *t)
{
	struct termios r = t->attr;

	r.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
				 IXANY | IXOFF);
	r.c_lflag &= ~(tcflag_t)(ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHONL | IEXTEN);
	r.c_oflag &= ~(tcflag_t)OPOST;
	r.c_cc[VMIN] = 1;
	r.c_cc[VTIME] = 0;
	/* TCSANOW: nothing the sandbox wrote can hold us here (see otons_tty_restore). */
	return tcsetattr(t->fd, TCSANOW, &r);
}
