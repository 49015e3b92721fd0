// SPDX-License-Identifier: GPL-2.0
/*
 * The VirtualAlloc rundown (VIRT_ALLOC): as a logger that takes
 * VirtualAlloc starts, one VirtualAllocDCStart for each region of
 * anonymous private memory every process has mapped (DCEnd as it stops),
 * so that WPA's VirtualAlloc Commit Lifetimes know of memory mapped before
 * the trace began, not only of what memory.c sees mapped during it.
 *
 * A region is a VMA, the unit memory.c's VirtualAlloc and VirtualFree
 * records speak of: anonymous (no file, no special mapping such as the
 * vDSO) and private (a shared anonymous mapping is shmem, a section in
 * Windows' terms). Its Flags are VirtualAlloc's (memory.h), and
 * CommitSizeInBytes is the whole region when it is committed, else 0:
 * Linux charges a mapping to the commit limit whole or not at all.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>

#include "format/record.h"
#include "producers/memory.h"
#include "producers/ntsched.h"
#include "producers/producer.h"

static void write_region(struct ntkl_logger *lg, enum etw_event_id id, u32 pid,
			 const struct vm_area_struct *vma)
{
	u32 flags = ntkl_mem_alloc_flags(vma->vm_flags & VM_WRITE, vma->vm_flags & VM_NORESERVE);
	struct perfinfo_virtual_alloc_dc *p;
	struct ntkl_record rec;

	preempt_disable();
	p = ntkl_begin_VIRTUAL_ALLOC_DC(lg, &rec, id, sizeof(*p));
	if (p) {
		p->base_address = vma->vm_start;
		p->region_size = vma->vm_end - vma->vm_start;
		p->process_id = pid;
		p->flags = flags;
		p->commit_size = flags & ETW_MEM_COMMIT ? p->region_size : 0;
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

/* One process's regions, its mm's lock held for reading. May sleep. */
static void write_mm_regions(struct ntkl_logger *lg, enum etw_event_id id, u32 pid,
			     struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma)
		if (vma_is_anonymous(vma) && !(vma->vm_flags & VM_SHARED))
			write_region(lg, id, pid, vma);
}

static void valloc_rundown(struct ntkl_logger *lg, bool end)
{
	enum etw_event_id id = end ? ETW_EVENT_VIRTUAL_ALLOC_DC_END :
			       ETW_EVENT_VIRTUAL_ALLOC_DC_START;
	struct task_struct *t;
	struct mm_struct *mm;
	int nr = 1;

	if (!ntkl_event_on(lg, id))
		return;
	while ((t = ntkl_next_process(&nr))) {
		mm = get_task_mm(t);	/* none for kernel threads */
		if (mm) {
			mmap_read_lock(mm);
			write_mm_regions(lg, id, task_tgid_nr(t), mm);
			mmap_read_unlock(mm);
			mmput(mm);
		}
		put_task_struct(t);
		cond_resched();
	}
}

const struct ntkl_producer ntkl_valloc_rundown_producer = {
	.name = "valloc_rundown",
	.rundown = valloc_rundown,
};
