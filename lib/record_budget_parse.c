/* SPDX-License-Identifier: ISC */
/*
 * The value of --log-budget, as otonet and otons both take it, so that the
 * two writers of one record can never be bounded differently. Pure.
 */
#include "oto.h"

int record_budget_parse(const char *s, unsigned long long *out)
{
	if (opt_bytes(s, RECORD_BUDGET_MAX, out) < 0 || *out < RECORD_BUDGET_MIN)
		return -1;
	return 0;
}
