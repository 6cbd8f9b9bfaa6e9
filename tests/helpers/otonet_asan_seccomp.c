/* SPDX-License-Identifier: ISC */
/*
 * Linked only into the ASan/UBSan build of otonet that
 * tests/test_otonet_hostile.sh makes (-Wl,--wrap=seccomp_load): the relay's
 * own seccomp filter, unchanged, plus sigaltstack, which the sanitizers'
 * runtime calls when a thread ends (the relay's exit): without it the filter
 * kills the relay with SIGSYS (exit 159) just as the agent's status is
 * returned. Not part of any shipped binary.
 */
#include <seccomp.h>

int __real_seccomp_load(const scmp_filter_ctx ctx);
int __wrap_seccomp_load(const scmp_filter_ctx ctx);

int __wrap_seccomp_load(const scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sigaltstack), 0);

	return rc < 0 ? rc : __real_seccomp_load(ctx);
}
