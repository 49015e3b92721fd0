// SPDX-License-Identifier: GPL-2.0
/*
 * The user stack walk by unwind tables, in a probe (any context, NMI
 * included; page faults disabled by the caller). From the thread's user
 * registers, each step finds the row of the code address (the first
 * frame's own ip; a caller's return address less one, so that a call
 * that ends a function looks up that function), computes the CFA as the
 * row says, reads the return address below it and, where the row says it
 * was saved, the caller's rbp; the caller's stack pointer is the CFA. A
 * signal trampoline's row takes the interrupted registers from the
 * ucontext on the stack, so the walk goes on into the interrupted code.
 *
 * Where a frame has no row (no unwind data: a static binary's PLT, JIT
 * code, assembly without CFI, a file past the tables' memory bound) the
 * walk takes one step without one, then goes on by rows: where the thread
 * itself stopped, by the word at rsp if it is a return address (a PLT
 * stub has pushed nothing); else by the frame pointer, as the old walk
 * did. If neither looks like a frame, the stack ends there. Every
 * stack's user part ends for one reason, in st->user_stop (enum
 * ntkl_user_stop), which each logger counts (GET_STACK_TRACING).
 *
 * Work is bounded: one step per frame, at most ETW_STACK_MAX_FRAMES, each
 * a binary search of a map, a search of a few rows of a table (by its
 * index) and at most three reads of the user stack with __get_user() (a
 * fault is an error, never a page-in). A walk given a memo records in it
 * what it read (struct ntkl_unwind_memo), so that the next walk of the
 * thread from the same registers can be a check of those words instead.
 */
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>

#include "producers/stack.h"
#include "unwind/cfi.h"
#include "unwind/unwind.h"

/* Where a signal frame's registers lie, from the stack pointer at its trampoline. */
#define UC_REG(r)	(offsetof(struct ucontext, uc_mcontext) + offsetof(struct sigcontext, r))

/* The registers a walk carries from frame to frame, and what it read. */
struct user_frame {
	unsigned long ip, sp, bp;
	bool exact;		/* ip is where the thread was, not a return address */
	struct ntkl_unwind_memo *memo;	/* NULL: not kept */
};

static bool read_user(unsigned long addr, unsigned long *v)
{
	const unsigned long __user *p = (const unsigned long __user *)addr;

	if (!IS_ALIGNED(addr, sizeof(long)) || !access_ok(p, sizeof(*p)))
		return false;
	return !__get_user(*v, p);
}

/*
 * A word of the walked thread's stack, kept in the memo while it has room;
 * ret: it is the caller's instruction pointer, a frame.
 */
static __always_inline bool read_word(struct user_frame *f, unsigned long addr, unsigned long *v,
				      bool ret)
{
	struct ntkl_unwind_memo *m = f->memo;

	if (!read_user(addr, v))
		return false;
	if (m && m->reads != NTKL_UNWIND_MEMO_NONE) {
		if (m->reads < NTKL_UNWIND_MEMO_READS && addr - m->sp <= U32_MAX) {
			m->rets |= (u32)ret << m->reads;
			m->off[m->reads] = addr - m->sp;
			m->word[m->reads++] = *v;
		} else {
			m->reads = NTKL_UNWIND_MEMO_NONE;
		}
	}
	return true;
}

/*
 * The thread stopped at code with no row, where the return address may be
 * the word at rsp: a PLT stub (a static binary's have no FDE), the first
 * instruction of a function without CFI. A return address follows a call.
 */
static bool entry_step(struct user_frame *f)
{
	unsigned long ret;

	if (!f->exact || !read_word(f, f->sp, &ret, true) || !ret || !ntkl_user_call_precedes(ret))
		return false;
	f->sp += sizeof(long);
	f->ip = ret;
	f->exact = false;
	return true;
}

/* One step by the frame pointer, for code with no row. */
static bool frame_pointer_step(struct user_frame *f)
{
	unsigned long next, ret;

	if (f->bp < f->sp || f->bp > TASK_SIZE - 2 * sizeof(long) ||
	    !read_word(f, f->bp, &next, false) || !read_word(f, f->bp + sizeof(long), &ret, true) ||
	    !ret || !ntkl_user_call_precedes(ret))
		return false;
	f->sp = f->bp + 2 * sizeof(long);
	f->bp = next;
	f->ip = ret;
	f->exact = false;
	return true;
}

/*
 * One step by a row: the caller's registers into f. Returns the reason
 * the walk ends, or -1 to go on.
 */
static int row_step(const struct ntkl_cfi_row *row, struct user_frame *f)
{
	unsigned long cfa, ret, sp;

	switch (row->kind) {
	case NTKL_CFI_END:
		return NTKL_USTOP_END;
	case NTKL_CFI_SIGNAL:
		if (!read_word(f, f->sp + UC_REG(ip), &f->ip, true) ||
		    !read_word(f, f->sp + UC_REG(bp), &f->bp, false) ||
		    !read_word(f, f->sp + UC_REG(sp), &sp, false))
			return NTKL_USTOP_BAD_READ;
		f->sp = sp;
		f->exact = true;
		return f->ip ? -1 : NTKL_USTOP_END;
	case NTKL_CFI_CFA:
		cfa = (row->reg == NTKL_CFI_REG_SP ? f->sp : f->bp) + row->cfa_off;
		break;
	case NTKL_CFI_CFA_DEREF:
		/* the caller's rbp is where this frame's rbp points, not by the CFA */
		if (!read_word(f, f->bp + row->cfa_off, &cfa, false) || cfa <= f->sp ||
		    !read_word(f, cfa - sizeof(long), &ret, true) ||
		    !read_word(f, f->bp + row->bp_off, &f->bp, false))
			return NTKL_USTOP_BAD_READ;
		goto caller;
	case NTKL_CFI_PLT:
		cfa = f->sp + row->cfa_off + ((f->ip & 15) >= row->reg ? 8 : 0);
		break;
	default:
		return NTKL_USTOP_NO_DATA;
	}
	/* a caller's frame lies above its callee's */
	if (cfa <= f->sp || !read_word(f, cfa - sizeof(long), &ret, true))
		return NTKL_USTOP_BAD_READ;
	if (row->bp_off && !read_word(f, cfa + row->bp_off, &f->bp, false))
		return NTKL_USTOP_BAD_READ;
caller:
	f->sp = cfa;
	f->ip = ret;
	f->exact = false;
	return ret ? -1 : NTKL_USTOP_END;
}

/* Begin a memo of a walk from regs. */
static struct ntkl_unwind_memo *memo_begin(struct ntkl_unwind_memo *m, const struct pt_regs *regs)
{
	/* rets has a bit per word the memo keeps */
	BUILD_BUG_ON(BITS_PER_TYPE(m->rets) < NTKL_UNWIND_MEMO_READS);
	if (!m)
		return NULL;
	m->ip = regs->ip;
	m->sp = regs->sp;
	m->bp = regs->bp;
	m->maps_gen = ntkl_unwind_maps_gen();
	m->reads = 0;
	m->rets = 0;
	return m;
}

void ntkl_unwind_walk(struct ntkl_stack *st, struct pt_regs *regs, struct ntkl_unwind_memo *memo)
{
	struct user_frame f = { regs->ip, regs->sp, regs->bp, true };
	const struct ntkl_unwind_range *range = NULL;
	struct mm_struct *mm = current->mm;
	const struct ntkl_cfi_row *row;
	enum ntkl_user_stop why;
	unsigned long pc;
	int stop;

	if (memo)
		memo->reads = NTKL_UNWIND_MEMO_NONE;
	if (!mm) {
		st->user_stop = NTKL_USTOP_END;
		return;
	}
	f.memo = memo_begin(memo, regs);
	for (;;) {
		pc = f.exact ? f.ip : f.ip - 1;
		if (!range || pc < range->start || pc >= range->end)
			range = ntkl_unwind_find_range(mm, pc, &why);
		row = range && range->table ?
		      ntkl_unwind_table_row(range->table, pc + range->delta) : NULL;
		if (row && row->kind != NTKL_CFI_NONE) {
			stop = row_step(row, &f);
		} else {
			/* a step without a row reads code too: no memo */
			if (f.memo)
				f.memo->reads = NTKL_UNWIND_MEMO_NONE;
			if (entry_step(&f) || frame_pointer_step(&f))
				stop = -1;
			else
				stop = range ? NTKL_USTOP_NO_DATA : why;
		}
		if (stop >= 0) {
			st->user_stop = stop;
			break;
		}
		if (st->n >= ETW_STACK_MAX_FRAMES) {
			st->truncated = true;
			st->user_stop = NTKL_USTOP_LIMIT;
			break;
		}
		st->frames[st->n++] = f.ip;
	}
	/* only a whole stack is kept: a remade map may take another further */
	if (f.memo && st->user_stop != NTKL_USTOP_END)
		f.memo->reads = NTKL_UNWIND_MEMO_NONE;
}

bool ntkl_unwind_memo_holds(const struct ntkl_unwind_memo *m, const struct pt_regs *regs)
{
	unsigned long v;
	u32 i;

	if (m->reads == NTKL_UNWIND_MEMO_NONE || m->ip != regs->ip || m->sp != regs->sp ||
	    m->bp != regs->bp || m->maps_gen != ntkl_unwind_maps_gen() || !current->mm)
		return false;
	for (i = 0; i < m->reads; i++)
		if (!read_user(m->sp + m->off[i], &v) || v != m->word[i])
			return false;
	return true;
}

u32 ntkl_unwind_memo_frames(const struct ntkl_unwind_memo *m, u64 *frames)
{
	u32 i, n = 0;

	frames[n++] = m->ip;
	/* a return address of 0 ended the walk: no frame */
	for (i = 0; i < m->reads; i++)
		if ((m->rets & BIT(i)) && m->word[i])
			frames[n++] = m->word[i];
	return n;
}
