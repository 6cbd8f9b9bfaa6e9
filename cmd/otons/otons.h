/* SPDX-License-Identifier: ISC */
/*
 * otons' files, each section below one of them. main.c: the steps; opts.c:
 * the command line (dies 100); parse.c: namespace names, cgroup values, the
 * refusals' lines and the audit records (pure); ns.c: the namespaces
 * entered (dies 111); cgroup.c: --cgroup's leaf and its limits;
 * supervise.c: the supervisor outside the sandbox, which waits and passes
 * signals on; init.c: pid 1, once the program is forked; tty.c: the
 * operator's terminal, given back as found; pty.c: the sandbox's own
 * terminal, relayed through ttyfilter.c (ttyfilter.h; pure, fuzzed);
 * refusals.c and audit.c: the seccomp and Landlock refusals on --log-fd;
 * appeared.c: what git would follow or run that appeared during the session.
 */
#ifndef OTONS_H
#define OTONS_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>

#include "oto.h"
#include "ttyfilter.h"

/* --pty, --no-pty, or neither: a pty when there is a terminal. */
enum otons_pty_mode { OTONS_PTY_AUTO, OTONS_PTY_ON, OTONS_PTY_OFF };

struct otons_opts {
	int unshare_flags;    /* CLONE_NEW* to create */
	const char *hostname; /* for a new uts namespace */
	uid_t uid;	      /* ids inside the sandbox */
	gid_t gid;
	int have_uid, have_gid;
	const char *as; /* --as USER[:GROUP], needed when run by root */
	int die_with_parent;
	unsigned long grace; /* --grace: seconds from the end's request to the kill */
	int mount_proc;
	enum otons_pty_mode pty;
	/* --cgroup[=DIR] and its limits: a leaf cgroup v2 for the session (cgroup.c) */
	int cgroup;
	const char *cgroup_dir;	       /* NULL: root's default, MOUNT/oto/UID */
	unsigned long long memory_max; /* bytes; 0: not set */
	unsigned long pids_max;	       /* 0: not set */
	unsigned long cpu_quota;       /* microseconds per OTONS_CPU_PERIOD; 0: not set */
	int log_fd;		       /* --log-fd: the refusal log; -1: none */
	unsigned long long log_budget; /* --log-budget: bytes of otons' lines there */
	char **argv;		       /* the next program */
};

/* --grace's default, in seconds. */
#define OTONS_GRACE 10UL

/* cpu.max's period: the kernel's default, 100 ms. */
#define OTONS_CPU_PERIOD 100000UL

/* opts.c: the option loop; exits 0 (--help) or 100 */
void xotons_parse(struct otons_opts *o, int argc, char **argv);

/* parse.c: namespace names. Pure */
int otons_ns_flag(const char *name); /* CLONE_NEW* for a namespace name, 0 if unknown */
/* The names of the CLONE_NEW* in flags, space-separated, into buf; the length, 0 if too long. */
size_t otons_ns_names(int flags, char *buf, size_t size);
/* "1.5" CPUs: the quota in microseconds per OTONS_CPU_PERIOD; 0.01 to 4096. -1/EINVAL, ERANGE. */
int otons_cpus_parse(const char *s, unsigned long *quota);
/* Whether word is one of list's space- or newline-separated words (cgroup.controllers). */
int otons_word_in(const char *list, const char *word);
/* The mount point of the first cgroup2 mount of its root in mountinfo text. -1/ENOENT. */
int otons_cgroup2_mount(const char *mountinfo, char *out, size_t size);
/* The number after "key " in a cgroup *.events file ("oom_kill 2"). -1/ENOENT. */
int otons_events_value(const char *text, const char *key, unsigned long long *out);

/* ns.c: each dies 111 on failure */
void xotons_enter_userns(const struct otons_opts *o);
struct otons_cgroup;
void xotons_unshare_rest(const struct otons_opts *o, const struct otons_cgroup *cg);
void xotons_caps_ambient(void);

/* The terminal the sandbox shares with the operator, as it was at start. */
struct otons_tty {
	int fd;		     /* -1: no terminal, nothing to restore */
	int opened;	     /* fd is /dev/tty, opened by us (else 0, 1 or 2) */
	pid_t pgrp;	     /* its foreground process group; -1: not our controlling terminal */
	struct termios attr; /* its modes */
};

/* tty.c */
void otons_tty_save(struct otons_tty *t);
void otons_tty_forget(struct otons_tty *t); /* in the children: close what save opened */
void otons_tty_restore(const struct otons_tty *t);
int otons_tty_foreground(const struct otons_tty *t); /* 1 unless another group has it */
int otons_tty_raw(const struct otons_tty *t);	     /* every key to the pty; -1/errno */

/* One direction of the relay: bytes read, not yet written. */
#define OTONS_RELAY_BUF 16384
struct otons_buf {
	size_t off, len;
	char b[OTONS_RELAY_BUF];
};

/* The sandbox's own terminal, and the relay between it and the operator's. */
struct otons_pty {
	int sock;	    /* ours of the socket the master comes on; -1: none (any more) */
	int child_sock;	    /* the sandbox's end, until the fork */
	unsigned int stdio; /* which of fds 0, 1, 2 (bits) the slave replaces */
	int master;	    /* -1 until it came */
	int in, out;	    /* the operator's side: keys from, output to */
	int own_io;	    /* in (== out) is a file description of our own: close it */
	int term;	    /* in and out are the operator's terminal (else stdin, stdout) */
	int reading;	    /* in is read (we hold the terminal's foreground) */
	int in_eof, out_dead, master_hup;
	struct ttyf filter; /* the agent's output, on its way to the operator (ttyfilter.c) */
	struct otons_buf to_master, to_out;
};

/* pty.c */
/* Decide, and when there is to be a pty, make the socket and set OTO_PTY. */
void xotons_pty_offer(struct otons_pty *p, enum otons_pty_mode mode, const struct otons_tty *t);
void otons_pty_parent(struct otons_pty *p); /* the supervisor, after the fork */
void otons_pty_child(struct otons_pty *p);  /* pid 1 and the program, after the fork */
/* pid 1, once the program is forked: 1 when the sandbox has a pty, else 0. */
int otons_pty_init(struct otons_pty *p);
/* The supervisor's loop: poll set and events. pty_fds returns how many it added. */
int otons_pty_fds(const struct otons_pty *p, struct pollfd *pf);
void otons_pty_events(struct otons_pty *p, const struct otons_tty *t, const struct pollfd *pf,
		      int n);
/* The window size to the pty: 1 done, 0 no master yet (forward SIGWINCH instead). */
int otons_pty_winch(struct otons_pty *p, const struct otons_tty *t);
void otons_pty_cont(struct otons_pty *p, const struct otons_tty *t);
/* The sandbox has ended: take a master still on the socket, write out what is left. */
void otons_pty_finish(struct otons_pty *p, const struct otons_tty *t);

/*
 * init.c: pid 1, once the program is forked: when own_mounts, an empty root
 * in a mount namespace of its own (the host's mount table out of /proc/1).
 * Dies on failure: 111.
 */
#define OTONS_INIT_NAME "oto-init"
void xinit_conceal(int own_mounts);
/*
 * Before the program is spawned: its argv (*argv) and environment copied
 * out, then otons' own arguments and environment wiped from /proc/1, and
 * its name made OTONS_INIT_NAME. Dies on failure: 111.
 */
void xinit_wipe(char ***argv);

/* The session's leaf cgroup, made before root is dropped (cgroup.c). */
struct otons_cgroup {
	int on;
	int dirfd;	 /* the directory it is made in */
	char dir[512];	 /* its path, for messages */
	char name[64];	 /* the leaf's name in dir */
	int procs_fd;	 /* the leaf's cgroup.procs, opened with the maker's credentials */
	int kill_fd;	 /* cgroup.kill; -1 before Linux 5.14 */
	int events_fd;	 /* cgroup.events: "populated 0" once empty */
	int mem_events;	 /* memory.events, -1 without the memory controller */
	int pids_events; /* pids.events, -1 without the pids controller */
};

/*
 * cgroup.c. make: the leaf, its limits, its files opened, before root is
 * dropped (dies 111, or 100 for --cgroup without DIR as a user). enter: the
 * calling process into it, then a cgroup namespace rooted there (dies 111).
 * end: what is left in it killed, what happened reported, the leaf removed
 * (warnings only: the exit code stays the program's).
 */
void xotons_cgroup_make(const struct otons_opts *o, struct otons_cgroup *cg);
void xotons_cgroup_enter(struct otons_cgroup *cg, int new_ns);
void otons_cgroup_forget(struct otons_cgroup *cg); /* the supervisor, after the fork */
void otons_cgroup_end(struct otons_cgroup *cg);

/*
 * appeared.c: the paths git would follow or run that otomount could not
 * protect (they were not there) and that appeared in the session, said at
 * its end on stderr and in the record (OTO_APPEARED).
 */
struct otons_appeared {
	int sock;	/* ours: otomount's list comes on it */
	int child_sock; /* the sandbox's end, until the fork */
};
/* The socket and OTO_APPEARED, when PROG (argv[0]) is otomount; dies 111. */
void xotons_appeared_offer(struct otons_appeared *a, char *const argv[]);
void otons_appeared_parent(struct otons_appeared *a); /* the supervisor, after the fork */
void otons_appeared_child(struct otons_appeared *a);  /* pid 1, after the fork */
/* Once the sandbox has ended: each path of the list that is there now, said. */
void otons_appeared_finish(struct otons_appeared *a, int log_fd, const char *session);

/* --log-fd: the refusal log (refusals.c) */
#define OTONS_REFUSALS_FIRST 10	  /* lines for the first refusals of each call */
#define OTONS_REFUSALS_NR    1024 /* call numbers counted one by one */
/*
 * The supervisor's CPU budget for notifications: at most 1/SHARE of the
 * time (5% of one CPU), BURST ns of it at once; once spent, the listener
 * rests until CHUNK ns are back (10 ms), BATCH notifications at most per
 * wake-up of the loop.
 */
#define OTONS_REFUSALS_SHARE 20
#define OTONS_REFUSALS_BURST 20000000LL
#define OTONS_REFUSALS_CHUNK 500000LL
#define OTONS_REFUSALS_BATCH 16
struct otons_refusals {
	int log_fd;	     /* -1: no log */
	const char *session; /* the session's id, on every line */
	int sock;	     /* ours of the socket the listener comes on; -1: none (any more) */
	int child_sock;	     /* the sandbox's end, until the fork (OTO_REFUSALS) */
	int listener;	     /* the seccomp filter's, once it came */
	int proc_fd;	     /* the supervisor's /proc, before pid 1 mounts its own over it */
	struct otons_audit *audit; /* Landlock's refusals (audit.c) */
	int write_failed;
	unsigned long count[OTONS_REFUSALS_NR], count_other;
	long long budget;   /* ns of CPU the supervisor may still spend on notifications */
	long long refilled; /* CLOCK_MONOTONIC ns of the budget's last refill */
	long long cpu_mark; /* the supervisor's CPU ns before the poll that may wake for one */
	int resting;	    /* budget spent: the listener is not polled until CHUNK is back */
};
/*
 * One line of otons' on log_fd, charged to b (lib/record_thin.c): written,
 * or counted past the budget, the first time replaced by the line that says
 * so (source, session: its head's). A failed write is warned about once.
 * The agent's short line for it goes to why (lib/why_note.c).
 */
void otons_record_write(int log_fd, struct why *why, struct record_budget *b, const char *source,
			const char *session, const char *line, size_t n, int *write_failed);
/*
 * Make the socket and set OTO_REFUSALS, when log_fd >= 0, and offer one for
 * the agent's file (OTO_WHY_FD, au->why) (dies 111).
 */
void xotons_refusals_offer(struct otons_refusals *r, int log_fd, const char *session,
			   struct otons_audit *au);
void otons_refusals_parent(struct otons_refusals *r); /* the supervisor, after the fork */
void otons_refusals_child(struct otons_refusals *r);  /* pid 1, after the fork */
/* The poll set (the listener only while the budget lasts), and its timeout (ms, -1: none). */
int otons_refusals_fds(struct otons_refusals *r, struct pollfd *pf, int *timeout);
void otons_refusals_events(struct otons_refusals *r, const struct pollfd *pf, int n);
/* The end: what is still pending answered EPERM, whatever the budget; then closed. */
void otons_refusals_finish(struct otons_refusals *r);
/*
 * parse.c: one refusal's JSON line, newline included. name NULL: a number
 * the build's table does not name. Returns its length, or 0 when it does
 * not fit. Pure.
 */
struct timespec;
/* Whether the count-th refusal of a kind is written: 1..OTONS_REFUSALS_FIRST, then powers of ten.
 * Pure. */
int otons_worth_a_line(unsigned long count);
struct otons_refusal {
	const char *session;
	unsigned int pid;
	const char *comm, *exe; /* /proc/PID/comm and exe, read by the supervisor; NULL: none */
	const char *name;	/* libseccomp's name of nr */
	int nr;
	uint64_t args[6];
	unsigned long count;
};
int otons_refusal_format(char *buf, size_t size, const struct timespec *t,
			 const struct otons_refusal *rf);

/*
 * parse.c: the kernel's audit records, as the read-log group carries them:
 * "audit(SEC.MS:SERIAL): key=value ...". otons_audit_stamp: the stamp, and
 * the offset of the body; 0, or -1 when text does not begin so.
 * otons_audit_field: the value of key in the body, unquoted, into out: its
 * length, or -1 when absent or too long. otons_landlock_format: the JSON line
 * of one LANDLOCK_ACCESS record's body, newline included: its length, or 0
 * when it does not fit, with comm and exe from the event's SYSCALL record
 * (sys, syslen). Every key=value of the body becomes a string; an
 * untrusted string the audit wrote in hex (a path with a space...) is
 * decoded; bytes outside printable ASCII are written as \u00XX. Pure.
 */
int otons_audit_stamp(const char *text, size_t len, long long *sec, unsigned int *ms,
		      unsigned long long *serial, size_t *body);
int otons_audit_field(const char *body, size_t len, const char *key, char *out, size_t size);
int otons_landlock_format(char *buf, size_t size, const struct timespec *t, const char *session,
			  unsigned int pid, const char *body, size_t len, const char *sys,
			  size_t syslen, unsigned long count);

/*
 * audit.c: Landlock's refusals, from the kernel's audit (--log-fd, as root).
 * While otons is root, xotons_audit_open joins the audit's read-log group and
 * gives otons (and so the sandbox) an audit session of its own, by which the
 * supervisor tells the sandbox's records from the rest of the host's. The
 * supervisor writes one JSON line for each LANDLOCK_ACCESS record of that
 * session once its SYSCALL record (the caller's pid) has come.
 */
#define OTONS_AUDIT_PENDING 16	 /* records waiting for their event's SYSCALL record */
#define OTONS_AUDIT_BODY    8192 /* a record's body, at most (the audit's own bound) */
#define OTONS_AUDIT_KINDS   32	 /* blockers counted one by one, the rest together */
struct otons_audit_pending {
	unsigned long long serial;
	long long sec;
	unsigned int ms;
	size_t len;
	char body[OTONS_AUDIT_BODY];
};
struct otons_audit {
	int fd;		     /* NETLINK_AUDIT in the read-log group; -1: none */
	const char *session; /* the session's id, on every line */
	unsigned int ses;    /* the sandbox's audit session */
	const char *why;     /* why there is none, for the warning; NULL: no log asked */
	int why_err;
	/* The why of OTO_AUDIT=!WHY, kept: the environment's copy goes with unsetenv. */
	char inherited_why[256];
	int noted; /* a domain of the sandbox logs (otoexec's note) */
	int lost;  /* records were dropped (ENOBUFS), said once */
	int warned;
	size_t npend;
	struct otons_audit_pending *pend; /* OTONS_AUDIT_PENDING of them, once needed */
	struct {
		char blockers[64];
		unsigned long count;
	} kinds[OTONS_AUDIT_KINDS];
	size_t nkinds;
	unsigned long count_other;
	/* The byte budget of otons' lines, seccomp's and Landlock's together (set here). */
	struct record_budget record;
	/* The agent's file of its refusals, once otomount sends it (refusals.c offers). */
	struct why why_file;
};
struct otons_opts;
void xotons_audit_open(const struct otons_opts *o, struct otons_audit *a);
/* The note of a domain that logs came: a warning when its refusals cannot be read. */
void otons_audit_note(struct otons_audit *a);
/* Records to read (fd readable); lines to log_fd. */
void otons_audit_read(struct otons_audit *a, int log_fd, int *write_failed);
/* The end: the records still on their way (at most a second), then close. */
void otons_audit_finish(struct otons_audit *a, int log_fd, int *write_failed);
void otons_audit_close(struct otons_audit *a);

/*
 * supervise.c: with a pid namespace, pid 1 starts the program itself and
 * every process exits; without one, returns in the program's process.
 */
struct session;
void xotons_run(const struct otons_opts *o, struct otons_cgroup *cg, struct otons_audit *au,
		const struct session *s);

#endif
