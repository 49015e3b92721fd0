/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack walking (StackWalk/Stack, 0x1820): the stack of the thread an
 * event is about, written right after the event to each logger that walks
 * its hook (NTKL_IOC_SET_STACK_TRACING, xperf -stackwalk). A probe walks
 * once per event, into its CPU's scratch for its interrupt nesting level,
 * and writes the same frames to every logger that asked.
 */
#ifndef _NTKL_STACK_H
#define _NTKL_STACK_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "ntkl.h"
#include "format/record.h"

struct pt_regs;
struct task_struct;

/* One walked stack: kernel frames first, then user frames. */
struct ntkl_stack {
	u32 n;
	u32 pid, tid;			/* StackProcess, StackThread */
	bool truncated;			/* more frames than ETW_STACK_MAX_FRAMES */
	s8 user_stop;			/* enum ntkl_user_stop; -1: no user part walked */
	u64 frames[ETW_STACK_MAX_FRAMES];
};

/*
 * Does lg walk the stacks of this event (NTKL_WALK_<id>: the event list's
 * NTKL_STACKWALK lines)? Read where the event is written.
 */
static __always_inline bool ntkl_stack_on(const struct ntkl_logger *lg, enum ntkl_walk walk)
{
	return READ_ONCE(lg->stack_walks) & BIT(walk);
}

/*
 * The current context's stack (regs: the interrupted registers of a
 * sample, or NULL for the probe's own context, whose ntkl frames are
 * skipped).
 * Preemption off; the result lives until the probe returns.
 */
struct ntkl_stack *ntkl_stack_current(struct pt_regs *regs);
/*
 * A CSwitch's New Thread Stack: next's kernel frames, walked from its
 * saved context, and the user frames it had when it was switched out;
 * prev's user frames are kept for its own return (stack_parked.h).
 */
struct ntkl_stack *ntkl_stack_switch(struct task_struct *prev, struct task_struct *next);

/*
 * Does a call instruction end at the user address ret? (A return address
 * follows one; what a frame pointer that is not one points at seldom does.)
 * Page faults disabled.
 */
bool ntkl_user_call_precedes(unsigned long ret);

/* StackWalk/Stack for an event stamped event_time; nothing if no frames. */
void ntkl_stack_write(struct ntkl_logger *lg, const struct ntkl_stack *st, u64 event_time);

/* The time of a PERFINFO64 record whose payload begins at payload. */
static __always_inline u64 ntkl_record_perfinfo_time(const u8 *payload)
{
	return ((const struct perfinfo_trace_header *)payload - 1)->timestamp;
}

/* The time of a record of event id whose payload begins at payload. */
static __always_inline u64 ntkl_record_time(enum etw_event_id id, const u8 *payload)
{
	if (etw_events[id].header_type == ETW_HEADER_TYPE_SYSTEM64)
		return ((const struct system_trace_header *)payload - 1)->system_time;
	return ntkl_record_perfinfo_time(payload);
}

/*
 * ntkl_record_each() for an event whose stack may be walked: the stack
 * (of the current context, regs as for ntkl_stack_current()) is walked
 * once, for the first logger that walks the hook, and follows the event
 * in each such logger's buffer with the event's time.
 */
static __always_inline void ntkl_record_each_walked(struct ntkl_logger **loggers, unsigned int n,
						    enum etw_event_id id, const void *payload,
						    size_t size, enum ntkl_walk walk,
						    struct pt_regs *regs)
{
	struct ntkl_stack *st = NULL;
	struct ntkl_record rec;
	unsigned int i;
	u64 time;
	u8 *p;

	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], id))
			continue;
		p = ntkl_record_begin(loggers[i], &rec, id, size);
		if (!p)
			continue;
		memcpy(p, payload, size);
		time = ntkl_record_time(id, p);
		ntkl_record_end(&rec);
		if (!ntkl_stack_on(loggers[i], walk))
			continue;
		if (!st)
			st = ntkl_stack_current(regs);
		if (st)
			ntkl_stack_write(loggers[i], st, time);
	}
}

#endif /* _NTKL_STACK_H */
