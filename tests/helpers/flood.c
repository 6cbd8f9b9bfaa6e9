/* SPDX-License-Identifier: ISC */
/*
 * flood THREADS SECONDS [FILE [CODE]]: THREADS threads (at most 64) call
 * bpf() in a loop for SECONDS (at most 60); print "calls N EPERM N other N"
 * (every call made, those that failed with EPERM, the rest); then, once
 * FILE exists (at most 20 s), exit CODE (default 0). A bounded flood of
 * refused calls, for otons' refusal-log budget (its test and bench/flood.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct timespec until;

struct counts {
	long calls, eperm;
};

static int before_until(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < until.tv_sec ||
	       (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec);
}

static void *flood(void *arg)
{
	struct counts *c = arg;

	while (before_until()) {
		if (syscall(SYS_bpf, 0, 0, 0) < 0 && errno == EPERM)
			c->eperm++;
		c->calls++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[1]) : 0, secs = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t t[64];
	struct counts c[64] = { 0 };
	long calls = 0, eperm = 0;

	if (threads < 1 || threads > 64 || secs < 1 || secs > 60)
		return 100;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += secs;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, flood, &c[i]) != 0)
			return 111;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		calls += c[i].calls;
		eperm += c[i].eperm;
	}
	printf("calls %ld EPERM %ld other %ld\n", calls, eperm, calls - eperm);
	fflush(stdout);
	for (int i = 0; argc > 3 && i < 400 && access(argv[3], F_OK) < 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	return argc > 4 ? atoi(argv[4]) : 0;
}
