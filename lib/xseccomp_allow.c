/* SPDX-License-Identifier: ISC */
/*
 * An allowlist filter, the relay's and the gateway's way: every call not
 * listed kills the process (fail closed). The caller adds its own rules with
 * arguments between xseccomp_allow and xseccomp_load (xseccomp_rule's rc).
 */
#include <errno.h>
#include <seccomp.h>

#include "oto.h"

void *xseccomp_allow(const char *who, const int *calls, size_t n, int inet_sockets)
{
	void *ctx = seccomp_allow_ctx(calls, n, inet_sockets);

	if (!ctx)
		xseccomp_rule(NULL, who, -errno);
	return ctx;
}

void xseccomp_rule(void *ctx, const char *who, int rc)
{
	if (rc < 0) {
		if (ctx)
			seccomp_release(ctx);
		die(EXIT_SYS, -rc, "%s: unable to build its seccomp filter", who);
	}
}

void xseccomp_load(void *ctx, const char *who)
{
	int rc = seccomp_load(ctx);

	seccomp_release(ctx);
	if (rc < 0)
		die(EXIT_SYS, -rc, "%s: unable to install its seccomp filter", who);
}
