// FUZZ: cmd/otons/ttyfilter.c
/*
 * otons' filter of what the agent writes to the person's terminal, on
 * arbitrary bytes: no crash or overflow (the output buffer is exactly
 * TTYF_OUT_MAX), the same output whether the bytes come at once or cut in
 * two (the first byte picks the cut), nothing it drops in what it writes
 * (its output, filtered again, is itself), and a reset that fits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otons/ttyfilter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const NEVER[] = { "\033P",	"\033_",    "\033^",   "\033X", "\033%",
				     "\033]52", "\033[21t", "\033[5n", "\005" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ttyf f, g;
	unsigned char *a, *b, *c;
	char r[TTYF_RESET_MAX];
	size_t na, nb, nc, cut;

	if (!size || size > 65536)
		return 0;
	cut = data[0] % size;
	a = malloc(TTYF_OUT_MAX(size) + 1);
	b = malloc(TTYF_OUT_MAX(size));
	if (!a || !b)
		abort();
	ttyf_init(&f);
	na = ttyf_run(&f, data, size, a);
	if (na > TTYF_OUT_MAX(size))
		abort();
	ttyf_init(&g);
	nb = ttyf_run(&g, data, cut, b);
	nb += ttyf_run(&g, data + cut, size - cut, b + nb);
	if (na != nb || memcmp(a, b, na) || f.flags != g.flags)
		abort();
	for (size_t i = 0; i < ARRAY_SIZE(NEVER); i++)
		if (memmem(a, na, NEVER[i], strlen(NEVER[i])))
			abort();
	/* Again, with one byte of text after it: a 0xC2 at its end is then written too. */
	c = malloc(TTYF_OUT_MAX(na + 1));
	if (!c)
		abort();
	a[na] = 'x';
	ttyf_init(&g);
	nc = ttyf_run(&g, a, na + 1, c);
	if (nc != na + 1 || memcmp(a, c, na + 1))
		abort();
	if (ttyf_reset(&f, r, sizeof(r)) > TTYF_RESET_MAX ||
	    (f.flags && !ttyf_reset(&f, r, sizeof(r))))
		abort();
	free(a);
	free(b);
	free(c);
	return 0;
}
