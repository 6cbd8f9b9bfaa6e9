/* SPDX-License-Identifier: ISC */
/* What each Landlock ABI can restrict, and what it cannot. Pure. */
#include <stdio.h>

#include "oto.h"
#include "otoexec.h"

/* The rights later ABIs added: this build's headers may predate them. */
static const struct {
	int abi;	/* the first ABI that restricts it (kernel 5.19, 6.2, 6.10) */
	uint64_t right; /* its bit */
	const char *name;
} LATER[] = {
	{ 2, 1ULL << 13, "LANDLOCK_ACCESS_FS_REFER" },
	{ 3, 1ULL << 14, "LANDLOCK_ACCESS_FS_TRUNCATE" },
	{ 5, 1ULL << 15, "LANDLOCK_ACCESS_FS_IOCTL_DEV" },
};
#define NLATER ARRAY_SIZE(LATER)

uint64_t landlock_handled(int abi)
{
	/* ABI 1: execute to make_sym, the first thirteen rights. */
	uint64_t h = (1ULL << 13) - 1;

	for (size_t i = 0; i < NLATER; i++)
		if (abi >= LATER[i].abi)
			h |= LATER[i].right;
	return h;
}

size_t landlock_unenforced(int abi, char *buf, size_t size)
{
	size_t n = 0;
	int r;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < NLATER; i++) {
		if (abi >= LATER[i].abi)
			continue;
		r = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", LATER[i].name);
		if (r < 0 || (size_t)r >= size - n)
			return 0;
		n += (size_t)r;
	}
	return n;
}
