// SPDX-License-Identifier: GPL-2.0
/*
 * Sampled spin lock records (WMI_SPINLOCK, 0x0529, PERF_SPINLOCK) from the
 * lock:contention_begin/end tracepoints, with interrupt counts from the irq
 * tracepoints. docs/linux-to-nt.md says how each field is derived.
 *
 * Each CPU keeps a stack of the contended acquisitions in progress, as
 * Windows tracks nesting to a depth of 8: a task's wait can be interrupted
 * by a hardirq's, and that by an NMI's, and each finishes before the one it
 * interrupted. A wait claims its slot (the depth) first and fills it
 * after, its lock last, so a nested context pushes above it and a nested
 * end never matches half an entry (probe_contention_begin() says why
 * not the other way round). Only spinning locks go there (LCB_F_SPIN
 * without MUTEX, RT or PERCPU), so no entry belongs to a task that
 * sleeps; mutex spinning's begin, begin, end is ignored whole.
 *
 * On PREEMPT_RT spinlock_t and rwlock_t are rt_mutexes: their waiters spin
 * on a running owner, then sleep, and may wake on another CPU. Those
 * waits (LCB_F_RT, begun in TASK_RTLOCK_WAIT) are kept per task instead,
 * in a fixed table (rt_waits[]); raw spinlocks stay on the per-CPU stack.
 *
 * Linux has no tracepoint at release: the record is written when the lock
 * is acquired (contention_end) and ReleaseTime equals AcquireTime.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <trace/events/irq.h>
#include <trace/events/lock.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include "producers/ntsched.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"
#include "uapi/ntkl_bounds.h"
#include "wrapper/mul.h"

#define SPIN_NEST_MAX	8	/* Windows tracks nesting to a depth of 8 */
#define CALLER_FRAMES	8	/* the caller is 4th to 6th: deeper costs, finds nothing */

struct spin_wait {
	void *lock;
	u64 begin;		/* cycles */
	u32 hardirqs;		/* the CPU's count at begin */
	u32 flags;		/* LCB_F_* */
};

struct spin_cpu {
	struct spin_wait stack[SPIN_NEST_MAX];
	unsigned int depth;		/* may exceed SPIN_NEST_MAX: not stored */
	u32 hardirqs;			/* irq:irq_handler_entry */
	u32 contention_countdown;	/* records when it reaches 0 */
};

static DEFINE_PER_CPU(struct spin_cpu, spin_cpu);

/* Sampling, kernel-wide like Windows'; written under the config mutex. */
static struct ntkl_spinlock_config config = {
	.size = sizeof(config),
	.spin_threshold = NTKL_SPIN_THRESHOLD_MIN,
	.acquire_sample_rate = NTKL_ACQUIRE_SAMPLE_RATE_MIN,
	.contention_sample_rate = NTKL_CONTENTION_SAMPLE_RATE_MIN,
	.hold_threshold = NTKL_HOLD_THRESHOLD_MIN,
};

static DEFINE_MUTEX(config_lock);

static u32 spins_per_cycle_mult;	/* 2^32 / cycles of one cpu_relax() */

/*
 * SpinCount, derived: Linux does not count spins, so the wait over the
 * cost of one cpu_relax(). At least 1: contention_begin fires only after
 * the fast path failed, and the slow path tests the lock again before it
 * gets it.
 */
static u32 spin_count(u64 wait)
{
	return clamp_t(u64, ntkl_mul_u64_u64_shr(wait, spins_per_cycle_mult, 32), 1, U32_MAX);
}

static u64 cycles(void)
{
	return ntkl_clock(NTKL_CLOCK_CYCLE);
}

/* Spinning locks only: the contended paths of qspinlock and qrwlock. */
static bool traced_kind(unsigned int flags)
{
	return (flags & LCB_F_SPIN) && !(flags & (LCB_F_MUTEX | LCB_F_RT | LCB_F_PERCPU));
}

/* Does a running logger take spin lock records? */
static size_t spinlock_set_offset __ro_after_init;

/* In each set of running loggers: does one take spin lock records? */
struct spinlock_set {
	bool traced;
};

static bool spinlock_traced(void)
{
	struct ntkl_active_set *set = ntkl_active_set();

	return set && ((struct spinlock_set *)ntkl_set_state(set, spinlock_set_offset))->traced;
}

/* NT IRQL of the context holding the lock; docs/linux-to-nt.md has the map. */
static u8 nt_irql(void)
{
	if (in_nmi())
		return ETW_IRQL_HIGH;
	if (in_hardirq() || irqs_disabled())
		return ETW_IRQL_DEVICE_MAX;
	if (in_serving_softirq() || preempt_count())
		return ETW_IRQL_DISPATCH;
	return ETW_IRQL_PASSIVE;
}

/*
 * The first return address outside the locking code: the frame after the
 * last lock-section frame (in_lock_functions()) of this acquisition. With
 * DEBUG_SPINLOCK one frame outside the section sits inside the chain
 * (do_raw_spin_lock()), so the frame after a candidate must confirm it;
 * otherwise the first frame out is the caller. Either way the frames of a
 * task an interrupt interrupted, deeper down, are never taken for it.
 * 0 if the stack shows no locking code.
 *
 * The walk stops there, and starts at the probe (this is inlined into
 * it): each frame the unwinder steps over costs hundreds of instructions,
 * most of a record's price (make bench).
 */
struct caller_scan {
	unsigned long candidate;
	bool in_lock;
};

/* Take the next frame outwards; true once the caller is known. */
static __always_inline bool caller_scan_step(struct caller_scan *cs, unsigned long addr)
{
	if (in_lock_functions(addr)) {
		cs->in_lock = true;
		cs->candidate = 0;
		return false;
	}
	if (!cs->in_lock)
		return false;		/* ntkl's own frames, below the lock code */
	if (cs->candidate)
		return true;		/* confirmed by a second frame outside */
	cs->candidate = addr;
	return !IS_ENABLED(CONFIG_DEBUG_SPINLOCK);
}

#ifdef CONFIG_X86
static __always_inline u64 caller_address_walk(void)
{
	struct caller_scan cs = { };
	struct unwind_state state;
	unsigned int frames = 0;
	unsigned long addr;

	for (unwind_start(&state, current, NULL, NULL);
	     !unwind_done(&state) && frames++ < CALLER_FRAMES;
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr || caller_scan_step(&cs, addr))
			break;
	}
	return cs.candidate;
}

/*
 * The same answer without the unwinder, in a few dozen instructions: a
 * scan of the words above the probe's stack pointer for the return
 * address the unwinder would find. That word follows a return address
 * into the locking code (the lock function's own call into the slow path)
 * and is itself a return address from a direct call (E8 rel32) into the
 * locking code: the caller's call of spin_lock() and kin. Checking the
 * call instruction before it, rather than only the range it falls in,
 * keeps saved registers and stale words that merely point into text out.
 *
 * The stack between the probe and the lock function is the same for
 * every contention of a kind (the tracepoint's call site, the probe's
 * frame), so where the lock function's return address was found last
 * time, per CPU, is tried first: then only the lock function's own frame
 * is scanned; and the caller found last is known to follow a lock call
 * without reading its call instruction again. Task stacks only (their
 * bounds are known); an interrupt's contention, on its own stack, and
 * anything the scan misses take the unwinder.
 */
#define CALLER_SCAN_WORDS	96
#define CALL_REL32		0xe8
#define CALL_REL32_SIZE		5

static DEFINE_PER_CPU(unsigned int, lock_word_hint);
/* the last caller found here: a return from a lock call, checked once */
static DEFINE_PER_CPU(unsigned long, last_caller);

/* Is addr the return address of a direct call into the locking code? */
static bool returns_from_lock_call(unsigned long addr)
{
	u8 insn[CALL_REL32_SIZE];
	unsigned long target;
	s32 rel;

	if (copy_from_kernel_nofault(insn, (void *)(addr - CALL_REL32_SIZE), sizeof(insn)) ||
	    insn[0] != CALL_REL32)
		return false;
	memcpy(&rel, &insn[1], sizeof(rel));
	target = addr + rel;
	/* call depth tracking may call a function's padding, just before it */
	return in_lock_functions(target) || in_lock_functions(target + 16);
}

/* Kernel image or module space: where text can be. */
static __always_inline bool maybe_text(unsigned long w)
{
	return w >= __START_KERNEL_map && w < MODULES_END;
}

/*
 * Scan words[from..n) for the caller, lock_seen if words[from - 1] is a
 * return address into the locking code. *lock_at: the index of the last
 * such word before the caller.
 */
static __always_inline unsigned long scan_words(const unsigned long *words, unsigned int from,
						unsigned int n, bool lock_seen,
						unsigned int *lock_at)
{
	unsigned int i;

	for (i = from; i < n; i++) {
		unsigned long w = READ_ONCE_NOCHECK(words[i]);

		if (!maybe_text(w))
			continue;
		if (in_lock_functions(w)) {
			lock_seen = true;
			*lock_at = i;
			continue;
		}
		if (lock_seen && (w == __this_cpu_read(last_caller) || returns_from_lock_call(w)))
			return w;
	}
	return 0;
}

static __always_inline u64 caller_address(void)
{
	unsigned long sp = current_stack_pointer;
	unsigned long base = (unsigned long)task_stack_page(current);
	const unsigned long *words = (const unsigned long *)sp;
	unsigned int n, hint, lock_at;
	unsigned long caller;

	if (!in_task() || sp - base >= THREAD_SIZE)
		return caller_address_walk();
	n = min_t(unsigned long, CALLER_SCAN_WORDS, (base + THREAD_SIZE - sp) / sizeof(long));
	hint = __this_cpu_read(lock_word_hint);
	lock_at = hint;
	caller = 0;
	if (hint < n && in_lock_functions(READ_ONCE_NOCHECK(words[hint])))
		caller = scan_words(words, hint + 1, n, true, &lock_at);
	if (!caller) {
		lock_at = 0;
		caller = scan_words(words, 0, n, false, &lock_at);
		if (!caller)
			return caller_address_walk();
	}
	__this_cpu_write(lock_word_hint, lock_at);
	__this_cpu_write(last_caller, caller);
	return caller;
}
#else
static __always_inline u64 caller_address(void)
{
	unsigned long entries[CALLER_FRAMES];
	struct caller_scan cs = { };
	unsigned int n, i;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (caller_scan_step(&cs, entries[i]))
			break;
	return cs.candidate;
}
#endif

static u8 acquire_mode(u32 flags)
{
	if (flags & LCB_F_READ)
		return WMI_SPINLOCK_ACQUIRE_SHARED;
	if (flags & LCB_F_WRITE)
		return WMI_SPINLOCK_ACQUIRE_EXCLUSIVE;
	/* qspinlock's contended path is its MCS queue */
	return WMI_SPINLOCK_ACQUIRE_QUEUED;
}

/*
 * AcquireDepth: spin locks held, this one included. Each held spin lock
 * adds one to the preemption count; the tracepoint adds one of its own.
 */
static u8 acquire_depth(void)
{
	unsigned int held = (preempt_count() & PREEMPT_MASK) >> PREEMPT_SHIFT;

	return clamp(held > 1 ? held - 1 : 1, 1U, 255U);
}

/* What differs between a raw spinlock's record and a sleeping one's. */
struct spin_context {
	u64 caller;
	u32 interrupts;
	u8 irql;
	u8 depth;
};

static __always_inline void write_record(const struct spin_wait *w, const struct spin_context *ctx,
					 u64 now)
{
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);
	u64 wait = now - w->begin;
	struct wmi_spinlock rec = {
		.spin_lock_address = (unsigned long)w->lock,
		.caller_address = ctx->caller,
		.acquire_time = now,
		.release_time = now,
		.wait_time_in_cycles = min_t(u64, wait, U32_MAX),
		.spin_count = spin_count(wait),
		.thread_id = ntkl_thread_id(current),
		.interrupt_count = ctx->interrupts,
		.irql = ctx->irql,
		.acquire_depth = ctx->depth,
		.flags = acquire_mode(w->flags) |
			 (in_serving_softirq() ? WMI_SPINLOCK_EXECUTE_DPC : 0) |
			 (in_hardirq() || in_nmi() ? WMI_SPINLOCK_EXECUTE_ISR : 0),
	};

	ntkl_record_each_walked(loggers, n, ETW_EVENT_SPINLOCK, &rec, sizeof(rec),
				NTKL_WALK_SPINLOCK, NULL);
}

/*
 * The sampling rule of EVENT_TRACE_SPINLOCK_INFORMATION: a contended
 * acquisition is recorded if it spun at least SpinThreshold times and this
 * CPU's count of contentions is a multiple of ContentionSampleRate (a
 * countdown, so no division). Uncontended acquisitions and hold times are
 * invisible to Linux's tracepoints, so the other two rules never fire.
 */
static bool sampled(struct spin_cpu *sc, u64 wait)
{
	if (sc->contention_countdown > 1) {
		sc->contention_countdown--;
		return false;
	}
	sc->contention_countdown = READ_ONCE(config.contention_sample_rate);
	return spin_count(wait) >= READ_ONCE(config.spin_threshold);
}

#ifdef CONFIG_PREEMPT_RT
/*
 * PREEMPT_RT's sleeping spin locks. rtlock_slowlock_locked() (spinlock_t,
 * and the rt_mutex inside an rwlock_t) and rwbase_write_lock() (rwlock_t
 * writers waiting for readers) put the task in TASK_RTLOCK_WAIT before
 * contention_begin; rt_mutex, mutex and rw_semaphore waiters are in their
 * caller's state (the outer begin of an rwlock_t reader too: its wait is
 * the rt_mutex's, recorded).
 */
static bool rt_spin_kind(unsigned int flags)
{
	return (flags & LCB_F_RT) && READ_ONCE(current->__state) == TASK_RTLOCK_WAIT;
}

/*
 * A task waits on one sleeping lock at a time (it sleeps in it), so a slot
 * per waiting task: claimed at begin by a cmpxchg of its task, from the
 * task pointer's hash on, and given back at end by the same task, on
 * whatever CPU it woke. No lock, no allocation. A wait that finds its
 * RT_WAIT_PROBES slots taken is a record lost (counted).
 */
#define RT_WAIT_SLOTS_BITS	9
#define RT_WAIT_SLOTS		BIT(RT_WAIT_SLOTS_BITS)
#define RT_WAIT_PROBES		4

struct rt_wait {
	struct task_struct *task;	/* the waiter; NULL: free */
	struct spin_wait w;
	unsigned int cpu;		/* where it began: w.hardirqs is its count */
};

static struct rt_wait rt_waits[RT_WAIT_SLOTS];
/*
 * Slots taken: with none, an end (the probes stay attached) looks no
 * further. A waiter's own increment is seen by its end, wherever it woke.
 */
static atomic_t rt_waiting = ATOMIC_INIT(0);

static void rt_wait_begin(void *lock, unsigned int flags)
{
	unsigned int h = hash_ptr(current, RT_WAIT_SLOTS_BITS), i;

	for (i = 0; i < RT_WAIT_PROBES; i++) {
		struct rt_wait *rw = &rt_waits[(h + i) % RT_WAIT_SLOTS];

		if (READ_ONCE(rw->task) || cmpxchg(&rw->task, NULL, current))
			continue;
		/* the slot is this task's until its end: no one else writes it */
		atomic_inc(&rt_waiting);
		rw->w.lock = lock;
		rw->w.flags = flags;
		rw->w.hardirqs = this_cpu_read(spin_cpu.hardirqs);
		rw->cpu = smp_processor_id();
		rw->w.begin = cycles();
		return;
	}
	ntkl_lost_each(ETW_EVENT_SPINLOCK);
}

static struct rt_wait *rt_wait_find(void *lock)
{
	unsigned int h, i;

	if (!atomic_read(&rt_waiting))
		return NULL;
	h = hash_ptr(current, RT_WAIT_SLOTS_BITS);

	for (i = 0; i < RT_WAIT_PROBES; i++) {
		struct rt_wait *rw = &rt_waits[(h + i) % RT_WAIT_SLOTS];

		if (READ_ONCE(rw->task) == current && READ_ONCE(rw->w.lock) == lock)
			return rw;
	}
	return NULL;
}

#ifdef CONFIG_X86
/* The target of the direct call (E8 rel32) that returns to addr, or 0. */
static unsigned long call_target(unsigned long addr)
{
	u8 insn[CALL_REL32_SIZE];
	s32 rel;

	if (copy_from_kernel_nofault(insn, (void *)(addr - CALL_REL32_SIZE), sizeof(insn)) ||
	    insn[0] != CALL_REL32)
		return 0;
	memcpy(&rel, &insn[1], sizeof(rel));
	return addr + rel;
}

/* spinlock_rt.c's lock functions: what spin_lock() and kin call on RT */
static bool rt_lock_entry(unsigned long target)
{
	const unsigned long entries[] = {
		(unsigned long)rt_spin_lock, (unsigned long)rt_read_lock,
		(unsigned long)rt_write_lock,
#ifdef CONFIG_DEBUG_LOCK_ALLOC
		(unsigned long)rt_spin_lock_nested, (unsigned long)rt_spin_lock_nest_lock,
		(unsigned long)rt_write_lock_nested,
#endif
	};
	unsigned int i;

	/* call depth tracking may call a function's padding, just before it */
	for (i = 0; i < ARRAY_SIZE(entries); i++)
		if (target == entries[i] || target + 16 == entries[i])
			return true;
	return false;
}

/*
 * The caller of rt_spin_lock() and kin: the first return address of a
 * direct call to one of them. They are __sched, not lock text, so
 * in_lock_functions() does not know them. An unwinder walk: a sleeping
 * wait costs far more than its frames.
 */
#define RT_CALLER_FRAMES	16

static u64 rt_caller_address(void)
{
	unsigned long entries[RT_CALLER_FRAMES];
	unsigned int n, i;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (rt_lock_entry(call_target(entries[i])))
			return entries[i];
	return 0;
}
#else
static u64 rt_caller_address(void)
{
	return 0;	/* ntkl decodes x86 calls only */
}
#endif

/*
 * AcquireDepth of a sleeping spin lock: each one held disables migration
 * once (and takes no preemption count), so the task's migrate_disable()
 * depth, this one added. local_lock_t, a spinlock_t on RT, counts too.
 */
static u8 rt_acquire_depth(void)
{
#ifdef CONFIG_SMP
	return clamp(current->migration_disabled + 1U, 1U, 255U);
#else
	return 1;
#endif
}

/*
 * The end of a sleeping spin lock's wait, if lock is the one this task's
 * slot waits on; false otherwise (a raw spinlock's end). Given back
 * whether or not a logger still takes the records: the probes stay
 * attached, so no slot outlives its wait.
 */
static bool rt_wait_end(void *lock)
{
	struct rt_wait *rw = rt_wait_find(lock);
	struct spin_context ctx;
	struct spin_wait w;
	unsigned int cpu;
	u64 now;

	if (!rw)
		return false;
	now = cycles();
	w = rw->w;
	cpu = rw->cpu;
	/* the slot read before a new waiter may claim it */
	smp_store_release(&rw->task, NULL);
	atomic_dec(&rt_waiting);
	if (!spinlock_traced() || !sampled(this_cpu_ptr(&spin_cpu), now - w.begin))
		return true;
	ctx.caller = rt_caller_address();
	/* the interrupts the CPU it began on took meanwhile */
	ctx.interrupts = READ_ONCE(per_cpu(spin_cpu, cpu).hardirqs) - w.hardirqs;
	/*
	 * The waiter's own context, not the raw wait_lock it holds here with
	 * interrupts off: a sleeping lock is taken preemptible, and softirqs
	 * run in tasks.
	 */
	ctx.irql = in_serving_softirq() ? ETW_IRQL_DISPATCH : ETW_IRQL_PASSIVE;
	ctx.depth = rt_acquire_depth();
	write_record(&w, &ctx, now);
	return true;
}
#else
static bool rt_spin_kind(unsigned int flags)
{
	return false;
}

static void rt_wait_begin(void *lock, unsigned int flags)
{
}

static bool rt_wait_end(void *lock)
{
	return false;
}
#endif

static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	struct spin_cpu *sc = this_cpu_ptr(&spin_cpu);
	unsigned int depth = READ_ONCE(sc->depth);

	if (rt_spin_kind(flags)) {
		if (spinlock_traced())
			rt_wait_begin(lock, flags);
		return;
	}
	/* no SPINLOCK logger: nothing to do, and nothing pushed to pop later */
	if (!traced_kind(flags) || !spinlock_traced())
		return;
	/*
	 * Claim the slot, then fill it. Filled first and published after, an
	 * interrupt in between would push its own wait into the same slot and
	 * pop it, leaving ours half overwritten (its lock, so our end never
	 * finds it). Claimed first, a nested wait goes above ours. Its lock
	 * cleared before the claim, a nested end cannot take the slot for a
	 * wait of its own meanwhile.
	 */
	if (depth < SPIN_NEST_MAX)
		WRITE_ONCE(sc->stack[depth].lock, NULL);
	barrier();
	WRITE_ONCE(sc->depth, depth + 1);
	barrier();
	if (depth < SPIN_NEST_MAX) {
		struct spin_wait *w = &sc->stack[depth];

		w->begin = cycles();
		w->hardirqs = sc->hardirqs;
		w->flags = flags;
		barrier();	/* the lock last: a nested end matches whole entries */
		WRITE_ONCE(w->lock, lock);
	}
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	struct spin_cpu *sc = this_cpu_ptr(&spin_cpu);
	unsigned int depth = READ_ONCE(sc->depth);
	unsigned int top = min_t(unsigned int, depth, SPIN_NEST_MAX);
	struct spin_context ctx;
	struct spin_wait w;
	u64 now;
	int i;

	/*
	 * Find the wait this ends: the innermost one on this lock (none if
	 * nothing was pushed, even if a logger stopped since). This CPU's
	 * spinning waits first: on RT an rt_mutex's wait_lock has its
	 * address, and its waiter contends for it again after each sleep.
	 */
	for (i = (int)top - 1; i >= 0; i--)
		if (sc->stack[i].lock == lock)
			break;
	if (i < 0) {
		/* a sleeping spin lock's, or not ours unless deeper than we store */
		if (!rt_wait_end(lock) && depth > SPIN_NEST_MAX)
			WRITE_ONCE(sc->depth, depth - 1);
		return;
	}
	now = cycles();
	w = sc->stack[i];
	barrier();	/* the entry is read before a nested context reuses it */
	WRITE_ONCE(sc->depth, i);
	if (!sampled(sc, now - w.begin))
		return;
	ctx.caller = caller_address();
	ctx.interrupts = sc->hardirqs - w.hardirqs;
	ctx.irql = nt_irql();
	ctx.depth = acquire_depth();
	write_record(&w, &ctx, now);
}

static void probe_irq_handler_entry(void *data, int irq, struct irqaction *action)
{
	this_cpu_inc(spin_cpu.hardirqs);
}

static int ntkl_spinlock_set_config(const struct ntkl_spinlock_config *c)
{
	struct ntkl_spinlock_config v = *c;
	unsigned int cpu;

	if (c->__reserved0)
		return -EINVAL;
	if (ntkl_spinlock_config_is_default(&v)) {
		v.spin_threshold = NTKL_SPIN_THRESHOLD_MIN;
		v.acquire_sample_rate = NTKL_ACQUIRE_SAMPLE_RATE_MIN;
		v.contention_sample_rate = NTKL_CONTENTION_SAMPLE_RATE_MIN;
		v.hold_threshold = NTKL_HOLD_THRESHOLD_MIN;
	}
	if (ntkl_spinlock_config_out_of_bounds(&v))
		return -EINVAL;

	mutex_lock(&config_lock);
	WRITE_ONCE(config.spin_threshold, v.spin_threshold);
	WRITE_ONCE(config.acquire_sample_rate, v.acquire_sample_rate);
	WRITE_ONCE(config.contention_sample_rate, v.contention_sample_rate);
	WRITE_ONCE(config.hold_threshold, v.hold_threshold);
	/* every CPU samples its next contention, then every rate-th */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(spin_cpu, cpu).contention_countdown, 0);
	mutex_unlock(&config_lock);
	return 0;
}

static void ntkl_spinlock_get_config(struct ntkl_spinlock_config *c)
{
	mutex_lock(&config_lock);
	*c = config;
	mutex_unlock(&config_lock);
	c->size = sizeof(*c);
}

static int spinlock_setting_set(const void *s)
{
	const struct ntkl_spinlock_config *c = s;

	return c->__reserved0 ? -EINVAL : ntkl_spinlock_set_config(c);
}

static int spinlock_setting_get(void *s)
{
	struct ntkl_spinlock_config *c = s;

	if (c->__reserved0)
		return -EINVAL;
	ntkl_spinlock_get_config(c);
	return 0;
}

static_assert(sizeof(struct ntkl_spinlock_config) <= NTKL_SETTING_MAX);

/* SET_ and GET_SPINLOCK_CONFIG */
static const struct ntkl_setting spinlock_setting = {
	.set_cmd = NTKL_IOC_SET_SPINLOCK_CONFIG,
	.get_cmd = NTKL_IOC_GET_SPINLOCK_CONFIG,
	.size = sizeof(struct ntkl_spinlock_config),
	.min_size = NTKL_SPINLOCK_CONFIG_SIZE_VER0,
	.set = spinlock_setting_set,
	.get = spinlock_setting_get,
};

/* Calibrate SpinCount: the cost of one cpu_relax(). */
static int spinlock_init(void)
{
	u64 start, took;
	int i;

	start = cycles();
	for (i = 0; i < 1000; i++)
		cpu_relax();
	took = max_t(u64, div_u64(cycles() - start, 1000), 1);
	spins_per_cycle_mult = div64_u64(1ULL << 32, took);
	return 0;
}

/* The contention probes stay idle unless a logger takes spin lock records. */
static void spinlock_publish(struct ntkl_active_set *set)
{
	struct spinlock_set *state = ntkl_set_state(set, spinlock_set_offset);
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_event_on(set->loggers[i], ETW_EVENT_SPINLOCK))
			state->traced = true;
}

static struct ntkl_tp spinlock_tps[] = {
	NTKL_TP(contention_begin, NTKL_TP_ALWAYS, "no SpinLock records"),
	NTKL_TP(contention_end, NTKL_TP_ALWAYS, "no SpinLock records"),
	NTKL_TP(irq_handler_entry, NTKL_TP_ALWAYS,
		"SpinLock InterruptCount is 0"),
};

const struct ntkl_producer ntkl_spinlock_producer = {
	.name = "spinlock",
	.init = spinlock_init,
	.tps = spinlock_tps,
	.nr_tps = ARRAY_SIZE(spinlock_tps),
	.set_size = sizeof(struct spinlock_set),
	.set_offset = &spinlock_set_offset,
	.publish = spinlock_publish,
	.setting = &spinlock_setting,
};
