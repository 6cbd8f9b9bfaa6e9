/* SPDX-License-Identifier: ISC */
/*
 * One flow of the agent (flow.c), shared with refresh.c: the flow's
 * buffers and state, and the helpers both use.
 */
#ifndef OTOGATE_FLOW_H
#define OTOGATE_FLOW_H

#include "otogate.h"

#define IO_SIZE	 65536
#define IN_SIZE	 (HTTP_MAX_HEAD + IO_SIZE)
#define OUT_SIZE (2 * HTTP_MAX_HEAD + HTTP_MAX_HEADERS + GATE_MAX_HOST + 64)
#define REP_SIZE (2 * (IO_SIZE + HTTP_MAX_SECRET) + 64)
/* A login's scrubbers, one after the other: what one lets out, held back by the next. */
#define TMP_SIZE REP_SIZE /* what one call of scrub lets out fits rep */

/* Flows served at once: each holds about 920 KB (its buffers, the scrubber and its stack). */
#define MAX_FLOWS 256

struct gate_flow {
	struct gate *gate;
	const struct grant *g; /* NULL: no grant on this port */
	int port;
	struct agent ag; /* the agent's side */
	struct upstream up;
	char in[IN_SIZE], rb[IN_SIZE];
	size_t inlen, rblen;
	char out[OUT_SIZE];
	char rep[REP_SIZE];
	struct http_req req;
	struct http_resp resp;
	struct http_repl repl;
	/* a login's grant: its other secrets' scrubbers, after repl's, through tmp's two buffers */
	struct http_repl *more;
	size_t nmore;
	char *tmp;
	/* the current request's record: its method and path kept apart, since the
	 * body's bytes replace the head's in in */
	char method[32], path[1024];
	size_t method_len, path_len;
	unsigned long long up_bytes, down_bytes;
	size_t held; /* a response's head at rb's start, not sent yet: it goes with its body's first
			bytes */
	int status;
	const char *error;
	int continued;	      /* the gateway said 100 Continue itself (a held push) */
	struct pkt_cmds push; /* a held push's ref updates (pkt.c) */
	/* a login's grant: its table's pairs as of gen tgen, copied (flow.c, tok_sync) */
	unsigned long tgen;
	struct login_tok *tok; /* GATE_LOGIN_PAIRS, their reals in treal */
	uint8_t *treal;
	size_t ntok, nmore_cap;
};

/* The gateway's own answer, before any byte of a response: logged, then the flow ends. */
void flow_refuse(struct gate_flow *f, int status, const char *why, const char *detail);
/* The request's record line (--log-fd), and the agent's short line for a refusal. */
void flow_log(struct gate_flow *f);
/* More of the agent's bytes into in: the count, 0 at its end, -1 on error. */
ssize_t flow_agent_read(struct gate_flow *f);
/* More of the upstream's bytes into rb: the count, 0 at its end, -1 on error. */
ssize_t flow_up_read(struct gate_flow *f);
/* Whether the request's header h (over in) is named name, in any case. Pure. */
int flow_header_is(const struct gate_flow *f, const struct http_header *h, const char *name);

#endif
