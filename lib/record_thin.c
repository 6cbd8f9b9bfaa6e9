/* SPDX-License-Identifier: ISC */
#include <stdio.h>
#include <time.h>

#include "oto.h"

int record_worth_a_line(unsigned long count)
{
	if (count <= RECORD_FIRST)
		return 1;
	while (count % 10 == 0)
		count /= 10;
	return count == 1;
}

int record_budget_take(struct record_budget *b, size_t n)
{
	if (!b->spent && n <= b->left) {
		b->left -= n;
		b->written++;
		return 1;
	}
	b->unwritten++;
	if (b->spent)
		return 0;
	b->spent = 1;
	return -1;
}

size_t record_budget_line(char *buf, size_t size, const struct timespec *t, const char *source,
			  const char *session, const struct record_budget *b, int end)
{
	int h = event_head(buf, size, t, source, session), n;

	if (!h)
		return 0;
	n = snprintf(buf + h, size - (size_t)h,
		     ",\"verdict\":\"budget\",\"rule\":\"%s\",\"budget\":%llu,\"written\":%lu,"
		     "\"unwritten\":%lu}\n",
		     end ? "budget-end" : "budget-spent", b->budget, b->written, b->unwritten);
	return n > 0 && (size_t)n < size - (size_t)h ? (size_t)h + (size_t)n : 0;
}
