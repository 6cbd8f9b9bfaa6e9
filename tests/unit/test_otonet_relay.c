// UNIT: lib/cidr.c lib/opt.c cmd/otonet/pkt.c cmd/otonet/filter.c cmd/otonet/context.c
// UNIT: cmd/otonet/flow.c cmd/otonet/tcp.c cmd/otonet/tcp_flush.c cmd/otonet/dgram.c cmd/otonet/tun.c cmd/otonet/sys.c
// UNIT: lib/fd_msg_init.c lib/event_head.c cmd/otonet/record.c lib/record_thin.c
// UNIT: cmd/otonet/names.c cmd/otonet/dns.c cmd/otonet/sni.c cmd/otonet/follow.c
// UNIT: cmd/otonet/namecheck.c lib/http_req_parse.c lib/http_head_line.c lib/http_header_line.c lib/http_list_has.c
// UNIT: lib/http_value_ok.c lib/http_body_feed.c cmd/otonet/ask.c cmd/otonet/askline.c
// UNIT: cmd/otonet/admit.c cmd/otonet/gateway.c lib/policy_name_ok.c
// UNIT: lib/why_note.c lib/why_format.c lib/fd_recv.c
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
#define GW_FD  70
#define ASK_FD 80

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

/*
 * What the host socket holds for the next recv (rx_len bytes at rx), then
 * EAGAIN; peeks counts the recvs with MSG_PEEK.
 */
static const uint8_t *rx;
static size_t rx_len;
static int peeks;

static ssize_t f_recv(int fd, void *buf, size_t len, int flags)
{
	size_t n = len < rx_len ? len : rx_len;

	(void)fd;
	peeks += !!(flags & MSG_PEEK);
	if (!n) {
		errno = EAGAIN;
		return -1;
	}
	memcpy(buf, rx, n);
	rx += n;
	rx_len -= n;
	return (ssize_t)n;
}

/* What the host sockets (and the relay's own socket pairs) were given, in order. */
static uint8_t host_got[16384];
static size_t host_got_len;

static void got(const void *buf, size_t len)
{
	if (buf && host_got_len + len <= sizeof(host_got)) {
		memcpy(host_got + host_got_len, buf, len);
		host_got_len += len;
	}
}

static ssize_t f_send(int fd, const void *buf, size_t len, int flags)
{
	(void)fd, (void)flags;
	got(buf, len);
	return (ssize_t)len;
}

static ssize_t f_sendmsg(int fd, const struct msghdr *m, int flags)
{
	struct cmsghdr *cm;

	(void)flags;
	if (fd != GW_FD) {
		size_t len = 0;

		for (size_t i = 0; i < m->msg_iovlen; i++) {
			got(m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
			len += m->msg_iov[i].iov_len;
		}
		return (ssize_t)len;
	}
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
static const struct session sess = { .id = "s1" };

static int setup_as(int ask)
{
	memset(&filt, 0, sizeof(filt));
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(cidr_parse("203.0.113.0/24", &filt.pub[0]), 0);
	filt.npub = 1;
	cfg.f = &filt;
	cfg.log_fd = LOG_FD;
	cfg.session = &sess;
	cfg.max_flows = 5;
	cfg.max_half_open = 2;
	cfg.max_udp_flows = 1;
	cfg.tcp_idle_ms = 5000;
	cfg.udp_idle_ms = 2000;
	cfg.gateway_fd = -1;
	/* With a decider (--ask-fd, --no-public): its requests go to host_got. */
	filt.no_public = ask;
	cfg.ask = ask;
	cfg.ask_fd = ask ? ASK_FD : -1;
	cfg.ask_timeout_ms = 1000;
	assert_int_equal(relay_init(&rl, &cfg, &fake, TUN_FD), 0);
	rl.now = 1000000;
	next_fd = closed = so_error = 0;
	gw_port = gw_fd = gw_errno = 0;
	mem_sndbuf = mem_queued = 0;
	warned[0] = 0;
	logged[0] = 0;
	tun_out_len = 0;
	rx_len = 0;
	peeks = 0;
	host_got_len = 0;
	log_verbosity = -1;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_as(0);
}

static int setup_ask(void **state)
{
	(void)state;
	return setup_as(1);
}

/* The record forgets the kinds it counted: a test's next line is a first one again. */
static void record_forget(void)
{
	memset(rl.rec.kinds, 0, RECORD_KEYS * sizeof(*rl.rec.kinds));
	rl.rec.used = 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned long i = 0; i < cfg.max_flows; i++)
		if (rl.ft.flows[i].state != FLOW_FREE)
			flow_free(&rl, &rl.ft.flows[i]);
	flow_table_fini(&rl.ft);
	ask_fini(&rl.ask);
	names_fini(&rl.names);
	record_fini(&rl.rec);
	free(rl.batch);
	free(rl.vnet);
	free(rl.dns);
	return 0;
}

/* The agent (10.0.2.100) to 203.0.113.10:80 from sport, TCP or UDP. */
static struct pkt P(int proto, uint16_t sport) {
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
static void
test_every_state_named(void **state)
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
	assert_non_null(strstr(logged, "\"source\":\"dns\","));
	assert_non_null(strstr(logged,
			       "\"verdict\":\"deny\",\"proto\":\"tcp\",\"src\":\"10.0.2.100\","
			       "\"name\":\"lan.test\",\"type\":\"A\","
			       "\"outcome\":\"private-stripped\",\"rule\":\"private-answer\""));
}

/* The relay made again with rules (pattern, port), under --no-public, a.inet.test bound to INET4.
 */
static void name_relay(void **state, const char *pat2, uint16_t port2)
{
	static const uint8_t ANS[] = {
		0x12, 0x34, 0x81, 0x80, 0, 1,	0,   1,	  0,   0, 0, 0,	  1, 'a', 4,
		'i',  'n',  'e',  't',	4, 't', 'e', 's', 't', 0, 0, 1,	  0, 1,	  0xc0,
		12,   0,    1,	  0,	1, 0,	0,   0,	  30,  0, 4, 203, 0, 113, 10,
	};
	uint8_t m[sizeof(ANS)];

	teardown(state);
	strcpy(filt.names[0].pat, "*.inet.test");
	filt.nnames = 1;
	if (pat2) {
		strcpy(filt.names[1].pat, pat2);
		filt.names[1].port = port2;
		filt.nnames = 2;
	}
	filt.no_public = 1;
	cfg.name_ttl_min = 60;
	cfg.tcp_idle_ms = 60000; /* past the time to decide */
	assert_int_equal(relay_init(&rl, &cfg, &fake, TUN_FD), 0);
	rl.now = 1000000;
	memcpy(m, ANS, sizeof(m));
	assert_int_equal(
	    names_answer(&rl, &(struct flow){ .asrc = P(PROTO_TCP, 1).src }, m, sizeof(m), 0),
	    sizeof(m));
}

/* A flow to INET4:port, its handshake done as the agent does it (the ACK of our SYN-ACK). */
static struct flow *name_flow(uint16_t port)
{
	struct flow *f = tcp_established("203.0.113.10", port);
	struct pkt ack = P(PROTO_TCP, 40001);

	flow_set_state(&rl.ft, f, FLOW_TCP_SYNACK);
	ack.dport = port;
	ack.flags = TH_ACK;
	ack.seq = 1001;
	ack.ack = f->iss + 1;
	tcp_input(&rl, &ack);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	return f;
}

/* The agent's next n bytes at d on f. */
static void agent_sends(struct flow *f, const void *d, size_t n)
{
	struct pkt p = P(PROTO_TCP, 40001);

	p.dport = f->dport;
	p.flags = TH_ACK;
	p.seq = f->rcv_nxt;
	p.ack = f->iss + 1;
	p.data = d;
	p.dlen = n;
	tcp_input(&rl, &p);
}

/*
 * An upload: the agent's segments flush the flow, and a host socket found
 * empty is not asked again for each of them, only after EPOLLIN (every
 * arrival, edge-triggered) or a rewind, from where it then peeks again.
 */
static void test_upload_peeks_an_empty_socket_once(void **state)
{
	static const uint8_t HELLO[] = "hello";
	struct flow *f = tcp_established("203.0.113.10", 80);
	struct pkt out;

	(void)state;
	mem_sndbuf = 60000;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLIN), FLOW_KEPT);
	assert_int_equal(peeks, 1);
	for (int i = 0; i < 3; i++) {
		agent_sends(f, "x", 1);
		tcp_sends_flush(&rl); /* the end of a batch from the TUN */
	}
	assert_int_equal(peeks, 1);
	assert_int_equal(host_got_len, 3);
	/* The host's bytes arrive: peeked, sent on; a short peek proves nothing. */
	rx = HELLO;
	rx_len = 5;
	assert_int_equal(tcp_sock_event(&rl, f, EPOLLIN), FLOW_KEPT);
	assert_int_equal(peeks, 2);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &out), 0);
	assert_int_equal(out.seq, f->iss + 1);
	assert_int_equal(out.dlen, 5);
	agent_sends(f, "x", 1);
	assert_int_equal(peeks, 3);
	agent_sends(f, "x", 1);
	assert_int_equal(peeks, 3);
	/* Unacknowledged at the timeout: the peek starts again at snd_una. */
	rx = HELLO;
	rx_len = 5;
	tun_out_len = 0;
	rl.now = f->rto_at;
	assert_int_equal(tcp_timer(&rl, f), FLOW_KEPT);
	assert_int_equal(peeks, 4);
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &out), 0);
	assert_int_equal(out.seq, f->iss + 1);
	assert_int_equal(out.dlen, 5);
}

/* A ClientHello naming sni, in one record. */
static size_t client_hello(uint8_t *b, const char *sni)
{
	size_t l = strlen(sni), hs = 2 + 32 + 1 + 4 + 2 + 2 + 9 + l;

	memset(b, 0, 9 + hs);
	memcpy(b, "\x16\x03\x01", 3);
	b[3] = (uint8_t)((hs + 4) >> 8);
	b[4] = (uint8_t)(hs + 4);
	b[5] = 1;
	b[7] = (uint8_t)(hs >> 8);
	b[8] = (uint8_t)hs;
	b[9] = 3;
	b[10] = 3;
	/* random, session id 0; one cipher suite; one compression method (null) */
	memcpy(b + 9 + 35, "\x00\x02\x13\x01\x01\x00", 6);
	b[9 + 41] = (uint8_t)((9 + l) >> 8);
	b[9 + 42] = (uint8_t)(9 + l);
	/* server_name: type 0, its length, the list's, host_name 0, the name's */
	b[9 + 46] = (uint8_t)(5 + l);
	b[9 + 48] = (uint8_t)(3 + l);
	b[9 + 51] = (uint8_t)l;
	memcpy(b + 9 + 52, sni, l);
	return 9 + hs;
}

/*
 * A ClientHello cut anywhere: held, acknowledged, and nothing of it reaches
 * the host until it is whole; then a refused name resets both ways (logged
 * as every line is: time, source), an allowed one goes on, whole, once.
 */
static void test_name_flow_hello_judged_whole(void **state)
{
	uint8_t mine[512], other[512];
	size_t nm = client_hello(mine, "a.inet.test"), no = client_hello(other, "other.test");
	struct flow *f;
	struct pkt out;

	name_relay(state, NULL, 0);
	assert_int_equal(client_hello(other, "other.test"), no);
	for (size_t k = 1; k < no; k++) {
		f = name_flow(443);
		assert_int_equal(f->nphase, NP_FIRST);
		host_got_len = 0;
		logged[0] = 0;
		record_forget(); /* each cut's own line, not thinned */
		agent_sends(f, other, k);
		assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
		assert_int_equal(f->rcv_nxt, 1001 + k); /* taken: acknowledged */
		assert_int_equal(host_got_len, 0);
		assert_int_equal(f->hold->len, k);
		agent_sends(f, other + k, no - k);
		assert_int_equal(f->state, FLOW_FREE);
		assert_int_equal(host_got_len, 0);
		assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &out), 0);
		assert_int_equal(out.flags, TH_RST | TH_ACK);
		assert_non_null(strstr(logged,
				       "{\"time\":\"1970-01-01T00:16:40.000000Z\","
				       "\"source\":\"net\",\"session\":\"s1\",\"proto\":\"tcp\","
				       "\"src\":\"10.0.2.100\",\"dst\":\"203.0.113.10\","
				       "\"port\":443,\"verdict\":\"deny\","
				       "\"rule\":\"sni-mismatch\",\"name\":\"other.test\"}\n"));
		assert_int_equal(rl.names.held, 0);
	}
	for (size_t k = 1; k < nm; k++) {
		f = name_flow(443);
		host_got_len = 0;
		agent_sends(f, mine, k);
		assert_int_equal(host_got_len, 0);
		agent_sends(f, mine + k, nm - k);
		assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
		assert_int_equal(f->nphase, NP_PASS);
		assert_int_equal(host_got_len, nm);
		assert_memory_equal(host_got, mine, nm);
		assert_null(f->hold);
		assert_int_equal(rl.names.held, 0);
		assert_int_equal(f->undecided_at, 0);
		flow_free(&rl, f);
	}
}

/*
 * Plain HTTP: a first request for another name is answered with the
 * relay's 403 (a socket pair in the host socket's place, the host's peer
 * reset); a second request on a kept-alive flow, cut in two, with another
 * Host is reset, its first bytes never at the host; WebDAV's PROPFIND is
 * judged as any method.
 */
static void test_name_flow_every_request_judged(void **state)
{
	static const char OTHER[] = "PROPFIND / HTTP/1.1\r\nHost: other.test\r\n\r\n";
	static const char MINE[] =
	    "POST / HTTP/1.1\r\nHost: a.inet.test\r\nContent-Length: 5\r\n\r\n"
	    "GET /";
	static const char NEXT[] = "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n";
	static const char FORBIDDEN[] = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
					"Content-Length: 50\r\nConnection: close\r\n\r\n"
					"otonet: other.test is not allowed by --allow-name\n";
	struct flow *f;
	int fd;

	name_relay(state, NULL, 0);
	f = name_flow(80);
	fd = f->fd;
	host_got_len = 0;
	agent_sends(f, OTHER, sizeof(OTHER) - 1);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	assert_int_equal(f->route, ROUTE_LOCAL);
	assert_int_equal(f->nphase, NP_ANSWERED);
	assert_int_not_equal(f->fd, fd);
	assert_int_equal(f->rcv_nxt, 1001 + sizeof(OTHER) - 1);
	assert_int_equal(host_got_len, sizeof(FORBIDDEN) - 1); /* into the pair, not the host */
	assert_memory_equal(host_got, FORBIDDEN, sizeof(FORBIDDEN) - 1);
	assert_non_null(strstr(logged,
			       "\"port\":80,\"verdict\":\"deny\",\"rule\":\"host-mismatch\","
			       "\"name\":\"other.test\"}\n"));
	/* More from the agent after the answer: taken and dropped. */
	host_got_len = 0;
	agent_sends(f, "x", 1);
	assert_int_equal(host_got_len, 0);
	assert_int_equal(f->rcv_nxt, 1001 + sizeof(OTHER));
	flow_free(&rl, f);

	f = name_flow(80);
	host_got_len = 0;
	logged[0] = 0;
	record_forget();
	agent_sends(f, MINE, sizeof(MINE) - 1);
	assert_int_equal(f->nphase, NP_HTTP);
	/* The body's five bytes went ("GET /"), not judged as a head. */
	assert_int_equal(host_got_len, sizeof(MINE) - 1);
	agent_sends(f, NEXT, 10);
	assert_int_equal(host_got_len, sizeof(MINE) - 1);
	assert_non_null(f->hold);
	assert_true(f->undecided_at > 0);
	agent_sends(f, NEXT + 10, sizeof(NEXT) - 11);
	assert_int_equal(f->state, FLOW_FREE);
	assert_int_equal(host_got_len, sizeof(MINE) - 1);
	assert_non_null(strstr(logged, "\"rule\":\"host-mismatch\",\"name\":\"other.test\"}\n"));
	assert_int_equal(rl.names.held, 0);
}

/* Neither TLS nor HTTP, and a flow that never decides: reset, each logged with its reason. */
static void test_name_flow_neither_and_undecided(void **state)
{
	struct flow *f;

	name_relay(state, NULL, 0);
	f = name_flow(443);
	agent_sends(f, "SSH-2.0-x\r\n", 11);
	assert_int_equal(f->state, FLOW_FREE);
	assert_int_equal(host_got_len, 0);
	assert_non_null(strstr(logged, "\"port\":443,\"verdict\":\"deny\","
				       "\"rule\":\"not-tls-or-http\"}\n"));
	f = name_flow(80);
	agent_sends(f, "GET / HTTP/1.1\r\nHost: a", 24);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	rl.now += NAMES_DECIDE_MS - 1;
	flow_timers(&rl);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	rl.now += 1;
	flow_timers(&rl);
	assert_int_equal(f->state, FLOW_FREE);
	assert_int_equal(host_got_len, 0);
	assert_non_null(
	    strstr(logged, "\"port\":80,\"verdict\":\"deny\",\"rule\":\"undecided\"}\n"));
	assert_int_equal(rl.names.held, 0);
	/* Bytes that would pass the relay-wide bound: reset, warned. */
	f = name_flow(80);
	rl.names.held = NAMES_HELD_MAX - 100;
	agent_sends(f, "GET / HTTP/1.1\r\n", 16);
	assert_int_equal(f->state, FLOW_FREE);
	assert_non_null(strstr(logged, "\"rule\":\"held-full\"}\n"));
	assert_non_null(strstr(warned, "bytes held for --allow-name checks, the bound"));
	rl.names.held = 0;
}

/*
 * PATTERN alone: 80 and 443, checked; any other port refused. PATTERN:PORT:
 * that port, any protocol, not checked.
 */
static void test_name_rule_ports(void **state)
{
	struct pkt syn = P(PROTO_TCP, 40001);
	struct flow *f;

	name_relay(state, NULL, 0);
	syn.dport = 22;
	assert_null(flow_open(&rl, &syn));
	assert_non_null(strstr(logged, "\"port\":22,\"verdict\":\"deny\",\"rule\":\"no-public\"}"));
	name_relay(state, "a.inet.test", 22);
	f = name_flow(22);
	assert_int_equal(f->nphase, NP_NONE);
	assert_non_null(strstr(
	    logged, "\"rule\":\"name\",\"name\":\"a.inet.test\",\"pattern\":\"a.inet.test\"}"));
	host_got_len = 0;
	agent_sends(f, "SSH-2.0-x\r\n", 11);
	assert_int_equal(f->state, FLOW_TCP_ESTABLISHED);
	flow_free(&rl, f);
	/* 443 still checked, by the rule without a port. */
	f = name_flow(443);
	assert_int_equal(f->nphase, NP_FIRST);
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
	assert_non_null(strstr(logged,
			       "\"verdict\":\"deny\",\"proto\":\"tcp\",\"src\":\"10.0.2.100\","
			       "\"name\":\"other.test\",\"type\":\"A\",\"outcome\":\"reset\","
			       "\"rule\":\"no-name\""));
	assert_non_null(strstr(logged, "\"name\":\"\",\"type\":\"\",\"outcome\":\"reset\","
				       "\"rule\":\"dns-malformed\""));
}

/* The decider's requests so far: one line each. */
static int requests(void)
{
	int n = 0;

	for (size_t i = 0; i < host_got_len; i++)
		n += host_got[i] == '\n';
	return n;
}

/*
 * The agent's kernel sends its SYN again on its own clock (1 s, then 3 s,
 * ...), and one may cross the answer: a SYN of the attempt a question
 * refused, read after its RST, is the same attempt (addresses, ports and
 * initial sequence number), reset again, never asked again, and not logged
 * again: the attempt has its question's and its outcome's lines. Another
 * attempt, from the same port or another, is a new question.
 */
static void test_ask_syn_again_after_the_answer(void **state)
{
	struct pkt syn = P(PROTO_TCP, 40001), rst;

	(void)state;
	syn.seq = 1000;
	tcp_input(&rl, &syn);
	assert_int_equal(flow_find(&rl, &syn)->state, FLOW_TCP_ASKING);
	assert_int_equal(requests(), 1);
	/* Again while the question is pending: held, not asked. */
	tcp_input(&rl, &syn);
	assert_int_equal(requests(), 1);
	/* No answer in time: a deny, the RST out. */
	rl.now += 1000;
	tun_out_len = 0;
	ask_timers(&rl);
	flow_answers(&rl); /* the denial acted on by the flow's protocol */
	assert_null(flow_find(&rl, &syn));
	assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &rst), 0);
	assert_int_equal(rst.flags, TH_RST | TH_ACK);
	assert_int_equal(rst.ack, 1001);
	assert_non_null(strstr(logged, "\"verdict\":\"deny\",\"rule\":\"ask\","
				       "\"decision\":\"timeout\",\"ask\":1}"));
	/* The same SYN once more, and later still: reset, neither asked nor logged. */
	for (int i = 0; i < 2; i++) {
		logged[0] = 0;
		tun_out_len = 0;
		tcp_input(&rl, &syn);
		assert_int_equal(requests(), 1);
		assert_null(flow_find(&rl, &syn));
		assert_int_equal(pkt_parse_vnet(tun_out, tun_out_len, &rst), 0);
		assert_int_equal(rst.flags, TH_RST | TH_ACK);
		assert_int_equal(rst.ack, 1001);
		assert_int_equal(rst.dport, 40001);
		assert_string_equal(logged, "");
		rl.now += 30000;
	}
	/* A new attempt from the same port, and one from another: asked. */
	syn.seq = 7000;
	tcp_input(&rl, &syn);
	assert_int_equal(flow_find(&rl, &syn)->state, FLOW_TCP_ASKING);
	assert_int_equal(requests(), 2);
	syn.sport = 40002;
	syn.seq = 1000;
	tcp_input(&rl, &syn);
	assert_int_equal(flow_find(&rl, &syn)->state, FLOW_TCP_ASKING);
	assert_int_equal(requests(), 2); /* the same destination: one question */
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
		cmocka_unit_test_setup_teardown(test_name_flow_hello_judged_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_flow_every_request_judged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_flow_neither_and_undecided, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_rule_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dns_over_tcp_question_judged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gateway_route, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_drain_announces_a_window_of_one_offered_segment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_peeks_an_empty_socket_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ask_syn_again_after_the_answer, setup_ask,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
