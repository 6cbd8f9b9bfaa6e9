/* SPDX-License-Identifier: ISC */
/*
 * The gateway holds the real values and parses the agent's bytes: if a bug
 * in it were ever exploited, the process should be able to do little more
 * than what it is for. Once it holds what it needs from the host (the
 * values, the upstreams' addresses, the CA bundle in memory), it leaves the
 * host's files behind (its own user and mount namespace, an empty read-only
 * root), holds no capability, sets no_new_privs, is not dumpable, and runs
 * under a seccomp allowlist of the calls its threads, libc and OpenSSL make;
 * anything else kills it, and with it every request of the agent (fail
 * closed: nothing falls back to a direct path). It stays in the host's
 * network namespace: the upstreams are reached from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oto.h"
#include "otogate.h"

void xgate_unshare(void)
{
	/* Before the key is read or any value decrypted (main.c), before any thread. */
	xuserns_self("gateway");
}

void xgate_confine(void)
{
	xempty_root("gateway", "oto-gateway");
	xcaps_drop_all("gateway");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "gateway: unable to set no_new_privs");
}

/*
 * The filter: the one the build compiled from seccomp.c (gen/bpfgen.c), so
 * that the gateway does not run libseccomp while the sandbox starts beside
 * it, or, in the sanitizer builds (OTO_SAN), seccomp.c's compiled here, with
 * the sanitizer runtime's calls added (tests/helpers/otogate_asan_seccomp.c).
 */
void xgate_lockdown(void)
{
#ifdef OTO_SAN
	void *ctx = gate_filter();

	if (!ctx)
		xseccomp_rule(NULL, "gateway", -errno);
	xseccomp_load(ctx, "gateway");
#else
	if (seccomp_load_bpf(OTOGATE_BPF, OTOGATE_BPF_LEN / 8) < 0)
		die(EXIT_SYS, errno, "gateway: unable to install its seccomp filter");
#endif
}
