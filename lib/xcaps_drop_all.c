/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "oto.h"

/*
 * Every capability, from every set. Capabilities are numbered without gaps
 * from 0, so the first EINVAL from the bounding set is the end of the
 * kernel's list (64 calls became 42 with 41 capabilities). Ambient in one
 * call (PR_CAP_AMBIENT_CLEAR_ALL), where libcap's cap_reset_ambient asks about
 * each capability first (42 calls more); EINVAL there is a kernel without
 * ambient capabilities (before 4.3): nothing to clear.
 */
void xcaps_drop_all(const char *who)
{
	cap_t none;

	for (cap_value_t c = 0; c <= 63; c++)
		if (cap_drop_bound(c) < 0) {
			if (errno == EINVAL && c > 0)
				break;
			die(EXIT_SYS, errno,
			    "%s: unable to drop capability %d from its bounding set", who, (int)c);
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		die(EXIT_SYS, errno, "%s: unable to clear its ambient capabilities", who);
	none = cap_init();
	if (!none || cap_set_proc(none) < 0)
		die(EXIT_SYS, errno, "%s: unable to drop its capabilities", who);
	cap_free(none);
}
