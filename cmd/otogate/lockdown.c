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
#include <sys/syscall.h>

#include <linux/landlock.h>
#include <unistd.h>

#include "oto.h"
#include "otogate.h"

void xgate_unshare(void)
{
	/* Before the key is read or any value decrypted (main.c), before any thread. */
	xuserns_self("gateway");
}

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule	    445
#define SYS_landlock_restrict_self  446
#endif

/*
 * The store's directory (a login's refreshed file is sealed there) is the
 * one place the gateway writes: a Landlock domain handles every access it
 * knows and allows five on that directory's files alone, so that a path
 * from its fd ("..") leads nowhere else. A kernel without Landlock: the
 * empty root and the filter's pinned fd are what is left, said once.
 */
static void xstore_landlock(int dirfd)
{
	const unsigned long long allow = LANDLOCK_ACCESS_FS_READ_FILE |
					 LANDLOCK_ACCESS_FS_WRITE_FILE |
					 LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
					 LANDLOCK_ACCESS_FS_REMOVE_FILE;
	struct landlock_ruleset_attr ra = { 0 };
	struct landlock_path_beneath_attr pb = { .allowed_access = allow, .parent_fd = dirfd };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int rs;

	if (abi < 1) {
		warnx("gateway: no Landlock here: the store's directory is not fenced off");
		return;
	}
	/* ABI 1: EXECUTE to MAKE_SYM; 2 REFER; 3 TRUNCATE; 5 IOCTL_DEV. */
	ra.handled_access_fs = (1ULL << 13) - 1;
	if (abi >= 2)
		ra.handled_access_fs |= 1ULL << 13;
	if (abi >= 3)
		ra.handled_access_fs |= 1ULL << 14;
	if (abi >= 5)
		ra.handled_access_fs |= 1ULL << 15;
	rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);
	if (rs < 0 || syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		die(EXIT_SYS, errno,
		    "gateway: unable to fence the store's directory off (Landlock)");
	close(rs);
}

void xgate_confine(int store_dir)
{
	xempty_root("gateway", "oto-gateway");
	xcaps_drop_all("gateway");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die(EXIT_SYS, errno, "gateway: unable to set no_new_privs");
	if (store_dir >= 0)
		xstore_landlock(store_dir);
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
