/* SPDX-License-Identifier: ISC */
/*
 * An allowlist filter, the relay's and the gateway's way: every call not
 * listed kills the process (fail closed). The caller adds its own rules with
 * arguments between xseccomp_allow and xseccomp_load (xseccomp_rule's rc).
 */
#include <errno.h>
#include <seccomp.h>
#include <sys/socket.h>

#include "oto.h"

void *xseccomp_allow(const char *who, const int *calls, size_t n, int inet_sockets)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int rc = ctx ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0);
	/* New sockets: internet ones only, never netlink, unix or packet. */
	if (rc == 0 && inet_sockets)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_INET));
	if (rc == 0 && inet_sockets)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				      SCMP_A0(SCMP_CMP_EQ, AF_INET6));
	xseccomp_rule(ctx, who, rc);
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
