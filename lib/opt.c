/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"

int opt_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul accepts leading space and a sign; an option value may have neither. */
	if (!s || *s < '0' || *s > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int opt_id(const char *s, unsigned int *out)
{
	unsigned long v;

	/* (uid_t)-1 means "no change" to set*id(2): never a real id. */
	if (opt_ulong(s, 0xfffffffeUL, &v) < 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int opt_split2(const char *s, char *a, size_t asz, char *b, size_t bsz)
{
	const char *colon = strchr(s, ':');
	size_t la, lb;

	if (!colon) {
		errno = EINVAL;
		return -1;
	}
	la = (size_t)(colon - s);
	lb = strlen(colon + 1);
	if (!la || !lb) {
		errno = EINVAL;
		return -1;
	}
	if (la >= asz || lb >= bsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(a, s, la);
	a[la] = 0;
	memcpy(b, colon + 1, lb + 1);
	return 0;
}
