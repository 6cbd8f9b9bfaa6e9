/* SPDX-License-Identifier: ISC */
/*
 * oto: what every tool shares. Pure helpers (parsing, arithmetic) never touch
 * the system; the others return -1 and set errno. Only die() and the x-prefixed
 * wrappers exit, and only main and those wrappers call them.
 */
#ifndef OTO_H
#define OTO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#define OTO_VERSION "0.1.0"

/* Exit codes: the execline/skarnet convention, the same in every tool. */
enum {
	EXIT_USAGE = 100,    /* bad usage */
	EXIT_REJECT = 101,   /* input rejected: a store, key, profile that does not verify */
	EXIT_SYS = 111,      /* a system call failed */
	EXIT_NOEXEC = 126,   /* the next program could not be executed */
	EXIT_NOTFOUND = 127, /* the next program was not found */
};

enum log_level { LOG_FATAL, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* log.c: one line per message, written with one write(2) to stderr. */
extern const char *log_prog;
extern int log_verbosity; /* messages up to this level are printed; -v raises it */
void log_init(const char *argv0);
void log_msg(enum log_level lvl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
noreturn void die(int code, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define warnx(...) log_msg(LOG_WARN, 0, __VA_ARGS__)
#define infox(...) log_msg(LOG_INFO, 0, __VA_ARGS__)
#define debugx(...) log_msg(LOG_DEBUG, 0, __VA_ARGS__)
/* Format "PROG: LEVEL: MSG[: strerror(err)]\n" into buf; returns its length. Pure. */
size_t log_format(char *buf, size_t size, const char *prog, enum log_level lvl, int err,
		  const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* status.c: the OTO_STATUS_FD line "STAGE CODE ERRNO MESSAGE\n". */
int status_fd_parse(const char *s); /* the fd number, or -1 when unset or invalid. Pure. */
size_t status_format(char *buf, size_t size, const char *stage, int code, int err,
		     const char *msg);
void status_report(int code, int err, const char *msg);

/* opt.c: pure parsers for option arguments. 0 on success, -1 with errno EINVAL/ERANGE. */
int opt_ulong(const char *s, unsigned long max, unsigned long *out);
int opt_id(const char *s, unsigned int *out); /* a uid or gid: 0..2^32-2 */
/* Split "A:B" at the first ':' into two non-empty strings copied into a and b. */
int opt_split2(const char *s, char *a, size_t asz, char *b, size_t bsz);

/* optdie.c: the one-line usage error for getopt's ':' and '?' (optstring "+:..."). */
noreturn void opt_die(int c, char *const argv[]);
/* The getopt_long value of every tool's --version. */
#define OPT_VERSION 0x7fff
/*
 * What every tool's option loop does with what it does not handle itself:
 * -v raises the verbosity (and returns), -h/--help prints usage and exits 0,
 * --version prints "TOOL VERSION" and exits 0, anything else is opt_die.
 */
void opt_common(int c, const char *usage, char *const argv[]);

/* exec.c */
noreturn void xexec(char *const argv[]); /* execvp; dies 127 when not found, 126 otherwise */
int exec_code(int err);                  /* the exit code for an exec failure with err. Pure. */

/* wait.c */
int wait_code(int status); /* the code a forking stage exits with: code, or 128+signal. Pure. */

/* fd.c */
int fd_cloexec(int fd, int on);
/* Close every fd >= from, except those listed in keep. */
int fd_close_from(int from, const int *keep, size_t nkeep);

/*
 * fdpass.c: one message on a unix socket, an fd or instead an errno.
 * fdpass_send sends fd, or err alone when fd < 0; -1/errno. fdpass_recv
 * returns the fd (close-on-exec), or -1 with errno: the sender's err, ENOMSG
 * when the peer closed without a word, EPROTO for anything malformed (a
 * second fd, a short message), EAGAIN on a non-blocking socket with nothing
 * queued.
 */
int fdpass_send(int sock, int fd, int err);
int fdpass_recv(int sock);

/*
 * ptyenv.c: OTO_PTY="SOCK:FDS", from otons to the stage that makes the
 * agent's pty: the socket for the master, and which of fds 0, 1, 2 (bit 0,
 * 1, 2 of stdio) the slave replaces. Format returns the length (0 when buf is
 * too small); parse 0, or -1/EINVAL for anything but the one spelling format
 * makes, with SOCK >= 3. Pure.
 */
size_t ptyenv_format(char *buf, size_t size, int sock, unsigned int stdio);
int ptyenv_parse(const char *s, int *sock, unsigned int *stdio);

/* user.c: run by root, become USER[:GROUP] before anything else. */
int user_lookup(const char *spec, uid_t *uid, gid_t *gid); /* -1/ENOENT for an unknown name */
int user_become(uid_t uid, gid_t gid);
/* Run by root: become the --as account (dies 100 without one, 111 on failure). */
void xuser_drop_root(const char *as);

/* userns.c */
/* Format one id-map line "INSIDE OUTSIDE COUNT\n". Pure. */
size_t idmap_format(char *buf, size_t size, unsigned int inside, unsigned int outside,
		    unsigned int count);
/* Map inside->outside for uid and gid (count 1) of pid (0 = self), setgroups denied first. */
int userns_map_self(pid_t pid, uid_t uid_in, uid_t uid_out, gid_t gid_in, gid_t gid_out);
/* Why creating a user namespace failed with err here, and the fix: one line. */
const char *userns_hint(int err);

/* env.c */
void env_unset_prefix(const char *prefix); /* unsetenv every variable starting with prefix */

#endif
