/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <limits.h>
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

int opt_bytes(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0, mul = 1;
	const char *p = s;

	if (!s || *s < '0' || *s > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (ULLONG_MAX - 9) / 10)
			goto range;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	switch (*p) {
	case 0:
		break;
	case 'K':
	case 'k':
		mul = 1ULL << 10;
		break;
	case 'M':
	case 'm':
		mul = 1ULL << 20;
		break;
	case 'G':
	case 'g':
		mul = 1ULL << 30;
		break;
	case 'T':
	case 't':
		mul = 1ULL << 40;
		break;
	default:
		goto bad;
	}
	if (*p && p[1])
		goto bad;
	/* 0 is no size: a tmpfs of none, a session killed at once. */
	if (!v)
		goto bad;
	if (v > max / mul)
		goto range;
	*out = v * mul;
	return 0;
bad:
	errno = EINVAL;
	return -1;
range:
	errno = ERANGE;
	return -1;
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
