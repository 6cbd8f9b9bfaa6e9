/* SPDX-License-Identifier: ISC */
/*
 * otomount_swap DIR A B SECONDS: swap the names A and B in DIR (a directory
 * and a symlink) with renameat2(RENAME_EXCHANGE) as fast as possible, for at
 * most SECONDS, or until killed. Races otomount's opening of a source path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
	unsigned long n = 0;
	time_t end;
	int dir;

	if (argc != 5)
		return 100;
	dir = open(argv[1], O_PATH | O_DIRECTORY);
	if (dir < 0)
		return 111;
	end = time(NULL) + atoi(argv[4]);
	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, n++)
			if (syscall(SYS_renameat2, dir, argv[2], dir, argv[3], RENAME_EXCHANGE) < 0)
				return 111;
	}
	printf("%lu\n", n);
	return 0;
}
