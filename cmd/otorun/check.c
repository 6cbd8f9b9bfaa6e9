/* SPDX-License-Identifier: ISC */
/*
 * What a newcomer meets first, checked before the launch so that each gets
 * one line with its fix: an --as account that does not exist, or a part of
 * the agent tree the role writes that the account cannot write (the agent
 * would meet EACCES in /work, with nothing said outside). Here, because
 * otorun knows the account by name and the tree by its host owners, which
 * otomount, in the user namespace, sees as the overflow uid. Cheap: a passwd
 * lookup and a stat per directory; otomount still opens each for real.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "oto.h"
#include "otorun.h"

/* A part of the tree the role writes, the account's to write: or one line, 101. */
static void xcheck_dir(const char *root, const char *sub, const char *who, uid_t uid, gid_t gid,
		       int writable)
{
	struct stat st;
	char *p, owner[64];

	if (asprintf(&p, "%s/%s", root, sub) < 0)
		xotorun_die(EXIT_SYS, "unable to check the agent tree: out of memory");
	/* A missing part is otomount's to name, with its fix: it opens each. */
	if (!writable || stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	if (st.st_uid == uid || (st.st_mode & 0002) || (st.st_gid == gid && (st.st_mode & 0020)))
		return;
	/* The caller's own: the kernel's answer, its supplementary groups and ACLs counted. */
	if (uid == geteuid() && access(p, W_OK) == 0)
		return;
	/* The account, which the chain gives no supplementary group: an ACL may still let it. */
	if (uid != geteuid() && getxattr(p, "system.posix_acl_access", NULL, 0) > 0)
		return;
	if (user_name(st.st_uid, owner, sizeof(owner)) < 0)
		snprintf(owner, sizeof(owner), "no account");
	xotorun_die(EXIT_REJECT,
		    "unable to let %s (uid %u) write %s: it belongs to %s (uid %u), mode %04o "
		    "(chown -R %s: %s)",
		    shown(who), (unsigned)uid, shown(p), shown(owner), (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777), shown(who), shown(p));
}

void xlaunch_check(const struct otorun_opts *o)
{
	const char *cow = NULL;
	char *who, name[64];
	struct stat st;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int mgr = !strcmp(o->role, "manager"), viewer = !strcmp(o->role, "viewer");

	if (uid == 0 && *o->as) {
		if (user_lookup(o->as, &uid, &gid) < 0 && errno == ENOENT)
			xotorun_die(EXIT_USAGE,
				    "--as %s: no such account (make it: useradd --system "
				    "--no-create-home --shell /usr/sbin/nologin %.*s)",
				    shown(o->as), (int)strcspn(o->as, ":"), shown(o->as));
		if (uid == 0)
			return; /* the stages refuse it, with their reason */
	}
	/* The account as passwd names it (--as 65534 is nobody), else its number. */
	if (user_name(uid, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "%u", (unsigned)uid);
	who = name;
	/* A missing tree is otomount's to name, with its fix: it opens it. */
	if (!*o->root || stat(o->root, &st) < 0)
		return;
	/* With --cow the agent writes a session directory, never these. */
	for (size_t i = 0; i < o->mount.n; i++)
		if (!strncmp(o->mount.v[i], "--cow", 5))
			cow = o->mount.v[i];
	xcheck_dir(o->root, "workspace", who, uid, gid, !viewer && !cow);
	xcheck_dir(o->root, "knowledge", who, uid, gid, mgr && !cow);
	if (mgr)
		xcheck_dir(o->root, "config", who, uid, gid, !cow);
	if (*o->person) {
		char *people;

		if (asprintf(&people, "people/%s", o->person) < 0)
			xotorun_die(EXIT_SYS, "unable to check the agent tree: out of memory");
		xcheck_dir(o->root, people, who, uid, gid, !cow);
	}
}
