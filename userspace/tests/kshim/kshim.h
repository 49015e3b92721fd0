/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API that module/transport/buffers.c uses, modelled for one
 * CPU in a single-threaded test (tests/test_nested_writers.c), so that the
 * module's own buffer code runs here unchanged.
 *
 * On one CPU, what can come between two steps of a writer is another
 * context that interrupts it (softirq, hardirq, NMI) and runs to its end,
 * and the reader, running on another CPU. A writer's steps that another
 * context can see are its local_t operations and its READ_ONCE /
 * WRITE_ONCE accesses (and clock readings), each atomic against an
 * interrupt on its CPU; so each of them first calls kshim_point(), where
 * the test may run a nested writer or a reader step. Plain stores to a
 * buffer's record bytes are the writer's own until it commits.
 *
 * The Makefile generates the <linux/...> and <asm/...> headers the module
 * includes, each one line that includes this file.
 *
 * module/unwind/cfi.c (tests/test_unwind_cfi.c) is compiled against it
 * too: it needs only the types, limits and sort() below. Its
 * <linux/types.h>, <linux/limits.h> and <linux/errno.h> stay the
 * system's (uapi: glibc's own headers include them, so the shim must not
 * hide them), so the Makefile puts this file ahead of them with -include.
 */
#ifndef NTKL_KSHIM_H
#define NTKL_KSHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include <errno.h>
#include <sys/types.h>
#include <linux/types.h>	/* the system's: __u32 for uapi/ */

/* the test: an interrupt or the other CPU's reader may come in here */
void kshim_point(void);

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
/* module/unwind/cfi.c's rows */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;

#define __user
#define __rcu
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define likely(x)		__builtin_expect(!!(x), 1)
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define S64_MAX			INT64_MAX
#define U64_MAX			UINT64_MAX
/* linux/limits.h: the system's <linux/limits.h> (uapi) has none of these */
#define S64_MIN			INT64_MIN
#define U8_MAX			UINT8_MAX
#define S8_MAX			INT8_MAX
#define S8_MIN			INT8_MIN
#define U16_MAX			UINT16_MAX
#define S16_MAX			INT16_MAX
#define S16_MIN			INT16_MIN
#define U32_MAX			UINT32_MAX
#define S32_MAX			INT32_MAX
#define S32_MIN			INT32_MIN
#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif
#define __maybe_unused		__attribute__((__unused__))
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define rcu_dereference_sched(p)	(p)

#define max(a, b)		((a) > (b) ? (a) : (b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (63 - __builtin_clzl(n));
}

/* what other contexts can see: each access a point */
#define READ_ONCE(x)		({ kshim_point(); *(volatile __typeof__(x) *)&(x); })
#define WRITE_ONCE(x, v)	do { kshim_point(); *(volatile __typeof__(x) *)&(x) = (v); } while (0)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

typedef struct {
	long v;
} local_t;

static inline long local_read(const local_t *l)
{
	kshim_point();
	return l->v;
}

static inline void local_set(local_t *l, long v)
{
	kshim_point();
	l->v = v;
}

static inline long local_cmpxchg(local_t *l, long old, long new)
{
	long cur;

	kshim_point();
	cur = l->v;
	if (cur == old)
		l->v = new;
	return cur;
}

static inline long local_xchg(local_t *l, long v)
{
	long cur;

	kshim_point();
	cur = l->v;
	l->v = v;
	return cur;
}

static inline void local_inc(local_t *l)
{
	kshim_point();
	l->v++;
}

static inline long local_add_return(long n, local_t *l)
{
	kshim_point();
	return l->v += n;
}

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *a)
{
	return a->counter;
}

static inline void atomic64_inc(atomic64_t *a)
{
	a->counter++;
}

static inline void atomic64_dec(atomic64_t *a)
{
	a->counter--;
}

static inline s64 atomic64_inc_return(atomic64_t *a)
{
	kshim_point();
	return ++a->counter;
}

/* the kernel objects a logger embeds, unused by the buffer code */
struct kref { int refcount; };
struct mutex { int locked; };
struct list_head { struct list_head *next, *prev; };
typedef struct { int lock; } wait_queue_head_t;
struct delayed_work { int pending; };
typedef struct { unsigned int sequence; } seqcount_latch_t;

struct irq_work { int pending; };
void irq_work_queue(struct irq_work *work);

/* one CPU */
#define nr_cpu_ids		1U
#define num_possible_cpus()	1U
#define smp_processor_id()	0U
#define cpu_online(cpu)		((cpu) == 0)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
static inline void cpus_read_lock(void) { }
static inline void cpus_read_unlock(void) { }
static inline void synchronize_rcu(void) { }

static inline int smp_call_function_single(unsigned int cpu, void (*fn)(void *), void *arg,
					   int wait)
{
	fn(arg);
	return 0;
}

#define GFP_KERNEL		0
#define __GFP_RETRY_MAYFAIL	0
#define __GFP_NOWARN		0
#define __GFP_ZERO		0
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_ALIGN(x)		(((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
/* the model's memory: plenty (START's check of what is available) */
#define si_mem_available()	(1UL << 20)
#define kcalloc(n, size, gfp)	calloc(n, size)
/* per-CPU memory: an array of one per CPU */
#define __percpu
#define alloc_percpu(type)	((type *)calloc(nr_cpu_ids, sizeof(type)))
#define free_percpu(p)		free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[cpu])
#define this_cpu_ptr(p)		per_cpu_ptr(p, smp_processor_id())
#define kvmalloc(size, gfp)	malloc(size)
#define kfree(p)		free(p)
#define kvfree(p)		free(p)
#define __vmalloc(size, gfp)	calloc(1, size)
#define vfree(p)		free(p)

static inline unsigned long copy_to_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

/* the clocks: QPC, read through ntkl_qpc_slow() (no CONFIG_X86 here) */
u64 ktime_get_mono_fast_ns(void);

/* linux/math64.h */
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

/*
 * linux/sort.h, on top of qsort(): neither is stable, so code that sorts
 * equal keys into a meaningful order would differ here as in the kernel.
 * A swap_func only swaps two elements, which qsort() does by itself.
 */
typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

static inline void sort(void *base, size_t num, size_t size, cmp_func_t cmp_func,
			swap_func_t swap_func)
{
	(void)swap_func;
	qsort(base, num, size, cmp_func);
}

#endif /* NTKL_KSHIM_H */
