/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <unistd.h>

#include "oto.h"

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
