// SPDX-License-Identifier: GPL-2.0
/*
 * Stack caching, as Windows writes it (its layouts and key scheme read off
 * the PerfView sample and TraceEvent's StackWalkRefTraceData and
 * StackWalkDefTraceData): a stack's kernel frames and its user frames are
 * each a key, written as a StackKeyKernel and a StackKeyUser reference
 * with the event's time; a key's frames are written once, when the cache
 * drops it (KeyDelete) or at stop for those still in it (KeyRundown), so
 * every key a file refers to is defined in it, mostly after its
 * references. FLUSH and the snapshot of a buffering logger write a
 * KeyRundown of every key cached then too (kept in the cache, but no key
 * is made until the buffers are closed or saved), so that the buffers up
 * to them define every key they refer to; a reader takes a key defined
 * twice as one. docs/linux-to-nt.md says what each field holds.
 *
 * One difference: a reference is a 40-byte record, so user frames fewer
 * than USER_KEY_MIN_FRAMES (an IP and a frame or two) are kept in the
 * kernel part's key, and such a stack is one reference. A StackKeyUser
 * one: TraceEvent's TraceLog files a definition as a kernel or a user
 * one by its last frame, and takes a user one's frames as a stack that
 * ends in user mode, whole, as it takes a Stack record that does.
 *
 * Each logger that asks (NTKL_LOGGER_OPT_STACK_CACHING) has a cache per CPU,
 * allocated at START and freed with the logger, never in a probe: SETS
 * sets of WAYS entries, an entry holding a part of at most ENTRY_FRAMES
 * frames. A key is its CPU (plus one) in bits 48 and up and that CPU's
 * count of keys made below, so no two entries of a logger share one.
 *
 * No lock: a probe claims its CPU's cache with a cmpxchg of its state.
 * An interrupt or NMI that finds it claimed (by the probe it interrupted)
 * writes the whole Stack instead, as does a probe whose stack has a part
 * too long for an entry, and every probe once the rundown at stop has
 * closed the cache: nothing is lost, some stacks are written whole. So
 * are stacks of fewer than MIN_CACHED_FRAMES frames, which a reference
 * would hardly shorten.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/processor.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "control/fault.h"
#include "producers/stack.h"
#include "producers/stack_cache.h"

#define SETS		64
#define WAYS		4
#define ENTRY_FRAMES	64		/* a longer part is written whole */
#define KEY_CPU_SHIFT	48
/* a user part has a key of its own from this many frames (40 bytes a reference) */
#define USER_KEY_MIN_FRAMES	6
/* a shorter stack is written whole (as Windows: ETW_MINIMUM_CACHED_STACK_LENGTH) */
#define MIN_CACHED_FRAMES	4

/*
 * HELD: its keys are defined for a snapshot being taken; until it is,
 * stacks are written whole, so that the snapshot refers to no key made
 * after its definitions.
 */
enum { CACHE_FREE, CACHE_BUSY, CACHE_HELD, CACHE_CLOSED };

struct entry {
	u64 key;			/* 0: empty */
	u64 hash;
	u32 n;
	u64 frames[ENTRY_FRAMES];
};

struct cpu_cache {
	atomic_t state;			/* CACHE_* */
	u64 next_key;			/* keys made on this CPU */
	u8 victim[SETS];		/* the way a miss takes next, round robin */
	struct entry set[SETS][WAYS];
} ____cacheline_aligned;

struct ntkl_stack_cache {
	struct mutex define_lock;	/* one define pass at a time: FLUSH, a snapshot, stop */
	unsigned int nr_cpus;
	struct cpu_cache cpu[];
};

int ntkl_stack_cache_alloc(struct ntkl_logger *lg)
{
	struct ntkl_stack_cache *sc;
	unsigned int i;

	if (!(lg->options & NTKL_LOGGER_OPT_STACK_CACHING))
		return 0;
	sc = ntkl_fault() ? NULL : kvzalloc(struct_size(sc, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	mutex_init(&sc->define_lock);
	sc->nr_cpus = nr_cpu_ids;
	for (i = 0; i < sc->nr_cpus; i++)
		atomic_set(&sc->cpu[i].state, CACHE_FREE);
	lg->stack_cache = sc;
	return 0;
}

void ntkl_stack_cache_free(struct ntkl_logger *lg)
{
	kvfree(lg->stack_cache);
	lg->stack_cache = NULL;
}

static u64 frames_hash(const u64 *f, u32 n)
{
	u64 h = n;
	u32 i;

	for (i = 0; i < n; i++) {
		h = (h ^ f[i]) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
	}
	return h;
}

/* A key's definition: KeyDelete or KeyRundown. */
static void write_def(struct ntkl_logger *lg, enum etw_event_id id, const struct entry *e)
{
	struct etw_stack_key_def *def;
	struct ntkl_record rec;

	def = ntkl_begin_STACK_KEY_DEF(lg, &rec, id, sizeof(*def) + e->n * sizeof(e->frames[0]));
	if (!def)
		return;
	def->stack_key = e->key;
	memcpy(def + 1, e->frames, e->n * sizeof(e->frames[0]));
	ntkl_record_end(&rec);
}

static void write_ref(struct ntkl_logger *lg, enum etw_event_id id, const struct ntkl_stack *st,
		      u64 event_time, u64 key)
{
	struct etw_stack_key_ref *ref;
	struct ntkl_record rec;

	ref = ntkl_begin_STACK_KEY_REF(lg, &rec, id, sizeof(*ref));
	if (!ref)
		return;
	ref->event_time_stamp = event_time;
	ref->stack_process = st->pid;
	ref->stack_thread = st->tid;
	ref->stack_key = key;
	ntkl_record_end(&rec);
}

/* The key of n frames at f in the claimed cache c of CPU cpu; a miss takes an entry. */
static u64 part_key(struct ntkl_logger *lg, struct cpu_cache *c, unsigned int cpu,
		    const u64 *f, u32 n)
{
	u64 h = frames_hash(f, n);
	unsigned int s = (h >> 32) % SETS, w, take = WAYS;
	struct entry *e;

	for (w = 0; w < WAYS; w++) {
		e = &c->set[s][w];
		if (!e->key) {
			if (take == WAYS)
				take = w;
			continue;
		}
		if (e->hash == h && e->n == n && !memcmp(e->frames, f, n * sizeof(*f)))
			return e->key;
	}
	if (take == WAYS) {
		take = c->victim[s];
		c->victim[s] = (take + 1) % WAYS;
	}
	e = &c->set[s][take];
	/* the dropped key's last chance to be defined */
	if (e->key)
		write_def(lg, ETW_EVENT_STACK_KEY_DELETE, e);
	e->key = ((u64)(cpu + 1) << KEY_CPU_SHIFT) | ++c->next_key;
	e->hash = h;
	e->n = n;
	memcpy(e->frames, f, n * sizeof(*f));
	return e->key;
}

bool ntkl_stack_cache_write(struct ntkl_logger *lg, const struct ntkl_stack *st, u64 event_time)
{
	struct ntkl_stack_cache *sc = lg->stack_cache;
	u64 kkey = 0, ukey = 0;
	unsigned int cpu;
	struct cpu_cache *c;
	u32 k = 0, u;

	if (!sc || st->n < MIN_CACHED_FRAMES)
		return false;
	while (k < st->n && st->frames[k] >> 63)	/* the kernel's half */
		k++;
	u = st->n - k;
	/* a few user frames cost less than their own reference: they join the kernel's */
	if (k && u < USER_KEY_MIN_FRAMES) {
		k = st->n;
		u = 0;
	}
	if (k > ENTRY_FRAMES || u > ENTRY_FRAMES)
		return false;
	cpu = smp_processor_id();
	if (WARN_ON_ONCE(cpu >= sc->nr_cpus))
		return false;
	c = &sc->cpu[cpu];
	if (atomic_cmpxchg_acquire(&c->state, CACHE_FREE, CACHE_BUSY) != CACHE_FREE)
		return false;
	if (k)
		kkey = part_key(lg, c, cpu, st->frames, k);
	if (u)
		ukey = part_key(lg, c, cpu, st->frames + k, u);
	atomic_set_release(&c->state, CACHE_FREE);
	/* the kernel part, or the whole stack if its user frames joined it */
	if (kkey)
		write_ref(lg, st->frames[k - 1] >> 63 ? ETW_EVENT_STACK_KEY_KERNEL :
							 ETW_EVENT_STACK_KEY_USER,
			  st, event_time, kkey);
	if (ukey)
		write_ref(lg, ETW_EVENT_STACK_KEY_USER, st, event_time, ukey);
	return true;
}

/* One CPU's pass: which logger, whose cache, and the state it leaves it in. */
struct define_pass {
	struct ntkl_logger *lg;
	unsigned int cpu;
	int after;			/* CACHE_HELD (a snapshot) or CACHE_CLOSED (stop) */
};

/*
 * KeyRundown for every key in one CPU's cache, run on that CPU so that the
 * definitions fill its buffers, as its references did, and not the
 * buffers of the CPU that stops the logger (which a 64-CPU rundown would
 * overflow). The cache is held for the whole pass, so no key is made that
 * the pass misses: a probe meanwhile writes its stack whole. A probe holds
 * the cache with preemption off, on its own CPU: it is waited out only
 * when the CPU is offline and the pass runs elsewhere.
 */
static int define_cpu(void *data)
{
	struct define_pass *pass = data;
	struct cpu_cache *c = &pass->lg->stack_cache->cpu[pass->cpu];
	unsigned int s, w;
	int old;

	for (;;) {
		old = atomic_read(&c->state);
		if (old == CACHE_CLOSED)
			return 0;
		if (old == CACHE_BUSY)
			cpu_relax();
		else if (atomic_cmpxchg_acquire(&c->state, old, CACHE_BUSY) == old)
			break;
	}
	for (s = 0; s < SETS; s++) {
		preempt_disable();
		for (w = 0; w < WAYS; w++)
			if (c->set[s][w].key)
				write_def(pass->lg, ETW_EVENT_STACK_KEY_RUNDOWN, &c->set[s][w]);
		preempt_enable();
		cond_resched();
	}
	atomic_set_release(&c->state, pass->after);
	return 0;
}

static void define_all(struct ntkl_logger *lg, int after)
{
	struct define_pass pass = { .lg = lg, .after = after };
	struct ntkl_stack_cache *sc = lg->stack_cache;

	if (!sc)
		return;
	/* two passes on one CPU: the second would spin on the first's claim */
	mutex_lock(&sc->define_lock);
	for (pass.cpu = 0; pass.cpu < sc->nr_cpus; pass.cpu++)
		if (smp_call_on_cpu(pass.cpu, define_cpu, &pass, false) == -ENXIO)
			define_cpu(&pass);	/* offline: its keys from here */
	mutex_unlock(&sc->define_lock);
}

void ntkl_stack_cache_snapshot(struct ntkl_logger *lg, bool taken)
{
	struct ntkl_stack_cache *sc = lg->stack_cache;
	unsigned int i;

	if (!taken) {
		define_all(lg, CACHE_HELD);
		return;
	}
	if (!sc)
		return;
	mutex_lock(&sc->define_lock);
	for (i = 0; i < sc->nr_cpus; i++)
		atomic_cmpxchg(&sc->cpu[i].state, CACHE_HELD, CACHE_FREE);
	mutex_unlock(&sc->define_lock);
}

void ntkl_stack_cache_rundown(struct ntkl_logger *lg)
{
	define_all(lg, CACHE_CLOSED);
}
