// UNIT: lib/cidr.c lib/opt.c cmd/otonet/pkt.c cmd/otonet/filter.c cmd/otonet/context.c
// UNIT: cmd/otonet/flow.c cmd/otonet/tcp.c cmd/otonet/dgram.c cmd/otonet/tun.c cmd/otonet/sys.c
// UNIT: lib/fd_msg_init.c lib/event_head.c
// UNIT: cmd/otonet/names.c cmd/otonet/dns.c cmd/otonet/sni.c
/*
 * The relay's flow table through its own interface, with fake system calls
 * (struct relay_sys): the states and their names, the bounds counted per
 * state, a stale epoll event told apart from the flow that took its slot,
 * and the fate a function that may end a flow returns. The loop (relay.c)
 * and the lockdown are not linked: they may exit. Nor is lib/log.c (it holds
 * die): the relay's warnings come to the fake log_msg below.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include <cmocka.h>

#include "oto.h"
#include "otonet/otonet.h"
#include "otonet/relay.h"

/* ---- the fakes: what the relay asked for, and what it is told ------------------------ */

#define LOG_FD 50
#define TUN_FD 60
#define GW_FD 70

static int next_fd, closed, so_error;
/* The gateway: what the relay sent it (the port, the fd), and what it says. */
static int gw_port, gw_fd, gw_errno;
static char logged[4096];
static uint8_t tun_out[128];
static size_t tun_out_len;

/* lib/log.c's log_msg, faked: the relay's warnings, kept in warned. */
int log_verbosity = LOG_INFO;
static char warned[1024];

void log_msg(enum log_level lvl, int err, const char *fmt, ...)
{
	va_list ap;

	(void)lvl, (void)err;
	va_start(ap, fmt);
	vsnprintf(warned, sizeof(warned), fmt, ap);
	va_end(ap);
}

static int f_socket(int d, int t, int p)
{
	(void)d, (void)t, (void)p;
	return 100 + next_fd++;
}

static int f_socketpair(int d, int t, int p, int sv[2])
{
	assert_int_equal(d, AF_UNIX);
	assert_int_equal(t & SOCK_STREAM, SOCK_STREAM);
	(void)p;
	sv[0] = 100 + next_fd++;
	sv[1] = 100 + next_fd++;
	return 0;
}

static int f_connect(int fd, const struct sockaddr *sa, socklen_t l)
{
	(void)fd, (void)sa, (void)l;
	errno = EINPROGRESS;
	return -1;
}

static int f_setsockopt(int fd, int lvl, int name, const void *v, socklen_t l)
{
	(void)fd, (void)lvl, (void)name, (void)v, (void)l;
	return 0;
}

/* What SO_MEMINFO reports of every socket: its send buffer and what it queues. */
static uint32_t mem_sndbuf, mem_queued;

static int f_getsockopt(int fd, int lvl, int name, void *v, socklen_t *l)
{
	(void)fd, (void)lvl;
	memset(v, 0, *l);
	if (name == SO_ERROR)
		*(int *)v = so_error;
	if (name == SO_MEMINFO) {
		((uint32_t *)v)[SK_MEMINFO_SNDBUF] = mem_sndbuf;
		((uint32_t *)v)[SK_MEMINFO_WMEM_QUEUED] = mem_queued;
	}
	if (name == TCP_INFO && lvl == IPPROTO_TCP)
		((struct tcp_info *)v)->tcpi_advmss = 1448;
	return 0;
}

/* What the host socket holds for the next recv (rx_len bytes at rx), then EAGAIN. */
static const uint8_t *rx;
static size_t rx_len;

static ssize_t f_recv(int fd, void *buf, size_t len, int flags)
{
	size_t n = len < rx_len ? len : rx_len;

	(void)fd, (void)flags;
	if (!n) {
		errno = EAGAIN;
		return -1;
	}
	memcpy(buf, rx, n);
	rx += n;
	rx_len -= n;
	return (ssize_t)n;
}

static ssize_t f_send(int fd, const void *buf, size_t len, int flags)
{
	(void)fd, (void)buf, (void)flags;
	return (ssize_t)len;
}

static ssize_t f_sendmsg(int fd, const struct msghdr *m, int flags)
{
	struct cmsghdr *cm;

	(void)flags;
	if (fd != GW_FD)
		return 0;
	if (gw_errno) {
		errno = gw_errno;
		return -1;
	}
	cm = CMSG_FIRSTHDR(m);
	assert_non_null(cm);
	assert_int_equal(cm->cmsg_type, SCM_RIGHTS);
	memcpy(&gw_fd, CMSG_DATA(cm), sizeof(int));
	assert_int_equal(m->msg_iov[0].iov_len, sizeof(int));
	memcpy(&gw_port, m->msg_iov[0].iov_base, sizeof(int));
	return (ssize_t)sizeof(int);
}

static int f_shutdown(int fd, int how)
{
	(void)fd, (void)how;
	return 0;
}

static int f_close(int fd)
{
	(void)fd;
	closed++;
	return 0;
}

static int f_epoll_ctl(int e, int op, int fd, struct epoll_event *ev)
{
	(void)e, (void)op, (void)fd, (void)ev;
	return 0;
}

static ssize_t f_read(int fd, void *buf, size_t len)
{
	(void)fd, (void)buf, (void)len;
	errno = EAGAIN;
	return -1;
}

static ssize_t f_write(int fd, const void *buf, size_t len)
{
	if (fd == LOG_FD && strlen(logged) + len < sizeof(logged))
		strncat(logged, buf, len);
	if (fd == TUN_FD) {
		tun_out_len = len < sizeof(tun_out) ? len : sizeof(tun_out);
		memcpy(tun_out, buf, tun_out_len);
	}
	return (ssize_t)len;
}

static int f_clock_gettime(clockid_t c, struct timespec *ts)
{
	(void)c;
	ts->tv_sec = 1000;
	ts->tv_nsec = 0;
	return 0;
}

static const struct relay_sys fake = {
	.socket = f_socket,
	.socketpair = f_socketpair,
	.connect = f_connect,
	.setsockopt = f_setsockopt,
	.getsockopt = f_getsockopt,
	.recv = f_recv,
	.send = f_send,
	.sendmsg = f_sendmsg,
	.shutdown = f_shutdown,
	.close = f_close,
	.epoll_ctl = f_epoll_ctl,
	.read = f_read,
	.write = f_write,
	.clock_gettime = f_clock_gettime,
};

/* ---- a relay of 5 slots: at most 2 half-open, 1 UDP flow ------------------------------ */

static struct filter filt;
static struct relay_cfg cfg;
static struct relay rl;

static int setup(void **state)
{
	(void)state;
	memset(&filt, 0, sizeof(filt));
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cidr_parse("203.0.113.0/24", &filt.pub[0]), 0);
	filt.npub = 1;
	cfg.f = &filt;
	cfg.log_fd = LOG_FD;
	cfg.max_flows = 5;
	cfg.max_half_open = 2;
	cfg.max_udp_flows = 1;
	cfg.tcp_idle_ms = 5000;
	cfg.udp_idle_ms = 2000;
	cfg.gateway_fd = -1;
	assert_int_equal(relay_init(&rl, &cfg, &fake, TUN_FD), 0);
	rl.now = 1000000;
	next_fd = closed = so_error = 0;
	gw_port = gw_fd = gw_errno = 0;
	mem_sndbuf = mem_queued = 0;
	warned[0] = 0;
	logged[0] = 0;
	tun_out_len = 0;
	rx_len = 0;
	log_verbosity = -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned long i = 0; i < cfg.max_flows; i++)
		if (rl.ft.flows[i].state != FLOW_FREE)
			flow_free(&rl, &rl.ft.flows[i]);
	flow_table_fini(&rl.ft);
	names_fini(&rl.names);
	free(rl.batch);
	free(rl.vnet);
	free(rl.dns);
	return 0;
}

/* The agent (10.0.2.100) to 203.0.113.10:80 from sport, TCP or UDP. */
static struct pkt P(int proto, uint16_t sport)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.family = AF_INET;
	p.proto = proto;
	assert_int_equal(ipaddr_parse("10.0.2.100", &p.src), 0);
	assert_int_equal(ipaddr_parse("203.0.113.10", &p.dst), 0);
	p.sport = sport;
	p.dport = 80;
	p.flags = TH_SYN;
	p.win = 65535;
	p.wscale = -1;
	return p;
}

/* ---- the tests ------------------------------------------------------------------------ */

/* Each state has a name: the static_assert counts them, this finds a hole. */
static void test_every_state_named(void **state)
{
	(void)state;
	for (int i = 0; i < FLOW_NUM_STATES; i++) {
		assert_non_null(flow_state_name[i]);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(flow_state_name[i], flow_state_name[j]);
	}
	assert_string_equal(flow_state_name[FLOW_FREE], "free");
	assert_string_equal(flow_state_name[FLOW_TCP_ESTABLISHED], "tcp established");
}

/*
 * The bounds read the counts per state: two TCP flows connecting fill
 * --max-half-open, one established frees a place; one UDP flow fills
 * --max-udp-flows; five flows fill --max-flows. Each refusal is logged as
 * denied, with the bound's name.
 */
static void test_bounds_counted_per_state(void **state)
{
	struct pkt t1 = P(PROTO_TCP, 40001), t2 = P(PROTO_TCP, 40002), t3 = P(PROTO_TCP, 40003);
	struct pkt t4 = P(PROTO_TCP, 40004), u1 = P(PROTO_UDP, 40005), u2 = P(PROTO_UDP, 40006);
	struct pkt e1 = P(PROTO_ICMP, 7);
	struct flow *a, *b;

	(void)state;
	assert_int_equal(rl.ft.count[FLOW_FREE], 5);
	a = flow_open(&rl, &t1);
	b = flow_open(&rl, &t2);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->state, FLOW_TCP_CONNECTING);
	assert_int_equal(flow_half_open(&rl.ft), 2);
	assert_null(flow_open(&rl, &t3));
	assert_non_null(
		strstr(logged, "\"port\":80,\"verdict\":\"deny\",\"rule\":\"max-half-open\""));
	assert_string_equal(warned, "relay: --max-half-open 2 reached: refusing a new flow");

	flow_set_state(&rl.ft, a, FLOW_TCP_SYNACK);
	assert_int_equal(flow_half_open(&rl.ft), 2);
	flow_set_state(&rl.ft, a, FLOW_TCP_ESTABLISHED);
	assert_int_equal(flow_half_open(&rl.ft), 1);
	assert_non_null(flow_open(&rl, &t3));

	assert_non_null(flow_open(&rl, &u1));
	assert_int_equal(rl.ft.count[FLOW_UDP], 1);
	logged[0] = 0;
	assert_null(flow_open(&rl, &u2));
	assert_non_null(strstr(logged, "\"verdict\":\"deny\",\"rule\":\"max-udp-flows\""));

	assert_int_equal(flow_open(&rl, &e1)->state, FLOW_ECHO);
	assert_int_equal(flow_used(&rl.ft), 5);
	logged[0] = 0;
	assert_null(flow_open(&rl, &t4));
	assert_non_null(strstr(logged, "\"verdict\":\"deny\",\"rule\":\"max-flows\""));

	/* Freed, each in its state: the counts are back where they started. */
	assert_int_equal(flow_free(&rl, a), FLOW_FREED);
	assert_int_equal(flow_free(&rl, b), FLOW_FREED);
	assert_int_equal(flow_half_open(&rl.ft), 1);
	assert_int_equal(rl.ft.count[FLOW_TCP_ESTABLISHED], 0);
	assert_int_equal(flow_used(&rl.ft), 3);
	assert_int_equal(closed, 2);
}

/* flow_find finds a flow by its packet's key, and no longer once it is freed. */
static void test_find_by_key(void **state)
{
	struct pkt t1 = P(PROTO_TCP, 40001), u1 = P(PROTO_UDP, 40001);
	struct flow *a;

	(void)state;
	a = flow_open(&rl, &t1);
	assert_non_null(a);
	assert_ptr_equal(flow_find(&rl, &t1), a);
	assert_null(flow_find(&rl, &u1)); /* the same ports, another protocol */
	flow_free(&rl, a);
	assert_null(flow_find(&rl, &t1));
}

/*
 * An event for a flow freed earlier in the same batch names its slot and
 * generation: flow_at finds nothing, though a new flow took the slot.
 */
static void test_stale_event_misses_the_new_flow(void **state)
{
	struct pkt t1 = P(PROTO_TCP, 40001), t2 = P(PROTO_TCP, 40002);
	struct flow *a, *b;
	uint64_t old, now;

	(void)state;
	a = flow_open(&rl, &t1);
	assert_non_null(a);
	old = ev_ref(EV_TCP, (uint32_t)(a - rl.ft.flows), a->gen);
	assert_int_equal(ev_type(old), EV_TCP);
	assert_ptr_equal(flow_at(&rl.ft, old), a);
	flow_free(&rl, a);
	assert_null(flow_at(&rl.ft, old));
	b = flow_open(&rl, &t2);
	assert_ptr_equal(b, a); /* the same slot, taken again */
	assert_null(flow_at(&rl.ft, old));
	now = ev_ref(EV_TCP, (uint32_t)(b - rl.ft.flows), b->gen);
	assert_ptr_equal(flow_at(&rl.ft, now), b);
	assert_null(flow_at(&rl.ft, ev_ref(EV_TCP, 5, 0))); /* past the table */
}

/*
 * A connect() that failed ends the flow: tcp_sock_event says FLOW_FREED, the
 * slot is free, the socket closed, and the agent got a RST for its SYN.
 */
static void test_failed_connect_frees_the_flow(void **state)
{
	struct pkt syn = P(PROTO_TCP, 40001);
	struct flow *f;
	struct pkt rst;

	(void)state;
	syn.seq = 1000;
	tcp_input(&rl, &syn);
	f = flow_find(&rl, &syn);
	assert_non_null(f);
	assert_int_equal(f->state, FLOW_TCP_CONNECTING);
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT), FLOW_KEPT);
	assert_int_equal(f->state, FLOW_TCP_SYNACK);

	syn.sport = 40002;
	tcp_input(&rl, &syn);
	f = flow_find(&rl, &syn);
	assert_non_null(f);
	so_error = ECONNREFUSED;
	tun_out_len = 0;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT | EPOLLERR), FLOW_FREED);
	assert_int_equal(f->state, FLOW_FREE);
	assert_null(flow_find(&rl, &syn));
	assert_int_equal(closed, 1);
	assert_int_equal(flow_half_open(&rl.ft), 1);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &rst), 0);
	assert_int_equal(rst.flags, TH_RST | TH_ACK);
	assert_int_equal(rst.ack, 1001);
	assert_int_equal(rst.dport, 40002);
}

/*
 * A TCP flow to a gateway port on 10.0.2.4 goes to the gateway: one end of a
 * socket pair is the flow's socket, connected (its first EPOLLOUT makes the
 * SYN-ACK, with an Ethernet link's MSS), the other end is sent with the port
 * and closed here. Another port there is private; without a gateway socket,
 * so is the gateway's port; a gateway that takes nothing refuses the flow,
 * both ends closed, and says so.
 */
static void test_gateway_route(void **state)
{
	struct pkt syn = P(PROTO_TCP, 40001), synack;
	struct flow *f;

	(void)state;
	assert_int_equal(ipaddr_parse("10.0.2.4", &filt.gw4), 0);
	filt.gw_port[0] = 8001;
	filt.gw_port[1] = 8002;
	filt.ngw = 2;
	assert_int_equal(ipaddr_parse("10.0.2.4", &syn.dst), 0);
	syn.dport = 8002;
	syn.seq = 1000;

	/* No gateway socket: refused. */
	assert_null(flow_open(&rl, &syn));
	assert_non_null(strstr(logged, "\"port\":8002,\"verdict\":\"deny\",\"rule\":\"gateway\""));

	cfg.gateway_fd = GW_FD;
	logged[0] = 0;
	tcp_input(&rl, &syn);
	f = flow_find(&rl, &syn);
	assert_non_null(f);
	assert_non_null(strstr(logged, "\"port\":8002,\"verdict\":\"allow\",\"rule\":\"gateway\""));
	assert_int_equal(f->route, ROUTE_GATEWAY);
	assert_int_equal(f->fd, 100);
	assert_int_equal(gw_fd, 101);
	assert_int_equal(gw_port, 8002);
	assert_int_equal(closed, 1); /* the gateway's end, ours no more */
	assert_int_equal(f->state, FLOW_TCP_CONNECTING);
	tun_out_len = 0;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT), FLOW_KEPT);
	assert_int_equal(f->state, FLOW_TCP_SYNACK);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &synack), 0);
	assert_int_equal(synack.flags, TH_SYN | TH_ACK);
	assert_int_equal(synack.mss, 1460);

	/* A port the gateway does not serve: private, as 10.0.2.4 is. */
	syn.dport = 8003;
	syn.sport = 40002;
	logged[0] = 0;
	assert_null(flow_open(&rl, &syn));
	assert_non_null(strstr(logged, "\"port\":8003,\"verdict\":\"deny\",\"rule\":\"special:"));

	/* A gateway that takes nothing: refused, both ends closed, a warning. */
	syn.dport = 8001;
	gw_errno = EAGAIN;
	closed = 0;
	assert_null(flow_open(&rl, &syn));
	assert_int_equal(closed, 2);
	assert_string_equal(warned, "relay: unable to hand a flow to the gateway (port 8001): "
				    "Resource temporarily unavailable");
	cfg.gateway_fd = -1;
	filt.ngw = 0;
}

/*
 * A drain of the host socket that moves the window's edge by less than the
 * agent's 64 KiB segments towards it, but by more than the 1448 bytes the
 * agent was offered, is announced at once: the agent must not wait for its
 * persist timer.
 */
static void test_drain_announces_a_window_of_one_offered_segment(void **state)
{
	struct pkt syn = P(PROTO_TCP, 40001), upd;
	struct flow *f;

	(void)state;
	syn.seq = 1000;
	syn.mss = 65480;
	tcp_input(&rl, &syn);
	f = flow_find(&rl, &syn);
	assert_non_null(f);
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT), FLOW_KEPT);
	assert_int_equal(f->rmss, 1448);
	assert_int_equal(f->seg, 65480);
	flow_set_state(&rl.ft, f, FLOW_TCP_ESTABLISHED);
	f->ack_pending = 0;
	f->adv_edge = f->rcv_nxt + 1000;
	f->drain_watch = 1;
	mem_sndbuf = 60000; /* room: 30000 bytes, half the free buffer */
	tun_out_len = 0;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT), FLOW_KEPT);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &upd), 0);
	assert_int_equal(upd.flags, TH_ACK);
	assert_int_equal(upd.ack, f->rcv_nxt);
	assert_int_equal(upd.win, 30000);
}

/* A UDP flow idle past --udp-idle is freed by its timer, not before. */
static void test_udp_idle_timer(void **state)
{
	struct pkt u1 = P(PROTO_UDP, 40001);
	struct flow *f;

	(void)state;
	f = flow_open(&rl, &u1);
	assert_non_null(f);
	rl.now += 2000;
	flow_timers(&rl);
	assert_int_equal(f->state, FLOW_UDP);
	rl.now += 1;
	flow_timers(&rl);
	assert_int_equal(f->state, FLOW_FREE);
	assert_int_equal(rl.ft.count[FLOW_UDP], 0);
}

/* An established TCP flow from the agent to dst:port (its SYN-ACK acknowledged). */
static struct flow *tcp_established(const char *dst, uint16_t port)
{
	struct pkt syn = P(PROTO_TCP, 40001);
	struct flow *f;

	syn.seq = 1000;
	syn.mss = 65480;
	assert_int_equal(ipaddr_parse(dst, &syn.dst), 0);
	syn.dport = port;
	tcp_input(&rl, &syn);
	f = flow_find(&rl, &syn);
	assert_non_null(f);
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLOUT), FLOW_KEPT);
	flow_set_state(&rl.ft, f, FLOW_TCP_ESTABLISHED);
	f->agent_wnd = 65535;
	tun_out_len = 0;
	return f;
}

/*
 * DNS over TCP: an answer reaches the agent only whole, and filtered: its
 * private address hidden, the answer NXDOMAIN, its length kept.
 */
static void test_dns_over_tcp_whole_answers_filtered(void **state)
{
	static const uint8_t ANS[] = {
		0,    42,						/* the length */
		0x12, 0x34, 0x81, 0x80, 0, 1,	0,   1,	  0,   0, 0, 0, /* header */
		3,    'l',  'a',  'n',	4, 't', 'e', 's', 't', 0, 0, 1,	 0,  1, 0xc0,
		12,   0,    1,	  0,	1, 0,	0,   0,	  30,  0, 4, 10, 77, 0, 5,
	};
	struct flow *f;
	struct pkt out;

	(void)state;
	assert_int_equal(ipaddr_parse("10.0.2.3", &filt.dns4), 0);
	assert_int_equal(ipaddr_parse("203.0.113.53", &cfg.resolver), 0);
	f = tcp_established("10.0.2.3", 53);
	assert_int_equal(f->route, ROUTE_DNS);
	assert_true(f->buffered);
	/* Half of it: nothing for the agent yet. */
	rx = ANS;
	rx_len = 20;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLIN), FLOW_KEPT);
	assert_int_equal(tun_out_len, 0);
	assert_int_equal(f->dns_ready, 0);
	/* The rest: the whole answer, filtered. */
	rx_len = sizeof(ANS) - 20;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLIN), FLOW_KEPT);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &out), 0);
	assert_int_equal(out.dlen, sizeof(ANS));
	assert_memory_equal(out.data, "\0\52\x12\x34\x81\x83\0\1\0\0\0\0\0\0", 14);
	for (size_t i = 2 + 26; i < sizeof(ANS); i++)
		assert_int_equal(out.data[i], 0);
	assert_non_null(strstr(
	    logged, "\"name\":\"lan.test\",\"verdict\":\"deny\",\"rule\":\"private-answer\""));
}

/*
 * A flow a name allowed (under --no-public): a ClientHello or Host naming
 * another name resets it both ways; one naming the bound name goes on.
 */
static void test_name_flow_first_bytes_checked(void **state)
{
	static const char OTHER[] = "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n";
	static const char MINE[] = "GET / HTTP/1.1\r\nHost: a.inet.test\r\n\r\n";
	static const uint8_t ANS[] = {
		0x12, 0x34, 0x81, 0x80, 0, 1,	0,   1,	  0,   0, 0, 0,	  1, 'a', 4,
		'i',  'n',  'e',  't',	4, 't', 'e', 's', 't', 0, 0, 1,	  0, 1,	  0xc0,
		12,   0,    1,	  0,	1, 0,	0,   0,	  30,  0, 4, 203, 0, 113, 10,
	};
	struct pkt data, out;
	struct flow *f;
	uint8_t m[sizeof(ANS)];
	int tcp_closed;

	(void)state;
	/* The relay made again with a name rule, under --no-public. */
	teardown(state);
	strcpy(filt.names[0].pat, "*.inet.test");
	filt.nnames = 1;
	filt.no_public = 1;
	cfg.name_ttl_min = 60;
	assert_int_equal(relay_init(&rl, &cfg, &fake, TUN_FD), 0);
	rl.now = 1000000;
	/* Before any answer, the address is refused; after one, allowed by the name. */
	f = flow_open(&rl, &(struct pkt){ .family = AF_INET,
					  .proto = PROTO_TCP,
					  .src = P(PROTO_TCP, 1).src,
					  .dst = P(PROTO_TCP, 1).dst,
					  .sport = 1,
					  .dport = 80 });
	assert_null(f);
	memcpy(m, ANS, sizeof(m));
	assert_int_equal(
	    names_answer(&rl, &(struct flow){ .asrc = P(PROTO_TCP, 1).src }, m, sizeof(m), 0),
	    sizeof(m));
	f = tcp_established("203.0.113.10", 80);
	assert_true(f->name_check);
	assert_non_null(strstr(
	    logged, "\"rule\":\"name\",\"name\":\"a.inet.test\",\"pattern\":\"*.inet.test\"}"));
	data = P(PROTO_TCP, 40001);
	data.flags = TH_ACK;
	data.seq = 1001;
	data.ack = f->iss + 1;
	data.data = (const uint8_t *)OTHER;
	data.dlen = sizeof(OTHER) - 1;
	tcp_closed = closed;
	tcp_input(&rl, &data);
	assert_int_equal(f->state, FLOW_FREE);
	assert_int_equal(closed, tcp_closed + 1);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &out), 0);
	assert_int_equal(out.flags, TH_RST | TH_ACK);
	assert_non_null(strstr(logged, "\"rule\":\"name-mismatch\",\"name\":\"other.test\"}"));
	/* The bound name: the flow goes on, checked once. */
	f = tcp_established("203.0.113.10", 80);
	data.ack = f->iss + 1;
	data.data = (const uint8_t *)MINE;
	data.dlen = sizeof(MINE) - 1;
	tcp_input(&rl, &data);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	assert_false(f->name_check);
}

/* Under --no-public with a name rule, a question over TCP about another name resets the flow. */
static void test_dns_over_tcp_question_judged(void **state)
{
	static const uint8_t OTHER[] = { 0, 28,	 0x12, 0x34, 1,	  0,   0,   1,	 0,   0,
					 0, 0,	 0,    0,    5,	  'o', 't', 'h', 'e', 'r',
					 4, 't', 'e',  's',  't', 0,   0,   1,	 0,   1 };
	static const uint8_t MINE[] = { 0,   29,  0x12, 0x34, 1,   0, 0,   1,	0,   0,	  0,
					0,   0,	  0,	1,    'a', 4, 'i', 'n', 'e', 't', 4,
					't', 'e', 's',	't',  0,   0, 1,   0,	1 };
	struct pkt data;
	struct flow *f;

	teardown(state);
	strcpy(filt.names[0].pat, "*.inet.test");
	filt.nnames = 1;
	filt.no_public = 1;
	assert_int_equal(ipaddr_parse("10.0.2.3", &filt.dns4), 0);
	assert_int_equal(ipaddr_parse("203.0.113.53", &cfg.resolver), 0);
	assert_int_equal(relay_init(&rl, &cfg, &fake, TUN_FD), 0);
	rl.now = 1000000;
	data = P(PROTO_TCP, 40001);
	assert_int_equal(ipaddr_parse("10.0.2.3", &data.dst), 0);
	data.dport = 53;
	data.flags = TH_ACK;
	data.seq = 1001;
	for (int i = 0; i < 3; i++) {
		f = tcp_established("10.0.2.3", 53);
		data.ack = f->iss + 1;
		/* Another name; half a question; a name the rule allows. */
		data.data = i == 2 ? MINE : OTHER;
		data.dlen = i == 0 ? sizeof(OTHER) : i == 1 ? 20 : sizeof(MINE);
		tcp_input(&rl, &data);
		assert_int_equal(f->state, i == 2 ? FLOW_TCP_ESTABLISHED : FLOW_FREE);
	}
	assert_non_null(
	    strstr(logged, "\"name\":\"other.test\",\"verdict\":\"deny\",\"rule\":\"no-name\""));
	assert_non_null(strstr(logged, "\"rule\":\"dns-malformed\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_state_named),
		cmocka_unit_test_setup_teardown(test_bounds_counted_per_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_by_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_event_misses_the_new_flow, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_connect_frees_the_flow, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_udp_idle_timer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dns_over_tcp_whole_answers_filtered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_flow_first_bytes_checked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dns_over_tcp_question_judged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gateway_route, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_drain_announces_a_window_of_one_offered_segment, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
