/* SPDX-License-Identifier: ISC */
/* Namespace names, for otons' options and messages. Pure: no system call, no exit. */
#include <sched.h>
#include <string.h>

#include "otons.h"

static const struct {
	const char *name;
	int flag;
} NAMESPACES[] = {
	{ "user", CLONE_NEWUSER }, { "mnt", CLONE_NEWNS },	  { "mount", CLONE_NEWNS },
	{ "pid", CLONE_NEWPID },   { "ipc", CLONE_NEWIPC },	  { "uts", CLONE_NEWUTS },
	{ "cgroup", CLONE_NEWCGROUP }, { "net", CLONE_NEWNET },
};

int otons_ns_flag(const char *name)
{
	for (size_t i = 0; i < sizeof(NAMESPACES) / sizeof(NAMESPACES[0]); i++)
		if (!strcmp(name, NAMESPACES[i].name))
			return NAMESPACES[i].flag;
	return 0;
}

size_t otons_ns_names(int flags, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(NAMESPACES) / sizeof(NAMESPACES[0]); i++) {
		size_t l = strlen(NAMESPACES[i].name);

		/* "mount" is another name for mnt: each namespace once. */
		if (!(flags & NAMESPACES[i].flag) || !strcmp(NAMESPACES[i].name, "mount"))
			continue;
		if (n + !!n + l >= size)
			return 0;
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, NAMESPACES[i].name, l + 1);
		n += l;
	}
	return n;
}
