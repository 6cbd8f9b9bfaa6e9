/* SPDX-License-Identifier: ISC */
/*
 * Calls an agent must not be able to make. Each is made in a child process,
 * with arguments chosen so that it changes nothing even where it is allowed:
 * a refusal (EPERM, EACCES, ENOSYS, or SIGSYS) is contained; success, or an
 * argument error from deeper in the kernel, means the call got through.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "oto.h"
#include "otoprobe.h"

/* A probe's "does not apply here" (no pty to try TIOCSTI on). */
#define NOT_HERE 200

static int res(long r)
{
	return r < 0 ? errno : 0;
}

static int p_unshare_user(void)
{
	return res(unshare(CLONE_NEWUSER));
}

static int p_unshare_mnt(void)
{
	return res(unshare(CLONE_NEWNS));
}

static int p_mount(void)
{
	/* MS_MOVE is checked for privilege first, then fails on a source that
	 * cannot exist: no mount moves. */
	return res(mount("/proc/self/otoprobe-none", "/", NULL, MS_MOVE, NULL));
}

static int p_ptrace(void)
{
	long word;

	/* PEEKDATA on a process we do not trace: ESRCH if the call is allowed. */
	return res(syscall(SYS_ptrace, PTRACE_PEEKDATA, 1, 0, &word));
}

static int p_bpf(void)
{
	return res(syscall(SYS_bpf, 0x7fffffff, NULL, 0)); /* no such command */
}

static int p_keyctl(void)
{
	return res(syscall(SYS_keyctl, 0x7fffffff, 0, 0, 0, 0)); /* no such operation */
}

static int p_add_key(void)
{
	return res(syscall(SYS_add_key, NULL, NULL, NULL, 0, 0));
}

static int p_perf(void)
{
	return res(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
}

static int p_userfaultfd(void)
{
	return res(syscall(SYS_userfaultfd, -1)); /* every flag: EINVAL, no fd */
}

static int p_io_uring(void)
{
	return res(syscall(SYS_io_uring_setup, 0, NULL));
}

static int p_kexec(void)
{
	/* Never zero segments: that would unload a loaded kernel. 17 is one more
	 * than KEXEC_SEGMENT_MAX, and 0x8000 no known flag. */
	return res(syscall(SYS_kexec_load, 0, 17, NULL, 0x8000));
}

static int p_init_module(void)
{
	return res(syscall(SYS_init_module, NULL, 0, "")); /* shorter than an ELF header */
}

static int p_open_by_handle(void)
{
	return res(syscall(SYS_open_by_handle_at, AT_FDCWD, NULL, O_RDONLY));
}

static int p_setns(void)
{
	/* Rejoin our own uts namespace: a no-op where it is allowed. */
	int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);

	return res(setns(fd, fd < 0 ? 0 : CLONE_NEWUTS));
}

static int p_clone3(void)
{
	return res(syscall(SYS_clone3, NULL, 0)); /* EINVAL if allowed */
}

static int p_packet(void)
{
	return res(socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0));
}

static int p_netlink_audit(void)
{
	return res(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT));
}

static int p_tiocsti(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;
	char *name, c = 0;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || !(name = ptsname(m)))
		return NOT_HERE;
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return NOT_HERE;
	/* A NUL pushed into a pty of our own, which nobody reads. */
	return res(ioctl(s, TIOCSTI, &c));
}

static const int E_USERNS[] = { ENOSPC, EUSERS }; /* the user-namespace limit is used up */
static const int E_FAMILY[] = { EAFNOSUPPORT, EPROTONOSUPPORT }; /* not in this kernel */
static const int E_TIOCSTI[] = { EIO };				 /* dev.tty.legacy_tiocsti = 0 */

static const struct probe {
	const char *name;
	int (*fn)(void);
	const int *extra;
	size_t nextra;
} PROBES[] = {
	{ "unshare(CLONE_NEWUSER)", p_unshare_user, E_USERNS, 2 },
	{ "unshare(CLONE_NEWNS)", p_unshare_mnt, NULL, 0 },
	{ "mount", p_mount, NULL, 0 },
	{ "ptrace", p_ptrace, NULL, 0 },
	{ "bpf", p_bpf, NULL, 0 },
	{ "keyctl", p_keyctl, NULL, 0 },
	{ "add_key", p_add_key, NULL, 0 },
	{ "perf_event_open", p_perf, NULL, 0 },
	{ "userfaultfd", p_userfaultfd, NULL, 0 },
	{ "io_uring_setup", p_io_uring, NULL, 0 },
	{ "kexec_load", p_kexec, NULL, 0 },
	{ "init_module", p_init_module, NULL, 0 },
	{ "open_by_handle_at", p_open_by_handle, NULL, 0 },
	{ "setns", p_setns, NULL, 0 },
	{ "clone3", p_clone3, NULL, 0 },
	{ "socket(AF_PACKET)", p_packet, E_FAMILY, 2 },
	{ "socket(AF_NETLINK, NETLINK_AUDIT)", p_netlink_audit, E_FAMILY, 2 },
	{ "ioctl(TIOCSTI)", p_tiocsti, E_TIOCSTI, 1 },
};

/* The verdict of P's row. */
static enum verdict xrun_probe(struct report *rep, const struct probe *p)
{
	char name[64], en[24];
	int status, err;
	pid_t pid;

	snprintf(name, sizeof(name), "syscall %s", p->name);
	pid = fork();
	if (pid < 0)
		die(EXIT_SYS, errno, "unable to fork for the %s probe", p->name);
	if (pid == 0) {
		/* Nothing may hang the report: a stuck call dies with SIGALRM. */
		alarm(5);
		_exit(p->fn());
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die(EXIT_SYS, errno, "unable to wait for the %s probe", p->name);
	if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGSYS) {
			report_add(rep, name, V_OK, "refused: killed by SIGSYS (seccomp)");
			return V_OK;
		}
		report_add(rep, name, V_GAP, "the probe died of signal %d", WTERMSIG(status));
		return V_GAP;
	}
	err = WEXITSTATUS(status);
	if (err == NOT_HERE) {
		report_add(rep, name, V_INFO, "not tried: no pseudo-terminal to open here");
		return V_INFO;
	}
	if (err == 0) {
		report_add(rep, name, V_GAP, "allowed: the call succeeded");
		return V_GAP;
	}
	if (syscall_verdict(err, p->extra, p->nextra) == V_OK) {
		report_add(rep, name, V_OK, "refused: %s (%s)", errno_name(err, en, sizeof(en)),
			   strerror(err));
		return V_OK;
	}
	report_add(rep, name, V_GAP, "reached the kernel: %s (%s)", errno_name(err, en, sizeof(en)),
		   strerror(err));
	return V_GAP;
}

void xcheck_syscalls(struct report *rep)
{
	enum verdict userns = V_INFO;

	for (size_t i = 0; i < ARRAY_SIZE(PROBES); i++) {
		enum verdict v = xrun_probe(rep, &PROBES[i]);

		if (PROBES[i].fn == p_unshare_user)
			userns = v;
	}
	/* What an agent's own tools meet: codex, Chromium and Flatpak start a
	 * sandbox of their own in a new user namespace, which cannot be made
	 * here. Said once, where a user looks when such a tool fails. */
	if (userns == V_OK)
		report_add(rep, "nested sandbox", V_INFO,
			   "none can start here (no user namespace): turn a tool's own sandbox "
			   "off, this one is the boundary (codex: sandbox_mode = "
			   "\"danger-full-access\"; Chromium: --no-sandbox)");
	else
		report_add(rep, "nested sandbox", V_INFO,
			   "a tool's own sandbox could start here (a user namespace was made)");
}
