/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

/* What the supervisor and pid 1 pass on to the program. */
static const int FORWARDED[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
#define NFORWARDED (sizeof(FORWARDED) / sizeof(FORWARDED[0]))

static sigset_t saved_mask;

static void on_signal(int sig)
{
	(void)sig; /* never runs: the signals stay blocked and are taken by sigwaitinfo */
}

static void block_signals(void)
{
	sigset_t set;
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < NFORWARDED; i++) {
		sigaddset(&set, FORWARDED[i]);
		/*
		 * pid 1 of a pid namespace drops every signal it has no handler for,
		 * even a blocked one sent from outside: install one.
		 */
		sigaction(FORWARDED[i], &sa, NULL);
	}
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, &saved_mask);
}

static void restore_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(FORWARDED[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

/*
 * Wait for child, forwarding signals to it; when reap_all, also reap every
 * orphan that the kernel reparents to us (we are pid 1). Returns the exit
 * code to give: the child's, or 128+N.
 */
static int supervise(pid_t child, int reap_all)
{
	sigset_t set;
	siginfo_t si;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(&set, FORWARDED[i]);
	for (;;) {
		pid_t p;

		while ((p = waitpid(reap_all ? -1 : child, &status, WNOHANG)) > 0)
			if (p == child)
				return wait_code(status);
		if (p < 0 && errno == ECHILD)
			return EXIT_SYS;
		if (sigwaitinfo(&set, &si) < 0)
			continue;
		if (si.si_signo != SIGCHLD)
			kill(child, si.si_signo);
	}
}

static pid_t xfork(const char *what)
{
	pid_t p = fork();

	if (p < 0)
		die(EXIT_SYS, errno, "unable to fork %s", what);
	return p;
}

static void xset_pdeathsig(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "unable to set the parent-death signal");
}

void xotons_run(const struct otons_opts *o)
{
	pid_t caller = getppid();
	pid_t init, prog;
	int alive[2], code;
	struct pollfd pf;
	struct otons_tty tty;

	if (o->die_with_parent) {
		xset_pdeathsig();
		/* The caller may have died before prctl: then nobody would signal us. */
		if (getppid() != caller)
			_exit(EXIT_SYS);
	}
	block_signals();

	/* The supervisor holds the write end: its death shows as POLLHUP. */
	if (pipe2(alive, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the supervisor's liveness pipe");
	/* The terminal as the operator had it, before anything inside can change it. */
	otons_tty_save(&tty);
	init = xfork("the sandbox's first process");
	if (init > 0) { /* the supervisor, outside the new pid namespace */
		close(alive[0]);
		code = supervise(init, 0);
		/*
		 * pid 1 is reaped, and the kernel killed and reaped everything
		 * else in its namespace before: nothing inside is left to undo
		 * this (with --share pid, a process the program left behind
		 * could). The exit code stays the program's, whatever happens.
		 */
		otons_tty_restore(&tty);
		exit(code);
	}

	/*
	 * pid 1 (or, with --share pid, a plain child) dies with the supervisor.
	 * getppid() is 0 across a pid namespace, so the race with a supervisor
	 * that died before prctl is closed with the pipe instead.
	 */
	close(alive[1]);
	otons_tty_forget(&tty);
	xset_pdeathsig();
	pf = (struct pollfd){ .fd = alive[0], .events = POLLIN };
	if (poll(&pf, 1, 0) > 0 && (pf.revents & POLLHUP))
		_exit(EXIT_SYS);
	close(alive[0]);
	if (!(o->unshare_flags & CLONE_NEWPID)) {
		restore_signals();
		return;
	}
	if (o->mount_proc && (o->unshare_flags & CLONE_NEWNS) &&
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die(EXIT_SYS, errno, "unable to mount a new /proc for the pid namespace");

	prog = xfork("the program under pid 1");
	if (prog > 0) {
		/*
		 * pid 1 holds every capability of the sandbox's user namespace,
		 * and the program it waits for may be allowed ptrace (otoexec
		 * --profile dev): not dumpable, pid 1 can be neither traced
		 * nor read through /proc/1/mem, environ or fd by the agent,
		 * whose uid it shares. The program's exec makes it dumpable again.
		 */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		/* When pid 1 exits, the kernel kills whatever is left in the namespace. */
		_exit(supervise(prog, 1));
	}
	restore_signals();
}
