/* SPDX-License-Identifier: ISC */
/*
 * Linked only into the ASan/UBSan build of otogate (Makefile, SAN_otogate,
 * -Wl,--wrap=seccomp_load): the gateway's own seccomp filter, unchanged,
 * plus what the sanitizers' runtime calls around a thread's start and end
 * (its alternate signal stack, its signal handlers, glibc's robust list and
 * rseq); a file it would open finds none (the gateway's root is empty
 * anyway), but in the store's directory. Not part of any shipped binary.
 */
#include <errno.h>
#include <stddef.h>
#include <seccomp.h>

/* cmd/otogate/otogate.h's (this file is built without the tools' include path). */
#define GATE_STORE_DIRFD 1000

int __real_seccomp_load(const scmp_filter_ctx ctx);
int __wrap_seccomp_load(const scmp_filter_ctx ctx);

int __wrap_seccomp_load(const scmp_filter_ctx ctx)
{
	static const int MORE[] = {
		SCMP_SYS(sigaltstack), SCMP_SYS(rt_sigaction),	  SCMP_SYS(set_robust_list),
		SCMP_SYS(rseq),	       SCMP_SYS(prctl),		  SCMP_SYS(sched_getaffinity),
		SCMP_SYS(prlimit64),   SCMP_SYS(getrlimit),	  SCMP_SYS(mincore),
		SCMP_SYS(nanosleep),   SCMP_SYS(clock_nanosleep),
	};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(MORE) / sizeof(MORE[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, MORE[i], 0);
	/* The store's directory (a login's refreshed file) stays the filter's own. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(openat), 1,
				      SCMP_A0(SCMP_CMP_NE, GATE_STORE_DIRFD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(readlink), 0);
	return rc < 0 ? rc : __real_seccomp_load(ctx);
}
