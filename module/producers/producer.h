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

struct ntkl_active_set;
struct ntkl_logger;

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

#endif /* _NTKL_PRODUCER_H */
