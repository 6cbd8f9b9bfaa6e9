/* SPDX-License-Identifier: ISC */
/*
 * otoask's files, each section below one of them. main.c: the steps;
 * opts.c: the options (dies 100); parse.c: a request's fields, the line
 * shown, the session line, the answer and the config line (pure); ask.c:
 * the sessions taken, their questions asked at the terminal, answered
 * (dies 101, 111).
 */
#ifndef OTOASK_H
#define OTOASK_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define ASK_TIMEOUT_DEFAULT 20	 /* s: under otonet's --ask-timeout default (30) */
#define ASK_LINE	    1024 /* a line's bytes at most, with its newline (otonet's bound) */
#define ASK_QUEUE	    256	 /* questions pending, all sessions (otonet's bound per session) */
#define ASK_PER_SESSION	    64	 /* questions pending from one session: a flood waits its turn */
#define ASK_SESSIONS	    64	 /* sessions served at once (connections) */
#define ASK_KEY_GUARD_MS    300	 /* a key this soon after a question appears is not its answer */

struct otoask_opts {
	const char *listen; /* --listen SOCKET, or NULL */
	int fd;		    /* --fd N, or -1 */
	const char *save;   /* --save FILE, or NULL */
	const char *tty;    /* the terminal asked: /dev/tty */
	unsigned long timeout;
	int once; /* --once: one session (always with --fd) */
};

/* ---- opts.c ---- */
void xotoask_parse(struct otoask_opts *o, int argc, char **argv);

/* ---- parse.c. Pure. ---- */
struct ask_req {
	uint32_t id;
	int dns;	/* proto "udp" or "tcp" with a type: a DNS question */
	char proto[8];	/* tcp, udp */
	char dst[64];	/* "" for DNS */
	unsigned port;	/* 0 for DNS */
	char name[256]; /* "" when none */
	char type[16];	/* DNS: A, AAAA... */
	char session[72];
	/* otogate's (source "gate"): a request held by a grant's ask= rule. */
	int gate;
	char grant[64], method[32], host[254], rule[128];
	char path[512];
	long long length; /* the body's bytes, -1 unknown (chunked) */
	char ref[160];	  /* a push's first ref update, "REF OLD..NEW"; "" none */
	unsigned long nrefs;
};
/*
 * One request line (without its newline) of otonet's (otonet(1), ASKING)
 * or otogate's (source "gate", otogate(1), Asking): its fields, 0; -1 when
 * it has no id or no destination (a gate question: no grant, method, host
 * or path), or a field is not what they write (a value too long, a byte
 * outside printable ASCII).
 */
int ask_req_parse(const char *s, size_t n, struct ask_req *q);
/*
 * What is shown for q: "new.example:443 (tcp to 203.0.113.10)",
 * "new.example (dns A)", "GH_TOKEN: POST git.example/p.git/git-receive-pack
 * (423 bytes; refs/heads/main 1a2b..3c4d, 1 ref)".
 */
void ask_req_show(const struct ask_req *q, char *buf, size_t size);
/*
 * The session's first line (otonet(1), Asking), written by otorun before any
 * question: {"time":...,"source":"session","session":ID,"person":...,"agent":...}.
 * ask_is_session_line: whether s (n bytes, no newline) is one, by its source.
 * ask_session_parse: its fields, 0; -1 when they are not what otorun writes
 * (no id, a value too long or outside printable ASCII, an "id" key).
 * ask_session_label: who asks, as shown: "PERSON: AGENT", "AGENT", or
 * "session ID" (its first 8 bytes) when the line had neither.
 */
struct ask_session {
	char id[72];
	char person[64];
	char agent[128];
};
int ask_is_session_line(const char *s, size_t n);
int ask_session_parse(const char *s, size_t n, struct ask_session *ss);
void ask_session_label(const struct ask_session *ss, char *buf, size_t size);
/* The key typed: 'y' allow-once, 'a' allow-session, 'n' (or Enter) deny; else NULL. */
const char *ask_key(int c);
/*
 * What --save keeps of q's decision: a comment, "# DECISION (ask ID): "
 * and what the line allows (or why there is none), then the otorun config
 * line (otorun(1), --config) otolog --policy would write (oto.h,
 * policy_line): "--allow-name NAME" (a DNS question's name, or a flow's on
 * 80 or 443), "--allow-name NAME:PORT", "--allow tcp:ADDR:PORT" (an IPv6
 * address in brackets), or none for a name that is not a host name. Each
 * with its newline; size 800 holds them.
 */
void ask_config_line(const struct ask_req *q, const char *decision, char *buf, size_t size);

/* ---- ask.c ---- */
/*
 * The decider's socket: --fd's, or a new one listening at --listen (mode
 * 600). Dies 100 on a bad --fd, 111 on a system call.
 */
int xask_socket(const struct otoask_opts *o);
/*
 * Each question of each session asked at the terminal and answered: with
 * --fd or --once until the session ends (exits 0), else until a signal
 * (exits 128+N, the socket removed). Dies 101 on a session whose terminal
 * is otoask's own, 111 on a system call.
 */
noreturn void xask_serve(const struct otoask_opts *o, int sock);

#endif
