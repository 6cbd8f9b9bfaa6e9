/* SPDX-License-Identifier: ISC */
/*
 * otonet: run a program in a new user and network namespace whose only link
 * is a TUN device; stay outside as the relay that turns the sandbox's flows
 * into host sockets, through the filter (public internet yes, private and
 * special-purpose addresses no, exact exceptions by --allow).
 *
 * Consumes (all read by opts.c): argv up to "--"; the --log-fd fd; the
 * --ask-fd socket (the relay's alone); OTO_GATEWAY (otogate's socket and
 * ports: the socket is the relay's alone); OTO_GATE_GO (otogate's go: the
 * child waits for it before the exec); for tests and benchmarks only,
 * documented as such in otonet(1): OTO_TEST_NO_PEEK_OFF,
 * OTO_TEST_RELAY_BADCALL, OTO_TEST_TUN_MTU, OTO_TEST_NAME_TTL_MIN,
 * OTO_TEST_CLOCK_FD. OTO_STATUS_FD (lib: reported to, passed on).
 * Passes on: the rest of argv, exec'd in the new namespaces with a TUN tun0
 * configured and /etc/resolv.conf naming the relay's DNS address; every other
 * inherited fd.
 * Exits: 100 usage, 111 a system call failed, 126/127 exec, else the
 * program's own code or 128+N when it died of signal N.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

static void raise_nofile(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want)
		warnx("at most %llu open files: fewer flows than --max-flows will open",
		      (unsigned long long)rl.rlim_cur);
}

/*
 * The child's waits for a word on a pipe (fd < 0: none to wait for): the
 * word, or it ends with code without a word (the pipe's end: the other
 * side failed and said why), before anything of the sandbox ran.
 */
static void word_wait(int fd, char word, int code)
{
	char c = 0;
	ssize_t n;

	if (fd < 0)
		return;
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != word)
		_exit(code);
	close(fd);
}

/*
 * The filter's word to the child: the relay builds the filter while the
 * child builds the sandbox, and the child goes on to the exec, or says why
 * it failed, only once the filter stands ("f"). A filter that fails ends
 * the relay with its fatal line, and this pipe's end (or the death signal)
 * ends the child without a word: one fatal line, and no agent started by a
 * relay that will not run. Static: die's hook waits too.
 */
static int filter_said = -1;

static void filter_wait(void)
{
	int fd = filter_said;

	filter_said = -1;
	word_wait(fd, 'f', EXIT_SYS);
}

/*
 * With --log-fd, while root: the kernel audit's read-log group for the otons
 * behind, which runs unprivileged and reads Landlock's refusals there
 * (lib/audit_reader.c; this process and all it starts get an audit session
 * of their own). Into env, OTO_AUDIT's value: the fd, or "!" and why there
 * is none; "" when there is nothing to hand on (no log, or not root).
 */
static int audit_take(const struct otonet_opts *o, char *env, size_t size)
{
	const char *why = NULL;
	uid_t uid;
	gid_t gid;
	int fd;

	env[0] = 0;
	if (o->relay.log_fd < 0 || geteuid() != 0 || !o->as || user_lookup(o->as, &uid, &gid) < 0)
		return -1;
	fd = audit_reader_open(uid, &why);
	if (fd < 0)
		snprintf(env, size, "!%s%s%s", why, errno ? ": " : "",
			 errno ? strerror(errno) : "");
	else
		snprintf(env, size, "%d", fd);
	return fd;
}

static void reap_opener(pid_t pid)
{
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* What the start holds from one step to the next. */
struct start {
	struct otonet_opts o;
	struct filter f;
	struct session session;
	sigset_t mask, old;
	int sv[2];	/* the socket pair the child sends the TUN on */
	int said[2];	/* the filter's pipe to the child */
	int opener;	/* the socket to the TUN opener, or -1 */
	int audit;	/* the audit socket for the otons behind, or -1 */
	struct why why; /* the agent's file of its refusals, once otomount sends it */
	char audit_env[256];
	pid_t opener_pid;
};

/*
 * 1. Root never runs the relay: become the --as account first. Run by
 *    root, fork the TUN opener just before (opener.c): /dev/net/tun may
 *    be root's alone, and the device must be opened in the child's
 *    network namespace, which does not exist yet. The opener keeps root
 *    for that one open and nothing else, so the relay gives up root here
 *    as it always did, before it reads the host or the network. Then the
 *    session's id and mark, into the environment the child passes on.
 */
static void xleave_root(struct start *s)
{
	const struct otonet_opts *o = &s->o;

	s->opener = xopener_start(o->as, &s->opener_pid);
	s->audit = audit_take(o, s->audit_env, sizeof(s->audit_env));
	xuser_drop_root(o->as);
	if (o->relay.log_fd >= 0 && fcntl(o->relay.log_fd, F_SETFD, FD_CLOEXEC) < 0)
		die_usage("--log-fd %d: not an open file descriptor", o->relay.log_fd);
	xsession_begin(&s->session, o->relay.log_fd);
}

/*
 * 2. SIGCHLD waits in the relay's signalfd from before the fork; the
 *    signals that end the relay, once the filter stands (4): until then
 *    they end it as they would any program, and its child with it.
 *    --kernel-wall's routes are the filter's: the child needs it first.
 */
static void xchannels(struct start *s)
{
	sigemptyset(&s->mask);
	sigaddset(&s->mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s->mask, &s->old);
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->sv) < 0)
		die(EXIT_SYS, errno, "unable to create the socket pair to the child");
	if (pipe2(s->said, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to create the filter's pipe to the child");
	if (s->o.kernel_wall)
		xotonet_filter_build(&s->o, &s->f, &s->o.relay.resolver);
	/* The agent's file: otomount, behind, sends it on this socket (OTO_WHY_FD). */
	why_init(&s->why, "otonet");
	if (why_offer(&s->why) < 0)
		die(EXIT_SYS, errno, "unable to offer a socket for the agent's file (OTO_WHY_FD)");
	s->o.relay.why = &s->why;
}

/* The child: the sandbox's network built, the filter's word, the gateway's go, the exec. */
static noreturn void xchild(struct start *s)
{
	close(s->sv[0]);
	close(s->said[1]);
	filter_said = s->said[0];
	log_before_die = filter_wait;
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	xsetup_sandbox(&s->o, &s->f, s->sv[1], s->opener);
	filter_wait();
	/* The gateway's go (OTO_GATE_GO): the chain goes on only then. */
	word_wait(s->o.gate_go, 'g', EXIT_REJECT);
	/*
	 * The stage exec'd next has the relay as its parent: otons takes this
	 * as --die-with-parent, so that the relay's death ends the sandbox
	 * (otons(1)).
	 */
	if (setenv("OTO_DIE_WITH_PARENT", "1", 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_DIE_WITH_PARENT");
	if (s->audit_env[0] && (setenv("OTO_AUDIT", s->audit_env, 1) < 0 ||
				(s->audit >= 0 && fd_cloexec(s->audit, 0) < 0)))
		die(EXIT_SYS, errno, "unable to hand the audit socket on (OTO_AUDIT)");
	xexec(s->o.argv);
}

/*
 * 3. The child builds the sandbox's network (asking the opener for the
 *    device where it may not open it), sends the TUN fd, and execs once
 *    the filter stands. What the child leaves behind when it exits comes
 *    to the relay (a subreaper), so that the relay knows, at its end,
 *    whether anything is left in the sandbox (relay.c, xrelay_leave).
 */
static void xchild_start(struct start *s)
{
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die(EXIT_SYS, errno, "unable to become the subreaper of the sandbox's processes");
	pid = fork();
	if (pid < 0)
		die(EXIT_SYS, errno, "unable to fork the child that makes the sandbox");
	if (pid == 0)
		xchild(s);
	close(s->said[0]);
	s->o.relay.child = pid;
}

/*
 * 4. The filter, complete before any flow exists: exception names
 *    resolved and pinned now, the host's addresses and resolver read now,
 *    while the child builds the sandbox. The record opens once nothing is
 *    left to refuse; then the child may go on. What is the child's alone
 *    (the go pipe, the audit socket, the opener's socket) is closed here.
 */
static void xfilter_stand(struct start *s, char **argv)
{
	if (!s->o.kernel_wall)
		xotonet_filter_build(&s->o, &s->f, &s->o.relay.resolver);
	sigaddset(&s->mask, SIGTERM);
	sigaddset(&s->mask, SIGINT);
	sigaddset(&s->mask, SIGHUP);
	sigaddset(&s->mask, SIGQUIT);
	sigaddset(&s->mask, SIGUSR1);
	sigaddset(&s->mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s->mask, NULL);
	session_open(&s->session, s->o.relay.log_fd, "otonet", (const char *const *)argv);
	/* Not there: the child is gone, and fd_recv (6) says so. */
	if (write(s->said[1], "f", 1) != 1)
		debugx("the child did not take the filter's word: %s", strerror(errno));
	close(s->said[1]);
	close(s->sv[1]);
	why_parent(&s->why);
	if (s->o.gate_go >= 0)
		close(s->o.gate_go);
	if (s->audit >= 0)
		close(s->audit);
	/* The child sees the opener's socket close when it is done with it. */
	if (s->opener >= 0)
		close(s->opener);
}

/*
 * 5. While the child builds the sandbox, the relay confines and locks
 *    itself down (lockdown.c), so that neither is on the agent's way: it
 *    holds host sockets for the agent and, from here on, needs no file,
 *    no capability, and nobody may inspect it. Its seccomp filter is in
 *    place before the TUN arrives, so before any packet is read. A host
 *    socket per flow: --max-flows of them, and the relay's own.
 */
static struct relay *xrelay_ready(struct start *s)
{
	int sigfd;

	raise_nofile(s->o.relay.max_flows + 64);
	xrelay_confine();
	sigfd = signalfd(-1, &s->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		die(EXIT_SYS, errno, "unable to create a signalfd");
	s->o.relay.f = &s->f;
	s->o.relay.session = &s->session;
	return xrelay_start(&s->o.relay, sigfd);
}

/*
 * 6. The TUN, once the child has configured it (packets queue there
 *    meanwhile); then the tmpfs that holds the sandbox's resolv.conf,
 *    whose last close (an unmount: an RCU grace period) is the relay's to
 *    wait for, not the sandbox's. No TUN: the child said why on stderr,
 *    and its code is otonet's.
 */
static int xtun_take(struct start *s)
{
	int tun = fd_recv(s->sv[0]), resolv_fs = tun < 0 ? -1 : fd_recv(s->sv[0]), status = 0;

	close(s->sv[0]);
	if (tun < 0) {
		while (waitpid(s->o.relay.child, &status, 0) < 0 && errno == EINTR)
			;
		reap_opener(s->opener_pid);
		session_close(&s->session, s->o.relay.log_fd, wait_code(status), SESSION_END_EXIT,
			      0);
		exit(wait_code(status));
	}
	/*
	 * The child is past the TUN and has closed the opener's socket: the
	 * opener has answered or had nothing to do, and has nothing left but
	 * its exit. Reaped here: the relay starts with the child as its only child.
	 */
	reap_opener(s->opener_pid);
	if (resolv_fs >= 0)
		close(resolv_fs);
	return tun;
}

int main(int argc, char **argv)
{
	static struct start s;
	struct relay *relay;

	log_init(argv[0]);
	/* 0. The options: argv, then OTO_GATEWAY, OTO_GATE_GO, OTO_TEST_* (opts.c). */
	xotonet_parse(&s.o, argc, argv);

	/* 1. The TUN opener forked (run by root), then root left; the session begun. */
	xleave_root(&s);

	/* 2. SIGCHLD blocked, the channels to the child; --kernel-wall's filter. */
	xchannels(&s);

	/* 3. The child builds the sandbox's network, and execs once the filter stands. */
	xchild_start(&s);

	/* 4. The filter, complete before any flow exists; the child's word. */
	xfilter_stand(&s, argv);

	/* 5. The relay confined and locked down, before any packet is read. */
	relay = xrelay_ready(&s);

	/* 6. The TUN, once the child configured it; 7. relay until the child exits. */
	xrelay_run(relay, xtun_take(&s));
}
