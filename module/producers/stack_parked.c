// SPDX-License-Identifier: GPL-2.0
/*
 * Parked user stacks (stack_parked.h): a table of sets of two slots, a
 * thread's set chosen by its task_struct's address. A thread parks in
 * the slot of its set that holds it already, else in the one parked
 * longer ago: two threads whose sets collide (a test's blocked thread and
 * the thread that wakes it, say) each keep a slot of their own, where
 * one slot a set made them evict each other at every switch. A slot's
 * seq is odd while it is written: a writer takes it from even to odd
 * with a cmpxchg and never waits (if another CPU holds the slot, this
 * thread is not parked), and a reader copies, then checks that seq did
 * not move.
 *
 * A slot is a thread's while its task, thread id and switch count
 * (nvcsw + nivcsw, counted before the sched_switch tracepoint) are the
 * thread's: the count moves at every switch out, so frames parked before
 * a switch that was not seen (no logger walked CSwitch then) are never
 * taken for a later one. A third thread in a set takes the slot parked
 * longer ago: a thread that finds no slot of its own at its switch in
 * gets its user IP alone, as without parking.
 *
 * A slot also keeps what the last two walks of its frames that reached
 * the stack's end read (struct ntkl_unwind_memo, which holds their frames
 * too): a thread switched out again from the same user registers over
 * the same words of stack has the same frames, which ntkl_parked_again()
 * then parks rather than walk them again. A thread that waits in a loop
 * (a read, a futex, a poll) is switched out where it was before, or at
 * one of two places (pingpong: blocked in read, preempted after the
 * write that woke its peer), and a check of its words costs a fraction
 * of a walk by the unwind tables (docs/performance.md).
 *
 * Kernel frames are parked too, in a table of their own, for the threads
 * whose kernel stack cannot be walked at their switch in (a kretprobe's
 * return address on it: ntkl_stack_switch()).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "control/fault.h"
#include "uapi/ntkl.h"
#include "producers/stack_parked.h"
#include "unwind/unwind.h"

#define PARKED_BITS	11		/* 2048 slots: 2 MiB */
#define PARKED_WAYS	2		/* the slots of a set */
#define SET_BITS	(PARKED_BITS - 1)
#define PARKED_MEMOS	2		/* the walks of a thread a slot keeps */

struct parked {
	atomic_t seq;
	u32 tid;
	u32 n;
	bool truncated;			/* more user frames than it keeps */
	s8 stop;			/* how its walk ended (enum ntkl_user_stop) */
	const struct task_struct *task;
	unsigned long switches;
	unsigned long parked_at;	/* jiffies: which slot of a set is older */
	u64 frames[NTKL_PARKED_FRAMES];
	u8 memo_last;			/* the memo of frames' walk, or PARKED_MEMOS */
	struct ntkl_unwind_memo memo[PARKED_MEMOS];
};

/*
 * Kernel frames, parked only for a thread switched out inside a function
 * a kretprobe holds the return of (stack.c says why): few threads, so a
 * smaller table of sets alike, its slots' memos unused.
 */
#define KPARKED_BITS	8		/* 256 slots: 256 KiB */
#define KSET_BITS	(KPARKED_BITS - 1)

struct parked_store {
	struct parked user[1u << PARKED_BITS];
	struct parked kernel[1u << KPARKED_BITS];
};

/* Made by the first logger that walks CSwitch, kept until unload. */
static struct parked_store *parked;
static DEFINE_MUTEX(parked_lock);

int ntkl_parked_prepare(void)
{
	struct parked_store *table;
	int ret = 0;

	/* made already: seen with its contents (the release below) */
	if (smp_load_acquire(&parked))
		return 0;
	mutex_lock(&parked_lock);
	if (!parked) {
		table = ntkl_fault() ? NULL : kvzalloc(sizeof(*table), GFP_KERNEL);
		if (!table)
			ret = -ENOMEM;
		else	/* the zeroed slots before the pointer a probe may read */
			smp_store_release(&parked, table);
	}
	mutex_unlock(&parked_lock);
	return ret;
}

/* At unload, when no probe runs. */
void ntkl_parked_free(void)
{
	kvfree(parked);
	parked = NULL;
}

static __always_inline unsigned long switches_of(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

/* t's set of slots in the user (kernel false) or the kernel table */
static __always_inline struct parked *set_of(const struct task_struct *t, bool kernel)
{
	/* pairs with the release of ntkl_parked_prepare() */
	struct parked_store *table = smp_load_acquire(&parked);

	if (!table)
		return NULL;
	if (kernel)
		return &table->kernel[hash_ptr(t, KSET_BITS) * PARKED_WAYS];
	return &table->user[hash_ptr(t, SET_BITS) * PARKED_WAYS];
}

/* t's slot in its set if one holds it, else the slot parked longer ago */
static __always_inline struct parked *slot_for(struct parked *set, const struct task_struct *t)
{
	if (READ_ONCE(set[0].task) == t)
		return &set[0];
	if (READ_ONCE(set[1].task) == t)
		return &set[1];
	return time_before(READ_ONCE(set[1].parked_at), READ_ONCE(set[0].parked_at)) ?
	       &set[1] : &set[0];
}

/*
 * A held slot's memos after a walk: its memo takes the place of the one
 * used longer ago; a slot new to its thread drops the last thread's.
 */
static void put_memo(struct parked *s, const struct ntkl_unwind_memo *memo, bool fresh)
{
	struct ntkl_unwind_memo *m;
	unsigned int i;

	if (fresh)
		for (i = 0; i < PARKED_MEMOS; i++)
			s->memo[i].reads = NTKL_UNWIND_MEMO_NONE;
	if (!memo || memo->reads == NTKL_UNWIND_MEMO_NONE || s->truncated) {
		s->memo_last = PARKED_MEMOS;	/* frames are no memo's */
		return;
	}
	i = s->memo_last < PARKED_MEMOS ? (s->memo_last + 1) % PARKED_MEMOS : 0;
	m = &s->memo[i];
	/* the memo's fixed part, then only the words it holds */
	memcpy(m, memo, offsetof(struct ntkl_unwind_memo, off));
	memcpy(m->off, memo->off, memo->reads * sizeof(memo->off[0]));
	memcpy(m->word, memo->word, memo->reads * sizeof(memo->word[0]));
	s->memo_last = i;
}

static void put_in(struct parked *set, const struct task_struct *t, const u64 *frames, u32 n,
		   s8 stop, const struct ntkl_unwind_memo *memo)
{
	struct parked *s;
	bool fresh;
	int seq;

	if (!set)
		return;
	s = slot_for(set, t);
	seq = atomic_read(&s->seq);
	/* a full barrier: the writes below are not seen before the odd seq */
	if ((seq & 1) || atomic_cmpxchg(&s->seq, seq, seq + 1) != seq)
		return;
	fresh = s->task != t || s->tid != t->pid;
	s->task = t;
	s->tid = t->pid;
	s->switches = switches_of(t);
	s->parked_at = jiffies;
	s->truncated = n > NTKL_PARKED_FRAMES;
	s->stop = s->truncated ? NTKL_USTOP_LIMIT : stop;
	s->n = min_t(u32, n, NTKL_PARKED_FRAMES);
	memcpy(s->frames, frames, s->n * sizeof(*frames));
	put_memo(s, memo, fresh);
	atomic_set_release(&s->seq, seq + 2);
}

void ntkl_parked_put(const struct task_struct *t, const u64 *frames, u32 n, s8 stop,
		     const struct ntkl_unwind_memo *memo)
{
	put_in(set_of(t, false), t, frames, n, stop, memo);
}

bool ntkl_parked_again(const struct task_struct *t, const struct pt_regs *regs)
{
	struct parked *set = set_of(t, false), *s;
	unsigned int m;
	int seq;

	if (!set)
		return false;
	if (READ_ONCE(set[0].task) == t)
		s = &set[0];
	else if (READ_ONCE(set[1].task) == t)
		s = &set[1];
	else
		return false;
	seq = atomic_read(&s->seq);
	if ((seq & 1) || atomic_cmpxchg(&s->seq, seq, seq + 1) != seq)
		return false;
	/* held: still t's, with a memo of a walk from these registers over these words */
	for (m = 0; m < PARKED_MEMOS; m++)
		if (s->task == t && s->tid == t->pid && ntkl_unwind_memo_holds(&s->memo[m], regs))
			break;
	if (m < PARKED_MEMOS) {
		if (s->memo_last != m) {
			s->n = ntkl_unwind_memo_frames(&s->memo[m], s->frames);
			s->truncated = false;
			s->stop = NTKL_USTOP_END;
			s->memo_last = m;
		}
		s->switches = switches_of(t);
		s->parked_at = jiffies;
	}
	atomic_set_release(&s->seq, seq + 2);
	return m < PARKED_MEMOS;
}

/* One slot's frames if they are t's of its last switch out, else 0. */
static u32 take_slot(struct parked *s, const struct task_struct *t, u64 *frames, u32 room,
		     bool *truncated, s8 *stop)
{
	int seq;
	u32 n;

	seq = atomic_read_acquire(&s->seq);
	if ((seq & 1) || READ_ONCE(s->task) != t || READ_ONCE(s->tid) != t->pid ||
	    READ_ONCE(s->switches) != switches_of(t))
		return 0;
	n = min(READ_ONCE(s->n), room);
	*truncated = READ_ONCE(s->truncated) || n < READ_ONCE(s->n);
	*stop = *truncated ? NTKL_USTOP_LIMIT : READ_ONCE(s->stop);
	memcpy(frames, s->frames, n * sizeof(*frames));
	/* the copy, then the check that no writer came meanwhile */
	smp_rmb();
	return atomic_read(&s->seq) == seq ? n : 0;
}

static u32 take_from(struct parked *set, const struct task_struct *t, u64 *frames, u32 room,
		     bool *truncated, s8 *stop)
{
	unsigned int w;
	u32 n;

	if (!set)
		return 0;
	/* either slot may be t's; an older copy in the other fails the switch count */
	for (w = 0; w < PARKED_WAYS; w++) {
		n = take_slot(&set[w], t, frames, room, truncated, stop);
		if (n)
			return n;
	}
	return 0;
}

u32 ntkl_parked_take(const struct task_struct *t, u64 *frames, u32 room, bool *truncated,
		     s8 *stop)
{
	return take_from(set_of(t, false), t, frames, room, truncated, stop);
}

void ntkl_parked_put_kernel(const struct task_struct *t, const u64 *frames, u32 n)
{
	put_in(set_of(t, true), t, frames, n, NTKL_USTOP_END, NULL);
}

u32 ntkl_parked_take_kernel(const struct task_struct *t, u64 *frames, u32 room, bool *truncated)
{
	s8 stop;

	return take_from(set_of(t, true), t, frames, room, truncated, &stop);
}
