/* SPDX-License-Identifier: ISC */
/*
 * otorun's files, each section below one of them. main.c: the steps;
 * opts.c: the command line and the config file (dies 100, 111); words.c:
 * the words and their quoting, parse.c: the options and their values,
 * chain.c: the chain's stages (pure, all three); here.c: the directory of
 * the tools; launch.c: what a launch opens, prepares and execs (dies).
 */
#ifndef OTORUN_H
#define OTORUN_H

#include <stddef.h>
#include <stdnoreturn.h>

#include "oto.h"

/* After otomount's pivot_root the host's paths are gone: the stages that run
 * in the view (otosecret, otoexec) and otoprobe are bound read-only here. */
#define VIEW_BIN "/opt/oto/bin"

/*
 * The fds otorun opens for the stages before the first exec, above the
 * agent's 0 to 2 and the log's copy for otons (3, or 4): otogate's store and
 * key (it closes them), otoexec's profile file, otosecret's store and key.
 */
#define FD_GATE_STORE	5
#define FD_GATE_KEY	6
#define FD_PROFILE	7
#define FD_SECRET_STORE 8
#define FD_SECRET_KEY	9
/* --ask SOCKET: the connection to the decider, for otonet's --ask-fd (it keeps it). */
#define FD_ASK 99
/* STR (oto.h) makes an fd above the word a stage reads. */

/*
 * --mode: what otorun adds so that the session asks (otorun(1), "Permission
 * modes"). MODE_NONE: not given, the options alone decide (as auto).
 */
enum run_mode { MODE_NONE, MODE_AUTO, MODE_ASK_NEW, MODE_ASK_WRITES, MODE_ASK_ALL };

/* A growing string; oom is set (and the rest ignored) when malloc fails. */
struct strbuf {
	char *p;
	size_t n, cap;
	int oom;
};

/*
 * Words of the chain, kept twice: as argv (what otorun execs) and as the
 * text --print shows (each word " LIT" and its value quoted by quote_add).
 */
struct words {
	char **v;
	size_t n, cap;
	struct strbuf text;
	int oom;
};

struct otorun_opts {
	const char *root, *role, *person; /* "" when not given */
	const char *store, *key, *profile, *as, *log_fd;
	const char *log_budget;	 /* each writer's budget on --log-fd ("": the stages' default) */
	const char *config;	 /* --config FILE, "" when none */
	const char *cafile;	 /* --ca-file, NULL when not given */
	int transparent;	 /* a --grant is transparent: otomount adds otogate's session CA */
	const char *cgroup_dir;	 /* --cgroup=DIR, NULL when none */
	const char *ask_fd;	 /* --ask-fd N, "" when none */
	const char *ask;	 /* --ask SOCKET, "" when none */
	enum run_mode mode;	 /* --mode, MODE_NONE when not given */
	int nopublic;		 /* --no-public given (the mode adds it otherwise) */
	const char *ask_timeout; /* --ask-timeout S, "" when none: otogate's too */
	int gate_asks;		 /* a --grant has ask=: otogate needs the decider */
	int logins;		 /* a --login: otogate, the store and the key */
	int cgroup, nonet, print, verbose;
	int newsession; /* -1 unset, 0, 1 */
	/* The options each stage gets, in the order given. */
	struct words net, ns, mount, secrets, grants, exec;
	char **cmd; /* CMD [ARG]... */
};

/*
 * ---- opts.c: the two passes over argv and the config file ----
 * Exits 0 (--help, --version). Dies on failure: 100 on bad usage, 111 on an
 * unreadable config or no memory.
 */
void xotorun_parse(struct otorun_opts *o, int argc, char **argv);
/* Writes the one-line error "otorun: fatal: MSG\n" (unbounded, one write). Exits code. */
noreturn void xotorun_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- words.c: allocation failure returns NULL, or sets oom. Never exits. Pure. ---- */
/* Allocates memory that lives until arena_free (otorun never calls it: it execs or exits). */
void *arena_alloc(size_t n);
char *arena_strndup(const char *s, size_t n);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free(void);
void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_str(struct strbuf *b, const char *s);
/*
 * Appends the bytes of s as one sh word: as they are when s is not empty and
 * holds only [A-Za-z0-9_./:=@%+,-], else single-quoted whole ('\'' for a
 * quote).
 */
void quote_add(struct strbuf *b, const char *s);
/*
 * Copies s with each control byte (0-31, 127) as '?', for an error message.
 * Returns the copy (arena), or NULL on ENOMEM.
 */
char *shown(const char *s);
/* Appends the word LIT VAL (argv: their concatenation; text: " LIT" and VAL quoted). */
void words_add(struct words *w, const char *lit, const char *val);
void words_cat(struct words *dst, const struct words *src);

/* ---- parse.c: allocation failure returns -1, *err NULL. Never exits. Pure. ---- */
int is_num(const char *s);  /* [0-9]+ */
int is_name(const char *s); /* [A-Za-z_][A-Za-z0-9_]* */
int takes_value(const char *name);
int is_flag(const char *name);
void opts_init(struct otorun_opts *o);
/* Applies one option (a flag: val NULL). Returns 0, or -1 with *err the message (NULL: ENOMEM). */
int opt_apply(struct otorun_opts *o, const char *name, const char *val, char **err);
/*
 * Reads one line of a config file (len bytes), in place: NUL bytes dropped
 * (as sh's read does), one trailing CR, leading blanks. Returns 0: nothing
 * (blank, comment); 1: *text (a copy of the line so stripped), *name (to the
 * first blank), *val (after the blanks that follow it) and *has (a blank
 * followed the name); -1 on ENOMEM.
 */
int config_line(char *line, size_t len, char **text, char **name, char **val, int *has);
/* Runs the checks after the options. Returns NULL, or the message of the first that fails. */
const char *opts_check(const struct otorun_opts *o, int euid);

/*
 * ---- chain.c: one builder per stage ----
 * The chain: tool paths (here/TOOL, or TOOL from PATH, already decided),
 * the fds to open first, and the words. opens: the text after "exec" of
 * --print's first line ("" when none). Pure.
 */
struct chain {
	struct words w;
	struct strbuf opens;
	const char *ns_log_fd; /* otons' copy of --log-fd, NULL when none */
	int dup_log;	       /* otorun dups --log-fd to ns_log_fd */
};
struct chain_tools {
	const char *otogate, *otonet, *otons, *otomount; /* what to run each as */
	const char *here;				 /* the directory of the tools */
};
/* Builds c. cgroup_dir: what --cgroup= gets (NULL: a plain --cgroup). 0, or -1 on ENOMEM. */
int chain_build(struct chain *c, struct otorun_opts *o, const struct chain_tools *t,
		const char *cgroup_dir);

/* ---- here.c: the directory otorun lives in, absolute ---- */
/* Returns the path of a logical cd to dir from cwd, as sh's cd -L (malloc'd). Pure. */
char *path_logical(const char *cwd, const char *dir);
/*
 * Finds the directory from argv[0] when it has a slash (made absolute as sh's
 * cd and pwd would), else from /proc/self/exe. Returns it (malloc'd), or
 * NULL with errno.
 */
char *here_dir(const char *argv0);

/* ---- launch.c: what a launch does before the exec. Each dies on failure ---- */
/*
 * Run by root: delegates CGROUP2/oto/UID to the --as account and moves into
 * a leaf of it. Dies on failure: 100 on an unknown account, 111 on a system
 * call.
 */
char *xcgroup_prepare(const char *as);
/*
 * ---- check.c: before the launch ----
 * Checks that the --as account exists, that the agent tree and its parts
 * exist, and that those the role writes are the account's to write (unless
 * --cow). Dies on failure, each with its fix: 100, 101 or 111.
 */
void xlaunch_check(const struct otorun_opts *o);
/*
 * Opens the store and key, the profile, the log fd's copy and --ask's
 * socket where the chain wants them. Dies on failure: 100 on an --ask path
 * too long, 101 on a store or key others may access or a profile that will
 * not open, 111 on a system call.
 */
void xlaunch_fds(const struct otorun_opts *o, const struct chain *c);
/*
 * Run by root with --as: opens otomount's --ro, --rw, --socket and
 * --home-skel sources here, on the host, each a detached tree on an fd of
 * its own (fd=N:DST in argv, in place), but the bind of tools
 * (HERE:/opt/oto/bin, as chain_build made it); --ca-file's file likewise
 * (fd=N). Dies on failure: 101 on a CA file over 1024 KiB or not PEM, 111
 * on a system call.
 */
void xlaunch_sources(char **argv, const char *otomount, const char *tools);
/* Execs argv. Dies on failure: 127 when not found, 126 otherwise. */
noreturn void xlaunch_exec(char **argv);

#endif
