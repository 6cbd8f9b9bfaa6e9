// FUZZ: cmd/otonet/relay.c cmd/otonet/context.c cmd/otonet/flow.c cmd/otonet/tcp.c cmd/otonet/tcp_flush.c
// FUZZ: cmd/otonet/dgram.c cmd/otonet/tun.c cmd/otonet/sys.c cmd/otonet/lockdown.c
// FUZZ: cmd/otonet/seccomp.c
// FUZZ: cmd/otonet/pkt.c cmd/otonet/filter.c
// FUZZ: cmd/otonet/names.c cmd/otonet/dns.c cmd/otonet/sni.c cmd/otonet/follow.c
// FUZZ: cmd/otonet/namecheck.c cmd/otonet/ask.c cmd/otonet/askline.c cmd/otonet/record.c
// FUZZ: lib/cidr.c lib/opt.c lib/log.c lib/status.c lib/wait.c
// FUZZ: cmd/otonet/admit.c cmd/otonet/gateway.c
/*
 * The relay's packet path with no real socket: parse, classify, the flow
 * table, the TCP state machine, the bounds, the buffered path and the timers.
 * The seam is the relay's table of system calls (struct relay_sys), filled
 * here with fakes whose results (bytes read, bytes taken, errors, connect
 * outcomes, the clock) come from the fuzzer's input, like the packets
 * themselves. With the first byte's second bit, the internet is closed
 * (--no-public) and a.test bound to the fake internet's address: flows to
 * port 80 there are judged (namecheck.c), their data pieces of a request
 * stream or a ClientHello cut where the input says. With its third bit,
 * a.test:80 is a transparent grant's host too (OTO_GATEWAY's
 * 81=a.test:80): a ClientHello naming it hands the flow to the gateway
 * (namecheck.c), in whatever pieces it came. Every TCP, UDP or echo packet the relay writes
 * to the TUN must parse and go to the agent's address.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otonet/otonet.h"
#include "otonet/relay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the input, read as a script ------------------------------------------- */

static const uint8_t *in;
static size_t inlen, inpos;

static unsigned int take(unsigned int bytes)
{
	unsigned int v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v = v << 8 | (inpos < inlen ? in[inpos++] : 0);
	return v;
}

static int more(void)
{
	return inpos < inlen;
}

/* ---- the fakes ------------------------------------------------------------------ */

#define FAKE_FD 1000
static int next_fd;
static uint64_t fake_ms;
static int tun_reads; /* packets still to hand to tun_batch */
static uint8_t tun_buf[VNET_HLEN + NET_MTU + 128], *const tun_pkt = tun_buf + VNET_HLEN;
static size_t tun_pkt_len;

static int fz_socket(int d, int t, int p)
{
	(void)d, (void)t, (void)p;
	if (take(1) == 0xff) {
		errno = EMFILE;
		return -1;
	}
	return FAKE_FD + next_fd++;
}

static int fz_socketpair(int d, int t, int p, int sv[2])
{
	(void)d, (void)t, (void)p;
	if (take(1) == 0xff) {
		errno = EMFILE;
		return -1;
	}
	sv[0] = FAKE_FD + next_fd++;
	sv[1] = FAKE_FD + next_fd++;
	return 0;
}

static int fz_connect(int fd, const struct sockaddr *sa, socklen_t l)
{
	static const int ERR[] = { EINPROGRESS, EINPROGRESS, 0, ENETUNREACH, EADDRNOTAVAIL };

	(void)fd, (void)sa, (void)l;
	errno = ERR[take(1) % 5];
	return errno ? -1 : 0;
}

static int fz_setsockopt(int fd, int lvl, int name, const void *v, socklen_t l)
{
	(void)fd, (void)lvl, (void)v, (void)l;
	if (name == SO_PEEK_OFF && (take(1) & 1)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int fz_getsockopt(int fd, int lvl, int name, void *v, socklen_t *l)
{
	(void)fd, (void)lvl;
	if (name == SO_ERROR && *l >= sizeof(int)) {
		*(int *)v = take(1) % 4 == 3 ? ECONNREFUSED : 0;
		return 0;
	}
	if (name == SO_MEMINFO) {
		uint32_t *mi = v;

		memset(v, 0, *l);
		if (*l >= SK_MEMINFO_VARS * sizeof(uint32_t)) {
			mi[SK_MEMINFO_SNDBUF] = take(3);
			mi[SK_MEMINFO_WMEM_QUEUED] = take(2);
		}
		return 0;
	}
	if (name == TCP_INFO) {
		struct tcp_info *ti = v;

		memset(v, 0, *l);
		/* The host path's segment size, offered to the agent (tcp_agent_mss). */
		if (*l >= sizeof(*ti))
			ti->tcpi_advmss = take(2);
		return 0;
	}
	memset(v, 0, *l);
	return 0;
}

/* Host data: any length up to what was asked, EOF, or an error. */
static ssize_t fz_recv(int fd, void *buf, size_t len, int flags)
{
	unsigned int k = take(1);
	size_t n;

	(void)fd;
	if (k == 0 || !len) {
		errno = EAGAIN;
		return -1;
	}
	if (k == 1)
		return 0;
	if (k == 2 || k == 3) {
		errno = k == 2 ? ECONNRESET : ECONNREFUSED;
		return -1;
	}
	/* Mostly short reads: long ones cost checksums, not coverage. */
	n = k < 128 ? k : k < 250 ? (size_t)(k - 128) * 64 : k < 254 ? 9000 : len;
	if (n > len)
		n = len;
	(void)flags;
	if (buf)
		memset(buf, (int)k, n);
	return (ssize_t)n;
}

static ssize_t fz_send(int fd, const void *buf, size_t len, int flags)
{
	unsigned int k = take(1);

	(void)fd, (void)buf, (void)flags;
	if (k == 0) {
		errno = EAGAIN;
		return -1;
	}
	if (k == 1) {
		errno = EPIPE;
		return -1;
	}
	if (k == 2) {
		errno = ECONNREFUSED;
		return -1;
	}
	return (ssize_t)(k & 1 ? len : len * (k >> 1) / 128);
}

static ssize_t fz_sendmsg(int fd, const struct msghdr *m, int flags)
{
	size_t len = 0;

	/* The gathered pieces must still be there: each one is read through. */
	for (size_t i = 0; i < m->msg_iovlen; i++) {
		const volatile uint8_t *b = m->msg_iov[i].iov_base;

		for (size_t j = 0; j < m->msg_iov[i].iov_len; j++)
			(void)b[j];
		len += m->msg_iov[i].iov_len;
	}
	return fz_send(fd, NULL, len, flags);
}

static int fz_shutdown(int fd, int how)
{
	(void)fd, (void)how;
	return 0;
}

static int fz_close(int fd)
{
	if (fd >= FAKE_FD)
		return 0;
	return close(fd);
}

static int fz_epoll_ctl(int e, int op, int fd, struct epoll_event *ev)
{
	(void)e, (void)op, (void)fd, (void)ev;
	return 0;
}

static int tunfd_fake = FAKE_FD - 1;

/* What the relay writes to the TUN: a packet for the agent, well formed. */
static ssize_t fz_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	struct pkt p;

	if (fd != tunfd_fake)
		return (ssize_t)len;
	if (len < VNET_HLEN + 20)
		abort();
	const uint8_t *ip = b + VNET_HLEN;
	int proto = ip[0] >> 4 == 4 ? ip[9] : ip[6];

	if (proto == PROTO_TCP || proto == PROTO_UDP) {
		static const uint8_t A4[4] = { 10, 0, 2, 100 };
		static const uint8_t A6[16] = { 0xfd, [15] = 0x00, [14] = 0x01 };

		if (pkt_parse_vnet(b, len, &p) < 0)
			abort();
		if (p.family == AF_INET ? memcmp(p.dst.a, A4, 4) : memcmp(p.dst.a, A6, 16))
			abort();
	}
	return (ssize_t)len;
}

static ssize_t fz_read(int fd, void *buf, size_t len)
{
	if (fd != tunfd_fake || !tun_reads) {
		errno = EAGAIN;
		return -1;
	}
	tun_reads--;
	if (VNET_HLEN + tun_pkt_len > len)
		abort();
	memcpy(buf, tun_buf, VNET_HLEN + tun_pkt_len);
	return (ssize_t)(VNET_HLEN + tun_pkt_len);
}

static int fz_clock_gettime(clockid_t c, struct timespec *ts)
{
	(void)c;
	ts->tv_sec = (time_t)(fake_ms / 1000);
	ts->tv_nsec = (long)(fake_ms % 1000) * 1000000;
	return 0;
}

static const struct relay_sys fz_sys = {
	.socket = fz_socket,
	.socketpair = fz_socketpair,
	.connect = fz_connect,
	.setsockopt = fz_setsockopt,
	.getsockopt = fz_getsockopt,
	.recv = fz_recv,
	.send = fz_send,
	.sendmsg = fz_sendmsg,
	.shutdown = fz_shutdown,
	.close = fz_close,
	.epoll_ctl = fz_epoll_ctl,
	.read = fz_read,
	.write = fz_write,
	.clock_gettime = fz_clock_gettime,
};

/* ---- the script ---------------------------------------------------------------- */

#define NFLOWS 8

static struct filter filt;
static struct relay_cfg cfg;
static struct relay rl;
static int names_mode;

/* What an agent sends a flow a name allowed: requests kept alive, and ClientHellos. */
static const char STREAM[] = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n"
			     "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\n\r\nGET "
			     "PUT / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
			     "3\r\nabc\r\n0\r\n\r\n"
			     "PROPFIND / HTTP/1.1\r\nHost: other.test\r\n\r\n";
/* A ClientHello naming a.test, in one record. */
static const uint8_t HELLO[] = { 0x16, 0x03, 0x01, 0x00, 0x3e, 0x01, 0x00, 0x00, 0x3a, 0x03,
				 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x13, 0x01, 0x01, 0x00,
				 0x00, 0x0f, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x09, 0x00, 0x00,
				 0x06, 0x61, 0x2e, 0x74, 0x65, 0x73, 0x74 };

/* The bindings for an input: a.test on 203.0.113.10 and 2001:db8:1::10. */
static void bind_names(void)
{
	static const uint8_t ANS[] = {
		0x12, 0x34, 0x81, 0x80, 0,    1,  0,	2,    0,  0,  0, 0, 1, 'a', 4, 't', 'e',
		's',  't',  0,	  0,	1,    0,  1,	0xc0, 12, 0,  1, 0, 1, 0,   0, 0,   30,
		0,    4,    203,  0,	113,  10, 0xc0, 12,   0,  28, 0, 1, 0, 0,   0, 30,  0,
		16,   0x20, 0x01, 0x0d, 0xb8, 0,  1,	0,    0,  0,  0, 0, 0, 0,   0, 0,   0x10,
	};
	uint8_t m[sizeof(ANS)];

	memcpy(m, ANS, sizeof(m));
	names_answer(&rl, &(struct flow){ .fd = -1 }, m, sizeof(m), 0);
}

static void setup(void)
{
	cidr_parse("203.0.113.0/24", &filt.pub[0]);
	cidr_parse("2001:db8:1::/64", &filt.pub[1]);
	filt.npub = 2;
	ipaddr_parse("10.0.2.3", &filt.dns4);
	ipaddr_parse("fd00::3", &filt.dns6);
	ipaddr_parse("203.0.113.53", &cfg.resolver);
	/* The gateway on port 80 of its address; 53 there is refused as private. */
	ipaddr_parse("10.0.2.4", &filt.gw4);
	ipaddr_parse("fd00::4", &filt.gw6);
	filt.gw_port[0] = 80;
	filt.ngw = 1;
	/* A name rule: answers about names under test bind, flows to them are named. */
	strcpy(filt.names[0].pat, "*.test");
	filt.nnames = 1;
	cfg.name_ttl_min = 60;
	cfg.gateway_fd = FAKE_FD - 2;
	cfg.f = &filt;
	cfg.log_fd = -1;
	cfg.max_flows = NFLOWS;
	cfg.max_half_open = 3;
	cfg.max_udp_flows = 3;
	cfg.tcp_idle_ms = 5000;
	cfg.udp_idle_ms = 2000;
	if (relay_init(&rl, &cfg, &fz_sys, tunfd_fake) < 0)
		abort();
	log_verbosity = -1;
}

/* A packet from the agent, built valid so the input reaches the flows. */
static void agent_packet(void)
{
	static const uint16_t PORTS[] = { 40000, 40001, 40002, 40003 };
	unsigned int sel = take(1), v6 = sel & 1, proto = (sel >> 1) % 3;
	struct ipaddr src, dst;
	uint16_t sport = PORTS[(sel >> 3) & 3], dport = (sel & 0x20) ? 53 : 80;
	size_t off, dlen = take(1) % 64 * 23, n;
	struct flow *f = &rl.ft.flows[take(1) % NFLOWS];

	ipaddr_parse(v6 ? "fd00::100" : "10.0.2.100", &src);
	ipaddr_parse(sel & 0x40	  ? (v6 ? "fd00::3" : "10.0.2.3")
		     : sel & 0x80 ? (v6 ? "fd00::4" : "10.0.2.4")
				  : (v6 ? "2001:db8:1::10" : "203.0.113.10"),
		     &dst);
	off = pkt_l4_off(v6 ? AF_INET6 : AF_INET);
	if (proto == 0) {
		uint8_t flags = (uint8_t)take(1);
		uint32_t seq = take(4), ack = take(4);
		uint16_t win = (uint16_t)take(2);

		/* Mostly in the flow's own sequence space, to get past the checks. */
		if (f->state != FLOW_FREE && f->proto == PROTO_TCP && (flags & 0x80)) {
			seq = f->rcv_nxt + (seq & 0xff) - 0x80;
			ack = f->snd_una + (ack & 0xffff);
			sport = f->sport;
			dport = f->dport;
			dst = f->adst;
			src = f->asrc;
			v6 = f->asrc.family == AF_INET6;
			off = pkt_l4_off(f->asrc.family);
		}
		memset(tun_pkt + off + 20, 'a', dlen);
		/* A piece of what a judged flow would carry, from where the input says. */
		if (names_mode && dlen) {
			unsigned int k = take(2), from = k >> 1;
			const uint8_t *src8 = k & 1 ? HELLO : (const uint8_t *)STREAM;
			size_t len = k & 1 ? sizeof(HELLO) : sizeof(STREAM) - 1;

			from %= (unsigned int)len;
			if (dlen > len - from)
				dlen = len - from;
			memcpy(tun_pkt + off + 20, src8 + from, dlen);
		}
		n = pkt_tcp(tun_pkt, &src, &dst, sport, dport, seq, ack, flags & 0x1f, win, dlen);
	} else if (proto == 1) {
		memset(tun_pkt + off + 8, 'u', dlen);
		n = pkt_udp(tun_pkt, &src, &dst, sport, dport, dlen);
	} else {
		/* An echo request: a reply from the agent's side, retyped. */
		memset(tun_pkt + off + 8, 'e', dlen);
		n = pkt_echo_reply(tun_pkt, &src, &dst, sport, (uint16_t)take(2), dlen);
		tun_pkt[off] = v6 ? 128 : 8;
		tun_pkt[off + 2] = tun_pkt[off + 3] = 0;
		if (v6) {
			struct pkt q;
			uint32_t sum = 0;

			/* The pseudo-header for ICMPv6: recomputed from scratch. */
			for (int i = 8; i < 40; i += 2)
				sum += (uint32_t)(tun_pkt[i] << 8 | tun_pkt[i + 1]);
			sum += (uint32_t)(n - off) + PROTO_ICMP6;
			uint16_t ck = pkt_csum(tun_pkt + off, n - off, sum);

			tun_pkt[off + 2] = (uint8_t)(ck >> 8);
			tun_pkt[off + 3] = (uint8_t)ck;
			(void)q;
		} else {
			uint16_t ck = pkt_csum(tun_pkt + off, n - off, 0);

			tun_pkt[off + 2] = (uint8_t)(ck >> 8);
			tun_pkt[off + 3] = (uint8_t)ck;
		}
	}
	tun_pkt_len = n;
	/*
	 * The virtio_net_hdr: none, the agent kernel's partial checksum (and
	 * segmentation, for TCP), or ten bytes of the input.
	 */
	memset(tun_buf, 0, VNET_HLEN);
	switch (take(1) & 3) {
	case 1:
		if (proto < 2) {
			pkt_vnet(tun_buf, tun_pkt, proto == 0 ? dlen : 0, (uint16_t)take(2));
			if (proto == 1)
				tun_buf[8] = 6; /* csum_offset: UDP's checksum field */
		}
		break;
	case 2:
		for (int i = 0; i < VNET_HLEN; i++)
			tun_buf[i] = (uint8_t)take(1);
		break;
	default:
		break;
	}
	tun_reads = 1 + (int)(take(1) & 3); /* the same packet again: duplicates */
	tun_input(&rl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	unsigned int k0;

	if (!ready) {
		setup();
		ready = 1;
	}
	in = data;
	inlen = size;
	inpos = 0;
	fake_ms = 1000000;
	rl.now = fake_ms;
	next_fd = 0;
	k0 = take(1);
	cfg.no_peek_off = (int)(k0 & 1);
	names_mode = (k0 >> 1) & 1;
	filt.no_public = names_mode;
	/* A transparent grant for a.test:80, bound as the name rule's names are. */
	filt.ngates = (k0 >> 2) & 1;
	if (filt.ngates) {
		strcpy(filt.gates[0].name, "a.test");
		filt.gates[0].port = 80;
		filt.gates[0].gw_port = 81;
		names_mode = 1;
	}
	if (names_mode)
		bind_names();
	for (int steps = 0; more() && steps < 512; steps++) {
		unsigned int op = take(1) % 5;
		struct flow *f;

		switch (op) {
		case 0:
		case 1:
			agent_packet();
			break;
		case 2:
			/* An event on a host socket. */
			f = &rl.ft.flows[take(1) % NFLOWS];
			rl.now = fake_ms;
			if (f->state == FLOW_FREE)
				break;
			if (f->proto == PROTO_TCP)
				tcp_sock_event(&rl, f,
					       take(1) & (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP |
							  EPOLLRDHUP));
			else
				dgram_sock_event(&rl, f);
			break;
		case 3:
			fake_ms += take(2) * 10;
			rl.now = fake_ms;
			flow_timers(&rl);
			break;
		default:
			tcp_acks_flush(&rl);
			break;
		}
	}
	/* Everything back, for the next input: no flow outlives it, nor a binding. */
	names_reset(&rl.names);
	rl.npending = 0;
	for (int i = 0; i < NFLOWS; i++)
		if (rl.ft.flows[i].state != FLOW_FREE)
			flow_free(&rl, &rl.ft.flows[i]);
	if (rl.ft.count[FLOW_FREE] != NFLOWS || rl.ft.nsbuf || rl.names.held)
		abort();
	return 0;
}
