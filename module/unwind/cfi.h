/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file's DWARF call frame information (.eh_frame), compiled into
 * the rows a user stack walk looks up: for each address range of the
 * file's code, how to find the caller's frame from the registers a walk
 * keeps (instruction pointer, stack pointer, frame pointer). This is the
 * part of the CFI a walk needs on x86-64, where the return address is
 * always the word below the CFA and only the frame pointer among the
 * callee-saved registers can hold the caller's CFA.
 *
 * Pure computation over bytes already read, with no kernel facility but
 * sort(): the module compiles tables with it in process context
 * (unwind/table.c), and userspace/tests/test_unwind_cfi.c compiles the
 * same file against elfutils' libdw, the independent reading.
 */
#ifndef _NTKL_UNWIND_CFI_H
#define _NTKL_UNWIND_CFI_H

#include <linux/limits.h>
#include <linux/types.h>

/* What a row says of the frame at its addresses. */
enum ntkl_cfi_kind {
	NTKL_CFI_NONE = 0,	/* no unwind data: the walk falls back to rbp */
	NTKL_CFI_CFA,		/* CFA = reg + cfa_off */
	NTKL_CFI_CFA_DEREF,	/* CFA = *(reg + cfa_off): a realigned frame */
	NTKL_CFI_PLT,		/* CFA = rsp + cfa_off (+ 8 once ip & 15 >= plt_push) */
	NTKL_CFI_SIGNAL,	/* a signal frame: the registers are in its ucontext */
	NTKL_CFI_END,		/* the outermost frame (return address undefined) */
};

/* The registers a CFA is computed from. */
enum ntkl_cfi_reg {
	NTKL_CFI_REG_SP = 0,
	NTKL_CFI_REG_BP = 1,
};

/*
 * One rule, from pc to the next row's pc. pc is the file's own virtual
 * address (as its program headers give it, not where it is mapped). The
 * return address is at CFA - 8; the caller's rbp at CFA + bp_off when
 * bp_off is not 0, else rbp is unchanged; but in a NTKL_CFI_CFA_DEREF
 * row (a frame that realigned its stack and keeps its CFA in a slot),
 * always at rbp + bp_off: where the frame's own rbp points.
 */
struct ntkl_cfi_row {
	u32 pc;
	u8 kind;		/* enum ntkl_cfi_kind */
	u8 reg;			/* enum ntkl_cfi_reg; for NTKL_CFI_PLT: plt_push */
	s16 bp_off;
	s32 cfa_off;
};

/* Why rows were not made, counted by ntkl_cfi_compile(). */
struct ntkl_cfi_stats {
	u32 fdes;		/* FDEs read */
	u32 unsupported;	/* rows of a rule the walk cannot follow (NTKL_CFI_NONE) */
	u32 bad;		/* CIEs or FDEs that could not be read: skipped */
};

/*
 * Compile the .eh_frame section at eh (size bytes, loaded at the file's
 * virtual address eh_vaddr) into rows: up to max rows at rows (NULL: only
 * count them), unsorted. Returns the number of rows the section needs,
 * or -EINVAL if it is not .eh_frame at all. Never reads outside eh.
 */
long ntkl_cfi_compile(const u8 *eh, size_t size, u64 eh_vaddr, struct ntkl_cfi_row *rows,
		      size_t max, struct ntkl_cfi_stats *stats);

/*
 * Sort n compiled rows by pc and fold them: a range's end (NTKL_CFI_NONE)
 * gives way to a rule that starts at the same pc, and a row that says what
 * the row before it says goes. Returns the rows left. scratch, room for n
 * rows, makes it a merge of the rows' ascending runs (NULL: a heapsort).
 */
size_t ntkl_cfi_sort(struct ntkl_cfi_row *rows, size_t n, struct ntkl_cfi_row *scratch);

/* The last of rows [lo, hi) whose pc <= pc (rows[lo].pc <= pc): a binary search. */
static inline const struct ntkl_cfi_row *
ntkl_cfi_search(const struct ntkl_cfi_row *rows, size_t lo, size_t hi, u64 pc)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &rows[lo];
}

/* The row whose range holds pc, or NULL: a binary search of sorted rows. */
static inline const struct ntkl_cfi_row *
ntkl_cfi_find(const struct ntkl_cfi_row *rows, size_t n, u64 pc)
{
	if (!n || pc < rows[0].pc || pc > U32_MAX)
		return NULL;
	return ntkl_cfi_search(rows, 0, n, pc);
}

/*
 * An index of sorted rows by the code they cover, so that a walk's lookup
 * searches a few rows rather than all of them (libc's 28,000: fifteen
 * steps of a binary search, most of a frame's cost). The code from
 * rows[0].pc on is cut into buckets of 2^NTKL_CFI_BUCKET_SHIFT bytes;
 * index[b] is the row that holds the bucket's first byte. 256-byte
 * buckets hold some five of libc's rows (one per 53 bytes of its code)
 * and cost 4 bytes each: the index is 1/16 of the rows' memory.
 */
#define NTKL_CFI_BUCKET_SHIFT	8

/* The entries of n sorted rows' index (0: none, n is 0). */
static inline size_t ntkl_cfi_index_size(const struct ntkl_cfi_row *rows, size_t n)
{
	return n ? ((size_t)(rows[n - 1].pc - rows[0].pc) >> NTKL_CFI_BUCKET_SHIFT) + 2 : 0;
}

/* Fill index (ntkl_cfi_index_size() entries) for n sorted rows. */
void ntkl_cfi_index(const struct ntkl_cfi_row *rows, size_t n, u32 *index);

/* ntkl_cfi_find() by the index of rows (made by ntkl_cfi_index()). */
static inline const struct ntkl_cfi_row *
ntkl_cfi_find_indexed(const struct ntkl_cfi_row *rows, size_t n, const u32 *index, u64 pc)
{
	size_t b;

	if (!n || pc < rows[0].pc || pc > U32_MAX)
		return NULL;
	b = (pc - rows[0].pc) >> NTKL_CFI_BUCKET_SHIFT;
	if (b + 1 >= ntkl_cfi_index_size(rows, n))
		return &rows[n - 1];		/* past the last row's pc */
	/* the row that holds pc is at or after its bucket's and at or before the next's */
	return ntkl_cfi_search(rows, index[b], index[b + 1] + 1, pc);
}

#endif /* _NTKL_UNWIND_CFI_H */
