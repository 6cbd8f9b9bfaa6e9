/* SPDX-License-Identifier: ISC */
#include <stdlib.h>

#include "oto.h"

unsigned long xtest_switch(const char *name, unsigned long dflt, unsigned long lo, unsigned long hi,
			   const char *what)
{
	const char *s = getenv(name);
	unsigned long v;

	if (!s)
		return dflt;
	if (opt_ulong(s, hi, &v) < 0 || v < lo)
		die_usage("%s=%s: expected %lu to %lu", name, s, lo, hi);
	/* Said aloud when it changes anything: a run with it proves nothing of a real one. */
	if (v != dflt)
		warnx("%s=%lu: %s (for tests only)", name, v, what);
	/* Never passed on: the next stage, and the agent, run as they would without it. */
	unsetenv(name);
	return v;
}
