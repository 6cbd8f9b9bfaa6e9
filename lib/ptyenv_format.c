/* SPDX-License-Identifier: ISC */
/*
 * OTO_PTY, the one value otons hands to the stage that makes the agent's pty
 * (otoexec): "SOCK:FDS". SOCK is the socket on which the stage sends the
 * pty's master to otons' supervisor; FDS names which of the fds 0, 1 and 2
 * the slave replaces (the ones otons found to be the operator's terminal),
 * as digits in increasing order, possibly none ("5:" when the terminal was
 * only the controlling one). Pure.
 */
#include <stdio.h>

#include "oto.h"

size_t ptyenv_format(char *buf, size_t size, int sock, unsigned int stdio)
{
	int r = snprintf(buf, size, "%d:%s%s%s", sock, stdio & 1 ? "0" : "", stdio & 2 ? "1" : "",
			 stdio & 4 ? "2" : "");

	return r < 0 || (size_t)r >= size ? 0 : (size_t)r;
}
