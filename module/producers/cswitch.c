// SPDX-License-Identifier: GPL-2.0
/*
 * Context switches, the NT Kernel Logger's way: a CSwitch event
 * (WMI_CONTEXTSWAP, 0x0524) per switch for loggers with PERF_CONTEXT_SWITCH,
 * or, for loggers that also have PERF_COMPACT_CSWITCH, compact batches
 * (PERFINFO_CCSWAP_BUFFER, 0x0525) instead, one per CPU per clock type in
 * use, encoded by uapi/ntkl_ccswap.h.
 *
 * sched_switch runs with the run queue locked and interrupts off, and never
 * nests on a CPU, so each CPU's batches are only touched by this CPU's probe,
 * by a flush running on this CPU with interrupts off, or, once the CPU is
 * offline (it runs nothing then), by a flush holding the CPU hotplug lock.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>

#include "producers/ntsched.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"
#include "uapi/ntkl_ccswap.h"

struct cswitch_cpu {
	struct ccswap_batch batch[NTKL_CLOCK_CYCLE + 1];	/* by clock type */
	u32 cstate;			/* last C-state entered (power:cpu_idle) */
};

static DEFINE_PER_CPU(struct cswitch_cpu, cswitch_cpu);

/* The group of the scheduler's probes (producers/tracepoints.h). */
#define CSWITCH_TP_SCHED	1	/* sched_switch, cpu_idle: CSwitch, CompCS */

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
 * out by the publish hook below, not per switch: the producer's state in
 * each set of running loggers.
 */
struct cswitch_set {
	enum ntkl_switch_shape shape;
	unsigned int n_cswitch, n_compact;
	struct ntkl_logger *cswitch[NTKL_MAX_LOGGERS];
	struct ntkl_logger *compact[NTKL_MAX_LOGGERS];
	u32 cswitch_clocks;
	u32 compact_clocks;
};

static size_t cswitch_set_offset __ro_after_init;

static __always_inline struct cswitch_set *cswitch_set(const struct ntkl_active_set *set)
{
	return ntkl_set_state(set, cswitch_set_offset);
}

/* Write a batch to every compact logger on its clock, and start anew. */
static void emit_batch(const struct cswitch_set *v, struct ccswap_batch *b, u32 clock)
{
	struct ntkl_record rec __uninitialized;	/* set by ntkl_record_begin() */
	unsigned int i;
	u8 *p;

	for (i = 0; i < v->n_compact; i++) {
		struct ntkl_logger *lg = v->compact[i];

		if (lg->clock_type != clock)
			continue;
		p = ntkl_record_begin(lg, &rec, ETW_EVENT_COMPACT_CSWITCH, ccswap_payload_size(b));
		if (!p)
			continue;
		memcpy(p, &b->hdr, ccswap_payload_size(b));
		ntkl_record_end(&rec);
	}
	ccswap_reset(b);
}

/*
 * A CSwitch, then for a logger that walks CSwitch the new thread's stack
 * (walked once per switch, into *st, for the first such logger).
 */
static void write_cswitch(struct ntkl_logger *lg, const struct wmi_contextswap *cs,
			  u64 clock, struct task_struct *prev, struct task_struct *next,
			  struct ntkl_stack **st)
{
	struct ntkl_record rec __uninitialized;	/* set by ntkl_record_begin_at() */
	u64 time;
	u8 *p;

	p = ntkl_record_begin_at(lg, &rec, ETW_EVENT_CSWITCH, sizeof(*cs), clock);
	if (!p)
		return;
	memcpy(p, cs, sizeof(*cs));
	time = ntkl_record_perfinfo_time(p);
	ntkl_record_end(&rec);
	if (likely(!ntkl_stack_on(lg, NTKL_WALK_CSWITCH)))
		return;
	if (!*st)
		*st = ntkl_stack_switch(prev, next);
	if (*st)
		ntkl_stack_write(lg, *st, time);
}

/* What both forms need of one switch, worked out once. */
struct switch_info {
	struct nt_switch_out out;
	u32 old_tid;
	s8 old_priority;
	u32 wait_ticks;
};

static __always_inline void fill_cswitch(struct wmi_contextswap *cs, struct task_struct *prev,
					 struct task_struct *next, const struct switch_info *si)
{
	s8 new_priority = ntkl_nt_prio(next, next->prio);
	/* only priority inheritance makes prio differ from normal_prio */
	s8 boost = next->prio == next->normal_prio ? 0 :
		   new_priority - ntkl_nt_prio(next, next->normal_prio);

	cs->new_thread_id = ntkl_thread_id(next);
	cs->old_thread_id = si->old_tid;
	cs->new_thread_priority = new_priority;
	cs->old_thread_priority = si->old_priority;
	/* the C-state the CPU leaves, when the idle thread switches out */
	cs->previous_c_state = si->old_tid ? 0 : __this_cpu_read(cswitch_cpu.cstate);
	/* NewThreadPriorityDecrement: the boost the new thread will lose (PI) */
	cs->spare_byte = max_t(s8, boost, 0);
	cs->old_thread_wait_reason = si->out.wait_reason;
	/* version 4: bit 0 of this byte is OldThreadWaitMode */
	cs->old_thread_wait_mode = si->out.wait_mode;
	cs->old_thread_state = si->out.state;
	/* Linux's nearest thing to an ideal processor: where it wakes */
	cs->old_thread_ideal_processor = READ_ONCE(prev->wake_cpu);
	cs->new_thread_wait_time = si->wait_ticks;
	cs->old_thread_remaining_quantum = si->old_tid ? ntkl_nt_remaining_quantum(prev) : 0;
}

/*
 * The rare case (about 1 switch in 200): the batch is full, too old or out
 * of TidTable slots. Out of line, so that the usual case below is a few
 * tests and one packet, with no retry loop for the compiler to hoist the
 * encoding of every packet type out of.
 */
static noinline void restart_batch(const struct cswitch_set *v, struct ccswap_batch *b,
				   u32 clock, struct ccswap_switch sw, u64 tick)
{
	emit_batch(v, b, clock);
	ccswap_add(b, &sw, tick);	/* an empty batch takes any switch */
}

/*
 * The time of a switch on a logger's clock: t, when the set's loggers all
 * use one clock type (the usual case: then no array is indexed and the
 * probe keeps no stack array), else now[clock], each clock read once.
 */
static __always_inline u64 switch_time(u64 t, const u64 *now, u32 clock)
{
	return now ? now[clock] : t;
}

/* A switch as the compact encoder takes it. */
static __always_inline struct ccswap_switch
compact_switch(struct task_struct *prev, const struct switch_info *si, u64 time)
{
	struct ccswap_switch sw = {
		.time = time,
		.old_tid = si->old_tid,
		.old_state = si->out.state,
		.old_wait_reason = si->out.wait_reason,
		.old_priority = si->old_priority,
		/* the base differs from the current only under priority inheritance */
		.old_base_priority = prev->prio == prev->normal_prio ?
				     si->old_priority : ntkl_nt_prio(prev, prev->normal_prio),
		.new_wait_ticks = si->wait_ticks,
	};

	return sw;
}

/* Add a switch to this CPU's batch of one clock type. */
static __always_inline void add_compact(const struct cswitch_set *v, u32 clock,
					struct task_struct *prev, const struct switch_info *si,
					u64 time)
{
	struct ccswap_batch *b = this_cpu_ptr(&cswitch_cpu.batch[clock]);
	/* by value: its address never taken, it stays in registers */
	struct ccswap_switch sw = compact_switch(prev, si, time);
	u64 tick = get_jiffies_64();

	if (unlikely(ccswap_add(b, &sw, tick) != CCSWAP_ADDED))
		restart_batch(v, b, clock, sw, tick);
}

/*
 * What both forms need of one switch. prio and normal_prio are read plainly,
 * here and in fill_cswitch() and compact_switch(): sched_switch holds the
 * run queue's lock, without which neither changes for a task on it (prev,
 * next), so a plain read lets the compiler load each once.
 */
static __always_inline void get_switch_info(struct switch_info *si, bool preempt,
					    struct task_struct *prev, struct task_struct *next,
					    unsigned int prev_state)
{
	ntkl_nt_switch_out(prev, preempt, prev_state, &si->out);
	si->old_tid = ntkl_thread_id(prev);
	si->old_priority = ntkl_nt_prio(prev, prev->prio);
	si->wait_ticks = ntkl_nt_wait_ticks(next);
}

/*
 * write_cswitch() for the only CSwitch logger: the record filled in place,
 * and worked out once it is reserved, so that nothing of it is held across
 * the reservation (where it would be spilled to the stack and read back).
 */
static __always_inline void write_one_cswitch(struct ntkl_logger *lg, u64 clock, bool preempt,
					      struct task_struct *prev, struct task_struct *next,
					      unsigned int prev_state)
{
	struct ntkl_record rec __uninitialized;	/* set by ntkl_record_begin_at() */
	struct switch_info si __uninitialized;	/* filled before it is read */
	struct wmi_contextswap *cs;
	struct ntkl_stack *st;
	u64 time;

	cs = ntkl_begin_at_CSWITCH(lg, &rec, ETW_EVENT_CSWITCH, sizeof(*cs), clock);
	if (!cs)
		return;
	get_switch_info(&si, preempt, prev, next, prev_state);
	fill_cswitch(cs, prev, next, &si);
	time = ntkl_record_perfinfo_time((u8 *)cs);
	ntkl_record_end(&rec);
	if (likely(!ntkl_stack_on(lg, NTKL_WALK_CSWITCH)))
		return;
	st = ntkl_stack_switch(prev, next);
	if (st)
		ntkl_stack_write(lg, st, time);
}

/*
 * Several CSwitch loggers: the record built once on the stack and copied
 * into each. Out of line, so that its stack copy, whose address memcpy
 * takes, does not cost the usual switch a stack protector check; si by
 * value for the same reason.
 */
static noinline void write_cswitch_each(const struct cswitch_set *v,
					struct task_struct *prev, struct task_struct *next,
					struct switch_info si, u64 t, const u64 *now)
{
	struct ntkl_stack *st = NULL;
	struct wmi_contextswap cs;
	unsigned int i;

	fill_cswitch(&cs, prev, next, &si);
	for (i = 0; i < v->n_cswitch; i++)
		write_cswitch(v->cswitch[i], &cs,
			      switch_time(t, now, v->cswitch[i]->clock_type), prev, next, &st);
}

static __always_inline void write_compact(const struct cswitch_set *v, u64 t,
					  const u64 *now, struct task_struct *prev,
					  const struct switch_info *si)
{
	unsigned long clocks = v->compact_clocks;
	unsigned int clock;

	for_each_set_bit(clock, &clocks, NTKL_CLOCK_CYCLE + 1)
		add_compact(v, clock, prev, si, switch_time(t, now, clock));
}

/* Read each clock in clocks once: a switch has the same time in both forms. */
static __always_inline void read_clocks(u32 clocks, u64 *now)
{
	if (clocks & BIT(NTKL_CLOCK_QPC))
		now[NTKL_CLOCK_QPC] = ntkl_clock(NTKL_CLOCK_QPC);
	if (clocks & BIT(NTKL_CLOCK_SYSTEM))
		now[NTKL_CLOCK_SYSTEM] = ntkl_clock(NTKL_CLOCK_SYSTEM);
	if (clocks & BIT(NTKL_CLOCK_CYCLE))
		now[NTKL_CLOCK_CYCLE] = ntkl_clock(NTKL_CLOCK_CYCLE);
}

/*
 * One switch, for every logger of the set that takes CSwitch or CompCS;
 * its time is t on every logger's clock, or now[] by clock type. shape
 * is a constant where the caller knows the set's shape (the compiler
 * then drops the tests below for it), else NTKL_SWITCH_ANY.
 */
static __always_inline void record_switch(const struct cswitch_set *v,
					  enum ntkl_switch_shape shape, bool preempt,
					  struct task_struct *prev, struct task_struct *next,
					  unsigned int prev_state, u64 t, const u64 *now)
{
	/* filled by get_switch_info() before it is read */
	struct switch_info si __uninitialized;

	/*
	 * One CSwitch logger, the usual case: the record is built in its
	 * buffer, not built on the stack and copied in.
	 */
	if (shape == NTKL_SWITCH_ONE_CSWITCH ||
	    (shape == NTKL_SWITCH_ANY && v->n_cswitch == 1 && !v->compact_clocks)) {
		write_one_cswitch(v->cswitch[0],
				  switch_time(t, now, v->cswitch[0]->clock_type),
				  preempt, prev, next, prev_state);
		return;
	}
	get_switch_info(&si, preempt, prev, next, prev_state);
	if (shape == NTKL_SWITCH_COMPACT) {
		add_compact(v, NTKL_CLOCK_QPC, prev, &si, t);
		return;
	}
	if (v->n_cswitch)
		write_cswitch_each(v, prev, next, si, t, now);
	if (v->compact_clocks)
		write_compact(v, t, now, prev, &si);
}

/* Loggers on more than one clock type (rare): each clock read once. */
static noinline void record_switch_clocks(const struct cswitch_set *v, bool preempt,
					  struct task_struct *prev, struct task_struct *next,
					  unsigned int prev_state)
{
	/* not zeroed: a logger's clock is in the set's clocks, which are read */
	u64 now[NTKL_CLOCK_CYCLE + 1] __uninitialized;

	read_clocks(v->cswitch_clocks | v->compact_clocks, now);
	record_switch(v, NTKL_SWITCH_ANY, preempt, prev, next, prev_state, 0, now);
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct ntkl_active_set *set = ntkl_active_set();
	const struct cswitch_set *v;
	u32 clocks;

	if (!set)
		return;
	v = cswitch_set(set);
	/* the usual sets: the clock type and the form known here */
	switch (v->shape) {
	case NTKL_SWITCH_ONE_CSWITCH:
		record_switch(v, NTKL_SWITCH_ONE_CSWITCH, preempt, prev, next, prev_state,
			      ntkl_clock_qpc(), NULL);
		return;
	case NTKL_SWITCH_COMPACT:
		record_switch(v, NTKL_SWITCH_COMPACT, preempt, prev, next, prev_state,
			      ntkl_clock_qpc(), NULL);
		return;
	case NTKL_SWITCH_ANY:
		break;
	}
	clocks = v->cswitch_clocks | v->compact_clocks;
	/* one clock type for every logger: one reading */
	if (is_power_of_2(clocks))
		record_switch(v, NTKL_SWITCH_ANY, preempt, prev, next, prev_state,
			      ntkl_clock(__ffs(clocks)), NULL);
	else if (clocks)
		record_switch_clocks(v, preempt, prev, next, prev_state);
}

static void probe_cpu_idle(void *data, unsigned int state, unsigned int cpu)
{
	if (state != PWR_EVENT_EXIT)
		__this_cpu_write(cswitch_cpu.cstate, state);
}

static void flush_this_cpu(void *unused)
{
	struct cswitch_cpu *cc = this_cpu_ptr(&cswitch_cpu);
	struct ntkl_active_set *set = ntkl_active_set();
	u32 clock;

	for (clock = NTKL_CLOCK_QPC; clock <= NTKL_CLOCK_CYCLE; clock++) {
		if (ccswap_empty(&cc->batch[clock]))
			continue;
		if (set)
			emit_batch(cswitch_set(set), &cc->batch[clock], clock);
		else
			ccswap_reset(&cc->batch[clock]);
	}
}

/*
 * An offline CPU's batches: what it switched after cswitch_cpu_down()
 * below wrote its batches out (the stopper that takes it down, its idle
 * thread), a few switches. No CPU can write them: a record goes into the
 * ring of the CPU that writes it, whose number its buffer's header gives,
 * and this one writes nothing any more. So each such batch is one event
 * lost for every compact logger of its clock (the loggers it was made
 * for: a change of the set flushes first), and starts anew, so that none
 * of it reaches a logger started later, when the CPU comes back. A CPU
 * that comes back before any flush keeps its batch: the loggers it was
 * made for still run and get it, with what the CPU switches next. The
 * CPU hotplug lock held: cpu is down, not on its way, and runs nothing.
 */
static void drop_offline_cpu(const struct ntkl_active_set *set, unsigned int cpu)
{
	struct cswitch_cpu *cc = per_cpu_ptr(&cswitch_cpu, cpu);
	const struct cswitch_set *v = set ? cswitch_set(set) : NULL;
	unsigned int i;
	u32 clock;

	for (clock = NTKL_CLOCK_QPC; clock <= NTKL_CLOCK_CYCLE; clock++) {
		if (ccswap_empty(&cc->batch[clock]))
			continue;
		for (i = 0; v && i < v->n_compact; i++)
			if (v->compact[i]->clock_type == clock)
				atomic64_inc(&v->compact[i]->events_lost_extra);
		ccswap_reset(&cc->batch[clock]);
	}
}

/*
 * Write out every CPU's batches to the loggers running now: before FLUSH
 * or the flush timer closes the buffers, so a reader gets every switch
 * recorded so far, and before the set of loggers changes, so that no
 * switch is left behind and none reaches a logger started after it. An
 * IPI reaches online CPUs only: an offline CPU's batches were written as
 * it went down (cswitch_cpu_down()), and what it switched after is
 * counted lost (drop_offline_cpu()). The CPU hotplug lock keeps each CPU
 * online or offline meanwhile.
 */
static void cswitch_flush(void)
{
	struct ntkl_active_set *set;
	unsigned int cpu;

	cpus_read_lock();
	on_each_cpu(flush_this_cpu, NULL, 1);
	rcu_read_lock_sched();
	set = ntkl_active_set();
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			drop_offline_cpu(set, cpu);
	rcu_read_unlock_sched();
	cpus_read_unlock();
}

/*
 * CPU hotplug. A flush's IPI reaches online CPUs only, and a CPU's batches
 * may be written on that CPU only (into its own ring), so a CPU going
 * offline writes them out itself, to the loggers running now, in the
 * teardown of a CPUHP_AP_ONLINE_DYN state: it runs on the outgoing CPU, in
 * its hotplug thread, once its tasks have moved away (CPUHP_AP_ACTIVE is
 * torn down before it), as late there as a module's callback can run. The
 * few switches the CPU makes after it are counted lost by the next flush
 * (drop_offline_cpu()); counting the whole batch lost there instead would
 * lose up to a batch of switches (a few hundred) each time a CPU
 * goes down. Interrupts off: no switch and no flush on this CPU meanwhile.
 * Set up at load, not with the probes: it costs a switch nothing, and
 * START has one way less to fail.
 */
static int cswitch_hp_state;

static int cswitch_cpu_down(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	flush_this_cpu(NULL);
	local_irq_restore(flags);
	return 0;
}

static int cswitch_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "ntkl/cswitch:online",
					NULL, cswitch_cpu_down);
	if (ret < 0)
		return ret;
	cswitch_hp_state = ret;
	return 0;
}

static void cswitch_exit(void)
{
	cpuhp_remove_state_nocalls(cswitch_hp_state);
}

/* The group mask bits that choose CSwitch (CSWITCH) or CompCS (both). */
static bool wants_compact(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_CSWITCH) &&
	       ntkl_event_on(lg, ETW_EVENT_COMPACT_CSWITCH);
}

static bool wants_cswitch(const struct ntkl_logger *lg)
{
	return ntkl_event_on(lg, ETW_EVENT_CSWITCH) &&
	       !ntkl_event_on(lg, ETW_EVENT_COMPACT_CSWITCH);
}

/*
 * The switch probes are attached while a logger takes their events, and
 * only then: sched_switch and cpu_idle for CSwitch and CompCS (and
 * sched_waking for ReadyThread, ready_thread.c). A loaded ntkl with
 * nothing to record adds nothing to a context switch (with them attached
 * and no logger, about 65 instructions a switch: the calls and a test of
 * an empty set).
 */
static void prepare_group(unsigned int group)
{
	int cpu;

	/* no cpu_idle probe runs now: a C-state left from before is stale */
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&cswitch_cpu, cpu)->cstate = 0;
}

/* Does a logger of set take switches, in either form? */
static bool set_switches(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_CSWITCH))	/* either form */
			return true;
	return false;
}

/* Attached before the set is seen: a new logger misses no event. */
static int cswitch_attach(const struct ntkl_active_set *set)
{
	if (set_switches(set))
		return ntkl_tp_set(&ntkl_cswitch_producer, CSWITCH_TP_SCHED, true, prepare_group);
	return 0;
}

/* Which loggers take which form, on which clocks: once per set, not per switch. */
static void cswitch_publish(struct ntkl_active_set *set)
{
	struct cswitch_set *cs = cswitch_set(set);
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		struct ntkl_logger *lg = set->loggers[i];

		if (wants_cswitch(lg)) {
			cs->cswitch[cs->n_cswitch++] = lg;
			cs->cswitch_clocks |= BIT(lg->clock_type);
		} else if (wants_compact(lg)) {
			cs->compact[cs->n_compact++] = lg;
			cs->compact_clocks |= BIT(lg->clock_type);
		}
	}
	if (cs->n_cswitch == 1 && !cs->n_compact && cs->cswitch_clocks == BIT(NTKL_CLOCK_QPC))
		cs->shape = NTKL_SWITCH_ONE_CSWITCH;
	else if (!cs->n_cswitch && cs->compact_clocks == BIT(NTKL_CLOCK_QPC))
		cs->shape = NTKL_SWITCH_COMPACT;
}

/* Detached once no probe reads the old set: a leaving logger misses no event either. */
static void cswitch_detach(const struct ntkl_active_set *set)
{
	if (!set_switches(set))
		ntkl_tp_set(&ntkl_cswitch_producer, CSWITCH_TP_SCHED, false, NULL);
}

/* The exit (cpu_idle's C-state) before the first switch out of idle needs it. */
static struct ntkl_tp cswitch_tps[] = {
	NTKL_TP(cpu_idle, CSWITCH_TP_SCHED, "CSwitch PreviousCState is 0"),
	NTKL_TP(sched_switch, CSWITCH_TP_SCHED, NULL),
};

const struct ntkl_producer ntkl_cswitch_producer = {
	.name = "cswitch",
	.init = cswitch_init,
	.exit = cswitch_exit,
	.tps = cswitch_tps,
	.nr_tps = ARRAY_SIZE(cswitch_tps),
	.set_size = sizeof(struct cswitch_set),
	.set_offset = &cswitch_set_offset,
	.attach = cswitch_attach,
	.publish = cswitch_publish,
	.detach = cswitch_detach,
	.flush = cswitch_flush,
};
