/* SPDX-License-Identifier: ISC */
/*
 * A host name a rule may carry as it is (policy_line): the agent chooses
 * the names a session sees, and a DNS label may hold any byte ('*', ':',
 * a blank), so a name that is not a host name is never written as one.
 * Pure.
 */
#include <string.h>

#include "oto.h"

int policy_name_ok(const char *name)
{
	size_t n = strlen(name), label = 0, labels = 0, digits = 0;

	if (n < 3 || n > POLICY_NAME_MAX)
		return 0;
	for (size_t i = 0; i <= n; i++) {
		char c = name[i];

		if (c == '.' || !c) {
			/* 1 to 63 bytes, not begun or ended by '-' (empty: a dot too many). */
			if (!label || label > 63 || name[i - 1] == '-')
				return 0;
			labels++;
			if (c)
				label = digits = 0;
			continue;
		}
		if (c == '-' && !label)
			return 0;
		if (c >= '0' && c <= '9')
			digits++;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
			return 0;
		label++;
	}
	/* Two labels at least; the last not all digits (192.0.2.1 is an address). */
	return labels >= 2 && digits != label;
}
