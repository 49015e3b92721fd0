// SPDX-License-Identifier: GPL-2.0
/*
 * ProcessMemInfo (0x027D), PERF_MEMINFO_WS (xperf's MEMINFO_WS): every
 * half second, as Windows' MemInfo DPC does, a snapshot of each process's
 * memory in pages (uapi/ntkl_etw.h, struct etw_process_meminfo), for
 * every logger that takes it:
 *
 *   WorkingSetPageCount         resident pages (get_mm_rss: anonymous,
 *                               file and shmem)
 *   CommitPageCount             private writable address space, touched
 *                               or not (data_vm + stack_vm): what a
 *                               Windows process has committed
 *   VirtualSizeInPages          all mapped address space (total_vm)
 *   PrivateWorkingSetPageCount  resident anonymous pages
 *   SharedCommitInPages         resident shmem pages
 *   StoreSizePageCount, StoredPageCount, CommitDebtInPages   0: Windows'
 *                               compressed store and commit debt have no
 *                               per-process count in Linux
 *
 * docs/linux-to-nt.md ("Memory snapshots") says why each is the nearest.
 *
 * A snapshot is taken in process context (a delayed work item), not in a
 * probe: it walks every process under RCU and reads each one's counters
 * under its task lock, which keeps its mm from being freed as it exits.
 * The counters are the ones /proc/PID/status shows, so as approximate as
 * those (on 6.1 a thread's last few faults may not be folded in yet).
 * Processes without memory of their own (kernel threads) are left out, as
 * Windows' snapshot holds user processes. Entries go out MEMINFO_PER_RECORD
 * to a record: a snapshot of many processes is several records a few
 * microseconds apart, each a whole ProcessMemInfo (Count and that many
 * entries).
 *
 * The work item runs only while a running logger takes MEMINFO_WS (the
 * attach and detach hooks): a module with no such logger costs nothing.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "format/record.h"
#include "producers/producer.h"

#define MEMINFO_INTERVAL_MS	500
/* entries a record holds: as many as the smallest buffer a logger may have takes */
#define MEMINFO_PER_RECORD	56
#define MEMINFO_RECORD_MAX	(sizeof(struct etw_process_meminfo) + \
				 MEMINFO_PER_RECORD * ETW_PROCESS_MEMINFO_ENTRY_SIZE)
static_assert(sizeof(struct wmi_buffer_header) + MEMINFO_RECORD_MAX +
	      sizeof(struct perfinfo_trace_header) <= NTKL_MIN_BUFFER_KB * 1024,
	      "a ProcessMemInfo record fits the smallest buffer");

static void meminfo_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(meminfo_work, meminfo_work_fn);
static DEFINE_MUTEX(meminfo_lock);	/* meminfo_on, the buffer's allocation */
static bool meminfo_on;			/* the work item re-arms itself while set */
static u8 *meminfo_buf;			/* one record's payload, built by the work item */

static void put_le64(u8 *p, u64 v)
{
	etw_put_le32(p, lower_32_bits(v));
	etw_put_le32(p + 4, upper_32_bits(v));
}

/* One process's entry at p; false if it has no memory of its own. */
static bool meminfo_entry(struct task_struct *p, u8 *e)
{
	u64 counts[ETW_PMI_COUNTS] = { 0 };
	struct mm_struct *mm;
	unsigned int i;

	if (p->flags & PF_KTHREAD)
		return false;
	task_lock(p);
	mm = p->mm;
	if (mm) {
		counts[ETW_PMI_WORKING_SET] = get_mm_rss(mm);
		counts[ETW_PMI_COMMIT] = READ_ONCE(mm->data_vm) + READ_ONCE(mm->stack_vm);
		counts[ETW_PMI_VIRTUAL_SIZE] = READ_ONCE(mm->total_vm);
		counts[ETW_PMI_PRIVATE_WORKING_SET] = get_mm_counter(mm, MM_ANONPAGES);
		counts[ETW_PMI_SHARED_COMMIT] = get_mm_counter(mm, MM_SHMEMPAGES);
	}
	task_unlock(p);
	if (!mm)
		return false;
	etw_put_le32(e, task_tgid_nr(p));
	for (i = 0; i < ETW_PMI_COUNTS; i++)
		put_le64(e + ETW_PROCESS_MEMINFO_COUNT_OFFSET(i), counts[i]);
	return true;
}

/* The n entries in meminfo_buf as one ProcessMemInfo, to each logger that takes it. */
static void meminfo_write(unsigned int n)
{
	size_t size = sizeof(struct etw_process_meminfo) + n * ETW_PROCESS_MEMINFO_ENTRY_SIZE;
	struct ntkl_logger **loggers;
	struct ntkl_record rec;
	unsigned int i, count;
	u8 *p;

	etw_put_le32(meminfo_buf, n);
	preempt_disable();
	count = ntkl_active_loggers(&loggers);
	for (i = 0; i < count; i++) {
		if (!ntkl_event_on(loggers[i], ETW_EVENT_PROCESS_MEMINFO))
			continue;
		p = ntkl_record_begin(loggers[i], &rec, ETW_EVENT_PROCESS_MEMINFO, size);
		if (!p)
			continue;
		memcpy(p, meminfo_buf, size);
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

static void meminfo_work_fn(struct work_struct *work)
{
	u8 *e = meminfo_buf + sizeof(struct etw_process_meminfo);
	struct task_struct *p;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (!meminfo_entry(p, e + n * ETW_PROCESS_MEMINFO_ENTRY_SIZE))
			continue;
		if (++n == MEMINFO_PER_RECORD) {
			meminfo_write(n);
			n = 0;
		}
	}
	rcu_read_unlock();
	if (n)
		meminfo_write(n);
	if (READ_ONCE(meminfo_on))
		schedule_delayed_work(&meminfo_work, msecs_to_jiffies(MEMINFO_INTERVAL_MS));
}

static bool meminfo_taken(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_PROCESS_MEMINFO))
			return true;
	return false;
}

/* The first snapshot half a second after the first logger that takes it starts, as Windows'. */
static int meminfo_attach(const struct ntkl_active_set *set)
{
	int ret = 0;

	if (!meminfo_taken(set))
		return 0;
	mutex_lock(&meminfo_lock);
	if (!meminfo_on) {
		if (!meminfo_buf)
			meminfo_buf = kmalloc(MEMINFO_RECORD_MAX, GFP_KERNEL);
		if (meminfo_buf) {
			WRITE_ONCE(meminfo_on, true);
			schedule_delayed_work(&meminfo_work,
					      msecs_to_jiffies(MEMINFO_INTERVAL_MS));
		} else {
			ret = -ENOMEM;
		}
	}
	mutex_unlock(&meminfo_lock);
	return ret;
}

/* Stopped, and waited for, once no logger of the set takes it. */
static void meminfo_detach(const struct ntkl_active_set *set)
{
	if (meminfo_taken(set))
		return;
	mutex_lock(&meminfo_lock);
	if (meminfo_on) {
		WRITE_ONCE(meminfo_on, false);
		/* also keeps a run that read meminfo_on before it changed from re-arming */
		cancel_delayed_work_sync(&meminfo_work);
	}
	mutex_unlock(&meminfo_lock);
}

static void meminfo_exit(void)
{
	/* every logger stopped: the work item is not queued; the buffer goes */
	cancel_delayed_work_sync(&meminfo_work);
	kfree(meminfo_buf);
	meminfo_buf = NULL;
}

const struct ntkl_producer ntkl_meminfo_producer = {
	.name = "meminfo",
	.exit = meminfo_exit,
	.attach = meminfo_attach,
	.detach = meminfo_detach,
};
