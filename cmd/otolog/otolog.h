/* SPDX-License-Identifier: ISC */
/*
 * otolog's files, each section below one of them. The stream is untrusted:
 * the agent chooses names, paths and programs' names in it. lines.c cuts it
 * into bounded lines, json.c reads each as one strict JSON object, event.c
 * says which line of which tool it is, summary.c counts it into its
 * session's groups; text.c, jsonout.c and policy.c write what was counted.
 * record.c ties them (the context the fuzz target and the unit tests drive).
 * Everything but opts.c and main.c is pure: no exit, no system call.
 */
#ifndef OTOLOG_H
#define OTOLOG_H

#include <stddef.h>

/* A line of the stream, its newline included, at most (a Landlock line is 64 KiB at most). */
#define LOG_LINE_MAX 65536

enum otolog_mode { MODE_TEXT, MODE_JSON, MODE_POLICY };

struct otolog_opts {
	enum otolog_mode mode;
	int follow;
	char **files; /* NULL-terminated; none: stdin */
};

/* ---- opts.c: the option loop. Exits 0 (--help, --version). Dies on bad usage: 100 ---- */
void xotolog_parse(struct otolog_opts *o, int argc, char **argv);

/* ---- out.c: a growing buffer of output. A failed allocation is kept in failed ---- */
struct out {
	char *buf;
	size_t len, cap;
	int failed;
};
void out_add(struct out *o, const char *s, size_t n);
void out_str(struct out *o, const char *s);
void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s for a person's terminal: printable ASCII as it is, '\' doubled, any other byte \xNN. */
void out_text(struct out *o, const char *s);
/* s as a JSON string, quotes included (lib/json_str's escapes). */
void out_json(struct out *o, const char *s);
void out_free(struct out *o);

/* ---- lines.c: the stream cut into lines, each at most LOG_LINE_MAX bytes ---- */
typedef int (*line_fn)(void *ctx, const char *line, size_t len, unsigned long long lineno);
struct lines {
	char *buf; /* LOG_LINE_MAX bytes */
	size_t len;
	int skipping; /* inside a line too long: its bytes dropped up to its newline */
	unsigned long long lineno, overlong;
};
int lines_init(struct lines *l); /* Allocates buf. Returns 0, or -1 (ENOMEM). */
/* Feeds n bytes of the stream: fn for each whole line (without its newline). fn's -1 stops it. */
int lines_feed(struct lines *l, const char *data, size_t n, line_fn fn, void *ctx);
/* Ends the stream. Returns 1 when a last line had no newline (cut: not read), else 0. */
int lines_end(struct lines *l);
void lines_free(struct lines *l);

/* ---- json.c: one JSON object on one line, strictly ---- */
#define JSON_KEYS  64	/* keys of the object */
#define JSON_ITEMS 4096 /* values of all its arrays */
enum json_type { JSON_STR, JSON_NUM, JSON_TRUE, JSON_FALSE, JSON_NULL, JSON_ARR };
struct json_val {
	enum json_type type;
	/*
	 * JSON_STR: the decoded bytes, NUL-terminated (\u0000 is refused), each
	 * \u0080-\u00ff the byte itself (the way lib/json_str writes a byte),
	 * above that UTF-8; JSON_NUM: its text.
	 */
	const char *s;
	size_t len;
	size_t first, n; /* JSON_ARR: its values, items[first .. first + n) */
};
struct json_obj {
	size_t nkv, nitems;
	struct {
		const char *key;
		struct json_val v;
	} kv[JSON_KEYS];
	struct json_val items[JSON_ITEMS];
	char *buf; /* the decoded strings: at least the line's length + 1 bytes */
	size_t cap;
};
/*
 * Parses line (len bytes, no newline) into o: an object of strings,
 * numbers, true, false, null and arrays of those; no nested object or
 * array, no key twice, nothing after the object but blanks. Returns 0, or
 * -1 with *why.
 */
int json_parse(struct json_obj *o, const char *line, size_t len, const char **why);
const struct json_val *json_get(const struct json_obj *o, const char *key);
/* Returns key's string; NULL when absent or not a string. */
const char *json_str_of(const struct json_obj *o, const char *key);
/* Reads a non-negative integer (no fraction, no exponent) up to max. Returns 0, or -1. */
int json_uint(const struct json_val *v, unsigned long long max, unsigned long long *out);
int json_int(const struct json_val *v, long long *out); /* an integer, its sign included */

/* ---- event.c: what a line is ---- */
enum ev_source { EV_SESSION, EV_NET, EV_DNS, EV_SECCOMP, EV_LANDLOCK, EV_GATE, EV_PROTECT, EV_NUM };
extern const char *const ev_source_name[EV_NUM];
struct event {
	enum ev_source src;
	const char *time;    /* RFC 3339; otogate's own lines: their number of seconds */
	const char *session; /* "": none (otogate's own lines carry none) */
	const char *verdict; /* "": none (otogate's own lines) */
	const struct json_obj *o;
};
/*
 * Reads o as a line of the record. *unknown is set for a source this otolog
 * does not know. Returns 0, or -1 with *why (a key missing or of the wrong
 * type).
 */
int event_read(const struct json_obj *o, struct event *e, const char **why, int *unknown);

/* ---- summary.c: the sessions, and what each was refused, grouped ---- */
#define SUM_SESSIONS 4096
#define SUM_GROUPS   4096		  /* per session */
#define SUM_ASKS     4096		  /* questions kept per session */
#define SUM_BYTES    (64UL * 1024 * 1024) /* of the groups' strings, in all */
#define SUM_KEYS     5
#define SUM_INDEX    (2 * SUM_GROUPS) /* slots of a session's index of its groups */
enum group_kind {
	G_NET,	    /* proto dst port name rule */
	G_DNS,	    /* name type rule outcome */
	G_SYSCALL,  /* syscall comm */
	G_LANDLOCK, /* blockers target comm */
	G_GATE,	    /* host grant status error */
	G_ASK,	    /* source proto target port decision */
	G_LAST,	    /* a refusal kind's last count: source kind */
	G_NUM
};
struct group {
	enum group_kind kind;
	char *k[SUM_KEYS];
	unsigned long long count;
};
struct ask {
	char *id;
	char *k[4]; /* source proto target port */
	int answered;
};
struct sess {
	char *id;
	char *stage, *account, *role, *person, *chain, *start, *end, *duration;
	unsigned long long uid;
	long long exit, sig;
	int opened, closed, has_uid;
	unsigned long long lines, allowed_net, allowed_dns, dropped;
	/* Lines a stage did not write, its budget spent: the sum, and each source's. */
	unsigned long long unwritten, unwritten_by[EV_NUM];
	int budget_spent;
	struct group *g;
	size_t ng, gcap;
	int *index; /* SUM_INDEX slots: a group's place, by its keys' hash; -1 free (NULL: none yet)
		     */
	struct ask *a;
	size_t na, acap;
};
struct summary {
	struct sess *s;
	size_t ns, cap;
	size_t bytes;
	unsigned long long dropped; /* lines of sessions past SUM_SESSIONS */
};
/*
 * Counts e in its session. *refusal: the group it was counted in when it is
 * a refusal, an ask or its answer (for --follow), else NULL. Returns 0, or
 * -1 (ENOMEM).
 */
int summary_add(struct summary *s, const struct event *e, const struct group **refusal);
/*
 * Ends: counts questions never answered as "pending", sorts every session's
 * groups. Returns 0, or -1 (ENOMEM).
 */
int summary_end(struct summary *s);
void summary_free(struct summary *s);

/* ---- text.c, jsonout.c, policy.c: what was counted, written ---- */
void text_summary(struct out *o, const struct summary *s);
void text_follow(struct out *o, const struct event *e, const struct group *g);
void json_summary(struct out *o, const struct summary *s);
void policy_write(struct out *o, const struct summary *s);

/* ---- record.c: the whole, for main, the unit tests and the fuzz target ---- */
struct otolog {
	enum otolog_mode mode;
	int follow;
	struct lines lines;
	struct json_obj *obj;
	struct summary sum;
	struct out out;
	unsigned long long read, malformed, unknown, cut;
	unsigned long long bad_line; /* the first malformed line's number, and why */
	const char *bad_why;
	int bad_key; /* bad_why is a key, missing or of the wrong type */
};
/* Sets c up. Returns 0, or -1 (ENOMEM). */
int otolog_init(struct otolog *c, enum otolog_mode mode, int follow);
/*
 * Feeds bytes of the stream; with follow, out gets a line for each refusal.
 * Returns 0, or -1 (ENOMEM).
 */
int otolog_feed(struct otolog *c, const char *data, size_t n);
/* Ends the stream: the summary in out. Returns 0, or -1 (ENOMEM). */
int otolog_end(struct otolog *c);
/* Returns how many lines were not read (malformed, too long, cut): the exit's 101. */
unsigned long long otolog_skipped(const struct otolog *c);
/* Writes the warning that says so into buf (empty when none). */
void otolog_skipped_text(const struct otolog *c, char *buf, size_t size);
void otolog_fini(struct otolog *c);

#endif
