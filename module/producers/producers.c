// SPDX-License-Identifier: GPL-2.0
/*
 * The producers of events and the hooks control calls on them
 * (producer.h).
 */
#include <linux/align.h>
#include <linux/kernel.h>

#include "ntkl.h"
#include "format/header.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/tracepoints.h"

/* In the order of producers/list.h, which says why it is that order. */
enum {
#define NTKL_PRODUCER(name) PRODUCER_##name,
#include "producers/list.h"
#undef NTKL_PRODUCER
	NR_PRODUCERS
};

static const struct ntkl_producer *const producers[NR_PRODUCERS] = {
#define NTKL_PRODUCER(name) \
	[PRODUCER_##name] = &ntkl_##name##_producer,
#include "producers/list.h"
#undef NTKL_PRODUCER
};

/* The bytes of every producer's state after a set's loggers. */
static size_t state_size;

size_t ntkl_producers_set_size(void)
{
	return state_size;
}

static void exit_from(unsigned int n)
{
	while (n--)
		if (producers[n]->exit)
			producers[n]->exit();
}

/*
 * At load: give each producer its place in a set's state, init each in
 * turn, then attach their probes. On failure what was done is undone.
 */
int ntkl_producers_init(void)
{
	unsigned int i;
	int ret;

	state_size = 0;
	for (i = 0; i < ARRAY_SIZE(producers); i++) {
		if (!producers[i]->set_size)
			continue;
		*producers[i]->set_offset = sizeof(struct ntkl_active_set) + state_size;
		state_size += ALIGN(producers[i]->set_size, sizeof(u64));
	}
	for (i = 0; i < ARRAY_SIZE(producers); i++) {
		ret = producers[i]->init ? producers[i]->init() : 0;
		if (ret) {
			exit_from(i);
			return ret;
		}
	}
	ret = ntkl_tp_register(producers, ARRAY_SIZE(producers));
	if (ret)
		exit_from(ARRAY_SIZE(producers));
	return ret;
}

/* At unload, every logger stopped: detach every probe, exit in reverse. */
void ntkl_producers_exit(void)
{
	ntkl_tp_unregister(producers, ARRAY_SIZE(producers));
	exit_from(ARRAY_SIZE(producers));
}

/*
 * Attach what set needs, producer by producer, up to the first that
 * fails (which undid its own part): then control has every producer
 * detach what the set in use does not need (active_set.c).
 */
int ntkl_producers_attach(const struct ntkl_active_set *set)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(producers); i++) {
		ret = producers[i]->attach ? producers[i]->attach(set) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

void ntkl_producers_publish(struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->publish)
			producers[i]->publish(set);
}

void ntkl_producers_detach(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->detach)
			producers[i]->detach(set);
}

void ntkl_producers_flush(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->flush)
			producers[i]->flush();
}

void ntkl_producers_snapshot(struct ntkl_logger *lg, bool taken)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->snapshot)
			producers[i]->snapshot(lg, taken);
}

/*
 * The logger's group masks, as GroupMasksEnd (0x0020) or as the PERFINFO64
 * copy of HeaderExtension (0x0005) that Windows writes with each rundown.
 */
static void write_group_masks(struct ntkl_logger *lg, u16 hook)
{
	const struct etw_event_desc *ev = &etw_events[ETW_EVENT_GROUP_MASKS_END];
	struct etw_header_extension *ext;
	struct ntkl_record rec;

	BUILD_BUG_ON(etw_events[ETW_EVENT_GROUP_MASKS_END].layout != ETW_LAYOUT_HEADER_EXTENSION);
	preempt_disable();
	ext = (void *)ntkl_record_begin_common(lg, &rec, ev->header_type, hook, ev->version,
					       sizeof(*ext), 0, false);
	if (ext) {
		ntkl_header_extension(lg, ext);
		ntkl_record_end(&rec);
	}
	preempt_enable();
}

/*
 * A rundown, in the order of Windows' kernel logger files: GroupMasksEnd;
 * at start a HeaderExtension copy; every producer's records (DCStart, or
 * DCEnd); at stop the HeaderExtension copy; RundownComplete.
 */
static void rundown(struct ntkl_logger *lg, bool end)
{
	struct ntkl_record rec;
	unsigned int i;

	write_group_masks(lg, ETW_EVENT_GROUP_MASKS_END_HOOK);
	if (!end)
		write_group_masks(lg, ETW_EVENT_HEADER_EXTENSION_HOOK);
	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->rundown)
			producers[i]->rundown(lg, end);
	if (end)
		write_group_masks(lg, ETW_EVENT_HEADER_EXTENSION_HOOK);
	preempt_disable();
	if (ntkl_record_begin(lg, &rec, ETW_EVENT_RUNDOWN_COMPLETE, 0))
		ntkl_record_end(&rec);
	preempt_enable();
}

void ntkl_producers_start(struct ntkl_logger *lg)
{
	rundown(lg, false);
}

void ntkl_producers_stop(struct ntkl_logger *lg)
{
	rundown(lg, true);
}

/* The setting whose SET or GET ioctl is cmd (control/ioctl.c), or NULL. */
const struct ntkl_setting *ntkl_producers_setting(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++) {
		const struct ntkl_setting *st = producers[i]->setting;

		if (st && (cmd == st->set_cmd || cmd == st->get_cmd))
			return st;
	}
	return NULL;
}

/*
 * Events some probe of which has no kernel function to attach to on this
 * kernel: for each, how many of its probes are absent now. Producers say
 * so as they attach (ntkl_event_absent()), control reports it for each
 * logger that takes the event (absent_hooks, uapi/ntkl.h).
 */
static atomic_t events_absent[ETW_EVENT_COUNT];

void ntkl_event_absent(enum etw_event_id id, bool absent)
{
	if (absent)
		atomic_inc(&events_absent[id]);
	else
		WARN_ON_ONCE(atomic_dec_return(&events_absent[id]) < 0);
}

void ntkl_events_absent_fill(const struct ntkl_logger *lg, struct ntkl_properties *p)
{
	enum etw_event_id id;

	p->absent_count = 0;
	for (id = 0; id < ETW_EVENT_COUNT; id++) {
		if (!atomic_read(&events_absent[id]) || !ntkl_event_on(lg, id))
			continue;
		if (p->absent_count < NTKL_ABSENT_HOOKS_MAX)
			p->absent_hooks[p->absent_count] = etw_events[id].hook_id;
		p->absent_count++;
	}
}
