/* SPDX-License-Identifier: ISC */
/*
 * The relay holds host sockets on the agent's behalf, and every byte it
 * parses is the agent's: if a bug in it were ever exploited, the process
 * should be able to do little more than relay. Once it has read all it needs
 * from the host (its addresses, its resolver, the --allow names), it leaves
 * the host's files behind (a new user and mount namespace whose root is an
 * empty read-only tmpfs), holds no capability, sets no_new_privs, is not
 * dumpable, and finally runs under a seccomp allowlist of the calls its loop
 * makes; anything else kills the relay, and with it the sandbox's network
 * (fail closed). It stays in the host's network namespace: its host sockets
 * are what it is for.
 */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"
#include "otonet.h"

void xrelay_confine(void)
{
	xuserns_self("relay");
	xempty_root("relay", "oto-relay");
	xcaps_drop_all("relay");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "relay: unable to set no_new_privs");
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die(EXIT_SYS, errno, "relay: unable to make itself not dumpable");
}

/*
 * The filter: the one the build compiled from seccomp.c, or, in the
 * sanitizer builds (OTO_SAN: the suites' second pass, the hostile test's,
 * the fuzz targets), seccomp.c's compiled here by libseccomp (with the
 * sanitizer runtime's call added, tests/helpers/otonet_asan_seccomp.c).
 */
#ifdef OTO_SAN
static void xload(void *ctx, const char *who)
{
	if (!ctx)
		xseccomp_rule(NULL, who, -errno);
	xseccomp_load(ctx, who);
}
#define RELAY_FILTER relay_filter()
#else
static void xload(const unsigned char *bpf, size_t len, const char *who)
{
	if (seccomp_load_bpf(bpf, len / 8) < 0)
		die(EXIT_SYS, errno, "%s: unable to install its seccomp filter", who);
}
#define RELAY_FILTER OTONET_RELAY_BPF, OTONET_RELAY_BPF_LEN
#endif

void xrelay_lockdown(void)
{
	xload(RELAY_FILTER, "relay");
}

void relay_badcall(void)
{
	/* Not in the allowlist: the kernel kills the relay here. */
	syscall(SYS_getppid);
}
