/* SPDX-License-Identifier: ISC */
/*
 * A compiled filter set: the bytes otoexec loads. The build embeds the
 * built-in profiles' sets in this format (gen/bpfgen.c), --print-bpf writes
 * one, --bpf-fd reads one, and a profile compiled at run time becomes one
 * too, so every filter otoexec loads goes through the same check and the same
 * load.
 *
 *   head     8 bytes "otobpf1\n", u32 audit arch (AUDIT_ARCH_*, which is
 *            libseccomp's SCMP_ARCH_*), u32 number of programs (1 to 4)
 *   program  u32 instruction count (1 to 4096, the kernel's BPF_MAXINSNS),
 *            u32 flags (0: reserved), then the struct sock_filter
 *            instructions, 8 bytes each
 *
 * Native byte order, programs in load order, nothing after the last. The
 * kernel checks each program's instructions when it loads it; this checks
 * the framing, so that a truncated or foreign file is refused by name.
 * Pure: no allocation, no system call.
 */
#include <linux/filter.h>
#include <stdint.h>
#include <string.h>

#include "otoexec.h"

#define HEAD_LEN  16
#define PHEAD_LEN 8

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

enum bpf_set_err bpf_set_parse(const void *buf, size_t len, uint32_t arch, struct bpf_set *s)
{
	const unsigned char *b = buf;
	size_t pos = HEAD_LEN;
	uint32_t n;

	memset(s, 0, sizeof(*s));
	if (len < HEAD_LEN || memcmp(b, BPF_SET_MAGIC, 8))
		return BPF_SET_NOT;
	/* The instructions are used in place: they must be aligned as the kernel's structs. */
	if ((uintptr_t)b % _Alignof(struct sock_filter))
		return BPF_SET_ALIGN;
	s->arch = u32_at(b + 8);
	n = u32_at(b + 12);
	if (n < 1 || n > BPF_SET_MAX)
		return BPF_SET_COUNT;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t insns, flags;

		if (len - pos < PHEAD_LEN)
			return BPF_SET_SHORT;
		insns = u32_at(b + pos);
		flags = u32_at(b + pos + 4);
		pos += PHEAD_LEN;
		if (insns < 1 || insns > BPF_SET_MAXINSNS)
			return BPF_SET_LENGTH;
		if (flags)
			return BPF_SET_FLAGS;
		if ((len - pos) / sizeof(struct sock_filter) < insns)
			return BPF_SET_SHORT;
		s->prog[i].insn = (const struct sock_filter *)(const void *)(b + pos);
		s->prog[i].len = (uint16_t)insns;
		pos += insns * sizeof(struct sock_filter);
	}
	s->nprog = n;
	if (pos != len)
		return BPF_SET_TRAILING;
	/* Last: a set that is whole but for another machine is told apart. */
	if (s->arch != arch)
		return BPF_SET_ARCH;
	return BPF_SET_OK;
}

const char *bpf_set_strerror(enum bpf_set_err e)
{
	switch (e) {
	case BPF_SET_OK:
		return "no error";
	case BPF_SET_NOT:
		return "not a filter set (no \"otobpf1\" head; otoexec --print-bpf writes one)";
	case BPF_SET_ALIGN:
		return "the instructions are not aligned in memory";
	case BPF_SET_COUNT:
		return "the number of programs is not 1 to 4";
	case BPF_SET_LENGTH:
		return "a program's length is not 1 to 4096 instructions";
	case BPF_SET_FLAGS:
		return "a program's flags (reserved) are not 0";
	case BPF_SET_SHORT:
		return "truncated: shorter than its programs' lengths say";
	case BPF_SET_TRAILING:
		return "bytes after the last program";
	case BPF_SET_ARCH:
		return "compiled for another architecture";
	default:
		return "unknown error";
	}
}

size_t bpf_set_size(const size_t *insns, size_t nprog)
{
	size_t n = HEAD_LEN;

	for (size_t i = 0; i < nprog; i++)
		n += PHEAD_LEN + insns[i] * sizeof(struct sock_filter);
	return n;
}

size_t bpf_set_head(unsigned char *out, uint32_t arch, uint32_t nprog)
{
	memcpy(out, BPF_SET_MAGIC, 8);
	memcpy(out + 8, &arch, 4);
	memcpy(out + 12, &nprog, 4);
	return HEAD_LEN;
}

size_t bpf_set_prog_head(unsigned char *out, uint32_t insns)
{
	uint32_t flags = 0;

	memcpy(out, &insns, 4);
	memcpy(out + 4, &flags, 4);
	return PHEAD_LEN;
}

/*
 * The allowlist's prefix (see otoexec.h): on the native architecture, a
 * number in one of a group's ranges returns that group's action at once;
 * anything else falls through to the program that follows, which handles
 * the architecture and the rest as before. Two instructions per range, where
 * libseccomp makes a rule of each number: the numbers this build does not
 * know (about 650 of them on x86-64) and the calls allowed without condition
 * (about 280, in 37 ranges for the default profile); the allowlist's load,
 * JIT and free cost time in proportion to its instructions.
 */
size_t bpf_prefix(struct sock_filter *out, uint32_t arch, const struct bpf_prefix_group *g,
		  size_t ng)
{
	size_t n = 0, len, i = 0, ret_at;

	if (ng > BPF_PREFIX_MAX_GROUPS)
		return 0;
	for (size_t k = 0; k < ng; k++)
		n += g[k].n;
	if (n > BPF_PREFIX_MAX_RANGES)
		return 0;
	len = BPF_PREFIX_LEN(n, ng);
	ret_at = len - ng; /* the groups' RETs, last, in group order */
	/* seccomp_data: nr at offset 0, arch at 4. */
	out[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4);
	out[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0,
						(unsigned char)(len - 2));
	out[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	for (size_t k = 0; k < ng; k++)
		for (size_t r = 0; r < g[k].n; r++, i += 2) {
			/* Below the range or above it: the next one; inside: the group's RET. */
			out[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
							      g[k].range[r][0], 0, 1);
			out[i + 1] = (struct sock_filter)BPF_JUMP(
			    BPF_JMP | BPF_JGT | BPF_K, g[k].range[r][1], 0,
			    (unsigned char)(ret_at + k - (i + 1) - 1));
		}
	/* None matched: over the RETs, to the program. */
	out[i++] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, (uint32_t)ng);
	for (size_t k = 0; k < ng; k++)
		out[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, g[k].ret);
	return i;
}
