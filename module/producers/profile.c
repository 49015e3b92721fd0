// SPDX-License-Identifier: GPL-2.0
/*
 * Sampled profile (SampledProfile 0x0F2E, PERF_PROFILE): what Windows'
 * profile interrupt records, one sample per CPU per interval, from the
 * kernel's perf events. docs/linux-to-nt.md says where each field comes
 * from.
 *
 * The sampling counter is the software cpu-clock event, one per online
 * CPU: an hrtimer that perf runs on that CPU, so it counts time as
 * Windows' profile source 0 ("Timer") does, whatever the CPU's frequency,
 * and it exists where there is no PMU (qemu's TCG, most VMs). It fires in
 * hard interrupt context with the interrupted registers, in the idle loop
 * too: idle samples carry the idle thread, as Windows' do.
 *
 * The events exist only while a logger takes PERF_PROFILE: the attach
 * hook creates them (through a CPU hotplug state, whose callbacks give a
 * CPU that comes online its event and take it from one going offline)
 * when the first such logger starts or is updated to take it, and the
 * detach hook releases them when the last stops or drops it. A logger's profiling
 * begins with CollectionStart and ends with CollectionEnd, each with the
 * interval; changing the interval while loggers profile writes SetInterval
 * to each (ntkl_profile_set_interval()).
 *
 * The interval and the list of profiling loggers are kernel-wide, as
 * Windows' (xperf -SetProfInt), and change under profile_lock only, which
 * control takes after the table mutex: the sample handler reads neither,
 * only the set of running loggers, as every probe does.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hardirq.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "control/fault.h"
#include "producers/ntsched.h"
#include "format/record.h"
#include "format/utf16.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "uapi/ntkl_bounds.h"

static DEFINE_MUTEX(profile_lock);

/* 100 ns units; written under profile_lock and the CPU hotplug lock */
static u32 profile_interval = NTKL_PROFILE_INTERVAL_DEFAULT;

/* The per-CPU events, while the hotplug state is set up (state > 0). */
static DEFINE_PER_CPU(struct perf_event *, profile_event);
static int profile_state;
static bool profile_setting_up;	/* a failure fails the setup, not a CPU */

/* The loggers whose CollectionStart is written and CollectionEnd not yet. */
static struct ntkl_logger *profiling[NTKL_MAX_LOGGERS];
static unsigned int n_profiling;

/*
 * ExecutingDPC, ExecutingISR and the thread's priority (an idle thread's:
 * what Windows' idle samples carry). The handler runs in one interrupt
 * level of its own (a hard interrupt, or an NMI for a hardware counter,
 * which counts as one too): a second hard interrupt level means it
 * interrupted an interrupt handler.
 */
static u8 sample_flags(struct task_struct *t)
{
	u8 prio = is_idle_task(t) ? ETW_PROFILE_IDLE_PRIORITY : ntkl_nt_priority(t);
	u8 f = (prio << ETW_PROFILE_PRIORITY_SHIFT) & ETW_PROFILE_PRIORITY_MASK;

	if (in_serving_softirq())
		f |= ETW_PROFILE_EXECUTING_DPC;
	if (hardirq_count() > HARDIRQ_OFFSET)
		f |= ETW_PROFILE_EXECUTING_ISR;
	return f;
}

/* A sample: one record per logger that takes it. No lock, no allocation. */
static void profile_overflow(struct perf_event *event, struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);
	struct perfinfo_sampled_profile s;

	if (!n || !regs)
		return;
	s.instruction_pointer = instruction_pointer(regs);
	s.thread_id = ntkl_thread_id(current);
	s.count = 1;
	s.flags = sample_flags(current);
	s.rank = 0;
	/* with the interrupted context's stack for loggers that walk Profile */
	ntkl_record_each_walked(loggers, n, ETW_EVENT_SAMPLED_PROFILE, &s, sizeof(s),
				NTKL_WALK_SAMPLED_PROFILE, regs);
}

static struct perf_event_attr profile_attr(u32 interval)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = (u64)interval * 100,	/* cpu-clock counts ns */
		.pinned = 1,
	};

	return attr;
}

/* Hotplug: a CPU coming online gets its event (also at setup, for each CPU). */
static int profile_cpu_online(unsigned int cpu)
{
	struct perf_event_attr attr = profile_attr(READ_ONCE(profile_interval));
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, profile_overflow, NULL);
	if (IS_ERR(ev)) {
		pr_warn_ratelimited("ntkl: no cpu-clock event on CPU %u (%ld): no samples from it\n",
				    cpu, PTR_ERR(ev));
		/* at setup the logger fails to start; later, the CPU still comes up */
		return READ_ONCE(profile_setting_up) ? PTR_ERR(ev) : 0;
	}
	per_cpu(profile_event, cpu) = ev;
	return 0;
}

static int profile_cpu_offline(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(profile_event, cpu);

	per_cpu(profile_event, cpu) = NULL;
	if (ev)
		perf_event_release_kernel(ev);
	return 0;
}

/* Create every online CPU's event. profile_lock held. */
static int events_create(void)
{
	int ret;

	if (ntkl_fault())
		return -ENOMEM;
	/* read by the callbacks, in each CPU's hotplug thread */
	WRITE_ONCE(profile_setting_up, true);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ntkl/profile:online",
				profile_cpu_online, profile_cpu_offline);
	WRITE_ONCE(profile_setting_up, false);
	if (ret < 0)
		return ret;
	profile_state = ret;
	return 0;
}

/* Release them all: returns once no handler runs. profile_lock held. */
static void events_release(void)
{
	cpuhp_remove_state(profile_state);
	profile_state = 0;
}

/* SetInterval, CollectionStart or CollectionEnd, for the timer source. */
static void write_interval(struct ntkl_logger *lg, enum etw_event_id id, u32 new, u32 old)
{
	static const char name[] = ETW_PROFILE_SOURCE_TIMER_NAME;
	struct etw_sampled_profile_interval *pi;
	struct ntkl_record rec;
	u8 *p;

	preempt_disable();
	pi = ntkl_begin_SAMPLED_PROFILE_INTERVAL(lg, &rec, id, sizeof(*pi) + sizeof(name) * 2);
	if (pi) {
		p = (u8 *)pi;
		pi->source = ETW_PROFILE_SOURCE_TIMER;
		pi->new_interval = new;
		pi->old_interval = old;
		ntkl_put_utf16(p + sizeof(*pi), name, sizeof(name));
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

static int profiling_index(struct ntkl_logger *lg)
{
	unsigned int i;

	for (i = 0; i < n_profiling; i++)
		if (profiling[i] == lg)
			return i;
	return -1;
}

/* lg's profiling ends: CollectionEnd, and it leaves the list. profile_lock held. */
static void collection_end(unsigned int i)
{
	u32 interval = profile_interval;

	write_interval(profiling[i], ETW_EVENT_PROFILE_COLLECTION_END, interval, interval);
	profiling[i] = profiling[--n_profiling];
}

/* How many loggers of set take samples. */
static unsigned int set_profiles(const struct ntkl_active_set *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_SAMPLED_PROFILE))
			n++;
	return n;
}

/* The events exist before a set that takes samples is seen. */
static int profile_attach(const struct ntkl_active_set *set)
{
	int ret = 0;

	if (!set_profiles(set))
		return 0;
	mutex_lock(&profile_lock);
	if (!profile_state) {
		ret = events_create();
		if (ret) {
			pr_warn("ntkl: PROFILE: no cpu-clock perf event: %d\n", ret);
			/* ERROR_NOT_SUPPORTED, unless memory ran out */
			if (ret != -ENOMEM)
				ret = -EOPNOTSUPP;
		}
	}
	mutex_unlock(&profile_lock);
	return ret;
}

/*
 * Every producer attached what the set needs: each logger whose profiling
 * begins gets CollectionStart, each still running whose profiling ends
 * (UPDATE) gets CollectionEnd. Before the set is seen, so a logger's
 * samples come after its CollectionStart.
 */
static void profile_publish(struct ntkl_active_set *set)
{
	u32 interval = profile_interval;
	unsigned int i;
	int k;

	mutex_lock(&profile_lock);
	for (i = 0; i < set->n; i++) {
		struct ntkl_logger *lg = set->loggers[i];
		bool on = ntkl_event_on(lg, ETW_EVENT_SAMPLED_PROFILE);

		k = profiling_index(lg);
		if (on && k < 0) {
			write_interval(lg, ETW_EVENT_PROFILE_COLLECTION_START, interval, interval);
			profiling[n_profiling++] = lg;
		} else if (!on && k >= 0) {
			collection_end(k);
		}
	}
	mutex_unlock(&profile_lock);
}

/* The events go once no probe reads a set that took samples. */
static void profile_detach(const struct ntkl_active_set *set)
{
	if (set_profiles(set))
		return;
	mutex_lock(&profile_lock);
	if (profile_state)
		events_release();
	mutex_unlock(&profile_lock);
}

/* A logger stops: its profiling ends while it still takes events. */
static void profile_rundown(struct ntkl_logger *lg, bool end)
{
	int k;

	if (!end)
		return;		/* CollectionStart comes with the counters (publish) */
	mutex_lock(&profile_lock);
	k = profiling_index(lg);
	if (k >= 0)
		collection_end(k);
	mutex_unlock(&profile_lock);
}

/* Every event's period to interval; the first error. Hotplug lock held. */
static int events_period(u32 interval)
{
	unsigned int cpu;
	int ret = 0, r;

	for_each_online_cpu(cpu) {
		struct perf_event *ev = per_cpu(profile_event, cpu);

		if (!ev)
			continue;
		/* a period the event refuses, for the tests (control/fault.h) */
		r = ntkl_fault() ? -EINVAL : perf_event_period(ev, (u64)interval * 100);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * xperf -SetProfInt: the kernel-wide interval, in 100 ns units (bounds
 * checked by the caller). Running events take it at once; each profiling
 * logger gets SetInterval.
 */
static int ntkl_profile_set_interval(u32 interval)
{
	unsigned int i;
	u32 old;
	int ret = 0;

	mutex_lock(&profile_lock);
	old = profile_interval;
	cpus_read_lock();
	WRITE_ONCE(profile_interval, interval);
	if (profile_state)
		ret = events_period(interval);
	if (ret) {
		/* not for a period within the bounds; leave every CPU as it was */
		WRITE_ONCE(profile_interval, old);
		events_period(old);
	}
	cpus_read_unlock();
	if (!ret && interval != old)
		for (i = 0; i < n_profiling; i++)
			write_interval(profiling[i], ETW_EVENT_PROFILE_SET_INTERVAL, interval, old);
	mutex_unlock(&profile_lock);
	return ret;
}

static int profile_setting_set(const void *s)
{
	const struct ntkl_profile_interval *p = s;

	if (p->__reserved0 || ntkl_profile_interval_out_of_bounds(p))
		return -EINVAL;
	return ntkl_profile_set_interval(ntkl_profile_interval_asked(p));
}

/* the timer's (the one source); another source is EINVAL */
static int profile_setting_get(void *s)
{
	struct ntkl_profile_interval *p = s;

	if (p->__reserved0 || p->source != NTKL_PROFILE_SOURCE_TIMER)
		return -EINVAL;
	p->interval = READ_ONCE(profile_interval);
	return 0;
}

static_assert(sizeof(struct ntkl_profile_interval) <= NTKL_SETTING_MAX);

/* SET_ and GET_PROFILE_INTERVAL: the kernel-wide interval (100 ns units) */
static const struct ntkl_setting profile_setting = {
	.set_cmd = NTKL_IOC_SET_PROFILE_INTERVAL,
	.get_cmd = NTKL_IOC_GET_PROFILE_INTERVAL,
	.size = sizeof(struct ntkl_profile_interval),
	.min_size = NTKL_PROFILE_INTERVAL_SIZE_VER0,
	.set = profile_setting_set,
	.get = profile_setting_get,
};

const struct ntkl_producer ntkl_profile_producer = {
	.name = "profile",
	.attach = profile_attach,
	.publish = profile_publish,
	.detach = profile_detach,
	.rundown = profile_rundown,
	.setting = &profile_setting,
};
