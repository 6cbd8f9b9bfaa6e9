// FUZZ: cmd/otoprobe/parse.c lib/opt.c
/*
 * otoprobe's parsers and escapers on arbitrary bytes: names in mountinfo,
 * fd targets and environment names are chosen by the agent. Nothing may
 * crash or overflow, and the escaped forms must be inert: no control byte,
 * no unescaped quote, the length reported equal to the length written.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"
#include "otoprobe/otoprobe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_escaped(size_t (*fn)(char *, size_t, const char *), const char *s, int json)
{
	size_t need = fn(NULL, 0, s), small = need / 2 + 1;
	char *out = malloc(need + 1), *part = malloc(small);

	if (!out || !part)
		abort();
	if (fn(out, need + 1, s) != need || strlen(out) != need)
		abort();
	for (size_t i = 0; i < need; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c < 0x20 || c == 0x7f)
			abort();
		if (json && c == '"') {
			size_t bs = 0;

			for (size_t j = i; j > 0 && out[j - 1] == '\\'; j--)
				bs++;
			if (bs % 2 == 0) /* a quote that ends the string */
				abort();
		}
	}
	/* Truncated: a terminated prefix of the full output. */
	if (fn(part, small, s) != need || strncmp(part, out, strlen(part)) ||
	    strlen(part) != small - 1)
		abort();
	free(out);
	free(part);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *copy;
	struct mountinfo_ent e;
	unsigned long id;
	int ns;
	char v[64];

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	check_escaped(json_escape, s, 1);
	check_escaped(text_escape, s, 0);
	(void)uidmap_verdict(s);
	(void)env_name_is_secret(s);
	(void)status_field(s, "CapEff", v, sizeof(v));
	if (hostns_parse(s, &ns, &id) == 0 && (ns < 0 || ns >= NS_COUNT || id == 0))
		abort();
	copy = strdup(s);
	if (!copy)
		abort();
	if (mountinfo_parse(copy, &e) == 0) {
		if (!e.mountpoint || !e.options || !e.fstype || strlen(e.mountpoint) > size ||
		    e.writable !=
			(!strncmp(e.options, "rw", 2) && (!e.options[2] || e.options[2] == ',')))
			abort();
	}
	free(copy);
	free(s);
	return 0;
}
