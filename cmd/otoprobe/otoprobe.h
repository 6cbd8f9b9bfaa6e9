/* SPDX-License-Identifier: ISC */
/*
 * otoprobe's files, each section below one of them. main.c: the steps;
 * opts.c: the command line (dies 100); parse.c: parsers, classifiers and
 * escaping (pure); report.c: the rows, printed as a table or as JSON;
 * checks.c: the process's own state (fds, /proc/self, the view, the
 * environment); syscalls.c: the calls an agent must not make, each tried in
 * a child; net.c: the private destinations, each of which must be refused.
 */
#ifndef OTOPROBE_H
#define OTOPROBE_H

#include <stddef.h>

enum verdict { V_OK, V_GAP, V_INFO, V_NUM };

/* The namespaces otoprobe compares, in the order it reports them. */
enum { NS_USER, NS_MNT, NS_PID, NS_IPC, NS_UTS, NS_CGROUP, NS_NET, NS_COUNT };
extern const char *const NS_NAMES[]; /* NS_COUNT of them */

struct otoprobe_opts {
	int json;
	int no_net;
	unsigned long net_timeout_ms;
	unsigned long host_ns[NS_COUNT]; /* inode of the launcher's namespace */
	int have_host_ns[NS_COUNT];
};

/* opts.c: the option loop. Exits 0 (--help, --version). Dies on bad usage: 100. */
void xotoprobe_parse(struct otoprobe_opts *o, int argc, char **argv);

/* parse.c: each never exits. Pure. */
/*
 * Returns whether ino is the fixed inode of the initial namespace of kind ns
 * (the host's own: include/linux/proc_ns.h, PROC_*_INIT_INO).
 */
int ns_is_initial(int ns, unsigned long ino);
/*
 * Parses "net:4026531833" into NS_NET and the id. Returns 0, or -1/EINVAL
 * when malformed or unknown.
 */
int hostns_parse(const char *s, int *ns, unsigned long *id);
/* Copies the value of "Key:\tvalue" in /proc/PID/status text into out: 0, or -1/ENOENT. */
int status_field(const char *text, const char *key, char *out, size_t size);
struct mountinfo_ent {
	char *mountpoint; /* unescaped, points into the line */
	char *options;	  /* per-mount options: "rw,nosuid,..." */
	char *fstype;
	int writable;
};
/* Parses one /proc/self/mountinfo line in place. Returns 0, or -1/EINVAL when malformed. */
int mountinfo_parse(char *line, struct mountinfo_ent *e);
/*
 * Judges /proc/self/uid_map text. Returns V_GAP when it is the initial
 * namespace's map or maps an id onto outer 0, V_OK otherwise.
 */
enum verdict uidmap_verdict(const char *text);
/*
 * Judges a syscall probe's outcome (0 = it succeeded). Returns V_OK when
 * refused (EPERM, EACCES, ENOSYS, or one of extra); V_GAP on success or any
 * other error, which shows the call reached the kernel's own argument checks.
 */
enum verdict syscall_verdict(int err, const int *extra, size_t nextra);
/* Judges a TCP connect's outcome (0 = connected, ETIMEDOUT = no answer). */
enum verdict connect_verdict(int err);
/* Returns whether an environment variable's name looks like it holds a credential. */
int env_name_is_secret(const char *name);
/*
 * Writes s as a JSON string body (no quotes) into out: escapes, invalid
 * UTF-8 as U+FFFD. Returns the length it needed, like snprintf.
 */
size_t json_escape(char *out, size_t size, const char *s);
/* Writes s for a terminal: control bytes as \xNN. Returns the length needed. */
size_t text_escape(char *out, size_t size, const char *s);
/* Returns "EPERM" for EPERM; for one it does not list, "errno N" written into buf. */
const char *errno_name(int err, char *buf, size_t size);

/* report.c: the rows, in the order the checks add them. */
struct report_row {
	char *check;
	enum verdict v;
	char *detail;
};
struct report {
	struct report_row *rows;
	size_t nrows, cap;
	int lost; /* a row could not be kept (out of memory): the report is incomplete */
};
/* Adds one row; out of memory, it is lost, and report_print says so. */
void report_add(struct report *rep, const char *check, enum verdict v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/*
 * Prints every row. Returns the number of gaps, or -1 with errno (ENOMEM: a
 * row was lost, and nothing is printed; else the write's).
 */
int report_print(const struct report *rep, int json);

/*
 * checks.c: adds the rows of the process's own state. check_fds and
 * check_status return 0, or -1/errno when /proc cannot be read (then nothing
 * here can be judged).
 */
int check_fds(struct report *rep);
int check_status(struct report *rep);
void check_namespaces(struct report *rep, const struct otoprobe_opts *o);
int ns_inode(int ns, unsigned long *ino); /* reads /proc/self/ns/NAME's: 0, or -1 with errno */
void check_uidmap(struct report *rep);
void check_mounts(struct report *rep);
void check_paths(struct report *rep);
void check_env(struct report *rep);
void check_cgroup(struct report *rep); /* the limits at /sys/fs/cgroup, for information */

/* syscalls.c: runs each probe in a child. Dies on failure: 111 when it cannot fork or wait. */
void xcheck_syscalls(struct report *rep);

/* net.c: tries the private destinations. Dies on failure: 111 when it cannot wait for them. */
void xcheck_net(struct report *rep, const struct otoprobe_opts *o);

#endif
