/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A producer's probes on the kernel's tracepoints: a table of its own
 * (struct ntkl_producer's tps), one NTKL_TP() line a probe.
 *
 * Tracepoints are looked up by name (for_each_kernel_tracepoint()), which
 * needs neither kallsyms nor exported tracepoint symbols and works on
 * every supported kernel. Each probe is still type-checked against its
 * tracepoint's prototype: NTKL_TP() puts the kernel's own typed
 * register_trace_<name>() around the probe in a sizeof, which compiles
 * the call (a probe of the wrong type is a build warning, so a failed
 * build) without making it; the producer includes the tracepoint's
 * <trace/events/...> header.
 *
 * A probe of group NTKL_TP_ALWAYS is attached while the module is loaded.
 * A busy tracepoint's probe is in a group of its producer's (1, 2, ...),
 * attached only while a logger takes its events: ntkl_tp_set(), from the
 * producer's hooks, which run under the table mutex. So a loaded module
 * with nothing to record costs the scheduler (sched_switch, sched_waking)
 * nothing. The spin lock producer's probes are the exception: lock
 * contention and irq_handler_entry stay attached (NTKL_TP_ALWAYS), and
 * with no SPINLOCK logger cost a call and a test, or a per-CPU count.
 *
 * lost NULL: the tracepoint is required, without it the module does not
 * load (a group's is looked for at load all the same); else what is
 * missing from the records without it, said once at load. A group's exits
 * are listed before its entries: attached in table order and detached in
 * reverse, an exit probe is there whenever an entry probe is.
 */
#ifndef _NTKL_PRODUCERS_TRACEPOINTS_H
#define _NTKL_PRODUCERS_TRACEPOINTS_H

#include <linux/types.h>

struct ntkl_producer;
struct tracepoint;

#define NTKL_TP_ALWAYS	0

struct ntkl_tp {
	const char *name;
	void *func;
	const char *lost;	/* NULL: required; else what is missing without it */
	bool typed;		/* the compiler checked func against the prototype */
	u8 group;		/* NTKL_TP_ALWAYS, or the producer's group */
	struct tracepoint *tp;
	bool attached;
};

/* The probe of tracepoint NAME is the producer's probe_NAME, in group GRP. */
#define NTKL_TP(tracepoint, grp, without) { \
	.name = #tracepoint, \
	.func = probe_##tracepoint, \
	.lost = (without), \
	.typed = sizeof(register_trace_##tracepoint(probe_##tracepoint, NULL)) != 0, \
	.group = (grp), \
}

/* producers/tracepoints.c, for producers.c: every producer's table at once */
int ntkl_tp_register(const struct ntkl_producer *const *producers, unsigned int n);
void ntkl_tp_unregister(const struct ntkl_producer *const *producers, unsigned int n);

/*
 * For a producer's attach and detach hooks: attach (on) or detach a group of its
 * probes. prepare, if not NULL, runs just before a group not attached is,
 * while none of its probes runs (to empty what they keep between calls).
 * On failure nothing of the group stays attached.
 */
int ntkl_tp_set(const struct ntkl_producer *p, unsigned int group, bool on,
		void (*prepare)(unsigned int group));
bool ntkl_tp_attached(const struct ntkl_producer *p, unsigned int group);

#endif /* _NTKL_PRODUCERS_TRACEPOINTS_H */
