/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "oto.h"

#define VIEW_HINT "a host path outside it is not there: bind it with --ro SRC:DST"

/*
 * 127 inside a view is mostly a host path the view does not hold (a
 * program under /root, a #! interpreter installed by nvm or pyenv): the
 * message says where the search was made, and what is there instead.
 */
int exec_fail_format(char *buf, size_t size, const char *prog, int err, const char *path,
		     const char *found, const char *interp, const char *holds)
{
	const char *where = holds ? " in the sandbox's view" : "";

	if (exec_code(err) != EXIT_NOTFOUND)
		return snprintf(buf, size, "unable to exec %s", prog);
	if (found)
		return snprintf(
		    buf, size,
		    "unable to exec %s: %s is there, but its interpreter%s%s is not%s%s%s%s", prog,
		    found, interp ? " " : " (its #! line or ELF loader)", interp ? interp : "",
		    where, holds ? " (the view holds " : "", holds ? holds : "",
		    holds ? "; " VIEW_HINT ")" : "");
	if (holds)
		return snprintf(
		    buf, size,
		    "unable to exec %s: not found in the sandbox's view (%s%s%sthe view "
		    "holds %s; " VIEW_HINT ")",
		    prog, path ? "PATH=" : "", path ? path : "", path ? "; " : "", holds);
	if (path)
		return snprintf(buf, size, "unable to exec %s: not found in PATH=%s", prog, path);
	return snprintf(buf, size, "unable to exec %s", prog);
}
