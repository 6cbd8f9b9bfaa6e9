/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <unistd.h>

#include "oto.h"

void xexec(char *const argv[])
{
	execvp(argv[0], argv);
	die(exec_code(errno), errno, "unable to exec %s", argv[0]);
}
