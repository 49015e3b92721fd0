// SPDX-License-Identifier: GPL-2.0
/*
 * Image events (LOADER, EVENT_TRACE_FLAG_IMAGE_LOAD): where each piece of
 * code lies, so that tools can name the module of every address (a
 * sample's IP, a stack frame, a thread's start address). Without them
 * WPA's Images table is empty and every address is "Unknown".
 *
 * Linux to NT (docs/linux-to-nt.md, "Images"):
 *  - the kernel is one image, /boot/vmlinux-<release>, from its first to
 *    its last symbol (the kernel's own symbol table: sprint_symbol());
 *    KernelBase gives its start;
 *  - each loaded module is one image, its code, named /sys/module/<name>;
 *  - each file a process maps with code in it (its executable, ld.so, its
 *    shared libraries) is one image of that process, from the first to
 *    the last of the consecutive mappings of that file, named by its path.
 *  - its vDSO is one image too, "[vdso]".
 * At logger start and stop every one is listed (DCStart, DCEnd). While
 * it runs: Load and UnLoad of modules (the module notifier); Load of each
 * exec's new executable and interpreter (sched_process_exec), of the
 * images a forked child inherits (sched_process_fork), and of each file
 * a process maps with code after exec (ld.so's libraries, dlopen's: a
 * kretprobe on perf_event_mmap(), below); UnLoad of every image of a
 * process as its mm goes, before its Process End: the old program's at
 * exec (a kretprobe on exec_mm_release()), and at the process's end (on
 * exit_itimers(), called once per process before exit_mm()). No UnLoad at
 * munmap: an image unmapped while the process lives keeps its Load.
 *
 * TimeDateStamp and ImageCheckSum stay 0: Linux files carry no such
 * stamps (a build id is not a time or a PE checksum).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/utsname.h>

#include "control/fault.h"
#include "ntkl.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/image_ident.h"
#include "producers/ntsched.h"
#include "producers/producer.h"
#include "unwind/unwind.h"
#include "wrapper/compat.h"

/* The kernel image, found once at load: it does not move. */
static unsigned long kernel_start, kernel_end;

/*
 * Does the kernel's symbol table place addr in the kernel image? It names
 * a symbol of the image, "name+off/size", or of a module, "... [mod]", or
 * prints the bare address: no symbol.
 */
static bool in_kernel_image(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return strchr(sym, '+') && !strchr(sym, '[');
}

/*
 * The edge of the image between in (a page in it) and out (one out of it),
 * page-aligned both, by halving: the first page in it if out < in, the
 * end of its last page if in < out.
 */
static unsigned long image_edge(unsigned long in, unsigned long out)
{
	while (max(in, out) - min(in, out) > PAGE_SIZE) {
		unsigned long mid = min(in, out) + ((max(in, out) - min(in, out)) / 2 & PAGE_MASK);

		if (in_kernel_image(mid))
			in = mid;
		else
			out = mid;
	}
	return out < in ? in : out;
}

/*
 * The image around a known address of it, within a GiB each way. With
 * CONFIG_KALLSYMS_ALL (Debian's kernels and the debug kernel) every
 * address from _text to _end names a symbol, so the image is one run;
 * without it, the image found is the kernel's text.
 */
static void find_kernel_image(void)
{
	unsigned long known = (unsigned long)&schedule & PAGE_MASK;

	kernel_start = image_edge(known, known - min_t(unsigned long, known, SZ_1G));
	kernel_end = image_edge(known, known + SZ_1G);
}

/* The last part of a path: what ImageID and the PDB are named by. */
static const char *file_part(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

/*
 * One Image record, just after its identity, as xperf -merge leaves them:
 * ImageID (where, and the file's name) and DbgID_RSDS (the build id as
 * GUID, age 1, "<file>.pdb") or DbgID_NONE (no build id found). All
 * three in one reservation, so nothing comes between them and they share
 * a time; their headers name the process the image belongs to, as
 * Windows' rundown records do.
 */
static void write_image(struct ntkl_logger *lg, enum etw_event_id id, unsigned long base,
			unsigned long size, u32 pid, const char *name,
			const struct ntkl_build_id *bid)
{
	enum etw_event_id dbg = bid->len ? ETW_EVENT_DBGID_RSDS : ETW_EVENT_DBGID_NONE;
	const char *file = file_part(name);
	size_t file_len = strnlen(file, NAME_MAX);
	size_t id_size = sizeof(struct etw_image_id) + (ntkl_utf16_len(file, NAME_MAX) + 1) * 2;
	size_t dbg_size = bid->len ? sizeof(struct etw_dbgid_rsds) + file_len + sizeof(".pdb") :
				     ETW_DBGID_NONE_SIZE;
	size_t img_size = sizeof(struct etw_image_v3) + (ntkl_utf16_len(name, PATH_MAX) + 1) * 2;
	struct etw_dbgid_rsds *rsds;
	struct etw_image_id *ident;
	struct etw_image_v3 *img;
	struct ntkl_record rec;
	u8 *pos, *p;
	u64 clock;

	BUILD_BUG_ON(etw_events[ETW_EVENT_IMAGE_DC_START].header_type !=
		     ETW_HEADER_TYPE_SYSTEM64);
	pos = ntkl_record_group_begin(lg, &rec, ntkl_record_aligned(ETW_EVENT_IMAGE_ID, id_size) +
				      ntkl_record_aligned(dbg, dbg_size) +
				      ntkl_record_aligned(id, img_size), 3, &clock);
	if (!pos)
		return;

	p = ntkl_record_put(&pos, ETW_EVENT_IMAGE_ID, id_size, clock);
	((struct event_trace_header *)(p - sizeof(struct event_trace_header)))->process_id = pid;
	ident = (void *)p;
	ident->image_base = base;
	ident->image_size = size;
	ident->process_id = pid;
	ident->time_date_stamp = 0;
	ntkl_put_utf16(p + sizeof(*ident), file, NAME_MAX);

	p = ntkl_record_put(&pos, dbg, dbg_size, clock);
	((struct event_trace_header *)(p - sizeof(struct event_trace_header)))->process_id = pid;
	rsds = (void *)p;
	rsds->image_base = base;
	rsds->process_id = pid;
	if (bid->len) {
		/* the GUID is the build id's first 16 bytes, as they are */
		memset(rsds->guid, 0, sizeof(rsds->guid));
		memcpy(rsds->guid, bid->id, min_t(size_t, bid->len, sizeof(rsds->guid)));
		rsds->age = 1;
		memcpy(p + sizeof(*rsds), file, file_len);
		memcpy(p + sizeof(*rsds) + file_len, ".pdb", sizeof(".pdb"));
	}

	p = ntkl_record_put(&pos, id, img_size, clock);
	((struct system_trace_header *)(p - sizeof(struct system_trace_header)))->process_id = pid;
	img = (void *)p;
	memset(img, 0, sizeof(*img));
	img->image_base = base;
	img->image_size = size;
	img->process_id = pid;
	img->default_base = base;
	ntkl_put_utf16(p + sizeof(*img), name, PATH_MAX);
	ntkl_record_group_end(&rec, 3);
}

static void write_kernel(struct ntkl_logger *lg, enum etw_event_id id)
{
	char name[32 + __NEW_UTS_LEN];
	struct etw_image_kernel_base *kb;
	struct ntkl_record rec;

	snprintf(name, sizeof(name), "/boot/vmlinux-%s", init_utsname()->release);
	preempt_disable();
	if (id == ETW_EVENT_IMAGE_DC_START) {
		kb = ntkl_begin_IMAGE_KERNEL_BASE(lg, &rec, ETW_EVENT_IMAGE_KERNEL_BASE,
						  sizeof(*kb));
		if (kb) {
			kb->image_base = kernel_start - NTKL_IMAGE_HEADER_SIZE;
			ntkl_record_end(&rec);
		}
	}
	/* code at RVA 0x1000, as in a PE image (NTKL_IMAGE_HEADER_SIZE) */
	write_image(lg, id, kernel_start - NTKL_IMAGE_HEADER_SIZE,
		    kernel_end - kernel_start + NTKL_IMAGE_HEADER_SIZE, 0, name,
		    ntkl_build_id_kernel());
	preempt_enable();
}

static void write_module(struct ntkl_logger *lg, enum etw_event_id id, struct module *mod)
{
	char name[sizeof("/sys/module/") + MODULE_NAME_LEN];
	struct ntkl_build_id bid;
	unsigned long base, size;

	ntkl_module_text(mod, &base, &size);
	ntkl_build_id_module(mod, &bid);
	snprintf(name, sizeof(name), "/sys/module/%s", mod->name);
	/* code at RVA 0x1000, as in a PE image (NTKL_IMAGE_HEADER_SIZE) */
	write_image(lg, id, base - NTKL_IMAGE_HEADER_SIZE, size + NTKL_IMAGE_HEADER_SIZE, 0,
		    name, &bid);
}

/*
 * Every loaded module. The kernel's list of modules is not exported, but
 * each module is on it, this one too: walk it from here, and know its
 * head (a list_head in the kernel's data, not a module) by its address.
 */
static void write_modules(struct ntkl_logger *lg, enum etw_event_id id)
{
	struct module *mod;

	/* the module list's rule for readers: RCU, preemption off */
	preempt_disable();
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		/* at the head, mod is no module: only its list field is real */
		if (ntkl_module_list_entry(&mod->list) && mod->state != MODULE_STATE_UNFORMED)
			write_module(lg, id, mod);
	}
	write_module(lg, id, THIS_MODULE);
	rcu_read_unlock();
	preempt_enable();
}

/* One file's consecutive mappings: an image if any of them holds code. */
struct mapping_run {
	struct file *file;
	unsigned long start, end;
	bool exec;
};

/* A mapped file's name: its path, or the last part of it if d_path() fails. */
static const char *mapped_path(struct file *file, char *buf, size_t len)
{
	const char *path = d_path(&file->f_path, buf, len);

	return IS_ERR(path) ? (const char *)file->f_path.dentry->d_name.name : path;
}

static void write_run(struct ntkl_logger *lg, enum etw_event_id id, u32 pid,
		      const struct mapping_run *run, char *buf, size_t len)
{
	struct ntkl_build_id bid;
	const char *path;

	if (!run->file || !run->exec)
		return;
	path = mapped_path(run->file, buf, len);
	ntkl_build_id_file(run->file, &bid);
	preempt_disable();
	write_image(lg, id, run->start, run->end - run->start, pid, path, &bid);
	preempt_enable();
}

/*
 * The images of a process: its mappings of files with code, each file's
 * consecutive mappings (ld.so maps a library as several, read-only and
 * code and data) one image; and the vDSO, named "[vdso]". Its mm's lock
 * held for reading: the caller may sleep (rundown), or holds it by
 * trylock (exec, fork).
 */
static void write_mm_images(struct ntkl_logger *lg, enum etw_event_id id, u32 pid,
			    struct mm_struct *mm, char *buf, size_t len)
{
	unsigned long vdso = ntkl_vdso_base(mm);
	struct mapping_run run = { };
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma) {
		struct file *file = vma->vm_file;

		if (!file && vma->vm_start == vdso && vdso) {
			struct ntkl_build_id bid;

			/* named as /proc/PID/maps and perf name it */
			ntkl_build_id_vdso(mm, &bid);
			preempt_disable();
			write_image(lg, id, vma->vm_start, vma->vm_end - vma->vm_start, pid,
				    "[vdso]", &bid);
			preempt_enable();
			continue;
		}
		if (file && run.file && file_inode(file) == file_inode(run.file)) {
			run.end = vma->vm_end;
			run.exec |= !!(vma->vm_flags & VM_EXEC);
			continue;
		}
		write_run(lg, id, pid, &run, buf, len);
		run.file = file;
		run.start = vma->vm_start;
		run.end = vma->vm_end;
		run.exec = !!(vma->vm_flags & VM_EXEC);
	}
	write_run(lg, id, pid, &run, buf, len);
}

/* Every process's images, by process id. May sleep. */
static void write_processes(struct ntkl_logger *lg, enum etw_event_id id, char *buf, size_t len)
{
	struct task_struct *t;
	struct mm_struct *mm;
	int nr = 1;

	while ((t = ntkl_next_process(&nr))) {
		mm = get_task_mm(t);	/* none for kernel threads */
		if (mm) {
			mmap_read_lock(mm);
			write_mm_images(lg, id, task_tgid_nr(t), mm, buf, len);
			mmap_read_unlock(mm);
			mmput(mm);
		}
		put_task_struct(t);
		cond_resched();
	}
}

/* The image rundown: at start (DCStart), at stop (DCEnd). */
static void rundown(struct ntkl_logger *lg, bool end)
{
	enum etw_event_id id = end ? ETW_EVENT_IMAGE_DC_END : ETW_EVENT_IMAGE_DC_START;
	char *buf;

	if (!ntkl_event_on(lg, id))
		return;
	if (kernel_end > kernel_start)
		write_kernel(lg, id);
	write_modules(lg, id);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		atomic64_inc(&lg->events_lost_extra);
		return;
	}
	write_processes(lg, id, buf, PATH_MAX);
	kfree(buf);
}

/* A module comes (its code is in place, its init not run yet) or goes. */
static int module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	enum etw_event_id id = state == MODULE_STATE_COMING ? ETW_EVENT_IMAGE_LOAD :
			       state == MODULE_STATE_GOING ? ETW_EVENT_IMAGE_UNLOAD :
			       ETW_EVENT_COUNT;
	struct ntkl_logger **loggers;
	unsigned int i, n;

	if (id == ETW_EVENT_COUNT)
		return NOTIFY_DONE;
	preempt_disable();
	n = ntkl_active_loggers(&loggers);
	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], id))
			write_module(loggers[i], id, data);
	preempt_enable();
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};

/* exec's paths: a probe cannot sleep to allocate, nor nest on its CPU */
#define EXEC_PATH_MAX	512
static DEFINE_PER_CPU(char[EXEC_PATH_MAX], exec_path);

/*
 * A new process image: after an exec, the new executable and its
 * interpreter, from the new mm (the probe of sched_process_exec); after a
 * fork, the child's copy of its parent's mappings (sched_process_fork),
 * which Windows, with no fork, never needs but WPA does to resolve the
 * child's addresses. Image Load records, from the probe, which may not
 * sleep: if the mm's lock is taken, the images wait for the DCEnd rundown.
 */
void ntkl_image_new_process(struct ntkl_logger *lg, struct task_struct *p)
{
	struct mm_struct *mm = p->mm;

	if (!mm || !ntkl_event_on(lg, ETW_EVENT_IMAGE_LOAD))
		return;
	if (!mmap_read_trylock(mm)) {
		atomic64_inc(&lg->events_lost_extra);
		return;
	}
	write_mm_images(lg, ETW_EVENT_IMAGE_LOAD, task_tgid_nr(p), mm,
			*this_cpu_ptr(&exec_path), EXEC_PATH_MAX);
	mmap_read_unlock(mm);
}

/* ---------------------------------------------------------------------- */
/* Files mapped with code after exec                                       */
/* ---------------------------------------------------------------------- */

#ifdef CONFIG_KRETPROBES

/*
 * ld.so maps a program's shared libraries after exec, dlopen() maps more
 * later, and no tracepoint sees either. perf_event_mmap(vma) is how perf
 * learns of them: mmap_region() calls it for every new mapping once it is
 * in place in the mm's tree, and mprotect_fixup() for every mapping whose
 * protection changed (so mprotect(PROT_EXEC) too), both with the mm's
 * lock held for writing, on 6.1 and 6.12 alike. It is probed while a
 * running logger takes Image Load (registered in attach, unregistered
 * in detach, as FileIo's probes are); a call the kprobes machinery
 * misses is lost for every such logger (EventsLost).
 *
 * A mapping of a file with code (VM_EXEC) makes the file's image, the
 * run of that file's consecutive mappings around it (write_mm_images()'s
 * grouping), written as Load once: when the run has no other mapping
 * with code. ld.so maps a library as a whole-file read-only mapping, then
 * its code over part of it, then its read-only and writable data: the
 * code's mapping writes the image, from the library's first page to the
 * end of ld.so's mapping of it (its zero-filled pages too, which are
 * anonymous by the time a rundown lists it), and the others have no code.
 * What this cannot tell apart: an mprotect() of an image's only mapping
 * with code that leaves it code (text relocations, a code patcher), or a
 * new mapping with code merged into one of the same file, writes the
 * Load again (the mapping is seen as it is after the change). Not written here: what exec
 * maps (the executable, its interpreter; written whole by the exec's
 * probe once the new mm is complete) and stacks (VM_GROWSDOWN, which a
 * page fault grows under the lock taken for reading only).
 *
 * The handler runs with preemption off and never sleeps: the path is
 * formed with d_path() into a buffer per CPU (a kprobe handler never
 * runs inside another on its CPU), the build id read from the page
 * cache only, nothing allocated. Where the kprobe is still a breakpoint
 * (a kernel without ftrace, as the debug kernel, until the optimizer
 * makes it a jump) the entry handler runs as an NMI, in which d_path()'s
 * seqlocks may not be taken: the return handler, in the task, writes
 * the image then, before mmap_region() or mprotect_fixup() go on.
 */
static char __percpu *probe_path_buf;	/* the probes' paths, PATH_MAX a CPU */

/* Does a logger of the set take event id? */
static bool event_on(struct ntkl_logger *const *loggers, unsigned int n, enum etw_event_id id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], id))
			return true;
	return false;
}

/* Does a logger of the set, as the set has it, take event id? For attach and detach. */
static bool set_event_on(const struct ntkl_active_set *set, enum etw_event_id id)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, id))
			return true;
	return false;
}

/* A mapping of a file with code, made by the process itself, not by exec. */
static bool map_has_code(const struct vm_area_struct *vma)
{
	return vma && vma->vm_file && (vma->vm_flags & VM_EXEC) &&
	       !(vma->vm_flags & (VM_GROWSDOWN | VM_GROWSUP)) &&
	       vma->vm_mm == current->mm && !current->in_execve &&
	       !(current->flags & PF_KTHREAD);
}

static bool same_file(const struct vm_area_struct *vma, const struct inode *inode)
{
	return vma->vm_file && file_inode(vma->vm_file) == inode;
}

/*
 * The run of vma's file around it, as write_mm_images() groups it: false
 * if another mapping of the run has code, whose image was written when
 * it was mapped (or by a rundown, or by exec). The caller holds the mm's
 * lock: its tree holds still.
 */
static bool map_new_image(struct vm_area_struct *vma, struct mapping_run *run)
{
	const struct inode *inode = file_inode(vma->vm_file);
	struct vm_area_struct *v;

	VMA_ITERATOR(prev, vma->vm_mm, vma->vm_start);
	VMA_ITERATOR(next, vma->vm_mm, vma->vm_end);

	run->file = vma->vm_file;
	run->start = vma->vm_start;
	run->end = vma->vm_end;
	run->exec = true;
	while ((v = vma_prev(&prev)) && same_file(v, inode)) {
		if (v->vm_flags & VM_EXEC)
			return false;
		run->start = v->vm_start;
	}
	while ((v = vma_next(&next)) && same_file(v, inode)) {
		if (v->vm_flags & VM_EXEC)
			return false;
		run->end = v->vm_end;
	}
	return true;
}

/* A new image's Load, to every logger that takes it. */
static void map_write(struct vm_area_struct *vma)
{
	struct ntkl_logger **loggers;
	struct ntkl_build_id bid;
	struct mapping_run run;
	const char *path;
	unsigned int i, n = ntkl_active_loggers(&loggers);

	if (!event_on(loggers, n, ETW_EVENT_IMAGE_LOAD) || !map_new_image(vma, &run))
		return;
	/* the unwinder's map of this process wants the new code too, now */
	ntkl_unwind_mapped(vma->vm_mm);
	path = mapped_path(run.file, this_cpu_ptr(probe_path_buf), PATH_MAX);
	ntkl_build_id_file(run.file, &bid);
	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], ETW_EVENT_IMAGE_LOAD))
			write_image(loggers[i], ETW_EVENT_IMAGE_LOAD, run.start,
				    run.end - run.start, task_tgid_nr(current), path, &bid);
}

/* perf_event_mmap(vma): at entry, or at return for an entry run as an NMI. */
static int map_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	struct ntkl_logger **loggers;
	unsigned int n;

	if (!map_has_code(vma))
		return 1;
	n = ntkl_active_loggers(&loggers);
	if (!event_on(loggers, n, ETW_EVENT_IMAGE_LOAD))
		return 1;
	if (in_nmi()) {
		*(struct vm_area_struct **)ri->data = vma;
		return 0;
	}
	map_write(vma);
	return 1;
}

static int map_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	map_write(*(struct vm_area_struct **)ri->data);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* A process's images going: at exec, at its end                           */
/* ---------------------------------------------------------------------- */

/*
 * Windows writes an Image UnLoad for each image of a process as it goes,
 * before the process's End. On Linux a process's images go with its mm:
 * at exec, the old program's all at once (exec's Process End, at
 * task_rename, and the new program's Start and Loads, at
 * sched_process_exec, both come after the new mm has replaced it); at
 * its end, when its last thread lets go of it (the Process End, at
 * sched_process_exit, comes after exit_mm()). No tracepoint sees the mm
 * before it goes, so a kretprobe each:
 *
 *  - exec: exec_mm_release(current, old_mm), which exec_mmap() alone
 *    calls, just before it puts the new mm in the old one's place: past
 *    the point of no return, after de_thread() (no other thread of the
 *    process is left to map anything), the old mm still current's, on
 *    6.1 and 6.12 alike. Not begin_new_exec()'s entry: an error there
 *    (bprm_creds_from_file()) still returns to the old program, and its
 *    other threads still run; nor sched_prepare_exec (6.10 on), before
 *    de_thread() too. If exec_mmap() fails after it (a fatal signal as it
 *    waits for its locks) the process dies with the old mm, and its
 *    exit writes the UnLoads again.
 *  - exit: exit_itimers(current), which do_exit() calls once per
 *    process, in its last thread to exit (group_dead: every other one is
 *    in do_exit() already, none runs user code), before exit_mm(), on
 *    6.1 and 6.12 alike (with POSIX timers, as Debian's and the debug
 *    kernel have them). exec calls it too, from a task not exiting
 *    (PF_EXITING is do_exit()'s): that one is left to exec_mm_release().
 *    No other function is called once per process before exit_mm() in
 *    every kernel built here: acct_collect() and taskstats_exit() are
 *    empty without BSD_PROCESS_ACCT and TASKSTATS (the debug kernel),
 *    exit_mm_release() runs in every thread.
 *
 * The UnLoads list the images as the mappings show them then, grouped as
 * the rundowns group them (write_mm_images()): each at the base of its
 * Load (a fork's, an exec's, a mapping's) and as long, but for a library
 * ld.so mapped, whose Load covered the zero-filled pages that are
 * anonymous by now. An image unmapped before (dlclose()) has no UnLoad.
 * The mm's lock is taken by trylock (a probe cannot sleep): if another
 * holds it, the UnLoads are lost, counted in EventsLost. The handler
 * writes them at entry, or at return for an entry run as an NMI (as
 * map_entry()): the mm is still the process's then.
 */

/* The current process lets go of mm: UnLoad of each of its images. */
static void unload_mm(struct mm_struct *mm)
{
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	bool locked;

	if (!event_on(loggers, n, ETW_EVENT_IMAGE_UNLOAD))
		return;
	locked = mmap_read_trylock(mm);
	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], ETW_EVENT_IMAGE_UNLOAD))
			continue;
		if (locked)
			write_mm_images(loggers[i], ETW_EVENT_IMAGE_UNLOAD, task_tgid_nr(current),
					mm, this_cpu_ptr(probe_path_buf), PATH_MAX);
		else
			atomic64_inc(&loggers[i]->events_lost_extra);
	}
	if (locked)
		mmap_read_unlock(mm);
}

/* mm going from the current process: now, or at return for an NMI's entry. */
static int unload_entry(struct kretprobe_instance *ri, struct mm_struct *mm)
{
	struct ntkl_logger **loggers;
	unsigned int n;

	if (!mm || mm != current->mm || (current->flags & PF_KTHREAD))
		return 1;
	n = ntkl_active_loggers(&loggers);
	if (!event_on(loggers, n, ETW_EVENT_IMAGE_UNLOAD))
		return 1;
	if (in_nmi()) {
		*(struct mm_struct **)ri->data = mm;
		return 0;
	}
	unload_mm(mm);
	return 1;
}

static int unload_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mm_struct *mm = *(struct mm_struct **)ri->data;

	if (mm == current->mm)
		unload_mm(mm);
	return 0;
}

/* exec_mm_release(tsk, mm): exec lets go of mm, the old program's */
static int exec_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return unload_entry(ri, (void *)regs_get_kernel_argument(regs, 1));
}

/* exit_itimers(tsk): the process's last thread exits, or it execs */
static int exit_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!(current->flags & PF_EXITING))
		return 1;
	return unload_entry(ri, current->mm);
}

/* ---------------------------------------------------------------------- */
/* The probes' registration                                                */
/* ---------------------------------------------------------------------- */

/*
 * Each kretprobe is registered while a running logger takes the event it
 * writes (in attach, as FileIo's probes are) and unregistered in detach
 * once none does; a call the kprobes machinery misses is lost for every
 * logger taking that event (EventsLost). A function this kernel does not
 * have is said once in the log; the records it would give are not
 * written.
 */
struct image_probe {
	const char *symbol;
	enum etw_event_id event;	/* what it writes */
	const char *without;		/* what is not written without it */
	kretprobe_handler_t entry, ret;
	struct kretprobe krp;
	bool registered, warned;
	bool absent;			/* this kernel has no such function */
	unsigned long missed;		/* nmissed already counted lost */
};

static struct image_probe probes[] = {
	{ "perf_event_mmap", ETW_EVENT_IMAGE_LOAD,
	  "no Image Load of libraries mapped after exec", map_entry, map_return },
	{ "exec_mm_release", ETW_EVENT_IMAGE_UNLOAD,
	  "no Image UnLoad of a process's images at exec", exec_entry, unload_return },
	{ "exit_itimers", ETW_EVENT_IMAGE_UNLOAD,
	  "no Image UnLoad of a process's images at its exit", exit_entry, unload_return },
};

static DEFINE_MUTEX(probe_lock);	/* the probes' registration */

/* The calls p missed since last asked: lost for every logger taking its event. */
static void probe_count_missed(struct image_probe *p)
{
	struct ntkl_logger **loggers;
	unsigned long now, missed;
	unsigned int i, n;

	if (!p->registered)
		return;
	now = (unsigned long)READ_ONCE(p->krp.nmissed) + READ_ONCE(p->krp.kp.nmissed);
	missed = now - p->missed;
	p->missed = now;
	if (!missed)
		return;
	preempt_disable();
	n = ntkl_active_loggers(&loggers);
	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], p->event))
			atomic64_add(missed, &loggers[i]->events_lost_extra);
	preempt_enable();
}

/* Registered, or an error: -ENOENT (no such function here) is only said. */
static int probe_register(struct image_probe *p)
{
	int ret;

	memset(&p->krp, 0, sizeof(p->krp));
	p->krp.kp.symbol_name = p->symbol;
	p->krp.entry_handler = p->entry;
	p->krp.handler = p->ret;
	p->krp.data_size = sizeof(void *);
	/* each call takes one for its entry handler; only an NMI entry's keeps it */
	p->krp.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	ret = ntkl_fault_probe() ?: register_kretprobe(&p->krp);
	/* an error fails the call; an absent function is said once here */
	if (ret == -ENOENT && !p->warned) {
		pr_info("%s not probed (absent): %s\n", p->symbol, p->without);
		p->warned = true;
	}
	p->registered = !ret;
	p->missed = 0;
	/* and to each logger taking its event (absent_hooks, uapi/ntkl.h) */
	if (p->absent != (ret == -ENOENT)) {
		p->absent = ret == -ENOENT;
		ntkl_event_absent(p->event, p->absent);
	}
	return ret == -ENOENT ? 0 : ret;
}

/* Unregister the registered probes drop[] names, with one wait for their handlers. */
static void probes_unregister(const bool *drop)
{
	struct kretprobe *krps[ARRAY_SIZE(probes)];
	unsigned int i, k = 0;

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!drop[i] || !probes[i].registered)
			continue;
		probe_count_missed(&probes[i]);
		krps[k++] = &probes[i].krp;
		probes[i].registered = false;
	}
	if (k)
		unregister_kretprobes(krps, k);
}

/*
 * Attach before the set that wants them is seen: they find no logger in
 * the old one. On failure, what this call registered is unregistered.
 */
static int image_attach(const struct ntkl_active_set *set)
{
	bool fresh[ARRAY_SIZE(probes)] = { };
	unsigned int i;
	int ret = 0;

	mutex_lock(&probe_lock);
	for (i = 0; i < ARRAY_SIZE(probes) && !ret; i++) {
		if (probes[i].registered || !set_event_on(set, probes[i].event))
			continue;
		ret = probe_register(&probes[i]);
		fresh[i] = probes[i].registered;
	}
	if (ret)
		probes_unregister(fresh);
	mutex_unlock(&probe_lock);
	return ret;
}

/* Detach each probe once no logger of the set now seen takes its event. */
static void image_detach(const struct ntkl_active_set *set)
{
	bool drop[ARRAY_SIZE(probes)];
	unsigned int i;

	mutex_lock(&probe_lock);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		drop[i] = !set_event_on(set, probes[i].event);
		if (!drop[i])
			probe_count_missed(&probes[i]);
	}
	probes_unregister(drop);
	mutex_unlock(&probe_lock);
}

static void image_flush(void)
{
	unsigned int i;

	mutex_lock(&probe_lock);
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		probe_count_missed(&probes[i]);
	mutex_unlock(&probe_lock);
}

static int probes_init(void)
{
	probe_path_buf = __alloc_percpu(PATH_MAX, SMP_CACHE_BYTES);
	return probe_path_buf ? 0 : -ENOMEM;
}

static void probes_exit(void)
{
	bool all[ARRAY_SIZE(probes)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		all[i] = true;
	mutex_lock(&probe_lock);
	probes_unregister(all);
	mutex_unlock(&probe_lock);
	free_percpu(probe_path_buf);
}

#else /* !CONFIG_KRETPROBES */

static int image_attach(const struct ntkl_active_set *set)
{
	return 0;
}

static void image_detach(const struct ntkl_active_set *set)
{
}

static void image_flush(void)
{
}

static int probes_init(void)
{
	return 0;
}

static void probes_exit(void)
{
}

#endif /* CONFIG_KRETPROBES */

/* The stop's DCEnd rundown comes after the losses counted so far. */
static void image_rundown(struct ntkl_logger *lg, bool end)
{
	if (end)
		image_flush();
	rundown(lg, end);
}

int ntkl_image_init(void)
{
	int ret;

	find_kernel_image();
	if (kernel_end <= kernel_start)
		pr_warn("kernel image not found in the symbol table: no kernel Image record\n");
	ntkl_build_id_find_kernel();
	ret = probes_init();
	if (ret)
		return ret;
	ret = register_module_notifier(&module_nb);
	if (ret)
		probes_exit();
	return ret;
}

void ntkl_image_exit(void)
{
	unregister_module_notifier(&module_nb);
	probes_exit();
}

const struct ntkl_producer ntkl_image_producer = {
	.name = "image",
	.init = ntkl_image_init,
	.exit = ntkl_image_exit,
	.attach = image_attach,
	.detach = image_detach,
	.flush = image_flush,
	.rundown = image_rundown,
};
