/* SPDX-License-Identifier: ISC */
/*
 * otonet's files, by role; the sections below are the pure and the setup
 * ones, relay.h and flow.h the relay's.
 *
 * the start     main.c      the steps, in order: options, account, fork, filter, relay
 *               opts.c      argv, OTO_* and OTO_TEST_* into struct otonet_opts
 *               parse.c     the values of options and variables (pure)
 *               hostinfo.c  the filter built from the options and the host
 * the sandbox   setup.c     the child: namespaces, tun0, resolv.conf, the TUN to the relay
 *               nl.c        rtnetlink, batched
 *               opener.c    run by root: the TUN opened in the child's namespace
 * the relay     relay.c and the files relay.h lists: loop, table, protocols,
 *               policy (admit.c, names.c, namecheck.c, ask.c), record
 *               lockdown.c  its confinement and seccomp filter (seccomp.c, gen/)
 * pure          filter.c    a new flow's decision by address and port
 *               pkt.c       packets on the TUN, parsed and built
 *               dns.c       DNS messages and names
 *               sni.c       a flow's first bytes: TLS or HTTP, and the name
 *               follow.c    an HTTP/1.1 request stream, followed
 *               askline.c   the decider's answer lines
 *
 * Calls run downwards: main, then the relay's loop, table and protocols,
 * then the policy, which returns verdicts the protocols act on, then the
 * pure files.
 */
#ifndef OTONET_H
#define OTONET_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "cidr.h"
#include "http.h"

#define NET_MAX_ALLOW	64
#define NET_MAX_PUBLIC	32
#define NET_MAX_HOST	128
#define NET_MAX_GATEWAY 16
#define NET_MAX_NAMES	64
#define NAMES_TTL_MIN	60 /* s: a name binding lives at least this long (OTO_TEST_NAME_TTL_MIN) */
#define NAMES_TTL_MAX	86400 /* s: and at most a day */
#define NET_MTU		65520

enum { PROTO_TCP = 6, PROTO_UDP = 17, PROTO_ICMP = 1, PROTO_ICMP6 = 58 };

struct net_rule {
	int proto; /* PROTO_TCP or PROTO_UDP */
	struct ipaddr addr;
	uint16_t port;
};

/* An --allow-name rule: a name or "*.suffix", and a port (0: none, meaning 80 and 443, checked). */
struct name_rule {
	char pat[256];
	uint16_t port;
};

/*
 * A transparent grant of otogate's: the agent's TLS flows to name (by an
 * address the relay's DNS gave for it) on port, with that name in their
 * ClientHello, go to the gateway as its port gw_port.
 */
struct gate_host {
	char name[256];
	uint16_t port, gw_port;
};

/* Everything the filter needs; built at start, read-only afterwards. */
struct filter {
	struct name_rule names[NET_MAX_NAMES];
	size_t nnames;
	/* The names of --allow exceptions, as given: the agent may ask for them. */
	char exc_names[NET_MAX_ALLOW][256];
	size_t nexc_names;
	struct net_rule allow[NET_MAX_ALLOW];
	size_t nallow;
	struct cidr pub[NET_MAX_PUBLIC];
	size_t npub;
	struct ipaddr host[NET_MAX_HOST]; /* the host's own addresses */
	size_t nhost;
	int no_public;
	struct ipaddr dns4, dns6;	   /* the sandbox-side DNS addresses */
	struct ipaddr gw4, gw6;		   /* the sandbox-side gateway addresses (otogate) */
	uint16_t gw_port[NET_MAX_GATEWAY]; /* its ports; none: no gateway */
	size_t ngw;
	struct gate_host gates[NET_MAX_GATEWAY]; /* its transparent grants */
	size_t ngates;
};

enum verdict { V_DENY, V_ALLOW };

struct decision {
	enum verdict verdict;
	int dns;	/* the flow goes to the host's resolver */
	int gateway;	/* the flow goes to the gateway (OTO_GATEWAY) */
	char rule[64];	/* exception, dns, gateway, special:RANGE, public, no-public, host-address,
			   name */
	char name[256]; /* rule name: the name bound to the address; else empty */
	const char *pattern; /* rule name: the --allow-name rule's pattern */
	uint32_t ask;	     /* rule ask-session: the question whose answer allowed it */
};

/*
 * The relay's configuration: the options' part (opts.c: argv, OTO_GATEWAY,
 * OTO_TEST_*), then what the start makes (main.c: the filter, the host's
 * resolver, the session, the child). Read-only once the relay runs.
 */
struct relay_cfg {
	const struct filter *f;
	struct ipaddr resolver;
	int log_fd;
	struct why *why;	       /* the agent's file of its refusals (why_note) */
	unsigned long long log_budget; /* bytes of the relay's lines on log_fd */
	const struct session *session; /* its id on every line; the close line at the end */
	unsigned long max_flows, max_half_open, max_udp_flows;
	uint64_t tcp_idle_ms, udp_idle_ms;
	uint64_t busy_poll_us; /* 0: sleep as soon as nothing is ready */
	pid_t child;
	int no_peek_off;       /* OTO_TEST_NO_PEEK_OFF: the buffered path (tests) */
	int badcall;	       /* OTO_TEST_RELAY_BADCALL: SIGUSR2 makes a forbidden call */
	int gateway_fd;	       /* OTO_GATEWAY's socket to otogate, or -1 */
	uint64_t name_ttl_min; /* s: the shortest life of a name binding (NAMES_TTL_MIN) */
	int clock_fd;	       /* OTO_TEST_CLOCK_FD: each byte read there, a second more; 0: none */
	int ask;	       /* --ask-fd given: new destinations are asked about on ask_fd */
	int ask_fd;
	uint64_t ask_timeout_ms;
};

struct otonet_opts {
	const char *as;
	/* The filter's (hostinfo.c). */
	const char *allow_spec[NET_MAX_ALLOW];
	size_t nallow;
	struct name_rule names[NET_MAX_NAMES];
	size_t nnames;
	struct cidr pub[NET_MAX_PUBLIC];
	size_t npub;
	int no_public;
	const char *dns;		   /* --dns IP, or NULL: the host's resolv.conf */
	uint16_t gw_port[NET_MAX_GATEWAY]; /* OTO_GATEWAY's ports and grants */
	size_t ngw;
	struct gate_host gates[NET_MAX_GATEWAY];
	size_t ngates;
	/* The sandbox's (setup.c). */
	int kernel_wall; /* --kernel-wall: prohibit routes too, in front of the relay */
	unsigned int
	    tun_mtu; /* NET_MTU, or OTO_TEST_TUN_MTU: a common MTU to compare with others */
	int gate_go; /* OTO_GATE_GO: otogate's go pipe, or -1 */
	char **argv;
	/* The relay's. */
	struct relay_cfg relay;
};

/*
 * opts.c: the options from argv, then from the environment: OTO_GATEWAY
 * and OTO_GATE_GO (otogate's, consumed), the switches for tests and
 * benchmarks (OTO_TEST_*, otonet(1)); the fds they name checked and kept
 * from the program (close-on-exec). Exits 0 (--help) or 100, 111 when an
 * fd cannot be kept.
 */
void xotonet_parse(struct otonet_opts *o, int argc, char **argv);
/*
 * parse.c: --allow-name PATTERN[:PORT]: a name or "*.suffix" (letters,
 * digits, '-', '_', at least two labels after the "*.", a trailing dot
 * dropped, lowercased into pat, DNS_NAME_MAX), port 1 to 65535 or 0 for
 * any. 0, or -1/EINVAL. Pure.
 */
int name_rule_parse(const char *spec, char *pat, uint16_t *port);
/* parse.c: "tcp:HOST:PORT" / "udp:[V6]:PORT" into proto, host (copied), port. Pure. */
int rule_split(const char *spec, int *proto, char *host, size_t hsize, uint16_t *port);
/*
 * parse.c: OTO_GATEWAY="FD:PORT[,PORT]...", the socket to otogate and the
 * ports it serves on 10.0.2.4 and fd00::4 (at most NET_MAX_GATEWAY, each
 * once, 1 to 65535; FD 3 or more, one spelling of each number); an entry
 * "PORT=HOST:HPORT" is a transparent grant's (gates: HOST a name as
 * --allow-name reads one, without "*.", each HOST:HPORT once), reached by
 * name, not on 10.0.2.4. 0, or -1/EINVAL. Pure.
 */
int gateway_parse(const char *s, int *fd, uint16_t *ports, size_t *n, struct gate_host *gates,
		  size_t *ngates);

/*
 * hostinfo.c: the filter from the options and the host (its addresses, its
 * resolver), with exception names resolved now and pinned; dies 101 when one
 * does not resolve.
 */
void xotonet_filter_build(const struct otonet_opts *o, struct filter *f, struct ipaddr *resolver);

/* filter.c: proto is PROTO_TCP, PROTO_UDP, or PROTO_ICMP for echo. Pure. */
void filter_decide(const struct filter *f, int proto, const struct ipaddr *dst, uint16_t port,
		   struct decision *d);
/*
 * What forbids pinning an --allow name's answer a (the host's own, loopback,
 * "this host", link-local and metadata addresses), as a phrase, or NULL.
 * Pure.
 */
const char *filter_pin_refused(const struct filter *f, const struct ipaddr *a);
/* The first "nameserver" of a resolv.conf text, or -1/ENOENT. Pure. */
int resolv_first(const char *text, struct ipaddr *out);

/* pkt.c: parsing and building packets on the TUN. Pure. */
struct pkt {
	int family;
	struct ipaddr src, dst;
	int proto;	   /* PROTO_TCP, PROTO_UDP, PROTO_ICMP (v4 or v6 echo) */
	const uint8_t *ip; /* the whole packet, length iplen */
	size_t iplen;
	uint16_t sport, dport; /* for echo: dport is 0, sport the echo id */
	uint32_t seq, ack;
	uint8_t flags;
	uint32_t win;
	uint16_t mss; /* 0 when absent */
	int wscale;   /* -1 when absent */
	uint16_t echo_seq;
	const uint8_t *data;
	size_t dlen;
};

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

/* 0 and p filled in, or -1 for anything not strictly well formed. */
int pkt_parse(const uint8_t *buf, size_t len, struct pkt *p);
/*
 * The TUN has IFF_VNET_HDR: a 10-byte struct virtio_net_hdr precedes every
 * packet, both ways. pkt_parse_vnet takes the header and the packet behind
 * it, as strictly: only the checksum and segmentation offloads the relay
 * turns on (a partial checksum exactly at the TCP or UDP checksum field,
 * TCP segmentation of the packet's own family), nothing else.
 */
#define VNET_HLEN 10
int pkt_parse_vnet(const uint8_t *buf, size_t len, struct pkt *p);
/*
 * The header for a TCP packet from pkt_tcp_partial: a partial checksum and,
 * when dlen exceeds gso_size (non-zero), segmentation into gso_size pieces,
 * which the agent's kernel takes as it takes a coalesced (GRO) packet.
 */
void pkt_vnet(uint8_t *vh, const uint8_t *pkt, size_t dlen, uint16_t gso_size);
uint16_t pkt_csum(const void *data, size_t len, uint32_t sum);
/* Where the payload of a TCP (no options)/UDP/echo packet starts in the buffer. */
size_t pkt_l4_off(int family);
/*
 * Builders write headers in front of a payload the caller already placed at
 * buf + pkt_l4_off(family) + (20 for TCP, 8 for UDP and echo). Return the
 * packet length.
 */
size_t pkt_tcp(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
	       uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
	       size_t dlen);
/* pkt_tcp with the checksum left partial (pkt_vnet says so): no pass over the data. */
size_t pkt_tcp_partial(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst,
		       uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
		       uint16_t win, size_t dlen);
/* A SYN-ACK with MSS and (if wscale >= 0) window scale options. */
size_t pkt_synack(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
		  uint16_t dport, uint32_t seq, uint32_t ack, uint16_t win, uint16_t mss,
		  int wscale);
size_t pkt_udp(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t sport,
	       uint16_t dport, size_t dlen);
size_t pkt_echo_reply(uint8_t *buf, const struct ipaddr *src, const struct ipaddr *dst, uint16_t id,
		      uint16_t seq, size_t dlen);
/*
 * An ICMP error from src about the packet orig (type 3 / ICMPv6 type 1 with
 * code: 13/1 administratively prohibited, 3/4 port unreachable).
 */
size_t pkt_icmp_err(uint8_t *buf, size_t size, const struct ipaddr *src, const uint8_t *orig,
		    size_t origlen, int unreach_port);

/*
 * dns.c: DNS messages and names. A name's text is lowercase, its labels
 * joined by dots, no trailing dot; a label with a byte that is not
 * printable ASCII, or is a dot, '"' or '\\', makes the name (and its
 * message) invalid. Pure.
 */
#define DNS_NAME_MAX  256 /* a name's text and its NUL */
#define DNS_MAX_RR    128 /* records in a message; more: not parsed */
#define DNS_MAX_CHAIN 16  /* names a question leads to by CNAME */
enum {
	DNS_T_A = 1,
	DNS_T_CNAME = 5,
	DNS_T_PTR = 12,
	DNS_T_AAAA = 28,
	DNS_T_SVCB = 64,
	DNS_T_HTTPS = 65
};
/* The private-use type (RFC 6895) a hidden address record becomes. */
#define DNS_T_HIDDEN 65280
enum {
	DNS_NOERROR = 0,
	DNS_FORMERR = 1,
	DNS_SERVFAIL = 2,
	DNS_NXDOMAIN = 3,
	DNS_NOTIMP = 4,
	DNS_REFUSED = 5
};
struct dns_rr {
	uint16_t off;	  /* the record's owner name */
	uint16_t typeoff; /* its type, class, TTL, length */
	uint16_t rdoff, rdlen;
	uint16_t type, cls;
	uint32_t ttl;
	uint8_t section; /* 1 answer, 2 authority, 3 additional */
};
struct dns_msg {
	uint16_t id, flags;
	uint16_t qtype;
	uint16_t qend; /* past the question */
	uint16_t end;  /* past the last record */
	uint16_t nrr;
	char qname[DNS_NAME_MAX];
	struct dns_rr rr[DNS_MAX_RR];
};
/* The name at off in m (pointers followed backwards only) into out; *next past it. 0, -1. */
int dns_name(const uint8_t *m, size_t len, size_t off, char *out, size_t *next);
/*
 * m (len bytes, at most 65535) as one question and its records: 0, or -1
 * for anything else (no question or several, a record past the end, an A
 * not 4 bytes long, an invalid name, more than DNS_MAX_RR records).
 */
int dns_parse(const uint8_t *m, size_t len, struct dns_msg *d);
/* An A or AAAA record's address (of any class). 0, or -1 for another record. */
int dns_rr_addr(const uint8_t *m, const struct dns_rr *rr, struct ipaddr *a);
/*
 * Every A and AAAA record, in any section, whose address refused() says is
 * refused is hidden in place: its type becomes DNS_T_HIDDEN, its TTL and
 * address zeros. So are the refused ipv4hint and ipv6hint addresses of SVCB
 * and HTTPS records (zeroed; a record whose data does not read is hidden
 * whole). When the answer section had an A or AAAA hidden and none left,
 * the message becomes NXDOMAIN (dns_rcode). The number hidden.
 */
int dns_hide(uint8_t *m, struct dns_msg *d, int (*refused)(void *ctx, const struct ipaddr *a),
	     void *ctx);
/*
 * m becomes an answer with rcode and the question alone: the counts zero,
 * every byte after the question zeroed (its length kept, for DNS over TCP).
 * Returns the length of the question's end (for UDP, the new length).
 */
size_t dns_rcode(uint8_t *m, struct dns_msg *d, int rcode);
/*
 * The addresses the question leads to: each A and AAAA record of the answer
 * section whose owner is the question's name or a name a CNAME chain from it
 * reaches, given to fn with its TTL. Their number, or -1.
 */
int dns_chain(const uint8_t *m, size_t len, const struct dns_msg *d,
	      void (*fn)(void *ctx, const struct ipaddr *a, uint32_t ttl), void *ctx);
/*
 * Whether m (len bytes), sent by the agent to the resolver, is one plain
 * question: opcode QUERY, QR clear, one question of class IN, no answer or
 * authority record, at most one additional record (an OPT owned by the
 * root), nothing after it, and not a transfer, TSIG, TKEY or MAIL* type.
 * NULL when it is (d holds it), else why not, as a rule: dns-malformed
 * (shorter than a header, or it does not parse), dns-response, dns-opcode,
 * dns-shape, dns-class, dns-type. Pure.
 */
const char *dns_question_refused(const uint8_t *m, size_t len, struct dns_msg *d);
/*
 * A reverse name (under in-addr.arpa or ip6.arpa, whole or partial) as the
 * prefix its labels spell: 5.0.77.10.in-addr.arpa is 10.77.0.5/32,
 * 10.in-addr.arpa 10.0.0.0/8, in-addr.arpa 0.0.0.0/0; labels left of the
 * last octet or nibble that reads (x.5.0.77.10.in-addr.arpa) are ignored.
 * 0, or -1/EINVAL for another name. Pure.
 */
int dns_rev_prefix(const char *name, struct cidr *c);
/* Does name match pattern (exact, or "*.suffix": a name under suffix, not suffix)? */
int name_match(const char *pattern, const char *name);

/*
 * sni.c: what a flow's first bytes are, and the TLS name they give.
 * NAMES_HOLD_MAX: the most bytes of a ClientHello (its records whole) or
 * of a request head that a flow a name allowed may take to be decided.
 * Pure.
 */
#define NAMES_HOLD_MAX 16384
/* s (n bytes) as a name's text into out, lowercase, a trailing dot dropped: 0, or -1. */
int name_text(const uint8_t *s, size_t n, char *out);
/*
 * sniff_first: TLS when d begins as a TLS handshake record does (0x16,
 * then 3, then 0 to 4), HTTP when a token and a space (a request line's
 * method), NEITHER when they can become neither, MORE while too short to
 * tell (nothing, "PROPFI"): never NEITHER for a prefix of TLS or of a
 * request line.
 */
enum sniff { SNIFF_MORE, SNIFF_TLS, SNIFF_HTTP, SNIFF_NEITHER };
enum sniff sniff_first(const uint8_t *d, size_t n);
/*
 * tls_hello: the ClientHello d begins with, in one handshake record or
 * several (each 1 to 2^14 bytes, the message ending with one), at most max
 * bytes with their headers. HELLO_NAME and its server_name in out,
 * HELLO_NONAME (whole, without a valid one), *end past its last record;
 * HELLO_MORE for a prefix of one; HELLO_BAD for anything else (another
 * record type or message, a malformed hello); HELLO_LONG past max.
 * scratch: max bytes, where a message in several records is put together.
 */
enum { HELLO_MORE = 0, HELLO_NAME = 1, HELLO_NONAME = -1, HELLO_BAD = -2, HELLO_LONG = -3 };
int tls_hello(const uint8_t *d, size_t n, size_t max, uint8_t *scratch, char *out, size_t *end);

/*
 * follow.c: an HTTP/1.1 request stream, followed however it is cut.
 * s: zero at the stream's start. http_follow reads d[*pos, n): a body's
 * bytes are passed over (*pos moves on), then the next head is parsed into
 * q (from d + *pos): FOLLOW_HEAD when whole (*pos at its start: the caller
 * judges it, http_req_name, then http_follow_head and *pos +=
 * q->head_len), FOLLOW_PARTIAL when it is not yet (*pos at its start, q
 * the parser's state: the caller holds d[*pos, n) and goes on with
 * http_follow_held as more comes), FOLLOW_DONE when d ended in or after a
 * body, FOLLOW_ERR with the http_err in *err (lib/http.h: framing that is
 * ambiguous or malformed, CONNECT, Upgrade, HTTP_EHEAD past
 * NAMES_HOLD_MAX). Pure.
 */
struct http_follow {
	int in_body;
	uint32_t nreq; /* the heads judged so far */
	struct http_body body;
};
enum { FOLLOW_DONE, FOLLOW_PARTIAL, FOLLOW_HEAD, FOLLOW_ERR };
int http_follow(struct http_follow *s, struct http_req *q, const uint8_t *d, size_t n, size_t *pos,
		int *err);
/* The held head (n bytes at head, q its state) read on: as http_follow's answers. */
int http_follow_held(struct http_req *q, const uint8_t *head, size_t n, int *err);
/* The judged head q: its body followed next. */
void http_follow_head(struct http_follow *s, const struct http_req *q);
/* The Host of the whole head q (at head), without its port, as a name: 1, or -1 (none, or no name).
 */
int http_req_name(const struct http_req *q, const uint8_t *head, char *out);

/*
 * nl.c: rtnetlink, in the sandbox's network namespace, batched: requests are
 * queued in a struct nl_batch, each with what it does (for the message when
 * it fails), and go to the kernel together, many in one send, which handles
 * them in order (the last one acknowledged, any refused one reported). A
 * full batch is sent before the next request is queued. nl_link_set,
 * nl_link_addrgen_none, nl_addr_add, nl_route_add queue a request (and may
 * send the batch: -1 with errno and b->failed set as by nl_batch_send);
 * nl_batch_send sends what is queued and reads the answers up to the last
 * request's: 0, or -1 with errno (the first refused request's error) and
 * b->failed naming it ("" when the send or receive itself failed). A refused
 * optional request fails nothing: b->skipped names the last one, with its
 * errno, until nl_batch_open.
 */
#define NL_BATCH_BYTES 32768
#define NL_BATCH_MAX   256
#define NL_WHAT_LEN    80

struct nl_batch {
	int fd;
	unsigned int n, seq0;
	size_t len, last; /* last: the offset of the last request queued */
	const char *failed;
	char what[NL_BATCH_MAX][NL_WHAT_LEN];
	/* A request the sandbox works without: its refusal is kept here, not failed. */
	unsigned char optional[NL_BATCH_MAX];
	char skipped[NL_WHAT_LEN];
	int skipped_errno;
	_Alignas(4) char buf[NL_BATCH_BYTES];
};

/* The batch's netlink socket, bound: -1/errno. */
int nl_batch_open(struct nl_batch *b);
void nl_batch_close(struct nl_batch *b);
int nl_batch_send(struct nl_batch *b);
int nl_link_set(struct nl_batch *b, const char *what, int ifindex, unsigned int mtu,
		unsigned int txqlen);
/* The link's IPv6 address generation (link-local included) off: before it goes up. */
int nl_link_addrgen_none(struct nl_batch *b, const char *what, int ifindex);
/*
 * The link's root qdisc noqueue, before it goes up (no default qdisc is made
 * then). Optional: a kernel without qdiscs (no CONFIG_NET_SCHED) refuses it,
 * and the batch goes on; the refusal is in skipped and skipped_errno.
 */
int nl_qdisc_noqueue(struct nl_batch *b, const char *what, int ifindex);
int nl_addr_add(struct nl_batch *b, const char *what, int ifindex, const struct ipaddr *a,
		unsigned int plen);
/* initwnd: the route's initial congestion and receive windows (segments), 0 the kernel's. */
int nl_route_add(struct nl_batch *b, const char *what, int type, const struct cidr *dst,
		 int ifindex, const struct ipaddr *gw, int replace, unsigned int initwnd);

/*
 * setup.c: the child's side. Returns in the child only after the TUN fd was
 * sent on sock. opener: the socket to the TUN opener, or -1 (not run by root).
 */
void xsetup_sandbox(const struct otonet_opts *o, const struct filter *f, int sock, int opener);

/*
 * opener.c: run by root (with a valid --as), where /dev/net/tun is not open
 * to all, xopener_start forks the TUN opener, a root process that opens
 * /dev/net/tun in the network namespace the child sends it, then exits; it
 * returns the socket to it and its pid (else -1 and *pid -1). In the
 * child: opener_ask sends the request (the child's network namespace): 0,
 * or -1 with errno (ENOMSG: the opener is gone); opener_answer, later, is
 * the TUN fd opened there, or -1 with errno (ENOMSG: no answer).
 */
int xopener_start(const char *as, pid_t *pid);
int opener_ask(int sock);
int opener_answer(int sock);

/*
 * askline.c: the decider's answers (otonet(1), ASKING). What became
 * of a question: the three a decider gives, then the relay's own (no
 * answer in time, the decider gone or broken, too many questions pending).
 * ask_answer_parse: one answer line without its newline, "ID DECISION": 0
 * and *id, *d (one of the first three), or -1/EINVAL for anything else.
 * Pure.
 */
enum ask_decision {
	ASK_ALLOW_ONCE,
	ASK_ALLOW_SESSION,
	ASK_DENY,
	ASK_TIMEOUT,
	ASK_GONE,
	ASK_LIMIT,
	ASK_NUM_DECISIONS
};
extern const char *const ask_decision_name[];
int ask_answer_parse(const char *s, size_t n, uint32_t *id, enum ask_decision *d);

/* relay.c: the relay run with o->relay (struct otonet_opts). */
/*
 * xrelay_start: the relay's context for cfg (allocated, never freed), its
 * epoll instance watching sigfd, then xrelay_lockdown: from its return on,
 * only the calls of the loop and of receiving the TUN (recvmsg, wait4,
 * close) are allowed. xrelay_run: watch the TUN and relay until the child
 * exits; exits with its status. Both die 111 when they cannot.
 */
struct relay;
struct relay *xrelay_start(const struct relay_cfg *cfg, int sigfd);
noreturn void xrelay_run(struct relay *r, int tun);

/*
 * lockdown.c: xrelay_confine leaves the host's files and every capability
 * behind (new user and mount namespace, empty read-only root, no_new_privs,
 * not dumpable); xrelay_lockdown, last, the seccomp allowlist (dies 111 when
 * it cannot; relay.c calls it);
 * relay_badcall makes a call outside it (OTO_TEST_RELAY_BADCALL, tests only).
 */
void xrelay_confine(void);
void xrelay_lockdown(void);
/*
 * seccomp.c: the relay's filter as a libseccomp context, or NULL with
 * errno; the build compiles it (gen/bpfgen.c) into this array of struct
 * sock_filter (8-aligned), which lockdown.c loads.
 */
void *relay_filter(void);
extern const unsigned char OTONET_RELAY_BPF[];
extern const size_t OTONET_RELAY_BPF_LEN;
void relay_badcall(void);

#endif
