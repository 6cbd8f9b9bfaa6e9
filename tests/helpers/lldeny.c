/* SPDX-License-Identifier: ISC */
/*
 * For the Landlock lines of otons --log-fd's tests; built static (no
 * dynamic loader, whose own reads a Landlock domain would refuse too).
 *
 * lldeny open N PATH [FLAG]: open PATH for reading N times, 1 ms apart,
 *   print "N ERRNO" (the last one's, EACCES under a domain that refuses it),
 *   then wait for FLAG to exist (5 s at most) if one is named.
 * lldeny abi: print the kernel's Landlock ABI (0 without Landlock).
 * lldeny exec PROG [ARG]...: exec PROG in a Landlock domain of its own that
 *   grants /usr and the helper's directory only and logs after the exec
 *   (ABI 7): a refusal of a process outside any sandbox, for the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int grant(int rs, const char *path)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
				  LANDLOCK_ACCESS_FS_READ_DIR,
		.parent_fd = open(path, O_PATH | O_CLOEXEC),
	};

	return pb.parent_fd < 0
		   ? -1
		   : (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "abi")) {
		long abi =
		    syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

		printf("%ld\n", abi < 0 ? 0 : abi);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "open")) {
		long n = atol(argv[2]);
		int e = 0;
		struct timespec ms = { 0, 1000000 };

		for (long i = 0; i < n; i++) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			e = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
			nanosleep(&ms, NULL);
		}
		printf("%ld %s\n", n, e == EACCES ? "EACCES" : e ? strerror(e) : "ok");
		fflush(stdout);
		for (int i = 0; argc > 4 && i < 100 && access(argv[4], F_OK) < 0; i++)
			nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "exec")) {
		struct landlock_ruleset_attr a = { .handled_access_fs =
						       LANDLOCK_ACCESS_FS_EXECUTE |
						       LANDLOCK_ACCESS_FS_READ_FILE |
						       LANDLOCK_ACCESS_FS_READ_DIR };
		char dir[4096];
		int rs = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0);

		snprintf(dir, sizeof(dir), "%s", argv[0]);
		*(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = 0;
		if (rs < 0 || grant(rs, "/usr") < 0 || (dir[0] && grant(rs, dir) < 0) ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_landlock_restrict_self, rs, 2U /* LOG_NEW_EXEC_ON */) < 0) {
			perror("lldeny: landlock");
			return 111;
		}
		execv(argv[2], argv + 2);
		perror("lldeny: exec");
		return 127;
	}
	fprintf(stderr, "usage: lldeny abi | open N PATH [FLAG] | exec PROG [ARG]...\n");
	return 100;
}
