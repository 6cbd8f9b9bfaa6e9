// FUZZ: cmd/otoexec/profile.c build/gen/otoexec/default_profile.c build/gen/otoexec/dev_profile.c
/*
 * The profile parser on arbitrary bytes: it must never crash, leak or read
 * out of bounds, and what it accepts must be self-consistent.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otoexec/otoexec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct prof_error e;

	if (profile_parse((const char *)data, size, &p, &e) == 0) {
		for (size_t i = 0; i < p.nrules; i++) {
			const struct prof_rule *r = &p.rules[i];

			if (r->ncond > PROF_MAX_CONDS || r->line < 1)
				abort();
			for (unsigned int j = 0; j < r->ncond; j++)
				if (r->cond[j].arg > 5)
					abort();
			if (r->a.act == PACT_ERRNO && (r->a.err < 1 || r->a.err > 4095))
				abort();
		}
		profile_free(&p);
	} else {
		/* A rejection always says where and why. */
		if (!e.msg[0] || memchr(e.msg, 0, sizeof(e.msg)) == NULL)
			abort();
		if (p.rules)
			abort();
	}
	return 0;
}
