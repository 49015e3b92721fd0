// SPDX-License-Identifier: GPL-2.0
/*
 * Process and thread events, so that every thread in a trace has a process
 * and a name: Process v4 and Thread v3 records in the layouts of the real
 * NT Kernel Logger files (shared/etl-samples), and the rundown written at
 * logger start (DCStart) and stop (DCEnd).
 *
 * Linux to NT: a thread id is the task's pid, a process id its tgid; the
 * idle tasks are the Idle process and its threads, ids 0. A process's user
 * is given as the SID S-1-22-1-<uid> (Samba's mapping of Unix users), its
 * image name as the group leader's comm.
 */
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "ntkl.h"
#include "producers/ntsched.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/producer.h"

/* S-1-22-1-<uid>: revision 1, two sub-authorities, authority 22. */
#define UNIX_USER_SID_SIZE	(sizeof(struct etw_sid) + 2 * sizeof(u32))
#define SID_POINTER_PRESENT	1	/* readers skip the SID when this is 0 */

/* ExitStatus of a live process, as Windows writes it: STILL_ACTIVE. */
#define NT_STILL_ACTIVE		259

/* Like the sched tracepoints: no task_lock, a torn name at worst. */
static void read_comm(char *comm, struct task_struct *t)
{
	memcpy(comm, t->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = 0;
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
 * as in the real files. name is the image name to log.
 */
void ntkl_write_process(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t,
			const char *name)
{
	size_t name_len = strnlen(name, TASK_COMM_LEN);
	struct etw_process_v4 *proc;
	struct etw_sid_header *sidh;
	struct etw_sid *sid;
	struct ntkl_record rec;
	u8 *p;

	p = ntkl_record_begin(lg, &rec, id,
			      ETW_PROCESS_V4_FIXED_SIZE + sizeof(*sidh) + UNIX_USER_SID_SIZE +
			      name_len + 1 + 3 * 2);
	if (!p)
		return;

	proc = (void *)p;
	proc->unique_process_key = ntkl_process_id(t);
	proc->process_id = ntkl_process_id(t);
	rcu_read_lock();
	proc->parent_id = is_idle_task(t) ? 0 : task_tgid_nr(rcu_dereference(t->real_parent));
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
	/* CommandLine, PackageFullName, ApplicationId: empty */
	memset(p, 0, 3 * 2);
	ntkl_record_end(&rec);
}

/*
 * Thread Start/End/DCStart/DCEnd, SYSTEM64 version 3, named name, on the
 * CPUs of affinity. A rundown record's header describes the thread it
 * lists, as Windows' do: its process and thread ids, and its kernel and
 * user times in ticks (the header's TimerResolution: a jiffy).
 */
static void write_thread(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t,
			 const char *name, u64 affinity)
{
	struct system_trace_header *h;
	struct etw_thread_v3 *th;
	struct ntkl_record rec;
	u8 *p;

	p = ntkl_record_begin(lg, &rec, id,
			      sizeof(*th) + (ntkl_utf16_len(name, TASK_COMM_LEN) + 1) * 2);
	if (!p)
		return;
	th = (void *)p;
	memset(th, 0, sizeof(*th));
	th->process_id = ntkl_process_id(t);
	th->thread_id = ntkl_thread_id(t);
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
		h->kernel_time = min_t(u64, div_u64(READ_ONCE(t->stime), TICK_NSEC), U32_MAX);
		h->user_time = min_t(u64, div_u64(READ_ONCE(t->utime), TICK_NSEC), U32_MAX);
	}
	ntkl_record_end(&rec);
}

/* A thread's record, with its comm as name. */
void ntkl_write_thread(struct ntkl_logger *lg, enum etw_event_id id, struct task_struct *t)
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

	ntkl_write_process(lg, end ? ETW_EVENT_PROCESS_DC_END : ETW_EVENT_PROCESS_DC_START,
			   &init_task, "Idle");
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "swapper/%u", cpu);
		write_thread(lg, end ? ETW_EVENT_THREAD_DC_END : ETW_EVENT_THREAD_DC_START,
			     &init_task, name, cpu < BITS_PER_LONG ? BIT_ULL(cpu) : 0);
	}
}

/*
 * DCStart (at start) or DCEnd (at stop) for every process and thread
 * (producers.c closes the whole rundown with RundownComplete). Runs in process
 * context; each record is written with preemption off, as the per-CPU
 * buffers require.
 */
static void rundown(struct ntkl_logger *lg, bool end)
{
	enum etw_event_id proc_ev = end ? ETW_EVENT_PROCESS_DC_END : ETW_EVENT_PROCESS_DC_START;
	enum etw_event_id thread_ev = end ? ETW_EVENT_THREAD_DC_END : ETW_EVENT_THREAD_DC_START;
	struct task_struct *g, *t;
	char comm[TASK_COMM_LEN];

	preempt_disable();
	rundown_idle(lg, end);
	preempt_enable();

	rcu_read_lock();
	for_each_process(g) {
		preempt_disable();
		read_comm(comm, g);
		ntkl_write_process(lg, proc_ev, g, comm);
		preempt_enable();
		for_each_thread(g, t) {
			preempt_disable();
			ntkl_write_thread(lg, thread_ev, t);
			preempt_enable();
		}
	}
	rcu_read_unlock();
}

const struct ntkl_producer ntkl_process_producer = {
	.name = "process",
	.rundown = rundown,
};

/* Process and thread Start/End as they happen (PERF_PROCESS, PERF_THREAD). */
void ntkl_probe_sched_process_fork(void *data, struct task_struct *parent,
				   struct task_struct *child)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, child);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (thread_group_leader(child) && ntkl_event_on(lg, ETW_EVENT_PROCESS_START))
			ntkl_write_process(lg, ETW_EVENT_PROCESS_START, child, comm);
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_START))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_START, child);
		if (thread_group_leader(child))
			ntkl_image_new_process(lg, child);
	}
}

/*
 * NT has no exec: the old image's process ends and a new one starts with
 * the same id, so tools show the new program's name from here on.
 */
void ntkl_probe_sched_process_exec(void *data, struct task_struct *p, pid_t old_pid,
				   struct linux_binprm *bprm)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, p);
	for (i = 0; i < n; i++) {
		bool proc, thread;

		lg = loggers[i];
		proc = ntkl_event_on(lg, ETW_EVENT_PROCESS_START);
		thread = ntkl_event_on(lg, ETW_EVENT_THREAD_START);
		if (thread)
			ntkl_write_thread(lg, ETW_EVENT_THREAD_END, p);
		if (proc) {
			ntkl_write_process(lg, ETW_EVENT_PROCESS_END, p, comm);
			ntkl_write_process(lg, ETW_EVENT_PROCESS_START, p, comm);
		}
		if (thread)
			ntkl_write_thread(lg, ETW_EVENT_THREAD_START, p);
		ntkl_image_new_process(lg, p);
	}
}

void ntkl_probe_sched_process_exit(void *data, struct task_struct *p)
{
	/* do_exit() has already counted this thread out of signal->live */
	bool group_dead = !atomic_read(&p->signal->live);
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, p);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (ntkl_event_on(lg, ETW_EVENT_THREAD_END))
			ntkl_write_thread(lg, ETW_EVENT_THREAD_END, p);
		if (group_dead && ntkl_event_on(lg, ETW_EVENT_PROCESS_END))
			ntkl_write_process(lg, ETW_EVENT_PROCESS_END, p, comm);
	}
}
