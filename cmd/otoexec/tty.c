/* SPDX-License-Identifier: ISC */
/*
 * The agent's terminal: a pty made here, its master sent to otons'
 * supervisor, its slave the agent's controlling terminal and stdio.
 *
 * otons offers it (OTO_PTY="SOCK:FDS", otons(1)) when it has a terminal; its
 * supervisor, outside the sandbox, then relays between the master and the
 * operator's terminal, so that the agent never holds a descriptor of the
 * operator's own. Why here, in otoexec:
 * - The slave must be a node of the devpts the agent sees, or `tty` says "not
 *   a tty" and ttyname() fails: that is the view's own instance, which exists
 *   only after otomount; /dev/ptmx here is that instance's (or, without
 *   otomount, the host's, whose /dev/pts the agent then sees).
 * - A controlling terminal belongs to a session, and a session to the process
 *   that execs the agent: the last stage, which already decides whether the
 *   agent gets a session of its own (--new-session).
 * - Before everything else here: the socket is an inherited fd that the next
 *   step would close, /dev/ptmx is opened before Landlock restricts paths, and
 *   while the ids are still the ones the view's devpts belongs to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "oto.h"
#include "otoexec.h"

/*
 * The operator's modes and window size for the new pty, so that the agent
 * starts where the operator's terminal is (erase key, UTF-8, size): from the
 * terminal otons found on the stdio fds, else from the controlling terminal.
 * Nothing to copy (--pty without a terminal): the kernel's defaults.
 */
static void xcopy_terminal(unsigned int stdio, int slave)
{
	struct termios tio;
	struct winsize ws;
	int fd = -1, opened = 0;

	for (int i = 0; i <= 2 && fd < 0; i++)
		if ((stdio & (1U << i)) && isatty(i))
			fd = i;
	if (fd < 0) {
		fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		opened = fd >= 0;
	}
	if (fd < 0)
		return;
	if (tcgetattr(fd, &tio) == 0 && tcsetattr(slave, TCSANOW, &tio) < 0)
		die(EXIT_SYS, errno, "unable to set the modes of the agent's pty");
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ioctl(slave, TIOCSWINSZ, &ws) < 0)
		die(EXIT_SYS, errno, "unable to set the window size of the agent's pty");
	if (opened)
		close(fd);
}

int xsb_pty(void)
{
	const char *v = getenv("OTO_PTY");
	unsigned int stdio;
	struct stat st;
	int sock, master, slave;

	if (!v)
		return 0;
	if (ptyenv_parse(v, &sock, &stdio) < 0)
		die_usage("OTO_PTY=%s: not SOCK:FDS (otons sets it)", v);
	unsetenv("OTO_PTY");
	if (fstat(sock, &st) < 0)
		die(EXIT_SYS, errno, "OTO_PTY: fd %d", sock);
	if (!S_ISSOCK(st.st_mode))
		die(EXIT_SYS, ENOTSOCK, "OTO_PTY: fd %d", sock);
	/* TIOCGPTPEER: the slave of this master, not whatever a path names. */
	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || unlockpt(master) < 0)
		die(EXIT_SYS, errno, "unable to make a pty for the agent (/dev/ptmx)");
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		die(EXIT_SYS, errno, "unable to open the slave of the agent's pty");
	xcopy_terminal(stdio, slave);
	/*
	 * The master goes before the slave takes the stdio fds: a failure from
	 * here on is written to the pty, which otons then relays.
	 */
	if (fd_send(sock, master, 0) < 0)
		die(EXIT_SYS, errno, "unable to send the pty's master to otons");
	close(master);
	close(sock);
	/*
	 * A new session, the pty its controlling terminal: ^C and ^Z typed by the
	 * operator become the pty's signals to the agent's foreground job, and
	 * /dev/tty is the pty, never the operator's terminal.
	 */
	if (setsid() < 0)
		die(EXIT_SYS, errno, "unable to start a new session");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		die(EXIT_SYS, errno, "unable to make the pty the controlling terminal");
	for (int i = 0; i <= 2; i++)
		if ((stdio & (1U << i)) && dup2(slave, i) < 0)
			die(EXIT_SYS, errno, "unable to put the pty on fd %d", i);
	if (slave > 2)
		close(slave);
	return 1;
}

int xsb_refusals(void)
{
	const char *v = getenv("OTO_REFUSALS");
	unsigned long fd;
	struct stat st;

	if (!v)
		return -1;
	if (opt_ulong(v, 65535, &fd) < 0 || fd < 3)
		die_usage("OTO_REFUSALS=%s: not a socket's fd (otons --log-fd sets it)", v);
	unsetenv("OTO_REFUSALS");
	if (fstat((int)fd, &st) < 0)
		die(EXIT_SYS, errno, "OTO_REFUSALS: fd %lu", fd);
	if (!S_ISSOCK(st.st_mode))
		die(EXIT_SYS, ENOTSOCK, "OTO_REFUSALS: fd %lu", fd);
	/* Never the agent's: closed once the listener is sent, or at the exec. */
	if (fd_cloexec((int)fd, 1) < 0)
		die(EXIT_SYS, errno, "OTO_REFUSALS: fd %lu", fd);
	return (int)fd;
}
