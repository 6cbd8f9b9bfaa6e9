/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <sys/capability.h>

#include "oto.h"

void xcaps_drop_all(const char *who)
{
	cap_t none;

	for (cap_value_t c = 0; c <= 63; c++)
		if (cap_drop_bound(c) < 0 && errno != EINVAL)
			die(EXIT_SYS, errno, "%s: unable to drop capability %d from its bounding set",
			    who, (int)c);
	if (cap_reset_ambient() < 0)
		die(EXIT_SYS, errno, "%s: unable to clear its ambient capabilities", who);
	none = cap_init();
	if (!none || cap_set_proc(none) < 0)
		die(EXIT_SYS, errno, "%s: unable to drop its capabilities", who);
	cap_free(none);
}
