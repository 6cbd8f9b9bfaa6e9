/* SPDX-License-Identifier: ISC */
/*
 * A next program for tests/test_otosecret.sh: what did otosecret hand over?
 *   probe fds             the open fds, space-separated (the listing's own fd left out)
 *   probe memfd N         "seals=HEX write=ERRNO-NAME|ok" for fd N
 *   probe scan FILE       the pids whose /proc cmdline or environ hold the bytes of FILE
 *                         (a file, so the canary is in no argv), then self=PID
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int holds(const char *path, const char *needle)
{
	static char buf[1 << 20];
	size_t n = 0, nl = strlen(needle);
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	close(fd);
	return memmem(buf, n, needle, nl) != NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fds")) {
		DIR *d = opendir("/proc/self/fd");
		struct dirent *e;
		const char *sep = "";

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) {
				printf("%s%s", sep, e->d_name);
				sep = " ";
			}
		printf("\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "memfd")) {
		int fd = atoi(argv[2]);
		int seals = fcntl(fd, F_GET_SEALS);
		ssize_t w = write(fd, "x", 1);

		printf("seals=%#x write=%s\n", seals, w < 0 ? strerrorname_np(errno) : "ok");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "scan")) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		char path[300], canary[256] = "";
		FILE *f = fopen(argv[2], "r");

		if (!f || !fgets(canary, sizeof(canary), f) || !*canary)
			return 2;
		fclose(f);

		while (d && (e = readdir(d))) {
			if (e->d_name[0] < '0' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
			if (holds(path, canary))
				printf("cmdline %s\n", e->d_name);
			snprintf(path, sizeof(path), "/proc/%s/environ", e->d_name);
			if (holds(path, canary))
				printf("environ %s\n", e->d_name);
		}
		printf("self=%d\n", (int)getpid());
		return 0;
	}
	fprintf(stderr, "usage: probe fds | memfd N | scan FILE\n");
	return 2;
}
