/* SPDX-License-Identifier: ISC */
/*
 * For the unit tests of seccomp filters (test_otoexec_filter.c,
 * test_otonet_filter.c): a small classic-BPF interpreter, the instructions
 * libseccomp's programs use, run on a struct seccomp_data as the kernel does.
 */
#ifndef OTO_TESTS_BPF_RUN_H
#define OTO_TESTS_BPF_RUN_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Classic BPF as seccomp runs it, on a struct seccomp_data; -1: an instruction not handled. */
static int64_t bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	const unsigned char *data = (const unsigned char *)d;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t v;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k + 4 > sizeof(*d))
				return -1;
			memcpy(&a, data + i->k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = i->k;
			break;
		case BPF_LD | BPF_MEM:
			a = mem[i->k % BPF_MEMWORDS];
			break;
		case BPF_LDX | BPF_IMM:
			x = i->k;
			break;
		case BPF_LDX | BPF_MEM:
			x = mem[i->k % BPF_MEMWORDS];
			break;
		case BPF_ST:
			mem[i->k % BPF_MEMWORDS] = a;
			break;
		case BPF_STX:
			mem[i->k % BPF_MEMWORDS] = x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_X: {
			int t;

			v = BPF_SRC(i->code) == BPF_X ? x : i->k;
			switch (BPF_OP(i->code)) {
			case BPF_JEQ:
				t = a == v;
				break;
			case BPF_JGT:
				t = a > v;
				break;
			case BPF_JGE:
				t = a >= v;
				break;
			case BPF_JSET:
			default:
				t = (a & v) != 0;
				break;
			}
			pc += t ? i->jt : i->jf;
			break;
		}
		case BPF_RET | BPF_K:
			return i->k;
		case BPF_RET | BPF_A:
			return a;
		default:
			return -1;
		}
	}
	return -1; /* fell off the end: the kernel's checker refuses such a program */
}

#endif
