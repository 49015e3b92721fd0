/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntkl internals shared by the module's files.
 */
#ifndef _NTKL_H
#define _NTKL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <asm/local.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "uapi/ntkl.h"
#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"
#include "transport/clock.h"

struct file;
struct task_struct;
struct cred;

/*
 * One buffer's bookkeeping. fill holds, in its low 31 bits, the next free
 * byte (the header's 0x48 included); the CLOSED bit freezes it when the
 * buffer is switched away from; the bits above count the buffer's
 * generations. committed counts bytes whose writers have finished: the
 * buffer is complete when committed equals fill's offset.
 *
 * The generation goes up each time the reader gives the buffer back. A
 * writer interrupted (by interrupts that write) for as long as its ring
 * takes to go round could otherwise find the offset it read on a buffer
 * filled, read and emptied meanwhile, and reserve there with the time it
 * read before, older than the records of the buffers in between: with
 * the generation its compare-and-swap fails and it starts again
 * (userspace/tests/test_nested_writers.c runs such interleavings).
 */
#define NTKL_FILL_OFFSET	(BIT(31) - 1)
#define NTKL_FILL_CLOSED	BIT(31)
#define NTKL_FILL_GENERATION	BIT(32)		/* local_t is a long: 64 bits */

struct ntkl_buffer {
	u8 *data;
	local_t fill;
	local_t committed;
	local_t records;		/* committed ones: the mapped reader's count */
	s64 sequence;			/* set when closed */
	u64 flush_clock;		/* clock value when closed */
	u32 overshoot;			/* CurrentOffset - SavedOffset when closed */
	u16 flags;			/* ETW_BUFFER_FLAG_* extra bits */
	bool hooked;			/* through the reader hook (once) */
	struct irq_work *wake;		/* the logger's: wakes its reader */
};

/*
 * One CPU's ring of buffers. head (the buffer being written) moves on this
 * CPU while writers may run; elsewhere only when none can (an offline
 * CPU's ring, a stopped or paused logger's last pass). tail (the next
 * buffer for the reader) moves in the reader, which resets a buffer before
 * giving it back; in buffering mode a writer that needs room also moves it
 * past the oldest closed buffer.
 */
struct ntkl_cpu_ring {
	struct ntkl_buffer *bufs;
	unsigned int nr;
	unsigned int cpu;
	unsigned int map_slot;		/* its first buffer's slot in a reader's mapping */
	local_t head;
	local_t tail;
	local_t lost_pending;		/* mark the next buffer EVENTS_LOST */
	local_t events_lost;
	local_t last_clock;		/* the latest record time here (u64) */
	unsigned int given;		/* buffers from tail a mapped reader holds */
};

struct ntkl_logger {
	struct kref ref;
	/*
	 * Its reader's two locks (control/device.c): read_lock makes one
	 * read() or NEXT_BUFFER at a time and is the only one held across a
	 * copy to user memory; lock guards the reader's state (header_read,
	 * read_count, held, pause) and is never held across a user copy or
	 * a wait, so close() and a dying reader always get it.
	 */
	struct mutex read_lock;		/* one reader call at a time */
	struct mutex lock;		/* the reader's state */
	u32 id;				/* index in the table */
	char name[NTKL_NAME_MAX];
	u8 instance_guid[16];

	/* settings */
	u32 buffer_size;		/* bytes */
	u32 min_buffers;
	u32 max_buffers;
	u32 nr_buffers;			/* allocated, all CPUs */
	u32 mode;
	u32 clock_type;
	u32 flush_timer;		/* as given */
	u32 enable_flags;
	struct perfinfo_groupmask groups; /* read by probes without locks */
	/* NTKL_MODE_OWNED: the file that started it (identity only; table lock) */
	const struct file *owner_file;
	/* who started it (control/access.c): a reference, put at release */
	const struct cred *owner;
	u32 stack_hooks;		/* NTKL_STACK_*: hooks whose stacks it walks */

	/* state */
	int accept;			/* AcceptNewEvents */
	u32 status;
	u64 start_time;			/* FILETIME */
	u64 start_clock;
	u64 perf_freq;
	u64 boot_time;			/* FILETIME */
	atomic64_t sequence;		/* buffers closed so far */
	atomic64_t buffers_written;	/* buffers handed to a reader */
	atomic64_t events_lost_extra;	/* losses outside the rings */
	atomic64_t stacks_truncated;	/* StackWalk events cut at the frame cap */

	/* buffers */
	unsigned int nr_rings;		/* nr_cpu_ids */
	struct ntkl_cpu_ring *rings;
	u8 *header;			/* the header buffer, buffer_size bytes */

	/* the bound reader's file: buffers numbered 1..N, header first */
	bool header_read;
	u64 read_count;
	bool paused;			/* a buffering-mode logger being saved */
	bool snapshot_read;		/* ... and its snapshot read whole */
	/*
	 * The buffers a mapped reader holds, oldest first: each one's ring
	 * (NULL: the header buffer). A ring's held buffers are its given
	 * ones from tail, in the order they were given.
	 */
	struct ntkl_cpu_ring *held[NTKL_NEXT_MAX_HELD];
	unsigned int held_first, held_count;

	/* reader */
	atomic_t readers;
	wait_queue_head_t wait;
	struct irq_work wake_work;
	struct delayed_work flush_work;
};

/* logger.c: the table and control operations */
int ntkl_logger_control(const struct file *file, unsigned int cmd, struct ntkl_properties *p);
void ntkl_logger_stop_owned(const struct file *file);
unsigned int ntkl_logger_list(struct ntkl_properties *props);
bool ntkl_logger_selected(const struct ntkl_logger *lg, const struct ntkl_properties *p);
void ntkl_logger_put(struct ntkl_logger *lg);
struct ntkl_logger *ntkl_logger_get_by_id(u32 id);
struct ntkl_logger *ntkl_logger_get_by_name(const char *name);
void ntkl_logger_fill(struct ntkl_logger *lg, struct ntkl_properties *p);
void ntkl_logger_stop_all(void);
int ntkl_logger_set_stack_tracing(const struct ntkl_stack_tracing *st, const u16 *hooks);
int ntkl_logger_get_stack_tracing(struct ntkl_stack_tracing *st, u16 *hooks, u32 room);

/* access.c: who may do what (its top comment) */
bool ntkl_may_trace(void);
bool ntkl_may_set_global(void);
void ntkl_owner_set(struct ntkl_logger *lg);
void ntkl_owner_put(struct ntkl_logger *lg);
int ntkl_may_manage(const struct ntkl_logger *lg);
u32 ntkl_owner_uid(const struct ntkl_logger *lg);

/* buffers.c */
int ntkl_buffers_alloc(struct ntkl_logger *lg);
void ntkl_buffers_free(struct ntkl_logger *lg);
void *ntkl_reserve(struct ntkl_logger *lg, unsigned int size,
		   struct ntkl_buffer **bufp, u64 *clock);
void *ntkl_reserve_at(struct ntkl_logger *lg, unsigned int size,
		      struct ntkl_buffer **bufp, u64 *clock);
void ntkl_flush_cpus(struct ntkl_logger *lg);

/*
 * A record reserved on buf is written: let the reader have it. The writer
 * of the last record of a buffer that another context closed meanwhile
 * (an interrupt's writer that found it full) completes it, so it wakes the
 * reader: a reader never polls for a buffer to complete.
 */
static inline void ntkl_commit(struct ntkl_buffer *buf, unsigned int size)
{
	long done;

	local_inc(&buf->records);
	smp_wmb();	/* the record's bytes before the count that publishes them */
	done = local_add_return(size, &buf->committed);
	if (unlikely((local_read(&buf->fill) & (NTKL_FILL_CLOSED | NTKL_FILL_OFFSET)) ==
		     (done | NTKL_FILL_CLOSED)))
		irq_work_queue(buf->wake);	/* NMI-safe */
}

u64 ntkl_events_lost(struct ntkl_logger *lg);
u32 ntkl_free_buffers(struct ntkl_logger *lg);
void ntkl_buffers_set_reader_hook(void (*hook)(u8 *data, u32 filled));
ssize_t ntkl_hold_buffer(struct ntkl_logger *lg, unsigned long *slot, u32 *records,
			 bool raw, bool keep);
void ntkl_buffers_release(struct ntkl_logger *lg);
void ntkl_buffers_release_oldest(struct ntkl_logger *lg, unsigned int n);
void ntkl_buffers_unhold_newest(struct ntkl_logger *lg, unsigned long slot);
u8 *ntkl_buffers_slot(struct ntkl_logger *lg, unsigned long slot);

/* device.c: the bound reader's next buffer where it lies (NEXT_BUFFER) */
long ntkl_reader_next(struct file *file, struct ntkl_next_buffer *nb, void __user *arg,
		      u32 usize);
/* ioctl.c: a struct's copy to user memory, by uapi/ntkl.h's size rule */
int ntkl_copy_out(void __user *arg, u32 usize, void *k, size_t ksize);

/* mapping.c: a bound reader's mmap() of its logger's buffers */
struct vm_area_struct;
int ntkl_mmap(struct file *file, struct vm_area_struct *vma);
unsigned long ntkl_map_stride(const struct ntkl_logger *lg);
bool ntkl_buffer_ready(struct ntkl_logger *lg);
void ntkl_buffers_final(struct ntkl_logger *lg);
void ntkl_buffers_pause(struct ntkl_logger *lg);
void ntkl_buffers_resume(struct ntkl_logger *lg);

/* header.c */
void ntkl_header_build(struct ntkl_logger *lg);
void ntkl_header_extension(const struct ntkl_logger *lg, struct etw_header_extension *ext);

/*
 * producers/process.c: process and thread events, rundown. Kernel threads
 * are threads of one process, System, whose id is kthreadd's (2 in the
 * initial pid namespace, where ntkl takes every id).
 */
#define NTKL_SYSTEM_PID		2
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

/* control/active_set.c: the running loggers, as probes see them */

/*
 * The switch probe's usual sets, each with a path of its own in which the
 * clock type and the form are constants (cswitch.c): one CSwitch logger,
 * or CompCS loggers only, all on the default clock (QPC).
 */
enum ntkl_switch_shape {
	NTKL_SWITCH_ANY,		/* any other set (none included) */
	NTKL_SWITCH_ONE_CSWITCH,	/* one CSwitch logger, on QPC */
	NTKL_SWITCH_COMPACT,		/* CompCS loggers only, all on QPC */
};

/*
 * Which loggers take CSwitch events and which take CompCS batches instead,
 * the clocks (BIT(clock type)) each kind uses, and the set's shape: worked
 * out by the CSwitch producer's publish hook (producers/cswitch.c), not
 * per switch.
 */
struct ntkl_cswitch_view {
	enum ntkl_switch_shape shape;
	unsigned int n_cswitch, n_compact;
	struct ntkl_logger *cswitch[NTKL_MAX_LOGGERS];
	struct ntkl_logger *compact[NTKL_MAX_LOGGERS];
	u32 cswitch_clocks;
	u32 compact_clocks;
	bool waking;			/* a logger takes ReadyThread */
};

struct ntkl_active_set {
	unsigned int n;
	struct ntkl_logger *loggers[NTKL_MAX_LOGGERS];
	/* filled by the producers' publish hooks (producers/producer.h) */
	struct ntkl_cswitch_view cs;
	bool spinlock;			/* a logger takes spin lock records */
	u32 isr_clocks;			/* BIT(clock type) of ISR loggers */
	u32 dpc_clocks;			/* ... of DPC (and TimerDPC) loggers */
};

extern struct ntkl_active_set __rcu *ntkl_active;

static inline struct ntkl_active_set *ntkl_active_set(void)
{
	return rcu_dereference_sched(ntkl_active);
}

/* The running loggers, for a probe (which runs with preemption off). */
static inline unsigned int ntkl_active_loggers(struct ntkl_logger ***loggers)
{
	struct ntkl_active_set *set = rcu_dereference_sched(ntkl_active);

	if (!set)
		return 0;
	*loggers = set->loggers;
	return set->n;
}

int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n);

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

/* control/ioctl.c */
long ntkl_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

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

/* format/redact.c: kernel addresses in records, hashed for most readers */
bool ntkl_reader_sees_addresses(void);
void ntkl_redact_register(void);

#endif /* _NTKL_H */
