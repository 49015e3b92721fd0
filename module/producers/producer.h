/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the transport and the logger table ask of the producers of events,
 * without knowing any event kind: each producer registers the hooks it
 * needs in producers.c's list, and control calls them all.
 *
 *   publish  a new set of running loggers is about to be published (a
 *            logger started, stopped, or changed its group masks): work
 *            out, once, what the producer's probes would otherwise work
 *            out on every event (for CSwitch: which loggers take CSwitch,
 *            which CompCS, on which clocks), and set up what its probes
 *            need (the profile's perf events). Runs before the set is
 *            seen, in process context; an error keeps the old set (the
 *            START or UPDATE fails with it), so a hook that may fail
 *            changes nothing when it does, and is listed after the hooks
 *            that cannot be undone (attaching probes early is harmless:
 *            they find no logger in the old set to write to).
 *   published the new set is the one every probe sees: let go of what
 *            the old set needed and the new one does not (the
 *            scheduler's probes). Process context, may sleep.
 *   flush    write out whatever the producer holds back (CompCS batches)
 *            to the loggers running now: before FLUSH and the flush timer
 *            close the buffers, and before the set of loggers changes.
 *   rundown  a logger has started (end false): write what it must begin
 *            with (the DCStart rundown); or it is stopping (end true):
 *            write what it must end with (the DCEnd rundown), while it
 *            still accepts events. Process context, may sleep. After
 *            every producer's, producers.c closes the rundown with
 *            RundownComplete, as Windows does.
 *
 * Which fields of a producer's records are kernel addresses is not a hook:
 * the event list says it (uapi/ntkl_event_list.h, kind KADDR).
 */
#ifndef _NTKL_PRODUCER_H
#define _NTKL_PRODUCER_H

#include <linux/types.h>

#include "ntkl.h"
#include "control/active_set.h"

struct task_struct;

struct ntkl_producer {
	const char *name;
	int (*publish)(struct ntkl_active_set *set);
	void (*published)(const struct ntkl_active_set *set);
	void (*flush)(void);
	void (*rundown)(struct ntkl_logger *lg, bool end);
};

extern const struct ntkl_producer ntkl_process_producer;
extern const struct ntkl_producer ntkl_cswitch_producer;
extern const struct ntkl_producer ntkl_spinlock_producer;
extern const struct ntkl_producer ntkl_image_producer;
extern const struct ntkl_producer ntkl_dpc_producer;
extern const struct ntkl_producer ntkl_profile_producer;
extern const struct ntkl_producer ntkl_sysconfig_producer;

/* producers.c: call one hook of every producer that has it */
int ntkl_producers_publish(struct ntkl_active_set *set);
void ntkl_producers_published(const struct ntkl_active_set *set);
void ntkl_producers_flush(void);
void ntkl_producers_start(struct ntkl_logger *lg);
void ntkl_producers_stop(struct ntkl_logger *lg);

/*
 * wrapper/tracepoints.c: every producer's probes on their tracepoints.
 * The rare events' probes are attached while the module is loaded; the
 * busy ones' in groups, only while a logger takes their events (attached
 * and detached by their producer's publish hook, which runs under the
 * table mutex), so that a loaded module with nothing to record costs the
 * scheduler nothing.
 */
enum ntkl_tp_group {
	NTKL_TP_SCHED,			/* sched_switch, cpu_idle: CSwitch, CompCS */
	NTKL_TP_WAKING,			/* sched_waking: ReadyThread */
	NTKL_TP_ISR,			/* irq handler entry/exit: ISR */
	NTKL_TP_DPC,			/* softirq, tasklet, timer, hrtimer: DPC, TimerDPC */
	NTKL_TP_GROUPS,
	NTKL_TP_ALWAYS = NTKL_TP_GROUPS,
};

int ntkl_probes_register(void);
void ntkl_probes_unregister(void);
int ntkl_probes_attach(enum ntkl_tp_group group);
void ntkl_probes_detach(enum ntkl_tp_group group);
int ntkl_probes_set(enum ntkl_tp_group group, bool on,
		    void (*prepare)(enum ntkl_tp_group group));
bool ntkl_probes_attached(enum ntkl_tp_group group);

/* producers/process.c: process and thread events, rundown */
struct linux_binprm;
void ntkl_probe_task_rename(void *data, struct task_struct *task, const char *comm);
void ntkl_probe_sched_process_fork(void *data, struct task_struct *parent,
				   struct task_struct *child);
void ntkl_probe_sched_process_exec(void *data, struct task_struct *p, pid_t old_pid,
				   struct linux_binprm *bprm);
void ntkl_probe_sched_process_exit(void *data, struct task_struct *p);

/* producers/image.c: Image events (LOADER) */
int ntkl_image_init(void);
void ntkl_image_exit(void);
void ntkl_image_new_process(struct ntkl_logger *lg, struct task_struct *p);

/* cswitch.c, ready_thread.c: the scheduler's events */
void ntkl_probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			     struct task_struct *next, unsigned int prev_state);
void ntkl_probe_cpu_idle(void *data, unsigned int state, unsigned int cpu);
void ntkl_probe_sched_waking(void *data, struct task_struct *p);

/* spinlock.c: sampled spin lock records */
struct irqaction;
void ntkl_spinlock_init(void);
void ntkl_probe_contention_begin(void *data, void *lock, unsigned int flags);
void ntkl_probe_contention_end(void *data, void *lock, int ret);
void ntkl_probe_irq_handler_entry(void *data, int irq, struct irqaction *action);
int ntkl_spinlock_set_config(const struct ntkl_spinlock_config *c);
void ntkl_spinlock_get_config(struct ntkl_spinlock_config *c);

/* dpc.c: ISR, DPC, TimerDPC (their tracepoints attached on demand) */
struct hrtimer;
struct tasklet_struct;
struct timer_list;
void ntkl_isr_entry(void *data, int irq, struct irqaction *action);
void ntkl_isr_exit(void *data, int irq, struct irqaction *action, int ret);
void ntkl_softirq_entry(void *data, unsigned int vec);
void ntkl_softirq_exit(void *data, unsigned int vec);
void ntkl_tasklet_entry(void *data, struct tasklet_struct *t, void *func);
void ntkl_tasklet_exit(void *data, struct tasklet_struct *t, void *func);
void ntkl_timer_entry(void *data, struct timer_list *timer, unsigned long baseclk);
void ntkl_timer_exit(void *data, struct timer_list *timer);
void ntkl_hrtimer_entry(void *data, struct hrtimer *timer, s64 *now);	/* ktime_t */
void ntkl_hrtimer_exit(void *data, struct hrtimer *timer);

/* profile.c: sampled profile, kernel-wide interval (100 ns units) */
int ntkl_profile_set_interval(u32 interval);
u32 ntkl_profile_get_interval(void);

#endif /* _NTKL_PRODUCER_H */
