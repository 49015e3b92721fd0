// SPDX-License-Identifier: GPL-2.0
/*
 * The logger table: up to 64 loggers (trace sessions), as the NT kernel's
 * table of WMI_LOGGER_CONTEXT pointers. Start, stop, query, update, flush
 * and list, on properties ioctl.c has copied in (this file never touches
 * user memory); uapi/ntkl.h documents the errno each ETW error becomes.
 *
 * The table mutex serialises control operations; probes never take it:
 * they see running loggers through the set probes.c publishes. A logger
 * is reference counted: the table holds one reference while it runs, each
 * bound reader another, so a reader can drain a stopped logger.
 */
#include <linux/cpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "control/fault.h"
#include "control/control.h"
#include "uapi/ntkl_bounds.h"
#include "control/active_set.h"
#include "format/header.h"
#include "format/events.h"
#include "producers/producer.h"
#include "producers/stack_cache.h"

static DEFINE_MUTEX(table_lock);
static struct ntkl_logger *table[NTKL_MAX_LOGGERS];

/* Logger ids are 1..64: 0 means "select by name". */
#define ID_TO_SLOT(id)	((id) - 1)

static void logger_release(struct kref *ref)
{
	struct ntkl_logger *lg = container_of(ref, struct ntkl_logger, ref);

	irq_work_sync(&lg->wake_work);
	ntkl_buffers_free(lg);
	ntkl_stack_cache_free(lg);
	ntkl_owner_put(lg);
	kfree(lg);
}

void ntkl_logger_put(struct ntkl_logger *lg)
{
	kref_put(&lg->ref, logger_release);
}

/*
 * shrink: a logger left the table and none joined or changed (cannot
 * fail); undo puts back what the caller changed in a running logger
 * before the producers settle, if publishing fails (active_set.c).
 */
static int publish_locked(bool shrink, const struct ntkl_logger_change *change)
{
	struct ntkl_logger *running[NTKL_MAX_LOGGERS];
	unsigned int i, n = 0;

	for (i = 0; i < NTKL_MAX_LOGGERS; i++)
		if (table[i] && table[i]->status == NTKL_STATUS_RUNNING)
			running[n++] = table[i];
	return ntkl_probes_publish(running, n, shrink, change);
}

/* Does a logger on the QPC clock run? (Then QPC must not be re-anchored.) */
static bool qpc_logger_running_locked(void)
{
	unsigned int i;

	for (i = 0; i < NTKL_MAX_LOGGERS; i++)
		if (table[i] && table[i]->clock_type == NTKL_CLOCK_QPC)
			return true;
	return false;
}

static void wake_readers(struct irq_work *work)
{
	struct ntkl_logger *lg = container_of(work, struct ntkl_logger, wake_work);

	wake_up_all(&lg->wait);
}

static unsigned long flush_interval(struct ntkl_logger *lg)
{
	if (lg->mode & NTKL_MODE_MS_FLUSH_TIMER)
		return msecs_to_jiffies(lg->flush_timer);
	return msecs_to_jiffies(lg->flush_timer * MSEC_PER_SEC);
}

static void flush_timer_fn(struct work_struct *work)
{
	struct ntkl_logger *lg = container_of(to_delayed_work(work),
					      struct ntkl_logger, flush_work);

	if (READ_ONCE(lg->status) != NTKL_STATUS_RUNNING)
		return;
	ntkl_producers_flush();
	ntkl_flush_cpus(lg);
	wake_up_all(&lg->wait);
	if (lg->flush_timer)
		schedule_delayed_work(&lg->flush_work, flush_interval(lg));
}

static void groups_from(struct perfinfo_groupmask *gm, const struct ntkl_properties *p)
{
	memcpy(gm->masks, p->group_masks, sizeof(gm->masks));
	etw_groups_add_enable_flags(gm, p->enable_flags);
}

/* The out fields of struct ntkl_properties: zero on input. */
#define PROPS_OUT_START	offsetof(struct ntkl_properties, instance_guid)

static bool out_fields_zero(const struct ntkl_properties *p)
{
	return !memchr_inv((const u8 *)p + PROPS_OUT_START, 0,
			   sizeof(*p) - PROPS_OUT_START);
}

/* Check every bound (uapi/ntkl_bounds.h), then apply the defaults. */
static int start_props_valid(struct ntkl_properties *p)
{
	u32 cpus = num_possible_cpus();

	if ((p->logger_options & ~NTKL_LOGGER_OPTS_ALLOWED) || !out_fields_zero(p) ||
	    p->logger_id || ntkl_start_props_out_of_bounds(p))
		return -EINVAL;
	if (!p->buffer_size_kb)
		p->buffer_size_kb = NTKL_DEFAULT_BUFFER_KB;
	/*
	 * As ETW: at least 2 per CPU, and the maximum raised to the minimum.
	 * The default maximum, 8 per CPU (512 KB per CPU), lets a reader fall
	 * 7 buffers behind a CPU switching 200,000 times a second: nothing
	 * lost in make bench. ftrace's default is 1.4 MB per CPU.
	 */
	p->minimum_buffers = max(p->minimum_buffers, NTKL_MIN_BUFFERS_PER_CPU * cpus);
	if (!p->maximum_buffers)
		p->maximum_buffers = max(p->minimum_buffers, NTKL_DEFAULT_BUFFERS_PER_CPU * cpus);
	p->maximum_buffers = max(p->maximum_buffers, p->minimum_buffers);
	if (!p->clock_type)
		p->clock_type = NTKL_CLOCK_QPC;
	return 0;
}

static struct ntkl_logger *find_locked(const struct ntkl_properties *p)
{
	unsigned int i;

	if (p->logger_name[0]) {
		for (i = 0; i < NTKL_MAX_LOGGERS; i++)
			if (table[i] && !strncasecmp(table[i]->name, p->logger_name,
						     NTKL_NAME_MAX))
				return table[i];
		return NULL;
	}
	if (p->logger_id >= 1 && p->logger_id <= NTKL_MAX_LOGGERS)
		return table[ID_TO_SLOT(p->logger_id)];
	return NULL;
}

struct ntkl_logger *ntkl_logger_get_by_id(u32 id)
{
	struct ntkl_logger *lg = NULL;

	mutex_lock(&table_lock);
	if (id >= 1 && id <= NTKL_MAX_LOGGERS && table[ID_TO_SLOT(id)]) {
		lg = table[ID_TO_SLOT(id)];
		kref_get(&lg->ref);
	}
	mutex_unlock(&table_lock);
	return lg;
}

struct ntkl_logger *ntkl_logger_get_by_name(const char *name)
{
	struct ntkl_logger *lg = NULL;
	unsigned int i;

	mutex_lock(&table_lock);
	for (i = 0; i < NTKL_MAX_LOGGERS; i++) {
		if (table[i] && !strncasecmp(table[i]->name, name, NTKL_NAME_MAX)) {
			lg = table[i];
			kref_get(&lg->ref);
			break;
		}
	}
	mutex_unlock(&table_lock);
	return lg;
}

void ntkl_logger_fill(struct ntkl_logger *lg, struct ntkl_properties *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->logger_id = lg->id;
	strscpy(p->logger_name, lg->name, sizeof(p->logger_name));
	p->buffer_size_kb = lg->buffer_size / 1024;
	p->minimum_buffers = lg->min_buffers;
	p->maximum_buffers = lg->max_buffers;
	p->log_file_mode = lg->mode;
	p->logger_options = lg->options;
	p->clock_type = lg->clock_type;
	p->flush_timer = lg->flush_timer;
	p->enable_flags = READ_ONCE(lg->groups.masks[0]);
	memcpy(p->group_masks, lg->groups.masks, sizeof(p->group_masks));
	memcpy(p->instance_guid, lg->instance_guid, sizeof(p->instance_guid));
	p->number_of_buffers = lg->nr_buffers;
	p->free_buffers = ntkl_free_buffers(lg);
	p->number_of_processors = num_possible_cpus();
	p->maximum_event_size = ETW_MAX_EVENT_SIZE;
	p->events_lost = ntkl_events_lost(lg);
	p->buffers_written = atomic64_read(&lg->buffers_written);
	p->sequence_number = atomic64_read(&lg->sequence);
	p->start_time = lg->start_time;
	p->start_clock = lg->start_clock;
	p->perf_freq = lg->perf_freq;
	p->boot_time = lg->boot_time;
	p->logger_status = READ_ONCE(lg->status);
	p->accept_new_events = READ_ONCE(lg->accept);
	p->readers = atomic_read(&lg->readers);
	p->flags = NTKL_LOGGER_FLAG_KERNEL_TRACE |
		   (p->readers ? NTKL_LOGGER_FLAG_REAL_TIME : 0);
	p->owner_uid = ntkl_owner_uid(lg);
	ntkl_events_absent_fill(lg, p);
}

static int logger_start(const struct file *file, struct ntkl_properties *p)
{
	struct ntkl_logger *lg;
	unsigned int slot;
	int ret;

	ret = start_props_valid(p);
	if (ret)
		return ret;

	mutex_lock(&table_lock);
	ret = -EEXIST;
	if (find_locked(p))
		goto unlock;
	ret = -ENOSPC;
	for (slot = 0; slot < NTKL_MAX_LOGGERS; slot++)
		if (!table[slot])
			break;
	if (slot == NTKL_MAX_LOGGERS)
		goto unlock;

	ret = -ENOMEM;
	lg = ntkl_fault() ? NULL : kzalloc(sizeof(*lg), GFP_KERNEL);
	if (!lg)
		goto unlock;
	kref_init(&lg->ref);
	mutex_init(&lg->read_lock);
	mutex_init(&lg->lock);
	init_waitqueue_head(&lg->wait);
	init_irq_work(&lg->wake_work, wake_readers);
	INIT_DELAYED_WORK(&lg->flush_work, flush_timer_fn);
	lg->id = slot + 1;
	strscpy(lg->name, p->logger_name, sizeof(lg->name));
	get_random_bytes(lg->instance_guid, sizeof(lg->instance_guid));
	lg->buffer_size = p->buffer_size_kb * 1024;
	lg->min_buffers = p->minimum_buffers;
	lg->max_buffers = p->maximum_buffers;
	lg->mode = p->log_file_mode;
	lg->options = p->logger_options;
	lg->clock_type = p->clock_type;
	lg->flush_timer = p->flush_timer;
	if (lg->mode & NTKL_MODE_OWNED)
		lg->owner_file = file;
	groups_from(&lg->groups, p);

	ret = ntkl_stack_cache_alloc(lg);
	if (ret) {
		kfree(lg);
		goto unlock;
	}
	ret = ntkl_buffers_alloc(lg);
	if (ret) {
		ntkl_stack_cache_free(lg);
		kfree(lg);
		goto unlock;
	}
	/* from here logger_release() frees it, and puts its owner */
	ntkl_owner_set(lg);
	if (lg->clock_type == NTKL_CLOCK_QPC && !qpc_logger_running_locked())
		ntkl_clock_anchor();
	lg->perf_freq = ntkl_clock_freq(lg->clock_type);
	lg->boot_time = ntkl_filetime_boot();
	ntkl_clock_start(lg->clock_type, &lg->start_clock, &lg->start_time);
	ntkl_header_build(lg);
	ntkl_accept(lg, true);
	lg->status = NTKL_STATUS_RUNNING;
	table[slot] = lg;

	ret = publish_locked(false, NULL);
	if (ret) {
		table[slot] = NULL;
		ntkl_logger_put(lg);
		goto unlock;
	}
	/* after publishing: a thread born now gets Start or DCStart, or both */
	ntkl_producers_start(lg);
	if (lg->flush_timer)
		schedule_delayed_work(&lg->flush_work, flush_interval(lg));
	ntkl_logger_fill(lg, p);
unlock:
	mutex_unlock(&table_lock);
	return ret;
}

/*
 * Stop a logger; the table's reference is dropped. Table mutex held.
 * Readers see STOPPED only once the last buffers are closed, or one
 * blocked in read() could take end of data for the last word.
 */
static void stop_locked(struct ntkl_logger *lg)
{
	ntkl_producers_stop(lg);
	table[ID_TO_SLOT(lg->id)] = NULL;
	/*
	 * A shrink cannot fail (active_set.c): once it returns no probe
	 * reads lg, and the table's reference may go. Were it to fail, the
	 * set in use would still name lg: keep it rather than free it.
	 */
	if (WARN_ON_ONCE(publish_locked(true, NULL)))
		kref_get(&lg->ref);
	cancel_delayed_work_sync(&lg->flush_work);
	ntkl_accept(lg, false);
	ntkl_flush_cpus(lg);
	/* pairs with ntkl_read(): a reader seeing STOPPED sees the flush */
	smp_store_release(&lg->status, NTKL_STATUS_STOPPED);
	wake_up_all(&lg->wait);
	ntkl_logger_put(lg);
}

/*
 * The last close of file: stop the loggers it owns (NTKL_MODE_OWNED), as
 * if their owner had said STOP. A reader still bound gets the rest of the
 * buffers and then end of data.
 */
void ntkl_logger_stop_owned(const struct file *file)
{
	unsigned int i;

	mutex_lock(&table_lock);
	for (i = 0; i < NTKL_MAX_LOGGERS; i++)
		if (table[i] && table[i]->owner_file == file)
			stop_locked(table[i]);
	mutex_unlock(&table_lock);
}

void ntkl_logger_stop_all(void)
{
	unsigned int i;

	mutex_lock(&table_lock);
	for (i = 0; i < NTKL_MAX_LOGGERS; i++)
		if (table[i])
			stop_locked(table[i]);
	mutex_unlock(&table_lock);
}

static int logger_update(struct ntkl_logger *lg, struct ntkl_properties *p)
{
	struct perfinfo_groupmask gm;

	/*
	 * Only group masks and FlushTimer change. MaximumBuffers may be given
	 * as it is: the rings are allocated once, at start, and a running
	 * logger cannot honour another maximum (ETW grows or trims its pool).
	 */
	if (p->buffer_size_kb || p->minimum_buffers || p->log_file_mode ||
	    p->clock_type || p->logger_options || !out_fields_zero(p))
		return -EINVAL;
	if (p->maximum_buffers && p->maximum_buffers != lg->max_buffers)
		return -EINVAL;
	if (p->flush_timer > ntkl_flush_timer_max(lg->mode))
		return -EINVAL;

	groups_from(&gm, p);
	if (memcmp(&gm, &lg->groups, sizeof(gm))) {
		struct ntkl_logger_change change = {
			lg, { .groups = gm, .stack_walks = lg->stack_walks }
		};
		int ret;

		/* the masks reach the logger once the set for them is ready */
		ret = publish_locked(false, &change);
		if (ret)
			return ret;
	}
	if (p->flush_timer) {
		/* no flush by the old timer once UPDATE returns, not even one running */
		cancel_delayed_work_sync(&lg->flush_work);
		lg->flush_timer = p->flush_timer;
		schedule_delayed_work(&lg->flush_work, flush_interval(lg));
	}
	return 0;
}

/* Every running logger's properties, by id; returns how many. */
unsigned int ntkl_logger_list(struct ntkl_properties *props)
{
	unsigned int i, n = 0;

	mutex_lock(&table_lock);
	for (i = 0; i < NTKL_MAX_LOGGERS; i++)
		if (table[i])
			ntkl_logger_fill(table[i], &props[n++]);
	mutex_unlock(&table_lock);
	return n;
}

/*
 * START, STOP, QUERY, UPDATE or FLUSH (NTKL_IOC_*) with properties p, in
 * and out, on file; the logger is selected by name, else by id (not for
 * START).
 */
int ntkl_logger_control(const struct file *file, unsigned int cmd, struct ntkl_properties *p)
{
	struct ntkl_logger *lg;
	int ret = 0;

	if (!memchr(p->logger_name, 0, sizeof(p->logger_name)))
		return -EINVAL;		/* name not terminated */
	if (cmd == NTKL_IOC_START)
		return logger_start(file, p);
	if (!p->logger_name[0] && !p->logger_id)
		return -EINVAL;

	mutex_lock(&table_lock);
	lg = find_locked(p);
	if (!lg) {
		mutex_unlock(&table_lock);
		return -ENOENT;
	}
	/* anyone may look; only the owner (or an admin) may act */
	if (cmd != NTKL_IOC_QUERY) {
		ret = ntkl_may_manage(lg);
		if (ret) {
			mutex_unlock(&table_lock);
			return ret;
		}
	}
	switch (cmd) {
	case NTKL_IOC_STOP:
		kref_get(&lg->ref);
		stop_locked(lg);
		ntkl_logger_fill(lg, p);
		ntkl_logger_put(lg);
		break;
	case NTKL_IOC_QUERY:
		ntkl_logger_fill(lg, p);
		break;
	case NTKL_IOC_UPDATE:
		ret = logger_update(lg, p);
		if (!ret)
			ntkl_logger_fill(lg, p);
		break;
	case NTKL_IOC_FLUSH:
		/*
		 * what producers hold back (CompCS batches) and what the
		 * records so far need (stack key definitions), then the buffers
		 */
		ntkl_producers_flush();
		ntkl_producers_snapshot(lg, false);
		ntkl_flush_cpus(lg);
		ntkl_producers_snapshot(lg, true);
		wake_up_all(&lg->wait);
		ntkl_logger_fill(lg, p);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&table_lock);
	return ret;
}

/* The running logger a name (if non-empty) or id selects. table_lock held. */
static struct ntkl_logger *find_named_locked(const char *name, u32 id)
{
	unsigned int i;

	if (name[0]) {
		for (i = 0; i < NTKL_MAX_LOGGERS; i++)
			if (table[i] && !strncasecmp(table[i]->name, name, NTKL_NAME_MAX))
				return table[i];
		return NULL;
	}
	if (id >= 1 && id <= NTKL_MAX_LOGGERS)
		return table[ID_TO_SLOT(id)];
	return NULL;
}

/*
 * SET_STACK_TRACING: the hooks (st->count of them, checked by the caller)
 * whose events lg follows with their stacks, replacing its list: each one
 * of an event the list walks (NTKL_STACKWALK), kept as BIT(NTKL_WALK_*).
 * Probes read the set of bits where they write the event, without a lock;
 * a running logger's set is published again, so that a producer prepares
 * what a walk needs (-ENOMEM if it cannot: the old list stays).
 */
int ntkl_logger_set_stack_tracing(const struct ntkl_stack_tracing *st, const u16 *hooks)
{
	struct ntkl_logger *lg;
	enum ntkl_walk walk;
	u32 i, bits = 0;
	int ret;

	for (i = 0; i < st->count; i++) {
		walk = ntkl_walk_by_hook(hooks[i]);
		if (walk >= NTKL_WALK_COUNT)
			return -EINVAL;
		bits |= BIT(walk);
	}
	mutex_lock(&table_lock);
	lg = find_named_locked(st->logger_name, st->logger_id);
	ret = lg ? ntkl_may_manage(lg) : -ENOENT;
	if (!ret && lg->status == NTKL_STATUS_RUNNING && bits != lg->stack_walks) {
		struct ntkl_logger_change change = {
			lg, { .groups = lg->groups, .stack_walks = bits }
		};

		/* what the producers prepare for a walk (CSwitch's parked stacks) */
		ret = publish_locked(false, &change);
	} else if (!ret) {
		WRITE_ONCE(lg->stack_walks, bits);
	}
	mutex_unlock(&table_lock);
	return ret;
}

/*
 * GET_STACK_TRACING: up to room of lg's hooks into hooks, how many it
 * has in st->count, its truncated stacks and how its user stacks ended.
 */
int ntkl_logger_get_stack_tracing(struct ntkl_stack_tracing *st, u16 *hooks, u32 room)
{
	struct ntkl_logger *lg;
	unsigned long bits;
	unsigned int bit;
	u32 n = 0;

	mutex_lock(&table_lock);
	lg = find_named_locked(st->logger_name, st->logger_id);
	if (lg) {
		bits = READ_ONCE(lg->stack_walks);
		for_each_set_bit(bit, &bits, NTKL_WALK_COUNT) {
			if (n < room)
				hooks[n] = etw_events[ntkl_stackwalks[bit].event].hook_id;
			n++;
		}
		st->count = n;
		st->stacks_truncated = atomic64_read(&lg->stacks_truncated);
		for (bit = 0; bit < NTKL_USTOP_COUNT; bit++)
			st->user_stops[bit] = atomic64_read(&lg->user_stops[bit]);
	}
	mutex_unlock(&table_lock);
	return lg ? 0 : -ENOENT;
}

/* Does p select lg (by name if it has one, else by id)? */
bool ntkl_logger_selected(const struct ntkl_logger *lg, const struct ntkl_properties *p)
{
	if (p->logger_name[0])
		return !strncasecmp(lg->name, p->logger_name, NTKL_NAME_MAX);
	return p->logger_id == lg->id;
}
