// SPDX-License-Identifier: GPL-2.0
/*
 * WPA's Memory views: every page fault by how it was resolved (ALL_FAULTS,
 * EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS) and the anonymous private memory a
 * process maps and unmaps (VIRT_ALLOC, EVENT_TRACE_FLAG_VIRTUAL_ALLOC).
 * docs/linux-to-nt.md ("Page faults", "Virtual memory") says how each
 * field is made and what Linux does that Windows has no word for.
 *
 * Page faults (SYSTEM64 v2: the faulting thread and process in the
 * header; VirtualAddress, ProgramCounter):
 *
 *   handle_mm_fault() resolves every fault on a user address that found
 *   its VMA, and mm_account_fault(), at its end, counts it once: not when
 *   it returns VM_FAULT_RETRY (it is tried again), not when it failed
 *   (VM_FAULT_ERROR), major when it returned VM_FAULT_MAJOR or was a retry
 *   (FAULT_FLAG_TRIED), and only with registers (a fault get_user_pages()
 *   takes for the kernel passes none). A kretprobe on it writes one
 *   record at its return by the same rules: HardPageFault for a major
 *   one (HardFault, with its I/O, stays HARD_FAULTS'), else the kind its
 *   resolution had. The kind is the VMA's by default (anonymous: a new
 *   zero-filled page, DemandZeroFault; a private file mapping written: a
 *   copy, CopyOnWrite; else a page found in memory, TransitionFault), and
 *   kprobes inside the resolution correct it: do_wp_page() (a write to a
 *   present page: made writable in place, TransitionFault) and within it
 *   wp_page_copy() (copied: CopyOnWrite; from the zero page:
 *   DemandZeroFault) or, where that is inlined, the copy's clearing of
 *   the old entry (ptep_clear_flush(), the zero page's or another's),
 *   do_swap_page() (an anonymous page back from the swap cache:
 *   TransitionFault). The inner probes reach the fault's
 *   state through a small table by task (mem_slots[]): a slot another
 *   thread's fault holds leaves this one its VMA's kind (counted).
 *
 *   AccessViolation is a fault that failed: a user one ends in SIGSEGV
 *   (or SIGBUS at an address) sent to the faulting thread itself
 *   (signal_generate, the fault's address from the signal, the
 *   instruction from the thread's registers); a kernel one on a user
 *   address (a copy to or from user memory) ends at its exception fixup
 *   (fixup_exception(), a kretprobe), EFAULT to the caller. A copy that
 *   expects to fail (page faults disabled: the nofault copies, a stack
 *   walk) is not one.
 *
 * VirtualAlloc and VirtualFree (PERFINFO64 v2: ProcessId in the payload):
 * a mapping of anonymous private memory, the commit in Windows' terms,
 * made by mmap (do_mmap()), brk (do_brk_flags(), also exec's bss) and
 * mremap (grown or moved, __x64_sys_mremap()), and each anonymous private
 * VMA removed (remove_vma(): munmap, a mapping over it, mremap's old
 * place, brk shrinking) while the process lives (not at exit, as Windows
 * writes no VirtualFree when a process ends).
 *
 * Every probe exists only while a running logger takes its events (the
 * attach and detach hooks); handlers run with preemption off, take no
 * lock but one (mremap's return: the mmap lock tried for reading, never
 * waited for; a miss is lost) and allocate nothing. A call the kprobes
 * machinery missed is counted lost for each logger taking the events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/trapnr.h>
#include <trace/events/signal.h>

#include "control/fault.h"
#include "format/record.h"
#include "producers/memory.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"

#define MEM_FAULTS	BIT(0)		/* the probes of ALL_FAULTS */
#define MEM_VALLOC	BIT(1)		/* of VIRT_ALLOC */

#define MEM_AV_TP	1		/* signal_generate's group */

/* A fault's kind, as the inner probes found it (0: its VMA's). */
enum mem_kind {
	MEM_KIND_VMA,
	MEM_KIND_TRANSITION,
	MEM_KIND_DEMAND_ZERO,
	MEM_KIND_COW,
	MEM_KIND_WP,		/* in do_wp_page(): a copy if a page is allocated, else reused */
};

#define MEM_KIND_MASK	7UL	/* below a task_struct pointer (cache-line aligned) */

/*
 * The faults in flight, by task: a slot holds its task's pointer with the
 * kind in the low bits, claimed (cmpxchg) at handle_mm_fault()'s entry,
 * given back at its return; 0 when free.
 */
#define MEM_SLOT_BITS	10
static unsigned long mem_slots[1 << MEM_SLOT_BITS];

/* Faults written with their VMA's kind for want of a slot: told when the probes go. */
static atomic64_t mem_faults, mem_no_slot;

static __always_inline unsigned long *mem_slot(void)
{
	return &mem_slots[hash_ptr(current, MEM_SLOT_BITS)];
}

/*
 * An inner probe: the kind of the current thread's fault, if it holds its
 * slot (and, if only is not MEM_KIND_VMA, its kind so far is only).
 */
static __always_inline void mem_set_kind(enum mem_kind kind, enum mem_kind only)
{
	unsigned long *s = mem_slot(), old = READ_ONCE(*s);

	if ((old & ~MEM_KIND_MASK) == (unsigned long)current &&
	    (only == MEM_KIND_VMA || (old & MEM_KIND_MASK) == only))
		cmpxchg(s, old, (unsigned long)current | kind);
}

/* Does any logger of the set take one of the fault events / the VirtualAlloc ones? */
static bool mem_faults_on(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_TRANSITION_FAULT) ||
	       ntkl_event_on(lg, ETW_EVENT_DEMAND_ZERO_FAULT) ||
	       ntkl_event_on(lg, ETW_EVENT_COPY_ON_WRITE) ||
	       ntkl_event_on(lg, ETW_EVENT_HARD_PAGE_FAULT) ||
	       ntkl_event_on(lg, ETW_EVENT_ACCESS_VIOLATION);
}

static bool mem_valloc_on(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_VIRTUAL_ALLOC) ||
	       ntkl_event_on(lg, ETW_EVENT_VIRTUAL_FREE);
}

/* A fault's record, for each logger taking its event. */
static __always_inline void mem_fault_write(enum etw_event_id id, enum ntkl_walk walk,
					    unsigned long address, unsigned long pc,
					    struct pt_regs *regs)
{
	struct etw_page_fault p = { .virtual_address = address, .program_counter = pc };
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	ntkl_record_each_walked(loggers, n, id, &p, sizeof(p), walk, regs);
}

/* HardPageFault and AccessViolation: one copy of the record's code for both. */
static noinline void mem_fault_record(enum etw_event_id id, enum ntkl_walk walk,
				      unsigned long address, unsigned long pc, struct pt_regs *regs)
{
	mem_fault_write(id, walk, address, pc, regs);
}

/*
 * A fault resolved as kind, the usual case: a copy of the record's code
 * for each of the three events, in which the event is a constant, and so
 * are the header's size, hook and version; given the event as a variable,
 * one copy looked them up in the event list on every fault (some 30 of
 * its 200 instructions).
 */
static noinline void mem_kind_record(enum mem_kind kind, unsigned long address,
				     unsigned long pc, struct pt_regs *regs)
{
	switch (kind) {
	case MEM_KIND_DEMAND_ZERO:
		mem_fault_write(ETW_EVENT_DEMAND_ZERO_FAULT, NTKL_WALK_DEMAND_ZERO_FAULT,
				address, pc, regs);
		break;
	case MEM_KIND_COW:
		mem_fault_write(ETW_EVENT_COPY_ON_WRITE, NTKL_WALK_COPY_ON_WRITE,
				address, pc, regs);
		break;
	default:
		mem_fault_write(ETW_EVENT_TRANSITION_FAULT, NTKL_WALK_TRANSITION_FAULT,
				address, pc, regs);
		break;
	}
}

/* handle_mm_fault(vma, address, flags, regs): the fault, for its return */
struct mem_fault_data {
	unsigned long address, pc;
	struct pt_regs *regs;		/* the faulting context's, live until the fault returns */
	unsigned int flags;
	u8 vma_kind;
	bool slot;			/* it holds its task's slot */
};

static int fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	struct pt_regs *fregs = (void *)regs_get_kernel_argument(regs, 3);
	struct mem_fault_data *d = (void *)ri->data;
	unsigned long *s, old;

	/* get_user_pages()'s faults: no registers, not accounted (mm_account_fault()) */
	if (!fregs || !vma)
		return 1;
	d->address = regs_get_kernel_argument(regs, 1);
	d->flags = regs_get_kernel_argument(regs, 2);
	d->pc = instruction_pointer(fregs);
	d->regs = fregs;
	if (vma_is_anonymous(vma))
		d->vma_kind = MEM_KIND_DEMAND_ZERO;
	else if ((d->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_SHARED))
		d->vma_kind = MEM_KIND_COW;
	else
		d->vma_kind = MEM_KIND_TRANSITION;
	s = mem_slot();
	old = READ_ONCE(*s);
	/* free, or the task's own (a fault taken inside its fault: the inner one's now) */
	d->slot = (!old || (old & ~MEM_KIND_MASK) == (unsigned long)current) &&
		  cmpxchg(s, old, (unsigned long)current) == old;
	return 0;
}

static int fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);
	struct mem_fault_data *d = (void *)ri->data;
	enum mem_kind kind = MEM_KIND_VMA;
	unsigned long old;

	if (d->slot) {
		unsigned long *s = mem_slot();

		old = READ_ONCE(*s);
		if ((old & ~MEM_KIND_MASK) == (unsigned long)current &&
		    cmpxchg(s, old, 0) == old)
			kind = old & MEM_KIND_MASK;
	}
	/* tried again (a retry is counted once, at its end), or failed: see AccessViolation */
	if (ret & (VM_FAULT_RETRY | VM_FAULT_ERROR))
		return 0;
	atomic64_inc(&mem_faults);
	if (!d->slot)
		atomic64_inc(&mem_no_slot);
	if ((ret & VM_FAULT_MAJOR) || (d->flags & FAULT_FLAG_TRIED)) {
		mem_fault_record(ETW_EVENT_HARD_PAGE_FAULT, NTKL_WALK_HARD_PAGE_FAULT, d->address,
				 d->pc, d->regs);
		return 0;
	}
	if (kind == MEM_KIND_VMA)
		kind = d->vma_kind;
	else if (kind == MEM_KIND_WP)
		kind = MEM_KIND_TRANSITION;
	mem_kind_record(kind, d->address, d->pc, d->regs);
	return 0;
}

/* do_wp_page(vmf): a write to a present page, made writable where it is unless copied */
static int wp_page_pre(struct kprobe *kp, struct pt_regs *regs)
{
	mem_set_kind(MEM_KIND_WP, MEM_KIND_VMA);
	return 0;
}

/* wp_page_copy(vmf): copied; from the zero page (no page: vmf->page NULL), zero-filled */
static int wp_copy_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct vm_fault *vmf = (void *)regs_get_kernel_argument(regs, 0);

	mem_set_kind(vmf->page ? MEM_KIND_COW : MEM_KIND_DEMAND_ZERO, MEM_KIND_VMA);
	return 0;
}

/*
 * ptep_clear_flush(vma, address, ptep): inside do_wp_page(), where
 * wp_page_copy() is inlined (Debian's 6.12), the old page's entry cleared
 * for its copy: copied, or zero-filled when that page was the zero page.
 * Of a fault's calls only a copy's makes this one (reclaim and migration
 * make it outside faults, which mem_set_kind() leaves alone). The copy's
 * page allocation would tell as well, but every demand-zero fault
 * allocates a page too, and a kprobe there costs each of them some 190
 * instructions.
 */
static int clear_flush_pre(struct kprobe *kp, struct pt_regs *regs)
{
	pte_t *ptep = (void *)regs_get_kernel_argument(regs, 2);

	mem_set_kind(is_zero_pfn(pte_pfn(ptep_get(ptep))) ? MEM_KIND_DEMAND_ZERO : MEM_KIND_COW,
		     MEM_KIND_WP);
	return 0;
}

/* do_swap_page(vmf): an anonymous page found again (minor: in the swap cache) */
static int swap_page_pre(struct kprobe *kp, struct pt_regs *regs)
{
	mem_set_kind(MEM_KIND_TRANSITION, MEM_KIND_VMA);
	return 0;
}

/*
 * fixup_exception(regs, trapnr, error_code, fault_addr): a kernel access
 * to user memory that faulted and failed (fixed up: EFAULT to its
 * caller). Written at the return, not the entry: a kprobe still on its
 * breakpoint runs its handler as an NMI (in_task() false: the header's
 * thread and process would be 0), a kretprobe's return handler runs in
 * the faulting task's own context. The faulting instruction is the
 * entry's: the fixup moves regs->ip to the landing pad.
 */
struct mem_fixup_data {
	unsigned long address, pc;
	struct pt_regs *regs;
};

static int fixup_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct pt_regs *fregs = (void *)regs_get_kernel_argument(regs, 0);
	struct mem_fixup_data *d = (void *)ri->data;

	d->address = regs_get_kernel_argument(regs, 3);
	/* not a copy that expects to fail (page faults disabled: nofault, a stack walk) */
	if (regs_get_kernel_argument(regs, 1) != X86_TRAP_PF || pagefault_disabled() ||
	    !current->mm || d->address >= TASK_SIZE_MAX)
		return 1;
	d->pc = instruction_pointer(fregs);
	d->regs = fregs;
	return 0;
}

static int fixup_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mem_fixup_data *d = (void *)ri->data;

	if (regs_return_value(regs))
		mem_fault_record(ETW_EVENT_ACCESS_VIOLATION, NTKL_WALK_ACCESS_VIOLATION,
				 d->address, d->pc, d->regs);
	return 0;
}

/* A user fault that failed: the signal the fault handler sends its own thread. */
static void probe_signal_generate(void *data, int sig, struct kernel_siginfo *info,
				  struct task_struct *task, int group, int result)
{
	struct pt_regs *uregs;
	bool fault;

	if (task != current || info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV || !current->mm)
		return;
	fault = (sig == SIGSEGV && (info->si_code == SEGV_MAPERR || info->si_code == SEGV_ACCERR ||
				    info->si_code == SEGV_PKUERR)) ||
		(sig == SIGBUS && info->si_code == BUS_ADRERR);
	if (!fault)
		return;
	uregs = task_pt_regs(current);
	preempt_disable_notrace();
	mem_fault_record(ETW_EVENT_ACCESS_VIOLATION, NTKL_WALK_ACCESS_VIOLATION,
			 (unsigned long)info->si_addr, instruction_pointer(uregs), uregs);
	preempt_enable_notrace();
}

/* ---- VirtualAlloc, VirtualFree ---- */

static void mem_valloc_record(enum etw_event_id id, enum ntkl_walk walk, unsigned long base,
			      unsigned long size, u32 flags)
{
	struct perfinfo_virtual_alloc p = {
		.base_address = base,
		.region_size = size,
		.process_id = task_tgid_nr(current),
		.flags = flags,
	};
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);

	ntkl_record_each_walked(loggers, n, id, &p, sizeof(p), walk, NULL);
}

/* do_mmap(file, addr, len, prot, flags, ...): an anonymous private mapping */
struct mem_mmap_data {
	unsigned long len;
	u32 flags;
};

static int mmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mem_mmap_data *d = (void *)ri->data;
	unsigned long prot = regs_get_kernel_argument(regs, 3);
	unsigned long flags = regs_get_kernel_argument(regs, 4);

	if (regs_get_kernel_argument(regs, 0) || (flags & MAP_TYPE) != MAP_PRIVATE ||
	    !current->mm)
		return 1;
	d->len = PAGE_ALIGN(regs_get_kernel_argument(regs, 2));
	d->flags = ntkl_mem_alloc_flags(prot & PROT_WRITE, flags & MAP_NORESERVE);
	return 0;
}

static int mmap_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long addr = regs_return_value(regs);
	struct mem_mmap_data *d = (void *)ri->data;

	if (!IS_ERR_VALUE(addr) && d->len)
		mem_valloc_record(ETW_EVENT_VIRTUAL_ALLOC, NTKL_WALK_VIRTUAL_ALLOC, addr, d->len,
				  d->flags);
	return 0;
}

/* do_brk_flags(iter, vma, addr, len, flags): the heap grown (brk; exec's bss) */
struct mem_brk_data {
	unsigned long addr, len;
};

static int brk_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mem_brk_data *d = (void *)ri->data;

	if (!current->mm)
		return 1;
	d->addr = regs_get_kernel_argument(regs, 2);
	d->len = regs_get_kernel_argument(regs, 3);
	return 0;
}

/* the heap is always writable and charged: committed */
static int brk_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mem_brk_data *d = (void *)ri->data;

	if (!regs_return_value(regs) && d->len)
		mem_valloc_record(ETW_EVENT_VIRTUAL_ALLOC, NTKL_WALK_VIRTUAL_ALLOC, d->addr, d->len,
				  ETW_MEM_COMMIT | ETW_MEM_RESERVE);
	return 0;
}

/* __x64_sys_mremap(regs): the user's old address and sizes */
struct mem_mremap_data {
	unsigned long addr, old_len, new_len;
};

static int mremap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct pt_regs *uregs = (void *)regs_get_kernel_argument(regs, 0);
	struct mem_mremap_data *d = (void *)ri->data;

	if (!current->mm)
		return 1;
	d->addr = uregs->di;
	d->old_len = PAGE_ALIGN(uregs->si);
	d->new_len = PAGE_ALIGN(uregs->dx);
	return 0;
}

/*
 * What mremap made new: the whole mapping at its new place (the old one's
 * VirtualFree is remove_vma()'s), or the part it grew by in place; if it
 * is anonymous and private, which only the VMA says (the mmap lock tried,
 * not waited for: the syscall has let it go).
 */
static int mremap_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long addr = regs_return_value(regs), base, size;
	struct mem_mremap_data *d = (void *)ri->data;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool anon = false, write = false, noreserve = false;

	if (IS_ERR_VALUE(addr))
		return 0;
	if (addr != d->addr) {
		base = addr;
		size = d->new_len;
	} else if (d->new_len > d->old_len) {
		base = addr + d->old_len;
		size = d->new_len - d->old_len;
	} else {
		return 0;
	}
	if (!mmap_read_trylock(mm)) {
		ntkl_lost_each(ETW_EVENT_VIRTUAL_ALLOC);
		return 0;
	}
	vma = vma_lookup(mm, base);
	if (vma && vma_is_anonymous(vma) && !(vma->vm_flags & VM_SHARED)) {
		anon = true;
		write = vma->vm_flags & VM_WRITE;
		noreserve = !(vma->vm_flags & VM_ACCOUNT);
	}
	mmap_read_unlock(mm);
	if (anon)
		mem_valloc_record(ETW_EVENT_VIRTUAL_ALLOC, NTKL_WALK_VIRTUAL_ALLOC, base, size,
				  ntkl_mem_alloc_flags(write, noreserve));
	return 0;
}

/* An anonymous private VMA of the current process, which lives (not its exit's teardown)? */
static __always_inline bool mem_own_anon(struct vm_area_struct *vma)
{
	struct mm_struct *mm = current->mm;

	return mm && vma->vm_mm == mm && atomic_read(&mm->mm_users) &&
	       vma_is_anonymous(vma) && !(vma->vm_flags & VM_SHARED);
}

/* remove_vma(vma, ...): a VMA unmapped; an anonymous private one while its process lives */
static int remove_vma_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	if (mem_own_anon(vma))
		mem_valloc_record(ETW_EVENT_VIRTUAL_FREE, NTKL_WALK_VIRTUAL_FREE, vma->vm_start,
				  vma->vm_end - vma->vm_start, ETW_MEM_RELEASE);
	return 0;
}

/*
 * vm_area_free(vma): where remove_vma() is inlined (Debian's 6.1), the
 * VMA freed at its end. A VMA merged into its neighbour is freed too, its
 * addresses still mapped by that one: only a VMA whose start no VMA maps
 * any more was unmapped. The caller holds the mmap lock (the process
 * lives: its exit's teardown is not looked at), so the lookup is safe.
 */
static int vm_area_free_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	if (mem_own_anon(vma) && !vma_lookup(vma->vm_mm, vma->vm_start))
		mem_valloc_record(ETW_EVENT_VIRTUAL_FREE, NTKL_WALK_VIRTUAL_FREE, vma->vm_start,
				  vma->vm_end - vma->vm_start, ETW_MEM_RELEASE);
	return 0;
}

/* ---- the probes: registered while a logger takes their events ---- */

#ifdef CONFIG_KRETPROBES

#define MEM_NO_EVENT	ETW_EVENT_COUNT

struct mem_probe {
	const char *symbol[2];			/* its function, or an older kernel's name */
	kprobe_pre_handler_t pre;		/* a kprobe, or */
	kretprobe_handler_t entry, ret;		/* a kretprobe */
	size_t data_size;
	unsigned int group;
	enum etw_event_id events[4];		/* absent without it (MEM_NO_EVENT: none) */
	const char *lost;			/* what is missing without it, for the log */
	bool own_misses;			/* hit inside probes only: misses not lost */
	const char *instead_of;			/* only if that row's function is not probed */
	struct kretprobe krp;
	struct kprobe kp;
	unsigned long missed;			/* nmissed already counted lost */
	bool registered, warned, absent;
};

#define MEM_EV4(a, b, c, d) { ETW_EVENT_##a, ETW_EVENT_##b, ETW_EVENT_##c, ETW_EVENT_##d }
#define MEM_EV1(a) { ETW_EVENT_##a, MEM_NO_EVENT, MEM_NO_EVENT, MEM_NO_EVENT }
#define MEM_EV0 { MEM_NO_EVENT, MEM_NO_EVENT, MEM_NO_EVENT, MEM_NO_EVENT }

static struct mem_probe mem_probes[] = {
	/* the inner ones first: armed before the fault's return reads what they set */
	{ { "do_wp_page" }, wp_page_pre, NULL, NULL, 0, MEM_FAULTS, MEM_EV0,
	  "writes to present pages are their VMA's kind" },
	{ { "wp_page_copy" }, wp_copy_pre, NULL, NULL, 0, MEM_FAULTS, MEM_EV0,
	  "copies told by the clearing of their old entry" },
	{ { "ptep_clear_flush" }, clear_flush_pre, NULL, NULL, 0, MEM_FAULTS, MEM_EV0,
	  "copies are TransitionFault where wp_page_copy is not probed",
	  .instead_of = "wp_page_copy" },
	{ { "do_swap_page" }, swap_page_pre, NULL, NULL, 0, MEM_FAULTS, MEM_EV0,
	  "swap cache hits are DemandZeroFault" },
	/* a stack walk's copies fault in a handler: missed, and not AccessViolation anyway */
	{ { "fixup_exception" }, NULL, fixup_entry, fixup_return, sizeof(struct mem_fixup_data),
	  MEM_FAULTS, MEM_EV0, "no AccessViolation of the kernel's copies", .own_misses = true },
	{ { "handle_mm_fault" }, NULL, fault_entry, fault_return, sizeof(struct mem_fault_data),
	  MEM_FAULTS, MEM_EV4(TRANSITION_FAULT, DEMAND_ZERO_FAULT, COPY_ON_WRITE, HARD_PAGE_FAULT),
	  "no TransitionFault, DemandZeroFault, CopyOnWrite, HardPageFault" },
	{ { "do_mmap" }, NULL, mmap_entry, mmap_return, sizeof(struct mem_mmap_data), MEM_VALLOC,
	  MEM_EV1(VIRTUAL_ALLOC), "no VirtualAlloc of mmap" },
	{ { "do_brk_flags" }, NULL, brk_entry, brk_return, sizeof(struct mem_brk_data),
	  MEM_VALLOC, MEM_EV0, "no VirtualAlloc of brk" },
	{ { "__x64_sys_mremap" }, NULL, mremap_entry, mremap_return,
	  sizeof(struct mem_mremap_data), MEM_VALLOC, MEM_EV0, "no VirtualAlloc of mremap" },
	{ { "remove_vma" }, remove_vma_pre, NULL, NULL, 0, MEM_VALLOC, MEM_EV0,
	  "VirtualFree from vm_area_free" },
	{ { "vm_area_free" }, vm_area_free_pre, NULL, NULL, 0, MEM_VALLOC, MEM_EV1(VIRTUAL_FREE),
	  "no VirtualFree", .instead_of = "remove_vma" },
};

static DEFINE_MUTEX(mem_lock);		/* the probes' registration */
static unsigned int mem_groups;		/* MEM_* registered */

/* Faults may wait on storage a while: as many in flight as FileIo's reads. */
static int mem_maxactive(void)
{
	return max_t(int, 256, 16 * num_possible_cpus());
}

static void mem_absent(struct mem_probe *mp, bool absent)
{
	unsigned int k;

	if (mp->absent == absent)
		return;
	mp->absent = absent;
	for (k = 0; k < ARRAY_SIZE(mp->events); k++)
		if (mp->events[k] != MEM_NO_EVENT)
			ntkl_event_absent(mp->events[k], absent);
}

/* Is the row of symbol probed (registered before the rows after it)? */
static bool mem_probed(const char *symbol)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mem_probes); i++)
		if (mem_probes[i].registered && !strcmp(mem_probes[i].symbol[0], symbol))
			return true;
	return false;
}

static int mem_register_one(struct mem_probe *mp)
{
	int ret = -ENOENT;
	unsigned int k;

	/* a stand-in, not needed: nothing is missing */
	if (mp->instead_of && mem_probed(mp->instead_of)) {
		mp->registered = false;
		mem_absent(mp, false);
		return 0;
	}

	for (k = 0; k < ARRAY_SIZE(mp->symbol) && mp->symbol[k] && ret == -ENOENT; k++) {
		if (mp->pre) {
			memset(&mp->kp, 0, sizeof(mp->kp));
			mp->kp.symbol_name = mp->symbol[k];
			mp->kp.pre_handler = mp->pre;
			ret = ntkl_fault_probe() ?: register_kprobe(&mp->kp);
		} else {
			memset(&mp->krp, 0, sizeof(mp->krp));
			mp->krp.kp.symbol_name = mp->symbol[k];
			mp->krp.entry_handler = mp->entry;
			mp->krp.handler = mp->ret;
			mp->krp.data_size = mp->data_size;
			mp->krp.maxactive = mem_maxactive();
			ret = ntkl_fault_probe() ?: register_kretprobe(&mp->krp);
		}
	}
	/*
	 * absent (inlined, not in this kernel) or not probeable (-EINVAL:
	 * kprobes' blacklist): said once, and not a failure; running out of
	 * memory is
	 */
	if (ret && ret != -ENOMEM && !mp->warned) {
		pr_info("memory: %s not probed (%d): %s\n", mp->symbol[0], ret, mp->lost);
		mp->warned = true;
	}
	mp->registered = !ret;
	mp->missed = 0;
	mem_absent(mp, ret && ret != -ENOMEM);
	return ret == -ENOMEM ? ret : 0;
}

static unsigned long mem_nmissed(const struct mem_probe *mp)
{
	if (mp->pre)
		return READ_ONCE(mp->kp.nmissed);
	return (unsigned long)READ_ONCE(mp->krp.nmissed) + READ_ONCE(mp->krp.kp.nmissed);
}

/* The calls the probes missed since last asked: lost for the loggers of their group. */
static void mem_count_missed(void)
{
	unsigned long missed[2] = { 0, 0 };
	struct ntkl_logger **loggers;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(mem_probes); i++) {
		struct mem_probe *mp = &mem_probes[i];
		unsigned long now;

		if (!mp->registered || mp->own_misses)
			continue;
		now = mem_nmissed(mp);
		missed[mp->group == MEM_VALLOC] += now - mp->missed;
		mp->missed = now;
	}
	if (!missed[0] && !missed[1])
		return;
	preempt_disable();
	n = ntkl_active_loggers(&loggers);
	for (i = 0; i < n; i++) {
		if (missed[0] && mem_faults_on(loggers[i]))
			atomic64_add(missed[0], &loggers[i]->events_lost_extra);
		if (missed[1] && mem_valloc_on(loggers[i]))
			atomic64_add(missed[1], &loggers[i]->events_lost_extra);
	}
	preempt_enable();
}

static void mem_unregister(unsigned int groups)
{
	unsigned int i;

	mem_count_missed();
	/* the fault's return before the probes inside it, as listed in reverse */
	for (i = ARRAY_SIZE(mem_probes); i-- > 0;) {
		struct mem_probe *mp = &mem_probes[i];

		if (!(mp->group & groups) || !mp->registered)
			continue;
		if (mp->pre)
			unregister_kprobe(&mp->kp);
		else
			unregister_kretprobe(&mp->krp);
		mp->registered = false;
	}
	if ((groups & MEM_FAULTS) && atomic64_read(&mem_no_slot))
		pr_info("memory: of %lld faults, %lld written with their VMA's kind (slot busy)\n",
			(long long)atomic64_read(&mem_faults),
			(long long)atomic64_read(&mem_no_slot));
	mem_groups &= ~groups;
}

static int mem_register(unsigned int groups)
{
	unsigned int i;
	int ret;

	if (groups & MEM_FAULTS) {
		memset(mem_slots, 0, sizeof(mem_slots));
		atomic64_set(&mem_faults, 0);
		atomic64_set(&mem_no_slot, 0);
	}
	mem_groups |= groups;
	for (i = 0; i < ARRAY_SIZE(mem_probes); i++) {
		if (!(mem_probes[i].group & groups))
			continue;
		ret = mem_register_one(&mem_probes[i]);
		if (ret) {
			mem_unregister(groups);
			return ret;
		}
	}
	return 0;
}

/* The groups a set of loggers wants, from the set's view. */
static unsigned int mem_set_wants(const struct ntkl_active_set *set)
{
	unsigned int i, groups = 0;

	for (i = 0; i < set->n; i++) {
		if (ntkl_set_event_on(set, i, ETW_EVENT_TRANSITION_FAULT) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_DEMAND_ZERO_FAULT) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_COPY_ON_WRITE) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_HARD_PAGE_FAULT) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_ACCESS_VIOLATION))
			groups |= MEM_FAULTS;
		if (ntkl_set_event_on(set, i, ETW_EVENT_VIRTUAL_ALLOC) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_VIRTUAL_FREE))
			groups |= MEM_VALLOC;
	}
	return groups;
}

/* Attached before the set that wants them is seen: they find no logger in the old one. */
static int mem_attach(const struct ntkl_active_set *set)
{
	unsigned int want = mem_set_wants(set), added;
	int ret = 0;

	mutex_lock(&mem_lock);
	added = want & ~mem_groups;
	if (added)
		ret = mem_register(added);
	if (!ret && (want & MEM_FAULTS) && !ntkl_tp_attached(&ntkl_memory_producer, MEM_AV_TP)) {
		ret = ntkl_tp_set(&ntkl_memory_producer, MEM_AV_TP, true, NULL);
		/* undo what this call attached */
		if (ret && added)
			mem_unregister(added);
	}
	mutex_unlock(&mem_lock);
	return ret;
}

/* Detached once no probe reads a set that took them. */
static void mem_detach(const struct ntkl_active_set *set)
{
	unsigned int want = mem_set_wants(set);

	mutex_lock(&mem_lock);
	if (!(want & MEM_FAULTS))
		ntkl_tp_set(&ntkl_memory_producer, MEM_AV_TP, false, NULL);
	if (mem_groups & ~want)
		mem_unregister(mem_groups & ~want);
	else if (mem_groups)
		mem_count_missed();
	mutex_unlock(&mem_lock);
}

static void mem_flush(void)
{
	mutex_lock(&mem_lock);
	if (mem_groups)
		mem_count_missed();
	mutex_unlock(&mem_lock);
}

static void mem_exit(void)
{
	mutex_lock(&mem_lock);
	if (mem_groups)
		mem_unregister(mem_groups);
	mutex_unlock(&mem_lock);
}

#else /* !CONFIG_KRETPROBES */

static int mem_attach(const struct ntkl_active_set *set)
{
	static bool warned;
	unsigned int i;

	for (i = 0; i < set->n && !warned; i++)
		if (mem_faults_on(set->loggers[i]) || mem_valloc_on(set->loggers[i])) {
			pr_info("memory: this kernel has no kretprobes: no page faults, no VirtualAlloc\n");
			warned = true;
		}
	return 0;
}

static void mem_detach(const struct ntkl_active_set *set)
{
}

static void mem_flush(void)
{
}

static void mem_exit(void)
{
}

#endif /* CONFIG_KRETPROBES */

static struct ntkl_tp mem_tps[] = {
	NTKL_TP(signal_generate, MEM_AV_TP, "no AccessViolation of user faults"),
};

const struct ntkl_producer ntkl_memory_producer = {
	.name = "memory",
	.exit = mem_exit,
	.tps = mem_tps,
	.nr_tps = ARRAY_SIZE(mem_tps),
	.attach = mem_attach,
	.detach = mem_detach,
	.flush = mem_flush,
};
