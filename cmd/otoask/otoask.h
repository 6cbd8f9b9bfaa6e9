/* SPDX-License-Identifier: ISC */
/*
 * otoask's files, each section below one of them. main.c: the steps;
 * opts.c: the options (dies 100); parse.c: a request's fields, the line
 * shown, the answer and the config line (pure); ask.c: the requests read,
 * asked at the terminal, answered (dies 111).
 */
#ifndef OTOASK_H
#define OTOASK_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define ASK_TIMEOUT_DEFAULT 20	 /* s: under otonet's --ask-timeout default (30) */
#define ASK_LINE	    1024 /* a request line's bytes at most, with its newline */
#define ASK_QUEUE	    256	 /* requests waiting to be shown (otonet's pending bound) */

struct otoask_opts {
	const char *listen; /* --listen SOCKET, or NULL */
	int fd;		    /* --fd N, or -1 */
	const char *save;   /* --save FILE, or NULL */
	const char *tty;    /* the terminal asked: /dev/tty */
	unsigned long timeout;
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
};
/*
 * One request line (without its newline) of otonet's (otonet(1), ASKING):
 * its fields, 0; -1 when it has no id or no destination, or a field is
 * not what otonet writes (a value too long, a byte outside printable ASCII).
 */
int ask_req_parse(const char *s, size_t n, struct ask_req *q);
/* What is shown for q: "new.example:443 (tcp to 203.0.113.10)", "new.example (dns A)". */
void ask_req_show(const struct ask_req *q, char *buf, size_t size);
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
/* The decider's socket: connected on --fd, or the one connection to --listen. */
int xask_socket(const struct otoask_opts *o);
/* Each request asked at the terminal and answered, until the socket ends: exits 0. */
noreturn void xask_serve(const struct otoask_opts *o, int sock);

#endif
