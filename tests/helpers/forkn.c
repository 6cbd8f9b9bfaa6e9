/* SPDX-License-Identifier: ISC */
/*
 * forkn N [FILE]: fork at most N children that wait, stopping at the first
 * fork that fails; print "K ERRNO" (the children made, the failure's errno
 * name, or "none"); then, once FILE exists (at most 20 s), kill and reap
 * them. A bounded fork bomb, for otons' pids.max test.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, k = 0, err = 0;
	pid_t kids[4096];

	if (n < 1 || n > 4096)
		return 100;
	for (; k < n; k++) {
		pid_t p = fork();

		if (p < 0) {
			err = errno;
			break;
		}
		if (p == 0) {
			pause();
			_exit(0);
		}
		kids[k] = p;
	}
	printf("%d %s\n", k, err == EAGAIN ? "EAGAIN" : err ? strerror(err) : "none");
	fflush(stdout);
	for (int i = 0; argc > 2 && i < 400 && access(argv[2], F_OK) < 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	for (int i = 0; i < k; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
