/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ntkl supports (6.1 and 6.12), in one
 * place, so the rest of the module reads the same on both.
 */
#ifndef _NTKL_COMPAT_H
#define _NTKL_COMPAT_H

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#ifdef CONFIG_X86_64
#include <asm/vdso.h>
#endif

/*
 * What is left of a task's time slice, in ns. SCHED_RR keeps a slice in
 * ticks, SCHED_DEADLINE its remaining runtime, SCHED_FIFO has no slice
 * (0). For fair tasks, EEVDF (6.6+) keeps a virtual deadline: the slice
 * left is deadline - vruntime, scaled from virtual to real time by the
 * task's weight. CFS (before 6.6) keeps no per-task slice: ntkl takes the default
 * slice, 3 ms x (1 + log2 CPUs) as sysctl_sched_min_granularity scales,
 * minus what the task ran since it was last picked.
 */
static inline u64 ntkl_fair_slice_ns(struct task_struct *p)
{
#ifdef NTKL_HAVE_EEVDF	/* Kbuild found it in the kernel's headers */
	s64 left = (s64)(READ_ONCE(p->se.deadline) - READ_ONCE(p->se.vruntime));

	if (left <= 0)
		return 0;
	return ((u64)left * p->se.load.weight) >> (2 * SCHED_FIXEDPOINT_SHIFT);
#else
	u64 slice = 3 * NSEC_PER_MSEC * (1 + ilog2(min(num_online_cpus(), 8U)));
	u64 ran = p->se.sum_exec_runtime - p->se.prev_sum_exec_runtime;

	return ran < slice ? slice - ran : 0;
#endif
}

static inline u64 ntkl_remaining_slice_ns(struct task_struct *p)
{
	/* most tasks are SCHED_NORMAL: tested first, on every switch */
	if (likely(p->policy == SCHED_NORMAL))
		return ntkl_fair_slice_ns(p);
	if (p->policy == SCHED_RR)
		return (u64)READ_ONCE(p->rt.time_slice) * TICK_NSEC;
	if (p->policy == SCHED_FIFO)
		return 0;
	if (p->policy == SCHED_DEADLINE)
		return max_t(s64, READ_ONCE(p->dl.runtime), 0);
	return ntkl_fair_slice_ns(p);	/* SCHED_BATCH, SCHED_IDLE */
}

/*
 * A module's code: one allocation of its own since 6.4 (struct
 * module_memory); before, the text part of its core layout.
 */
static inline void ntkl_module_text(const struct module *mod, unsigned long *base,
				    unsigned long *size)
{
#ifdef NTKL_HAVE_MODULE_MEMORY	/* Kbuild found it in the kernel's headers */
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#endif
}

/* A module's read-only data (its notes among it), as its code above. */
static inline void ntkl_module_rodata(const struct module *mod, unsigned long *base,
				      unsigned long *size)
{
#ifdef NTKL_HAVE_MODULE_MEMORY
	*base = (unsigned long)mod->mem[MOD_RODATA].base;
	*size = mod->mem[MOD_RODATA].size;
#else
	*base = (unsigned long)mod->core_layout.base + mod->core_layout.text_size;
	*size = mod->core_layout.ro_size - mod->core_layout.text_size;
#endif
}

/*
 * Is this node of the kernel's module list a module's, not the list's
 * head? Every struct module lies in module memory; the head, in the
 * kernel's data.
 */
static inline bool ntkl_module_list_entry(const struct list_head *pos)
{
	return (unsigned long)pos >= MODULES_VADDR && (unsigned long)pos < MODULES_END;
}

/*
 * Where the vDSO is mapped in mm, or 0: its code runs in every process
 * (clock_gettime, getcpu) but it is no file, so the VMA walk would miss
 * it. The architecture keeps it in mm->context; x86 only here.
 */
static inline unsigned long ntkl_vdso_base(const struct mm_struct *mm)
{
#ifdef CONFIG_X86
	return (unsigned long)mm->context.vdso;
#else
	return 0;
#endif
}

/* The ELF image the kernel maps as a process's vDSO, and its size; NULL if none. */
static inline const void *ntkl_vdso_elf(const struct mm_struct *mm, size_t *size)
{
#ifdef CONFIG_X86_64
	const struct vdso_image *image = mm->context.vdso_image;

	if (!image)
		return NULL;
	*size = image->size;
	return image->data;
#else
	return NULL;
#endif
}

/* An inode's modification time: 6.7 hid it behind inode_get_mtime(). */
static inline struct timespec64 ntkl_inode_mtime(const struct inode *inode)
{
#ifdef NTKL_HAVE_INODE_GET_MTIME	/* Kbuild found it in the kernel's headers */
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/*
 * Set and clear flags of a VMA being mapped (mmap_lock held for writing):
 * 6.3 made vm_flags read-only behind vm_flags_mod().
 */
static inline void ntkl_vm_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
				     vm_flags_t clear)
{
#ifdef NTKL_HAVE_VM_FLAGS_MOD	/* Kbuild found it in the kernel's headers */
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _NTKL_COMPAT_H */
