/* SPDX-License-Identifier: ISC */
#include <errno.h>

#include "oto.h"

int exec_code(int err)
{
	/* execvp reports ENOENT (or ENOTDIR on a bad path prefix) when nothing was found. */
	return err == ENOENT || err == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
}
