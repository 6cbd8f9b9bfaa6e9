/* SPDX-License-Identifier: ISC */
/*
 * oto: what every tool shares, a function to a file (a static link pulls in
 * only what is used; older files such as cidr.c, opt.c, fd.c hold a small
 * module). Pure helpers (parsing, formatting, arithmetic) make no system
 * call; the others return -1 and set errno, and the caller decides.
 *
 * Exiting: the process ends only in main.c, in die(), die_usage() and
 * opt_die() (log.c, optdie.c), and in functions whose name starts with x:
 * "xfoo dies on failure" (xexec, xopt_common, xuser_drop_root, xtest_switch
 * here; in a tool, its option loop xTOOL_parse and the steps main calls, such
 * as xview_build). A function that calls an x function is itself x-prefixed, so
 * the name says what a caller risks. Pure code never exits: the unit tests
 * link it alone (their "// UNIT:" lines), and the Makefile refuses a unit test
 * that links die or an x function; tests/test_house.sh checks the names in
 * the sources.
 */
#ifndef OTO_H
#define OTO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Exit codes: the execline/skarnet convention, the same in every tool. */
enum {
	EXIT_USAGE = 100,    /* bad usage */
	EXIT_REJECT = 101,   /* input rejected: a store, key, profile that does not verify */
	EXIT_SYS = 111,	     /* a system call failed */
	EXIT_NOEXEC = 126,   /* the next program could not be executed */
	EXIT_NOTFOUND = 127, /* the next program was not found */
};

/* The number of elements of an array (not a pointer: that is a size, wrongly). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A macro's value as a string literal: STR(FD_ASK) is "99". */
#define STR_(x) #x
#define STR(x)	STR_(x)

enum log_level { LOG_FATAL, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_NUM_LEVELS };

/* log.c: one line per message, written with one write(2) to stderr; die also
 * reports it to OTO_STATUS_FD, then exits with code. */
extern const char *log_prog;
extern int log_verbosity; /* messages up to this level are printed; -v raises it */
/* Called by die, after the message, before the exit: a stage's undo (otons: its empty cgroup). */
extern void (*log_at_die)(void);
/*
 * Called by die before anything is said: a process that may only speak once
 * another has not (otonet's child, whose relay builds the filter meanwhile)
 * waits here, and may end without a word.
 */
extern void (*log_before_die)(void);
void log_init(const char *argv0);
void log_msg(enum log_level lvl, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
noreturn void die(int code, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* As die, with hint (" (the fix)") after the strerror of err, so that the status line keeps err. */
noreturn void die_hint(int code, int err, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define warnx(...)  log_msg(LOG_WARN, 0, __VA_ARGS__)
#define infox(...)  log_msg(LOG_INFO, 0, __VA_ARGS__)
#define debugx(...) log_msg(LOG_DEBUG, 0, __VA_ARGS__)
/* log_format.c: "PROG: LEVEL: MSG[: strerror(err)]\n" into buf; returns its length. Pure. */
size_t log_format(char *buf, size_t size, const char *prog, enum log_level lvl, int err,
		  const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/*
 * The lines of --log-fd (the session's, otons' seccomp and Landlock
 * refusals, otonet's flows and names) share one shape: a JSON object per line
 * that begins with "time" (RFC 3339, UTC, microseconds), "source" (session,
 * net, dns, seccomp, landlock) and "session" (the session's id), and has a
 * "verdict"; the other keys are the source's own.
 * event_head.c: writes '{"time":"...","source":"SOURCE","session":"ID"'
 * into buf (no closing brace: the caller goes on with ',"key":...').
 * SOURCE and ID are written as they are (ID is session_begin's, checked
 * there). Returns its length, 0 when it does not fit. Pure.
 */
struct timespec;
int event_head(char *buf, size_t size, const struct timespec *t, const char *source,
	       const char *session);
/*
 * record_thin.c: the record is bounded, the same way in every stage that
 * writes to it. Repeated lines of one kind (a system call, a Landlock
 * blocker, a rule and a destination, a rule and a name) are thinned:
 * record_worth_a_line says whether the count-th of a kind is written (1 to
 * RECORD_FIRST, then each power of ten: 100,000 of a kind are 14 lines),
 * and each line carries its count. And each writer keeps a byte budget for
 * its own lines (--log-budget; RECORD_BUDGET by default):
 * record_budget_take charges a line of n bytes, returning 1 (write it), 0
 * (past the budget: counted, not written), or -1 the first time the budget
 * is spent (write record_budget_line's line instead, which says so).
 * record_budget_line: that line, or with end the writer's last one, with
 * what it wrote and did not: '{... "verdict":"budget","rule":"budget-spent"
 * or "budget-end","budget":B,"written":N,"unwritten":N}'. Pure.
 */
#define RECORD_FIRST	  10
#define RECORD_BUDGET	  (64ULL << 20)
#define RECORD_BUDGET_MIN 4096ULL
#define RECORD_BUDGET_MAX (1ULL << 40)
struct record_budget {
	unsigned long long budget, left;
	unsigned long written, unwritten;
	int spent;
};
int record_worth_a_line(unsigned long count);
int record_budget_take(struct record_budget *b, size_t n);
/*
 * record_budget_parse.c: --log-budget's value, RECORD_BUDGET_MIN to
 * RECORD_BUDGET_MAX bytes (K, M, G, T suffixes), or -1. Pure.
 */
int record_budget_parse(const char *s, unsigned long long *out);
size_t record_budget_line(char *buf, size_t size, const struct timespec *t, const char *source,
			  const char *session, const struct record_budget *b, int end);

/*
 * json_str.c: writes s's len bytes as a JSON string, quotes included, at
 * buf + at (size > at). A byte that is not printable ASCII, or is '"' or
 * '\', is escaped, each byte standing for itself (\u00XX): not UTF-8 by
 * promise. Returns the new length, 0 when it does not fit. Pure.
 */
size_t json_str(char *buf, size_t size, size_t at, const char *s, size_t len);

/*
 * session.c: the session's record. Its id is OTO_SESSION's (a launcher's, or
 * an earlier stage's) or 16 random bytes in hex, exported for the stages
 * after. The stage that opens the record (writes its "session" line at the
 * start and at the end) is the outermost one that waits for the agent and
 * logs: otonet's relay, else otons' supervisor. It marks the file
 * (OTO_SESSION_LOG=DEV:INO of its --log-fd), so that a later stage logging
 * to the same file only adds its own lines, and one writing elsewhere opens
 * a record there.
 */
#define SESSION_ID_MAX 64
struct session {
	char id[SESSION_ID_MAX + 1];
	int opens;	    /* this stage writes the open and close lines */
	int inherits;	    /* an earlier stage opened the record on the same file */
	long long start_ns; /* CLOCK_MONOTONIC at xsession_begin */
};
/*
 * Sets the id, and whether this stage opens the record on log_fd (-1: none).
 * Dies on failure: 100 on a bad OTO_SESSION, 111 on a system call.
 */
void xsession_begin(struct session *s, int log_fd);
int session_id_ok(const char *id); /* whether id is 1..64 of [A-Za-z0-9._:-]. Pure. */
/*
 * The open line: the stage, the account it runs as (uid and name, NULL when
 * passwd has none), and the chain: argv from this stage to the agent's
 * program (its arguments left out), with otomount's --role and --person
 * read from it. The words that do not fit are counted ("more"). Pure.
 */
size_t session_open_line(char *buf, size_t size, const struct timespec *t, const struct session *s,
			 const char *stage, unsigned int uid, const char *account,
			 const char *const argv[]);
/* How a session ended: the close line's "end". */
enum session_end {
	SESSION_END_EXIT,     /* "exit": the program ended by itself */
	SESSION_END_SIGNAL,   /* "signal": a stage was told to end it (SIGTERM, SIGHUP) */
	SESSION_END_TERMINAL, /* "terminal-gone": the operator's terminal hung up */
	SESSION_END_PARENT,   /* "parent-gone": the stage before otons died */
	SESSION_END_GATEWAY,  /* "gateway-gone": otogate died */
};
/*
 * The close line: the code the stage exits with, the signal that code
 * stands for (128+N, as a shell reads $?; 0: none), how it ended, whether
 * the grace ran out and the sandbox was killed, the duration. Pure.
 */
size_t session_close_line(char *buf, size_t size, const struct timespec *t, const struct session *s,
			  int code, enum session_end end, int grace_kill, long long duration_ns);
/*
 * The lines written to log_fd when s opens the record: the start's, and the
 * end's. The end's also when the parent that opened it is gone
 * (SESSION_END_PARENT with s->inherits): its opener can no longer close it.
 */
void session_open(const struct session *s, int log_fd, const char *stage, const char *const argv[]);
void session_close(const struct session *s, int log_fd, int code, enum session_end end,
		   int grace_kill);
/*
 * What otoexec sends on otons' refusal socket (OTO_REFUSALS), before the
 * seccomp listener, when its Landlock domain logs its refusals to the
 * kernel's audit: 8 bytes, no fd.
 */
#define OTO_LANDLOCK_NOTE "landlock"

/*
 * audit_reader.c: while root, a NETLINK_AUDIT socket (close-on-exec) in the
 * audit's read-log group, and for the caller an audit session of its own
 * (loginuid := uid): the fd, or -1 with *why (a constant) and errno (0 when
 * why says it all). audit_reader_session: the caller's session id; 0, or -1
 * (ESRCH: none). OTO_AUDIT is how otonet hands the socket to otons behind
 * it: "FD", or "!WHY" when it has none. A record is at most
 * AUDIT_READER_MSG bytes with its header.
 */
#define AUDIT_READER_MSG 9216
int audit_reader_open(uid_t uid, const char **why);
int audit_reader_session(unsigned int *ses);

/* The OTO_STATUS_FD line "STAGE CODE ERRNO MESSAGE\n". */
/* status_fd_parse.c: the fd number, or -1 when unset or invalid. Pure. */
int status_fd_parse(const char *s);
/* status_format.c: the line into buf; its length. Pure. */
size_t status_format(char *buf, size_t size, const char *stage, int code, int err, const char *msg);
/* status.c: the line to OTO_STATUS_FD, when it is set (die does it). */
void status_report(int code, int err, const char *msg);

/*
 * A destination a session was refused or a person allowed, as an otorun
 * config line (otorun --config): the one line otolog --policy prints and
 * otoask --save keeps. The agent chooses the names a session sees, so a
 * name is written only when it is a host name (policy_name_ok).
 * policy_name_ok.c: whether name is one: 2 or more labels of letters,
 * digits and '-' (not at a label's ends), each 1 to 63 bytes, 253 in all,
 * no trailing dot, the last label not all digits. Pure.
 */
#define POLICY_NAME_MAX 253
int policy_name_ok(const char *name);
struct policy_dest {
	const char *proto; /* "tcp" or "udp" */
	const char *addr;  /* the address; NULL or "": none (a DNS question) */
	const char *name;  /* the name it came from, or the question's; NULL or "": none */
	unsigned int port; /* 0: none (a DNS question) */
};
enum policy_kind {
	POLICY_NONE,	  /* no line: no rule says what was asked */
	POLICY_NAME,	  /* --allow-name NAME: ports 80 and 443, the SNI or Host checked */
	POLICY_NAME_PORT, /* --allow-name NAME:PORT: that port, any protocol, unchecked */
	POLICY_ADDR,	  /* --allow PROTO:ADDR:PORT: an address decision */
};
/*
 * policy_line.c: d's line into line ("" for POLICY_NONE; no newline): a
 * name (a DNS question's, or a flow's on 80 or 443) is --allow-name NAME,
 * on another port NAME:PORT; a name that is not a host name, none; no
 * name, the address and port. And into note, what the line allows or why
 * there is none, in printable ASCII (the agent's bytes as \xNN; no
 * newline). lsize 300 and nsize 400 hold any. Returns the kind. Pure.
 */
enum policy_kind policy_line(const struct policy_dest *d, char *line, size_t lsize, char *note,
			     size_t nsize);

/* opt.c: parsers for option arguments. Each returns 0, or -1 with errno EINVAL/ERANGE. Pure. */
int opt_ulong(const char *s, unsigned long max, unsigned long *out);
int opt_id(const char *s, unsigned int *out); /* a uid or gid: 0..2^32-2 */
/* "512m", "2G", "1048576": bytes, K, M, G, T (either case) powers of 1024; 1 to max. */
int opt_bytes(const char *s, unsigned long long max, unsigned long long *out);
/* Split "A:B" at the first ':' into two non-empty strings copied into a and b. */
int opt_split2(const char *s, char *a, size_t asz, char *b, size_t bsz);

/*
 * optdie.c: says the one-line bad-usage message for getopt's ':' and '?'
 * (optstring "+:..."). Exits 100 (die_usage).
 */
noreturn void opt_die(int c, char *const argv[]);
/* The getopt_long value of every tool's --version. */
#define OPT_VERSION 0x7fff
/*
 * What every tool's option loop does with what it does not handle itself:
 * -v raises the verbosity (and returns). -h/--help prints usage and exits 0.
 * --version prints version_print's line and exits 0. Anything else dies 100
 * (opt_die).
 */
void xopt_common(int c, const char *usage, char *const argv[]);

/*
 * version.c: print "TOOL VERSION (LIB REVISION, ...)" on stdout, naming the
 * Debian revision of each library this binary links (none: no parentheses).
 * The values come from the build (build/LIBC/version.h, see the Makefile).
 */
void version_print(void);

/* xexec.c: execvp. Dies on failure: 127 when not found, 126 otherwise (xexec_fail's words). */
noreturn void xexec(char *const argv[]);
/* exec_code.c: the exit code for an exec failure with err. Pure. */
int exec_code(int err);
/*
 * The source otomount gives its view's root tmpfs (/proc/self/mountinfo), by
 * which a later stage knows that a path missing there may be on the host.
 */
#define VIEW_ROOT_SOURCE "otomount"
/*
 * exec_fail_format.c: the message for prog's failed exec (err), without the
 * errno's text: PATH the search path for a bare name (NULL: none shown);
 * found a file that is there though the exec said ENOENT, and interp its #!
 * interpreter (either NULL); holds the top of the sandbox's view ("/bin /dev
 * ..."), NULL outside one. Its length, as snprintf. Pure.
 */
int exec_fail_format(char *buf, size_t size, const char *prog, int err, const char *path,
		     const char *found, const char *interp, const char *holds);
/*
 * xexec_fail.c: looks (once, on this failure path) for a file the exec found
 * but could not run, its #! line, and whether / is otomount's view. path:
 * the PATH searched (NULL: this process's). Dies with exec_code(err) and
 * exec_fail_format's message.
 */
noreturn void xexec_fail(const char *prog, int err, const char *path);

/* wait.c */
int wait_code(int status); /* the code a forking stage exits with: code, or 128+signal. Pure. */

/*
 * fd_read_all.c: reads fd to its end into buf. Short reads and EINTR are
 * read on. A whole file is open() then this. Returns the number of bytes,
 * or -1 with errno (EFBIG when it holds more than size bytes).
 */
ssize_t fd_read_all(int fd, void *buf, size_t size);
/*
 * fd_read_whole.c: what fd holds, read to its end into a buffer it allocates
 * (the caller frees), NUL-terminated, its length in *len: the buffer, or NULL
 * with errno (EFBIG: more than max bytes; ENOMEM).
 */
char *fd_read_whole(int fd, size_t max, size_t *len);
/* fd_write_all.c: all of buf to fd, short writes and EINTR written on: 0, or -1 with errno. */
int fd_write_all(int fd, const void *buf, size_t len);
/*
 * sys_openat2.c: openat2(2) (musl has no wrapper), O_CLOEXEC always added,
 * mode 0 (it never creates). RESOLVE_* say what the walk refuses (a
 * symlink, a magic link, leaving dirfd). Returns the fd, or -1 with errno.
 */
int sys_openat2(int dirfd, const char *path, int flags, unsigned long long resolve);
/*
 * file_read_at.c: a small file whole (dirfd/file, as openat), NUL-terminated,
 * into buf: its length, or -1 with errno (EFBIG: more than size - 1 bytes).
 */
ssize_t file_read_at(int dirfd, const char *file, char *buf, size_t size);

/*
 * One message on a unix socket: an fd (SCM_RIGHTS), or instead the errno that
 * kept the sender from having one. fd_send.c: send fd, or err alone when fd < 0
 * (EINVAL when err is 0); 0 or -1/errno. fd_recv.c: the fd received
 * (close-on-exec), or -1 with errno: the sender's err, ENOMSG when the peer
 * closed without a word, EPROTO for anything malformed (an fd in it closed),
 * EAGAIN on a non-blocking socket with nothing queued.
 */
int fd_send(int sock, int fd, int err);
int fd_recv(int sock);

/*
 * fd_msg_init.c: a message of len bytes at data and, when fd >= 0, fd by
 * SCM_RIGHTS, ready for sendmsg(&x->m) (x must stay where it is). Pure.
 */
struct fd_msg {
	struct msghdr m;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
};
void fd_msg_init(struct fd_msg *x, void *data, size_t len, int fd);

/*
 * xempty_root.c: in a mount namespace of the caller's own, a read-only tmpfs
 * (named name in mountinfo) becomes / and the old tree is detached. It is
 * for a process that needs no file any more. Dies on failure: 111, saying
 * "WHO: unable to ...".
 */
void xempty_root(const char *who, const char *name);

/*
 * xuserns_self.c: a new user and mount namespace for the caller, its own
 * uid and gid mapped to themselves (not dumpable stays not dumpable).
 * xcaps_drop_all.c: every capability, from every set (bounding, ambient,
 * effective, permitted, inheritable). Both die on failure: 111, saying
 * "WHO: unable to ...".
 */
void xuserns_self(const char *who);
void xcaps_drop_all(const char *who);

/*
 * xseccomp_allow.c: a seccomp filter (a scmp_filter_ctx) that kills on every
 * call but calls[0..n), and socket(2) for AF_INET and AF_INET6 when
 * inet_sockets; the caller's rules with arguments go through
 * xseccomp_rule(ctx, who, seccomp_rule_add(...)); xseccomp_load installs
 * and frees it. Each dies on failure: 111, saying "WHO: unable to ...".
 */
void *xseccomp_allow(const char *who, const int *calls, size_t n, int inet_sockets);
void xseccomp_rule(void *ctx, const char *who, int rc);
void xseccomp_load(void *ctx, const char *who);
/* seccomp_allow_ctx.c: xseccomp_allow's filter, or NULL with errno. */
void *seccomp_allow_ctx(const int *calls, size_t n, int inet_sockets);
/*
 * seccomp_export_c.c, for the build's generators (cmd/TOOL/gen/bpfgen.c):
 * ctx (released) as the C array SYM and SYM_LEN on stdout: 0, or -1/errno.
 */
int seccomp_export_c(void *ctx, const char *name, const char *sym);
/*
 * seccomp_load_bpf.c: load n instructions compiled by the build (flags 0,
 * as seccomp_load with libseccomp's defaults); no_new_privs already set.
 * 0 or -1 with errno.
 */
int seccomp_load_bpf(const void *insns, size_t n);

/*
 * The agent's file of its own session's refusals and decisions (OTO_WHY,
 * oto(7)): otomount makes it (WHY_PATH in the view, read-only there) and
 * sends a writable fd of it to each stage outside that offered a socket in
 * OTO_WHY_FD; those stages write one short line per line of their record.
 * why_offer.c: why_init; why_offer makes the pair and adds the chain's end
 * to OTO_WHY_FD (0, or -1 with errno); why_parent closes that end in the
 * writer. why_note.c: the line for a record line, written once the fd has
 * come (never blocks), within WHY_BUDGET bytes per writer, then one line
 * that says the rest is in the operator's record.
 */
#define WHY_DIR	     "/run/oto"
#define WHY_PATH     "/run/oto/why"
#define WHY_BUDGET   (16UL << 10)
#define WHY_LINE_MAX 512
struct why {
	int sock;  /* ours of the pair; -1 once the fd came, or never will */
	int child; /* the chain's end, until why_parent */
	int fd;	   /* the file; -1 until it comes */
	unsigned long left;
	int spent;
	uint32_t last;	 /* the last line's hash: a repeat is not written */
	const char *who; /* the writer, in its last line */
};
void why_init(struct why *w, const char *who);
int why_offer(struct why *w);
void why_parent(struct why *w);
void why_note(struct why *w, const char *line, size_t n);
/*
 * why_format.c: the short line for one record line (n bytes, its newline
 * optional) into buf, newline-terminated, only printable ASCII: its
 * length, 0 for a line the agent is not told (an allow by the rules). Pure.
 */
size_t why_format(char *buf, size_t size, const char *line, size_t n);

/* fd.c */
int fd_cloexec(int fd, int on);
/* Close every fd >= from, except those listed in keep. */
int fd_close_from(int from, const int *keep, size_t nkeep);

/*
 * ptyenv_format.c, ptyenv_parse.c: OTO_PTY="SOCK:FDS", from otons to the stage that makes the
 * agent's pty: the socket for the master, and which of fds 0, 1, 2 (bit 0,
 * 1, 2 of stdio) the slave replaces. Format returns the length (0 when buf is
 * too small); parse 0, or -1/EINVAL for anything but the one spelling format
 * makes, with SOCK >= 3. Pure.
 */
size_t ptyenv_format(char *buf, size_t size, int sock, unsigned int stdio);
int ptyenv_parse(const char *s, int *sock, unsigned int *stdio);

/*
 * A process's controlling terminal, as /proc/PID/stat's tty_nr (0: none),
 * so that a decider and a session can tell whether they share one.
 * tty_of.c: tty_of, pid's (0: this process's); tty_of_peer, that of the
 * process at the other end of the unix socket fd (SO_PEERCRED's pid, in
 * *pid: 0 when none); 0, or -1 with errno (ESRCH: a peer in a pid namespace
 * this one does not see).
 */
int tty_of(pid_t pid, unsigned long *tty);
int tty_of_peer(int fd, pid_t *pid, unsigned long *tty);
/*
 * tty_stat_parse.c: the tty_nr of a stat line (buf, n bytes; the command's
 * name, in parentheses, may hold any byte): 0, or -1/EINVAL when it does not
 * read. Pure.
 */
int tty_stat_parse(const char *buf, size_t n, unsigned long *tty);
/* tty_nr_of.c: a terminal's st_rdev in tty_nr's encoding (the kernel's new_encode_dev). Pure. */
unsigned long tty_nr_of(dev_t rdev);

/* user.c: run by root, become USER[:GROUP] before anything else. */
int user_lookup(const char *spec, uid_t *uid, gid_t *gid); /* -1/ENOENT for an unknown name */
int user_become(uid_t uid, gid_t gid);
int user_name(uid_t uid, char *buf, size_t size); /* passwd's name for uid; -1/ENOENT */
/*
 * xuser_drop_root.c: run by root, become the --as account. Dies on failure:
 * 100 without --as or for an unknown account, 111 on a system call.
 */
void xuser_drop_root(const char *as);

/* idmap_format.c: one id-map line "INSIDE OUTSIDE COUNT\n". Pure. */
size_t idmap_format(char *buf, size_t size, unsigned int inside, unsigned int outside,
		    unsigned int count);
/* userns.c: map inside->outside for uid and gid (count 1) of pid (0 = self), setgroups
 * denied first. */
int userns_map_self(pid_t pid, uid_t uid_in, uid_t uid_out, gid_t gid_in, gid_t gid_out);
/* Why creating a user namespace failed with err here, and the fix: one line. */
const char *userns_hint(int err);
const char *userns_cap_hint(int err);
#define USERNS_APPARMOR_HINT                                                                       \
	"AppArmor restricts unprivileged user namespaces: install oto's profile "                  \
	"(deploy/apparmor/oto, see the README), or sysctl "                                        \
	"kernel.apparmor_restrict_unprivileged_userns=0"
/*
 * For a write under /proc/sys that failed with EROFS: container engines bind
 * /proc/sys read-only by default, and only their configuration undoes it.
 */
#define PROC_SYS_RO_HINT                                                                           \
	" (/proc/sys is read-only here, as in a container by default: run it with "                \
	"--security-opt systempaths=unconfined, or procMount: Unmasked in Kubernetes; "            \
	"see README, Deploying)"
/*
 * For a new procfs refused with EPERM in a pid namespace of our own: the
 * kernel allows one only while a proc mounted here is fully visible, and a
 * container engine covers parts of its /proc by default.
 */
#define PROC_MASKED_HINT                                                                           \
	" (the kernel refuses it while /proc is partly covered, as in a container by default: "    \
	"run it with --security-opt systempaths=unconfined, or procMount: Unmasked in "            \
	"Kubernetes; see README, Deploying)"

/*
 * xtest_switch.c: reads the test-only switch NAME (an OTO_TEST_* variable,
 * documented as such in the tool's man page). A value other than dflt is
 * said on stderr ("NAME=V: WHAT (for tests only)"). The variable is unset,
 * so a second call, a later stage and the agent never see it. Returns its
 * value, or dflt when it is unset. Dies 100 when it is not a number from lo
 * to hi.
 */
unsigned long xtest_switch(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi,
			   const char *what);

/* env.c */
void env_unset_prefix(const char *prefix); /* unsetenv every variable starting with prefix */

/*
 * The sealed store (otosecret writes it, otosecret and otogate read it): its
 * format is at the top of store_parse.c. Everything here is pure but
 * xkey_load and xstore_load, and store_build (fresh random nonces).
 */
#define STORE_MAGIC	  "OTOSECRT"
#define STORE_VERSION	  1
#define STORE_ID_BYTES	  16
#define STORE_HDR_BYTES	  32 /* magic 8, version 1, reserved 3, id 16, count 4 */
#define STORE_ENTRY_FIXED 29 /* name length 1, value length 4, nonce 24 */
#define STORE_NONCE_BYTES 24
#define STORE_TAG_BYTES	  16
#define STORE_KEY_BYTES	  32
#define STORE_MAX_ENTRIES 256
#define STORE_MAX_NAME	  64
#define STORE_MAX_VALUE	  65536
#define STORE_MAX_SIZE	  (1024 * 1024)
#define STORE_AD_MAX	  (STORE_HDR_BYTES + 4 + 1 + STORE_MAX_NAME)

enum store_err {
	STORE_OK = 0,
	STORE_ETOOBIG,	 /* larger than STORE_MAX_SIZE */
	STORE_ESHORT,	 /* ends inside the header or an entry */
	STORE_EMAGIC,	 /* not a store */
	STORE_EVERSION,	 /* a version this program does not read */
	STORE_ERESERVED, /* reserved header bytes not zero */
	STORE_ECOUNT,	 /* more entries than STORE_MAX_ENTRIES */
	STORE_ENAME,	 /* a name of bad length or characters */
	STORE_EVALUE,	 /* a value longer than STORE_MAX_VALUE */
	STORE_EDUP,	 /* a name twice */
	STORE_ETRAILING, /* bytes after the last entry */
	STORE_EVERIFY,	 /* an entry fails authentication: wrong key or tampered */
	STORE_NUM_ERR,	 /* the count of the above, not an error */
};

struct store_entry {
	const char *name; /* not NUL-terminated: name_len bytes */
	size_t name_len;
	const uint8_t *nonce;
	const uint8_t *ct; /* value_len + STORE_TAG_BYTES */
	size_t value_len;
};

struct store_view {
	const uint8_t *hdr; /* the STORE_HDR_BYTES bound into every entry */
	const uint8_t *id;
	uint32_t count;
	struct store_entry e[STORE_MAX_ENTRIES];
};

/* A value to seal, with its name (a C string). */
struct store_plain {
	const char *name;
	const uint8_t *value;
	size_t value_len;
};

/* The store's integers: little-endian. */
static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* store_strerror.c: the message of an enum store_err. */
const char *store_strerror(int err);
/*
 * store_file_why.c: why the store (or, is_key, the key) at path could not be
 * opened with errno err, and the fix. It reads path's owner and mode (stat).
 * Returns " (...)" in buf, or "" when there is nothing to add. Never exits.
 */
const char *store_file_why(const char *path, int err, int is_key, char *buf, size_t size);
/* store_name_ok.c: [A-Za-z_][A-Za-z0-9_]*, 1..64 bytes. */
int store_name_ok(const char *name, size_t len);
/* store_parse.c: a view of buf (no copy): an enum store_err, and no entries unless STORE_OK. */
int store_parse(const uint8_t *buf, size_t len, struct store_view *v);
/* store_find.c: the index of the entry name (a C string), or -1. */
int store_find(const struct store_view *v, const char *name);
/* store_ad.c: the associated data of entry i (the header, i, the name's length, the name); its
 * length. The same for sealing and opening. */
size_t store_ad(const uint8_t *hdr, uint32_t i, const char *name, size_t name_len,
		uint8_t ad[STORE_AD_MAX]);
/* store_verify.c: authenticate entry i without decrypting it: STORE_OK or STORE_EVERIFY. */
int store_verify(const struct store_view *v, uint32_t i, const uint8_t *key);
/* store_open.c: decrypt entry i into out (value_len bytes): STORE_OK or STORE_EVERIFY. */
int store_open(const struct store_view *v, uint32_t i, const uint8_t *key, uint8_t *out);
/*
 * store_phantom.c: entry i's phantom into out (value_len bytes and a NUL):
 * STORE_PHANTOM and letters [a-z0-9] derived from the store's id, the name and
 * the value's length, never from the value or the key. 0, or -1/EINVAL for no
 * entry i or a value no longer than the prefix. Pure.
 */
#define STORE_PHANTOM "oto-phantom-"
int store_phantom(const struct store_view *v, uint32_t i, char *out);
/* store_size.c: the size of a store holding these entries, or 0 past a limit. */
size_t store_size(const struct store_plain *pe, uint32_t n);
/* store_build.c: seal n entries under key into out (store_size bytes), with fresh random nonces;
 * 0, or -1 past a limit or when outsz is too small. */
int store_build(const uint8_t id[STORE_ID_BYTES], const struct store_plain *pe, uint32_t n,
		const uint8_t *key, uint8_t *out, size_t outsz);

/*
 * store_merge.c: old's entries, then pe's, into out (STORE_MAX_ENTRIES): an
 * entry of pe replaces the one of its name where it stands, a new name goes
 * last, the last of two in pe wins. out points into old and pe. Returns the
 * count, or -1 past STORE_MAX_ENTRIES. Pure.
 */
int store_merge(struct store_plain *out, const struct store_plain *old, uint32_t nold,
		const struct store_plain *pe, uint32_t n);

/*
 * store_update.c: replace or add the n entries pe in the store file name (a
 * name, no slash) of directory dirfd, sealed under key, while other writers
 * may run at once and a crash may come at any instant. In order: an
 * exclusive flock on the directory (its own open file description; no lock
 * file), waited for wait_ms at most; the store read again and every entry
 * verified under the lock, so nothing another writer added is lost; the
 * store sealed whole under its id with new nonces; written to NAME.oto-tmp
 * in the same directory (an O_TMPFILE named once synced, where the file
 * system and kernel allow, else created there and removed on any failure;
 * one a killed writer left is removed under the lock), given the old file's
 * owner and mode 0600, fsync'd, renamed over NAME; the directory fsync'd.
 * The file is at every instant a whole old or a whole new store.
 * A missing store is made (new random id) with STORE_UPDATE_CREATE only.
 * With STORE_UPDATE_DIR_LATER the directory's fsync is the caller's, on
 * dirfd, once it has done what must not wait for the disk (otogate: the
 * refresh's answer); the new store is in place at return.
 * STORE_UPDATE_NO_TMPFILE writes the named file at once (tests);
 * STORE_UPDATE_STOP(k) raises SIGSTOP at point k (tests: 1 read and
 * verified, 2 new store synced, 3 named, 4 renamed). Returns STORE_UPD_OK, or
 * an enum store_upd, with errno set for system failures and *detail (may be
 * NULL) the enum store_err for STORE_UPD_STORE. Nothing changed unless OK or
 * SYNC. Never exits. Every *at() call takes dirfd itself, so a filter may
 * pin that argument; the lock is on an fd of its own, openat(dirfd, ".").
 * Its system calls: openat, flock, nanosleep, clock_gettime, fstat, read,
 * write, close, fchown, fchmod, fsync, linkat, unlinkat, renameat; malloc's
 * and sodium_malloc's (mmap, mprotect, madvise, mlock, munlock, munmap);
 * getrandom for the nonces; raise for STORE_UPDATE_STOP only.
 */
enum store_upd {
	STORE_UPD_OK = 0,
	STORE_UPD_DIR,	  /* the directory cannot be opened, or a bad name (errno) */
	STORE_UPD_LOCK,	  /* flock failed (errno) */
	STORE_UPD_BUSY,	  /* the lock stayed held past wait_ms (EWOULDBLOCK) */
	STORE_UPD_READ,	  /* the store cannot be opened or read (errno) */
	STORE_UPD_MEM,	  /* no memory (errno) */
	STORE_UPD_TEMP,	  /* the new store cannot be written or synced (errno) */
	STORE_UPD_OWNER,  /* the old owner cannot be kept (errno) */
	STORE_UPD_RENAME, /* (errno) */
	STORE_UPD_SYNC,	  /* the new store is in place; the directory's fsync failed (errno) */
	/* Rejected, from here on: the store or the result, not a system call. */
	STORE_UPD_NOTREG, /* the store is not a regular file */
	STORE_UPD_MODE,	  /* group or others may access it */
	STORE_UPD_STORE,  /* it does not parse or verify under key: *detail */
	STORE_UPD_LIMIT,  /* the result would pass STORE_MAX_ENTRIES or STORE_MAX_SIZE */
	STORE_UPD_NUM,	  /* the count of the above, not a result */
};
#define STORE_UPDATE_CREATE	    1u
#define STORE_UPDATE_NO_TMPFILE	    2u
#define STORE_UPDATE_DIR_LATER	    4u
#define STORE_UPDATE_STOP(k)	    ((unsigned int)(k) << 4)
#define STORE_UPDATE_STOP_POINT(fl) (((fl) >> 4) & 0xfu)
#define STORE_UPDATE_WAIT_MS	    10000 /* how long a writer waits for the lock */
int store_update(int dirfd, const char *name, const uint8_t *key, const struct store_plain *pe,
		 uint32_t n, unsigned int flags, unsigned int wait_ms, int *detail);
/* store_update_strerror.c: what r says (detail: the store's error, for STORE_UPD_STORE). Pure. */
const char *store_update_strerror(int r, int detail);

/* The key's text form "oto-key-1:BASE64URL\n" (key_encode.c, key_decode.c). */
#define KEY_PREFIX   "oto-key-1:"
#define KEY_TEXT_MAX 128
int key_encode(const uint8_t key[STORE_KEY_BYTES], char *out, size_t outsz); /* length or -1 */
int key_decode(const char *text, size_t len, uint8_t key[STORE_KEY_BYTES]);  /* 0 or -1 */
/*
 * xkey_load.c: read a key (fd, or path when not NULL), refuse a file group or
 * others may read, decode it into locked memory (sodium_malloc, STORE_KEY_BYTES);
 * the fd is closed. Dies on failure: 101 when rejected, 111 on a system call.
 */
uint8_t *xkey_load(int fd, const char *path);
/*
 * xstore_load.c: read a store (fd, or path) into a malloc'd buffer, its length
 * in *len; the fd is closed. With owner_only, a file group or others may
 * access is refused. Returns the buffer, or NULL for a missing path when
 * missing_ok. Dies on failure: 101 when rejected, 111 on a system call.
 */
uint8_t *xstore_load(int fd, const char *path, size_t *len, int missing_ok, int owner_only);

/*
 * A copy-on-write session's record, DIR/session (cow_session.c): what
 * otomount --cow writes at the session's first start and otodiff reads.
 * The start is CLOCK_REALTIME_COARSE's: never later than the ctime the
 * kernel stamps on a host file changed after it. Its functions are pure.
 */
#define COW_TREES_MAX	4
#define COW_PATH_MAX	4096
#define COW_SESSION_MAX (64 + COW_TREES_MAX * (COW_PATH_MAX + 64))
struct cow_session {
	long long start_sec;
	long start_nsec;
	size_t n;
	struct cow_tree {
		char name[16]; /* work, private, knowledge, config: /NAME in the view */
		unsigned long long dev, ino; /* the host tree's directory at the start */
		char host[COW_PATH_MAX];     /* its path on the host */
	} t[COW_TREES_MAX];
};
int cow_tree_name_ok(const char *name);
int cow_host_path_ok(const char *p); /* absolute, shorter than COW_PATH_MAX, no control byte */
/* The record's text into buf: its length, 0 when it does not fit or a field is wrong. Pure. */
size_t cow_session_format(char *buf, size_t size, const struct cow_session *s);
/* The text back: 0, or -1 for anything out of place (a line, a name, a number). Pure. */
int cow_session_parse(struct cow_session *s, const char *buf, size_t len);

/*
 * protect_names.c: the files the host runs later, made read-only by
 * otomount in every writable tree and flagged by otodiff.
 * protect_start: names at a tree's top; protect_gitdir: names (and paths)
 * in a git directory that git runs or follows; protect_store: what git only
 * stores there; protect_worktop: the hook managers' files beside a .git.
 * protect_runs_later: whether rel, a path relative to a tree's top, is one
 * of them or beneath one: a .git file, anything in a git directory but what
 * git only stores (and the *_HEAD files), a top .envrc, a .husky anywhere.
 * Pure.
 */
extern const char *const protect_start[];
extern const char *const protect_gitdir[];
extern const char *const protect_store[];
extern const char *const protect_worktop[];
int protect_runs_later(const char *rel);
/*
 * Why a person should look at name, a path of protect_gitdir or
 * protect_worktop (or "worktrees") that appeared in a session; any other
 * name: a path a repository's config names. A sentence without its end.
 */
const char *protect_why(const char *name);
/*
 * OTO_APPEARED: otons' socket (SOCK_SEQPACKET) on which otomount sends, in
 * one message, a sealed memfd and each writable tree's top (O_PATH), for
 * the supervisor to say at the session's end which paths of the memfd
 * appeared. The memfd's lines: "T\tVIEW-TOP\n" for the next tree's fd,
 * "W\tREL\tWHY\n" for a path beneath it that did not exist at launch.
 */
#define APPEARED_TREES_MAX 64
#define APPEARED_MAX	   100000UL	/* paths watched in all */
#define APPEARED_BYTES_MAX (16UL << 20) /* the memfd */

/*
 * gitcfg_paths.c: what a git config file's bytes name, passed to fn one at
 * a time: core.hooksPath (HOOKS: a directory, relative to the repository's
 * top), include.path and includeIf.*.path (INCLUDE: a file, relative to the
 * config's own directory), core.worktree (WORKTREE, relative to the git
 * directory), and the first word of a command's value (core.fsmonitor,
 * filters, aliases, ...) when it holds a slash (COMMAND, relative to the
 * top). Returns 0, or -1 where the bytes stop parsing (what came before was
 * passed). Pure.
 */
enum gitcfg_kind { GITCFG_HOOKS, GITCFG_INCLUDE, GITCFG_WORKTREE, GITCFG_COMMAND };
typedef void (*gitcfg_fn)(void *arg, enum gitcfg_kind kind, const char *val);
int gitcfg_paths(const char *buf, size_t len, gitcfg_fn fn, void *arg);
/*
 * gitcfg_join.c: base (a directory relative to a tree's top, "" for the
 * top) and val (a relative path) joined and normalized into out ("" for
 * the top). Returns 0, or -1 when val is absolute or begins with ~, leaves
 * the top by "..", or does not fit. Pure.
 */
int gitcfg_join(char *out, size_t size, const char *base, const char *val);

#endif
