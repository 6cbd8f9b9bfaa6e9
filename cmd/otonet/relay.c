/* SPDX-License-Identifier: ISC */
/*
 * The relay: one thread, one epoll loop, translating the agent's flows
 * (flow.c) into host sockets. TCP is tcp.c, UDP and ICMP echo dgram.c; the
 * TUN and the loop are here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"
#include "relay.h"

#define TAG_TUN (~0ULL)
#define TAG_SIG (~0ULL - 1)

static uint64_t clock_us(struct relay *r)
{
	struct timespec ts;

	r->sys->clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t clock_ms(struct relay *r)
{
	return clock_us(r) / 1000;
}

/* obuf's n bytes, behind a header that asks for nothing (the packet is complete). */
void tun_write(struct relay *r, size_t n)
{
	memset(r->vnet, 0, VNET_HLEN);
	if (n && r->sys->write(r->tun, r->vnet, VNET_HLEN + n) < 0)
		debugx("write to the TUN: %s", strerror(errno));
}

/* obuf's n bytes behind the header pkt_vnet wrote. */
void tun_write_offload(struct relay *r, size_t n)
{
	if (r->sys->write(r->tun, r->vnet, VNET_HLEN + n) < 0)
		debugx("write to the TUN: %s", strerror(errno));
}

/* ---- the loop ----------------------------------------------------------- */

static int agent_addr_ok(const struct pkt *p)
{
	static const uint8_t A4[4] = { 10, 0, 2, 100 };
	static const uint8_t A6[16] = { 0xfd, [14] = 0x01, [15] = 0x00 };

	if (p->family == AF_INET)
		return !memcmp(p->src.a, A4, 4);
	return !memcmp(p->src.a, A6, 16);
}

static void tun_batch(struct relay *r);

void tun_input(struct relay *r)
{
	tun_batch(r);
	tcp_sends_flush(r);
	tcp_acks_flush(r);
}

static void tun_batch(struct relay *r)
{
	size_t used = 0;

	/* Up to 256 packets, while the batch has room for one more of any size. */
	for (int i = 0; i < 256 && used + BUFSZ <= BATCH_BYTES; i++) {
		uint8_t *at = r->batch + used;
		ssize_t n = r->sys->read(r->tun, at, BUFSZ);
		struct pkt p;

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				/* The sandbox's namespace is gone: nothing more to relay. */
				r->sys->epoll_ctl(r->ep, EPOLL_CTL_DEL, r->tun, NULL);
			}
			return;
		}
		/* Only the agent's own address: no spoofed flows, no reflections. */
		if (pkt_parse_vnet(at, (size_t)n, &p) < 0 || !agent_addr_ok(&p))
			continue;
		/* Kept, 16-byte aligned, only if it may be gathered (TCP data). */
		if (p.proto == PROTO_TCP && p.dlen)
			used += ((size_t)n + 15) & ~(size_t)15;
		r->now = clock_ms(r);
		if (p.proto == PROTO_TCP)
			tcp_input(r, &p);
		else
			dgram_input(r, &p);
	}
}

static void signals(struct relay *r, int sigfd)
{
	struct signalfd_siginfo si;
	int status;

	while (r->sys->read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR2 && r->cfg->badcall)
			relay_badcall();
		if (si.ssi_signo != SIGCHLD) {
			kill(r->cfg->child, (int)si.ssi_signo);
			continue;
		}
		if (waitpid(r->cfg->child, &status, WNOHANG) == r->cfg->child)
			exit(wait_code(status));
	}
}

int relay_init(struct relay *r, const struct relay_cfg *cfg, const struct relay_sys *sys, int tun)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->sys = sys;
	r->tun = tun;
	r->ep = -1;
	r->batch = malloc(BATCH_BYTES);
	r->vnet = malloc(VNET_HLEN + BUFSZ);
	if (flow_table_init(&r->ft, cfg->max_flows) < 0 || !r->batch || !r->vnet) {
		errno = ENOMEM;
		return -1;
	}
	r->obuf = r->vnet + VNET_HLEN;
	return 0;
}

void relay_run(const struct relay_cfg *cfg, int tun, int sigfd)
{
	struct epoll_event ev, evs[64];
	uint64_t last_tick = 0, busy_until = 0;
	struct relay rs, *r = &rs;

	if (relay_init(r, cfg, &relay_sys_libc, tun) < 0)
		die(EXIT_SYS, errno, "unable to allocate the flow table");
	if (getrandom(&r->rnd, sizeof(r->rnd), 0) != sizeof(r->rnd) || !r->rnd)
		r->rnd = (uint32_t)clock_ms(r) | 1;
	if (fcntl(tun, F_SETFL, O_NONBLOCK) < 0)
		die(EXIT_SYS, errno, "unable to make the TUN non-blocking");
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->ep < 0)
		die(EXIT_SYS, errno, "unable to create an epoll instance");
	ev.events = EPOLLIN;
	ev.data.u64 = TAG_TUN;
	if (r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, tun, &ev) < 0)
		die(EXIT_SYS, errno, "unable to watch the TUN");
	ev.data.u64 = TAG_SIG;
	if (r->sys->epoll_ctl(r->ep, EPOLL_CTL_ADD, sigfd, &ev) < 0)
		die(EXIT_SYS, errno, "unable to watch signals");
	/* Everything is open: from here on, only the calls the loop makes. */
	relay_lockdown();
	/* The child may have exited before the signalfd existed. */
	signals(r, sigfd);
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
		int polling = r->cfg->busy_poll_us && clock_us(r) < busy_until;
		int n = epoll_wait(r->ep, evs, 64, polling ? 0 : 100);

		if (n < 0 && errno != EINTR)
			die(EXIT_SYS, errno, "epoll_wait");
		if (n == 0 && polling)
			sched_yield();
		r->now = clock_ms(r);
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;

			if (tag == TAG_TUN) {
				tun_input(r);
			} else if (tag == TAG_SIG) {
				signals(r, sigfd);
			} else {
				struct flow *f = &r->ft.flows[(uint32_t)tag];

				if (f->state == FLOW_FREE || f->gen != (uint32_t)(tag >> 32))
					continue;
				if (f->proto == PROTO_TCP)
					tcp_sock_event(r, f, evs[i].events);
				else
					dgram_sock_event(r, f);
			}
		}
		if (n > 0 && r->cfg->busy_poll_us)
			busy_until = clock_us(r) + r->cfg->busy_poll_us;
		if (r->now - last_tick >= 50) {
			last_tick = r->now;
			flow_timers(r);
		}
	}
}
