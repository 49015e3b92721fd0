// SPDX-License-Identifier: GPL-2.0
/*
 * Process and thread events, so that every thread in a trace has a process
 * and a name: Process v4 and Thread v3 records in the layouts of the real
 * NT Kernel Logger files (shared/etl-samples), and the rundown written at
 * logger start (DCStart) and stop (DCEnd).
 *
 * Linux to NT (docs/linux-to-nt.md): a thread id is the task's pid, a
 * process id its tgid; the idle tasks are the Idle process and its
 * threads, ids 0; kernel threads are the threads of one System process.
 * A process's user is the SID S-1-22-1-<uid> (Samba's mapping of Unix
 * users), its image name its comm, made whole from its executable's
 * file name when comm is that name cut, its command line its argv joined
 * by spaces.
 */
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "ntkl.h"
#include "producers/ntsched.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/producer.h"
#include "producers/tracepoints.h"

/* S-1-22-1-<uid>: revision 1, two sub-authorities, authority 22. */
#define UNIX_USER_SID_SIZE	(sizeof(struct etw_sid) + 2 * sizeof(u32))
#define SID_POINTER_PRESENT	1	/* readers skip the SID when this is 0 */

/* ExitStatus of a live process, as Windows writes it: STILL_ACTIVE. */
#define NT_STILL_ACTIVE		259

/*
 * A process's names as logged: the image name (its executable's file
 * name, up to NAME_MAX) and the command line (argv, at most
 * NTKL_CMDLINE_MAX - 1 bytes of it, arguments joined by spaces).
 */
#define NTKL_CMDLINE_MAX	1024
struct process_text {
	char name[NAME_MAX + 1];
	char exe[NAME_MAX + 1];		/* scratch: the executable's file name */
	char cmdline[NTKL_CMDLINE_MAX];
};

/* The probes' (they run with preemption off, in task context) */
static DEFINE_PER_CPU(struct process_text, probe_text);

/* Like the sched tracepoints: no task_lock, a torn name at worst. */
static void read_comm(char *comm, struct task_struct *t)
{
	memcpy(comm, t->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = 0;
}

/*
 * The image name: comm, the name Linux shows (exec sets it to the file
 * name run, a prctl or a thread may change it), but whole: a comm of 15
 * bytes that begins mm's executable's file name is that name cut, and
 * the file name is logged. mm is the task's, held by the caller or stable
 * because the task cannot exec meanwhile; NULL for a task without user
 * memory (a kernel thread, an exiting task).
 */
static void image_name(struct process_text *txt, struct task_struct *t, struct mm_struct *mm)
{
	struct file *exe;

	read_comm(txt->name, t);
	if (!mm || strlen(txt->name) < TASK_COMM_LEN - 1)
		return;
	txt->exe[0] = 0;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe)
		snprintf(txt->exe, sizeof(txt->exe), "%pD", exe);
	rcu_read_unlock();
	if (!strncmp(txt->exe, txt->name, TASK_COMM_LEN - 1))
		strscpy(txt->name, txt->exe, sizeof(txt->name));
}

/* len bytes of argv read into s: one line, arguments joined by spaces. */
static void cmdline_join(char *s, size_t len)
{
	size_t i;

	while (len && !s[len - 1])
		len--;
	for (i = 0; i < len; i++)
		if (!s[i])
			s[i] = ' ';
	s[len] = 0;
}

/* mm's argument area: its bounds, and how much of it is logged. */
static size_t cmdline_span(struct mm_struct *mm, unsigned long *start)
{
	unsigned long end;

	spin_lock(&mm->arg_lock);
	*start = mm->arg_start;
	end = mm->arg_end;
	spin_unlock(&mm->arg_lock);
	return end > *start ? min_t(unsigned long, end - *start, NTKL_CMDLINE_MAX - 1) : 0;
}

/*
 * The command line of t, whose mm the caller holds, from a context that
 * may sleep (the rundown): the argument pages are read as /proc/<pid>/cmdline
 * reads them, faulting them in if need be.
 */
static void read_cmdline(char *cmdline, struct task_struct *t, struct mm_struct *mm)
{
	unsigned long start;
	size_t len = cmdline_span(mm, &start);
	int got = len ? access_process_vm(t, start, cmdline, len, 0) : 0;

	cmdline_join(cmdline, got > 0 ? got : 0);
}

/*
 * The command line of the current process from a probe, which cannot
 * sleep: its own argument pages (exec has just written them; a fork's
 * parent has the child's), copied without faulting. Empty if a page is
 * not present, or for a task without user memory.
 */
static void probe_cmdline(char *cmdline)
{
	struct mm_struct *mm = current->mm;
	unsigned long start;
	size_t len = 0;

	if (mm && !(current->flags & PF_KTHREAD))
		len = cmdline_span(mm, &start);
	if (len && copy_from_user_nofault(cmdline, (const void __user *)start, len))
		len = 0;
	cmdline_join(cmdline, len);
}

/*
 * ExitStatus: STILL_ACTIVE but at Process End. There, the exit code as a
 * shell shows it: the status given to exit(), or 128 + the signal that
 * killed the process (NT has no signals). An exec's End (the old image
 * ends, the process lives on) is 0.
 */
static s32 nt_exit_status(enum etw_event_id id, struct task_struct *t)
{
	int code = READ_ONCE(t->exit_code);

	if (id != ETW_EVENT_PROCESS_END)
		return NT_STILL_ACTIVE;
	if (code & 0x7f)
		return 128 + (code & 0x7f);
	return (code >> 8) & 0xff;
}

/*
 * Process Start/End (SYSTEM64) and DCStart/DCEnd (PERFINFO64), version 4,
 * as in the real files: the image name and command line given.
 */
static void write_process(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t,
			  const char *name, const char *cmdline)
{
	size_t name_len = strnlen(name, NAME_MAX);
	size_t cmd_units = ntkl_utf16_len(cmdline, NTKL_CMDLINE_MAX);
	struct etw_process_v4 *proc;
	struct etw_sid_header *sidh;
	struct etw_sid *sid;
	struct ntkl_record rec;
	u8 *p;

	proc = ntkl_begin_PROCESS_V4(lg, &rec, id,
				     ETW_PROCESS_V4_FIXED_SIZE + sizeof(*sidh) +
				     UNIX_USER_SID_SIZE + name_len + 1 + (cmd_units + 1) * 2 +
				     2 * 2);
	if (!proc)
		return;
	p = (u8 *)proc;

	proc->unique_process_key = ntkl_process_id(t);
	proc->process_id = ntkl_process_id(t);
	rcu_read_lock();
	/* a kernel thread's child (a usermode helper) is System's */
	proc->parent_id = is_idle_task(t) ? 0 : ntkl_process_id(rcu_dereference(t->real_parent));
	rcu_read_unlock();
	proc->session_id = is_idle_task(t) ? 0 : task_session_nr_ns(t, &init_pid_ns);
	proc->exit_status = nt_exit_status(id, t);
	proc->directory_table_base = 0;
	proc->flags = 0;
	p += ETW_PROCESS_V4_FIXED_SIZE;

	sidh = (void *)p;
	sidh->sid_pointer = SID_POINTER_PRESENT;
	sidh->attributes = 0;
	sidh->pad = 0;
	p += sizeof(*sidh);

	sid = (void *)p;
	sid->revision = 1;
	sid->sub_authority_count = 2;
	memset(sid->identifier_authority, 0, sizeof(sid->identifier_authority));
	sid->identifier_authority[5] = 22;
	sid->sub_authority[0] = 1;
	sid->sub_authority[1] = from_kuid(&init_user_ns, task_uid(t));
	p += UNIX_USER_SID_SIZE;

	memcpy(p, name, name_len);
	p[name_len] = 0;
	p += name_len + 1;
	p += ntkl_put_utf16(p, cmdline, NTKL_CMDLINE_MAX);
	/* PackageFullName, ApplicationId: empty */
	memset(p, 0, 2 * 2);
	ntkl_record_end(&rec);
}

/* Process records describe user processes and System, not kernel threads. */
static bool has_process_record(struct task_struct *t)
{
	return !(t->flags & PF_KTHREAD) || task_pid_nr(t) == NTKL_SYSTEM_PID;
}

/*
 * The time CPU cpu has spent idle, in ns: what its idle thread has run.
 * The idle task's own stime does not count it (idle time is the CPU's,
 * in tick-sched or kcpustat, as /proc/stat reads it).
 */
static u64 cpu_idle_ns(unsigned int cpu)
{
	u64 us = get_cpu_idle_time_us(cpu, NULL);

	if (us != (u64)-1)
		return us * NSEC_PER_USEC;
	return kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE];
}

/*
 * Thread Start/End/DCStart/DCEnd, SYSTEM64 version 3, named name, on the
 * CPUs of affinity. A rundown record's header describes the thread it
 * lists, as Windows' do: its process and thread ids, and its kernel and
 * user times in ticks (the header's TimerResolution: a jiffy); an idle
 * thread's kernel time is its CPU's idle time.
 */
static void write_thread(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t,
			 const char *name, u64 affinity)
{
	u64 kernel_ns, user_ns;

	struct system_trace_header *h;
	struct etw_thread_v3 *th;
	struct ntkl_record rec;
	unsigned long stack;
	u8 *p;

	th = ntkl_begin_THREAD_V3(lg, &rec, id,
				  sizeof(*th) + (ntkl_utf16_len(name, TASK_COMM_LEN) + 1) * 2);
	if (!th)
		return;
	p = (u8 *)th;
	memset(th, 0, sizeof(*th));
	th->process_id = ntkl_process_id(t);
	th->thread_id = ntkl_thread_id(t);
	stack = is_idle_task(t) ? 0 : (unsigned long)READ_ONCE(t->stack);
	if (stack) {	/* its kernel stack (KADDR: hashed for restricted readers) */
		th->stack_base = stack + THREAD_SIZE;
		th->stack_limit = stack;
	}
	th->affinity = affinity;
	th->base_priority = ntkl_nt_base_priority(t);
	th->page_priority = 5;		/* MEMORY_PRIORITY_NORMAL */
	th->io_priority = 2;		/* IoPriorityNormal */
	ntkl_put_utf16(p + sizeof(*th), name, TASK_COMM_LEN);
	if (id == ETW_EVENT_THREAD_DC_START || id == ETW_EVENT_THREAD_DC_END) {
		/* every Thread event has a SYSTEM64 header, just before its payload */
		BUILD_BUG_ON(etw_events[ETW_EVENT_THREAD_DC_START].header_type !=
			     ETW_HEADER_TYPE_SYSTEM64 ||
			     etw_events[ETW_EVENT_THREAD_DC_END].header_type !=
			     ETW_HEADER_TYPE_SYSTEM64);
		h = (void *)(p - sizeof(*h));
		h->process_id = th->process_id;
		h->thread_id = th->thread_id;
		kernel_ns = READ_ONCE(t->stime);
		user_ns = READ_ONCE(t->utime);
		if (is_idle_task(t) && affinity && !(affinity & (affinity - 1))) {
			kernel_ns = cpu_idle_ns(__ffs64(affinity));
			user_ns = 0;
		}
		h->kernel_time = min_t(u64, div_u64(kernel_ns, TICK_NSEC), U32_MAX);
		h->user_time = min_t(u64, div_u64(user_ns, TICK_NSEC), U32_MAX);
	}
	ntkl_record_end(&rec);
}

/* A thread's record, with its comm as name. */
static void ntkl_write_thread(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t)
{
	char comm[TASK_COMM_LEN];

	read_comm(comm, t);
	write_thread(lg, id, t, comm, cpumask_bits(t->cpus_ptr)[0]);
}

/*
 * The Idle process and one idle thread per CPU, all with id 0, each on its
 * own CPU and named as Linux names it (swapper/N). Only CPU 0's idle task
 * (init_task) is within a module's reach; the others differ from it in
 * name and CPU alone, so init_task stands for them with those two set.
 */
static void rundown_idle(struct ntkl_logger *lg, bool end)
{
	char name[24];		/* room for any CPU number; logged up to TASK_COMM_LEN */
	unsigned int cpu;

	write_process(lg, end ? ETW_EVENT_PROCESS_DC_END : ETW_EVENT_PROCESS_DC_START,
		      &init_task, "Idle", "");
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "swapper/%u", cpu);
		write_thread(lg, end ? ETW_EVENT_THREAD_DC_END : ETW_EVENT_THREAD_DC_START,
			     &init_task, name, cpu < BITS_PER_LONG ? BIT_ULL(cpu) : 0);
	}
}

/*
 * One process of the rundown and its threads. With txt, g is referenced
 * and this may sleep: the image name and command line come from its
 * memory. Without (no memory for txt), it runs under RCU: comm and no
 * command line. A process that ended since it was listed is left out.
 */
static void rundown_process(struct ntkl_logger *lg, bool end, struct task_struct *g,
			    struct process_text *txt)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;
	char comm[TASK_COMM_LEN];

	if (!atomic_read(&g->signal->live))
		return;
	if (txt && has_process_record(g)) {
		mm = get_task_mm(g);
		if (mm) {
			image_name(txt, g, mm);
			read_cmdline(txt->cmdline, g, mm);
			mmput(mm);
		} else {
			read_comm(txt->name, g);
			txt->cmdline[0] = 0;
		}
	}
	if (has_process_record(g)) {
		read_comm(comm, g);
		preempt_disable();
		write_process(lg, end ? ETW_EVENT_PROCESS_DC_END : ETW_EVENT_PROCESS_DC_START, g,
			      g->flags & PF_KTHREAD ? "System" : txt ? txt->name : comm,
			      txt ? txt->cmdline : "");
		preempt_enable();
	}
	rcu_read_lock();
	for_each_thread(g, t) {
		preempt_disable();
		ntkl_write_thread(lg, end ? ETW_EVENT_THREAD_DC_END : ETW_EVENT_THREAD_DC_START, t);
		preempt_enable();
	}
	rcu_read_unlock();
}

/*
 * Every process, referenced, so that the rundown can sleep between them;
 * NULL if memory is short. *n gets how many.
 */
static struct task_struct **list_processes(unsigned int *n)
{
	struct task_struct **list, *g;
	unsigned int room = 0, i;
	int tries;

	for (tries = 0; tries < 3; tries++) {
		rcu_read_lock();
		for_each_process(g)
			room++;
		rcu_read_unlock();
		room += 64;
		list = kvmalloc_array(room, sizeof(*list), GFP_KERNEL);
		if (!list)
			return NULL;
		i = 0;
		rcu_read_lock();
		for_each_process(g) {
			if (i == room)
				break;
			get_task_struct(g);
			list[i++] = g;
		}
		rcu_read_unlock();
		if (i < room) {
			*n = i;
			return list;
		}
		while (i)	/* more processes came meanwhile than room was left for */
			put_task_struct(list[--i]);
		kvfree(list);
	}
	return NULL;
}

/*
 * DCStart (at start) or DCEnd (at stop) for every process and thread
 * (producers.c closes the whole rundown with RundownComplete). Runs in
 * process context and may sleep between records, to read processes'
 * memory; each record is written with preemption off, as the per-CPU
 * buffers require.
 */
static void rundown(struct ntkl_logger *lg, bool end)
{
	struct process_text *txt = kmalloc(sizeof(*txt), GFP_KERNEL);
	struct task_struct **list = NULL, *g;
	unsigned int i, n = 0;

	preempt_disable();
	rundown_idle(lg, end);
	preempt_enable();

	if (txt)
		list = list_processes(&n);
	if (!list) {		/* short of memory: no sleeping, no command lines */
		rcu_read_lock();
		for_each_process(g)
			rundown_process(lg, end, g, NULL);
		rcu_read_unlock();
	}
	for (i = 0; i < n; i++) {
		rundown_process(lg, end, list[i], txt);
		put_task_struct(list[i]);
		cond_resched();
	}
	kvfree(list);
	kfree(txt);
}

/*
 * Process and thread Start/End as they happen (PERF_PROCESS, PERF_THREAD).
 * A new process (a kernel thread is a thread of System) starts with its
 * parent's image and arguments: the child's memory is a copy of the
 * parent's, which is current here.
 */
static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	bool proc = thread_group_leader(child) && has_process_record(child);
	struct process_text *txt = NULL;

	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (proc && ntkl_event_on(lg, ETW_EVENT_PROCESS_START)) {
			if (!txt) {
				txt = this_cpu_ptr(&probe_text);
				image_name(txt, child, child->mm);
				probe_cmdline(txt->cmdline);
			}
			write_process(lg, ETW_EVENT_PROCESS_START, child, txt->name, txt->cmdline);
		}
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_START))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_START, child);
		if (thread_group_leader(child))
			ntkl_image_new_process(lg, child);
	}
}

/*
 * NT has no exec: the old image's process ends and a new one starts with
 * the same id, so tools show the new program's name from here on. The
 * End is written when exec renames the task (below), the last moment the
 * old name is known; the Start here, with the new executable's name and
 * arguments (in the task's own memory, which exec has just filled).
 */
static void probe_sched_process_exec(void *data, struct task_struct *p, pid_t old_pid,
				     struct linux_binprm *bprm)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	struct process_text *txt = NULL;

	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (ntkl_event_on(lg, ETW_EVENT_PROCESS_START)) {
			if (!txt) {
				txt = this_cpu_ptr(&probe_text);
				image_name(txt, p, p->mm);
				probe_cmdline(txt->cmdline);
			}
			write_process(lg, ETW_EVENT_PROCESS_START, p, txt->name, txt->cmdline);
		}
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_START))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_START, p);
		ntkl_image_new_process(lg, p);
	}
}

/*
 * exec renames the task (after the point of no return, before
 * sched_process_exec): the old image's Thread and Process End, named by
 * the old comm, its only name left (exec has already replaced its memory).
 * Renames outside exec (prctl, /proc/<pid>/comm) write nothing.
 */
static void probe_task_rename(void *data, struct task_struct *task, const char *comm)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n;
	char old[TASK_COMM_LEN];

	if (task != current || !current->in_execve || !has_process_record(task))
		return;
	n = ntkl_active_loggers(&loggers);
	read_comm(old, task);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_END))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_END, task);
		if (ntkl_event_on(lg, ETW_EVENT_PROCESS_END))
			write_process(lg, ETW_EVENT_PROCESS_END, task, old, "");
	}
}

/*
 * A thread ends; with the last one, its process, named by comm: the
 * process's memory is gone when the kernel reports the exit.
 */
static void probe_sched_process_exit(void *data, struct task_struct *p)
{
	/* do_exit() has already counted this thread out of signal->live */
	bool group_dead = !atomic_read(&p->signal->live) && has_process_record(p);
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, p);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_END))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_END, p);
		if (group_dead && ntkl_event_on(lg, ETW_EVENT_PROCESS_END))
			write_process(lg, ETW_EVENT_PROCESS_END, p, comm, "");
	}
}

static struct ntkl_tp process_tps[] = {
	NTKL_TP(sched_process_fork, NTKL_TP_ALWAYS, NULL),
	NTKL_TP(sched_process_exec, NTKL_TP_ALWAYS, NULL),
	NTKL_TP(sched_process_exit, NTKL_TP_ALWAYS, NULL),
	NTKL_TP(task_rename, NTKL_TP_ALWAYS,
		"no Process End for the image an exec replaces"),
};

const struct ntkl_producer ntkl_process_producer = {
	.name = "process",
	.tps = process_tps,
	.nr_tps = ARRAY_SIZE(process_tps),
	.rundown = rundown,
};
