/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the transport and the logger table ask of the producers of events,
 * without knowing any event kind: each producer is one struct
 * ntkl_producer, listed in producers/list.h, and control calls
 * every producer's hooks through producers.c, never one by name.
 *
 *   init, exit  at load (in list order; a failure unloads what is loaded)
 *            and unload (in reverse), after and before its probes are
 *            attached and detached.
 *   tps      its probes on the kernel's tracepoints, a table of its own
 *            (producers/tracepoints.h).
 *   set_size its state in each set of running loggers, worked out by its
 *            publish hook: set_size bytes, zeroed, at the offset
 *            producers.c stores in *set_offset at load; a probe reaches
 *            it with ntkl_set_state() (no per-producer field in the set).
 *   setting  a kernel-wide setting it owns, behind a pair of ioctls
 *            (struct ntkl_setting).
 * A new set of running loggers (a logger started, stopped, or changed its
 * group masks) is published by control in one sequence that no producer
 * orders (control/active_set.c), so that a call that fails leaves every
 * logger and every producer as it was:
 *
 *   attach   first, each producer in list order: attach what the new
 *            set's loggers need and is not attached (probes, perf events,
 *            a store their probes use), as the set has them: their group
 *            masks and stack walks in the set's view (ntkl_set_event_on(),
 *            control/active_set.h), not the loggers' own, which a call
 *            changes only once every attach succeeded. Process context,
 *            may sleep. On failure the producer undoes what this call of
 *            it attached and returns the error; control then has every
 *            producer detach what the set in use does not need, keeps
 *            that set, and the call fails with the error, no probe having
 *            seen the change it asked for.
 *            Attaching before the set is seen is harmless: the probes
 *            find no logger in the old set to write to. A shrinking set
 *            (a STOP) needs nothing new: its attach does nothing and
 *            cannot fail.
 *   publish  every attach succeeded: work out, once, what the producer's
 *            probes would otherwise work out on every event (for CSwitch:
 *            which loggers take CSwitch, which CompCS, on which clocks),
 *            into its state in the set, and write what a logger's events
 *            begin or end with as the set changes (the profile's
 *            CollectionStart/End). Runs before the set is seen, in
 *            process context; cannot fail.
 *   detach   the new set is the one every probe sees and no probe still
 *            reads the old one (RCU): let go of what the set does not
 *            need (as the set's view has it, as attach). Also the undo of
 *            a failed attach (with the set in use). Process context, may
 *            sleep; cannot fail.
 *   flush    write out whatever the producer holds back (CompCS batches)
 *            to the loggers running now: before FLUSH and the flush timer
 *            close the buffers, and before the set of loggers changes.
 *   snapshot FLUSH was asked of a logger, or a buffering-mode one is
 *            about to be saved (taken false): its buffers so far may be
 *            all a reader gets, so write what makes their records
 *            readable without the stop's (the definitions of the stack
 *            keys they refer to), and write nothing that needs more
 *            until the buffers are closed or saved (taken true).
 *            Process context, may sleep; not for the flush timer.
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

struct ntkl_tp;

/*
 * A kernel-wide setting a producer owns, read and written by a pair of
 * ioctls: control/ioctl.c checks the caller and copies the struct in and
 * out by uapi/ntkl.h's size rule (at most NTKL_SETTING_MAX bytes); the
 * producer checks and applies it.
 */
#define NTKL_SETTING_MAX	64

struct ntkl_setting {
	unsigned int set_cmd, get_cmd;
	size_t size, min_size;
	int (*set)(const void *s);
	int (*get)(void *s);
};

struct ntkl_producer {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	/* its probes (producers/tracepoints.h) */
	struct ntkl_tp *tps;
	unsigned int nr_tps;
	/* its state in each set: set_size bytes at *set_offset (ntkl_set_state()) */
	size_t set_size;
	size_t *set_offset;
	int (*attach)(const struct ntkl_active_set *set);
	void (*publish)(struct ntkl_active_set *set);
	void (*detach)(const struct ntkl_active_set *set);
	void (*flush)(void);
	void (*snapshot)(struct ntkl_logger *lg, bool taken);
	void (*rundown)(struct ntkl_logger *lg, bool end);
	/* its setting, if it has one */
	const struct ntkl_setting *setting;
};

/*
 * A producer's state in a set of running loggers (what its publish hook
 * worked out): offset is the one producers.c gave it at load.
 */
static __always_inline void *ntkl_set_state(const struct ntkl_active_set *set, size_t offset)
{
	return (u8 *)set + offset;
}

/*
 * Every producer, ntkl_<name>_producer for each line of producers/list.h,
 * declared in one list (a macro of the list cannot end a declaration);
 * the last name only ends it and is never defined.
 */
extern const struct ntkl_producer
#define NTKL_PRODUCER(name) ntkl_##name##_producer,
#include "producers/list.h"
#undef NTKL_PRODUCER
	ntkl_producer_list_end;

/* producers.c: for control, which calls no producer by name */
int ntkl_producers_init(void);
void ntkl_producers_exit(void);
size_t ntkl_producers_set_size(void);
int ntkl_producers_attach(const struct ntkl_active_set *set);
void ntkl_producers_publish(struct ntkl_active_set *set);
void ntkl_producers_detach(const struct ntkl_active_set *set);
void ntkl_producers_flush(void);
void ntkl_producers_snapshot(struct ntkl_logger *lg, bool taken);
void ntkl_producers_start(struct ntkl_logger *lg);
void ntkl_producers_stop(struct ntkl_logger *lg);
const struct ntkl_setting *ntkl_producers_setting(unsigned int cmd);
/*
 * A probe for event id: its kernel function is absent on this kernel
 * (absent true: each such probe once, as it finds so), or it is there
 * after all (false, for one that said absent). The caller holds its own
 * registration lock.
 */
void ntkl_event_absent(enum etw_event_id id, bool absent);
/* p's absent_count and absent_hooks: the events lg takes that are absent */
void ntkl_events_absent_fill(const struct ntkl_logger *lg, struct ntkl_properties *p);

/* image.c: a process's images, for process.c (its exec's Image records) */
void ntkl_image_new_process(struct ntkl_logger *lg, struct task_struct *p);
int ntkl_image_init(void);
void ntkl_image_exit(void);

#endif /* _NTKL_PRODUCER_H */
