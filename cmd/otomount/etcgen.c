/* SPDX-License-Identifier: ISC */
/* The generated /etc files: the agent's user and root, nothing of the host's. Pure. */
#include <stdio.h>

#include "otomount.h"

size_t etc_passwd(char *buf, size_t size, const char *user, uid_t uid, gid_t gid, const char *home)
{
	int n;

	if (uid == 0)
		n = snprintf(buf, size, "root:x:0:%u:root:%s:/bin/sh\n", (unsigned)gid, home);
	else
		n = snprintf(buf, size, "root:x:0:0:root:/root:/bin/sh\n%s:x:%u:%u:%s:%s:/bin/sh\n",
			     user, (unsigned)uid, (unsigned)gid, user, home);
	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

size_t etc_group(char *buf, size_t size, const char *user, gid_t gid)
{
	int n;

	if (gid == 0)
		n = snprintf(buf, size, "root:x:0:\n");
	else
		n = snprintf(buf, size, "root:x:0:\n%s:x:%u:\n", user, (unsigned)gid);
	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

size_t etc_hosts(char *buf, size_t size, const char *hostname)
{
	int n = snprintf(buf, size,
			 "127.0.0.1\tlocalhost\n127.0.1.1\t%s\n"
			 "::1\tlocalhost ip6-localhost ip6-loopback\n"
			 "ff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n",
			 hostname);

	return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

/*
 * A machine-id of the view's own: 32 lowercase hex digits of rnd (16 random
 * bytes), as systemd writes it. Programs that want one (D-Bus, Chromium,
 * journald clients) get one; none of them learns the host's, and two
 * sessions never share one.
 */
size_t etc_machine_id(char *buf, size_t size, const unsigned char rnd[16])
{
	static const char HEX[] = "0123456789abcdef";

	if (size < 34)
		return 0;
	for (int i = 0; i < 16; i++) {
		buf[2 * i] = HEX[rnd[i] >> 4];
		buf[2 * i + 1] = HEX[rnd[i] & 15];
	}
	buf[32] = '\n';
	buf[33] = 0;
	return 33;
}
