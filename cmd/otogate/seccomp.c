/* SPDX-License-Identifier: ISC */
/*
 * The gateway's seccomp filter (lockdown.c), as a libseccomp context. Pure:
 * the build compiles it once into the BPF that otogate loads (gen/bpfgen.c,
 * $(O)/gen/otogate_bpf.c), so that the gateway runs no libseccomp while the
 * sandbox starts beside it on the same cores; the sanitizer build compiles
 * it at run time instead (its runtime needs calls more).
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>

#include "oto.h"
#include "otogate.h"

void *gate_filter(void)
{
	static const int ALLOWED[] = {
		/* the loop, the flows' I/O, the child */
		SCMP_SYS(poll),
		SCMP_SYS(ppoll),
		SCMP_SYS(read),
		SCMP_SYS(write),
		SCMP_SYS(readv),
		SCMP_SYS(writev),
		SCMP_SYS(recvfrom),
		SCMP_SYS(sendto),
		SCMP_SYS(recvmsg),
		SCMP_SYS(sendmsg),
		SCMP_SYS(connect),
		SCMP_SYS(setsockopt),
		SCMP_SYS(getsockopt),
		SCMP_SYS(shutdown),
		SCMP_SYS(close),
		SCMP_SYS(fcntl),
		SCMP_SYS(wait4),
		SCMP_SYS(kill),
		SCMP_SYS(clock_gettime),
		SCMP_SYS(getpid),
		SCMP_SYS(gettid),
		/* threads and memory */
		SCMP_SYS(futex),
		SCMP_SYS(mmap),
		SCMP_SYS(munmap),
		SCMP_SYS(mprotect),
		SCMP_SYS(madvise),
		SCMP_SYS(mremap),
		SCMP_SYS(brk),
		SCMP_SYS(membarrier),
		SCMP_SYS(sched_yield),
		/* a glibc thread's start */
		SCMP_SYS(set_robust_list),
		SCMP_SYS(rseq),
		SCMP_SYS(exit),
		SCMP_SYS(exit_group),
		SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(rt_sigreturn),
		SCMP_SYS(restart_syscall),
		/* OpenSSL's randomness */
		SCMP_SYS(getrandom),
		/*
		 * a login's refreshed file sealed into the store (refresh.c,
		 * store_update): its lock, its file's metadata and sync, locked
		 * memory (sodium_malloc); the *at() calls are pinned below
		 */
		SCMP_SYS(flock),
		SCMP_SYS(nanosleep),
		SCMP_SYS(clock_nanosleep),
		SCMP_SYS(fstat),
		SCMP_SYS(newfstatat),
		SCMP_SYS(fchmod),
		SCMP_SYS(fchown),
		SCMP_SYS(fsync),
		SCMP_SYS(mlock),
		SCMP_SYS(munlock),
	};

	/* Upstream sockets: internet ones only. */
	void *ctx = seccomp_allow_ctx(ALLOWED, ARRAY_SIZE(ALLOWED), 1);
	int rc;

	if (!ctx)
		return NULL;
	/* A thread, never a new process: clone only with CLONE_THREAD. */
	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	/* glibc tries clone3 first (flags in a struct the filter cannot read): it falls back to
	 * clone. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/*
	 * glibc's qsort asks sysinfo once for the machine's memory (OpenSSL's
	 * TLS set-up sorts, at the first request): told ENOSYS, it assumes
	 * enough, as it does for any failure. The host's uptime and load are
	 * not the gateway's to read.
	 */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(sysinfo), 0);
	/*
	 * The store's directory (GATE_STORE_DIRFD, main.c keeps it there): every
	 * path the gateway opens, makes, links, renames or removes is under it,
	 * never one of its root's (empty anyway) or through another fd.
	 */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				      SCMP_A0(SCMP_CMP_EQ, GATE_STORE_DIRFD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 1,
				      SCMP_A0(SCMP_CMP_EQ, GATE_STORE_DIRFD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(linkat), 1,
				      SCMP_A2(SCMP_CMP_EQ, GATE_STORE_DIRFD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat), 2,
				      SCMP_A0(SCMP_CMP_EQ, GATE_STORE_DIRFD),
				      SCMP_A2(SCMP_CMP_EQ, GATE_STORE_DIRFD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat2), 2,
				      SCMP_A0(SCMP_CMP_EQ, GATE_STORE_DIRFD),
				      SCMP_A2(SCMP_CMP_EQ, GATE_STORE_DIRFD));
	if (rc < 0) {
		seccomp_release(ctx);
		errno = -rc;
		return NULL;
	}
	return ctx;
}
