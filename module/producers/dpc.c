// SPDX-License-Identifier: GPL-2.0
/*
 * ISR (0x0F43, PERF_INTERRUPT), DPC (0x0F44) and TimerDPC (0x0F45,
 * PERF_DPC): how long each interrupt handler, softirq, timer callback and
 * tasklet ran, written when it returns (the record's time) with the time
 * it was entered (InitialTime, in the logger's clock) and its routine.
 *
 *   ISR       irq:irq_handler_entry/exit: the irqaction's handler (its
 *             thread's function where that is the kernel's default one,
 *             as on PREEMPT_RT); Vector
 *             the Linux irq number (8 bits); ReturnValue the irqreturn_t
 *   DPC       irq:softirq_entry/exit: the vector's action (looked up once);
 *             irq:tasklet_entry/exit: the tasklet's function
 *   TimerDPC  timer:timer_expire_entry/exit (timer_list callbacks, in the
 *             TIMER softirq), timer:hrtimer_expire_entry/exit (hrtimer
 *             callbacks, mostly in the local timer interrupt)
 *
 * docs/linux-to-nt.md ("DPC/ISR") says what NT concept each stands for and
 * what is not covered.
 *
 * These tracepoints fire thousands of times a second. Their probes are
 * attached only while a running logger takes ISR or DPC events (the
 * attach and detach hooks below, one group of tracepoints for each
 * flag): with neither flag on, the softirq, tasklet and timer
 * tracepoints stay disabled static branches and cost what they cost
 * before ntkl. irq_handler_entry does not: the spin lock producer's
 * probe of it (its InterruptCount) is attached from load
 * (NTKL_TP_ALWAYS), so every interrupt costs that call and a per-CPU
 * increment while ntkl is loaded.
 *
 * Each CPU keeps a stack of entries in progress per group: a softirq is
 * interrupted by an interrupt, whose handler may run an hrtimer callback,
 * and each returns before the one it interrupted (NMIs fire none of
 * these). An entry takes its slot (the depth) before it fills it, so a
 * nested context never writes into it. An exit takes the innermost
 * entry of its own kind and key, dropping any above it whose exit was
 * never seen; an exit without an entry (the probes were attached between
 * the two) writes nothing. The stacks are emptied while no probe is
 * attached, before the group is attached again.
 */
#include <linux/cache.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/timer.h>
#include <trace/events/irq.h>
#include <trace/events/timer.h>

#include "format/record.h"
#include "producers/producer.h"
#include "producers/tracepoints.h"

/* The groups of probes (producers/tracepoints.h): one per flag. */
#define DPC_TP_ISR	1		/* irq handler entry/exit: ISR */
#define DPC_TP_DPC	2		/* softirq, tasklet, timer, hrtimer: DPC, TimerDPC */

#define DPC_NEST_MAX	8	/* deeper entries are counted, not stored */
#define NTKL_NR_CLOCKS	(NTKL_CLOCK_CYCLE + 1)

struct dpc_frame {
	const void *key;		/* what the exit names: irqaction, timer... */
	u64 routine;
	u64 start[NTKL_NR_CLOCKS];	/* entry, in each clock of clocks */
	u32 clocks;			/* BIT(clock type) read at entry */
	u16 event;			/* ETW_EVENT_ISR, _DPC, _TIMER_DPC */
	u8 vector;
};

struct dpc_stack {
	struct dpc_frame frame[DPC_NEST_MAX];
	unsigned int depth;		/* may exceed DPC_NEST_MAX: not stored */
};

static DEFINE_PER_CPU(struct dpc_stack, isr_stack);
static DEFINE_PER_CPU(struct dpc_stack, dpc_stack);

/* Each softirq vector's action, found once (resolve_softirq_actions()). */
static u64 softirq_action[NR_SOFTIRQS];
static bool softirq_resolved;
static DEFINE_MUTEX(dpc_lock);		/* attached groups, softirq_action */

static __always_inline void read_clocks(u32 clocks, u64 *start)
{
	if (clocks & BIT(NTKL_CLOCK_QPC))
		start[NTKL_CLOCK_QPC] = ntkl_clock(NTKL_CLOCK_QPC);
	if (clocks & BIT(NTKL_CLOCK_SYSTEM))
		start[NTKL_CLOCK_SYSTEM] = ntkl_clock(NTKL_CLOCK_SYSTEM);
	if (clocks & BIT(NTKL_CLOCK_CYCLE))
		start[NTKL_CLOCK_CYCLE] = ntkl_clock(NTKL_CLOCK_CYCLE);
}

static __always_inline void push(struct dpc_stack *st, u32 clocks, const void *key,
				 u64 routine, u16 event, u8 vector)
{
	unsigned int depth = READ_ONCE(st->depth);

	/*
	 * The slot is taken before it is filled: a context that interrupts
	 * the filling pushes above it (and pops back to it) instead of
	 * writing into it. Its exit finds its own entry above this one.
	 */
	WRITE_ONCE(st->depth, depth + 1);
	barrier();
	if (depth < DPC_NEST_MAX) {
		struct dpc_frame *f = &st->frame[depth];

		f->key = key;
		f->routine = routine;
		f->event = event;
		f->vector = vector;
		f->clocks = clocks;
		read_clocks(clocks, f->start);
	}
}

static __always_inline void write_one(struct ntkl_logger *lg, const struct dpc_frame *f,
				      u8 ret)
{
	struct ntkl_record rec;

	if (f->event == ETW_EVENT_ISR) {
		struct perfinfo_isr *p;

		p = ntkl_begin_ISR(lg, &rec, ETW_EVENT_ISR, ETW_ISR_SIZE);
		if (!p)
			return;
		p->initial_time = f->start[lg->clock_type];
		p->routine = f->routine;
		p->return_value = ret;
		p->vector = f->vector;
		p->reserved = 0;
	} else {
		struct perfinfo_dpc *p;

		p = ntkl_begin_DPC(lg, &rec, f->event, sizeof(*p));
		if (!p)
			return;
		p->initial_time = f->start[lg->clock_type];
		p->routine = f->routine;
	}
	ntkl_record_end(&rec);
}

static __always_inline void pop(struct dpc_stack *st, const void *key, u16 event, u8 ret)
{
	unsigned int depth = READ_ONCE(st->depth);
	struct ntkl_logger **loggers;
	struct dpc_frame f;
	unsigned int n, j;
	int i;

	if (!depth)
		return;		/* entered before the probes were attached */
	if (depth > DPC_NEST_MAX) {
		WRITE_ONCE(st->depth, depth - 1);
		ntkl_lost_each(event);
		return;
	}
	for (i = depth - 1; i >= 0; i--)
		if (st->frame[i].key == key && st->frame[i].event == event)
			break;
	if (i < 0)
		return;		/* its entry came before the probes */
	f = st->frame[i];
	barrier();	/* the entry is read before a nested context reuses it */
	WRITE_ONCE(st->depth, i);

	n = ntkl_active_loggers(&loggers);
	for (j = 0; j < n; j++) {
		struct ntkl_logger *lg = loggers[j];

		/* a logger that started after the entry has no InitialTime */
		if (ntkl_event_on(lg, event) && (f.clocks & BIT(lg->clock_type)))
			write_one(lg, &f, ret);
	}
}

/* In each set of running loggers: the clocks (BIT(clock type)) each kind uses. */
struct dpc_set {
	u32 isr_clocks;			/* of ISR loggers */
	u32 dpc_clocks;			/* of DPC (and TimerDPC) loggers */
};

static size_t dpc_set_offset __ro_after_init;

static __always_inline struct dpc_set *dpc_set(struct ntkl_active_set *set)
{
	return ntkl_set_state(set, dpc_set_offset);
}

static __always_inline u32 isr_clocks(void)
{
	struct ntkl_active_set *set = ntkl_active_set();

	return set ? dpc_set(set)->isr_clocks : 0;
}

static __always_inline u32 dpc_clocks(void)
{
	struct ntkl_active_set *set = ntkl_active_set();

	return set ? dpc_set(set)->dpc_clocks : 0;
}

/*
 * The kernel's own primary handler, irq_default_primary_handler(): what a
 * threaded interrupt's hard handler is when its driver gave none, and
 * every interrupt's where the kernel forces them into threads (PREEMPT_RT,
 * threadirqs). Found once, as the softirq actions are (below); 0 if not.
 */
static unsigned long default_primary;
static bool default_primary_resolved;

/*
 * An ISR's Routine is the driver's handler: where the hard handler is the
 * kernel's default one, which only wakes the interrupt's thread, the
 * thread's function, which does the driver's work (the record's times
 * stay the hard handler's).
 */
static void probe_irq_handler_entry(void *data, int irq, struct irqaction *action)
{
	unsigned long routine = (unsigned long)action->handler;

	if (routine == READ_ONCE(default_primary) && action->thread_fn)
		routine = (unsigned long)action->thread_fn;
	push(this_cpu_ptr(&isr_stack), isr_clocks(), action, routine, ETW_EVENT_ISR, (u8)irq);
}

static void probe_irq_handler_exit(void *data, int irq, struct irqaction *action, int ret)
{
	pop(this_cpu_ptr(&isr_stack), action, ETW_EVENT_ISR, (u8)ret);
}

/* Softirq vectors are keyed by their number (never a valid pointer). */
static const void *softirq_key(unsigned int vec)
{
	return (const void *)(unsigned long)(vec + 1);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	u64 routine = vec < NR_SOFTIRQS ? READ_ONCE(softirq_action[vec]) : 0;

	push(this_cpu_ptr(&dpc_stack), dpc_clocks(), softirq_key(vec), routine, ETW_EVENT_DPC,
	     0);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	pop(this_cpu_ptr(&dpc_stack), softirq_key(vec), ETW_EVENT_DPC, 0);
}

static void probe_tasklet_entry(void *data, struct tasklet_struct *t, void *func)
{
	push(this_cpu_ptr(&dpc_stack), dpc_clocks(), t, (unsigned long)func, ETW_EVENT_DPC, 0);
}

static void probe_tasklet_exit(void *data, struct tasklet_struct *t, void *func)
{
	pop(this_cpu_ptr(&dpc_stack), t, ETW_EVENT_DPC, 0);
}

/* The callback is read at entry: the timer may be freed by it. */
static void probe_timer_expire_entry(void *data, struct timer_list *timer, unsigned long baseclk)
{
	push(this_cpu_ptr(&dpc_stack), dpc_clocks(), timer, (unsigned long)timer->function,
	     ETW_EVENT_TIMER_DPC, 0);
}

static void probe_timer_expire_exit(void *data, struct timer_list *timer)
{
	pop(this_cpu_ptr(&dpc_stack), timer, ETW_EVENT_TIMER_DPC, 0);
}

static void probe_hrtimer_expire_entry(void *data, struct hrtimer *timer, ktime_t *now)
{
	push(this_cpu_ptr(&dpc_stack), dpc_clocks(), timer, (unsigned long)timer->function,
	     ETW_EVENT_TIMER_DPC, 0);
}

static void probe_hrtimer_expire_exit(void *data, struct hrtimer *timer)
{
	pop(this_cpu_ptr(&dpc_stack), timer, ETW_EVENT_TIMER_DPC, 0);
}

/*
 * The softirq actions are static functions of the kernel, in a table it
 * does not export (softirq_vec). Their names are stable, so each is found
 * once by name through a kprobe lookup (kallsyms, which modules may not
 * call directly): the probe is never armed, only its address read, less
 * the offset kprobes adds past an endbr64 (sprint_symbol names it).
 * Routine is 0 for a vector whose action is not found.
 */
static const char *const softirq_action_names[NR_SOFTIRQS][2] = {
	[HI_SOFTIRQ] = { "tasklet_hi_action" },
	[TIMER_SOFTIRQ] = { "run_timer_softirq" },
	[NET_TX_SOFTIRQ] = { "net_tx_action" },
	[NET_RX_SOFTIRQ] = { "net_rx_action" },
	[BLOCK_SOFTIRQ] = { "blk_done_softirq" },
	[IRQ_POLL_SOFTIRQ] = { "irq_poll_softirq" },
	[TASKLET_SOFTIRQ] = { "tasklet_action" },
	/* renamed in 6.10 */
	[SCHED_SOFTIRQ] = { "sched_balance_softirq", "run_rebalance_domains" },
	[HRTIMER_SOFTIRQ] = { "hrtimer_run_softirq" },
	[RCU_SOFTIRQ] = { "rcu_core_si" },
};

static u64 lookup_function(const char *name)
{
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = name };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr, off = 0;
	const char *plus;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(sym, addr);
	plus = strchr(sym, '+');
	if (!plus || strncmp(sym, name, plus - sym) || sscanf(plus + 1, "%lx", &off) != 1 ||
	    off > addr)
		return 0;
	return addr - off;
#else
	return 0;
#endif
}

static void resolve_softirq_actions(void)
{
	unsigned int vec, k, missing = 0;
	u64 addr;

	if (softirq_resolved)
		return;
	for (vec = 0; vec < NR_SOFTIRQS; vec++) {
		for (k = 0, addr = 0; k < 2 && !addr && softirq_action_names[vec][k]; k++)
			addr = lookup_function(softirq_action_names[vec][k]);
		missing += !addr;
		WRITE_ONCE(softirq_action[vec], addr);
	}
	if (missing)
		pr_info("ntkl: DPC: %u of %u softirq actions not found%s: their Routine is 0\n",
			missing, NR_SOFTIRQS,
			IS_ENABLED(CONFIG_KPROBES) ? "" : " (no kprobes to look them up)");
	softirq_resolved = true;
}

static void resolve_default_primary(void)
{
	if (default_primary_resolved)
		return;
	WRITE_ONCE(default_primary, lookup_function("irq_default_primary_handler"));
	if (!default_primary)
		pr_info("ntkl: ISR: irq_default_primary_handler not found: a threaded interrupt's Routine is the kernel's handler, not its driver's\n");
	default_primary_resolved = true;
}

static void reset_stacks(struct dpc_stack __percpu *stacks)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(stacks, cpu)->depth, 0);
}

/* Before a group is attached: no probe of it runs, its stacks can be emptied. */
static void prepare_group(unsigned int group)
{
	reset_stacks(group == DPC_TP_ISR ? &isr_stack : &dpc_stack);
	if (group == DPC_TP_DPC)
		resolve_softirq_actions();
	else
		resolve_default_primary();
}

/* Which groups the loggers of set take: BIT(DPC_TP_ISR), BIT(DPC_TP_DPC). */
static unsigned int dpc_groups(const struct ntkl_active_set *set)
{
	unsigned int i, groups = 0;

	for (i = 0; i < set->n; i++) {
		if (ntkl_set_event_on(set, i, ETW_EVENT_ISR))
			groups |= BIT(DPC_TP_ISR);
		if (ntkl_set_event_on(set, i, ETW_EVENT_DPC))
			groups |= BIT(DPC_TP_DPC);
	}
	return groups;
}

/* Attach the groups set takes: both, or (on failure) none that were not. */
static int dpc_attach(const struct ntkl_active_set *set)
{
	const struct ntkl_producer *self = &ntkl_dpc_producer;
	unsigned int groups = dpc_groups(set);
	bool had_isr;
	int ret = 0;

	mutex_lock(&dpc_lock);
	had_isr = ntkl_tp_attached(self, DPC_TP_ISR);
	if (groups & BIT(DPC_TP_ISR))
		ret = ntkl_tp_set(self, DPC_TP_ISR, true, prepare_group);
	if (!ret && (groups & BIT(DPC_TP_DPC))) {
		ret = ntkl_tp_set(self, DPC_TP_DPC, true, prepare_group);
		/* fail whole: the ISR group as it was (detaching cannot fail) */
		if (ret && !had_isr)
			ntkl_tp_set(self, DPC_TP_ISR, false, NULL);
	}
	mutex_unlock(&dpc_lock);
	return ret;
}

/* Which loggers take ISR and DPC records, on which clocks. */
static void dpc_publish(struct ntkl_active_set *set)
{
	struct dpc_set *state = dpc_set(set);
	unsigned int i;

	state->isr_clocks = 0;
	state->dpc_clocks = 0;
	for (i = 0; i < set->n; i++) {
		struct ntkl_logger *lg = set->loggers[i];

		if (ntkl_event_on(lg, ETW_EVENT_ISR))
			state->isr_clocks |= BIT(lg->clock_type);
		if (ntkl_event_on(lg, ETW_EVENT_DPC))
			state->dpc_clocks |= BIT(lg->clock_type);
	}
}

/* Detach the groups set does not take, once no probe reads a set that did. */
static void dpc_detach(const struct ntkl_active_set *set)
{
	const struct ntkl_producer *self = &ntkl_dpc_producer;
	unsigned int groups = dpc_groups(set);

	mutex_lock(&dpc_lock);
	if (!(groups & BIT(DPC_TP_ISR)))
		ntkl_tp_set(self, DPC_TP_ISR, false, NULL);
	if (!(groups & BIT(DPC_TP_DPC)))
		ntkl_tp_set(self, DPC_TP_DPC, false, NULL);
	mutex_unlock(&dpc_lock);
}

/* Each group's exits before its entries (producers/tracepoints.h). */
static struct ntkl_tp dpc_tps[] = {
	NTKL_TP(irq_handler_exit, DPC_TP_ISR, "no ISR records"),
	NTKL_TP(irq_handler_entry, DPC_TP_ISR, "no ISR records"),
	NTKL_TP(softirq_exit, DPC_TP_DPC, "no DPC records of softirqs"),
	NTKL_TP(softirq_entry, DPC_TP_DPC, "no DPC records of softirqs"),
	NTKL_TP(tasklet_exit, DPC_TP_DPC, "no DPC records of tasklets"),
	NTKL_TP(tasklet_entry, DPC_TP_DPC, "no DPC records of tasklets"),
	NTKL_TP(timer_expire_exit, DPC_TP_DPC, "no TimerDPC records of timers"),
	NTKL_TP(timer_expire_entry, DPC_TP_DPC, "no TimerDPC records of timers"),
	NTKL_TP(hrtimer_expire_exit, DPC_TP_DPC, "no TimerDPC records of hrtimers"),
	NTKL_TP(hrtimer_expire_entry, DPC_TP_DPC, "no TimerDPC records of hrtimers"),
};

const struct ntkl_producer ntkl_dpc_producer = {
	.name = "dpc",
	.tps = dpc_tps,
	.nr_tps = ARRAY_SIZE(dpc_tps),
	.set_size = sizeof(struct dpc_set),
	.set_offset = &dpc_set_offset,
	.attach = dpc_attach,
	.publish = dpc_publish,
	.detach = dpc_detach,
};
