/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks by the binaries' own unwind tables (.eh_frame), for code
 * built without frame pointers, as distributions build it. Three parts:
 *
 *   table.c  one file's rows (unwind/cfi.h), read from the file in
 *            process context, shared by every process that maps it;
 *   maps.c   each process's executable mappings and the table of each,
 *            made by a worker when a walk first meets the process (or
 *            an address it has not seen), published with RCU;
 *   walk.c   the walk in a probe: a lookup of a row (cfi.h's index) and
 *            two or three non-faulting reads of the user stack per
 *            frame; and the memo of what a walk read, by which a thread
 *            switched out where it was before is checked, not walked.
 *
 * docs/design.md ("User stacks") says what they cost and where a walk
 * stops.
 */
#ifndef _NTKL_UNWIND_H
#define _NTKL_UNWIND_H

#include <linux/types.h>

#include "uapi/ntkl.h"

struct ntkl_stack;
struct pt_regs;
struct mm_struct;
struct file;

/* The words of user stack a memo keeps: 16 make some ten frames. */
#define NTKL_UNWIND_MEMO_READS	16
#define NTKL_UNWIND_MEMO_NONE	U32_MAX

/*
 * What one walk read: the registers it began from, which maps it looked
 * rows up in (ntkl_unwind_maps_gen()) and every word of stack it read. A
 * walk of the same thread from the same registers that finds the same
 * maps and the same words gives the same frames, so a thread that blocks
 * again where it blocked before (a wait loop) is checked, not walked
 * (stack_parked.c). The frames are in it too: the instruction pointer,
 * then the words that were return addresses (rets). Kept only for a walk
 * that reached the stack's end by rows alone: a step without a row also
 * reads code, and a walk that stopped early may go further once a map is
 * remade.
 */
struct ntkl_unwind_memo {
	unsigned long ip, sp, bp;
	u32 maps_gen;
	u32 reads;			/* NTKL_UNWIND_MEMO_NONE: no memo */
	u32 rets;			/* bit i: word[i] is a frame */
	u32 off[NTKL_UNWIND_MEMO_READS];	/* each word's address less sp */
	unsigned long word[NTKL_UNWIND_MEMO_READS];
};

/*
 * The user frames after regs' own instruction pointer (already in st),
 * of the current thread, by unwind tables where they are known and by
 * its frame pointer where they are not; why the walk ended goes in
 * st->user_stop, what it read in memo (NULL: not wanted). Page faults
 * disabled by the caller, any context.
 */
void ntkl_unwind_walk(struct ntkl_stack *st, struct pt_regs *regs, struct ntkl_unwind_memo *memo);

/*
 * Would a walk of the current thread from regs give memo's frames again?
 * Page faults disabled by the caller, any context.
 */
bool ntkl_unwind_memo_holds(const struct ntkl_unwind_memo *memo, const struct pt_regs *regs);

/* A kept memo's frames into frames (room for NTKL_UNWIND_MEMO_READS + 1): their number. */
u32 ntkl_unwind_memo_frames(const struct ntkl_unwind_memo *memo, u64 *frames);

/* Are the tables wanted (a running logger walks stacks by them)? */
bool ntkl_unwind_wanted(void);

/*
 * mm (current's) mapped a file with code (image.c's probe, any context):
 * its map is remade now rather than when a walk misses the new code, so a
 * library ld.so maps is in the map by the time the program runs it.
 */
void ntkl_unwind_mapped(struct mm_struct *mm);

/* maps.c: turned on and off by the unwind producer, in process context */
int ntkl_unwind_maps_init(void);
void ntkl_unwind_maps_exit(void);
void ntkl_unwind_maps_enable(bool on);

/*
 * Which maps walks now find: a number that moves whenever any process's
 * map is made or dropped (rarely: a program starts, maps code, ends).
 */
u32 ntkl_unwind_maps_gen(void);

/* walk.c's view of a process's mapping of one executable range */
struct ntkl_unwind_table;
struct ntkl_unwind_range {
	unsigned long start, end;
	u64 delta;			/* + an address in it: the file's address */
	const struct ntkl_unwind_table *table;	/* NULL: no unwind data */
};

/*
 * The range of the current process's mappings that holds ip, or NULL
 * (and *why the reason: NTKL_USTOP_NO_MAP while its map is being made).
 * Under RCU (a probe's preemption-off section), any context.
 */
const struct ntkl_unwind_range *ntkl_unwind_find_range(struct mm_struct *mm, unsigned long ip,
						       enum ntkl_user_stop *why);

/* table.c */
struct ntkl_cfi_row;
const struct ntkl_cfi_row *ntkl_unwind_table_row(const struct ntkl_unwind_table *t, u64 pc);
/* the table of the file a process maps, or NULL; a reference (worker only) */
struct ntkl_unwind_table *ntkl_unwind_table_get(struct file *file);
void ntkl_unwind_table_put(struct ntkl_unwind_table *t);
/* where an offset of the file lies in its address space: false if in no code segment */
bool ntkl_unwind_table_vaddr(const struct ntkl_unwind_table *t, u64 file_off, u64 *vaddr);
void ntkl_unwind_tables_free(void);

#endif /* _NTKL_UNWIND_H */
