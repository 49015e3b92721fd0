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
 *   context, then its user frames. Those lie in an address space that is
 *   not the current one, so they are walked when the thread is switched
 *   out (then it is current) and parked (stack_parked.c) for the switch
 *   that brings it back: it runs no user code between. A thread not
 *   parked (its first run, a collision) gets its user IP alone.
 *
 * Kernel frames come from the kernel's unwinder (ORC on the Debian
 * kernels; usable in any context, NMI included). User frames follow the
 * frame-pointer chain from the thread's user registers with __get_user()
 * under pagefault_disable() (NMI-safe, never faults a page in): a program
 * built without frame pointers gives its instruction pointer and then
 * what its rbp happens to point to, so the walk stops at the first frame
 * that is not above the last, is misaligned or cannot be read, or whose
 * return address does not follow a call instruction.
 *
 * Nothing is allocated while recording: each CPU has one scratch stack
 * per interrupt nesting level (task, softirq, hardirq, NMI), allocated at
 * module load, so an interrupt that walks while a probe it interrupted
 * walks uses its own; and with it the last idle walk of that level
 * (walk_idle()), whose frames an idle CPU's next sample reuses when the
 * unwinder's input is the same.
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
#include <asm/tlbflush.h>	/* nmi_uaccess_okay() */
#include <asm/unwind.h>
#endif
#ifndef nmi_uaccess_okay
#define nmi_uaccess_okay() true	/* as asm-generic/tlb.h has it */
#endif

#include "producers/ntsched.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/stack_cache.h"
#include "producers/stack_parked.h"
#include "unwind/unwind.h"

#define NESTING_LEVELS	4		/* task, softirq, hardirq, NMI */

/* An idle walk's stack, interrupted sp to last frame: 16 and 26 words on 6.12 */
#define IDLE_MEMO_WORDS		96
#define IDLE_MEMO_FRAMES	32

/*
 * The last walk of an idle task's kernel frames from a sample's registers
 * (walk_idle()): the unwinder's input and the frames it gave.
 */
struct idle_memo {
	struct task_struct *task;	/* NULL: none */
	unsigned long ip, sp, bp;	/* the interrupted registers' */
	unsigned int words;		/* of stack, from that sp to the last frame's */
	unsigned int n;
	u64 frames[IDLE_MEMO_FRAMES];
	unsigned long stack[IDLE_MEMO_WORDS];
};

struct stack_scratch {
	struct ntkl_stack level[NESTING_LEVELS];
	struct idle_memo memo[NESTING_LEVELS];	/* used by samples (regs) only */
	/* what the walk of a thread parked at a switch read (no switch nests) */
	struct ntkl_unwind_memo park_memo;
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
	ntkl_parked_free();
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
	st->user_stop = -1;
	st->pid = ntkl_process_id(t);
	st->tid = ntkl_thread_id(t);
	return st;
}

/* The idle memo of st's nesting level: an interrupt has its own. */
static struct idle_memo *stack_memo(struct ntkl_stack *st)
{
	struct stack_scratch *s = this_cpu_ptr(scratch);

	return &s->memo[st - s->level];
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

#ifdef CONFIG_UNWINDER_ORC
/*
 * Is ip kernel text, by the check unwind_get_return_address() makes of
 * state->ip (__kernel_text_address() is not exported)? Only for the rare
 * frame the ORC tables did not know: state is copied, so that a walk that
 * ended can be asked too.
 */
static bool unwind_text(const struct unwind_state *state, unsigned long ip)
{
	struct unwind_state s = *state;

	s.ip = ip;
	s.stack_info.type = STACK_TYPE_TASK;	/* not done: it looks at ip alone */
	return unwind_get_return_address(&s) == ip;
}

/*
 * The frames of a started unwind, added to st: with skipping, the leading
 * ones inside ntkl itself are left out; with plain, *plain is cleared
 * unless every frame was a plain return address (walk_idle()'s test).
 *
 * arch_stack_walk()'s loop (not exported) without the two costs around
 * the unwinder that it adds: the check of every frame's address with
 * __kernel_text_address() through unwind_get_return_address(), and the
 * walk's last step into the user-mode registers, whose instruction
 * pointer that check looks up in vain through modules, ftrace, kprobes
 * and BPF before it says no. A frame whose call site the ORC tables know
 * is kernel text: the check can only matter once the unwinder had to
 * guess (unwind_error(), set by the step from a frame the tables did not
 * know, such as BPF's), so from there every frame is checked as the
 * kernel's loop checks it, that frame too.
 */
static void walk_frames(struct ntkl_stack *st, struct unwind_state *state, bool skipping,
			bool *plain)
{
	bool pending = false;	/* frames[n - 1] is the last frame, unchecked */
	unsigned long addr;

	for (; !unwind_done(state); unwind_next_frame(state)) {
		addr = state->ip;
		if (unlikely(unwind_error(state))) {
			if (pending && !unwind_text(state, st->frames[st->n - 1])) {
				st->n--;
				goto odd;
			}
			pending = false;
			addr = unwind_get_return_address(state);
		} else if (state->regs && user_mode(state->regs)) {
			goto odd;	/* the user-mode registers: the end */
		}
		if (!addr)
			goto odd;
		if (skipping && within_module(addr, THIS_MODULE))
			continue;
		skipping = false;
		if (!stack_add(st, addr))
			goto odd;
		pending = !unwind_error(state);
		/*
		 * For walk_idle(): a plain frame is a return address read, as
		 * it is there, from the slot below the caller's stack pointer
		 * on the task's stack (not one that ftrace or a kretprobe had
		 * replaced, recovered from the task's state).
		 */
		if (plain && *plain &&
		    (state->regs || state->stack_info.type != STACK_TYPE_TASK ||
		     READ_ONCE_NOCHECK(*((unsigned long *)state->sp - 1)) != addr))
			*plain = false;
	}
	/* ended by an error: the step from the last frame may have guessed */
	if (pending && unwind_error(state) && !unwind_text(state, st->frames[st->n - 1]))
		st->n--;
	if (!unwind_error(state))
		return;
odd:
	if (plain)
		*plain = false;
}

/*
 * The kernel frames of t (current, or a task not running), from regs if
 * given (kernel-mode registers), else from here: then the leading frames
 * inside ntkl itself are skipped.
 */
static void walk_kernel(struct ntkl_stack *st, struct task_struct *t, struct pt_regs *regs)
{
	struct unwind_state state __uninitialized;	/* set by unwind_start() */

	if (regs && !stack_add(st, instruction_pointer(regs)))
		return;
	unwind_start(&state, t, regs, NULL);
	walk_frames(st, &state, !regs && t == current, NULL);
}

/*
 * Does the unwinder's first step out of regs (whose result is first) read
 * none of the registers the ORC tables name in entry code alone (r10, r13,
 * di, dx), whatever they hold? A step that takes the stack pointer from
 * one of them gives another stack pointer, or an error, from its
 * complement.
 */
static bool first_step_plain(struct pt_regs *regs, const struct unwind_state *first)
{
	struct unwind_state state __uninitialized;	/* set by unwind_start() */
	struct pt_regs other = *regs;

	other.r10 = ~regs->r10;
	other.r13 = ~regs->r13;
	other.di = ~regs->di;
	other.dx = ~regs->dx;
	unwind_start(&state, current, &other, NULL);
	return !unwind_error(&state) && !unwind_done(&state) && !state.regs &&
	       state.ip == first->ip && state.sp == first->sp && state.bp == first->bp;
}

/*
 * The kernel frames of an idle CPU's sample. Most of a lightly loaded
 * machine's samples are its idle CPUs', interrupted at the same halt with
 * the same stack above it, and walking them was most of what sampled
 * stacks cost (docs/design.md). A walk's result is a function of its input
 * alone: the registers the unwinder reads (ip, sp and bp; the first step
 * out of the registers is checked not to read the others, which ORC names
 * in entry code only), the ORC tables of kernel text, and the words of the
 * task's stack from the interrupted stack pointer to the last frame's, the
 * only memory read by a walk that rises through the task's stack alone,
 * its frame pointers above its stack pointer. So when all of them equal
 * the last walk's on this CPU and nesting level (a compare of 16 to 26
 * words), its frames are this one's. Only a walk whose every frame was
 * plain (walk_frames()) is kept.
 */
static void walk_idle(struct ntkl_stack *st, struct pt_regs *regs, struct idle_memo *m)
{
	const unsigned long *sp = (const unsigned long *)regs->sp;
	unsigned long base = (unsigned long)task_stack_page(current);
	struct unwind_state state __uninitialized;	/* set by unwind_start() */
	struct unwind_state first;
	unsigned int i, words;
	bool plain;

	if (!stack_add(st, instruction_pointer(regs)))
		return;
	if (m->task == current && m->ip == regs->ip && m->sp == regs->sp && m->bp == regs->bp) {
		/* read as the unwinder reads it: not a KASAN-checked access */
		for (i = 0; i < m->words; i++)
			if (READ_ONCE_NOCHECK(sp[i]) != m->stack[i])
				break;
		if (i == m->words) {
			memcpy(st->frames, m->frames, m->n * sizeof(m->frames[0]));
			st->n = m->n;
			return;
		}
	}
	m->task = NULL;
	unwind_start(&state, current, regs, NULL);
	first = state;
	/* the stack pointer on the task's stack; a frame pointer not below it */
	plain = regs->sp >= base && regs->sp < base + THREAD_SIZE &&
		IS_ALIGNED(regs->sp, sizeof(long)) && (regs->bp < base || regs->bp >= regs->sp);
	walk_frames(st, &state, false, &plain);
	/*
	 * The walk ended at the end of the stack (ORC's end-of-stack entry,
	 * no error) with state.sp the last frame's: the step that found it
	 * read nothing, and every step before read only below the sp it
	 * rose to. The words above it (the idle task's unused pt_regs) are
	 * not the walk's input.
	 */
	words = (state.sp - regs->sp) / sizeof(long);
	if (!plain || st->n > IDLE_MEMO_FRAMES || state.sp < regs->sp ||
	    state.sp > base + THREAD_SIZE || words > IDLE_MEMO_WORDS ||
	    !first_step_plain(regs, &first))
		return;
	for (i = 0; i < words; i++)
		m->stack[i] = READ_ONCE_NOCHECK(sp[i]);
	m->ip = regs->ip;
	m->sp = regs->sp;
	m->bp = regs->bp;
	memcpy(m->frames, st->frames, st->n * sizeof(st->frames[0]));
	m->words = words;
	m->n = st->n;
	m->task = current;
}
#elif defined(CONFIG_X86)
/* As above, with the kernel's own loop (arch_stack_walk()'s). */
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

#ifndef CONFIG_UNWINDER_ORC
static void walk_idle(struct ntkl_stack *st, struct pt_regs *regs, struct idle_memo *m)
{
	walk_kernel(st, current, regs);
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
 * forms). Unreadable bytes are no call either. Page faults are off.
 */
bool ntkl_user_call_precedes(unsigned long ret)
{
	const u64 __user *p = (const u64 __user *)(ret - sizeof(u64));
	u8 b[8];	/* b[7] is the byte at ret - 1 */
	u64 w;
	int i;

	if (ret < sizeof(w) || !access_ok(p, sizeof(w)) || __get_user(w, p))
		return false;
	for (i = 0; i < 8; i++)
		b[i] = w >> (8 * i);		/* x86 is little-endian */
	return b[3] == 0xE8 ||					/* call rel32 */
	       (b[6] == 0xFF && (b[7] & 0xF8) == 0xD0) ||	/* call *%reg */
	       (b[5] == 0xFF && call_modrm(b[6])) ||		/* ... disp8 or SIB */
	       (b[4] == 0xFF && call_modrm(b[5])) ||		/* ... SIB disp8 */
	       (b[2] == 0xFF && call_modrm(b[3])) ||		/* ... disp32, rip */
	       (b[1] == 0xFF && call_modrm(b[2]));		/* ... SIB disp32 */
}
#else
bool ntkl_user_call_precedes(unsigned long ret)
{
	return true;
}
#endif

/*
 * User frames from the current thread's user registers: by the binaries'
 * unwind tables while they are on (module/unwind/), else by frame
 * pointers. Each frame pointer frame is two words and its call site one,
 * read with __get_user() (a load and the exception table: as perf's user
 * callchains read them) inside one pagefault_disable() for the whole
 * walk, where copy_from_user_nofault() paid its checks and a rep movs per
 * frame and per call site. Copying the top of the stack at once instead
 * would read bytes the walk never looks at, and frames with large locals
 * would still lie beyond it.
 */
static void walk_user(struct ntkl_stack *st, struct pt_regs *regs, struct ntkl_unwind_memo *memo)
{
	unsigned long next, ret, fp, ip = instruction_pointer(regs);
	const unsigned long __user *frame;

	if (memo)
		memo->reads = NTKL_UNWIND_MEMO_NONE;
	if (!ip || !stack_add(st, ip))
		return;
	st->user_stop = NTKL_USTOP_BAD_READ;
#ifdef CONFIG_X86
	if (!user_64bit_mode(regs))
		return;
	fp = regs->bp;
#else
	fp = frame_pointer(regs);
#endif
	if (!nmi_uaccess_okay())	/* an NMI during a switch of mm */
		return;
	pagefault_disable();
	if (IS_ENABLED(CONFIG_X86_64) && ntkl_unwind_wanted()) {
		ntkl_unwind_walk(st, regs, memo);
		pagefault_enable();
		return;
	}
	st->user_stop = NTKL_USTOP_FRAME_POINTER;
	while (fp && IS_ALIGNED(fp, sizeof(long)) && fp >= user_stack_pointer(regs) &&
	       fp < TASK_SIZE - 2 * sizeof(long)) {
		frame = (const unsigned long __user *)fp;
		if (__get_user(next, frame) || __get_user(ret, frame + 1))
			break;
		if (!ret || !ntkl_user_call_precedes(ret) || !stack_add(st, ret))
			break;
		if (next <= fp)
			break;
		fp = next;
	}
	pagefault_enable();
}

/*
 * Does prev, switched out where it was switched out before (a wait loop),
 * have the user stack it has parked? Then that is parked again, checked
 * by the words its walk read rather than walked (stack_parked.c).
 */
static bool parked_again(struct task_struct *prev, struct pt_regs *uregs)
{
	bool same;

	if (!IS_ENABLED(CONFIG_X86_64) || !ntkl_unwind_wanted() || !user_64bit_mode(uregs) ||
	    !nmi_uaccess_okay())
		return false;
	pagefault_disable();
	same = ntkl_parked_again(prev, uregs);
	pagefault_enable();
	return same;
}

struct ntkl_stack *ntkl_stack_current(struct pt_regs *regs)
{
	struct ntkl_stack *st = stack_begin(current);
	struct pt_regs *uregs;

	if (!st)
		return NULL;
	if (regs && user_mode(regs)) {
		uregs = regs;
	} else if (regs && is_idle_task(current)) {
		walk_idle(st, regs, stack_memo(st));
		uregs = NULL;		/* an idle task has no user frames */
	} else {
		walk_kernel(st, current, regs);
		uregs = user_regs_of(current);
	}
	if (uregs && user_mode(uregs))
		walk_user(st, uregs, NULL);
	return st;
}

/*
 * Has a kretprobe (FileIo's, or any tool's) replaced return addresses on
 * t's kernel stack? The unwinder recovers them from t's list of them, and
 * warns (rethook_find_ret_addr(): WARN_ON_ONCE) when t is not current and
 * its state says running, as next's does in sched_switch, though next
 * cannot run meanwhile. So such a thread's kernel frames are walked as it
 * switches out (it is current then) and parked for its switch in, which
 * takes them rather than walk: the same frames, as it has not run since.
 * A thread whose parked frames were lost (another took its slot) gets its
 * user frames alone: a kernel warning is never the price of a stack.
 */
static bool kretprobed(struct task_struct *t)
{
#ifdef CONFIG_RETHOOK
	return !llist_empty(&t->rethooks);
#else
	return false;
#endif
}

struct ntkl_stack *ntkl_stack_switch(struct task_struct *prev, struct task_struct *next)
{
	struct pt_regs *uregs = user_regs_of(prev);
	struct ntkl_unwind_memo *memo;
	struct ntkl_stack *st;
	bool truncated;
	s8 stop;
	u32 n;

	/* prev is current, its address space still the current one: park it */
	if (uregs && user_mode(uregs) && !parked_again(prev, uregs)) {
		st = stack_begin(prev);
		if (st) {
			memo = &this_cpu_ptr(scratch)->park_memo;
			walk_user(st, uregs, memo);
			ntkl_parked_put(prev, st->frames, st->n, st->user_stop, memo);
		}
	}
	if (kretprobed(prev)) {
		st = stack_begin(prev);
		if (st) {
			walk_kernel(st, prev, NULL);
			ntkl_parked_put_kernel(prev, st->frames, st->n);
		}
	}
	st = stack_begin(next);
	if (!st)
		return NULL;
	if (kretprobed(next))
		st->n = ntkl_parked_take_kernel(next, st->frames, ETW_STACK_MAX_FRAMES,
						&st->truncated);
	else
		walk_kernel(st, next, NULL);
	uregs = user_regs_of(next);
	if (!uregs || !user_mode(uregs))
		return st;
	n = ntkl_parked_take(next, st->frames + st->n, ETW_STACK_MAX_FRAMES - st->n, &truncated,
			     &stop);
	if (n) {
		st->n += n;
		st->truncated |= truncated;
		st->user_stop = stop;
	} else if (instruction_pointer(uregs)) {
		/*
		 * not parked (first run, a collision): its user IP alone,
		 * counted as a walk that found no map (by frame pointers if
		 * that is how the logger walks)
		 */
		stack_add(st, instruction_pointer(uregs));
		st->user_stop = ntkl_unwind_wanted() ? NTKL_USTOP_NO_MAP : NTKL_USTOP_FRAME_POINTER;
	}
	return st;
}

/* A logger walks CSwitch: the parked stacks' store is needed (kept until unload). */
static int stack_attach(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_stack_walks(set, i) & BIT(NTKL_WALK_CSWITCH))
			return ntkl_parked_prepare();
	return 0;
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
	if (st->user_stop >= 0)
		atomic64_inc(&lg->user_stops[st->user_stop]);
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
	.attach = stack_attach,
	.snapshot = ntkl_stack_cache_snapshot,
	.rundown = stack_rundown,
};
