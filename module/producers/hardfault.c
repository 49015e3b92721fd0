// SPDX-License-Identifier: GPL-2.0
/*
 * Hard faults (HardFault 0x0220, PERF_HARD_FAULTS): a page fault that had
 * to wait for storage, what WPA's Hard Faults view shows by process and
 * file. docs/linux-to-nt.md says where each field comes from.
 *
 * The kernel says which faults those are itself: handle_mm_fault() ends
 * in mm_account_fault(), which counts a completed fault as major (the
 * task's maj_flt, getrusage's ru_majflt) when it returned VM_FAULT_MAJOR
 * or had been retried (FAULT_FLAG_TRIED: the first try dropped the lock
 * to wait for I/O), and then raises the software perf event
 * PERF_COUNT_SW_PAGE_FAULTS_MAJ with the fault's registers and address,
 * in the faulting thread, preemption off. One such event per online CPU
 * with a period of 1 calls hf_major() for every major fault: the record.
 *
 * InitialTime is the fault's start: the architecture's fault handler
 * raises PERF_COUNT_SW_PAGE_FAULTS for every fault it will handle, before
 * it looks for the VMA (x86: do_user_addr_fault(), once per fault, not
 * again when it retries). A second event per CPU stamps that time, per
 * thread, in a small table (hf_entry()); hf_major() takes it back. A
 * stamp lost to another thread of the same slot leaves InitialTime the
 * record's own time (counted).
 *
 * Both events exist only while a logger takes HardFault: the attach hook
 * creates them for every online CPU and the detach hook releases them
 * when the last such logger stops or drops it; a CPU hotplug state has a work item follow
 * CPUs that come and go (hf_sync_events()).
 */
#include <linux/atomic.h>
#include <linux/cpuhotplug.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "control/fault.h"
#include "format/record.h"
#include "producers/ntsched.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "transport/clock.h"

#define HF_CLOCKS	(NTKL_CLOCK_CYCLE + 1)

/* In each set of running loggers: the clocks (BIT(clock type)) of HardFault loggers. */
struct hf_set {
	u32 clocks;
};

static size_t hf_set_offset __ro_after_init;

static __always_inline u32 hf_clocks(void)
{
	struct ntkl_active_set *set = ntkl_active_set();

	return set ? ((struct hf_set *)ntkl_set_state(set, hf_set_offset))->clocks : 0;
}

/*
 * A fault's start, by thread: the slot of hash(task). task is the owner
 * (HF_STAMP_BUSY while one is writing it, 0 if none), so a thread that
 * finds its own task there before and after reading the rest read its
 * own stamp: a writer claims the slot (cmpxchg) before it writes.
 */
#define HF_STAMP_BITS	10
#define HF_STAMP_BUSY	1UL	/* a task_struct pointer is never odd */

struct hf_stamp {
	unsigned long task;
	unsigned long address;
	u32 clocks;		/* the clocks start[] holds */
	u64 start[HF_CLOCKS];
};

static struct hf_stamp hf_stamps[1 << HF_STAMP_BITS];

/* What could not be found: module-wide, told when the events go. */
static atomic64_t hf_faults, hf_no_vma, hf_no_start;

static DEFINE_MUTEX(hf_lock);
static DEFINE_PER_CPU(struct perf_event *, hf_major_event);
static DEFINE_PER_CPU(struct perf_event *, hf_entry_event);
static int hf_state;		/* the hotplug state while the events exist */

static __always_inline unsigned long hf_address(const struct perf_sample_data *data)
{
	return data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0;
}

/* Every fault's start (PERF_COUNT_SW_PAGE_FAULTS): the faulting thread's stamp. */
static void hf_entry(struct perf_event *event, struct perf_sample_data *data,
		     struct pt_regs *regs)
{
	u32 clocks = hf_clocks();
	struct hf_stamp *s;
	unsigned long old;

	if (!clocks)
		return;
	s = &hf_stamps[hash_ptr(current, HF_STAMP_BITS)];
	old = READ_ONCE(s->task);
	/* another thread of this slot writing: it keeps the slot */
	if (old == HF_STAMP_BUSY || cmpxchg(&s->task, old, HF_STAMP_BUSY) != old)
		return;
	s->address = hf_address(data);
	s->clocks = clocks;
	if (clocks & BIT(NTKL_CLOCK_QPC))
		s->start[NTKL_CLOCK_QPC] = ntkl_clock(NTKL_CLOCK_QPC);
	if (clocks & BIT(NTKL_CLOCK_SYSTEM))
		s->start[NTKL_CLOCK_SYSTEM] = ntkl_clock(NTKL_CLOCK_SYSTEM);
	if (clocks & BIT(NTKL_CLOCK_CYCLE))
		s->start[NTKL_CLOCK_CYCLE] = ntkl_clock(NTKL_CLOCK_CYCLE);
	/* pairs with hf_take_stamp()'s acquire: the stamp before its owner */
	smp_store_release(&s->task, (unsigned long)current);
}

/* The current thread's stamp of the fault at address, into *st; false if gone. */
static bool hf_take_stamp(unsigned long address, struct hf_stamp *st)
{
	struct hf_stamp *s = &hf_stamps[hash_ptr(current, HF_STAMP_BITS)];

	/* pairs with hf_entry()'s release: the owner before the stamp */
	if (smp_load_acquire(&s->task) != (unsigned long)current)
		return false;
	st->address = s->address;
	st->clocks = s->clocks;
	memcpy(st->start, s->start, sizeof(st->start));
	smp_rmb();	/* the copy is read before the owner again */
	/* and taken: a later fault of this thread finds no stale start */
	if (cmpxchg(&s->task, (unsigned long)current, 0) != (unsigned long)current)
		return false;
	return st->address == address;
}

/*
 * The file and offset of the faulting page. The VMA is looked up under
 * the mmap lock taken for reading without waiting: the faulting thread
 * may hold it already (a fault handled under it; read locks nest unless a
 * writer waits, when the trylock fails) or hold only the VMA's own lock
 * (6.4+ per-VMA locking), or hold neither (a fault that completed and
 * dropped the lock, VM_FAULT_COMPLETED). false: the lock was not free.
 */
static bool hf_file(unsigned long address, u64 *file, u64 *offset)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	*file = 0;
	*offset = 0;
	if (!mm || !mmap_read_trylock(mm))
		return false;
	vma = vma_lookup(mm, address);
	if (vma && vma->vm_file) {
		*file = (u64)(unsigned long)vma->vm_file;
		*offset = ((u64)vma->vm_pgoff << PAGE_SHIFT) +
			  ((address & PAGE_MASK) - vma->vm_start);
	}
	mmap_read_unlock(mm);
	return true;
}

/* A major fault done (PERF_COUNT_SW_PAGE_FAULTS_MAJ): a record per HardFault logger. */
static void hf_major(struct perf_event *event, struct perf_sample_data *data,
		     struct pt_regs *regs)
{
	unsigned long address = hf_address(data);
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	struct ntkl_stack *stack = NULL;
	struct perfinfo_hard_fault *p;
	struct ntkl_record rec;
	struct hf_stamp st;
	bool started;
	u64 file, offset;

	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], ETW_EVENT_HARD_FAULT))
			break;
	if (i == n)
		return;
	atomic64_inc(&hf_faults);
	if (!hf_file(address, &file, &offset))
		atomic64_inc(&hf_no_vma);
	started = hf_take_stamp(address, &st);
	if (!started)
		atomic64_inc(&hf_no_start);
	for (; i < n; i++) {
		struct ntkl_logger *lg = loggers[i];
		u64 now;

		if (!ntkl_event_on(lg, ETW_EVENT_HARD_FAULT))
			continue;
		now = ntkl_clock(lg->clock_type);
		p = ntkl_begin_at_HARD_FAULT(lg, &rec, ETW_EVENT_HARD_FAULT, sizeof(*p), now);
		if (!p)
			continue;
		/* no start in this logger's clock: the fault's end, as Windows' unknown */
		p->initial_time = started && (st.clocks & BIT(lg->clock_type)) ?
				  st.start[lg->clock_type] : now;
		p->read_offset = offset;
		p->virtual_address = address;
		p->file_object = file;
		p->thread_id = ntkl_thread_id(current);
		p->byte_count = PAGE_SIZE;
		ntkl_record_end(&rec);
		/* -stackwalk HardFault: the faulting context's, walked once */
		if (!ntkl_stack_on(lg, NTKL_WALK_HARD_FAULT))
			continue;
		if (!stack)
			stack = ntkl_stack_current(regs);
		if (stack)
			ntkl_stack_write(lg, stack, now);
	}
}

static struct perf_event *hf_event(unsigned int cpu, u64 config, perf_overflow_handler_t fn)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = config,
		.size = sizeof(attr),
		.sample_period = 1,
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, fn, NULL);
}

/*
 * The events of every online CPU, kept in step with CPU hotplug by a work
 * item, never by the hotplug callbacks themselves: creating or releasing
 * a software event moves a static key (perf_swevent_enabled[]), which
 * takes the CPU hotplug lock for reading, and in a hotplug callback the
 * CPU being plugged holds it for writing (a deadlock; the profile's
 * cpu-clock events have no such key). A CPU going offline loses its
 * events from perf's own context at once (they no longer fire), and the
 * work releases them after; a CPU coming online gets its events when the
 * work runs, a moment after it is up.
 */
static DEFINE_MUTEX(hf_events_lock);	/* the per-CPU events; inside hf_lock */
static bool hf_wanted;			/* events for online CPUs: under hf_events_lock */
static DEFINE_PER_CPU(bool, hf_stale);	/* its events may be from before it went offline */

static void hf_release_cpu(unsigned int cpu)
{
	struct perf_event *major = per_cpu(hf_major_event, cpu);
	struct perf_event *entry = per_cpu(hf_entry_event, cpu);

	per_cpu(hf_major_event, cpu) = NULL;
	per_cpu(hf_entry_event, cpu) = NULL;
	if (major)
		perf_event_release_kernel(major);
	if (entry)
		perf_event_release_kernel(entry);
}

static int hf_create_cpu(unsigned int cpu)
{
	struct perf_event *ev;

	ev = hf_event(cpu, PERF_COUNT_SW_PAGE_FAULTS, hf_entry);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	per_cpu(hf_entry_event, cpu) = ev;
	ev = hf_event(cpu, PERF_COUNT_SW_PAGE_FAULTS_MAJ, hf_major);
	if (IS_ERR(ev)) {
		hf_release_cpu(cpu);
		return PTR_ERR(ev);
	}
	per_cpu(hf_major_event, cpu) = ev;
	return 0;
}

/*
 * Every CPU's events as hf_wanted and its being online say: the first
 * error of a CPU that stayed online (one that went offline meanwhile
 * gets -ENODEV, and its events later). hf_events_lock held.
 */
static int hf_sync_events(void)
{
	unsigned int cpu;
	int ret = 0, r;

	for_each_possible_cpu(cpu) {
		bool want = hf_wanted && cpu_online(cpu);

		if (per_cpu(hf_major_event, cpu) &&
		    (!want || xchg(per_cpu_ptr(&hf_stale, cpu), false)))
			hf_release_cpu(cpu);
		if (!want || per_cpu(hf_major_event, cpu))
			continue;
		WRITE_ONCE(per_cpu(hf_stale, cpu), false);
		r = hf_create_cpu(cpu);
		if (r && r != -ENODEV && !ret) {
			ret = r;
			pr_warn_ratelimited("ntkl: no page fault events on CPU %u (%d): no HardFault from it\n",
					    cpu, r);
		}
	}
	return ret;
}

static void hf_sync_work_fn(struct work_struct *work)
{
	mutex_lock(&hf_events_lock);
	hf_sync_events();
	mutex_unlock(&hf_events_lock);
}

static struct work_struct hf_sync_work;

/*
 * Hotplug: only ask the work to follow (it runs after the hotplug lock is
 * let go). Either way the CPU's events are stale: the work may run while
 * a CPU goes down but is still online, and make events that perf then
 * takes off the CPU with the others; once the CPU is up again they are
 * made anew.
 */
static int hf_cpu_online(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(hf_stale, cpu), true);
	queue_work(system_wq, &hf_sync_work);
	return 0;
}

static int hf_cpu_offline(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(hf_stale, cpu), true);
	queue_work(system_wq, &hf_sync_work);
	return 0;
}

/* Every online CPU's events, and the hotplug state that follows CPUs. hf_lock held. */
static int hf_events_create(void)
{
	int ret;

	if (ntkl_fault())
		return -ENOMEM;
	atomic64_set(&hf_faults, 0);
	atomic64_set(&hf_no_vma, 0);
	atomic64_set(&hf_no_start, 0);
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "ntkl/hardfault:online",
					hf_cpu_online, hf_cpu_offline);
	if (ret < 0)
		return ret;
	hf_state = ret;
	mutex_lock(&hf_events_lock);
	hf_wanted = true;
	ret = hf_sync_events();
	mutex_unlock(&hf_events_lock);
	return ret;
}

/* Release them all: returns once no handler runs. hf_lock held. */
static void hf_events_release(void)
{
	if (hf_state > 0)
		cpuhp_remove_state_nocalls(hf_state);
	hf_state = 0;
	/* no work is queued after this: the callbacks are gone */
	cancel_work_sync(&hf_sync_work);
	mutex_lock(&hf_events_lock);
	hf_wanted = false;
	hf_sync_events();
	mutex_unlock(&hf_events_lock);
	if (atomic64_read(&hf_no_vma) || atomic64_read(&hf_no_start))
		pr_info("ntkl: HardFault: of %lld, %lld without FileObject (mmap lock busy), %lld without InitialTime\n",
			(long long)atomic64_read(&hf_faults), (long long)atomic64_read(&hf_no_vma),
			(long long)atomic64_read(&hf_no_start));
}

/* Does a logger of set take hard faults? */
static bool set_faults(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_HARD_FAULT))
			return true;
	return false;
}

/* The page fault perf events, before a set that takes hard faults is seen. */
static int hf_attach(const struct ntkl_active_set *set)
{
	int ret = 0;

	if (!set_faults(set))
		return 0;
	mutex_lock(&hf_lock);
	if (!hf_state) {
		ret = hf_events_create();
		if (ret) {
			hf_events_release();
			pr_warn("ntkl: HARD_FAULTS: no page fault perf events: %d\n", ret);
			if (ret != -ENOMEM)
				ret = -EOPNOTSUPP;
		}
	}
	mutex_unlock(&hf_lock);
	return ret;
}

/* Which clocks the loggers that take hard faults run on. */
static void hf_publish(struct ntkl_active_set *set)
{
	struct hf_set *state = ntkl_set_state(set, hf_set_offset);
	unsigned int i;

	state->clocks = 0;
	for (i = 0; i < set->n; i++)
		if (ntkl_event_on(set->loggers[i], ETW_EVENT_HARD_FAULT))
			state->clocks |= BIT(set->loggers[i]->clock_type);
}

/* Released once no probe reads a set that took them. */
static void hf_detach(const struct ntkl_active_set *set)
{
	if (set_faults(set))
		return;
	mutex_lock(&hf_lock);
	if (hf_state)
		hf_events_release();
	mutex_unlock(&hf_lock);
}

static int hf_init(void)
{
	INIT_WORK(&hf_sync_work, hf_sync_work_fn);
	return 0;
}

const struct ntkl_producer ntkl_hardfault_producer = {
	.name = "hardfault",
	.init = hf_init,
	.set_size = sizeof(struct hf_set),
	.set_offset = &hf_set_offset,
	.attach = hf_attach,
	.publish = hf_publish,
	.detach = hf_detach,
};
