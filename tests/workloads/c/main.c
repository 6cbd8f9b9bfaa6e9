#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "work.h"

#define N    4
#define SPAN 250000UL

int main(void)
{
	pthread_t t[N];
	struct job j[N];
	unsigned long total = 0;
	int distinct = 0;

	for (int i = 0; i < N; i++) {
		j[i] = (struct job){ i * SPAN, (i + 1) * SPAN, 0, 0 };
		if (pthread_create(&t[i], NULL, work, &j[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		printf("thread %d: %lu\n", i, j[i].sum);
		total += j[i].sum;
	}
	/* Each thread is a task of its own, none of them the main one. */
	for (int i = 0; i < N; i++) {
		int seen = j[i].tid == getpid();

		for (int k = 0; k < i; k++)
			seen |= j[k].tid == j[i].tid;
		distinct += !seen;
	}
	printf("total: %lu\n", total);
	printf("tasks: %d\n", distinct);
	return 0;
}
