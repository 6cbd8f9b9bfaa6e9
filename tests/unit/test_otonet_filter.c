// UNIT: cmd/otonet/seccomp.c lib/seccomp_allow_ctx.c
/*
 * The relay's seccomp allowlist (cmd/otonet/seccomp.c), as libseccomp
 * compiles it, run by a classic-BPF interpreter (bpf_run.h): its one ioctl
 * is TUNSETPERSIST with the argument 1 and nothing wider (another command,
 * another argument, bits above the command's 32), its sockets internet
 * ones, its socket pairs unix ones, and a call outside the list kills.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/if_tun.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <seccomp.h>

#include "otonet/otonet.h"
#include "bpf_run.h"

static struct sock_filter *prog;
static size_t prog_len;

static int setup(void **state)
{
	void *ctx = relay_filter();
	int fd = memfd_create("relay-bpf", MFD_CLOEXEC);
	off_t size;

	(void)state;
	if (!ctx || fd < 0 || seccomp_export_bpf(ctx, fd) < 0)
		return -1;
	seccomp_release(ctx);
	size = lseek(fd, 0, SEEK_END);
	prog = malloc((size_t)size);
	if (size <= 0 || !prog || pread(fd, prog, (size_t)size, 0) != size)
		return -1;
	prog_len = (size_t)size / sizeof(*prog);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(prog);
	return 0;
}

/* The action for one call on this machine's architecture. */
static uint32_t action(int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct seccomp_data d = { .nr = nr, .arch = seccomp_arch_native() };
	int64_t r;

	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	r = bpf_run(prog, prog_len, &d);
	assert_true(r >= 0);
	return (uint32_t)r & SECCOMP_RET_ACTION_FULL;
}

static void test_one_ioctl_allowed(void **state)
{
	(void)state;
	assert_int_equal(action(SYS_ioctl, 7, TUNSETPERSIST, 1), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_ioctl, 1000, TUNSETPERSIST, 1), SECCOMP_RET_ALLOW);
}

static void test_no_other_ioctl(void **state)
{
	static const uint64_t CMDS[] = { TUNSETIFF,   TUNSETOFFLOAD, TUNSETQUEUE,
					 TUNSETOWNER, TUNSETGROUP,   TUNSETLINK,
					 FIONREAD,    TIOCSTI,	     0 };
	static const uint64_t ARGS[] = { 0, 2, 0xffffffff, 1ULL << 32 | 1, ~0ULL };

	(void)state;
	for (size_t i = 0; i < sizeof(CMDS) / sizeof(CMDS[0]); i++)
		assert_int_equal(action(SYS_ioctl, 7, CMDS[i], 1), SECCOMP_RET_KILL_PROCESS);
	for (size_t i = 0; i < sizeof(ARGS) / sizeof(ARGS[0]); i++)
		assert_int_equal(action(SYS_ioctl, 7, TUNSETPERSIST, ARGS[i]),
				 SECCOMP_RET_KILL_PROCESS);
	/* The command with bits above its 32: not the kernel's, not allowed. */
	assert_int_equal(action(SYS_ioctl, 7, 1ULL << 32 | TUNSETPERSIST, 1),
			 SECCOMP_RET_KILL_PROCESS);
}

static void test_sockets_and_the_rest(void **state)
{
	(void)state;
	assert_int_equal(action(SYS_socket, AF_INET, SOCK_STREAM, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_socket, AF_INET6, SOCK_DGRAM, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_socket, AF_UNIX, SOCK_STREAM, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_socket, AF_NETLINK, SOCK_RAW, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_socket, AF_PACKET, SOCK_RAW, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_socketpair, AF_INET, SOCK_STREAM, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_read, 0, 0, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_wait4, 0, 0, 0), SECCOMP_RET_ALLOW);
	assert_int_equal(action(SYS_getppid, 0, 0, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_openat, 0, 0, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_execve, 0, 0, 0), SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(action(SYS_prctl, 0, 0, 0), SECCOMP_RET_KILL_PROCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_ioctl_allowed),
		cmocka_unit_test(test_no_other_ioctl),
		cmocka_unit_test(test_sockets_and_the_rest),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
