// SPDX-License-Identifier: GPL-2.0
/*
 * libunwind_dl.so: the library `unwind dlopen` (unwind.c) opens with
 * dlopen while it runs, built as the program is (-O2, no frame pointers),
 * so its frames can only be unwound with its own tables, which the
 * recorder learns of only when the library is loaded. unwind_dl_work ->
 * unwind_dl_inner -> unwind_dl_leaf: two frames of the library's own
 * above its busy leaf, none of them inlined or a tail call.
 */
#include <stdint.h>

#define NOIPA	__attribute__((noipa))

/* What each frame adds to after its call: no call becomes a jump. */
static volatile uint64_t dl_sink;

static NOIPA uint64_t unwind_dl_leaf(uint64_t x)
{
	for (int i = 0; i < 200000; i++) {
		x = x * 2862933555777941757ull + 3037000493ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static NOIPA uint64_t unwind_dl_inner(uint64_t x)
{
	uint64_t r = unwind_dl_leaf(x + 1);

	dl_sink += r;
	return r;
}

NOIPA uint64_t unwind_dl_work(uint64_t x)
{
	uint64_t r = unwind_dl_inner(x + 1);

	dl_sink += r;
	return r;
}
