/* SPDX-License-Identifier: GPL-2.0 */
/*
 * (a * b) >> shift with a 128-bit product, for the clocks and the scheduler
 * map that every switch reads.
 *
 * The kernel's mul_u64_u64_shr() and mul_u64_u32_shr() compute it through
 * an unsigned __int128. GCC gives such a temporary 16-byte alignment, and
 * the kernel's stack is aligned to 8 (-mpreferred-stack-boundary=3), so
 * every function that inlines one realigns its stack frame on entry and
 * undoes it on return, whether or not the value ever reaches the stack:
 * 6 instructions a call, on every probe that reads a clock. One mulq gives
 * the same 128-bit product without the type (as x86's own
 * mul_u64_u64_div_u64() does it).
 */
#ifndef _NTKL_MUL_H
#define _NTKL_MUL_H

#include <linux/math64.h>
#include <linux/types.h>

static __always_inline u64 ntkl_mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
#ifdef CONFIG_X86_64
	u64 lo, hi;

	if (__builtin_constant_p(shift) && shift > 0 && shift < 64) {
		/* the product's middle bits in one shrd, not two shifts and an or */
		asm ("mulq %2\n\tshrdq %3, %1, %0"
		     : "=&a" (lo), "=&d" (hi) : "rm" (b), "i" (shift), "0" (a));
		return lo;
	}
	asm ("mulq %3" : "=a" (lo), "=d" (hi) : "0" (a), "rm" (b));
	if (shift == 0)
		return lo;
	if (shift >= 64)
		return hi >> (shift - 64);
	return hi << (64 - shift) | lo >> shift;
#else
	return mul_u64_u64_shr(a, b, shift);
#endif
}

#endif /* _NTKL_MUL_H */
