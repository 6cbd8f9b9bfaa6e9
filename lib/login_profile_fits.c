/* SPDX-License-Identifier: ISC */
#include <string.h>

#include "login.h"

struct fits {
	const struct login_profile *p;
	int found;
};

static int one(const struct json_value *v, void *arg)
{
	struct fits *f = arg;

	for (size_t i = 0; i < f->p->nsecrets; i++)
		if (strlen(f->p->secret[i].path) == v->path_len &&
		    !memcmp(f->p->secret[i].path, v->path, v->path_len))
			f->found = 1;
	return 0;
}

int login_profile_fits(const struct login_profile *p, const char *in, size_t len)
{
	struct fits f = { p, 0 };

	return json_scan(in, len, one, &f, NULL) == JSON_OK && f.found;
}
