/* SPDX-License-Identifier: ISC */
/*
 * --cgroup: a leaf cgroup v2 per session, with its limits, where the
 * sandbox's pid 1 and everything below it run.
 *
 * Where: a directory the caller may write (a delegated subtree, as systemd
 * and nsjail use it), or, run by root, MOUNT/oto/UID: root makes MOUNT/oto and
 * MOUNT/oto/UID, delegates the latter to the --as account (the directory,
 * cgroup.procs, cgroup.subtree_control, cgroup.threads) and enables the
 * controllers down to it. The leaf itself
 * is made here, before root is dropped, so its limit files belong to its
 * maker; the supervisor, which by the end runs as the --as account, can
 * remove it because the directory it is in is that account's.
 *
 * How the sandbox gets in: pid 1 writes "0" to the leaf's cgroup.procs
 * through a descriptor opened here. A move needs write access to the
 * cgroup.procs of the common ancestor of where the process is and where it
 * goes; the kernel checks it with the credentials of the descriptor's opener
 * (since Linux 5.16), so root's descriptor still moves pid 1 after root is
 * gone. clone3's CLONE_INTO_CGROUP would check the credentials of the caller
 * at the fork, the --as account's, and fail wherever the caller's cgroup is
 * not inside the account's delegation. pid 1 moves before it forks or execs
 * anything, then makes the cgroup namespace, so that the leaf is the
 * namespace's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* The controllers otons may enable, and what it writes with each. */
enum { C_MEMORY = 1, C_PIDS = 2, C_CPU = 4 };
static const char *const CTRL_NAMES[] = { "memory", "pids", "cpu" };
/* What a delegated directory gives its account, besides the directory. */
static const char *const DELEGATED[] = { "cgroup.procs", "cgroup.subtree_control",
					 "cgroup.threads" };

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* One write of value to dirfd/file: 0, or -1 with errno. */
static int write_at(int dirfd, const char *file, const char *value)
{
	int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len) {
		errno = n < 0 ? e : EIO;
		return -1;
	}
	return 0;
}

/* The leaf, removed: used on the way out of a failed set-up. */
static void leaf_remove(struct otons_cgroup *cg)
{
	if (cg->name[0] && unlinkat(cg->dirfd, cg->name, AT_REMOVEDIR) < 0)
		log_msg(LOG_WARN, errno, "unable to remove the cgroup %s/%s", cg->dir, cg->name);
	cg->name[0] = 0;
}

/*
 * Until the fork, a step that dies (a user namespace refused, say) removes
 * the leaf, still empty, on its way out (log_at_die); after it, the
 * supervisor's end does, and pid 1 never does. A file static on purpose,
 * as otons' spawn_errno: die may come from any depth, where no struct is
 * at hand, and its hook takes none.
 */
static struct otons_cgroup *pending;

static void remove_pending(void)
{
	if (pending)
		leaf_remove(pending);
	pending = NULL;
}

/*
 * The controllers in want enabled in path's cgroup.subtree_control, so that
 * its children have them; those in need must be there, the others are left
 * out quietly. Returns what its children will have.
 */
static int xenable(int dirfd, const char *path, int want, int need)
{
	char avail[512], on[512];
	int got = 0;

	if (file_read_at(dirfd, "cgroup.controllers", avail, sizeof(avail)) < 0)
		die(EXIT_SYS, errno, "unable to read %s/cgroup.controllers", path);
	if (file_read_at(dirfd, "cgroup.subtree_control", on, sizeof(on)) < 0)
		die(EXIT_SYS, errno, "unable to read %s/cgroup.subtree_control", path);
	for (size_t i = 0; i < ARRAY_SIZE(CTRL_NAMES); i++) {
		char plus[32];
		int bit = 1 << i;

		if (!(want & bit))
			continue;
		if (!otons_word_in(avail, CTRL_NAMES[i])) {
			size_t l = strlen(avail);

			if (!(need & bit)) {
				debugx("no %s controller in %s/cgroup.controllers", CTRL_NAMES[i],
				       path);
				continue;
			}
			if (l && avail[l - 1] == '\n')
				avail[l - 1] = 0;
			die(EXIT_SYS, 0,
			    "the %s controller is not available in %s/cgroup.controllers (it has: "
			    "%s): "
			    "enable it in the parent's cgroup.subtree_control, or on a host whose "
			    "cgroup v1 holds it, free it there",
			    CTRL_NAMES[i], path, avail[0] ? avail : "none");
		}
		got |= bit;
		if (otons_word_in(on, CTRL_NAMES[i]))
			continue;
		snprintf(plus, sizeof(plus), "+%s", CTRL_NAMES[i]);
		if (write_at(dirfd, "cgroup.subtree_control", plus) < 0) {
			int e = errno;

			/* cgroup v2's rule: controllers or processes, never both. */
			die(EXIT_SYS, 0,
			    "unable to enable the %s controller in %s/cgroup.subtree_control: %s%s",
			    CTRL_NAMES[i], path, strerror(e),
			    e == EBUSY ? " (processes live in that cgroup itself: move them into a "
					 "child cgroup, and name a directory without processes)"
				       : "");
		}
	}
	return got;
}

/* dirfd/name as a directory of cgroup v2 (made when missing, given to uid): its fd. */
static int xcg_dir(int dirfd, const char *parent, const char *name, uid_t uid, gid_t gid)
{
	int fd;

	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		die(EXIT_SYS, errno, "unable to make the cgroup %s/%s", parent, name);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to open the cgroup %s/%s", parent, name);
	if (uid == (uid_t)-1)
		return fd;
	/*
	 * Delegated as systemd delegates a user's subtree: the directory and
	 * the files that create, enable and move (otorun does the same, for
	 * the chain behind otonet, where otons is that account from the start).
	 * Its limits, and those of each leaf root makes, stay root's.
	 */
	if (fchown(fd, uid, gid) < 0)
		die(EXIT_SYS, errno, "unable to give the cgroup %s/%s to uid %u", parent, name,
		    (unsigned)uid);
	for (size_t i = 0; i < ARRAY_SIZE(DELEGATED); i++)
		if (fchownat(fd, DELEGATED[i], uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			die(EXIT_SYS, errno, "unable to give %s/%s/%s to uid %u", parent, name,
			    DELEGATED[i], (unsigned)uid);
	return fd;
}

/* Root's default: MOUNT/oto/UID, for the --as account, controllers enabled down to it. */
static int xroot_default(const struct otons_opts *o, struct otons_cgroup *cg, int want, int need)
{
	static char mi[1 << 16];
	char mnt[400], sub[16];
	uid_t uid;
	gid_t gid;
	int fd, mfd, ofd, n;

	if (!o->as)
		die_usage("run as root: --as USER[:GROUP] names the unprivileged account to use");
	if (user_lookup(o->as, &uid, &gid) < 0)
		die_usage("--as %s: no such unprivileged user or group", o->as);
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : (int)fd_read_all(fd, mi, sizeof(mi) - 1);
	if (n < 0)
		die(EXIT_SYS, errno, "unable to read /proc/self/mountinfo to find cgroup v2");
	close(fd);
	mi[n] = 0;
	if (otons_cgroup2_mount(mi, mnt, sizeof(mnt)) < 0)
		die(EXIT_SYS, ENOENT,
		    "unable to find cgroup v2 in /proc/self/mountinfo: it is not mounted "
		    "(mount -t cgroup2 none /sys/fs/cgroup, or name a directory with "
		    "--cgroup=DIR)");
	mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		die(EXIT_SYS, errno, "unable to open the cgroup v2 mount %s", mnt);
	want = xenable(mfd, mnt, want, need);
	ofd = xcg_dir(mfd, mnt, "oto", (uid_t)-1, (gid_t)-1);
	snprintf(cg->dir, sizeof(cg->dir), "%s/oto", mnt);
	want = xenable(ofd, cg->dir, want, need);
	snprintf(sub, sizeof(sub), "%u", (unsigned)uid);
	cg->dirfd = xcg_dir(ofd, cg->dir, sub, uid, gid);
	snprintf(cg->dir, sizeof(cg->dir), "%s/oto/%s", mnt, sub);
	close(mfd);
	close(ofd);
	return want;
}

/* A named DIR: cgroup v2, and, run by root, the --as account's to remove a leaf from. */
static void xnamed_dir(const struct otons_opts *o, struct otons_cgroup *cg)
{
	struct statfs sf;
	struct stat st;
	uid_t uid;
	gid_t gid;

	snprintf(cg->dir, sizeof(cg->dir), "%s", o->cgroup_dir);
	cg->dirfd = open(o->cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dirfd < 0)
		die(EXIT_SYS, errno, "unable to open the cgroup directory %s", o->cgroup_dir);
	if (fstatfs(cg->dirfd, &sf) < 0 || fstat(cg->dirfd, &st) < 0)
		die(EXIT_SYS, errno, "unable to stat the cgroup directory %s", o->cgroup_dir);
	if (sf.f_type != CGROUP2_SUPER_MAGIC)
		die(EXIT_SYS, 0,
		    "%s is not a cgroup v2 directory (statfs): name one under the "
		    "cgroup2 mount (grep cgroup2 /proc/self/mountinfo)",
		    o->cgroup_dir);
	if (geteuid() != 0)
		return;
	if (!o->as)
		die_usage("run as root: --as USER[:GROUP] names the unprivileged account to use");
	if (user_lookup(o->as, &uid, &gid) < 0)
		die_usage("--as %s: no such unprivileged user or group", o->as);
	/* By the end, the supervisor is that account: it removes the leaf from here. */
	if (st.st_uid != uid)
		die(EXIT_SYS, 0,
		    "%s belongs to uid %u, not to %s (uid %u): otons, which runs as that account "
		    "by the end, could not remove the session's cgroup from it",
		    o->cgroup_dir, (unsigned)st.st_uid, o->as, (unsigned)uid);
}

/* One limit into the leaf; on failure the leaf goes and otons dies. */
static void xlimit(struct otons_cgroup *cg, int leaf, const char *file, const char *value)
{
	if (write_at(leaf, file, value) < 0) {
		int e = errno;

		leaf_remove(cg);
		die(EXIT_SYS, e, "unable to write %s to %s/%s/%s", value, cg->dir, cg->name, file);
	}
}

void xotons_cgroup_make(const struct otons_opts *o, struct otons_cgroup *cg)
{
	int need = (o->memory_max ? C_MEMORY : 0) | (o->pids_max ? C_PIDS : 0) |
		   (o->cpu_quota ? C_CPU : 0);
	/* memory whenever there is one: swap off and the whole session killed on OOM. */
	int want = need | C_MEMORY, got, leaf;
	unsigned int rnd = 0;
	char v[64];

	memset(cg, 0, sizeof(*cg));
	cg->dirfd = cg->procs_fd = cg->kill_fd = cg->events_fd = -1;
	cg->mem_events = cg->pids_events = -1;
	if (!o->cgroup)
		return;
	if (o->cgroup_dir) {
		xnamed_dir(o, cg);
		got = xenable(cg->dirfd, cg->dir, want, need);
	} else if (geteuid() == 0) {
		got = xroot_default(o, cg, want, need);
		got = xenable(cg->dirfd, cg->dir, got, need);
	} else {
		die_usage("--cgroup without a directory needs root: name a directory delegated to "
			  "you (--cgroup=DIR)");
	}

	/* Two sessions never share a name, even from two pid namespaces. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		die(EXIT_SYS, errno, "unable to read random bytes for the cgroup's name");
	snprintf(cg->name, sizeof(cg->name), "otons-%ld-%08x", (long)getpid(), rnd);
	if (mkdirat(cg->dirfd, cg->name, 0755) < 0) {
		int e = errno;

		cg->name[0] = 0;
		die(EXIT_SYS, e, "unable to make the cgroup %s/otons-%ld-%08x%s", cg->dir,
		    (long)getpid(), rnd,
		    e == EACCES || e == EPERM ? " (not delegated to this account)" : "");
	}
	pending = cg;
	log_at_die = remove_pending;
	leaf = openat(cg->dirfd, cg->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (leaf < 0) {
		int e = errno;

		leaf_remove(cg);
		die(EXIT_SYS, e, "unable to open the cgroup %s/%s", cg->dir, cg->name);
	}

	if (got & C_MEMORY) {
		if (o->memory_max) {
			snprintf(v, sizeof(v), "%llu", o->memory_max);
			xlimit(cg, leaf, "memory.max", v);
		}
		/* Without swap accounting the file is missing: nothing to turn off. */
		if (faccessat(leaf, "memory.swap.max", F_OK, 0) == 0)
			xlimit(cg, leaf, "memory.swap.max", "0");
		xlimit(cg, leaf, "memory.oom.group", "1");
		cg->mem_events = openat(leaf, "memory.events", O_RDONLY | O_CLOEXEC);
	}
	if (got & C_PIDS) {
		snprintf(v, sizeof(v), "%lu", o->pids_max);
		xlimit(cg, leaf, "pids.max", v);
		cg->pids_events = openat(leaf, "pids.events", O_RDONLY | O_CLOEXEC);
	}
	if (got & C_CPU) {
		snprintf(v, sizeof(v), "%lu %lu", o->cpu_quota, OTONS_CPU_PERIOD);
		xlimit(cg, leaf, "cpu.max", v);
	}

	cg->procs_fd = openat(leaf, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	cg->events_fd = openat(leaf, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (cg->procs_fd < 0 || cg->events_fd < 0) {
		int e = errno;

		leaf_remove(cg);
		die(EXIT_SYS, e, "unable to open %s/%s/cgroup.%s", cg->dir, cg->name,
		    cg->procs_fd < 0 ? "procs" : "events");
	}
	/* Before Linux 5.14 there is none: the end kills what it finds in cgroup.procs. */
	cg->kill_fd = openat(leaf, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	close(leaf);
	cg->on = 1;
	debugx("the session's cgroup: %s/%s", cg->dir, cg->name);
}

void xotons_cgroup_enter(struct otons_cgroup *cg, int new_ns)
{
	log_at_die = NULL;
	pending = NULL;
	if (!cg->on)
		return;
	/* "0": the writer itself. Before anything is forked or exec'd. */
	if (write(cg->procs_fd, "0", 1) != 1)
		die(EXIT_SYS, errno,
		    "unable to move the sandbox into the cgroup %s/%s (cgroup.procs)", cg->dir,
		    cg->name);
	/* Root's descriptors, if root made them: nothing inside keeps one. */
	close_fd(&cg->procs_fd);
	close_fd(&cg->kill_fd);
	close_fd(&cg->events_fd);
	close_fd(&cg->mem_events);
	close_fd(&cg->pids_events);
	close_fd(&cg->dirfd);
	cg->on = 0;
	/* The leaf becomes the root of what the sandbox sees of cgroups. */
	if (new_ns && unshare(CLONE_NEWCGROUP) < 0)
		die(EXIT_SYS, errno, "unable to create the cgroup namespace");
}

void otons_cgroup_forget(struct otons_cgroup *cg)
{
	/* Only pid 1 moves itself: the supervisor stays outside the leaf. */
	close_fd(&cg->procs_fd);
	log_at_die = NULL;
	pending = NULL;
}

/* "key N" from an events file's descriptor, 0 when it cannot be read. */
static unsigned long long events_value(int fd, const char *key)
{
	char buf[512];
	unsigned long long v = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (otons_events_value(buf, key, &v) < 0)
		return 0;
	return v;
}

/* Kill whatever is in the leaf, by cgroup.kill or, without it, one by one. */
static void kill_rest(struct otons_cgroup *cg)
{
	char buf[4096], *p, *end;
	int fd;
	ssize_t n;

	if (cg->kill_fd >= 0) {
		if (write(cg->kill_fd, "1", 1) != 1)
			log_msg(LOG_WARN, errno, "unable to write %s/%s/cgroup.kill", cg->dir,
				cg->name);
		return;
	}
	fd = openat(cg->dirfd, cg->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	n = fd < 0 ? -1 : file_read_at(fd, "cgroup.procs", buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	for (p = buf; n > 0 && *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		while (*end == '\n')
			end++;
	}
}

void otons_cgroup_end(struct otons_cgroup *cg)
{
	unsigned long long oom, pmax;
	char buf[256];

	if (!cg->on)
		return;
	/*
	 * pid 1 is reaped; with a pid namespace the kernel killed the rest,
	 * without one (--share pid) what the program left behind is still
	 * here, in the leaf, wherever it moved in the process tree.
	 */
	for (int tries = 0; tries < 200; tries++) {
		ssize_t n = pread(cg->events_fd, buf, sizeof(buf) - 1, 0);
		unsigned long long populated = 1;
		struct pollfd pf = { .fd = cg->events_fd, .events = POLLPRI };

		if (n > 0) {
			buf[n] = 0;
			otons_events_value(buf, "populated", &populated);
		}
		if (!populated)
			break;
		kill_rest(cg);
		/* cgroup.events signals a change of "populated" with POLLPRI. */
		poll(&pf, 1, 10);
	}
	oom = events_value(cg->mem_events, "oom_kill");
	pmax = events_value(cg->pids_events, "max");
	if (oom)
		warnx("the session's cgroup ran out of memory: the OOM killer killed %llu "
		      "process%s (memory.events oom_kill)",
		      oom, oom == 1 ? "" : "es");
	if (pmax)
		warnx("the session's cgroup refused %llu fork%s at pids.max (pids.events max)",
		      pmax, pmax == 1 ? "" : "s");
	for (int tries = 0;; tries++) {
		if (unlinkat(cg->dirfd, cg->name, AT_REMOVEDIR) == 0)
			break;
		/* EBUSY while the kernel finishes with the last exits. */
		if (errno != EBUSY || tries == 100) {
			log_msg(LOG_WARN, errno, "unable to remove the cgroup %s/%s", cg->dir,
				cg->name);
			break;
		}
		usleep(10000);
	}
	close_fd(&cg->kill_fd);
	close_fd(&cg->events_fd);
	close_fd(&cg->mem_events);
	close_fd(&cg->pids_events);
	close_fd(&cg->dirfd);
	cg->on = 0;
}
