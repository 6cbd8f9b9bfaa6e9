/* SPDX-License-Identifier: ISC */
/*
 * The relay: one thread, one epoll loop, translating the agent's flows
 * (flow.c) between the packets on the TUN (tun.c) and host sockets: TCP
 * (tcp.c), UDP and ICMP echo (dgram.c). This file is the loop: it sets up,
 * locks itself down, waits for events and hands each to the part whose it
 * is, by the event's type; it runs the timers and passes signals on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

/*
 * The child is gone and the relay ends with its status. Its close of the
 * TUN is the last one: it removes tun0 (unregister_netdevice, which waits
 * for RCU grace periods), inside the relay's exit, which otonet's caller
 * waits for. Where nothing is left in the sandbox (others: no process the
 * child left behind, whose subreaper the relay is, main.c), tun0 is first
 * made persistent: the close leaves it, and the end of its network
 * namespace, which follows at once in a kernel worker, removes it off
 * everyone's way. Where something is left, or the relay dies instead,
 * tun0 goes in the relay's exit as it always did, and what is left finds
 * no network at once (fail closed).
 */
static noreturn void xrelay_leave(struct relay *r, int status, int others)
{
	if (!others && r->tun >= 0 && ioctl(r->tun, TUNSETPERSIST, 1) < 0)
		debugx("relay: tun0 goes in the relay's exit (TUNSETPERSIST: %s)", strerror(errno));
	relay_log_end(r);
	/*
	 * Told to end, a child that died of SIGKILL was killed at its grace's
	 * end (otons kills pid 1 then; its exit is 137).
	 */
	session_close(r->cfg->session, r->cfg->log_fd, wait_code(status), (enum session_end)r->end,
		      r->end != SESSION_END_EXIT && wait_code(status) == 128 + SIGKILL);
	exit(wait_code(status));
}

/*
 * What waits in the signalfd: the child's exit ends the relay with the
 * child's status; any other signal is passed on to the child. Every child
 * that exited is reaped: the child, and what it left behind (orphans come
 * to the relay, their subreaper); one SIGCHLD may stand for several.
 */
static void xsignals(struct relay *r, int sigfd)
{
	struct signalfd_siginfo si;
	int status, child_status = 0, child_gone = 0;
	pid_t pid;

	while (r->sys->read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR2 && r->cfg->badcall)
			relay_badcall();
		if (si.ssi_signo != SIGCHLD) {
			kill(r->cfg->child, (int)si.ssi_signo);
			if ((si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) &&
			    r->end == SESSION_END_EXIT)
				r->end = SESSION_END_SIGNAL;
			continue;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == r->cfg->child) {
				child_status = status;
				child_gone = 1;
			}
		/* 0: children left, still running; -1 (ECHILD): none. */
		if (child_gone)
			xrelay_leave(r, child_status, pid == 0);
	}
}

struct relay *xrelay_start(const struct relay_cfg *cfg, int sigfd)
{
	struct epoll_event ev;
	struct relay *r = malloc(sizeof(*r));

	/* The TUN comes later (xrelay_run): the child sends it when tun0 is ready. */
	if (!r || relay_init(r, cfg, &relay_sys_libc, -1) < 0)
		die(EXIT_SYS, ENOMEM, "relay: unable to allocate the flow table");
	r->sigfd = sigfd;
	if (getrandom(&r->rnd, sizeof(r->rnd), 0) != sizeof(r->rnd) || !r->rnd)
		r->rnd = (uint32_t)relay_clock_ms(r) | 1;
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->ep < 0)
		die(EXIT_SYS, errno, "relay: unable to create its epoll instance");
	ev.events = EPOLLIN;
	ev.data.u64 = ev_ref(EV_SIGNAL, 0, 0);
	if (r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, sigfd, &ev) < 0)
		die(EXIT_SYS, errno, "relay: unable to watch its signalfd");
	ev.data.u64 = ev_ref(EV_ASK, 0, 0);
	if (cfg->ask && r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, cfg->ask_fd, &ev) < 0)
		die(EXIT_SYS, errno, "relay: unable to watch the decider's socket (--ask-fd %d)",
		    cfg->ask_fd);
	/* Its hangup alone: the relay only sends on it. */
	ev.events = EPOLLRDHUP;
	ev.data.u64 = ev_ref(EV_GATE, 0, 0);
	if (cfg->gateway_fd >= 0 &&
	    r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, cfg->gateway_fd, &ev) < 0)
		die(EXIT_SYS, errno, "relay: unable to watch the gateway's socket");
	/*
	 * Everything is open: from here on, only the calls the loop makes. This
	 * runs while the child builds the sandbox's network, off the agent's
	 * way; the relay reads no packet before it (the TUN is not even here).
	 */
	xrelay_lockdown();
	return r;
}

/*
 * otogate is gone (its socket hung up): no credentialed flow can be served
 * any more, and a sandbox never outlives its gateway. The child is told to
 * end as SIGTERM to the relay would: otons gives the agent its grace, then
 * kills its pid namespace, and the relay ends with it.
 */
static void gateway_gone(struct relay *r)
{
	r->sys->epoll_ctl(r->ep, EPOLL_CTL_DEL, r->cfg->gateway_fd, NULL);
	warnx("the gateway (otogate) is gone: the session ends");
	if (r->end == SESSION_END_EXIT)
		r->end = SESSION_END_GATEWAY;
	kill(r->cfg->child, SIGTERM);
}

/*
 * OTO_TEST_CLOCK_FD: each byte the test wrote there moves the clock a second
 * on, so that a test of a TTL or an idle bound does not wait it out. At its
 * end (or an error), no longer watched.
 */
static void clock_input(struct relay *r)
{
	uint8_t b[256];
	ssize_t n = r->sys->read(r->cfg->clock_fd, b, sizeof(b));

	if (n > 0) {
		r->skew_us += (uint64_t)n * 1000000;
		r->now = relay_clock_ms(r);
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		r->sys->epoll_ctl(r->ep, EPOLL_CTL_DEL, r->cfg->clock_fd, NULL);
	}
}

noreturn void xrelay_run(struct relay *r, int tun)
{
	struct epoll_event ev, evs[64];
	uint64_t last_tick = 0, busy_until = 0;
	int sigfd = r->sigfd;

	r->tun = tun;
	if (fcntl(tun, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_SYS, errno, "relay: unable to make the TUN non-blocking");
	ev.events = EPOLLIN;
	ev.data.u64 = ev_ref(EV_TUN, 0, 0);
	if (r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, tun, &ev) < 0)
		die(EXIT_SYS, errno, "relay: unable to watch the TUN for packets");
	ev.data.u64 = ev_ref(EV_CLOCK, 0, 0);
	if (r->cfg->clock_fd > 0 &&
	    r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, r->cfg->clock_fd, &ev) < 0)
		die(EXIT_SYS, errno, "relay: unable to watch OTO_TEST_CLOCK_FD");
	/* The child may have exited before the signalfd existed. */
	xsignals(r, sigfd);
	for (;;) {
		/*
		 * Busy polling: for --busy-poll microseconds after events were
		 * handled, look again instead of sleeping. A round trip through
		 * the relay wakes it twice (the agent's request, the host's
		 * reply), and waking a sleeping process costs more than the
		 * relay's own work: a reply or a next request that comes within
		 * the poll saves a wake-up. The cost is CPU, at most the poll's
		 * length per burst of traffic, none while the sandbox is quiet.
		 * sched_yield lets whatever else is runnable on this CPU (the
		 * agent, a server) go first: on one CPU the poll takes no time
		 * from them.
		 */
		int polling = r->cfg->busy_poll_us && relay_clock_us(r) < busy_until;
		int n = epoll_wait(r->ep, evs, 64, polling ? 0 : 100);

		if (n < 0 && errno != EINTR)
			die(EXIT_SYS, errno, "relay: unable to wait for events");
		if (n == 0 && polling)
			sched_yield();
		r->now = relay_clock_ms(r);
		for (int i = 0; i < n; i++) {
			uint64_t ref = evs[i].data.u64;
			struct flow *f;

			switch (ev_type(ref)) {
			case EV_TUN:
				tun_input(r);
				break;
			case EV_SIGNAL:
				xsignals(r, sigfd);
				break;
			case EV_TCP:
				f = flow_at(&r->ft, ref);
				if (f)
					tcp_sock_event(r, f, evs[i].events);
				break;
			case EV_ASK:
				ask_input(r, evs[i].events);
				flow_answers(r);
				break;
			case EV_DGRAM:
				f = flow_at(&r->ft, ref);
				if (f)
					dgram_sock_event(r, f);
				break;
			case EV_CLOCK:
				clock_input(r);
				break;
			case EV_GATE:
				gateway_gone(r);
				break;
			default:
				break;
			}
		}
		if (n > 0 && r->cfg->busy_poll_us)
			busy_until = relay_clock_us(r) + r->cfg->busy_poll_us;
		if (r->now - last_tick >= 50) {
			last_tick = r->now;
			flow_timers(r);
		}
	}
}
