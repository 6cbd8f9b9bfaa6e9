// FUZZ: cmd/otolog/json.c cmd/otolog/lines.c cmd/otolog/event.c cmd/otolog/summary.c
// FUZZ: cmd/otolog/text.c cmd/otolog/jsonout.c cmd/otolog/policy.c cmd/otolog/out.c
// FUZZ: cmd/otolog/record.c
/*
 * otolog on arbitrary bytes: a record the agent shaped (its names, paths
 * and programs' names are in it), cut into two reads at a point the input
 * chooses. Nothing may crash, leak or overflow, and what otolog writes must
 * stay inert: the text and --follow only printable ASCII and newlines,
 * --policy only comments and the few options it writes, each one line of
 * printable ASCII.
 *
 * The input: one byte (the cut, scaled to the rest), then the stream.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otolog/otolog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\n' && (s[i] < 0x20 || s[i] > 0x7e))
			abort();
}

static void policy_lines(const char *s, size_t n)
{
	static const char *const OK[] = { "--allow-name ",   "--allow ",	"--profile dev\n",
					  "--landlock-ro /", "--landlock-rw /", NULL };
	const char *end = s + n;

	printable(s, n);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *const *ok;

		if (!nl)
			abort(); /* every line ends */
		if (*s != '#') {
			for (ok = OK; *ok && strncmp(s, *ok, strlen(*ok)); ok++)
				;
			if (!*ok)
				abort();
		}
		s = nl + 1;
	}
}

static void one(const uint8_t *data, size_t size, size_t cut, enum otolog_mode mode, int follow)
{
	struct otolog c;

	if (otolog_init(&c, mode, follow) < 0)
		return;
	if (otolog_feed(&c, (const char *)data, cut) == 0 &&
	    otolog_feed(&c, (const char *)data + cut, size - cut) == 0 && otolog_end(&c) == 0 &&
	    c.out.buf) {
		if (strlen(c.out.buf) != c.out.len)
			abort();
		if (mode == MODE_TEXT)
			printable(c.out.buf, c.out.len);
		else if (mode == MODE_JSON)
			printable(c.out.buf, c.out.len);
		else if (mode == MODE_POLICY)
			policy_lines(c.out.buf, c.out.len);
	}
	otolog_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut;

	if (!size)
		return 0;
	cut = (size - 1) * data[0] / 255;
	data++;
	size--;
	one(data, size, cut, MODE_TEXT, 1);
	one(data, size, cut, MODE_JSON, 0);
	one(data, size, cut, MODE_POLICY, 0);
	return 0;
}
