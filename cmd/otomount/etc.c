/* SPDX-License-Identifier: ISC */
/*
 * /etc in the view: a tmpfs holding an allowlist of the host's entries that
 * programs need, and generated passwd, group, hostname, hosts, resolv.conf,
 * machine-id (random, the view's own). Nothing else of the host: no shadow,
 * sudoers, ssh (host keys, their public halves: the host's identity),
 * machine-id, ld.so.preload, environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oto.h"
#include "otomount.h"

/* Small regular files are copied (fewer mounts), directories bound read-only. */
#define ETC_COPY_MAX (1UL << 20)

static const char *const ETC_ALLOW[] = {
	/* the dynamic linker, name service, time */
	"ld.so.cache",
	"ld.so.conf",
	"ld.so.conf.d",
	"ld-musl-x86_64.path",
	"nsswitch.conf",
	"host.conf",
	"gai.conf",
	"protocols",
	"services",
	"networks",
	"ethertypes",
	"rpc",
	"localtime",
	"timezone",
	"locale.alias",
	"locale.conf",
	"locale.gen",
	"default/locale",
	/* TLS */
	"ssl",
	"ca-certificates",
	"ca-certificates.conf",
	"pki",
	"crypto-policies",
	/* the system and its shells */
	"alternatives",
	"os-release",
	"debian_version",
	"lsb-release",
	"issue",
	"shells",
	"profile",
	"profile.d",
	"bash.bashrc",
	"inputrc",
	"terminfo",
	"mtab",
	"magic",
	"magic.mime",
	"mime.types",
	"mailcap",
	"manpath.config",
	"xattr.conf",
	/* toolchains */
	"gitconfig",
	"vim",
	"nanorc",
	"wgetrc",
	"pip.conf",
	"npmrc",
	"perl",
	"python3",
	"python3.11",
	"python3.12",
	"python3.13",
	"maven",
	"java-17-openjdk",
	"java-21-openjdk",
	"gdb",
	"fpc.cfg",
	"fpc-3.2.2.cfg",
	"subversion",
	"mercurial",
	"gnutls",
	"krb5.conf",
	/* shells and terminals */
	"bash_completion",
	"bash_completion.d",
	"zsh",
	"tmux.conf",
	"screenrc",
	/* fonts, desktop and document formats, for headless toolkits and browsers */
	"fonts",
	"xdg",
	"X11",
	"gtk-2.0",
	"gtk-3.0",
	"glvnd",
	"vulkan",
	"xml",
	"sgml",
	"ImageMagick-6",
	"ImageMagick-7",
	"chromium",
	"chromium.d",
	NULL,
};

/*
 * The work on /etc runs in a thread of its own, beside the rest of the
 * preparation and the build (on another CPU: a large part of otomount's
 * time). It looks up the host's entries beneath the host's /etc
 * fd, writes the copies, links and generated files straight into the
 * detached tmpfs through its fd, and clones the directories, each with its
 * mount point made and opened in the tmpfs; build.c attaches each clone on
 * its mount point's fd after the join (P_ETC in the plan), after the tmpfs
 * itself, with no path looked up again.
 * At the join the main thread takes the entries left too, instead of
 * waiting: the clones are then made in no fixed order (their mount ids, and
 * so their order in mountinfo, vary), and attached in ETC_ALLOW's order.
 */
#define ETC_DIRS ARRAY_SIZE(ETC_ALLOW)

struct etc_job {
	pthread_t thread;
	int host;  /* the host's /etc (O_PATH) */
	int tmpfs; /* the view's /etc: the detached tmpfs, a directory fd */
	const struct view_state *v;
	const struct otomount_opts *o;
	/* By ETC_ALLOW's index: attached in that order, whoever cloned them. */
	struct etc_tree dirs[ETC_DIRS];
	atomic_size_t next; /* the next ETC_ALLOW entry to take */
	int ssl_private;    /* the host has ssl/private: masked at the join */
};

static char *xetc_path(const char *name)
{
	char *p;

	if (asprintf(&p, "/etc/%s", name) < 0)
		die(EXIT_SYS, errno, "unable to plan /etc/%s: out of memory", name);
	return p;
}

/* The directory in the tmpfs that holds name (default/locale: default). */
static int etc_dir_of(struct etc_job *j, const char *name, const char **base)
{
	const char *slash = strrchr(name, '/');
	char dir[64];

	*base = slash ? slash + 1 : name;
	if (!slash)
		return j->tmpfs;
	if ((size_t)(slash - name) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, name, (size_t)(slash - name));
	dir[slash - name] = 0;
	if (mkdirat(j->tmpfs, dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return sys_openat2(j->tmpfs, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
			   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
}

static void etc_dir_done(struct etc_job *j, int dir)
{
	if (dir >= 0 && dir != j->tmpfs)
		close(dir);
}

/* A file of the view's /etc, from a host fd (copied in the kernel) or from data. */
static void xetc_write(struct etc_job *j, const char *name, int src, const char *data, size_t len,
		       mode_t mode)
{
	const char *base;
	int dir = etc_dir_of(j, name, &base);
	int fd =
	    dir < 0 ? -1
		    : openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	debugx("file /etc/%s", name);
	if (fd < 0)
		die(EXIT_SYS, errno, "unable to create /etc/%s", name);
	etc_dir_done(j, dir);
	if (src >= 0) {
		size_t left = len;
		ssize_t n;

		while (left && (n = sendfile(fd, src, NULL, left)) > 0)
			left -= (size_t)n;
		if (left)
			die(EXIT_SYS, left == len ? errno : EIO, "unable to copy /etc/%s", name);
	} else if (write(fd, data, len) != (ssize_t)len) {
		die(EXIT_SYS, errno, "unable to write /etc/%s", name);
	}
	close(fd);
}

static void xetc_text(struct etc_job *j, const char *name, const char *buf, size_t len)
{
	if (!len)
		die(EXIT_SYS, ENAMETOOLONG, "unable to generate /etc/%s", name);
	xetc_write(j, name, -1, buf, len, 0644);
}

/*
 * One host entry: a copy, a read-only bind, or the same symlink. Absent or
 * unreadable to us (a root-only file): it stays out of the view. One lookup
 * per entry, whatever its type, and no symlink followed; what was checked
 * is what is copied (the same fd).
 */
static void xetc_entry(struct etc_job *j, size_t idx)
{
	const char *name = ETC_ALLOW[idx];
	const unsigned long long res =
	    RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	int fd = sys_openat2(j->host, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, res);
	struct stat st;

	if (fd < 0 && errno == ELOOP) {
		/* The last component is a symlink: recreate it as it is. */
		char t[PATH_MAX];
		const char *base;
		ssize_t n;
		int dir;

		fd = sys_openat2(j->host, name, O_PATH | O_NOFOLLOW, res);
		n = fd < 0 ? -1 : readlinkat(fd, "", t, sizeof(t) - 1);
		if (n >= 0) {
			t[n] = 0;
			debugx("symlink /etc/%s", name);
			dir = etc_dir_of(j, name, &base);
			if (dir < 0 || symlinkat(t, dir, base) < 0)
				die(EXIT_SYS, errno, "unable to make the symlink /etc/%s", name);
			etc_dir_done(j, dir);
		}
	} else if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		int tree = mnt_clone(fd, "", MNT_RO | MOUNT_ATTR_NOEXEC);
		char *path = xetc_path(name);
		const char *base;
		int dir, at = -1;

		if (tree < 0)
			die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", path, path);
		/*
		 * Its mount point too, in the tmpfs (ours, no host tree), and
		 * opened here: the build attaches the clone on this fd, with no
		 * lookup of its own, once the tmpfs is /etc.
		 */
		dir = etc_dir_of(j, name, &base);
		if (dir >= 0 && mkdirat(dir, base, 0755) == 0)
			at = openat(dir, base, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (at < 0)
			die(EXIT_SYS, errno, "unable to make the mount point %s", path);
		etc_dir_done(j, dir);
		j->dirs[idx].dst = path;
		j->dirs[idx].tree = tree;
		j->dirs[idx].at = at;
	} else if (fd >= 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= ETC_COPY_MAX) {
		xetc_write(j, name, fd, NULL, (size_t)st.st_size, st.st_mode & 0755);
	}
	if (fd >= 0)
		close(fd);
}

static void xetc_generate(struct etc_job *j)
{
	const struct otomount_opts *o = j->o;
	unsigned char rnd[16];
	char buf[1024];

	xetc_text(j, "passwd", buf,
		  etc_passwd(buf, sizeof(buf), o->user_name, getuid(), getgid(), o->home));
	xetc_text(j, "group", buf, etc_group(buf, sizeof(buf), o->user_name, getgid()));
	snprintf(buf, sizeof(buf), "%s\n", j->v->hostname);
	xetc_text(j, "hostname", buf, strlen(buf));
	xetc_text(j, "hosts", buf, etc_hosts(buf, sizeof(buf), j->v->hostname));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		die(EXIT_SYS, errno, "unable to draw a machine-id");
	xetc_text(j, "machine-id", buf, etc_machine_id(buf, sizeof(buf), rnd));
	xetc_write(j, "resolv.conf", -1, j->v->resolv, j->v->resolv_len, 0644);
	/*
	 * A rename onto a protected file fails with EBUSY, not EROFS (it is a
	 * mount point), and no errno says why: one line the agent can find.
	 */
	xetc_text(j, "oto-protected", ETC_PROTECTED, sizeof(ETC_PROTECTED) - 1);
}

/*
 * The allowed entries, taken one at a time by whoever is free: the thread,
 * and the main thread too once it reaches the join, where it would
 * otherwise wait. Each entry writes its own
 * names, and its own slot of dirs.
 */
static void xetc_take(struct etc_job *j)
{
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < ETC_DIRS - 1)
		xetc_entry(j, i);
}

static void *xetc_fill(void *arg)
{
	struct etc_job *j = arg;
	struct stat st;

	xetc_generate(j);
	/* Host private keys live under ssl/: they never enter the view. */
	j->ssl_private =
	    fstatat(j->host, "ssl/private", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	xetc_take(j);
	return NULL;
}

/*
 * Each allowed entry takes an inode, and one more for its directory at most
 * (default/locale); then the generated files and the root. Checked here, not
 * by a test: an entry the test machine lacks takes none there.
 */
#define ETC_INODES 256
_Static_assert(2 * ARRAY_SIZE(ETC_ALLOW) + 8 <= ETC_INODES, "ETC_INODES too small for ETC_ALLOW");

void xetc_start(struct view_state *v, const struct otomount_opts *o)
{
	const char *opts[] = { "source",	"tmpfs", "size", "64m", "nr_inodes",
			       STR(ETC_INODES), "mode",	 "0755", NULL };
	static struct etc_job job;
	struct etc_job *j = &job;
	int tmpfs, e;

	j->v = v;
	j->o = o;
	for (size_t i = 0; i < ETC_DIRS; i++)
		j->dirs[i].tree = j->dirs[i].at = -1;
	atomic_init(&j->next, 0);
	j->host = host_open("/etc", O_PATH | O_DIRECTORY | O_NOFOLLOW);
	if (j->host < 0)
		die(EXIT_SYS, errno, "unable to open /etc");
	tmpfs = mnt_fs("tmpfs", opts, MNT_RW);
	if (tmpfs < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for /etc");
	/* The mount's fd is O_PATH: a directory fd to create in. */
	j->tmpfs = openat(tmpfs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->tmpfs < 0)
		die(EXIT_SYS, errno, "unable to open the tmpfs for /etc");
	xplan_tree(&v->plan, "/etc", tmpfs, 1, "a tmpfs");
	v->ro_later[v->n_ro_later++] = tmpfs;
	e = pthread_create(&j->thread, NULL, xetc_fill, j);
	if (e)
		die(EXIT_SYS, e, "unable to start the thread that fills /etc");
	v->etc = j;
}

void xetc_join(struct view_state *v, struct etc_trees *out)
{
	struct etc_job *j = v->etc;
	int e;

	xetc_take(j);
	e = pthread_join(j->thread, NULL);
	if (e)
		die(EXIT_SYS, e, "unable to wait for the thread that fills /etc");
	close(j->host);
	close(j->tmpfs);
	out->dirs = j->dirs;
	out->n = ETC_DIRS;
	out->mask = j->ssl_private ? "/etc/ssl/private" : NULL;
}
