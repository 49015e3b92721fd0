// SPDX-License-Identifier: GPL-2.0
/*
 * StackWalk/Stack (0x1820): which stack each walked hook gets, and the
 * walk itself. docs/linux-to-nt.md says what each field holds.
 *
 * - SampledProfile: the interrupted context, from the sample's registers:
 *   kernel frames unwound from them when the sample hit the kernel, then
 *   the user frames of the interrupted thread.
 * - ReadyThread and SpinLock: the current context, the readying thread or
 *   the one that waited for the lock; the probe's own frames (ntkl's, the
 *   innermost) are skipped, so the stack starts at the tracepoint.
 * - CSwitch: the new thread's, as Windows (which walks it after the swap,
 *   so TraceEvent and WPA give it to NewThreadId: "New Thread Stack"):
 *   the kernel frames where it stopped running, unwound from its saved
 *   context, and its user-mode instruction pointer (its user stack lies in
 *   an address space that is not the current one, so no further frames).
 *
 * Kernel frames come from the kernel's unwinder (ORC on the Debian
 * kernels; usable in any context, NMI included). User frames follow the
 * frame-pointer chain from the thread's user registers with
 * copy_from_user_nofault() (NMI-safe, never faults a page in): a program
 * built without frame pointers gives its instruction pointer and then
 * what its rbp happens to point to, so the walk stops at the first frame
 * that is not above the last, is misaligned or cannot be read, or whose
 * return address does not follow a call instruction.
 *
 * Nothing is allocated while recording: each CPU has one scratch stack
 * per interrupt nesting level (task, softirq, hardirq, NMI), allocated at
 * module load, so an interrupt that walks while a probe it interrupted
 * walks uses its own.
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include "producers/ntsched.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/stack_cache.h"

#define NESTING_LEVELS	4		/* task, softirq, hardirq, NMI */

struct stack_scratch {
	struct ntkl_stack level[NESTING_LEVELS];
};

static struct stack_scratch __percpu *scratch;

static int stack_init(void)
{
	BUILD_BUG_ON(NTKL_WALK_COUNT > 32);	/* the bits of ntkl_logger.stack_walks */
	scratch = alloc_percpu(struct stack_scratch);
	return scratch ? 0 : -ENOMEM;
}

static void stack_exit(void)
{
	free_percpu(scratch);
	scratch = NULL;
}

static struct ntkl_stack *stack_begin(struct task_struct *t)
{
	unsigned int level = interrupt_context_level();
	struct ntkl_stack *st;

	if (WARN_ON_ONCE(level >= NESTING_LEVELS))
		return NULL;
	st = &this_cpu_ptr(scratch)->level[level];
	st->n = 0;
	st->truncated = false;
	st->pid = ntkl_process_id(t);
	st->tid = ntkl_thread_id(t);
	return st;
}

/* Add a frame; false once the stack is full (the frame was not added). */
static bool stack_add(struct ntkl_stack *st, unsigned long addr)
{
	if (st->n >= ETW_STACK_MAX_FRAMES) {
		st->truncated = true;
		return false;
	}
	st->frames[st->n++] = addr;
	return true;
}

#ifdef CONFIG_X86
/*
 * The kernel frames of t (current, or a task not running), from regs if
 * given (kernel-mode registers), else from here: then the leading frames
 * inside ntkl itself are skipped.
 */
static void walk_kernel(struct ntkl_stack *st, struct task_struct *t, struct pt_regs *regs)
{
	bool skipping = !regs && t == current;
	struct unwind_state state;
	unsigned long addr;

	if (regs && !stack_add(st, instruction_pointer(regs)))
		return;
	for (unwind_start(&state, t, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (skipping && within_module(addr, THIS_MODULE))
			continue;
		skipping = false;
		if (!stack_add(st, addr))
			break;
	}
}
#else
static void walk_kernel(struct ntkl_stack *st, struct task_struct *t, struct pt_regs *regs)
{
	if (regs)
		stack_add(st, instruction_pointer(regs));
}
#endif

/* A user thread's saved user registers; NULL for a kernel thread. */
static struct pt_regs *user_regs_of(struct task_struct *t)
{
	if (!t->mm || (t->flags & (PF_KTHREAD | PF_EXITING)))
		return NULL;
	return task_pt_regs(t);
}

#ifdef CONFIG_X86
/* Is the ModRM byte m a "call" (FF /2)? */
static bool call_modrm(u8 m)
{
	return (m & 0x38) == 0x10;
}

/*
 * Does a call instruction end at ret? Code built without frame pointers
 * keeps data in rbp, and what the walk then reads as a return address
 * usually points at data (the thread's own stack, its pthread struct):
 * a return address follows a call (E8 rel32, or FF /2 in its 2 to 7 byte
 * forms). Unreadable bytes are no call either.
 */
static bool call_precedes(unsigned long ret)
{
	u8 b[8];	/* b[7] is the byte at ret - 1 */

	if (ret < sizeof(b) || copy_from_user_nofault(b, (const void __user *)(ret - sizeof(b)),
						      sizeof(b)))
		return false;
	return b[3] == 0xE8 ||					/* call rel32 */
	       (b[6] == 0xFF && (b[7] & 0xF8) == 0xD0) ||	/* call *%reg */
	       (b[5] == 0xFF && call_modrm(b[6])) ||		/* ... disp8 or SIB */
	       (b[4] == 0xFF && call_modrm(b[5])) ||		/* ... SIB disp8 */
	       (b[2] == 0xFF && call_modrm(b[3])) ||		/* ... disp32, rip */
	       (b[1] == 0xFF && call_modrm(b[2]));		/* ... SIB disp32 */
}
#else
static bool call_precedes(unsigned long ret)
{
	return true;
}
#endif

/* User frames from the current thread's user registers, by frame pointers. */
static void walk_user(struct ntkl_stack *st, struct pt_regs *regs)
{
	struct {
		unsigned long next;
		unsigned long ret;
	} frame;
	unsigned long fp, ip = instruction_pointer(regs);

	if (!ip || !stack_add(st, ip))
		return;
#ifdef CONFIG_X86
	if (!user_64bit_mode(regs))
		return;
	fp = regs->bp;
#else
	fp = frame_pointer(regs);
#endif
	while (fp && IS_ALIGNED(fp, sizeof(long)) && fp >= user_stack_pointer(regs) &&
	       fp < TASK_SIZE - sizeof(frame)) {
		if (copy_from_user_nofault(&frame, (const void __user *)fp, sizeof(frame)))
			break;
		if (!frame.ret || !call_precedes(frame.ret) || !stack_add(st, frame.ret))
			break;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
}

struct ntkl_stack *ntkl_stack_current(struct pt_regs *regs)
{
	struct ntkl_stack *st = stack_begin(current);
	struct pt_regs *uregs;

	if (!st)
		return NULL;
	if (regs && user_mode(regs)) {
		uregs = regs;
	} else {
		walk_kernel(st, current, regs);
		uregs = user_regs_of(current);
	}
	if (uregs && user_mode(uregs))
		walk_user(st, uregs);
	return st;
}

struct ntkl_stack *ntkl_stack_task(struct task_struct *t)
{
	struct ntkl_stack *st = stack_begin(t);
	struct pt_regs *uregs;

	if (!st)
		return NULL;
	walk_kernel(st, t, NULL);
	uregs = user_regs_of(t);
	if (uregs && user_mode(uregs) && instruction_pointer(uregs))
		stack_add(st, instruction_pointer(uregs));
	return st;
}

void ntkl_stack_write(struct ntkl_logger *lg, const struct ntkl_stack *st, u64 event_time)
{
	struct etw_stack_walk *sw;
	struct ntkl_record rec;
	u8 *p;

	if (!st->n)
		return;
	if (st->truncated)
		atomic64_inc(&lg->stacks_truncated);
	if (ntkl_stack_cache_write(lg, st, event_time))
		return;
	sw = ntkl_begin_STACK_WALK(lg, &rec, ETW_EVENT_STACK_WALK,
				   sizeof(*sw) + st->n * sizeof(st->frames[0]));
	if (!sw)
		return;
	p = (u8 *)sw;
	sw->event_time_stamp = event_time;
	sw->stack_process = st->pid;
	sw->stack_thread = st->tid;
	memcpy(p + sizeof(*sw), st->frames, st->n * sizeof(st->frames[0]));
	ntkl_record_end(&rec);
}

/* At stop, the keys still cached are defined (KeyRundown). */
static void stack_rundown(struct ntkl_logger *lg, bool end)
{
	if (end)
		ntkl_stack_cache_rundown(lg);
}

/* StackWalk: written after the events of the hooks a logger walks. */
const struct ntkl_producer ntkl_stack_producer = {
	.name = "stack",
	.init = stack_init,
	.exit = stack_exit,
	.rundown = stack_rundown,
};
