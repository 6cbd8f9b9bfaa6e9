// FUZZ: cmd/otonet/askline.c
/*
 * The decider's answers are another program's bytes: the parser takes any
 * line, and accepts only what prints back as itself ("ID DECISION").
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otonet/otonet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char again[64];
	uint32_t id;
	enum ask_decision d;
	int n;

	if (ask_answer_parse((const char *)data, size, &id, &d) < 0)
		return 0;
	if (id == 0 || d > ASK_DENY)
		abort();
	n = snprintf(again, sizeof(again), "%u %s", id, ask_decision_name[d]);
	if (n < 0 || (size_t)n != size || memcmp(again, data, size))
		abort();
	return 0;
}
