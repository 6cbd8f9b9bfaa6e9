/* SPDX-License-Identifier: ISC */
/*
 * pid 1 of the sandbox, once the program is forked: what the agent can read
 * of it (/proc/1/cmdline, environ, comm, status, mountinfo) shows nothing of
 * the chain or of the host. Its arguments and environment are otons' own
 * command line, every later stage's options included (paths, endpoints,
 * --env values): wiped, and a fixed name in their place. Its mount
 * namespace still holds the host's tree: it moves to one of its own with an
 * empty root, where /proc/1/mountinfo shows one read-only tmpfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "oto.h"
#include "otons.h"

/*
 * The kernel's record of where the arguments and the environment are
 * (/proc/self/stat fields 48 to 51): 0, or -1 with errno.
 */
static int arg_env_bounds(unsigned long b[4])
{
	char buf[2048], *p;

	if (file_read_at(AT_FDCWD, "/proc/self/stat", buf, sizeof(buf)) < 0)
		return -1;
	/* The name (field 2) may hold anything but ends at the last ")". */
	p = strrchr(buf, ')');
	if (!p)
		goto bad;
	p++;
	for (int field = 3; field < 48; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			goto bad;
	}
	if (sscanf(p, " %lu %lu %lu %lu", &b[0], &b[1], &b[2], &b[3]) != 4 || b[0] >= b[1] ||
	    b[2] > b[3])
		goto bad;
	return 0;
bad:
	errno = EPROTO;
	return -1;
}

/* A copy of v (n strings and the NULL), out of the area about to be wiped. */
static char **xstrv_copy(char *const *v)
{
	size_t n = 0;
	char **c;

	while (v[n])
		n++;
	c = calloc(n + 1, sizeof(*c));
	if (!c)
		die(EXIT_SYS, ENOMEM, "pid 1: unable to keep the program's arguments");
	for (size_t i = 0; i < n; i++)
		if (!(c[i] = strdup(v[i])))
			die(EXIT_SYS, ENOMEM, "pid 1: unable to keep the program's arguments");
	return c;
}

void xinit_wipe(char ***argv)
{
	extern char **environ;
	unsigned long b[4];

	/*
	 * First, before the program exists: otherwise it could read
	 * /proc/1/cmdline before pid 1 gets to it (seen in CI: the chain's
	 * whole command line, once in a run). What the program is given is
	 * copied out of the area first, its environment with it.
	 */
	*argv = xstrv_copy(*argv);
	environ = xstrv_copy(environ);
	/* The messages' name pointed into the area too (log_init's argv[0]). */
	log_prog = "otons";
	if (arg_env_bounds(b) < 0)
		die(EXIT_SYS, errno, "pid 1: unable to find its arguments in /proc/self/stat");
	/*
	 * Wiped to the last byte: with a 0 there, /proc/1/cmdline is the whole
	 * area as it stands, the name and then nothing but 0s.
	 */
	memset((void *)b[0], 0, b[1] - b[0]);
	memset((void *)b[2], 0, b[3] - b[2]);
	memcpy((void *)b[0], OTONS_INIT_NAME,
	       b[1] - b[0] > sizeof(OTONS_INIT_NAME) ? sizeof(OTONS_INIT_NAME) : b[1] - b[0] - 1);
	if (prctl(PR_SET_NAME, OTONS_INIT_NAME, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "pid 1: unable to set its name");
}

void xinit_conceal(int own_mounts)
{
	if (!own_mounts)
		return;
	if (unshare(CLONE_NEWNS) < 0)
		die(EXIT_SYS, errno, "pid 1: unable to leave the host's mount table (unshare)");
	xempty_root("pid 1", OTONS_INIT_NAME);
}
