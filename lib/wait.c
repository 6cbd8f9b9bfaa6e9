/* SPDX-License-Identifier: ISC */
#include <sys/wait.h>

#include "oto.h"

int wait_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_SYS;
}
