// SPDX-License-Identifier: GPL-2.0
/*
 * SysClEnter (0x0F33) and SysClExit (0x0F34), PERF_SYSCALL
 * (EVENT_TRACE_FLAG_SYSTEMCALL): every system call as it begins and as it
 * returns, from raw_syscalls:sys_enter and sys_exit, written by the
 * calling thread on its own CPU (PERFINFO64 headers carry no thread: as
 * on Windows, a reader takes the thread running on the CPU then).
 *
 *   SysCallAddress   the routine the kernel calls for the number
 *                    (__x64_sys_read for 0), as the kernel's PDB names it
 *   SysCallNtStatus  the return value, an errno mapped to the NTSTATUS
 *                    Windows would return (format/ntstatus.h); a number
 *                    with no call, STATUS_INVALID_SYSTEM_SERVICE
 *
 * The kernel's table of routines (sys_call_table) is not exported, and
 * neither is kallsyms' lookup by name; the names are: the kernel's own
 * generated <asm/syscalls_64.h> lists the routine of each number, as the
 * kernel builds its table from it. Each name is looked up once, at the
 * first attach, through kprobes' lookup (a kprobe registered disabled,
 * never armed, its address read, less the offset kprobes adds past an
 * endbr64, which sprint_symbol() names); all are released together. It
 * costs the first SYSCALL logger's start about half a second on 6.1 under
 * TCG (whose kallsyms looks each name up by a walk of every symbol).
 * A number with no routine found, a 32-bit (ia32) or x32 call, and a call
 * a tracer skipped (number -1) have SysCallAddress 0. docs/linux-to-nt.md
 * ("System calls") says what else differs from Windows.
 *
 * Both tracepoints fire on every system call of every thread, and
 * attaching the first probe makes every thread take the slow path into
 * and out of the kernel (TIF_SYSCALL_TRACEPOINT): they are attached only
 * while a running logger takes SYSCALL (the attach and detach hooks).
 */
#include <linux/audit.h>
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <trace/events/syscalls.h>

#include "format/ntstatus.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"

/* The routine of each 64-bit system call, by name, from the kernel's own list. */
struct syscall_name {
	unsigned int nr;
	const char *name;
};

#define __SYSCALL(nr, sym)		{ nr, "__x64_" #sym },
#define __SYSCALL_NORETURN(nr, sym)	{ nr, "__x64_" #sym },
static const struct syscall_name syscall_names[] = {
#include <asm/syscalls_64.h>
};

#undef __SYSCALL
#undef __SYSCALL_NORETURN

/* Their addresses, by number, found once (syscall_resolve()) before a probe reads them. */
static u64 syscall_routine[NR_syscalls];
static bool syscall_resolved;
static DEFINE_MUTEX(syscall_lock);	/* the group's attachment, the lookup */

static __always_inline bool native_call(long nr)
{
	return nr >= 0 && nr < NR_syscalls && syscall_get_arch(current) == AUDIT_ARCH_X86_64;
}

/*
 * The probes disable preemption themselves: these tracepoints call them
 * with it off on 6.1 and 6.12, but later kernels make the system call
 * tracepoints faultable, calling probes preemptible; the set and the
 * per-CPU buffers need it off either way.
 */
static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct perfinfo_syscall_enter p = {
		.syscall_address = native_call(id) ? syscall_routine[id] : 0,
	};
	struct ntkl_logger **loggers;
	unsigned int n;

	preempt_disable_notrace();
	n = ntkl_active_loggers(&loggers);
	ntkl_record_each_walked(loggers, n, ETW_EVENT_SYSCALL_ENTER, &p, sizeof(p),
				NTKL_WALK_SYSCALL_ENTER, NULL);
	preempt_enable_notrace();
}

/*
 * A success may look negative (an address, a time): only -4095..-1 are
 * errnos. A number the kernel has no call for is Windows' invalid system
 * service (the kernel's ENOSYS).
 */
static __always_inline u32 exit_status(struct pt_regs *regs, long ret)
{
	long nr;

	if (!IS_ERR_VALUE(ret))
		return ETW_STATUS_SUCCESS;
	nr = syscall_get_nr(current, regs);
	if (nr >= NR_syscalls && syscall_get_arch(current) == AUDIT_ARCH_X86_64 &&
	    !(nr & __X32_SYSCALL_BIT))
		return ETW_STATUS_INVALID_SYSTEM_SERVICE;
	return ntkl_ntstatus(ret);
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct perfinfo_syscall_exit p = { .syscall_nt_status = exit_status(regs, ret) };
	struct ntkl_logger **loggers;
	unsigned int n;

	preempt_disable_notrace();
	n = ntkl_active_loggers(&loggers);
	ntkl_record_each_walked(loggers, n, ETW_EVENT_SYSCALL_EXIT, &p, sizeof(p),
				NTKL_WALK_SYSCALL_EXIT, NULL);
	preempt_enable_notrace();
}

#ifdef CONFIG_KPROBES
/*
 * The start of the function kp is on: its address less the offset kprobes
 * added past an endbr64 (sprint_symbol() names it, by whichever of the
 * function's aliases sorts first: __do_sys_getppid for __x64_sys_getppid).
 */
static u64 function_start(const struct kprobe *kp)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr = (unsigned long)kp->addr, off;
	const char *plus;

	sprint_symbol(sym, addr);
	plus = strchr(sym, '+');
	if (!plus || sscanf(plus + 1, "%lx", &off) != 1 || off > 16)
		return 0;
	return addr - off;
}

/*
 * Every routine of the list, looked up in one pass: each name once (many
 * numbers are sys_ni_syscall), the kprobes released together (one RCU
 * grace period, not one a name).
 */
static void syscall_resolve(void)
{
	const unsigned int count = ARRAY_SIZE(syscall_names);
	unsigned int i, j, nr, k, n = 0, missing = 0;
	struct kprobe *kps, **regd;

	if (syscall_resolved)
		return;
	kps = kvcalloc(count, sizeof(*kps), GFP_KERNEL);
	regd = kvcalloc(count, sizeof(*regd), GFP_KERNEL);
	if (!kps || !regd) {
		/* tried again at the next attach */
		pr_warn("ntkl: SYSCALL: no memory to look up the system calls: SysCallAddress is 0\n");
		goto out;
	}
	for (i = 0; i < count; i++) {
		nr = syscall_names[i].nr;
		if (nr >= NR_syscalls)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(syscall_names[j].name, syscall_names[i].name))
				break;
		if (j < i) {
			syscall_routine[nr] = syscall_routine[syscall_names[j].nr];
			continue;
		}
		kps[i].symbol_name = syscall_names[i].name;
		kps[i].flags = KPROBE_FLAG_DISABLED;
		if (register_kprobe(&kps[i])) {
			missing++;
			continue;
		}
		regd[n++] = &kps[i];
		syscall_routine[nr] = function_start(&kps[i]);
		missing += !syscall_routine[nr];
		cond_resched();
	}
	if (n)
		unregister_kprobes(regd, n);
	for (nr = 0, k = 0; nr < NR_syscalls; nr++)
		k += !!syscall_routine[nr];
	if (missing)
		pr_info("ntkl: SYSCALL: %u system call routines not found: their SysCallAddress is 0\n",
			missing);
	pr_debug("ntkl: SYSCALL: %u of %u system call numbers resolved\n", k, NR_syscalls);
	syscall_resolved = true;
out:
	kvfree(regd);
	kvfree(kps);
}
#else
static void syscall_resolve(void)
{
	if (!syscall_resolved)
		pr_info("ntkl: SYSCALL: no kprobes to look up the system calls: SysCallAddress is 0\n");
	syscall_resolved = true;
}
#endif

#define SYSCALL_TP	1

static bool syscall_taken(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_SYSCALL_ENTER) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_SYSCALL_EXIT))
			return true;
	return false;
}

/* Attached before the set is seen: a new logger misses no call. */
static int syscall_attach(const struct ntkl_active_set *set)
{
	int ret = 0;

	if (!syscall_taken(set))
		return 0;
	mutex_lock(&syscall_lock);
	if (!ntkl_tp_attached(&ntkl_syscall_producer, SYSCALL_TP)) {
		syscall_resolve();
		ret = ntkl_tp_set(&ntkl_syscall_producer, SYSCALL_TP, true, NULL);
	}
	mutex_unlock(&syscall_lock);
	return ret;
}

/* Detached once no probe reads a set that took them. */
static void syscall_detach(const struct ntkl_active_set *set)
{
	if (syscall_taken(set))
		return;
	mutex_lock(&syscall_lock);
	ntkl_tp_set(&ntkl_syscall_producer, SYSCALL_TP, false, NULL);
	mutex_unlock(&syscall_lock);
}

/* The exit before the entry (producers/tracepoints.h). */
static struct ntkl_tp syscall_tps[] = {
	NTKL_TP(sys_exit, SYSCALL_TP, "no SysClExit records"),
	NTKL_TP(sys_enter, SYSCALL_TP, "no SysClEnter records"),
};

const struct ntkl_producer ntkl_syscall_producer = {
	.name = "syscall",
	.tps = syscall_tps,
	.nr_tps = ARRAY_SIZE(syscall_tps),
	.attach = syscall_attach,
	.detach = syscall_detach,
};
