// FUZZ: lib/why_format.c
/*
 * The agent's short lines are made from record lines that carry names the
 * agent chose: whatever the line, the result fits, ends with one newline,
 * and holds nothing but printable ASCII.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[WHY_LINE_MAX];
	char *line = malloc(size ? size : 1);
	size_t n;

	if (!line)
		return 0;
	memcpy(line, data, size);
	n = why_format(out, sizeof(out), line, size);
	free(line);
	if (!n)
		return 0;
	if (n >= sizeof(out) || out[n] || out[n - 1] != '\n')
		abort();
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			abort();
	return 0;
}
