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
 * endbr64, which sprint_symbol() names); all are released together. The
 * same for ia32 and x32 calls, from <asm/syscalls_32.h> and
 * <asm/syscalls_x32.h>, which the kernel runs them by (routine_of()). The
 * 850 or so names cost the first SYSCALL logger's start after load 1.5 s
 * on 6.1 and 1.8 s on 6.12 in the TCG test VM, once. A number with no routine
 * found, and a call a tracer skipped (number -1), have SysCallAddress 0.
 * docs/linux-to-nt.md ("System calls") says what else differs from
 * Windows.
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

/*
 * The routine of each system call, by name, from the kernel's own lists:
 * one per ABI, each as the kernel's entry code names it (<asm/syscall_wrapper.h>):
 * 64-bit calls __x64_sys_*; ia32 calls (a 32-bit task's int 0x80, sysenter,
 * syscall) __ia32_sys_*, or __ia32_compat_sys_* where the call has a
 * compat form; x32 calls the 64-bit routines, or __x64_compat_sys_*.
 */
struct syscall_name {
	unsigned int nr;
	const char *name;
};

#define __SYSCALL(nr, sym)		{ nr, "__x64_" #sym },
#define __SYSCALL_NORETURN(nr, sym)	{ nr, "__x64_" #sym },
static const struct syscall_name x64_names[] = {
#include <asm/syscalls_64.h>
};

#ifdef CONFIG_X86_X32_ABI
static const struct syscall_name x32_names[] = {
#include <asm/syscalls_x32.h>
};
#endif
#undef __SYSCALL
#undef __SYSCALL_NORETURN

#ifdef CONFIG_IA32_EMULATION
#define __SYSCALL(nr, sym)			{ nr, "__ia32_" #sym },
#define __SYSCALL_NORETURN(nr, sym)		{ nr, "__ia32_" #sym },
#define __SYSCALL_WITH_COMPAT(nr, native, compat)	{ nr, "__ia32_" #compat },
static const struct syscall_name ia32_names[] = {
#include <asm/syscalls_32.h>
};

#undef __SYSCALL
#undef __SYSCALL_NORETURN
#undef __SYSCALL_WITH_COMPAT
#endif

/* Their addresses, by number, found once (syscall_resolve()) before a probe reads them. */
static u64 x64_routine[NR_syscalls];
#ifdef CONFIG_IA32_EMULATION
static u64 ia32_routine[IA32_NR_syscalls];
#endif
#ifdef CONFIG_X86_X32_ABI
static u64 x32_routine[X32_NR_syscalls];
#endif

struct syscall_abi {
	const char *what;
	const struct syscall_name *names;
	unsigned int count;
	u64 *routine;
	unsigned int nr;		/* numbers routine[] holds */
};

#define SYSCALL_ABI(what, abi) \
	{ what, abi##_names, ARRAY_SIZE(abi##_names), abi##_routine, ARRAY_SIZE(abi##_routine) }
static const struct syscall_abi syscall_abis[] = {
	SYSCALL_ABI("64-bit", x64),
#ifdef CONFIG_IA32_EMULATION
	SYSCALL_ABI("ia32", ia32),
#endif
#ifdef CONFIG_X86_X32_ABI
	SYSCALL_ABI("x32", x32),
#endif
};

static bool syscall_resolved;
static DEFINE_MUTEX(syscall_lock);	/* the group's attachment, the lookup */

/*
 * The routine of call nr of the calling task's ABI: a 32-bit task's
 * calls are ia32's (its audit arch says so, as seccomp reads it), an x32
 * call is a 64-bit task's with __X32_SYSCALL_BIT set in its number. 0 for
 * a number with none (-1: a tracer skipped the call).
 */
static __always_inline u64 routine_of(long nr)
{
	if (nr < 0)
		return 0;
	if (syscall_get_arch(current) != AUDIT_ARCH_X86_64) {
#ifdef CONFIG_IA32_EMULATION
		if (nr < IA32_NR_syscalls)
			return ia32_routine[nr];
#endif
		return 0;
	}
	if (nr & __X32_SYSCALL_BIT) {
#ifdef CONFIG_X86_X32_ABI
		nr &= ~__X32_SYSCALL_BIT;
		if (nr < X32_NR_syscalls)
			return x32_routine[nr];
#endif
		return 0;
	}
	return nr < NR_syscalls ? x64_routine[nr] : 0;
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
		.syscall_address = routine_of(id),
	};
	struct ntkl_logger **loggers;
	unsigned int n;

	preempt_disable_notrace();
	n = ntkl_active_loggers(&loggers);
	ntkl_record_each_walked(loggers, n, ETW_EVENT_SYSCALL_ENTER, &p, sizeof(p),
				NTKL_WALK_SYSCALL_ENTER, NULL);
	preempt_enable_notrace();
}

/* A number past the end of its ABI's table: the kernel has no such call. */
static __always_inline bool beyond_table(long nr)
{
	if (nr < 0)
		return false;
	if (syscall_get_arch(current) != AUDIT_ARCH_X86_64)
		return nr >= IA32_NR_syscalls;
	if (nr & __X32_SYSCALL_BIT)
		return (nr & ~__X32_SYSCALL_BIT) >= X32_NR_syscalls;
	return nr >= NR_syscalls;
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
	if (beyond_table(nr))
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
 * The address of name if an ABI before abi, or an earlier number of abi,
 * already looked it up (many numbers are sys_ni_syscall; x32 shares most
 * of the 64-bit routines), else 0 with *seen false.
 */
static u64 looked_up(unsigned int abi, unsigned int i, const char *name, bool *seen)
{
	unsigned int a, j;

	for (a = 0; a <= abi; a++) {
		const struct syscall_abi *t = &syscall_abis[a];

		for (j = 0; j < (a < abi ? t->count : i); j++) {
			if (t->names[j].nr < t->nr && !strcmp(t->names[j].name, name)) {
				*seen = true;
				return t->routine[t->names[j].nr];
			}
		}
	}
	*seen = false;
	return 0;
}

/*
 * Every routine of every ABI's list, looked up in one pass: each name
 * once, the kprobes released together (one RCU grace period, not one a
 * name).
 */
static void syscall_resolve(void)
{
	unsigned int a, i, nr, n = 0, count = 0, missing = 0;
	struct kprobe *kps, **regd;
	bool seen;

	if (syscall_resolved)
		return;
	for (a = 0; a < ARRAY_SIZE(syscall_abis); a++)
		count += syscall_abis[a].count;
	kps = kvcalloc(count, sizeof(*kps), GFP_KERNEL);
	regd = kvcalloc(count, sizeof(*regd), GFP_KERNEL);
	if (!kps || !regd) {
		/* tried again at the next attach */
		pr_warn("ntkl: SYSCALL: no memory to look up the system calls: SysCallAddress is 0\n");
		goto out;
	}
	for (a = 0; a < ARRAY_SIZE(syscall_abis); a++) {
		const struct syscall_abi *t = &syscall_abis[a];

		for (i = 0; i < t->count; i++) {
			struct kprobe *kp = &kps[n];

			nr = t->names[i].nr;
			if (nr >= t->nr)
				continue;
			t->routine[nr] = looked_up(a, i, t->names[i].name, &seen);
			if (seen)
				continue;
			kp->symbol_name = t->names[i].name;
			kp->flags = KPROBE_FLAG_DISABLED;
			if (register_kprobe(kp)) {
				pr_debug("ntkl: SYSCALL: no %s\n", t->names[i].name);
				missing++;
				continue;
			}
			regd[n++] = kp;
			t->routine[nr] = function_start(kp);
			missing += !t->routine[nr];
			cond_resched();
		}
	}
	if (n)
		unregister_kprobes(regd, n);
	if (missing)
		pr_info("ntkl: SYSCALL: %u system call routines not found: their SysCallAddress is 0\n",
			missing);
	for (a = 0; a < ARRAY_SIZE(syscall_abis); a++) {
		const struct syscall_abi *t = &syscall_abis[a];
		unsigned int k = 0;

		for (nr = 0; nr < t->nr; nr++)
			k += !!t->routine[nr];
		pr_debug("ntkl: SYSCALL: %u of %u %s system call numbers resolved\n", k, t->nr,
			 t->what);
	}
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
