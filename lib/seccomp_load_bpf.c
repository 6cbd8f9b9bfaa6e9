/* SPDX-License-Identifier: ISC */
/*
 * A filter compiled by the build, loaded as libseccomp's seccomp_load loads
 * one with its defaults (flags 0: no TSYNC, no LOG; no_new_privs is the
 * caller's, already set): insns is n struct sock_filter, 8-aligned.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oto.h"

int seccomp_load_bpf(const void *insns, size_t n)
{
	struct sock_fprog prog = {
		.len = (unsigned short)n,
		.filter = (struct sock_filter *)(uintptr_t)insns,
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
