// FUZZ: cmd/otoexec/bpf.c
/*
 * The filter set format (what --bpf-fd reads) on arbitrary bytes: it must
 * never crash or read out of bounds, and a set it accepts must lie wholly
 * inside the input, its programs in order and within the kernel's limits.
 */
#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otoexec/otoexec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parser uses the instructions in place, so it needs them aligned. */
	uint64_t *buf = malloc(size + 8);
	const unsigned char *b, *end, *prev;
	struct bpf_set s;

	if (!buf)
		return 0;
	b = (const unsigned char *)buf;
	end = b + size;
	prev = b + 16;
	memcpy(buf, data, size);
	if (bpf_set_parse(b, size, 0xc000003e, &s) == BPF_SET_OK) {
		if (s.nprog < 1 || s.nprog > BPF_SET_MAX)
			abort();
		for (size_t i = 0; i < s.nprog; i++) {
			const unsigned char *p = (const unsigned char *)s.prog[i].insn;

			if (s.prog[i].len < 1 || s.prog[i].len > BPF_SET_MAXINSNS || p < prev + 8 ||
			    p + s.prog[i].len * sizeof(struct sock_filter) > end)
				abort();
			prev = p + s.prog[i].len * sizeof(struct sock_filter);
		}
		if (prev != end)
			abort();
	}
	free(buf);
	return 0;
}
