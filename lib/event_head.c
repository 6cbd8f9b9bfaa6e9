/* SPDX-License-Identifier: ISC */
#include <stdio.h>
#include <time.h>

#include "oto.h"

/*
 * The UTC calendar date of a day count since 1970-01-01, by arithmetic
 * (the proleptic Gregorian calendar in eras of 400 years): no gmtime_r,
 * which in glibc reads the zone files once, a system call otonet's locked
 * relay does not make.
 */
static void civil(long long days, long long *y, unsigned *m, unsigned *d)
{
	long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (long long)yoe + era * 400 + (*m <= 2);
}

int event_head(char *buf, size_t size, const struct timespec *t, const char *source,
	       const char *session)
{
	long long sec = t->tv_sec, days = sec / 86400, rem = sec % 86400, y;
	unsigned m, d;
	int n;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil(days, &y, &m, &d);
	n = snprintf(buf, size,
		     "{\"time\":\"%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06ldZ\","
		     "\"source\":\"%s\",\"session\":\"%s\"",
		     y, m, d, rem / 3600, rem / 60 % 60, rem % 60, t->tv_nsec / 1000, source,
		     session);
	return n > 0 && (size_t)n < size ? n : 0;
}
