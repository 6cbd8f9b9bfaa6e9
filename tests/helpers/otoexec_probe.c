/* SPDX-License-Identifier: ISC */
/*
 * otoexec_probe NAME: make one system call with deliberately bad arguments and
 * print the errno it got (EFAULT, EPERM, ...) or OK. An allowed call fails in
 * the kernel's argument checks (EFAULT, EBADF, EINVAL); a call the seccomp
 * filter refuses fails with EPERM or ENOSYS before the kernel looks. None of
 * the calls can change anything: the bad argument is checked first.
 *
 *   otoexec_probe thread NAME    the call from a second thread
 *   otoexec_probe fork NAME      the call in a forked child that execs this probe
 *
 * Mode calls, with good arguments (these do change files): CALL:MODE:PATH,
 * MODE in octal, umask 0 so that a created file gets MODE exactly.
 *   chmod fchmod fchmodat fchmodat2      set an existing file's mode
 *   open openat creat mknod mknodat      create PATH (O_CREAT|O_EXCL; S_IFREG)
 *   openat2                              create PATH, the mode in struct open_how
 *   tmpfile                              O_TMPFILE in the directory PATH
 *   open-existing                        open PATH read-only, without O_CREAT,
 *                                        MODE passed anyway (the kernel ignores it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define B ((void *)1) /* a pointer the kernel cannot read */

static long ns_flag(const char *s)
{
	static const struct {
		const char *n;
		long f;
	} F[] = { { "newns", CLONE_NEWNS },
		  { "newuser", CLONE_NEWUSER },
		  { "newpid", CLONE_NEWPID },
		  { "newnet", CLONE_NEWNET },
		  { "newipc", CLONE_NEWIPC },
		  { "newuts", CLONE_NEWUTS },
		  { "newcgroup", CLONE_NEWCGROUP },
		  { "newtime", 0x80 },
		  { "none", 0 } };

	for (size_t i = 0; i < sizeof(F) / sizeof(F[0]); i++)
		if (!strcmp(s, F[i].n))
			return F[i].f;
	fprintf(stderr, "probe: unknown flag %s\n", s);
	exit(2);
}

static long tiocsti(unsigned long cmd)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	char c = 'x';

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -2;
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		return -2;
	return syscall(SYS_ioctl, s, cmd, &c);
}

static long winsz(void)
{
	struct winsize w;
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	if (m < 0)
		return -2;
	return syscall(SYS_ioctl, m, (unsigned long)TIOCGWINSZ, &w);
}

static long int80_getpid(void)
{
	long r;

	/* The i386 entry point: eax 20 is getpid there. */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* CALL:MODE:PATH. Raw calls, since glibc's chmod is fchmodat and its open openat. */
static long mode_call(const char *n)
{
	const char *c1 = strchr(n, ':'), *path;
	char call[32], *end;
	unsigned long mode;
	long fd;

	mode = strtoul(c1 + 1, &end, 8);
	if ((size_t)(c1 - n) >= sizeof(call) || *end != ':') {
		fprintf(stderr, "probe: %s: CALL:MODE:PATH\n", n);
		exit(2);
	}
	memcpy(call, n, (size_t)(c1 - n));
	call[c1 - n] = 0;
	path = end + 1;
	umask(0);
	if (!strcmp(call, "chmod"))
		return syscall(SYS_chmod, path, mode);
	if (!strcmp(call, "fchmod")) {
		fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
		return fd < 0 ? -2 : syscall(SYS_fchmod, fd, mode);
	}
	if (!strcmp(call, "fchmodat"))
		return syscall(SYS_fchmodat, AT_FDCWD, path, mode);
	if (!strcmp(call, "fchmodat2"))
		return syscall(SYS_fchmodat2, AT_FDCWD, path, mode, 0);
	if (!strcmp(call, "open"))
		return syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (!strcmp(call, "openat"))
		return syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			       mode);
	if (!strcmp(call, "creat"))
		return syscall(SYS_creat, path, mode);
	if (!strcmp(call, "mknod"))
		return syscall(SYS_mknod, path, S_IFREG | mode, 0);
	if (!strcmp(call, "mknodat"))
		return syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | mode, 0);
	if (!strcmp(call, "openat2")) {
		struct open_how how = { .flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
					.mode = mode };

		return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	}
	if (!strcmp(call, "tmpfile"))
		return syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_TMPFILE | O_CLOEXEC, mode);
	if (!strcmp(call, "open-existing"))
		return syscall(SYS_open, path, O_RDONLY | O_CLOEXEC, mode);
	fprintf(stderr, "probe: unknown mode call %s\n", call);
	exit(2);
}

static long call(const char *n)
{
	const char *arg = strchr(n, ':') ? strchr(n, ':') + 1 : "none";

	if (strchr(arg, ':')) /* two colons: CALL:MODE:PATH */
		return mode_call(n);

	if (!strncmp(n, "unshare:", 8))
		return syscall(SYS_unshare, ns_flag(arg) | 0x1); /* 0x1: not an unshare flag */
	if (!strncmp(n, "clone:", 6)) /* CLONE_SIGHAND without CLONE_VM: EINVAL */
		return syscall(SYS_clone, ns_flag(arg) | CLONE_SIGHAND, 0, 0, 0, 0);
	if (!strcmp(n, "clone3"))
		return syscall(SYS_clone3, NULL, 0);
	if (!strcmp(n, "mount"))
		return syscall(SYS_mount, B, B, B, 0, B);
	if (!strcmp(n, "umount2"))
		return syscall(SYS_umount2, "/nonexistent", 0xffff);
	if (!strcmp(n, "pivot_root"))
		return syscall(SYS_pivot_root, B, B);
	if (!strcmp(n, "chroot"))
		return syscall(SYS_chroot, B);
	if (!strcmp(n, "setns"))
		return syscall(SYS_setns, -1, 0);
	if (!strcmp(n, "fsopen"))
		return syscall(SYS_fsopen, B, 0);
	if (!strcmp(n, "fsconfig"))
		return syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0);
	if (!strcmp(n, "fsmount"))
		return syscall(SYS_fsmount, -1, 0, 0);
	if (!strcmp(n, "fspick"))
		return syscall(SYS_fspick, -1, B, 0);
	if (!strcmp(n, "open_tree"))
		return syscall(SYS_open_tree, -1, B, 0);
	if (!strcmp(n, "move_mount"))
		return syscall(SYS_move_mount, -1, B, -1, B, 0);
	if (!strcmp(n, "mount_setattr"))
		return syscall(SYS_mount_setattr, -1, B, 0, NULL, 0);
	if (!strcmp(n, "keyctl"))
		return syscall(SYS_keyctl, 11 /* READ */, 0, B, 16, 0);
	if (!strcmp(n, "add_key"))
		return syscall(SYS_add_key, B, B, NULL, 0, 0);
	if (!strcmp(n, "request_key"))
		return syscall(SYS_request_key, B, B, NULL, 0);
	if (!strcmp(n, "bpf"))
		return syscall(SYS_bpf, 0 /* MAP_CREATE */, B, 64);
	if (!strcmp(n, "perf_event_open"))
		return syscall(SYS_perf_event_open, B, 0, -1, -1, 0);
	if (!strcmp(n, "userfaultfd")) /* USER_MODE_ONLY passes the sysctl; bit 30 is invalid */
		return syscall(SYS_userfaultfd, 1 | (1 << 30));
	if (!strcmp(n, "io_uring_setup"))
		return syscall(SYS_io_uring_setup, 1, NULL);
	if (!strcmp(n, "ptrace"))
		return syscall(SYS_ptrace, 0x7fffff, -1, 0, 0);
	if (!strcmp(n, "process_vm_readv"))
		return syscall(SYS_process_vm_readv, getpid(), NULL, 1, NULL, 1, 0xff);
	if (!strcmp(n, "process_vm_writev"))
		return syscall(SYS_process_vm_writev, getpid(), NULL, 1, NULL, 1, 0xff);
	if (!strcmp(n, "kcmp"))
		return syscall(SYS_kcmp, getpid(), getpid(), 99, 0, 0);
	if (!strcmp(n, "pidfd_getfd"))
		return syscall(SYS_pidfd_getfd, -1, 0, 0);
	if (!strcmp(n, "open_by_handle_at"))
		return syscall(SYS_open_by_handle_at, -1, B, 0);
	if (!strcmp(n, "kexec_load"))
		return syscall(SYS_kexec_load, 0, 0, NULL, 0xffffffffUL);
	if (!strcmp(n, "init_module"))
		return syscall(SYS_init_module, B, 16, B);
	if (!strcmp(n, "finit_module"))
		return syscall(SYS_finit_module, -1, "", 0);
	if (!strcmp(n, "delete_module"))
		return syscall(SYS_delete_module, B, 0);
	if (!strcmp(n, "reboot")) /* wrong magic numbers: EINVAL, never a reboot */
		return syscall(SYS_reboot, 0, 0, 0, NULL);
	if (!strcmp(n, "swapon"))
		return syscall(SYS_swapon, B, 0);
	if (!strcmp(n, "acct"))
		return syscall(SYS_acct, B);
	if (!strcmp(n, "syslog"))
		return syscall(SYS_syslog, 99, NULL, 0);
	if (!strcmp(n, "settimeofday"))
		return syscall(SYS_settimeofday, NULL, B);
	if (!strcmp(n, "clock_settime"))
		return syscall(SYS_clock_settime, CLOCK_REALTIME, NULL);
	if (!strcmp(n, "iopl"))
		return syscall(SYS_iopl, 4);
	if (!strcmp(n, "ioperm"))
		return syscall(SYS_ioperm, 0x10000UL, 8, 1);
	if (!strcmp(n, "quotactl"))
		return syscall(SYS_quotactl, 0, B, 0, NULL);
	if (!strcmp(n, "fanotify_init"))
		return syscall(SYS_fanotify_init, 0xffffffffU, 0);
	if (!strcmp(n, "personality:rie")) /* READ_IMPLIES_EXEC */
		return syscall(SYS_personality, 0x0400000UL);
	if (!strcmp(n, "personality:query"))
		return syscall(SYS_personality, 0xffffffffUL) < 0 ? -1 : 0;
	if (!strncmp(n, "socket:", 7)) { /* type 15 is no socket type: EINVAL */
		long fam = strtol(arg, NULL, 0), proto = 0;
		const char *slash = strchr(arg, '/');

		if (slash)
			proto = strtol(slash + 1, NULL, 0);
		return syscall(SYS_socket, fam, 15, proto);
	}
	if (!strcmp(n, "tiocsti"))
		return tiocsti(TIOCSTI);
	if (!strcmp(n, "tiocsti-high")) /* the kernel only sees the low 32 bits */
		return tiocsti(0x100000000UL | TIOCSTI);
	if (!strcmp(n, "tioclinux"))
		return tiocsti(TIOCLINUX);
	if (!strcmp(n, "tioclinux-high"))
		return tiocsti(0xffffffff00000000UL | TIOCLINUX);
	if (!strcmp(n, "tiocgwinsz"))
		return winsz();
	if (!strcmp(n, "int80"))
		return int80_getpid();
	if (!strcmp(n, "x32")) /* x32 getpid: 39 | __X32_SYSCALL_BIT */
		return syscall(39 | 0x40000000L);
	if (!strcmp(n, "capset")) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];

		memset(d, 0xff, sizeof(d));
		return syscall(SYS_capset, &h, d);
	}
	if (!strncmp(n, "nr:", 3)) /* a call by number: fd -1, a bad pointer */
		return syscall(strtol(arg, NULL, 0), -1, B, 0, 0, 0, 0);
	/* Over-blocking controls: ordinary calls, bad arguments. */
	if (!strcmp(n, "read"))
		return syscall(SYS_read, -1, NULL, 0);
	if (!strcmp(n, "write"))
		return syscall(SYS_write, 1, B, 1);
	if (!strcmp(n, "openat"))
		return syscall(SYS_openat, AT_FDCWD, B, O_RDONLY);
	if (!strcmp(n, "getppid"))
		return syscall(SYS_getppid) > 0 ? 0 : -1;
	fprintf(stderr, "probe: unknown call %s\n", n);
	exit(2);
}

static int report(long r)
{
	if (r >= 0) {
		puts("OK");
		return 0;
	}
	if (r == -2) {
		puts("SETUP");
		return 3;
	}
	puts(strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return 1;
}

static int thread_errno;

static void *thread(void *n)
{
	long r = call(n);

	thread_errno = errno; /* errno is per thread */
	return (void *)r;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "thread")) {
		pthread_t t;
		void *r;

		errno = 0;
		if (pthread_create(&t, NULL, thread, argv[2]) || pthread_join(t, &r))
			return 4;
		errno = thread_errno;
		return report((long)r);
	}
	if (argc == 3 && !strcmp(argv[1], "fork")) {
		int st;
		pid_t p = fork();

		if (p == 0) {
			execl("/proc/self/exe", argv[0], argv[2], (char *)NULL);
			_exit(5);
		}
		if (p < 0 || waitpid(p, &st, 0) < 0)
			return 4;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	if (argc != 2) {
		fputs("usage: otoexec_probe [thread|fork] CALL\n", stderr);
		return 2;
	}
	return report(call(argv[1]));
}
