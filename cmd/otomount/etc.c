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
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

static void xplan_text(struct view_state *v, const char *dst, size_t len, char *buf)
{
	if (!len)
		die(EXIT_SYS, ENAMETOOLONG, "unable to generate %s", dst);
	xplan_add(&v->plan, P_FILE, dst, buf, len, 0644);
}

static char *xalloc(size_t n, const char *what)
{
	char *p = malloc(n);

	if (!p)
		die(EXIT_SYS, errno, "unable to generate %s: out of memory", what);
	return p;
}

static char *xetc_path(const char *name)
{
	char *p;

	if (asprintf(&p, "/etc/%s", name) < 0)
		die(EXIT_SYS, errno, "unable to plan /etc/%s: out of memory", name);
	return p;
}

/*
 * One host entry: a copy, a read-only bind, or the same symlink. Absent or
 * unreadable to us (a root-only file): it stays out of the view. One lookup
 * per entry, whatever its type, and no symlink followed.
 */
static void xetc_entry(struct view_state *v, int etc, const char *name)
{
	const unsigned long long res =
	    RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	int fd = sys_openat2(etc, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, res);
	struct stat st;

	if (fd < 0 && errno == ELOOP) {
		/* The last component is a symlink: recreate it as it is. */
		char t[PATH_MAX];
		ssize_t n;
		char *link;

		fd = sys_openat2(etc, name, O_PATH | O_NOFOLLOW, res);
		n = fd < 0 ? -1 : readlinkat(fd, "", t, sizeof(t) - 1);
		link = n < 0 ? NULL : strndup(t, (size_t)n);
		if (link)
			xplan_add(&v->plan, P_LINK, xetc_path(name), link, (size_t)n, 0);
	} else if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		int tree = mnt_clone(fd, "", MNT_RO | MOUNT_ATTR_NOEXEC);
		char *path = xetc_path(name);

		if (tree < 0)
			die(EXIT_SYS, errno, "unable to bind %s on %s (open_tree)", path, path);
		xplan_tree(&v->plan, path, tree, 1, path);
	} else if (fd >= 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= ETC_COPY_MAX) {
		/* Copied at build time from this fd: what was checked is what is copied. */
		struct plan_entry *e = xplan_add(&v->plan, P_FILE, xetc_path(name), NULL,
						 (size_t)st.st_size, st.st_mode & 0755);

		e->src_fd = fd;
		return;
	}
	if (fd >= 0)
		close(fd);
}

/*
 * Each allowed entry takes an inode, and one more for its directory at most
 * (default/locale); then the generated files and the root. Checked here, not
 * by a test: an entry the test machine lacks takes none there.
 */
#define ETC_INODES 256
#define STR_(x)	   #x
#define STR(x)	   STR_(x)
_Static_assert(2 * (sizeof(ETC_ALLOW) / sizeof(ETC_ALLOW[0])) + 8 <= ETC_INODES,
	       "ETC_INODES too small for ETC_ALLOW");

void xetc_prepare(struct view_state *v, const struct otomount_opts *o)
{
	const char *opts[] = { "source",	"tmpfs", "size", "64m", "nr_inodes",
			       STR(ETC_INODES), "mode",	 "0755", NULL };
	int etc = host_open("/etc", O_PATH | O_DIRECTORY | O_NOFOLLOW);
	int tmpfs = mnt_fs("tmpfs", opts, MNT_RW);
	char *buf;
	struct stat st;

	if (etc < 0)
		die(EXIT_SYS, errno, "unable to open /etc");
	if (tmpfs < 0)
		die(EXIT_SYS, errno, "unable to make a tmpfs for /etc");
	xplan_tree(&v->plan, "/etc", tmpfs, 1, "a tmpfs");
	v->ro_later[v->n_ro_later++] = tmpfs;
	for (const char *const *p = ETC_ALLOW; *p; p++)
		xetc_entry(v, etc, *p);
	/* Host private keys live under ssl/: they never enter the view. */
	if (fstatat(etc, "ssl/private", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		xplan_add(&v->plan, P_MASK, "/etc/ssl/private", NULL, 0, 0);
	close(etc);

	buf = xalloc(1024, "/etc/passwd");
	xplan_text(v, "/etc/passwd",
		   etc_passwd(buf, 1024, o->user_name, getuid(), getgid(), o->home), buf);
	buf = xalloc(512, "/etc/group");
	xplan_text(v, "/etc/group", etc_group(buf, 512, o->user_name, getgid()), buf);
	buf = xalloc(128, "/etc/hostname");
	snprintf(buf, 128, "%s\n", v->hostname);
	xplan_text(v, "/etc/hostname", strlen(buf), buf);
	buf = xalloc(512, "/etc/hosts");
	xplan_text(v, "/etc/hosts", etc_hosts(buf, 512, v->hostname), buf);
	{
		unsigned char rnd[16];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			die(EXIT_SYS, errno, "unable to draw a machine-id");
		buf = xalloc(64, "/etc/machine-id");
		xplan_text(v, "/etc/machine-id", etc_machine_id(buf, 64, rnd), buf);
	}
	xplan_add(&v->plan, P_FILE, "/etc/resolv.conf", v->resolv, v->resolv_len, 0644);
}
