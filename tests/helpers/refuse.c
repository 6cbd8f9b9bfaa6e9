/* SPDX-License-Identifier: ISC */
/*
 * refuse: make four calls the default profile refuses (unshare, mount, bpf,
 * ptrace) and print each one's errno name; refuse N: bpf N times, and the
 * number that failed with EPERM. For otons --log-fd's tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
static const char *en(int e)
{
	return e == EPERM ? "EPERM" : e == ENOSYS ? "ENOSYS" : e == 0 ? "ok" : strerror(e);
}
int main(int argc, char **argv)
{
	if (argc > 1) {
		long n = atol(argv[1]), eperm = 0;
		for (long i = 0; i < n; i++)
			if (syscall(SYS_bpf, 0, 0, 0) < 0 && errno == EPERM)
				eperm++;
		printf("bpf %ld EPERM\n", eperm);
		return 0;
	}
	errno = 0;
	unshare(CLONE_NEWUSER);
	printf("unshare %s\n", en(errno));
	errno = 0;
	mount("none", "/tmp", "tmpfs", 0, NULL);
	printf("mount %s\n", en(errno));
	errno = 0;
	syscall(SYS_bpf, 0, 0, 0);
	printf("bpf %s\n", en(errno));
	errno = 0;
	ptrace(PTRACE_TRACEME, 0, 0, 0);
	printf("ptrace %s\n", en(errno));
	return 0;
}
