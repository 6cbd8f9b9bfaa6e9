// FUZZ: lib/policy_line.c lib/policy_name_ok.c
/*
 * The config line a destination becomes (otoask --save, otolog --policy)
 * over any bytes the agent may choose. Input: the name, a NUL, the
 * address, a NUL, the port's two bytes (big-endian; 0 a DNS question).
 * A name written as a rule is a host name by the checker's own promise
 * (2 labels or more of letters, digits and '-', not at a label's ends, 1
 * to 63 bytes each, 253 in all, the last not all digits); a line has no
 * byte outside printable ASCII nor a blank but the one after the option;
 * a note none outside printable ASCII: nothing the agent chose may end a
 * comment's line or add one. Nothing may crash or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The checker's promise, said again another way. */
static int host_name(const char *s)
{
	size_t n = strlen(s), start = 0, labels = 0;
	int digits_only = 0;

	if (n < 1 || n > 253)
		return 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		size_t len = i - start;

		if (len < 1 || len > 63 || s[start] == '-' || s[i - 1] == '-')
			return 0;
		digits_only = 1;
		for (size_t k = start; k < i; k++) {
			char c = s[k];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
			      (c >= '0' && c <= '9')))
				return 0;
			if (c < '0' || c > '9')
				digits_only = 0;
		}
		labels++;
		start = i + 1;
	}
	return labels >= 2 && !digits_only;
}

static void printable(const char *s, int blanks)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || (!blanks && *s == ' '))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[600], addr[600], line[300], note[400];
	struct policy_dest d = { .proto = "tcp", .name = name, .addr = addr };
	const uint8_t *z1, *z2;
	enum policy_kind k;

	z1 = memchr(data, 0, size);
	if (!z1 || (size_t)(z1 - data) >= sizeof(name))
		return 0;
	z2 = memchr(z1 + 1, 0, size - (size_t)(z1 + 1 - data));
	if (!z2 || (size_t)(z2 - z1 - 1) >= sizeof(addr) || size - (size_t)(z2 + 1 - data) != 2)
		return 0;
	memcpy(name, data, (size_t)(z1 - data) + 1);
	memcpy(addr, z1 + 1, (size_t)(z2 - z1));
	d.port = (unsigned int)z2[1] << 8 | z2[2];
	if (policy_name_ok(name) != host_name(name))
		abort();
	k = policy_line(&d, line, sizeof(line), note, sizeof(note));
	printable(note, 1);
	if (k == POLICY_NONE) {
		if (line[0])
			abort();
		return 0;
	}
	if (strncmp(line, k == POLICY_ADDR ? "--allow " : "--allow-name ",
		    k == POLICY_ADDR ? 8 : 13))
		abort();
	printable(strchr(line, ' ') + 1, 0);
	if (k != POLICY_ADDR && (!*name || !host_name(name)))
		abort();
	if (k == POLICY_ADDR && *name)
		abort();
	return 0;
}
