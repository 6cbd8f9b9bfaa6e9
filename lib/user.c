/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oto.h"

/*
 * Accounts are read from /etc/passwd and /etc/group themselves, never
 * through NSS: a static glibc's getpwnam loads NSS modules from the shared
 * libc at run time (and crashes when their version differs), and a stage
 * that runs as root should not load code named by the host's nsswitch.conf.
 */
static int find_passwd(const char *name, uid_t uid, struct passwd *out)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	int found = 0;

	if (!f)
		return -1;
	while (!found && (pw = fgetpwent(f)))
		if (name ? !strcmp(pw->pw_name, name) : pw->pw_uid == uid) {
			*out = *pw;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

static int find_group(const char *name, gid_t *gid)
{
	FILE *f = fopen("/etc/group", "re");
	struct group *gr;
	int found = 0;

	if (!f)
		return -1;
	while (!found && (gr = fgetgrent(f)))
		if (!strcmp(gr->gr_name, name)) {
			*gid = gr->gr_gid;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

int user_lookup(const char *spec, uid_t *uid, gid_t *gid)
{
	char user[256], group[256];
	const char *colon = strchr(spec, ':');
	struct passwd pw;
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
		/* A number need not be in passwd: its group is then the same number. */
		*gid = find_passwd(NULL, id, &pw) == 0 ? pw.pw_gid : id;
	} else if (find_passwd(user, 0, &pw) == 0) {
		*uid = pw.pw_uid;
		*gid = pw.pw_gid;
	} else {
		errno = ENOENT;
		return -1;
	}
	if (group[0] && opt_id(group, &id) == 0)
		*gid = id;
	else if (group[0] && find_group(group, gid) < 0) {
		errno = ENOENT;
		return -1;
	}
	/* Becoming root again would defeat the point of --as. */
	if (*uid == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd pw;

	if (find_passwd(NULL, uid, &pw) < 0 || strlen(pw.pw_name) >= size) {
		errno = ENOENT;
		return -1;
	}
	strcpy(buf, pw.pw_name);
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
