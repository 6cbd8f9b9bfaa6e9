/* SPDX-License-Identifier: ISC */
/*
 * A stand-in for the chain's first stage (tests/test_otorun.sh): what it was
 * started with, on stdout. Each argument as a Python bytes literal would show
 * it, one a line; then each open fd from 3 on: its number, its access mode
 * and what it is (a path; a pipe or socket without its inode number).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void show(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c < 32 || c >= 127)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	char path[64], target[4096];

	for (int i = 0; i < argc; i++)
		show(argv[i]);
	for (int fd = 3; fd < 1024; fd++) {
		int fl = fcntl(fd, F_GETFL);
		ssize_t n;

		if (fl < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = 0;
		if (!strncmp(target, "pipe:", 5) || !strncmp(target, "socket:", 7))
			*strchr(target, ':') = 0;
		printf("fd %d %s ", fd, (fl & O_ACCMODE) == O_RDONLY ? "r" : "w");
		show(target);
	}
	(void)argc;
	return 0;
}
