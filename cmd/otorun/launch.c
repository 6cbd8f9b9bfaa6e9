/* SPDX-License-Identifier: ISC */
/*
 * What a launch does before the exec: the session's cgroup (run by root),
 * the files the chain reads opened on the host, before any view exists,
 * on the fds their stages read (store and key 8 and 9 for otosecret, 5 and 6
 * for otogate, a profile 7, otons' copy of --log-fd), then the exec.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "oto.h"
#include "otorun.h"
#include "pem.h"

/* Whether the whitespace-separated list in file holds word. */
static int file_has_word(const char *file, const char *word)
{
	char buf[4096], *tok, *save;

	if (file_read_at(AT_FDCWD, file, buf, sizeof(buf)) < 0)
		return -1;
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

static int write_str(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, s, strlen(s));
	close(fd);
	return w == (ssize_t)strlen(s) ? 0 : -1;
}

/* The mount point of cgroup v2 (the first whose root is /), or NULL. */
static char *cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *mnt = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (!mnt && getline(&line, &cap, f) > 0) {
		char root[4096], point[4096];

		if (strstr(line, " - cgroup2 ") &&
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) == 2 &&
		    !strcmp(root, "/"))
			mnt = strdup(point);
	}
	free(line);
	fclose(f);
	return mnt;
}

/* mkdir -p: 0, or -1 with errno when path is not a directory afterwards. */
static int mkdir_p(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* The empty otorun-* leaves earlier runs left in d (rmdir removes only an empty cgroup). */
static void cgroup_sweep(const char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (!strncmp(e->d_name, "otorun-", 7) && e->d_type == DT_DIR)
			unlinkat(dirfd(dir), e->d_name, AT_REMOVEDIR);
	closedir(dir);
}

/*
 * --cgroup, run by root with no DIR. otons makes the session's leaf and
 * moves the sandbox into it, as the account it runs as: behind otonet
 * (which drops root first) that is the --as account, even when otorun runs
 * as root. otorun delegates CGROUP2/oto/UID to that account as systemd
 * delegates a user's subtree (the directory, its cgroup.procs,
 * cgroup.subtree_control and cgroup.threads), and moves itself, so the
 * chain, into a leaf of its own there, "otorun-PID": the kernel lets an
 * account move a process only within a subtree whose top it may write. Each
 * run first removes the empty otorun-* leaves of earlier runs (rmdir removes
 * only an empty cgroup).
 */
char *xcgroup_prepare(const char *as)
{
	static const char *const CTRL[] = { "memory", "pids", "cpu" };
	static const char *const FILES[] = { "", "/cgroup.procs", "/cgroup.subtree_control",
					     "/cgroup.threads" };
	char *mnt = cgroup2_mount(), *user, *d, *leaf, *procs;
	uid_t uid;
	gid_t gid;

	if (!mnt)
		xotorun_die(EXIT_SYS, "unable to find cgroup v2 in /proc/self/mountinfo: it is "
				      "not mounted");
	/* The account's own group (id -g): the group of --as is the chain's business. */
	user = strndup(as, strcspn(as, ":"));
	if (!user || user_lookup(user, &uid, &gid) < 0)
		xotorun_die(EXIT_USAGE, "--as %s: no such user", shown(as));
	if (asprintf(&d, "%s/oto/%u", mnt, (unsigned)uid) < 0 || mkdir_p(d) < 0)
		xotorun_die(EXIT_SYS, "unable to make the cgroup %s/oto/%u", mnt, (unsigned)uid);
	/* The controllers down to the account's directory (the levels above are root's). */
	for (size_t c = 0; c < 3; c++) {
		for (int l = 0; l < 2; l++) {
			char *lvl, *ctl, *sub, *plus;

			if (asprintf(&lvl, l ? "%s/oto" : "%s", mnt) < 0 ||
			    asprintf(&ctl, "%s/cgroup.controllers", lvl) < 0 ||
			    asprintf(&sub, "%s/cgroup.subtree_control", lvl) < 0 ||
			    asprintf(&plus, "+%s\n", CTRL[c]) < 0)
				xotorun_die(EXIT_SYS,
					    "unable to enable a controller: out of memory");
			if (file_has_word(ctl, CTRL[c]) != 1)
				continue;
			if (file_has_word(sub, CTRL[c]) != 1 && write_str(sub, plus) < 0)
				xotorun_die(EXIT_SYS,
					    "unable to enable the %s controller in "
					    "%s/cgroup.subtree_control",
					    CTRL[c], lvl);
		}
	}
	for (size_t i = 0; i < 4; i++) {
		char *f;

		if (asprintf(&f, "%s%s", d, FILES[i]) < 0 || chown(f, uid, gid) < 0)
			xotorun_die(EXIT_SYS, "unable to delegate the cgroup %s to uid %u", d,
				    (unsigned)uid);
	}
	cgroup_sweep(d);
	if (asprintf(&leaf, "%s/otorun-%d", d, (int)getpid()) < 0 ||
	    asprintf(&procs, "%s/cgroup.procs", leaf) < 0 || mkdir(leaf, 0755) < 0 ||
	    write_str(procs, "0\n") < 0)
		xotorun_die(EXIT_SYS, "unable to move into the cgroup %s/otorun-%d", d,
			    (int)getpid());
	return d;
}

/* path on fd (not close-on-exec: the chain reads it), or -1 with errno. */
static int open_on(const char *path, int fd)
{
	int f = open(path, O_RDONLY);

	if (f < 0 || f == fd)
		return f;
	if (dup2(f, fd) < 0) {
		int e = errno;

		close(f);
		errno = e;
		return -1;
	}
	close(f);
	return fd;
}

/*
 * otosecret and otogate refuse a store or key others may access (101), but
 * they get it as an fd and could only name their --store-fd or --key-fd: the
 * same rule here, on what was opened, names the file the user gave.
 */
static void xowner_only(const char *what, const char *path, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
		xotorun_die(EXIT_REJECT,
			    "%s %s is accessible by group or others (mode %04o): chmod 600", what,
			    shown(path), (unsigned int)(st.st_mode & 07777));
}

/*
 * The session's first line on the decider's socket fd, before any question
 * (otonet(1), Asking): its id (OTO_SESSION, made here when the launcher
 * gave none, so that the chain's stages use it too), the person, and the
 * agent: the account it runs as and its program. No answer is asked.
 */
static void xask_hello(const struct otorun_opts *o, int fd)
{
	char line[1024], account[256], agent[512], *prog = strrchr(o->cmd[0], '/');
	const char *id = getenv("OTO_SESSION");
	struct timespec ts;
	uid_t uid = geteuid();
	gid_t gid;
	size_t n;

	/* As xsession_begin makes it (its record's code is otonet's, not otorun's). */
	if (!id) {
		unsigned char rnd[16];
		static char made[33];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			xotorun_die(EXIT_SYS, "unable to make the session's id (getrandom): %s",
				    strerror(errno));
		for (size_t i = 0; i < sizeof(rnd); i++)
			snprintf(made + 2 * i, 3, "%02x", rnd[i]);
		if (setenv("OTO_SESSION", made, 1) < 0)
			xotorun_die(EXIT_SYS, "unable to set OTO_SESSION: %s", strerror(errno));
		id = made;
	}
	/* Run by root, the agent is the --as account's (by name, as passwd has it). */
	if (uid == 0 && *o->as) {
		snprintf(account, sizeof(account), "%.*s", (int)strcspn(o->as, ":"), o->as);
		if (user_lookup(account, &uid, &gid) < 0)
			uid = (uid_t)-1;
	}
	if (uid != (uid_t)-1 && user_name(uid, account, sizeof(account)) < 0)
		snprintf(account, sizeof(account), "%u", (unsigned int)uid);
	snprintf(agent, sizeof(agent), "%.200s as %.200s", prog ? prog + 1 : o->cmd[0], account);
	clock_gettime(CLOCK_REALTIME, &ts);
	n = (size_t)event_head(line, sizeof(line), &ts, "session", id);
	if (n && n + 10 < sizeof(line)) {
		memcpy(line + n, ",\"person\":", 10);
		n = json_str(line, sizeof(line), n + 10, o->person, strlen(o->person));
	}
	if (n && n + 9 < sizeof(line)) {
		memcpy(line + n, ",\"agent\":", 9);
		n = json_str(line, sizeof(line), n + 9, agent, strlen(agent));
	}
	if (!n || n + 3 > sizeof(line))
		xotorun_die(EXIT_SYS, "unable to write the session's line: too long");
	memcpy(line + n, "}\n", 2);
	n += 2;
	if (send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n)
		xotorun_die(EXIT_SYS, "unable to write to the decider: %s", strerror(errno));
}

/*
 * A decider on the agent's terminal is refused: the agent reads the keys
 * typed there, and could answer for the person. The agent's terminal is
 * otorun's controlling one, or one on its stdin, stdout or stderr (with no
 * controlling terminal, the agent still reads those). A decider whose pid
 * this namespace does not see cannot be told: the decider checks too.
 */
static void xask_tty_check(const char *path, int fd)
{
	unsigned long theirs, mine;
	struct stat st;
	pid_t pid;
	int same;

	if (tty_of_peer(fd, &pid, &theirs) < 0 || !theirs)
		return;
	same = tty_of(0, &mine) == 0 && mine == theirs;
	for (int i = 0; i < 3 && !same; i++)
		same = isatty(i) && fstat(i, &st) == 0 && tty_nr_of(st.st_rdev) == theirs;
	if (same)
		xotorun_die(EXIT_USAGE,
			    "--ask %s: the decider (pid %d) is on this terminal, where the agent "
			    "could type its answers: run it in a terminal of its own (another "
			    "window, a tmux pane)",
			    shown(path), (int)pid);
}

/* --ask SOCKET: connected now, on FD_ASK, for otonet's relay (it keeps it, close-on-exec). */
static void xask_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		xotorun_die(EXIT_USAGE, "--ask %s: the path is too long for a unix socket",
			    shown(path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		xotorun_die(EXIT_SYS, "unable to connect to the decider at %s: %s", shown(path),
			    strerror(errno));
	xask_tty_check(path, fd);
	if (dup2(fd, FD_ASK) < 0)
		xotorun_die(EXIT_SYS, "unable to connect to the decider at %s: %s", shown(path),
			    strerror(errno));
	close(fd);
}

void xlaunch_fds(const struct otorun_opts *o, const struct chain *c)
{
	const char *p = o->profile;
	struct stat st;
	char why[512];
	int e;

	if (o->secrets.n || o->grants.n) {
		int sfd = o->grants.n ? FD_GATE_STORE : FD_SECRET_STORE;
		int kfd = o->grants.n ? FD_GATE_KEY : FD_SECRET_KEY;

		/* errno's reason and the fix: a newcomer's first store is often missing. */
		if (access(o->store, R_OK) < 0) {
			e = errno;
			xotorun_die(EXIT_SYS, "unable to open store %s: %s%s", shown(o->store),
				    strerror(e),
				    shown(store_file_why(o->store, e, 0, why, sizeof(why))));
		}
		if (access(o->key, R_OK) < 0) {
			e = errno;
			xotorun_die(EXIT_SYS, "unable to open key %s: %s%s", shown(o->key),
				    strerror(e),
				    shown(store_file_why(o->key, e, 1, why, sizeof(why))));
		}
		if (o->secrets.n &&
		    (open_on(o->store, FD_SECRET_STORE) < 0 || open_on(o->key, FD_SECRET_KEY) < 0))
			xotorun_die(EXIT_SYS, "unable to open the store and key on fds %d and %d",
				    FD_SECRET_STORE, FD_SECRET_KEY);
		if (o->grants.n &&
		    (open_on(o->store, FD_GATE_STORE) < 0 || open_on(o->key, FD_GATE_KEY) < 0))
			xotorun_die(EXIT_SYS, "unable to open the store and key on fds %d and %d",
				    FD_GATE_STORE, FD_GATE_KEY);
		xowner_only("store", o->store, sfd);
		xowner_only("key", o->key, kfd);
	}
	/* Read on the host now: inside the view a path names what the agent may
	 * have written (its workspace is the working directory there). */
	if (*p && strcmp(p, "default") && strcmp(p, "dev")) {
		if (access(p, R_OK) < 0 || (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    open_on(p, FD_PROFILE) < 0)
			xotorun_die(EXIT_REJECT, "unable to open profile %s", shown(p));
	}
	if (*o->ask)
		xask_connect(o->ask);
	/* --ask-fd N is a number, 10 or more (opt_apply checked it). */
	if (*o->ask || *o->ask_fd)
		xask_hello(o, *o->ask ? FD_ASK : atoi(o->ask_fd));
	if (c->dup_log) {
		unsigned long from, to;

		/* Both are numbers: checked, or ours. */
		if (opt_ulong(o->log_fd, 0x7fffffff, &from) < 0 ||
		    opt_ulong(c->ns_log_fd, 0x7fffffff, &to) < 0 || dup2((int)from, (int)to) < 0)
			xotorun_die(EXIT_SYS, "--log-fd %s: not an open file descriptor",
				    o->log_fd);
	}
}

/*
 * One --ro, --rw, --socket or --home-skel source, opened here as root: without following
 * a symlink anywhere in its path (as otomount opens one), cloned into a
 * detached tree with the view's attributes (read-only unless --rw; never
 * setuid, never a device), on an fd of 100 or more that the chain inherits.
 * otomount moves the tree into the view and closes the fd; nothing of the
 * path above the source is in the view.
 */
/* path opened as otomount opens a source: no symlink anywhere in it. Dies 111. */
static int xsource_open(const char *opt, const char *path, int flags)
{
	int fd = sys_openat2(AT_FDCWD, path, flags, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

	if (fd < 0) {
		int e = errno;

		xotorun_die(EXIT_SYS, "unable to open %s %s%s: %s", opt, shown(path),
			    e == ELOOP ? " (a symlink is refused)" : "", strerror(e));
	}
	return fd;
}

static int xsource_tree(const char *opt, const char *src, size_t n)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
	char *path = strndup(src, n);
	struct stat st;
	int fd, tree;

	if (!path)
		xotorun_die(EXIT_SYS, "unable to open %s: out of memory", opt);
	fd = xsource_open(opt, path, O_PATH);
	if (fstat(fd, &st) < 0)
		xotorun_die(EXIT_SYS, "unable to open %s %s: %s", opt, shown(path),
			    strerror(errno));
	if (!strcmp(opt, "--socket")	  ? !S_ISSOCK(st.st_mode)
	    : !strcmp(opt, "--home-skel") ? !S_ISDIR(st.st_mode)
					  : !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		xotorun_die(EXIT_SYS, "unable to bind %s %s: not a %s", opt, shown(path),
			    !strcmp(opt, "--socket")	  ? "socket"
			    : !strcmp(opt, "--home-skel") ? "directory"
							  : "file or directory");
	tree = (int)syscall(SYS_open_tree, fd, "",
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (strcmp(opt, "--rw"))
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (tree < 0 || syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
				sizeof(attr)) < 0)
		xotorun_die(EXIT_SYS, "unable to bind %s %s (open_tree): %s", opt, shown(path),
			    strerror(errno));
	close(fd);
	fd = fcntl(tree, F_DUPFD, 100);
	if (fd < 0)
		xotorun_die(EXIT_SYS, "unable to keep the tree of %s %s: %s", opt, shown(path),
			    strerror(errno));
	close(tree);
	free(path);
	return fd;
}

/* --ca-file's FILE, opened here as root for reading (no symlink in its path): "fd=N". */
static char *xsource_file(const char *opt, const char *path)
{
	int fd = xsource_open(opt, path, O_RDONLY), kept;
	char *w;

	/* What otomount will check, said here with the path the caller gave, before the chain
	 * starts: a private key in it refuses it (lib/pem.h). */
	{
		static char buf[(1 << 20) + 1];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		struct pem_scan s;
		char why[256];
		size_t len;
		int rc;

		if (n < 0)
			xotorun_die(EXIT_SYS, "unable to read %s %s: %s", opt, shown(path),
				    strerror(errno));
		buf[n] = 0;
		if (n == (ssize_t)sizeof(buf) - 1)
			xotorun_die(EXIT_REJECT, "%s %s: larger than 1024 KiB", opt, shown(path));
		rc = pem_certs(buf, (size_t)n, NULL, 0, &len, &s);
		if (rc != PEM_OK)
			xotorun_die(EXIT_REJECT, "%s %s: %s", opt, shown(path),
				    pem_why(rc, &s, why, sizeof(why)));
	}
	kept = fcntl(fd, F_DUPFD, 100);
	if (kept < 0 || asprintf(&w, "fd=%d", kept) < 0)
		xotorun_die(EXIT_SYS, "unable to keep %s %s: %s", opt, shown(path),
			    strerror(errno));
	close(fd);
	return w;
}

void xlaunch_sources(char **argv, const char *otomount, const char *tools)
{
	char **a = argv;

	while (*a && strcmp(*a, otomount))
		a++;
	for (; *a && strcmp(*a, "--"); a++) {
		/* otorun's own tools, beside it: the account's to read, as ever. */
		if (a[1] && !strcmp(*a, "--ro") && !strcmp(a[1], tools)) {
			a++;
			continue;
		}
		const char *colon;
		char *w;
		int fd;

		if (a[1] && !strcmp(*a, "--ca-file") && a[1][0] == '/') {
			a[1] = xsource_file(*a, a[1]);
			a++;
			continue;
		}
		if (strcmp(*a, "--ro") && strcmp(*a, "--rw") && strcmp(*a, "--socket") &&
		    strcmp(*a, "--home-skel"))
			continue;
		if (!a[1] || a[1][0] != '/')
			continue; /* otomount's to refuse, with its usage message */
		colon = strcmp(*a, "--home-skel") ? strchr(a[1], ':') : a[1] + strlen(a[1]);
		if (!colon)
			continue;
		fd = xsource_tree(*a, a[1], (size_t)(colon - a[1]));
		if (asprintf(&w, "fd=%d%s", fd, colon) < 0)
			xotorun_die(EXIT_SYS, "unable to open %s: out of memory", *a);
		a[1] = w;
		a++;
	}
}

void xlaunch_exec(char **argv)
{
	int e;

	/* A tool beside otorun by its absolute path; else from PATH, as sh would. */
	if (strchr(argv[0], '/'))
		execv(argv[0], argv);
	else
		execvp(argv[0], argv);
	e = errno;
	xotorun_die(exec_code(e), "unable to exec %s: %s", argv[0], strerror(e));
}
