// SPDX-License-Identifier: GPL-2.0
/*
 * Each process's executable mappings, for the walk: where each range of
 * its code lies and which file's table (table.c) unwinds it. A probe
 * cannot look a process's mappings up itself (the VMA tree wants
 * mmap_lock, which a probe may not take: it may interrupt its holder, or
 * run under the runqueue lock that its release would want), so each
 * process the walk meets gets a map, made in process context by a worker
 * and published with RCU; the probe does a binary search of it.
 *
 * A walk that meets a process with no map, or an address its map lacks
 * (a library mapped since: ld.so's at start, dlopen's later), asks for
 * one (again) through an irq_work (safe from NMI) that queues the
 * worker; that stack ends there (NTKL_USTOP_NO_MAP), the next ones are
 * whole. While a logger takes Image Load, image.c's probe of new code
 * mappings asks too (ntkl_unwind_mapped()), so a library is usually in
 * its process's map before the process runs it. A program maps its
 * libraries as it starts, so its first few maps are remade as soon as a
 * walk asks; after those, at most every REMAKE_AFTER, so a stack that
 * wanders into unmapped addresses does not keep the worker busy.
 *
 * Processes are found by their mm_struct in a fixed table of slots, open
 * addressing: a walk claims a free slot with cmpxchg, taking a reference
 * to the mm (mmgrab: the struct, not its address space) so that its
 * address is not reused while the slot names it. The worker drops the
 * slots of the processes that ended (mm_users 0). With the table full a
 * process goes without a map (NTKL_USTOP_NO_MAP) until slots free up.
 *
 * All of it exists only while a running logger walks stacks by tables:
 * ntkl_unwind_maps_enable(false) frees every map and table.
 */
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "unwind/unwind.h"

#define SLOT_BITS	10			/* 1024 processes with a map */
#define SLOTS		BIT(SLOT_BITS)
#define SLOT_PROBES	16			/* slots searched from the hash's */
#define RANGES_MAX	4096			/* executable mappings per process */
#define REMAKE_AFTER	(HZ / 100 + 1)		/* 10 to 20 ms */
#define REMAKE_AT_ONCE	4			/* the first maps: a program starting */
#define SLOT_FREED	((struct mm_struct *)1)	/* a slot whose process ended */

struct ntkl_unwind_map {
	struct ntkl_unwind_map *next_free;	/* on the list of maps to free */
	unsigned long gp;			/* ... once this grace period ended */
	unsigned long made;			/* jiffies */
	unsigned int made_before;		/* maps of this process before it */
	unsigned int n;
	struct ntkl_unwind_range range[];	/* by start */
};

struct mm_slot {
	struct mm_struct *mm;			/* NULL: never used; SLOT_FREED */
	struct ntkl_unwind_map __rcu *map;
	int want;				/* a walk asked for its map (again) */
};

static struct mm_slot *slots;
static bool maps_on;				/* read by walks */
static DEFINE_MUTEX(maps_lock);			/* the worker, enable and disable */
/* maps replaced, newest first, freed once no walk can read them */
static struct ntkl_unwind_map *freeing;
static u32 gens;				/* ntkl_unwind_maps_gen(); maps_lock */
static void maps_kick(struct irq_work *w);
static void maps_work(struct work_struct *w);
static DEFINE_IRQ_WORK(kick, maps_kick);
static DECLARE_DELAYED_WORK(work, maps_work);

bool ntkl_unwind_wanted(void)
{
	return READ_ONCE(maps_on);
}

static void maps_kick(struct irq_work *w)
{
	mod_delayed_work(system_unbound_wq, &work, 0);
}

/* Ask the worker for s's map: at most once until it has run. */
static void want_map(struct mm_slot *s)
{
	if (!READ_ONCE(s->want) && !xchg(&s->want, 1))
		irq_work_queue(&kick);
}

/* mm's slot, claimed if it has none: NULL if the table is full. */
static struct mm_slot *slot_of(struct mm_struct *mm)
{
	unsigned int h = hash_ptr(mm, SLOT_BITS), i;
	struct mm_struct *seen, *free_seen = NULL;
	struct mm_slot *s, *free = NULL;

	for (i = 0; i < SLOT_PROBES; i++) {
		s = &slots[(h + i) & (SLOTS - 1)];
		seen = READ_ONCE(s->mm);
		if (seen == mm)
			return s;
		if (!free && (!seen || seen == SLOT_FREED)) {
			free = s;
			free_seen = seen;
		}
		if (!seen)
			break;			/* mm was never placed further */
	}
	if (!free) {
		irq_work_queue(&kick);		/* the worker frees the ended ones' */
		return NULL;
	}
	/* current's mm: its own reference keeps ours from being the last */
	mmgrab(mm);
	if (cmpxchg(&free->mm, free_seen, mm) != free_seen) {
		mmdrop(mm);
		return NULL;			/* another walk took it: next time */
	}
	want_map(free);
	return free;
}

void ntkl_unwind_mapped(struct mm_struct *mm)
{
	struct mm_slot *s;

	if (!READ_ONCE(maps_on))
		return;
	s = slot_of(mm);
	if (s)
		want_map(s);
}

u32 ntkl_unwind_maps_gen(void)
{
	/* pairs with maps_changed(): a walk that sees gen sees the maps of it */
	return smp_load_acquire(&gens);
}

/* A map was published or dropped: walks' memos of the maps before do not hold. */
static void maps_changed(void)
{
	/* after the map's pointer: a walk that sees the new gen finds the new map */
	smp_store_release(&gens, gens + 1);
}

const struct ntkl_unwind_range *ntkl_unwind_find_range(struct mm_struct *mm, unsigned long ip,
						       enum ntkl_user_stop *why)
{
	const struct ntkl_unwind_map *map;
	unsigned int lo, hi, mid;
	struct mm_slot *s;

	*why = NTKL_USTOP_NO_MAP;
	s = slot_of(mm);
	if (!s)
		return NULL;
	map = rcu_dereference_sched(s->map);
	if (!map)
		return NULL;
	lo = 0;
	hi = map->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ip < map->range[mid].start)
			hi = mid;
		else if (ip >= map->range[mid].end)
			lo = mid + 1;
		else
			return &map->range[mid];
	}
	if (map->made_before < REMAKE_AT_ONCE || time_after(jiffies, map->made + REMAKE_AFTER))
		want_map(s);
	return NULL;
}

/* An executable mapping, as read under mmap_lock. */
struct exec_vma {
	unsigned long start, end, pgoff;
	struct file *file;
};

/* mm's map now, or NULL (it ended, or no memory). Sleeps. */
static struct ntkl_unwind_map *map_make(struct mm_struct *mm)
{
	struct ntkl_unwind_range *r;
	struct ntkl_unwind_map *map = NULL;
	struct vm_area_struct *vma;
	struct exec_vma *v;
	unsigned int n = 0, i;
	u64 vaddr;

	v = kvmalloc_array(RANGES_MAX, sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	if (!mmget_not_zero(mm))
		goto out;
	mmap_read_lock(mm);
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (!(vma->vm_flags & VM_EXEC))
				continue;
			if (n == RANGES_MAX)
				break;
			v[n].start = vma->vm_start;
			v[n].end = vma->vm_end;
			v[n].pgoff = vma->vm_pgoff;
			v[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
			n++;
		}
	}
	mmap_read_unlock(mm);
	mmput(mm);

	map = kvzalloc(struct_size(map, range, n), GFP_KERNEL);
	for (i = 0; i < n; i++) {
		if (map) {
			r = &map->range[i];
			r->start = v[i].start;
			r->end = v[i].end;
			if (v[i].file)
				r->table = ntkl_unwind_table_get(v[i].file);
			if (r->table && ntkl_unwind_table_vaddr(r->table,
								(u64)v[i].pgoff << PAGE_SHIFT,
								&vaddr)) {
				r->delta = vaddr - r->start;
			} else {
				ntkl_unwind_table_put((struct ntkl_unwind_table *)r->table);
				r->table = NULL;
			}
		}
		if (v[i].file)
			fput(v[i].file);
	}
	if (map) {
		map->n = n;
		map->made = jiffies;
	}
out:
	kvfree(v);
	return map;
}

static void map_free(struct ntkl_unwind_map *map)
{
	unsigned int i;

	for (i = 0; i < map->n; i++)
		ntkl_unwind_table_put((struct ntkl_unwind_table *)map->range[i].table);
	kvfree(map);
}

/* A map no walk sees any more: freed after a grace period (free_maps()). */
static void retire_map(struct ntkl_unwind_map *map)
{
	if (!map)
		return;
	map->gp = start_poll_synchronize_rcu();
	map->next_free = freeing;
	freeing = map;
}

/*
 * Free the retired maps whose grace period has ended (all: wait for it);
 * true if some are left. The newest were retired last, so once one's
 * grace period has ended, every older one's has.
 */
static bool free_maps(bool all)
{
	struct ntkl_unwind_map **p = &freeing, *map;

	if (all && freeing)
		synchronize_rcu();
	while (*p && !all && !poll_state_synchronize_rcu((*p)->gp))
		p = &(*p)->next_free;
	while (*p) {
		map = *p;
		*p = map->next_free;
		map_free(map);
	}
	return freeing;
}

/*
 * Make the maps walks asked for, and drop the slots of processes that
 * ended (all of them when the tables are turned off). A map replaced is
 * retired, not freed: a walk may still be reading it. The worker never
 * waits for a grace period: it looks again later.
 */
static void maps_update(bool all)
{
	struct ntkl_unwind_map *map, *old;
	struct mm_struct *mm;
	unsigned int i;

	lockdep_assert_held(&maps_lock);
	for (i = 0; i < SLOTS; i++) {
		struct mm_slot *s = &slots[i];

		mm = READ_ONCE(s->mm);
		if (!mm || mm == SLOT_FREED)
			continue;
		if (all || !atomic_read(&mm->mm_users)) {
			/* a walk of mm cannot come: it ended, or walks are off */
			retire_map(rcu_replace_pointer(s->map, NULL, lockdep_is_held(&maps_lock)));
			maps_changed();
			WRITE_ONCE(s->want, 0);
			WRITE_ONCE(s->mm, SLOT_FREED);
			mmdrop(mm);
		} else if (xchg(&s->want, 0)) {
			map = map_make(mm);
			if (!map)
				continue;
			old = rcu_dereference_protected(s->map, lockdep_is_held(&maps_lock));
			map->made_before = old ? old->made_before + 1 : 0;
			rcu_assign_pointer(s->map, map);
			maps_changed();
			retire_map(old);
		}
	}
}

static void maps_work(struct work_struct *w)
{
	bool more = false;

	mutex_lock(&maps_lock);
	if (READ_ONCE(maps_on)) {
		maps_update(false);
		more = free_maps(false);
	}
	mutex_unlock(&maps_lock);
	if (more)	/* retired maps wait for their grace period */
		queue_delayed_work(system_unbound_wq, &work, HZ / 10);
}

/*
 * On: walks use the tables from now. Off: called once no walk can be
 * using them (after the grace period that followed the set's publication,
 * with maps_on clear before another one): every map and table is freed.
 */
void ntkl_unwind_maps_enable(bool on)
{
	if (on == READ_ONCE(maps_on))
		return;
	if (on) {
		WRITE_ONCE(maps_on, true);
		return;
	}
	WRITE_ONCE(maps_on, false);
	synchronize_rcu();		/* walks that saw maps_on are done */
	irq_work_sync(&kick);
	cancel_delayed_work_sync(&work);
	mutex_lock(&maps_lock);
	maps_update(true);
	free_maps(true);
	ntkl_unwind_tables_free();
	mutex_unlock(&maps_lock);
}

int ntkl_unwind_maps_init(void)
{
	slots = kvcalloc(SLOTS, sizeof(*slots), GFP_KERNEL);
	return slots ? 0 : -ENOMEM;
}

void ntkl_unwind_maps_exit(void)
{
	ntkl_unwind_maps_enable(false);
	kvfree(slots);
	slots = NULL;
}
