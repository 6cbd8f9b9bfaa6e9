/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oto.h"

int user_lookup(const char *spec, uid_t *uid, gid_t *gid)
{
	char user[256], group[256];
	const char *colon = strchr(spec, ':');
	struct passwd *pw = NULL;
	unsigned int id;

	if (colon) {
		if (opt_split2(spec, user, sizeof(user), group, sizeof(group)) < 0)
			return -1;
	} else {
		if (!*spec || strlen(spec) >= sizeof(user)) {
			errno = EINVAL;
			return -1;
		}
		strcpy(user, spec);
		group[0] = 0;
	}
	if (opt_id(user, &id) == 0) {
		*uid = id;
		pw = getpwuid(id);
		*gid = pw ? pw->pw_gid : id;
	} else {
		errno = 0;
		pw = getpwnam(user);
		if (!pw) {
			errno = ENOENT;
			return -1;
		}
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
	}
	if (group[0]) {
		struct group *gr;

		if (opt_id(group, &id) == 0) {
			*gid = id;
		} else if ((gr = getgrnam(group))) {
			*gid = gr->gr_gid;
		} else {
			errno = ENOENT;
			return -1;
		}
	}
	/* Becoming root again would defeat the point of --as. */
	if (*uid == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int user_become(uid_t uid, gid_t gid)
{
	/* Groups first, then gid, then uid: after setuid there is no power left for them. */
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return -1;
	/*
	 * The id switch made us non-dumpable, which makes /proc/self owned by root:
	 * we could no longer write our own uid_map in the user namespace we make next.
	 */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

void xuser_drop_root(const char *as)
{
	uid_t uid;
	gid_t gid;

	if (getuid() != 0 && geteuid() != 0)
		return;
	if (!as)
		die_usage("run as root: --as USER[:GROUP] names the unprivileged account to use");
	/* user_lookup refuses uid 0 itself: --as root is no way around this. */
	if (user_lookup(as, &uid, &gid) < 0)
		die_usage("--as %s: no such unprivileged user or group", as);
	if (user_become(uid, gid) < 0)
		die(EXIT_SYS, errno, "unable to become %s", as);
}
