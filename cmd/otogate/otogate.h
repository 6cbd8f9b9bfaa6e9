/* SPDX-License-Identifier: ISC */
/*
 * otogate's files, each section below one of them. main.c: the steps;
 * opts.c: the command line (dies 100, 111); parse.c: the option values and the
 * lines the gateway writes, allow.c: what a grant's credential may do,
 * bundle.c: the CA bundle's index (pure, all three). Before the agent runs:
 * secrets.c decrypts the granted entries and makes their phantoms, ca.c the
 * session CA of the transparent grants, upstream.c resolves the upstreams
 * and makes the TLS client, on trust.c's lookup of the bundle; seccomp.c is
 * the gateway's filter (pure; gen/bpfgen.c compiles it at build time),
 * which lockdown.c loads with the rest of the confinement. Then loop.c takes
 * each flow otonet hands over onto a thread of its own, where flow.c serves
 * its requests and agent.c is the agent's side, plain or TLS. Asking
 * (ask=, --ask-fd): pkt.c reads a push's ref updates, askline.c the lines
 * to and from the decider (pure, both), ask.c is the decider's connection,
 * shared by the flows and by otonet's questions relayed over it.
 */
#ifndef OTOGATE_H
#define OTOGATE_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "http.h"
#include "login.h"
#include "oto.h"

#define GATE_MAX_GRANTS	      16 /* otonet's OTO_GATEWAY carries at most 16 ports */
#define GATE_FIRST_PORT	      8001
#define GATE_MAX_HOST	      253
#define GATE_MAX_ADDRS	      8
#define GATE_MIN_SECRET	      HTTP_MIN_SECRET /* shorter, it would be found (and replaced) everywhere */
#define GATE_MAX_CRED_HEADERS 8
#define GATE_MAX_HEADER_NAME  64
#define GATE_MAX_ALLOW	      32 /* allow= rules of a grant */
#define GATE_MAX_METHOD	      32
#define GATE_MAX_PREFIX	      512
#define GATE_AGENT_ADDR	      "10.0.2.4"
#define GATE_MAX_ASK	      32 /* ask= rules of a grant */
#define GATE_ASK_TIMEOUT      30 /* s: --ask-timeout's default, otonet's */
#define GATE_MAX_LOGINS	      4	 /* --login */
#define GATE_LOGIN_PAIRS      8	 /* a login's tokens kept: the file's and each refresh's */
/*
 * The store's directory, in the gateway: dup'd to this number so that the
 * filter compiled at build time can pin every *at() call to it.
 */
#define GATE_STORE_DIRFD 1000

/* ---- opts.c ---- */
/* One allow=METHOD:PREFIX of a grant (pointing into its spec): "*" is any method. */
struct grant_allow {
	const char *method, *prefix;
	size_t method_len, prefix_len;
};
struct gate_login;
struct grant {
	/* a login's grant for its token endpoint's host alone: no header carries the access */
	int token_only;
	const char *name; /* the store entry, and the agent's variable */
	/* a --login's grant (transparent, Authorization, its access token), or NULL */
	const struct gate_login *login;
	char host[GATE_MAX_HOST + 1];
	uint16_t port;	  /* the upstream's, 443 by default */
	uint16_t gw_port; /* the agent's: 8001 + index */
	/* the request headers that carry the credential (header=; Authorization and x-api-key) */
	const char *headers[GATE_MAX_CRED_HEADERS];
	size_t nheaders;
	/* the requests it serves (allow=); none: every request */
	struct grant_allow allow[GATE_MAX_ALLOW];
	size_t nallow;
	/* the requests asked about (ask=); writes: ask=writes, every method but GET, HEAD, OPTIONS
	 */
	struct grant_allow ask[GATE_MAX_ASK];
	size_t nask;
	int ask_writes;
	/* filled by main: */
	uint8_t *real; /* locked memory (sodium_malloc) */
	size_t len;
	char *phantom;			 /* len bytes, NUL-terminated */
	char hosthdr[GATE_MAX_HOST + 8]; /* HOST, or HOST:PORT when PORT is not 443 */
	struct sockaddr_storage addr[GATE_MAX_ADDRS];
	socklen_t addrlen[GATE_MAX_ADDRS];
	size_t naddr;
	int is_ip;	 /* HOST is an address: verified as such, no SNI */
	int transparent; /* ,transparent: the agent reaches HOST by name, over TLS (ca.c) */
};
/*
 * One --login ENTRY=PROFILE: a CLI's login file, sealed whole in ENTRY. The
 * gateway keeps its real secrets and their phantoms (secrets.c), the view
 * gets the phantom file (a sealed memfd, OTO_LOGIN), and each of the
 * profile's hosts a transparent grant of its own for the access token.
 */
struct gate_login {
	const char *spec;  /* --login's value, for messages */
	const char *entry; /* the store entry (cut from a copy of spec) */
	struct login_profile p;
	int memfd;     /* the phantom file for the view: made before the fork, filled after */
	int index;     /* the entry's, in the store */
	size_t len;    /* the file's */
	size_t grant0; /* its grants: grants[grant0, grant0 + p.nhosts) */
	uint8_t *real; /* the file as sealed, in locked memory */
	char *phantom; /* the file the view gets */
	size_t n;      /* its secrets present in the file, each as real and phantom: */
	const uint8_t *sreal[LOGIN_MAX_SECRETS];
	const char *sphantom[LOGIN_MAX_SECRETS];
	size_t slen[LOGIN_MAX_SECRETS];
	enum login_role role[LOGIN_MAX_SECRETS];
	/* the token endpoint, from p.token_url: its host, port and path */
	char token_host[GATE_MAX_HOST + 1];
	uint16_t token_port;
	const char *token_path;
	struct login_table *t; /* the session's tokens (login.c), from xlogin_open on */
};
/*
 * A login's tokens in the session: the file's, then each refresh's, every
 * one a (role, real, phantom) pair, oldest first; the reals in locked
 * memory. Full, the oldest pair not a refresh token's is dropped first.
 * Flows copy the pairs under lock when gen has moved; only a refresh
 * (under the gateway's refresh lock) adds pairs or sets file.
 */
struct login_tok {
	enum login_role role;
	size_t len;
	uint8_t *real; /* HTTP_MAX_SECRET bytes of the locked slab */
	char phantom[HTTP_MAX_SECRET];
};
struct login_table {
	pthread_mutex_t lock;
	atomic_ulong gen;
	size_t n;
	struct login_tok tok[GATE_LOGIN_PAIRS];
	uint8_t *file; /* the real login file now, locked (JSON_MAX_INPUT bytes) */
	size_t file_len;
};
/* Adds the pair (role, real, phantom, len): 0, or -1 for a length the table does not take. */
int login_table_add(struct login_table *t, enum login_role role, const void *real,
		    const void *phantom, size_t len);
struct otogate_opts {
	int store_fd, key_fd;		   /* -1 when unset */
	const char *store_path, *key_path; /* NULL when unset */
	const char *ca_file;		   /* NULL: the host's bundle */
	int log_fd;			   /* -1 when unset */
	int ask_fd;			   /* the decider's socket (--ask-fd), -1 when unset */
	unsigned long ask_timeout_ms;	   /* --ask-timeout */
	const char *as;
	int store_dir;		/* with --login and --store FILE: its directory, else -1 */
	const char *store_name; /* the store's name in store_dir */
	uint8_t *key;		/* with --login: kept (locked) for the refreshed files */
	struct grant grants[GATE_MAX_GRANTS]; /* --grant's, then --login's */
	size_t ngrants;
	struct gate_login logins[GATE_MAX_LOGINS];
	size_t nlogins;
	char **argv; /* the next program */
};
/*
 * The option loop. Exits 0 (--help, --version). Dies on failure: 100 on bad
 * usage, 111 when a --grant cannot be copied (no memory).
 */
void xotogate_parse(struct otogate_opts *o, int argc, char **argv);

/* ---- parse.c: the option values and what the gateway writes. Pure. ---- */
/*
 * Parses "NAME=https://HOST[:PORT][,header=HEADER][,allow=METHOD:PREFIX]..."
 * into g (name, headers and rules point into spec, which is cut at its
 * commas). Returns 0, or -1 with a reason.
 */
int grant_parse(char *spec, struct grant *g, const char **why);
int gate_fd_parse(const char *s); /* returns an fd number, 0 to 65535, or -1 */
/*
 * Writes OTO_GATEWAY's value "FD:P1,P2,..." for the n grants g, each by its
 * gw_port, a transparent one as "P=HOST:PORT" (otonet hands it the flows to
 * HOST by name, not those to 10.0.2.4). Returns its length, 0 if too small.
 */
size_t gateway_env_format(char *buf, size_t size, int fd, const struct grant *g, size_t n);
/*
 * Writes one JSON log line (with its newline) for a request. Returns its
 * length, 0 when buf is too small.
 */
struct gate_logrec {
	long long sec;
	long msec;
	const char *grant, *host;
	const char *method;
	size_t method_len;
	const char *path; /* the target; written up to its '?' */
	size_t path_len;
	int status;
	unsigned long long up, down; /* bytes to the upstream, to the agent */
	const char *error;	     /* NULL, or why the gateway answered itself */
};
size_t gate_log_format(char *buf, size_t size, const struct gate_logrec *r);
/*
 * Writes the record's line (with its newline) of a login's phantom that
 * went out as it is (login_seen): {"time","grant" (the login's entry),
 * "host" (where the request went), "verdict":"pass", "phantom" (its role),
 * "where" ("path", "query", "header NAME")}. Returns its length, 0 when
 * buf is too small.
 */
size_t gate_sight_format(char *buf, size_t size, long long sec, long msec, const char *grant,
			 const char *host, const char *role, const char *where, size_t where_len,
			 int header);
/*
 * Writes the gateway's own answer: a head and a one-line body
 * "otogate: WHY\n". Returns its length, or 0.
 */
size_t gate_error_format(char *buf, size_t size, int status, const char *why);

/* ---- allow.c: the requests a grant serves (allow=). Pure. ---- */
/* Parses "METHOD:PREFIX" into a (pointing into spec, cut at its colon): 0, or -1 with why. */
int allow_parse(char *spec, struct grant_allow *a, const char **why);
/*
 * Checks the path p[0, len) (no query). Returns NULL when it is in the form
 * matched, or why it is not.
 */
const char *allow_path_check(const char *p, size_t len);
enum allow_verdict {
	ALLOW_OK,	/* served: no rule, or one matches */
	ALLOW_BADPATH,	/* a path the gateway and an upstream could read differently: a 400 */
	ALLOW_NOMATCH,	/* no rule serves the method and path: a 403 */
	ALLOW_OVERRIDE, /* a method or URL override an upstream could act on instead: a 400 */
};
/*
 * Whether g limits its requests (allow=; ask= too): the requests of such a
 * grant pass allow_head_check before any rule is looked at.
 */
int grant_limits(const struct grant *g);
/*
 * Checks the parsed head r (over buf) of a request to g, when g limits
 * requests: its path as allow_path_check does (ALLOW_BADPATH), then no
 * override header (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override,
 * X-Original-URL, X-Rewrite-URL, X-Original-Method, X-Forwarded-Prefix, any
 * case, '_' for '-') and no _method parameter in the query (ALLOW_OVERRIDE).
 * Returns the verdict, with why (the header's name, for one); ALLOW_OK for
 * any request to a grant that does not limit them.
 */
enum allow_verdict allow_head_check(const struct grant *g, const char *buf,
				    const struct http_req *r, const char **why);
/*
 * A form body's _method parameter, which Rack's MethodOverride and
 * Symfony's (Laravel) act on as the method, found as the body streams: its
 * names read as the query's are (allow_head_check), in a urlencoded body
 * (FORM_URLENCODED) or in a multipart one's part headers (FORM_MULTIPART:
 * every name= and filename=). Zero it with its kind, feed it the body's
 * bytes in any pieces (its found is set once one is seen), then
 * form_scan_end: 1 when one was. Pure.
 */
enum form_kind { FORM_URLENCODED = 1, FORM_MULTIPART };
struct form_scan {
	enum form_kind kind;
	unsigned char pct, hi;	       /* a '%' escape's state (0, 1, 2) and its first digit */
	unsigned char value;	       /* urlencoded: in a value */
	unsigned char in_name, quoted; /* multipart: in a name= (1: before its quote), quoted */
	unsigned char k;	       /* multipart: bytes of "name=" matched */
	unsigned char n, cut; /* a name's bytes matched against "_method"; read no more of it */
	unsigned char found;
};
void form_scan_feed(struct form_scan *s, const char *p, size_t len);
int form_scan_end(struct form_scan *s);
/*
 * Judges whether g serves the request METHOD TARGET (the query, after '?',
 * is not matched). Returns the verdict, with why.
 */
enum allow_verdict allow_judge(const struct grant *g, const char *method, size_t mlen,
			       const char *target, size_t tlen, const char **why);

/* ---- pkt.c: a push's ref updates, from its pkt-lines. Pure. ---- */
#define PKT_MAX_REFS	64   /* ref updates read from one push */
#define PKT_MAX_SHALLOW 64   /* shallow lines before them */
#define PKT_MAX_PAYLOAD 1024 /* a command's pkt-line, capabilities included */
#define PKT_MAX_REF	255  /* a ref's name */
#define PKT_MAX_OID	64   /* SHA-256's, in hex */
struct pkt_ref {
	char name[PKT_MAX_REF + 1];
	char old[PKT_MAX_OID + 1], new[PKT_MAX_OID + 1];
};
/*
 * The command list at a receive-pack request's start (git's pack-protocol:
 * "shallow" lines, then "OLD NEW REF" lines, the first with its
 * capabilities after a NUL, then a flush-pkt), read as it arrives in any
 * pieces. Zero it, then feed it.
 */
struct pkt_cmds {
	unsigned int nhex; /* the current length word's digits read (0 to 4) */
	char hex[4];
	size_t want, have; /* the current pkt-line's payload: its length, bytes so far */
	char line[PKT_MAX_PAYLOAD];
	unsigned long long bytes; /* read so far */
	size_t nshallow, n;
	int report, sideband; /* the capabilities report-status(-v2), side-band(-64k) */
	int done;
	const char *err; /* sticky: why the list was refused */
	struct pkt_ref refs[PKT_MAX_REFS];
};
/*
 * Reads buf[0, len). Returns 1 when the list ended (*used: the bytes of
 * buf up to and with its flush-pkt), 0 when all of buf was read and more
 * is to come, -1 with c->err when it is malformed, or longer than the
 * bounds above, or a signed push (push-cert). Once 1 or -1, it stays.
 */
int pkt_cmds_feed(struct pkt_cmds *c, const char *buf, size_t len, size_t *used);
/*
 * Writes git's answer refusing every ref update of c with the reason why:
 * an HTTP 200 whose body is receive-pack's report-status ("ng REF why" for
 * each, in side-band 1 when c asked for it), which git shows the person as
 * "[remote rejected] (why)". Returns its length, 0 when it does not fit
 * or c asked for no report-status.
 */
size_t pkt_deny_format(char *buf, size_t size, const struct pkt_cmds *c, const char *why);

/* ---- askline.c: the lines to and from the decider, and the record's. Pure. ---- */
enum gate_decision {
	GATE_ALLOW_ONCE,
	GATE_ALLOW_SESSION,
	GATE_DENY,
	GATE_TIMEOUT, /* the gateway's own, below: never a decider's */
	GATE_GONE,
	GATE_LIMIT,
	GATE_NUM_DECISIONS
};
extern const char *const gate_decision_name[];
/*
 * Returns whether the ask= rule a covers METHOD and the path p[0, plen)
 * (no query). Matched to ask more, never less, than what the upstream
 * reads: the method in any case, the path and the prefix percent-decoded,
 * and a path allow_path_check refuses (the gateway cannot say what the
 * upstream reads) is covered whatever it is.
 */
int ask_rule_match(const struct grant_allow *a, const char *method, size_t mlen, const char *p,
		   size_t plen);
/* One answer line without its newline, "ID DECISION" (otonet(1), ASKING): 0, or -1. */
int gate_answer_parse(const char *s, size_t n, uint32_t *id, enum gate_decision *d);
/* A request asked about: what the question and the record's lines say of it. */
struct gate_question {
	const char *grant, *host;
	const char *method;
	size_t method_len;
	const char *path; /* without the query */
	size_t path_len;
	long long length;	     /* the body's, -1: chunked (unknown) */
	const char *rule;	     /* "ask=M:P" or "ask=writes" */
	const struct pkt_cmds *push; /* a receive-pack's ref updates, or NULL */
};
/*
 * The question's line to the decider, with its newline: at most 1024 bytes
 * (its ref updates listed while they fit, "refs" counting them all).
 * Returns its length, 0 when even the fields do not fit.
 */
size_t gate_question_format(char *buf, size_t size, const struct timespec *t, const char *session,
			    uint32_t id, const struct gate_question *q);
/*
 * The record's line (--log-fd) of a question (decision NULL: verdict ask,
 * the rule) or of its outcome (verdict allow or deny, rule ask, the
 * decision), with its newline. Returns its length, 0 when it does not fit.
 */
size_t gate_ask_log_format(char *buf, size_t size, long long sec, long msec,
			   const struct gate_question *q, uint32_t id, const char *decision);
/*
 * otonet's question line n[0, len) (no newline) with its id replaced by
 * id, into out with a newline: its length, *was otonet's id; 0 when the
 * line holds no id, or out is too small.
 */
size_t gate_net_renumber(const char *n, size_t len, uint32_t id, char *out, size_t size,
			 uint32_t *was);
/* The 403 of an asked request not allowed: a one-line JSON body {"error":"otogate: WHY"}. */
size_t gate_deny_format(char *buf, size_t size, const char *why);
/* ---- ca.c ---- */
/*
 * Makes the session CA and the leaf for the transparent grants' hosts: the
 * TLS server context in *server_ctx (SSL_CTX *). Returns a sealed memfd
 * holding the CA's certificate (PEM), not close-on-exec. Dies on failure:
 * 111.
 */
int xca_make(struct otogate_opts *o, void **server_ctx);

/* ---- secrets.c: each dies on failure: 101 or 111 ---- */
/* The store between the two steps: read and checked, not yet decrypted. */
struct gate_secrets {
	struct store_view v;
	uint8_t *store;		       /* the sealed store; freed once decrypted */
	int index_of[GATE_MAX_GRANTS]; /* each grant's entry in v */
};
/*
 * Reads and checks the store, makes the phantoms, opens the key (unread,
 * close-on-exec). Dies on failure: 100 on a --key-fd that is not open, 101
 * or 111.
 */
void xsecrets_plan(struct otogate_opts *o, struct gate_secrets *s);
/*
 * Reads the key, verifies the store, decrypts the granted entries into
 * locked memory; each --login's file too: its phantom file (fresh phantoms)
 * written to its memfd and sealed, its grants' values set.
 */
void xsecrets_open(struct otogate_opts *o, struct gate_secrets *s);

/* ---- login.c: --login ---- */
/* Reads --login's ENTRY=PROFILE and its profile. Dies: 100, 101 (a profile that does not parse),
 * 111. */
void xlogin_add(struct otogate_opts *o, const char *spec);
/* Each login's grants, after --grant's: one for each of its profile's hosts. Dies 100. */
void xlogin_grants(struct otogate_opts *o);
/* Before the fork: each login's entry found in the store, its memfd made. Dies 101, 111. */
void xlogin_plan(struct otogate_opts *o, const struct store_view *v);
/* OTO_LOGIN's value, "FD:FILE[,FD:FILE]...": its length, 0 when buf is too small. */
size_t login_env_format(char *buf, size_t size, const struct otogate_opts *o);
/*
 * After the fork, in the gateway: each login's file decrypted with key, its
 * phantom file made (fresh phantoms), written to its memfd and sealed; its
 * grants' values set. Dies 101 (a file that does not fit its profile), 111.
 */
void xlogin_open(struct otogate_opts *o, const struct store_view *v, const uint8_t *key);
/* A login's phantom seen in a request head where no grant puts its real value. */
struct login_sight {
	const struct gate_login *login;
	const char *where; /* "path", "query", or a header's name (header set) */
	size_t where_len;
	enum login_role role;
	int header;
};
/*
 * The places in the head r (over buf) of a request to g where a phantom of
 * a login (the file's, or one its refreshes gave out) stands and goes out
 * as it is: the path, the query, a header but the one g puts the access
 * token's real value in. At most max, into out; their number. Takes each
 * login's table lock; else pure.
 */
size_t login_seen(const struct otogate_opts *o, const struct grant *g, const char *buf,
		  const struct http_req *r, struct login_sight *out, size_t max);

/* ---- bundle.c: the CA bundle's index. Pure. ---- */
struct bundle_cert {
	size_t der, len; /* the certificate's DER: its offset in bundle.der, its length */
	size_t subject, subject_len; /* its subject Name's DER, header included */
};
struct bundle {
	uint8_t *der; /* every certificate's DER, one after the other: the PEM's buffer */
	size_t used, cap;
	struct bundle_cert *certs;
	size_t n;
};
/*
 * Indexes the PEM text pem[0, len) into b. pem (from malloc) is b's from
 * the call on: the DER is decoded over it, and bundle_free frees it; b is
 * empty, and pem freed, unless 0 is returned. Returns 0; -1 with why when
 * it does not load (no certificate, a block that is not one); 1 with why
 * when it holds what only OpenSSL's own reader takes (another kind of
 * block, PEM headers).
 */
int bundle_index(struct bundle *b, char *pem, size_t len, const char **why);
/* 0: the scalar decoder alone, never the SSSE3 one (the tests compare the two). */
extern int bundle_vector;
/* Finds where a DER certificate's subject Name is (header included): 0, or -1. */
int bundle_subject(const uint8_t *der, size_t len, size_t *off, size_t *slen);
void bundle_free(struct bundle *b);

/* ---- trust.c ---- */
/*
 * Reads the CA bundle FILE whole and indexes it (bundle.c) while the host's
 * files are there. Returns a certificate store (X509_STORE *) that parses a
 * subject's certificates when the verifier asks for them. Dies on failure:
 * 111 when FILE does not load; 101 when FILE is the operator's (given) and
 * holds a private key.
 */
void *xtrust_load(const char *file, int given);

/* ---- upstream.c ---- */
/*
 * Resolves every grant's host and reads the CA bundle, before the gateway's
 * go (a failure stops the chain before any of the sandbox runs). Returns
 * the certificate store. Dies on failure: 111; 101 as xtrust_load.
 */
void *xupstream_init(struct otogate_opts *o);
struct upstream {
	int fd;
	void *ssl;     /* SSL * */
	int ended;     /* the connection's end was read: */
	int end_errno; /* 0 a clean close, or the error */
	/* CLOCK_MONOTONIC ms by which a wait to read or write ends (ETIMEDOUT), or 0: none */
	long long deadline;
	/* an fd whose peer's close (POLLRDHUP) ends a wait too (ECONNABORTED), or -1: none */
	int watch;
};
/*
 * Connects to g's upstream over TLS, verified. Returns 0, or -1 with why (a
 * static string) and detail.
 */
int upstream_open(void *client_ctx, const struct grant *g, struct upstream *u, const char **why,
		  char *detail, size_t dsz);
void upstream_close(struct upstream *u);
/* A deadline for struct upstream, ms from now. */
long long upstream_deadline(int ms);
/* Returns whether an idle kept-alive connection has anything to read: its close, in practice. */
int upstream_idle_closed(struct upstream *u);
/*
 * Reads what has come (waiting for one record). Returns its length, 0 at a
 * clean close, -1 and errno.
 */
ssize_t upstream_read(struct upstream *u, void *buf, size_t len);
int upstream_write(struct upstream *u, const void *buf, size_t len);

/* ---- ask.c: the decider's connection (--ask-fd) ---- */
struct gate_ask;
/*
 * Takes the decider's socket fd and the gateway's end of otonet's socket
 * (net, or -1), and starts the thread that reads both. Returns the
 * connection, or NULL with errno.
 */
struct gate_ask *ask_start(int fd, int net, unsigned long timeout_ms, const char *session);
/*
 * Whether an allow-session answer covers g's request METHOD PATH: the id of
 * the question that allowed it, or 0.
 */
uint32_t ask_allowed(struct gate_ask *a, const struct grant *g, const char *method, size_t mlen,
		     const char *path, size_t plen);
/*
 * Asks q about g's request, with rule the ask= that matched it, and waits
 * for the answer, at most the timeout. Calls logq(arg, id) once the
 * question is sent (or decided at once), for its record line. Returns the
 * decision, *id the question's.
 */
enum gate_decision ask_question(struct gate_ask *a, const struct grant *g,
				const struct grant_allow *rule, const struct gate_question *q,
				uint32_t *id, void (*logq)(void *arg, uint32_t id), void *arg);

/* ---- flow.c ---- */
#define REFRESH_TIMEOUT_MS 30000 /* gate.refresh_ms unless a test shortens it */
struct gate {
	const struct otogate_opts *o;
	int log_fd;
	void *tls_server; /* SSL_CTX * of the transparent grants (ca.c), or NULL */
	void *store;	  /* X509_STORE * of the CA bundle (trust.c) */
	void *tls_client; /* SSL_CTX * of the upstreams, made at the first flow (upstream.c) */
	pthread_mutex_t tls_lock; /* ...by one flow */
	atomic_int nflows;	  /* flows served at once (flow.c) */
	struct gate_ask *ask;	  /* the decider (--ask-fd), or NULL */
	struct why *why;	  /* the agent's file (OTO_WHY): a short line per refusal */
	pthread_mutex_t why_lock; /* ...from every flow's thread */
	/* a refresh at a time (refresh.c): the work area, the login tables' writes */
	pthread_mutex_t refresh_lock;
	struct login_refresh_work *work;
	int refresh_ms; /* the token endpoint's time to answer, the lock held meanwhile */
	void *_Atomic refresh_spare; /* a refresh's area (600 KB), kept for the next */
};
/*
 * Returns the upstreams' TLS client context (made by the first flow to ask),
 * or NULL (memory).
 */
void *upstream_context(struct gate *g);
/*
 * Serves one flow of the agent on a thread of its own (the fd is then its).
 * Returns 0, or -1 with errno.
 */
int flow_start(struct gate *g, int fd, int port);

/* ---- refresh.c: a login's token endpoint ---- */
struct gate_flow;
/* Whether the flow's current request is a refresh: POST to its login's token URL. */
int refresh_is(const struct gate_flow *f);
/*
 * Serves a refresh (refresh.c): 0 when answered and the flow may go on,
 * -1 when it ends (answered or logged).
 */
int refresh_serve(struct gate_flow *f);

/* ---- agent.c: the agent's side of a flow, plain or TLS (a transparent grant's) ---- */
struct agent {
	int fd;
	void *ssl; /* SSL *, or NULL: plain */
};
/* Does the TLS handshake as the grant's host (blocking). Returns 0, or -1 with why. */
int agent_accept(struct agent *a, void *server_ctx, const char *host, const char **why);
/* Reads what has come. Returns its length, 0 at the agent's end, -1 and errno. */
ssize_t agent_recv(struct agent *a, void *buf, size_t len);
int agent_write_all(struct agent *a, const void *buf, size_t len);
int agent_writev_all(struct agent *a, struct iovec *v, int cnt);
void agent_close(struct agent *a);

/* ---- loop.c ---- */
/*
 * Serves the flows from sock until the child exits. Exits with the child's
 * code (wait_code). Dies on failure: 111.
 */
void xgate_run(struct gate *g, int sock, int sigfd, pid_t child);

/* ---- seccomp.c: the gateway's filter. Pure. ---- */
/* Returns a libseccomp context (scmp_filter_ctx), or NULL with errno. */
void *gate_filter(void);
/* The same, compiled by the build (gen/bpfgen.c, $(O)/gen/otogate_bpf.c): lockdown.c loads it. */
extern const unsigned char OTOGATE_BPF[];
extern const size_t OTOGATE_BPF_LEN;

/* ---- lockdown.c ---- */
/*
 * Enters a user and mount namespace of its own, its ids mapped to
 * themselves. Dies on failure: 111.
 */
void xgate_unshare(void);
/*
 * Then: an empty root, no capability, no_new_privs; with store_dir (>= 0,
 * the store's directory), a Landlock domain that allows the files of that
 * directory alone (read, write, make, remove), where the kernel has
 * Landlock. Dies on failure: 111.
 */
void xgate_confine(int store_dir);
/* Loads the gateway's seccomp filter. Dies on failure: 111. */
void xgate_lockdown(void);

#endif
