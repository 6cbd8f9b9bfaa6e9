/* SPDX-License-Identifier: ISC */
/*
 * otonet: run a program in a new user and network namespace whose only link
 * is a TUN device; stay outside as the relay that turns the sandbox's flows
 * into host sockets, through the filter (public internet yes, private and
 * special-purpose addresses no, exact exceptions by --allow).
 *
 * Consumes: argv up to "--"; the --log-fd fd; the --ask-fd socket (the
 * relay's alone); OTO_GATEWAY (otogate's socket
 * and ports: the socket is the relay's alone); OTO_GATE_GO (otogate's go:
 * the child waits for it before the exec); OTO_STATUS_FD (reported to,
 * passed on); for tests and benchmarks only, documented as such in otonet(1):
 * OTO_TEST_NO_PEEK_OFF, OTO_TEST_RELAY_BADCALL,
 * OTO_TEST_TUN_MTU.
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
 * OTO_GATEWAY, from otogate: the socket the relay hands the gateway's flows
 * on, and the ports it serves. Consumed: no later stage sees it, and the
 * socket closes at the child's exec.
 */
static void xgateway_take(struct otonet_opts *o)
{
	const char *v = getenv("OTO_GATEWAY");
	int type = 0, dom = 0;
	socklen_t l = sizeof(type);

	o->gateway_fd = -1;
	o->ngw = o->ngates = 0;
	if (!v)
		return;
	if (gateway_parse(v, &o->gateway_fd, o->gw_port, &o->ngw, o->gates, &o->ngates) < 0)
		die_usage("OTO_GATEWAY=%s: not FD:PORT[=HOST:PORT][,PORT[=HOST:PORT]]... (at most "
			  "%d ports)",
			  v, NET_MAX_GATEWAY);
	if (getsockopt(o->gateway_fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    getsockopt(o->gateway_fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_UNIX ||
	    (type != SOCK_STREAM && type != SOCK_SEQPACKET))
		die_usage("OTO_GATEWAY: fd %d is not a unix stream or seqpacket socket",
			  o->gateway_fd);
	if (fcntl(o->gateway_fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the gateway's fd %d close-on-exec",
		    o->gateway_fd);
	unsetenv("OTO_GATEWAY");
}

/*
 * OTO_GATE_GO, from otogate: a pipe's read end on which the gateway writes
 * "g" once it holds the values (or which ends when it failed: it said
 * why). The child waits for it after it built the network, before the rest
 * of the chain may run; the relay has no use for it.
 */
static void xgo_take(struct otonet_opts *o)
{
	const char *v = getenv("OTO_GATE_GO");
	unsigned long fd;
	struct stat st;

	o->gate_go = -1;
	if (!v)
		return;
	/* Never standard input, output or error, as OTO_GATEWAY's socket never is. */
	if (opt_ulong(v, 65535, &fd) < 0 || fd < 3 || fstat((int)fd, &st) < 0 ||
	    !S_ISFIFO(st.st_mode))
		die_usage("OTO_GATE_GO=%s: not the fd of a pipe (3 or more)", v);
	o->gate_go = (int)fd;
	if (fcntl(o->gate_go, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to keep the gateway's go pipe from the program");
	unsetenv("OTO_GATE_GO");
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
 * --ask-fd: the decider's socket is the relay's alone (close-on-exec: the
 * child's exec, so the sandbox, never has it).
 */
static void xask_take(const struct otonet_opts *o)
{
	int type = 0, dom = 0;
	socklen_t l = sizeof(type);

	if (o->ask_fd < 0)
		return;
	if (getsockopt(o->ask_fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    getsockopt(o->ask_fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_UNIX ||
	    type != SOCK_STREAM)
		die_usage("--ask-fd %d: not a unix stream socket", o->ask_fd);
	if (fcntl(o->ask_fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to make the decider's fd %d close-on-exec", o->ask_fd);
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
	if (o->log_fd < 0 || geteuid() != 0 || !o->as || user_lookup(o->as, &uid, &gid) < 0)
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

int main(int argc, char **argv)
{
	struct otonet_opts o;
	static struct filter f;
	struct relay_cfg cfg;
	struct relay *relay;
	struct session session;
	struct ipaddr resolver;
	int sv[2], said[2], tun, sigfd, status, opener, audit, resolv_fs;
	char audit_env[256];
	sigset_t mask, old;
	pid_t pid, opener_pid;

	log_init(argv[0]);
	xotonet_parse(&o, argc, argv);
	/* The switches for tests and benchmarks (otonet(1)), checked with the options. */
	o.no_peek_off = (int)xtest_switch("OTO_TEST_NO_PEEK_OFF", 0, 0, 1,
					  "the relay's buffered path, as without SO_PEEK_OFF");
	o.badcall = (int)xtest_switch("OTO_TEST_RELAY_BADCALL", 0, 0, 1,
				      "SIGUSR2 makes the relay call outside its seccomp filter");
	o.tun_mtu =
	    (unsigned int)xtest_switch("OTO_TEST_TUN_MTU", NET_MTU, 1280, NET_MTU, "the TUN's MTU");
	o.name_ttl_min = xtest_switch("OTO_TEST_NAME_TTL_MIN", NAMES_TTL_MIN, 1, NAMES_TTL_MIN,
				      "the shortest life of a name binding, in seconds");
	o.clock_fd = (int)xtest_switch("OTO_TEST_CLOCK_FD", 0, 3, 1023,
				       "each byte read on it moves the relay's clock a second on");
	if (o.clock_fd && fcntl(o.clock_fd, F_SETFD, FD_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to keep OTO_TEST_CLOCK_FD=%d from the program",
		    o.clock_fd);
	xgateway_take(&o);
	xgo_take(&o);
	xask_take(&o);

	/*
	 * 1. Root never runs the relay: become the --as account first. Run by
	 *    root, fork the TUN opener just before (opener.c): /dev/net/tun may
	 *    be root's alone, and the device must be opened in the child's
	 *    network namespace, which does not exist yet. The opener keeps
	 *    root for that one open and nothing else, so the relay gives up
	 *    root here as it always did, before it reads the host or the network.
	 */
	opener = xopener_start(o.as, &opener_pid);
	audit = audit_take(&o, audit_env, sizeof(audit_env));
	xuser_drop_root(o.as);
	if (o.log_fd >= 0 && fcntl(o.log_fd, F_SETFD, FD_CLOEXEC) < 0)
		die_usage("--log-fd %d: not an open file descriptor", o.log_fd);
	/* The session's id and mark, into the environment the child passes on. */
	xsession_begin(&session, o.log_fd);

	/*
	 * 2. SIGCHLD waits in the relay's signalfd from before the fork; the
	 *    signals that end the relay, once the filter stands (4): until then
	 *    they end it as they would any program, and its child with it.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die(EXIT_SYS, errno, "unable to create the socket pair to the child");
	if (pipe2(said, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to create the filter's pipe to the child");
	/* --kernel-wall's routes are the filter's: the child needs it first. */
	if (o.kernel_wall)
		xotonet_filter_build(&o, &f, &resolver);

	/*
	 * 3. The child builds the sandbox's network (asking the opener for the
	 *    device where it may not open it), sends the TUN fd, and execs once
	 *    the filter stands. What the child leaves behind when it exits comes
	 *    to the relay (a subreaper), so that the relay knows, at its end,
	 *    whether anything is left in the sandbox (relay.c, xrelay_leave).
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die(EXIT_SYS, errno, "unable to become the subreaper of the sandbox's processes");
	pid = fork();
	if (pid < 0)
		die(EXIT_SYS, errno, "unable to fork the child that makes the sandbox");
	if (pid == 0) {
		close(sv[0]);
		close(said[1]);
		filter_said = said[0];
		log_before_die = filter_wait;
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		xsetup_sandbox(&o, &f, sv[1], opener);
		filter_wait();
		/* The gateway's go (OTO_GATE_GO): the chain goes on only then. */
		word_wait(o.gate_go, 'g', EXIT_REJECT);
		/*
		 * The stage exec'd next has the relay as its parent: otons
		 * takes this as --die-with-parent, so that the relay's death
		 * ends the sandbox (otons(1)).
		 */
		if (setenv("OTO_DIE_WITH_PARENT", "1", 1) < 0)
			die(EXIT_SYS, errno, "unable to set OTO_DIE_WITH_PARENT");
		if (audit_env[0] && (setenv("OTO_AUDIT", audit_env, 1) < 0 ||
				     (audit >= 0 && fd_cloexec(audit, 0) < 0)))
			die(EXIT_SYS, errno, "unable to hand the audit socket on (OTO_AUDIT)");
		xexec(o.argv);
	}
	close(said[0]);

	/*
	 * 4. The filter, complete before any flow exists: exception names
	 *    resolved and pinned now, the host's addresses and resolver read now,
	 *    while the child builds the sandbox. The record opens once nothing
	 *    is left to refuse; then the child may go on.
	 */
	if (!o.kernel_wall)
		xotonet_filter_build(&o, &f, &resolver);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	session_open(&session, o.log_fd, "otonet", (const char *const *)argv);
	/* Not there: the child is gone, and fd_recv below says so. */
	if (write(said[1], "f", 1) != 1)
		debugx("the child did not take the filter's word: %s", strerror(errno));
	close(said[1]);
	close(sv[1]);
	if (o.gate_go >= 0)
		close(o.gate_go);
	/* The audit socket is the sandbox's stages', never the relay's. */
	if (audit >= 0)
		close(audit);
	/* The opener's socket is the child's alone: it sees it close when the child is done. */
	if (opener >= 0)
		close(opener);

	/*
	 * 5. While the child builds the sandbox, the relay confines and locks
	 *    itself down (lockdown.c), so that neither is on the agent's way:
	 *    it holds host sockets for the agent and, from here on, needs no
	 *    file, no capability, and nobody may inspect it. Its seccomp filter
	 *    is in place before the TUN arrives, so before any packet is read.
	 *    A host socket per flow: --max-flows of them, and the relay's own.
	 */
	raise_nofile(o.max_flows + 64);
	xrelay_confine();
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		die(EXIT_SYS, errno, "unable to create a signalfd");
	cfg.f = &f;
	cfg.resolver = resolver;
	cfg.log_fd = o.log_fd;
	cfg.log_budget = o.log_budget;
	cfg.session = &session;
	cfg.max_flows = o.max_flows;
	cfg.max_half_open = o.max_half_open;
	cfg.max_udp_flows = o.max_udp_flows;
	cfg.tcp_idle_ms = (uint64_t)o.tcp_idle * 1000;
	cfg.udp_idle_ms = (uint64_t)o.udp_idle * 1000;
	cfg.busy_poll_us = o.busy_poll;
	cfg.child = pid;
	cfg.no_peek_off = o.no_peek_off;
	cfg.badcall = o.badcall;
	cfg.gateway_fd = o.gateway_fd;
	cfg.name_ttl_min = o.name_ttl_min;
	cfg.clock_fd = o.clock_fd;
	cfg.ask = o.ask_fd >= 0;
	cfg.ask_fd = o.ask_fd;
	cfg.ask_timeout_ms = (uint64_t)o.ask_timeout * 1000;
	relay = xrelay_start(&cfg, sigfd);

	/*
	 * 6. The TUN, once the child has configured it (packets queue there
	 *    meanwhile); then the tmpfs that holds the sandbox's resolv.conf,
	 *    whose last close (an unmount: an RCU grace period) is the relay's
	 *    to wait for, below, not the sandbox's.
	 */
	tun = fd_recv(sv[0]);
	resolv_fs = tun < 0 ? -1 : fd_recv(sv[0]);
	close(sv[0]);
	if (tun < 0) {
		/* The child said why on stderr; its code is ours. */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		reap_opener(opener_pid);
		session_close(&session, o.log_fd, wait_code(status), SESSION_END_EXIT, 0);
		return wait_code(status);
	}
	/*
	 * The child is past the TUN and has closed the opener's socket: the
	 * opener has answered or had nothing to do, and has nothing left but
	 * its exit. Reaped here: the relay starts with the child as its only child.
	 */
	reap_opener(opener_pid);
	if (resolv_fs >= 0)
		close(resolv_fs);

	/* 7. Relay until the child exits; exit with its status. */
	xrelay_run(relay, tun);
}
