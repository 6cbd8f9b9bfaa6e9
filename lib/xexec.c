/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <unistd.h>

#include "oto.h"

void xexec(char *const argv[])
{
	execvp(argv[0], argv);
	xexec_fail(argv[0], errno, NULL);
}
