// SPDX-License-Identifier: GPL-2.0
/*
 * Mapped reading (uapi/ntkl.h "Mapped reading"): a bound reader maps its
 * logger's buffers read-only and writes them to its file from there, so a
 * buffer crosses into user space without the copy read() makes. Slot 0 is
 * the header buffer, then each CPU's ring in turn (ring->map_slot); a slot
 * is the buffer size rounded up to whole pages, as the buffers are
 * allocated (buffers.c). Pages come in on first touch (fault), each with a
 * reference, so a page mapped stays whole even once the logger is freed.
 * The mapping holds the file, and the file the logger: the buffers
 * outlive every mapping of them.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "ntkl.h"
#include "wrapper/compat.h"

unsigned long ntkl_map_stride(const struct ntkl_logger *lg)
{
	return PAGE_ALIGN(lg->buffer_size);
}

static vm_fault_t ntkl_map_fault(struct vm_fault *vmf)
{
	struct ntkl_logger *lg = vmf->vma->vm_file->private_data;
	unsigned long pages = ntkl_map_stride(lg) >> PAGE_SHIFT;
	u8 *data = ntkl_buffers_slot(lg, vmf->pgoff / pages);
	struct page *page;

	if (!data)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page(data + ((vmf->pgoff % pages) << PAGE_SHIFT));
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct ntkl_map_ops = {
	.fault = ntkl_map_fault,
};

int ntkl_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ntkl_logger *lg = READ_ONCE(file->private_data);
	unsigned long slots, pages;

	if (!lg)
		return -EINVAL;		/* not bound to a logger */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	slots = 1 + (unsigned long)lg->nr_buffers;
	pages = slots * (ntkl_map_stride(lg) >> PAGE_SHIFT);
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -EINVAL;
	/* never writable, not inherited, not grown, not in a core dump */
	ntkl_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
	vma->vm_ops = &ntkl_map_ops;
	return 0;
}
