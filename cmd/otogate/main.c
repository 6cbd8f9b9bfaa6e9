/* SPDX-License-Identifier: ISC */
/*
 * otogate: keep the session's credentials outside the sandbox. Decrypt the
 * granted entries, fork, and stay outside as the gateway: the child execs
 * the rest of the chain (otonet first) with a phantom in place of each value,
 * and otonet hands the gateway every flow of the agent to a granted port of
 * 10.0.2.4; the gateway puts the real value into each request's headers and
 * forwards it over verified TLS to that grant's upstream alone.
 *
 * Consumes: argv up to "--"; the store fd and the key fd (closed once read);
 * the --log-fd fd and the --ask-fd fd (the gateway's alone).
 * Passes on: the rest of argv, exec'd with, for each grant, NAME=phantom and
 * NAME_URL=http://10.0.2.4:PORT (https://HOST for a transparent grant), and
 * OTO_GATEWAY=FD:PORTS with FD, one end of a socket pair, inherited;
 * OTO_GATE_GO=FD, the read end of a pipe the gateway writes "g" to once it
 * holds the values (otonet's child waits for it before the rest of the
 * chain runs); with transparent grants OTO_GATE_CA=FD, a sealed memfd
 * holding the session CA's certificate (ca.c); with --ask-fd N, on fd N
 * the chain's end of a socket pair whose questions the gateway relays to
 * the decider (otonet --ask-fd N), and OTO_SESSION; with --login,
 * OTO_LOGIN=FD:FILE[,FD:FILE]..., for each a sealed memfd holding the login
 * file with phantoms (login.c), which otomount writes at FILE in the home;
 * every other inherited fd.
 * Exits: 100 usage, 101 store, key or name rejected, 111 a system call
 * failed, 126/127 exec, else the child's own code or 128+N when it died of
 * signal N.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "oto.h"
#include "otogate.h"

/*
 * The child's environment: each grant's phantom and URL (a transparent
 * grant's, its host's own), otonet's OTO_GATEWAY and OTO_GATE_GO (the go
 * pipe's read end), and with transparent grants otomount's OTO_GATE_CA
 * (the session CA's certificate).
 */
static void xchild_env(const struct otogate_opts *o, int fd, int cafd, int go)
{
	char name[STORE_MAX_NAME + 8], url[GATE_MAX_HOST + 32];
	char gw[GATE_MAX_GRANTS * (GATE_MAX_HOST + 16) + 16], num[16];

	for (size_t i = 0; i < o->ngrants; i++) {
		const struct grant *g = &o->grants[i];

		/* A login's grant: the CLI reads its file, no variable names it. */
		if (g->login)
			continue;
		snprintf(name, sizeof(name), "%s_URL", g->name);
		if (g->transparent)
			snprintf(url, sizeof(url), "https://%s", g->hosthdr);
		else
			snprintf(url, sizeof(url), "http://" GATE_AGENT_ADDR ":%u",
				 (unsigned int)g->gw_port);
		if (setenv(g->name, g->phantom, 1) < 0 || setenv(name, url, 1) < 0)
			die(EXIT_SYS, errno, "unable to set %s for the child", g->name);
	}
	if (!gateway_env_format(gw, sizeof(gw), fd, o->grants, o->ngrants) ||
	    setenv("OTO_GATEWAY", gw, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_GATEWAY for the child");
	snprintf(num, sizeof(num), "%d", cafd);
	if (cafd >= 0 && setenv("OTO_GATE_CA", num, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_GATE_CA for the child");
	if (o->nlogins && (!login_env_format(gw, sizeof(gw), o) || setenv("OTO_LOGIN", gw, 1) < 0))
		die(EXIT_SYS, errno, "unable to set OTO_LOGIN for the child");
	snprintf(num, sizeof(num), "%d", go);
	if (setenv("OTO_GATE_GO", num, 1) < 0)
		die(EXIT_SYS, errno, "unable to set OTO_GATE_GO for the child");
}

/* The chain, between the fork and the go: its pid, and the go pipe's write end. */
static pid_t chain_pid = -1;
static int chain_go = -1;

/*
 * A fatal error between the fork and the go (die's hook): the chain's
 * otonet hears the go pipe close and ends without running anything; the
 * gateway waits for it to end (at most a second: a program that does not
 * wait for the go is left to run), so that otogate's caller sees no
 * process of the chain, and no line of it, after otogate's exit.
 */
static void chain_end(void)
{
	struct pollfd p = { .events = POLLIN };

	close(chain_go);
	p.fd = (int)syscall(SYS_pidfd_open, chain_pid, 0);
	if (p.fd < 0)
		return;
	while (poll(&p, 1, 1000) < 0 && errno == EINTR)
		;
	close(p.fd);
}

static void xopenssl_init(void)
{
	if (OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		die(EXIT_SYS, 0, "unable to initialize OpenSSL");
}

/* What the start holds from one step to the next. */
struct start {
	struct otogate_opts o;
	struct gate gate;
	struct gate_secrets secrets;
	sigset_t mask, old;
	int sv[2];  /* the gateway's socket pair: otonet's end goes to the chain */
	int go[2];  /* the go pipe: its read end goes to the chain */
	int cafd;   /* the session CA's certificate for the view, or -1 */
	int net[2]; /* with --ask-fd: otonet's questions, relayed (ask.c); net[1] the chain's */
	struct session session;
	struct why why; /* the agent's file of its refusals, once otomount sends it */
	int transparent;
	uid_t uid;
	gid_t gid;
	pid_t pid;
};

/* 1. Before any secret is in memory: no core dump, and not dumpable. */
static void xundumpable(void)
{
	const struct rlimit nocore = { 0, 0 };

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || setrlimit(RLIMIT_CORE, &nocore) < 0)
		die(EXIT_SYS, errno, "unable to make the process undumpable");
}

/* The options checked against the caller: root names the account the gateway becomes. */
static void xcaller_check(struct start *s)
{
	const struct otogate_opts *o = &s->o;

	if (geteuid() == 0 && !o->as)
		die_usage("run as root: --as USER[:GROUP] names the account the gateway becomes");
	if (o->as && user_lookup(o->as, &s->uid, &s->gid) < 0)
		die_usage("--as %s: no such unprivileged user or group", o->as);
	if (o->log_fd >= 0 && fcntl(o->log_fd, F_SETFD, FD_CLOEXEC) < 0)
		die_usage("--log-fd %d: not an open file descriptor", o->log_fd);
	/* The decider's: the chain gets another socket on its number (xchain_start). */
	if (o->ask_fd >= 0 && fcntl(o->ask_fd, F_SETFD, FD_CLOEXEC) < 0)
		die_usage("--ask-fd %d: not an open file descriptor", o->ask_fd);
	/* The questions name the session: the chain's stages take the same id (OTO_SESSION). */
	if (o->ask_fd >= 0)
		xsession_begin(&s->session, -1);
}

/*
 * 2. The store read and checked, the phantoms made, the key opened (not
 *    read); with transparent grants, the session CA, whose certificate
 *    goes to the view. OpenSSL reads no configuration file: each context
 *    sets what it needs (upstream.c, ca.c), the same on every host, and
 *    the lazily made ones find no file after the lockdown anyway. Its TLS
 *    part (the cipher and digest name tables, about 0.26 ms of CPU beside
 *    the sandbox's start) is set up here only for the session CA's server
 *    context; otherwise by the first upstream context, at the first
 *    request (upstream.c).
 */
static void xsecrets_ready(struct start *s)
{
	for (size_t i = 0; i < s->o.ngrants; i++)
		s->transparent |= s->o.grants[i].transparent;
	if (s->transparent)
		xopenssl_init();
	xsecrets_plan(&s->o, &s->secrets);
	s->cafd = s->transparent ? xca_make(&s->o, &s->gate.tls_server) : -1;
}

/* 3. Signals wait in a signalfd for the loop, from before the fork. */
static void xchannels(struct start *s)
{
	sigemptyset(&s->mask);
	sigaddset(&s->mask, SIGCHLD);
	sigaddset(&s->mask, SIGTERM);
	sigaddset(&s->mask, SIGINT);
	sigaddset(&s->mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &s->mask, &s->old);
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->sv) < 0 ||
	    pipe2(s->go, O_CLOEXEC) < 0)
		die(EXIT_SYS, errno, "unable to create the gateway's socket pair");
	s->net[0] = s->net[1] = -1;
	if (s->o.ask_fd >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s->net) < 0)
		die(EXIT_SYS, errno, "unable to create otonet's socket pair for asking");
	/* The agent's file: otomount, behind, sends it on this socket (OTO_WHY_FD). */
	why_init(&s->why, "otogate");
	if (why_offer(&s->why) < 0)
		die(EXIT_SYS, errno, "unable to offer a socket for the agent's file (OTO_WHY_FD)");
}

/*
 * 4. The child, with the phantoms, its end of the socket pair and the
 *    read end of the go pipe (OTO_GATE_GO), keeps root when run by root
 *    (otonet needs it) and execs otonet at once: otonet builds the
 *    sandbox's network while the gateway gets ready, and its child execs
 *    the rest of the chain only once the gateway said go. If the gateway
 *    fails first (it says why), otonet's child reads the pipe's end and
 *    leaves without a word: nothing of the sandbox has run.
 */
static void xchain_start(struct start *s)
{
	s->pid = fork();
	if (s->pid < 0)
		die(EXIT_SYS, errno, "unable to fork the chain");
	if (s->pid == 0) {
		close(s->sv[0]);
		close(s->go[1]);
		if (fd_cloexec(s->sv[1], 0) < 0 || fd_cloexec(s->go[0], 0) < 0)
			die(EXIT_SYS, errno, "unable to pass the gateway's socket on");
		for (size_t i = 0; i < s->o.nlogins; i++)
			if (fd_cloexec(s->o.logins[i].memfd, 0) < 0)
				die(EXIT_SYS, errno, "unable to pass a login's file on");
		/* The decider's fd number now holds the relayed socket: the chain never has the
		 * decider itself (dup2 leaves the copy inheritable). */
		if (s->o.ask_fd >= 0 && dup2(s->net[1], s->o.ask_fd) < 0)
			die(EXIT_SYS, errno, "unable to pass the asking socket on");
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &s->old, NULL);
		xchild_env(&s->o, s->sv[1], s->cafd, s->go[0]);
		xexec(s->o.argv);
	}
	close(s->sv[1]);
	close(s->go[0]);
	why_parent(&s->why);
	if (s->net[1] >= 0)
		close(s->net[1]);
	if (s->cafd >= 0)
		close(s->cafd);
	chain_pid = s->pid;
	chain_go = s->go[1];
	log_at_die = chain_end;
}

/*
 * 6. The gateway: root never serves the agent. In a user namespace of its
 *    own, not dumpable again, it reads the key and decrypts the granted
 *    values (none was in memory before), lets the chain go, then leaves
 *    the host's files, capabilities and privileges behind, and allows
 *    only its calls. Returns the signalfd for its loop.
 */
static int xgate_become(struct start *s)
{
	int sigfd;

	if (s->o.as && geteuid() == 0 && user_become(s->uid, s->gid) < 0)
		die(EXIT_SYS, errno, "gateway: unable to become %s", s->o.as);
	sigfd = signalfd(-1, &s->mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		die(EXIT_SYS, errno, "gateway: unable to create a signalfd");
	xgate_unshare();
	xsecrets_open(&s->o, &s->secrets);
	if (write(s->go[1], "g", 1) != 1)
		die(EXIT_SYS, errno, "gateway: unable to let the chain start");
	/* From the go on, the chain runs: a failure of the gateway leaves it (fail closed). */
	log_at_die = NULL;
	close(s->go[1]);
	xgate_confine(s->o.store_dir);
	xgate_lockdown();
	return sigfd;
}

int main(int argc, char **argv)
{
	static struct start s;
	int sigfd;

	log_init(argv[0]);
	/* 1. Not dumpable before anything else; the options, checked against the caller. */
	xundumpable();
	xotogate_parse(&s.o, argc, argv);
	s.gate.refresh_ms = (int)xtest_switch(
	    "OTO_TEST_REFRESH_TIMEOUT_MS", REFRESH_TIMEOUT_MS, 100, REFRESH_TIMEOUT_MS,
	    "the token endpoint's time to answer a refresh, in ms");
	xcaller_check(&s);

	/* 2. The store, the phantoms, the key opened; the session CA for transparent grants. */
	xsecrets_ready(&s);

	/* 3. Signals into a signalfd, the socket pairs, the go pipe, the agent's file's offer. */
	xchannels(&s);

	/* 4. The chain (otonet first), its go awaited; the gateway gets ready meanwhile. */
	xchain_start(&s);

	/*
	 * 5. The upstreams' addresses and the CA bundle, while the host's files
	 *    are there and before root is left (an operator's --ca-file may be
	 *    root's alone). A failure here ends the gateway before its go.
	 */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		die(EXIT_SYS, 0, "unable to initialize OpenSSL");
	s.gate.store = xupstream_init(&s.o);

	/* 6. Root left, the values decrypted, the go, the gateway locked down. */
	sigfd = xgate_become(&s);

	/* 7. Serve until the child exits, asking the decider (--ask-fd); exit with its status. */
	s.gate.o = &s.o; /* gate.tls_server: set in 2; tls_client: by the first flow */
	pthread_mutex_init(&s.gate.tls_lock, NULL);
	s.gate.log_fd = s.o.log_fd;
	s.gate.why = &s.why;
	pthread_mutex_init(&s.gate.why_lock, NULL);
	pthread_mutex_init(&s.gate.refresh_lock, NULL);
	if (s.o.nlogins && !(s.gate.work = malloc(sizeof(*s.gate.work))))
		die(EXIT_SYS, errno, "gateway: unable to allocate the refresh's work area");
	if (s.o.ask_fd >= 0) {
		s.gate.ask = ask_start(s.o.ask_fd, s.net[0], s.o.ask_timeout_ms, s.session.id);
		if (!s.gate.ask)
			die(EXIT_SYS, errno, "gateway: unable to start asking");
	}
	xgate_run(&s.gate, s.sv[0], sigfd, s.pid);
}
