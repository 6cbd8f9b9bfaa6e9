/* SPDX-License-Identifier: ISC */
/*
 * The relay's insides, shared by its files: the context every function takes
 * (struct relay), and the table of system calls it makes through it. Its
 * files, by role (otonet.h lists the rest of the tool):
 *
 * the loop      relay.c      set up, wait, dispatch each event by its type; signals
 *               context.c    struct relay made (relay_init)
 * the table     flow.c       the flow table, host sockets by route, timers (flow.h)
 *               gateway.c    a gateway flow's socket pair, handed to otogate
 * the protocols tcp.c        TCP: the agent's segments, host socket events, timers
 *               tcp_flush.c  TCP towards the agent: window, segments, flush, RST
 *               dgram.c      UDP and ICMP echo; the relay's own DNS answers
 *               tun.c        the TUN: batches of the agent's packets in, packets out
 * the policy    admit.c      a new flow's verdict: filter, names, grants, asking, bounds
 *               names.c      DNS judged and filtered, the name bindings
 *               namecheck.c  what a flow a name allowed sends, judged
 *               ask.c        the decider (--ask-fd): questions, answers, timeouts
 * the record    record.c     the relay's lines on --log-fd (relay_log)
 * the system    sys.c        the real system calls (relay_sys_libc)
 *
 * The policy returns verdicts and never writes a packet: the protocol
 * files act on them (a reset, an ICMP error, a DNS answer); the table does
 * not judge. The calls run one way: loop, table and protocols (one circle,
 * as passt's), then the policy, then the record.
 *
 * None of the functions here exits (the fuzz target runs them): a failure
 * is returned, or ends the flow it concerns; only the loop's own
 * (xrelay_start, xrelay_run, otonet.h) die. A contract ends in pure when
 * its function makes no system call.
 */
#ifndef OTONET_RELAY_H
#define OTONET_RELAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "flow.h"
#include "oto.h"
#include "otonet.h"

/*
 * The system calls the relay makes on its sockets, the TUN and the clock,
 * with the signatures of the calls they stand for: the real ones in otonet
 * (relay_sys_libc, sys.c), fakes in the fuzz target, which drives the relay's
 * code with no socket and no TUN. The loop's own calls (epoll_wait, signals,
 * the child) are not here: the fuzz target has no loop.
 */
struct relay_sys {
	int (*socket)(int domain, int type, int protocol);
	int (*socketpair)(int domain, int type, int protocol, int sv[2]);
	int (*connect)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*setsockopt)(int fd, int level, int name, const void *val, socklen_t len);
	int (*getsockopt)(int fd, int level, int name, void *val, socklen_t *len);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	ssize_t (*sendmsg)(int fd, const struct msghdr *m, int flags);
	int (*shutdown)(int fd, int how);
	int (*close)(int fd);
	int (*epoll_ctl)(int ep, int op, int fd, struct epoll_event *ev);
	ssize_t (*read)(int fd, void *buf, size_t len);
	ssize_t (*write)(int fd, const void *buf, size_t len);
	int (*clock_gettime)(clockid_t clock, struct timespec *ts);
};
extern const struct relay_sys relay_sys_libc;

/*
 * What an epoll event is about, in the top byte of its data (ev_ref): the
 * loop dispatches on it. A flow's event also carries the flow's slot (the
 * low 32 bits) and the low 24 bits of its generation: an event still queued
 * for a flow freed earlier in the same batch never reaches the flow that
 * took its slot (flow_at).
 */
enum relay_event {
	EV_NONE,   /* never registered: an event the loop skips */
	EV_TUN,	   /* the TUN: the agent's packets */
	EV_SIGNAL, /* the signalfd: the child exited, a signal to pass on */
	EV_TCP,	   /* a TCP flow's host socket */
	EV_DGRAM,  /* a UDP or echo flow's host socket */
	EV_CLOCK,  /* OTO_TEST_CLOCK_FD: the test moving the relay's clock on */
	EV_ASK,	   /* the decider's socket (--ask-fd): its answers */
	EV_GATE,   /* otogate's socket (OTO_GATEWAY): its hangup, the gateway's death */
	EV_NUM
};
_Static_assert(EV_NUM <= 256, "an event's type is the top byte of its data");
#define EV_GEN_MASK 0xffffffU

/* Returns an event's data: type, the low 24 bits of gen, slot. Pure. */
static inline uint64_t ev_ref(enum relay_event type, uint32_t slot, uint32_t gen)
{
	return (uint64_t)type << 56 | (uint64_t)(gen & EV_GEN_MASK) << 32 | slot;
}

/* Returns the type an event's data (ev_ref) carries. Pure. */
static inline enum relay_event ev_type(uint64_t ref)
{
	return (enum relay_event)(ref >> 56);
}

/*
 * Finds the flow an epoll event's data (ev_ref) names. Returns it, or NULL
 * when it is gone (its slot free, or taken by a later flow). Pure.
 */
static inline struct flow *flow_at(struct flow_table *t, uint64_t ref)
{
	uint32_t slot = (uint32_t)ref, gen = (uint32_t)(ref >> 32) & EV_GEN_MASK;
	struct flow *f;

	if (slot >= t->max)
		return NULL;
	f = &t->flows[slot];
	if (f->state == FLOW_FREE || (f->gen & EV_GEN_MASK) != gen)
		return NULL;
	return f;
}

/* Returns a protocol's name, for the record and messages: "tcp", "udp", else "icmp". Pure. */
static inline const char *relay_proto_name(int proto)
{
	return proto == PROTO_TCP ? "tcp" : proto == PROTO_UDP ? "udp" : "icmp";
}

/* The largest packet on the TUN, and room to spare. */
#define BUFSZ (NET_MTU + 128)

/*
 * The agent's in-order data for a flow, gathered over a batch and given to
 * its host socket in one sendmsg at the batch's end: one send, one push of
 * the host's TCP and one wake-up of its reader per batch, not per segment.
 * rcv_nxt moves only when the host socket took the bytes: until then no ACK
 * covers them. A flow that finds no free slot sends at once.
 */
#define SEND_SLOTS 8
#define SEND_IOV   64
struct send_slot {
	struct flow *f;
	uint32_t len;
	int n;
	struct iovec iov[SEND_IOV];
};

#define BATCH_BYTES (4U << 20)

/*
 * The table of name bindings (names.c): an address an --allow-name rule's
 * name led the agent to, until the answer's TTL runs out. max bindings
 * allocated at start (NAMES_MAX: names_binding_size() bytes each), hashed
 * by address; free ones chained from free_head.
 */
#define NAMES_MAX 4096
struct binding;
struct names {
	struct binding *b;
	int *heads;
	unsigned int hmask;
	int free_head;
	unsigned long max, used;
	uint64_t swept, warned; /* ms: the last sweep of expired ones; the last "full" warning */
	/*
	 * namecheck.c: bytes held for the flows being judged (their struct
	 * name_hold and buffers), at most NAMES_HELD_MAX in all; when the last
	 * "held-full" warning was printed; where a ClientHello in several
	 * records is put together (NAMES_HOLD_MAX bytes).
	 */
	unsigned long held;
	uint64_t held_warned;
	uint8_t *scratch;
};

/*
 * A flow a name allowed, under --no-public, while what the agent sent is
 * judged (namecheck.c): buf[0, out) was decided and waits for room in the
 * host socket; buf[out, len) is not decided yet (a ClientHello or request
 * head in part), and req is the parser's state of the head there. Allocated
 * when a flow first has bytes to keep, freed once it has none.
 */
#define NAMES_HELD_MAX	(8UL << 20)
#define NAMES_DECIDE_MS 10000
struct name_hold {
	uint8_t *buf;
	uint32_t out, len, cap;
	struct http_req req;
};
/* Where a flow a name allowed is (namecheck.c). */
enum name_phase {
	NP_NONE,     /* not judged: no name rule, or a rule naming its port */
	NP_FIRST,    /* its first bytes awaited: TLS or HTTP, and the name they give */
	NP_HTTP,     /* plain HTTP: every request's head judged, the bodies followed */
	NP_PASS,     /* TLS with a name allowed: nothing more to see */
	NP_ANSWERED, /* refused with a 403 from the relay itself: the agent's bytes dropped */
};

/*
 * What a flow to a transparent grant's host follows when its ClientHello
 * names another host, or it is not TLS: the rules it met at its start.
 */
enum gate_after {
	GA_PASS,  /* allowed (the internet open, an exception): nothing more to see */
	GA_CHECK, /* allowed by a name, to be judged as any such flow (NP_FIRST) */
	GA_DENY,  /* no rule allows it (--no-public): reset, logged by its rule */
};

/*
 * Asking (ask.c, --ask-fd): the questions pending, each a held SYN or DNS
 * question (the flow's slot and generation: it may be gone by the answer),
 * at most ASK_PENDING_MAX, allocated at start; questions about the same
 * destination while one is pending share its id. The session's
 * allow-session answers (ASK_SESSION_MAX; past that, an allow-session
 * allows once). The decider's answer being read, at most ASK_LINE_MAX bytes
 * with its newline. gone: the decider closed its end or broke the protocol,
 * and every question since is denied at once. The last ASK_PENDING_MAX TCP
 * attempts refused after a question (the agent's addresses, ports and
 * initial sequence number), in a ring: the same SYN sent again, after its
 * RST, is that attempt, reset without asking.
 */
#define ASK_PENDING_MAX 256
#define ASK_SESSION_MAX 256
#define ASK_LINE_MAX	1024
#define ASK_QUERY_MAX	512
struct ask_pending {
	uint32_t id; /* 0: a free entry */
	unsigned char dns;
	int proto;
	uint32_t slot, gen;
	uint64_t deadline; /* ms, r->now's clock */
	struct ipaddr src, dst;
	uint16_t port;
	uint16_t sport;		 /* the agent's */
	uint32_t isn;		 /* TCP: the agent's initial sequence number */
	char name[DNS_NAME_MAX]; /* "" when the address came from no name the relay saw */
	char type[12];		 /* DNS: the question's type */
	uint16_t qlen;
	uint8_t q[ASK_QUERY_MAX]; /* DNS: the question, sent on when allowed */
};
/*
 * What an allow-session answer allows for the rest of the session: what
 * the config line otoask --save and otolog --policy write for it allows
 * (oto.h, policy_line), so that "always" is what was asked, no more.
 */
enum ask_scope {
	ASK_NAME,      /* as --allow-name NAME: its questions; its flows on 80 and 443, checked */
	ASK_NAME_PORT, /* as --allow-name NAME:PORT: its questions; its flows on port, unchecked */
	ASK_ADDR,      /* as --allow tcp:ADDR:PORT: flows to that address and port */
	ASK_QUESTION,  /* a DNS name that is no host name: its questions alone */
};
struct ask_allowed {
	unsigned char scope; /* enum ask_scope */
	uint16_t port;	     /* ASK_NAME_PORT, ASK_ADDR */
	struct ipaddr addr;  /* ASK_ADDR */
	char name[DNS_NAME_MAX];
	uint32_t id; /* the question that allowed it */
};
struct ask_refused {
	struct ipaddr src, dst;
	uint16_t sport, dport;
	uint32_t isn;
	unsigned char used; /* 0: a free entry */
};
/*
 * A DNS question answered (the last ASK_PENDING_MAX, for ASK_AGAIN_MS
 * each): the same question again (source, port, id, name and type), sent
 * by a stub whose answer was late, is answered as it was, not asked again.
 */
#define ASK_AGAIN_MS 5000
struct ask_answered {
	struct ipaddr src;
	uint16_t sport, qid;
	unsigned char allowed;
	uint64_t until; /* ms, r->now's clock; 0: a free entry */
	char type[12];
	char name[DNS_NAME_MAX];
};
/*
 * A decision for a held flow (the flow's slot and generation), queued by
 * ask.c and acted on by the flow's own protocol (flow_answers): allowed, a
 * held SYN connects and a held DNS question q goes to the resolver;
 * refused, a RST or a REFUSED answer. q points into the question's entry,
 * whose bytes stay until the next question is entered: flow_answers runs
 * first, after ask_input and ask_timers.
 */
struct ask_verdict {
	uint32_t slot, gen;
	unsigned char allow;
	unsigned char check; /* allowed as --allow-name NAME: its first bytes judged (NP_FIRST) */
	const uint8_t *q;
	uint16_t qlen;
};
struct ask {
	struct ask_pending *p;
	struct ask_allowed *s;
	struct ask_refused *r;
	struct ask_answered *q;
	struct ask_verdict *out;    /* ASK_PENDING_MAX: each pending question decided once */
	unsigned int n, ns, nr, nq; /* nr, nq: the rings' next entries */
	unsigned int nout;
	uint32_t next; /* the last id given */
	int gone;
	uint64_t warned; /* ms: the last "too many pending" warning */
	size_t len;
	char line[ASK_LINE_MAX];
};

/* The relay's context: everything its functions share, passed down from xrelay_run. */
/*
 * The relay's lines on --log-fd (record.c): each kind's count (a rule and
 * a destination, a rule and a name; three quarters of RECORD_KEYS kinds,
 * the lines of any other written as they come), and the byte budget.
 */
#define RECORD_KEYS    1024
#define RECORD_KEY_MAX (DNS_NAME_MAX + 96)
struct record_kind {
	uint32_t hash, count; /* count 0: a free slot */
	char key[RECORD_KEY_MAX];
};
struct record {
	struct record_kind *kinds; /* NULL without --log-fd */
	unsigned long used;
	struct record_budget budget;
};

struct relay {
	const struct relay_cfg *cfg;
	const struct relay_sys *sys;
	struct flow_table ft;
	int ep, tun;
	uint64_t now;	    /* ms, CLOCK_MONOTONIC: read once per event or packet */
	uint64_t skew_us;   /* added to it: what OTO_TEST_CLOCK_FD moved it on (tests) */
	uint32_t rnd;	    /* xorshift state, for initial sequence numbers */
	uint64_t gw_warned; /* ms: the last warning of a flow the gateway did not take */
	/*
	 * batch: the packets of one batch read from the TUN, one after the
	 * other, each behind its virtio_net_hdr; kept until the whole batch is
	 * handled, since the agent's data goes to the host from there (sends[]).
	 * obuf: a packet for the agent is built here, with room in front (vnet)
	 * for its virtio_net_hdr.
	 */
	uint8_t *batch;
	uint8_t *vnet, *obuf;
	struct send_slot sends[SEND_SLOTS];
	int sigfd; /* the signalfd the loop reads (xrelay_start) */
	/* Flows owing the agent an ACK, sent once per batch of packets read. */
	struct flow *pending[256];
	unsigned int npending;
	/* The name bindings (only with --allow-name rules), and a DNS message parsed. */
	struct names names;
	struct dns_msg *dns;
	/* Asking the decider (--ask-fd): p is NULL without it. */
	struct ask ask;
	/* How the session ends, for the close line: enum session_end. */
	int end;
	struct record rec;
};

/*
 * context.c: makes the context for cfg, the system calls sys and the TUN:
 * the flow table (cfg->max_flows slots), the packet buffers, the name
 * bindings (with --allow-name rules, transparent grants or a decider), the
 * decider's tables (with one) and the record's kinds (with a log). Watches
 * nothing yet (xrelay_start and xrelay_run do). Returns 0, or -1 with
 * errno ENOMEM and nothing left allocated.
 */
int relay_init(struct relay *r, const struct relay_cfg *cfg, const struct relay_sys *sys, int tun);
/*
 * relay_clock_us reads the monotonic clock through r->sys, with the tests'
 * skew (skew_us) added, and returns it in us; relay_clock_ms returns it in
 * ms (what r->now is set to).
 */
static inline uint64_t relay_clock_us(struct relay *r)
{
	struct timespec ts;

	r->sys->clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 + r->skew_us;
}

static inline uint64_t relay_clock_ms(struct relay *r)
{
	return relay_clock_us(r) / 1000;
}

/*
 * admit.c: decides a new flow's verdict for p into *a: the filter, then
 * the name bindings, the transparent grants, the decider's session
 * answers, the bounds (past one, warns at most every 10 s). ADMIT_DENY:
 * refused (the caller answers with a RST or an ICMP error). ADMIT_OPEN: to
 * be opened, by route; judged from its first bytes (nphase NP_FIRST); for
 * a transparent grant, gate_ix (its index + 1) and gate_after (struct
 * flow). ADMIT_ASK: a TCP flow --no-public refused, with a decider there,
 * to be held and asked about (ask_hold). Logs the verdict as it is made,
 * but where another line says it: an allowed DNS flow (its questions'), a
 * flow let through only to be judged (namecheck.c's), one to be asked
 * about (ask.c's), and the SYN again of an attempt a question refused (its
 * attempt's). Opens and sends nothing.
 */
enum admit_verdict { ADMIT_DENY, ADMIT_OPEN, ADMIT_ASK };
struct admission {
	enum admit_verdict verdict;
	enum flow_route route;
	unsigned char nphase, gate_ix, gate_after;
};
void admit(struct relay *r, const struct pkt *p, struct admission *a);

/*
 * tun.c: reads a batch of the agent's packets from the readable TUN (up to
 * 256, while BATCH_BYTES has room), each from the agent's own address to
 * its protocol's input, the others skipped; then sends the data gathered
 * for the host sockets and the ACKs owed. A read that fails otherwise than
 * EAGAIN or EINTR (the sandbox's namespace gone) stops the TUN's watch.
 */
void tun_input(struct relay *r);
/*
 * Writes obuf's n bytes to the agent, behind a header that asks for
 * nothing; nothing when n is 0. A write that fails is logged at debug
 * level: a packet lost.
 */
void tun_write(struct relay *r, size_t n);
/* Writes obuf's n bytes to the agent, behind the header pkt_vnet wrote at vnet, as tun_write. */
void tun_write_offload(struct relay *r, size_t n);

/*
 * record.c: the relay's lines on --log-fd, each with the agent's short
 * line (lib/why_note.c) when the agent's file is on. record_init makes the
 * table of kinds (only with a log) and sets the budget (0: the default); it
 * returns 0, or -1 with errno ENOMEM. record_fini frees the table. relay_log writes one
 * line, fmt's text after event_head's time, source ("net", "dns") and
 * session, whole with one write; nothing without a log, when it does not
 * fit or when the budget is spent (then, once, the line that says so).
 * relay_log_thin does the same for a line of the kind key (the source's
 * rule and destination, or rule and name): the first RECORD_FIRST of a
 * kind, then each power of ten, fmt's closing "}\n" preceded by the kind's
 * "count" from the second on; a kind past the table's room each time, with
 * no count; a fmt that does not end in "}\n" never. relay_log_end writes
 * the relay's last line, what it wrote and did not, when the budget was
 * spent.
 */
int record_init(struct record *rc, int log_fd, unsigned long long budget);
void record_fini(struct record *rc);
void relay_log(struct relay *r, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void relay_log_thin(struct relay *r, const char *source, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void relay_log_end(struct relay *r);

/*
 * tcp.c: takes a TCP packet from the agent to its flow. A SYN with no flow
 * opens one (flow_open): watched, held for the decider (ask_hold, a RST
 * when refused at once), or answered with a RST when refused. Any other
 * packet with no flow is answered with a RST, unless it is one.
 */
void tcp_input(struct relay *r, const struct pkt *p);
/*
 * Sends the agent's data gathered over a batch (sends[]) to each flow's
 * host socket, one sendmsg each. A socket that fails resets its flow.
 */
void tcp_sends_flush(struct relay *r);
/*
 * Handles the events ev on a TCP flow's host socket: the connect's end (a
 * SYN-ACK, or a RST when it failed), an error (a RST), room again (the
 * decided bytes held go first, then a window update), the host's data or
 * end (tcp_flush). Returns the flow's fate.
 */
enum flow_fate tcp_sock_event(struct relay *r, struct flow *f, uint32_t ev);
/* Sends the ACKs owed for the batch just read, one per flow, and empties their list. */
void tcp_acks_flush(struct relay *r);
/*
 * Sets up f's new host socket before it connects (flow_open, tcp_answer):
 * no Nagle; SO_PEEK_OFF, or the buffered path (DNS over TCP,
 * OTO_TEST_NO_PEEK_OFF, or a kernel without it).
 */
void tcp_sock_setup(struct relay *r, struct flow *f);
/*
 * Runs f's timers (flow_timers). A flow undecided for NAMES_DECIDE_MS
 * (logged), idle past --tcp-idle, or whose connect went unanswered for
 * 30 s is reset both ways. An empty buffer is freed; a flow that waited
 * for one is flushed. Past the retransmission time, the SYN-ACK or the
 * data not acknowledged is sent again, up to 12 times; then the agent gets
 * a RST and the flow is freed. Returns the flow's fate.
 */
enum flow_fate tcp_timer(struct relay *r, struct flow *f);
/*
 * Lets go of what TCP holds for f as f is freed (flow_free): its pending
 * ACK, the bytes held while it is judged, the other end of its socket pair
 * (gate_peer), its gathered data (dropped), its buffer.
 */
void tcp_flow_free(struct relay *r, struct flow *f);

/* tcp_flush.c, for tcp.c: what goes to the agent. */
/*
 * Returns 1 when f's host side is a unix socket pair (the gateway's, or the
 * relay's own answer), else 0. Pure.
 */
int tcp_route_pair(const struct flow *f);
/*
 * Measures the window now: half the room in f's host socket, less the data
 * gathered or held for it (0 while a write is blocked). Remembers it
 * (wnd_ok, wnd_at), and watches the socket's drain when it is too full to
 * count as writable. Returns the window scaled for the header, at most 65535.
 */
uint32_t tcp_measure(struct relay *r, struct flow *f);
/*
 * Sends the agent a segment: seq, flags, the ACK of rcv_nxt, the window
 * (the last one while it stands, else measured now), and dlen bytes of data
 * already at the payload's offset, one GSO packet when longer than a segment.
 */
void tcp_out(struct relay *r, struct flow *f, uint32_t seq, uint8_t flags, size_t dlen);
/* Tells the agent the host side reset or failed (a RST), and frees the flow. Returns FLOW_FREED. */
enum flow_fate tcp_reset_agent(struct relay *r, struct flow *f);
/*
 * Watches f's host socket for the events its state and buffers want: input
 * and hangup, edge-triggered; output too while it connects, a write is
 * blocked or a drain is watched. A failure is logged at debug level.
 */
void tcp_events(struct relay *r, struct flow *f);
/*
 * Sends the agent what the host sent, as far as the agent's window reaches:
 * peeked, or on the buffered path read into the flow's buffer first (DNS
 * answers filtered whole); the host's end as a FIN. Sends nothing before
 * the flow is established and decided (NP_FIRST), nor after its FIN.
 * Returns the flow's fate: freed (a RST) when the host socket fails.
 */
enum flow_fate tcp_flush(struct relay *r, struct flow *f);
/*
 * Goes back to the last byte the agent acknowledged, and sends again from
 * there (tcp_flush); nothing when all is acknowledged. Returns the flow's fate.
 */
enum flow_fate tcp_rewind(struct relay *r, struct flow *f);

/*
 * Acts on the decider's answer for a TCP flow held (FLOW_TCP_ASKING):
 * allowed, opens its host socket and connects it (FLOW_TCP_CONNECTING,
 * watched); refused, or when the socket fails, sends the agent a RST and
 * frees the flow.
 */
void tcp_answer(struct relay *r, struct flow *f, int allow);

/*
 * dgram.c: takes a UDP or echo request packet from the agent to its flow,
 * opened and watched if new (an ICMP error when refused). A question to
 * the resolver is judged first (names_query, ask_dns): answered, dropped
 * or held here. Then sends the datagram, or the echo request, on the host
 * socket (an ICMP port unreachable when the host refused it).
 */
void dgram_input(struct relay *r, const struct pkt *p);
/*
 * Acts on the decider's answer for the DNS question q held on the UDP flow
 * f: allowed, sends it to the resolver; refused, answers it REFUSED.
 */
void dgram_answer(struct relay *r, struct flow *f, int allow, const uint8_t *q, size_t len);
/*
 * Reads what a UDP or echo flow's host socket received (up to 64
 * datagrams) and writes it to the agent: the resolver's answers filtered
 * and their names bound (names_answer), echo replies; one too big for the
 * TUN, or not an echo reply, is dropped. A UDP host's refusal goes to the
 * agent as an ICMP port unreachable quoting its datagram.
 */
void dgram_sock_event(struct relay *r, struct flow *f);
/*
 * Frees f once idle (flow_timers): past --udp-idle, 10 s for echo, at most
 * 10 s for DNS. Returns the flow's fate.
 */
enum flow_fate dgram_timer(struct relay *r, struct flow *f);

/*
 * names.c: DNS answers filtered, names bound (see the file). names_init
 * makes a table of max bindings, all free, and its scratch buffer
 * (NAMES_HOLD_MAX bytes); it returns 0, or -1 with errno ENOMEM.
 * names_fini frees them.
 */
int names_init(struct names *t, unsigned long max);
void names_fini(struct names *t);
/* Frees every binding (the fuzz target, between inputs); nothing without a table. Pure. */
void names_reset(struct names *t);
/* Returns the size of a binding (struct binding is names.c's). Pure. */
size_t names_binding_size(void);
/* Reclaims the expired bindings, at most every 10 s (flow_timers). Pure. */
void names_timer(struct relay *r);
/*
 * Finds a name bound to a, alive, by a rule that allows port (a rule's own
 * port, or 80 and 443 for a rule without one); with name, that name only,
 * or a name an allow-session answer allowed as --allow-name NAME
 * (ask_session_name; *rule then unset). Returns it, or NULL when none;
 * sets *rule (if not NULL) to the rule's index. With named (not NULL), a
 * rule naming port is looked for first, and *named says whether one did:
 * such a flow is not checked. Pure.
 */
const char *names_find(struct relay *r, const struct ipaddr *a, uint16_t port, const char *name,
		       int *rule, int *named);
/*
 * Finds the transparent grant whose host is bound to a, alive, for port;
 * with name, bound as that name. Returns its index in the filter's gates,
 * or -1 when none. Pure.
 */
int names_gate(struct relay *r, const struct ipaddr *a, uint16_t port, const char *name);
/*
 * Judges the agent's DNS question q on the UDP flow f, parsed into r->dns,
 * and logs it when refused. Returns what becomes of it: NQ_FORWARD to the
 * resolver; NQ_DROP nothing (not DNS, or a response); NQ_ANSWER answered
 * with *rcode and the question (NXDOMAIN: a name no rule matches under
 * --no-public, a reverse name of a refused address); NQ_HEADER answered
 * with *rcode and the header alone (not one plain question); NQ_ASK a name
 * the rules refuse, for the decider (ask_dns). dgram.c answers.
 */
enum names_fate { NQ_FORWARD, NQ_DROP, NQ_ANSWER, NQ_HEADER, NQ_ASK };
enum names_fate names_query(struct relay *r, const struct flow *f, const uint8_t *q, size_t len,
			    int *rcode);
/*
 * Judges the agent's data q on a DNS flow over TCP, each message in it,
 * and logs a refusal. Returns 0 when it may go to the resolver, -1 when the
 * flow must be reset: anything but whole plain questions (two bytes of
 * length, the message; in this segment), a reverse name of a refused
 * address, and under --no-public with name rules a name no rule (nor a
 * transparent grant's host) matches.
 */
int names_tcp_query(struct relay *r, const struct flow *f, const uint8_t *q, size_t len);
/*
 * Filters the resolver's answer m for the flow f in place: refused
 * addresses hidden; a name refused (without a decider) or a reverse name of
 * a refused address answered NXDOMAIN; one that does not parse made a
 * SERVFAIL header. Binds its names (the table full: SERVFAIL under
 * --no-public, a warning at most every 10 s), and logs it. Returns the
 * length to give the agent (stream: DNS over TCP, len kept), or 0 to drop
 * it (one that does not parse and is shorter than a header).
 */
size_t names_answer(struct relay *r, const struct flow *f, uint8_t *m, size_t len, int stream);
/*
 * namecheck.c: judges the agent's in-order data d on a flow being judged
 * (nphase NP_FIRST, NP_HTTP or NP_ANSWERED). Sends what was decided to the
 * host socket, holds what it did not take and what is not decided yet, and
 * takes all of d (rcv_nxt moves over it: acknowledged); after the relay's
 * own 403 (NP_ANSWERED), takes d and drops it. While decided bytes wait
 * for room (names_drain), takes nothing. Logs a refusal. Returns the
 * verdict, for tcp.c: NV_KEPT; NV_WATCH, the host socket to be watched
 * again (a new one in its place: the relay's own 403, or the gateway's for
 * a transparent grant; decided bytes waiting for room); NV_RESET, a reset
 * both ways: a refusal, the bound on bytes held reached (a warning at most
 * every 10 s), or a host socket that failed.
 */
enum name_verdict { NV_KEPT, NV_WATCH, NV_RESET };
enum name_verdict names_data(struct relay *r, struct flow *f, const uint8_t *d, size_t n);
/*
 * Sends the decided bytes held for f to its host socket. Returns 0 when all
 * are gone, 1 when some wait for room, -1 with errno.
 */
int names_drain(struct relay *r, struct flow *f);
/* Logs f refused for why (and name, if any). The caller resets f both ways. */
void names_refuse(struct relay *r, struct flow *f, const char *why, const char *name);
/* Frees the bytes held for f, as f is freed (tcp_flow_free). */
void names_flow_free(struct relay *r, struct flow *f);

/*
 * gateway.c, for flow.c and namecheck.c: makes a gateway flow's host
 * socket, one end of a new socket pair, and hands the other end to otogate
 * for its port gw_port (one message, MSG_DONTWAIT). Returns the fd, or -1
 * with errno (EPROTO: sent in part): a dead or saturated gateway.
 */
int gateway_socket(struct relay *r, uint16_t gw_port);

/*
 * ask.c: new destinations asked about (--ask-fd); it sends nothing to the
 * agent: its decisions are verdicts. ask_init allocates the tables,
 * zeroed; it returns 0, or -1 with errno ENOMEM (nothing left allocated).
 * ask_fini frees them.
 */
int ask_init(struct ask *a);
void ask_fini(struct ask *a);
/*
 * Judges, by the decider's past answers, a new TCP flow the filter refused
 * by rule "no-public" (d). Returns 1 when an allow-session answer covers
 * it: d allowed, by rule "ask-session", and *check set when the answer was
 * for a name on 80 or 443 (the flow's first bytes judged, as an
 * --allow-name NAME rule's flow); 2 when it is to be held: the
 * caller makes f a FLOW_TCP_ASKING flow and calls ask_hold; 3 when p is
 * the SYN again of an attempt a question refused (struct ask): reset, with
 * no line (the attempt has its own); 0 when it stays refused (d's rule says
 * why, the caller logs it), and for any other flow (no decider, not TCP,
 * another rule). Pure.
 */
int ask_flow(struct relay *r, const struct pkt *p, struct decision *d, int *check);
/*
 * Returns 1 when an allow-session answer allowed name as --allow-name NAME
 * (ASK_NAME) and port is 80 or 443, else 0: for names_find, such a name
 * passes a flow's check. Pure.
 */
int ask_session_name(const struct relay *r, const char *name, uint16_t port);
/*
 * Asks the decider about the held TCP flow f: its question logged and its
 * request sent, or joined to a question pending about the same
 * destination. Returns 0 when the question is pending, -1 when it was
 * refused at once (logged, the attempt kept: too many pending, or the
 * decider gone): the caller resets f.
 */
int ask_hold(struct relay *r, struct flow *f);
/*
 * Asks the decider, as ask_hold does, about a DNS question q (parsed in d)
 * a name rule refuses, on the UDP flow f. Returns 0 when it goes on: an
 * allow-session answer covers its name, or the same question was just
 * allowed (ASK_AGAIN_MS); 1 when held; -1 when refused: the same question
 * just refused, one too long to hold (logged), or refused at once
 * (logged). The caller answers REFUSED.
 */
int ask_dns(struct relay *r, const struct flow *f, const uint8_t *q, size_t len,
	    const struct dns_msg *d);
/*
 * Reads the decider's answers from its readable socket (EV_ASK) until none
 * is left: each decides the questions of its id (logged; an allow-session
 * kept), queued in out for flow_answers. A decider that hangs up, closes,
 * fails, or writes a line that is not an answer or is too long is gone
 * (a warning): its socket closed, every question pending or to come denied.
 */
void ask_input(struct relay *r, uint32_t events);
/*
 * Denies the questions past their time (--ask-timeout; logged), queued as
 * ask_input's (flow_timers).
 */
void ask_timers(struct relay *r);
/* names.c, for ask.c: returns a question's type by name ("AAAA"), or TYPEn written in buf. Pure. */
const char *dns_qtype_name(unsigned int t, char *buf, size_t size);
/*
 * names.c, for ask.c: names_seen returns a name bound to a, alive (any,
 * for the request), or NULL; names_bound returns 1 when a is bound to
 * name, alive, else 0. Pure.
 */
const char *names_seen(struct relay *r, const struct ipaddr *a);
int names_bound(struct relay *r, const struct ipaddr *a, const char *name);

#endif
