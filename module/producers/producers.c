// SPDX-License-Identifier: GPL-2.0
/*
 * The producers of events and the hooks control calls on them
 * (producer.h). A producer without hooks (ReadyThread: its probe only
 * reads the set of loggers) is not listed.
 */
#include <linux/kernel.h>

#include "ntkl.h"
#include "format/record.h"
#include "producers/producer.h"

static const struct ntkl_producer *const producers[] = {
	&ntkl_process_producer,
	&ntkl_image_producer,
	&ntkl_cswitch_producer,
	&ntkl_spinlock_producer,
	/* last: its publish may fail, and then nothing after it has run */
	&ntkl_profile_producer,
};

int ntkl_producers_publish(struct ntkl_active_set *set)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(producers); i++) {
		if (!producers[i]->publish)
			continue;
		ret = producers[i]->publish(set);
		if (ret)
			return ret;
	}
	return 0;
}

void ntkl_producers_flush(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->flush)
			producers[i]->flush();
}

/*
 * A rundown: every producer's start (or stop) hook, then RundownComplete,
 * as Windows closes each rundown.
 */
static void rundown(struct ntkl_logger *lg, bool end)
{
	struct ntkl_record rec;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(producers); i++)
		if (producers[i]->rundown)
			producers[i]->rundown(lg, end);
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
