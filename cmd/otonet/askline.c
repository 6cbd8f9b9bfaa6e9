/* SPDX-License-Identifier: ISC */
/*
 * The decider's answer line (otonet(1), ASKING), pure: "ID DECISION", the
 * request's id in decimal (1 to 4294967295, no sign, no leading zero) and
 * one of allow-once, allow-session, deny, separated by one space; the
 * newline is the caller's. Nothing else: no other blank, no CR, no JSON.
 * A line that is not exactly this is garbage, and garbage makes the relay
 * stop asking (fail closed).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "oto.h"
#include "otonet.h"

const char *const ask_decision_name[] = {
	[ASK_ALLOW_ONCE] = "allow-once",
	[ASK_ALLOW_SESSION] = "allow-session",
	[ASK_DENY] = "deny",
	[ASK_TIMEOUT] = "timeout",
	[ASK_GONE] = "decider-gone",
	[ASK_LIMIT] = "limit",
};
_Static_assert(ARRAY_SIZE(ask_decision_name) == ASK_NUM_DECISIONS,
	       "ask_decision_name[] does not name every enum ask_decision");

int ask_answer_parse(const char *s, size_t n, uint32_t *id, enum ask_decision *d)
{
	uint64_t v = 0;
	size_t i = 0;

	if (!n || s[0] < '1' || s[0] > '9')
		goto bad;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			goto bad;
	}
	if (i == n || s[i] != ' ')
		goto bad;
	i++;
	/* Only the three a decider may give: the others are the relay's own. */
	for (int k = ASK_ALLOW_ONCE; k <= ASK_DENY; k++) {
		size_t len = strlen(ask_decision_name[k]);

		if (n - i == len && !memcmp(s + i, ask_decision_name[k], len)) {
			*id = (uint32_t)v;
			*d = (enum ask_decision)k;
			return 0;
		}
	}
bad:
	errno = EINVAL;
	return -1;
}
