/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

/* What the supervisor and pid 1 pass on to the program. */
static const int FORWARDED[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
#define NFORWARDED ARRAY_SIZE(FORWARDED)

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

/* sig, blocked until now, ignored from here on: a blocked signal would be kept. */
static void ignore_signal(int sig)
{
	sigset_t set;

	signal(sig, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
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
 * pid 1: wait for child, forwarding signals to it, and reap every orphan that
 * the kernel reparents to us. Returns the exit code to give: the child's, or
 * 128+N.
 */
static int supervise(pid_t child)
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

		while ((p = waitpid(-1, &status, WNOHANG)) > 0)
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

/* The supervisor's signals, read from a signalfd: SIGCONT too (blocked, it still continues us). */
static int xsignals_fd(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGCONT);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(&set, FORWARDED[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to make a signalfd");
	return fd;
}

/*
 * How the session ends (the close line's "end"), and when its grace runs
 * out: SIGTERM or SIGHUP to the supervisor, the loss of the operator's
 * terminal, the death of otons' parent (--die-with-parent) each pass a
 * signal to pid 1 and start the grace; at its end pid 1 is killed, and the
 * kernel kills everything else in its namespace with it. An agent that
 * ignores SIGTERM (gemini-cli's launcher does) cannot keep a session alive.
 */
struct otons_end {
	enum session_end why;
	long long deadline; /* CLOCK_MONOTONIC ms; -1: no end asked */
	int killed;	    /* the grace ran out: pid 1 was killed */
	unsigned long grace;
	int parent; /* a pidfd of otons' parent (--die-with-parent); -1: none */
};

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The end asked, for why, with sig to pid 1 (0: none); the first reason stays. */
static void end_ask(struct otons_end *e, enum session_end why, pid_t child, int sig)
{
	if (sig)
		kill(child, sig);
	if (e->deadline >= 0)
		return;
	e->why = why;
	e->deadline = mono_ms() + (long long)e->grace * 1000;
}

/* The poll's timeout (ms) until the grace runs out, at most timeout; at its end, pid 1 killed. */
static int end_timeout(struct otons_end *e, pid_t child, int timeout)
{
	long long left;

	if (e->deadline < 0 || e->killed)
		return timeout;
	left = e->deadline - mono_ms();
	if (left <= 0) {
		warnx("the program outlived its %lu s of grace: its pid namespace is killed",
		      e->grace);
		kill(child, SIGKILL);
		e->killed = 1;
		return timeout;
	}
	return timeout < 0 || left < timeout ? (int)left : timeout;
}

/*
 * The operator's terminal hung up (its window closed, its ssh connection
 * lost): the relay (pty.c) could write no more, or read its end and the
 * terminal says POLLHUP (a VEOF typed while it is not raw is no hangup).
 */
static int terminal_gone(const struct otons_pty *pty)
{
	struct pollfd p = { .fd = pty->in };

	if (!pty->term)
		return 0;
	if (pty->out_dead)
		return 1;
	return pty->in_eof && poll(&p, 1, 0) > 0 && (p.revents & POLLHUP);
}

/* The signals that came; the child's exit code once it has ended, else -1. */
static int take_signals(int sfd, pid_t child, struct otons_pty *pty, const struct otons_tty *tty,
			struct otons_end *e)
{
	struct signalfd_siginfo si;
	int status;
	pid_t w;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGCONT)
			otons_pty_cont(pty, tty);
		else if (sig == SIGTERM || sig == SIGHUP)
			end_ask(e, SESSION_END_SIGNAL, child, sig);
		/* With a pty, the kernel signals its foreground group when its size changes. */
		else if (sig != SIGCHLD && !(sig == SIGWINCH && otons_pty_winch(pty, tty)))
			kill(child, sig);
	}
	w = waitpid(child, &status, WNOHANG);
	if (w == child)
		return wait_code(status);
	return w < 0 && errno == ECHILD ? EXIT_SYS : -1;
}

/*
 * The supervisor, outside the sandbox's pid namespace: wait for pid 1,
 * forward signals to it, relay the sandbox's pty (pty.c), end the session
 * when asked (struct otons_end). Returns the code to exit with.
 */
static int supervise_outside(pid_t child, int sfd, struct otons_pty *pty,
			     const struct otons_tty *tty, struct otons_refusals *ref,
			     struct otons_end *e)
{
	struct pollfd pf[11];
	int code = -1;

	while (code < 0) {
		int n, nr, np, timeout;

		pf[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		/* A negative fd is not polled: no parent watched, or gone already. */
		pf[1] = (struct pollfd){ .fd = e->parent, .events = POLLIN };
		/* A timeout while the refusals' budget refills (refusals.c). */
		nr = otons_refusals_fds(ref, pf + 2, &timeout);
		np = otons_pty_fds(pty, pf + 2 + nr);
		n = 2 + nr + np;
		timeout = end_timeout(e, child, timeout);
		if (poll(pf, (nfds_t)n, timeout) < 0) {
			if (errno != EINTR) {
				log_msg(LOG_WARN, errno, "unable to poll");
				usleep(100000);
			}
			continue;
		}
		otons_refusals_events(ref, pf + 2, nr);
		otons_pty_events(pty, tty, pf + 2 + nr, np);
		/* SIGHUP, as the kernel gives a hung-up terminal's foreground group. */
		if (e->deadline < 0 && terminal_gone(pty))
			end_ask(e, SESSION_END_TERMINAL, child, SIGHUP);
		if (e->parent >= 0 && pf[1].revents) {
			close(e->parent);
			e->parent = -1;
			end_ask(e, SESSION_END_PARENT, child, SIGTERM);
		}
		if (pf[0].revents)
			code = take_signals(sfd, child, pty, tty, e);
	}
	return code;
}

/* The program's exec failed: set by its process, which shares pid 1's memory until then. */
static volatile int spawn_errno;

/*
 * pid 1 starts the program by vfork: the child borrows pid 1's memory until
 * its exec, so no page table is copied at a fork and torn down again at the
 * exec (0.65 to 0.8 ms less on the sandbox's way to its program here: issue
 * 21). Not posix_spawn: glibc's (the sanitizer builds) leaves its own two
 * signals ignored in the program. pid 1, suspended meanwhile, goes on once
 * the exec has succeeded; when it failed, pid 1 dies with xexec's message
 * and code. Until the exec the child only sets its own signal dispositions
 * (its table is a copy) and mask, every handler back to the default before
 * a signal can be taken.
 */
static pid_t xspawn_program(char *const argv[])
{
	pid_t pid;

	spawn_errno = 0;
	/* vfork on purpose: the child only resets signals and execs (above). */
	pid = vfork(); /* NOLINT(clang-analyzer-security.insecureAPI.vfork) */
	if (pid == 0) {
		restore_signals(); /* NOLINT(clang-analyzer-unix.Vfork): its own table */
		execvp(argv[0], argv);
		spawn_errno = errno;
		_exit(EXIT_NOTFOUND);
	}
	if (pid < 0)
		die(EXIT_SYS, errno, "unable to fork the program under pid 1");
	if (spawn_errno) {
		int e = spawn_errno;

		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		xexec_fail(argv[0], e, NULL);
	}
	return pid;
}

static pid_t xfork(const char *what)
{
	pid_t p = fork();

	if (p < 0)
		die(EXIT_SYS, errno, "unable to fork %s", what);
	return p;
}

/*
 * The sandbox is the OOM killer's first choice, whatever memory it holds:
 * a memfd the agent writes and never maps, its tmpfs, socket buffers count
 * in no RSS, so without this the killer would pick a host process while the
 * agent keeps them (raising one's own oom_score_adj needs no privilege).
 * Inherited by every process the sandbox forks. Never the supervisor's,
 * otonet's relay's or otogate's: they stay outside and hold next to nothing.
 */
static void xoom_first(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "1000", 4) != 4)
		die(EXIT_SYS, errno,
		    "unable to make the sandbox the OOM killer's first choice (oom_score_adj)");
	close(fd);
}

static void xset_pdeathsig(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "unable to set the parent-death signal");
}

void xotons_run(const struct otons_opts *o, struct otons_cgroup *cg, struct otons_audit *au,
		const struct session *s)
{
	pid_t caller = getppid();
	pid_t init, prog;
	char **argv;
	int alive[2], code, sfd;
	struct pollfd pf;
	struct otons_tty tty;
	struct otons_pty pty;
	struct otons_refusals ref;
	struct otons_end end = { .deadline = -1, .grace = o->grace, .parent = -1 };
	struct otons_appeared ap;

	/*
	 * --die-with-parent: the parent watched through a pidfd, and its death
	 * ends the session as SIGTERM does, with the grace, the record's close
	 * line and the terminal set back (PR_SET_PDEATHSIG would kill the
	 * supervisor at once, and fires on the death of the parent's thread,
	 * not its process). A parent gone before the pidfd was taken
	 * (getppid() changed) ends us here.
	 */
	if (o->die_with_parent) {
		end.parent = (int)syscall(SYS_pidfd_open, caller, 0);
		if (end.parent < 0 && errno != ESRCH)
			die(EXIT_SYS, errno, "unable to watch otons' parent (pidfd_open)");
		if (end.parent < 0 || getppid() != caller)
			_exit(EXIT_SYS);
		/* otonet's child set one (SIGKILL) for us: the pidfd does its job now. */
		prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
	}
	block_signals();

	/* The supervisor holds the write end: its death shows as POLLHUP. */
	if (pipe2(alive, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the supervisor's liveness pipe");
	/* The terminal as the operator had it, before anything inside can change it. */
	otons_tty_save(&tty);
	/* Whether the sandbox gets a pty of its own, and the socket it comes back on. */
	xotons_pty_offer(&pty, o->pty, &tty);
	/* The socket otoexec sends its seccomp listener on (--log-fd). */
	xotons_refusals_offer(&ref, o->log_fd, s->id, au);
	/* The socket otomount sends what it could not protect on (appeared.c). */
	xotons_appeared_offer(&ap, o->argv);
	sfd = xsignals_fd();
	init = xfork("the sandbox's first process");
	if (init > 0) { /* the supervisor, outside the new pid namespace */
		close(alive[0]);
		otons_cgroup_forget(cg);
		otons_pty_parent(&pty);
		otons_refusals_parent(&ref);
		otons_appeared_parent(&ap);
		code = supervise_outside(init, sfd, &pty, &tty, &ref, &end);
		otons_refusals_finish(&ref);
		/* What the program wrote last, before the terminal's modes go back. */
		otons_pty_finish(&pty, &tty);
		/*
		 * What is left in the session's cgroup is killed (with --share
		 * pid, what the program left behind), and the leaf removed,
		 * before the terminal's modes go back: nothing is left to undo it.
		 */
		otons_cgroup_end(cg);
		/*
		 * pid 1 is reaped, and the kernel killed and reaped everything
		 * else in its namespace before: nothing inside is left to undo
		 * this (with --share pid, a process the program left behind
		 * could). The exit code stays the program's, whatever happens.
		 */
		otons_tty_restore(&tty);
		/* What git would follow or run that appeared, to the person's terminal. */
		otons_appeared_finish(&ap, o->log_fd, s->id);
		/* Last: every line of the session is written before its close. */
		session_close(s, o->log_fd, code, end.why, end.killed);
		exit(code);
	}

	/*
	 * pid 1 (or, with --share pid, a plain child) dies with the supervisor.
	 * getppid() is 0 across a pid namespace, so the race with a supervisor
	 * that died before prctl is closed with the pipe instead.
	 */
	/*
	 * Into the session's cgroup first, before anything is forked or
	 * exec'd, and its namespace: the leaf is the root of what it shows.
	 */
	xotons_cgroup_enter(cg, o->unshare_flags & CLONE_NEWCGROUP);
	/* Before anything of the sandbox runs: the rest inherits it. */
	xoom_first();
	close(alive[1]);
	close(sfd);
	if (end.parent >= 0)
		close(end.parent);
	otons_tty_forget(&tty);
	otons_pty_child(&pty);
	otons_refusals_child(&ref);
	otons_appeared_child(&ap);
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
		die(EXIT_SYS, errno, "unable to mount a new /proc for the pid namespace%s",
		    errno == EPERM ? PROC_MASKED_HINT : "");

	/*
	 * pid 1 holds every capability of the sandbox's user namespace,
	 * and the program it waits for may be allowed ptrace (otoexec
	 * --profile dev): not dumpable, pid 1 can be neither traced
	 * nor read through /proc/1/mem, environ or fd by the agent,
	 * whose uid it shares. The program's exec makes it dumpable again.
	 * Both before the program exists, as its command line's wiping.
	 */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	argv = o->argv;
	xinit_wipe(&argv);
	prog = xspawn_program(argv);
	/*
	 * With a pty, the kernel signals the agent's window changes to
	 * the pty's foreground group itself; pid 1, still in the
	 * operator's process group, gets the operator's SIGWINCH too and
	 * must not pass it on: a second one, possibly before the pty
	 * has the new size.
	 */
	if (otons_pty_init(&pty))
		ignore_signal(SIGWINCH);
	/*
	 * Nothing of the host's mounts in /proc/1: a mount namespace of
	 * its own (after the program is spawned, which needs the view's
	 * way to its binary) needs the capabilities of a user namespace
	 * otons made (or root's).
	 */
	xinit_conceal((o->unshare_flags & CLONE_NEWUSER) || geteuid() == 0);
	/* When pid 1 exits, the kernel kills whatever is left in the namespace. */
	_exit(supervise(prog));
}
