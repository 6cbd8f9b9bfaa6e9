/* SPDX-License-Identifier: ISC */
/* Checks of the process's own state: fds, /proc/self, the view, the environment. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "oto.h"
#include "otoprobe.h"

extern char **environ;

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* At most this much of a /proc file: mountinfo with many thousand mounts. */
#define SLURP_MAX (16UL << 20)

/* Read a /proc file whole, NUL-terminated; NULL with errno on failure. The caller frees. */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	size_t n;
	char *buf = fd < 0 ? NULL : fd_read_whole(fd, SLURP_MAX, &n);

	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return buf;
}

/* A growing, bounded string for a row's detail. */
struct list {
	char buf[2048];
	size_t len;
	size_t count;
	int full;
};

static void list_add(struct list *l, const char *s)
{
	size_t n = strlen(s);

	l->count++;
	if (l->full)
		return;
	if (l->len + n + 6 >= sizeof(l->buf)) {
		memcpy(l->buf + l->len, " ...", 5);
		l->full = 1;
		return;
	}
	if (l->len)
		l->buf[l->len++] = ' ';
	memcpy(l->buf + l->len, s, n + 1);
	l->len += n;
}

int check_fds(struct report *rep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int found = 0;
	char path[64], target[PATH_MAX], name[32];

	/* Without /proc the rest cannot be judged either: the probe cannot run. */
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		ssize_t n;

		if (*end || end == de->d_name || fd <= 2 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			n = snprintf(target, sizeof(target), "? (%s)", strerror(errno));
		target[n] = 0;
		snprintf(name, sizeof(name), "fd %ld", fd);
		report_add(rep, name, V_GAP, "open: %s", target);
		found = 1;
	}
	closedir(d);
	if (!found)
		report_add(rep, "fds", V_OK, "only 0, 1 and 2 are open");
	return 0;
}

int check_status(struct report *rep)
{
	static const char *const SETS[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	char *st = slurp("/proc/self/status");
	char val[64];
	struct list held = { .len = 0 };
	unsigned long long mask;

	if (!st)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(SETS); i++) {
		char item[96];

		if (status_field(st, SETS[i], val, sizeof(val)) < 0) {
			snprintf(item, sizeof(item), "%s=unknown", SETS[i]);
			list_add(&held, item);
			continue;
		}
		errno = 0;
		mask = strtoull(val, NULL, 16);
		if (mask || errno) {
			snprintf(item, sizeof(item), "%s=%s", SETS[i], val);
			list_add(&held, item);
		}
	}
	if (held.count)
		report_add(rep, "capabilities", V_GAP, "held: %s", held.buf);
	else
		report_add(
		    rep, "capabilities", V_OK,
		    "none in any set (inheritable, permitted, effective, bounding, ambient)");

	if (status_field(st, "NoNewPrivs", val, sizeof(val)) < 0)
		report_add(rep, "no_new_privs", V_GAP, "unknown: no NoNewPrivs line");
	else
		report_add(rep, "no_new_privs", !strcmp(val, "1") ? V_OK : V_GAP, "%s", val);

	if (status_field(st, "Seccomp", val, sizeof(val)) < 0) {
		report_add(rep, "seccomp", V_GAP, "unknown: no Seccomp line");
	} else if (!strcmp(val, "2")) {
		char nf[32] = "?";

		status_field(st, "Seccomp_filters", nf, sizeof(nf));
		report_add(rep, "seccomp", V_OK, "2 (filter mode, %s filters)", nf);
	} else {
		report_add(rep, "seccomp", V_GAP, "%s (%s)", val,
			   !strcmp(val, "0") ? "no filter" : "not filter mode");
	}
	free(st);
	return 0;
}

int ns_inode(int ns, unsigned long *ino)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", NS_NAMES[ns]);
	if (stat(path, &sb) < 0)
		return -1;
	*ino = (unsigned long)sb.st_ino;
	return 0;
}

void check_namespaces(struct report *rep, const struct otoprobe_opts *o)
{
	char name[32];
	unsigned long ino;

	for (int i = 0; i < NS_COUNT; i++) {
		snprintf(name, sizeof(name), "ns %s", NS_NAMES[i]);
		if (ns_inode(i, &ino) < 0)
			report_add(rep, name, o->have_host_ns[i] ? V_GAP : V_INFO,
				   "unknown: /proc/self/ns/%s: %s", NS_NAMES[i], strerror(errno));
		else if (o->have_host_ns[i] && ino == o->host_ns[i])
			report_add(rep, name, V_GAP, "%lu: the launcher's own namespace", ino);
		else if (ns_is_initial(i, ino))
			report_add(rep, name, V_GAP, "%lu: the host's initial namespace", ino);
		else if (o->have_host_ns[i])
			report_add(rep, name, V_OK, "%lu (launcher's %lu)", ino, o->host_ns[i]);
		else
			report_add(rep, name, V_INFO,
				   "%lu (not the initial one; no --host-ns to compare with)", ino);
	}
}

void check_uidmap(struct report *rep)
{
	char *map = slurp("/proc/self/uid_map");
	struct list l = { .len = 0 };
	char *line, *save = NULL;
	enum verdict v;

	if (!map) {
		report_add(rep, "uid_map", V_GAP, "unknown: /proc/self/uid_map: %s",
			   strerror(errno));
		return;
	}
	v = uidmap_verdict(map);
	for (line = strtok_r(map, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char a[16], b[16], c[16], item[64];

		if (sscanf(line, "%15s %15s %15s", a, b, c) == 3) {
			snprintf(item, sizeof(item), "%s->%s(%s)", a, b, c);
			list_add(&l, item);
		}
	}
	report_add(rep, "uid_map", v, "uid %u; inside->outside(count): %s%s", (unsigned)getuid(),
		   l.buf, v == V_OK ? "" : " (the initial namespace, or outer root mapped)");
	free(map);
}

void check_mounts(struct report *rep)
{
	char *mi = slurp("/proc/self/mountinfo");
	struct list rw = { .len = 0 };
	struct mountinfo_ent e;
	size_t total = 0;
	char *line, *save = NULL;

	if (!mi) {
		report_add(rep, "mounts", V_INFO, "unknown: /proc/self/mountinfo: %s",
			   strerror(errno));
		return;
	}
	for (line = strtok_r(mi, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (mountinfo_parse(line, &e) < 0)
			continue;
		total++;
		if (e.writable) {
			char item[PATH_MAX + 32];

			snprintf(item, sizeof(item), "%s(%s)", e.mountpoint, e.fstype);
			list_add(&rw, item);
		}
	}
	report_add(rep, "mounts", V_INFO, "%zu mounts, %zu writable: %s", total, rw.count,
		   rw.count ? rw.buf : "none");
	free(mi);
}

/* A directory's entries, skipping "." "..", and skip (may be NULL). -1 with errno. */
static int dir_entries(const char *path, const char *skip, struct list *l)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (skip && !strcmp(de->d_name, skip)))
			continue;
		list_add(l, de->d_name);
	}
	closedir(d);
	return 0;
}

/* A host directory is a gap when it exists with something in it, or unreadable. */
/* path absent or empty, but for skip (NULL: none), which ok then names. */
static void check_dir(struct report *rep, const char *path, const char *skip, const char *ok,
		      const char *why)
{
	char name[PATH_MAX + 8];
	struct list l = { .len = 0 };
	struct stat sb;

	snprintf(name, sizeof(name), "path %s", path);
	if (lstat(path, &sb) < 0) {
		report_add(rep, name, V_OK, "absent");
	} else if (!S_ISDIR(sb.st_mode)) {
		report_add(rep, name, V_GAP, "exists (not a directory): %s", why);
	} else if (dir_entries(path, skip, &l) < 0) {
		report_add(rep, name, V_GAP, "exists, unreadable (%s): %s", strerror(errno), why);
	} else if (l.count) {
		report_add(rep, name, V_GAP, "not empty: %zu (%s): %s", l.count, l.buf, why);
	} else {
		report_add(rep, name, V_OK, "%s", skip ? ok : "empty");
	}
}

static void check_exists(struct report *rep, const char *path, const char *why)
{
	char name[PATH_MAX + 8];
	struct stat sb;

	snprintf(name, sizeof(name), "path %s", path);
	if (lstat(path, &sb) < 0)
		report_add(rep, name, V_OK, "absent");
	else
		report_add(rep, name, V_GAP, "exists: %s", why);
}

/* flags O_RDONLY or O_WRONLY: the open alone, never a read or a write. */
static void check_open(struct report *rep, const char *path, int flags, const char *why)
{
	char name[PATH_MAX + 8];
	const char *how = flags == O_RDONLY ? "readable" : "writable";
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);

	snprintf(name, sizeof(name), "path %s", path);
	if (fd >= 0) {
		close(fd);
		report_add(rep, name, V_GAP, "%s: %s", how, why);
	} else if (errno == ENOENT) {
		report_add(rep, name, V_OK, "absent");
	} else {
		report_add(rep, name, V_OK, "not %s (%s)", how, strerror(errno));
	}
}

void check_paths(struct report *rep)
{
	const char *home = getenv("HOME"), *why = getenv("OTO_WHY");
	const char *own = NULL;
	char path[PATH_MAX];

	/* The agent's own /home/NAME is its home; anyone else's is the host's. */
	if (home && !strncmp(home, "/home/", 6) && home[6] && !strchr(home + 6, '/'))
		own = home + 6;
	check_dir(rep, "/root", NULL, NULL, "the host's root home");
	check_dir(rep, "/home", own, "only the agent's own home", "other users' homes");
	/* otomount's file of the agent's refusals (OTO_WHY) is all /run may hold. */
	if (why && !strcmp(why, "/run/oto/why")) {
		check_dir(rep, "/run", "oto", "only the agent's file of refusals",
			  "the host's runtime state and sockets");
		check_dir(rep, "/run/oto", "why", "only the agent's file of refusals",
			  "the host's runtime state and sockets");
	} else {
		check_dir(rep, "/run", NULL, NULL, "the host's runtime state and sockets");
	}
	check_dir(rep, "/sys", NULL, NULL, "the host's sysfs");
	check_exists(rep, "/var/run/docker.sock", "the Docker socket (root on the host)");
	check_exists(rep, "/run/docker.sock", "the Docker socket (root on the host)");
	check_exists(rep, "/run/containerd/containerd.sock", "the containerd socket");
	check_exists(rep, "/run/podman/podman.sock", "the Podman socket");
	check_open(rep, "/etc/shadow", O_RDONLY, "password hashes");
	check_dir(rep, "/etc/ssh", NULL, NULL, "the host's ssh configuration and keys");
	check_open(rep, "/proc/kcore", O_RDONLY, "kernel memory");
	check_open(rep, "/proc/sysrq-trigger", O_WRONLY, "reboot, crash or kill the host");
	/* core_pattern runs a program as root on the host at the next crash. */
	check_open(rep, "/proc/sys/kernel/core_pattern", O_WRONLY, "/proc/sys is writable");
	if (!home || *home != '/') {
		report_add(rep, "path ~", V_INFO,
			   "HOME is unset: no credential directories to look for");
		return;
	}
	static const char *const CRED_DIRS[] = { ".ssh",   ".aws",	     ".kube", ".docker",
						 ".gnupg", ".config/gcloud", ".netrc" };
	for (size_t i = 0; i < ARRAY_SIZE(CRED_DIRS); i++) {
		snprintf(path, sizeof(path), "%s/%s", strcmp(home, "/") ? home : "", CRED_DIRS[i]);
		check_exists(rep, path, "credentials from a home directory");
	}
}

void check_env(struct report *rep)
{
	struct list l = { .len = 0 };
	char name[256];

	/* Names only: the values are what must never be printed. */
	for (char **e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, *e, n);
		name[n] = 0;
		if (env_name_is_secret(name))
			list_add(&l, name);
	}
	report_add(rep, "env", V_INFO, "%zu credential-like names%s%s", l.count,
		   l.count ? ": " : "", l.buf);
}

/*
 * The limits of the cgroup at /sys/fs/cgroup, as the sandbox sees it (a
 * cgroup v2 mounted inside otons --cgroup's cgroup namespace shows the
 * session's leaf there): information, not a verdict, since a session may
 * rightly run without one.
 */
void check_cgroup(struct report *rep)
{
	static const char *const FILES[] = { "memory.max", "memory.swap.max", "pids.max",
					     "cpu.max" };
	struct statfs sf;
	struct list l = { .len = 0 };

	if (statfs("/sys/fs/cgroup", &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		report_add(rep, "cgroup limits", V_INFO,
			   "none visible: no cgroup v2 at /sys/fs/cgroup");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(FILES); i++) {
		char path[64], val[64], item[96];
		int fd;
		ssize_t n;

		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", FILES[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, val, sizeof(val) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0) {
			snprintf(item, sizeof(item), "%s=none", FILES[i]);
		} else {
			val[n] = 0;
			val[strcspn(val, "\n")] = 0;
			/* cpu.max is "QUOTA PERIOD": one word in the list. */
			for (char *p = val; *p; p++)
				if (*p == ' ')
					*p = '/';
			snprintf(item, sizeof(item), "%s=%s", FILES[i], val);
		}
		list_add(&l, item);
	}
	report_add(rep, "cgroup limits", V_INFO, "%s", l.buf);
}
