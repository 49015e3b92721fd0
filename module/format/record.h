/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing one ETW record into a logger's per-CPU buffer: reserve, fill the
 * kernel record header (the type, hook and version the event's descriptor
 * gives: uapi/ntkl_events.h), write the payload, commit.
 *
 * Inline: a probe passes a constant event id and usually size, so its
 * record comes down to the reservation and a few stores.
 */
#ifndef _NTKL_RECORD_H
#define _NTKL_RECORD_H

#include <linux/align.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ntkl.h"
#include "format/events.h"
#include "transport/reserve.h"

struct ntkl_record {
	struct ntkl_buffer *buf;
	unsigned int size;
};

/* What the out-of-line reservation gives back, in two registers. */
struct ntkl_slot {
	u8 *payload;			/* NULL: the event is lost (and counted) */
	struct ntkl_buffer *buf;
};

struct ntkl_slot ntkl_record_begin_slow(struct ntkl_logger *lg, u8 header_type, u16 hook,
					u16 version, unsigned int size, u64 clock, bool at);

static __always_inline size_t ntkl_record_header_size(u8 header_type)
{
	return header_type == ETW_HEADER_TYPE_SYSTEM64 ? sizeof(struct system_trace_header) :
							  sizeof(struct perfinfo_trace_header);
}

/* Who is writing, as SYSTEM64 and classic headers say it. */
static __always_inline u32 ntkl_record_pid(void)
{
	/* the idle task is process 0, other kernel threads System's */
	return !in_task() || is_idle_task(current) ? 0 :
	       current->flags & PF_KTHREAD ? NTKL_SYSTEM_PID : task_tgid_nr(current);
}

/*
 * Fill the kernel record header at p, a record of size bytes reserved as
 * aligned bytes, and zero the padding; returns where the payload goes.
 */
static __always_inline u8 *ntkl_record_header(u8 *p, u8 header_type, u16 hook, u16 version,
					      size_t size, unsigned int aligned, u64 clock)
{
	/* the padding must not show what the buffer held before */
	if (aligned != size)
		memset(p + size, 0, aligned - size);

	if (header_type == ETW_HEADER_TYPE_SYSTEM64) {
		struct system_trace_header *h = (void *)p;

		h->marker = ETW_MARKER_SYSTEM64(version);
		h->size = size;
		h->hook_id = hook;
		h->thread_id = in_task() ? task_pid_nr(current) : 0;
		h->process_id = ntkl_record_pid();
		h->system_time = clock;
		h->kernel_time = 0;
		h->user_time = 0;
	} else {
		struct perfinfo_trace_header *h = (void *)p;

		h->marker = ETW_MARKER_PERFINFO64(version);
		h->size = size;
		h->hook_id = hook;
		h->timestamp = clock;
	}
	return p + ntkl_record_header_size(header_type);
}

/*
 * Reserve a record and fill its header. The usual case, the current
 * buffer has room, is inline; anything else is ntkl_record_begin_slow()'s
 * (record.c), which returns by value so that nothing here has its address
 * taken: a probe's locals stay in registers, and a probe needs no stack
 * protector check.
 */
static __always_inline u8 *ntkl_record_begin_common(struct ntkl_logger *lg,
						    struct ntkl_record *rec,
						    u8 header_type, u16 hook,
						    u16 version, size_t payload,
						    u64 clock, bool at)
{
	size_t size = ntkl_record_header_size(header_type) + payload;
	/* a local, not rec->size: a constant size then needs no test below */
	unsigned int aligned = ALIGN(size, ETW_RECORD_ALIGN);
	struct ntkl_buffer *buf;
	u8 *p;

	if (size > ETW_MAX_EVENT_SIZE) {
		atomic64_inc(&lg->events_lost_extra);
		return NULL;
	}
	rec->size = aligned;
	if (unlikely(!ntkl_reserve_fast(lg, aligned, &buf, &clock, at, &p))) {
		struct ntkl_slot s = ntkl_record_begin_slow(lg, header_type, hook, version, size,
							    clock, at);

		rec->buf = s.buf;
		return s.payload;
	}
	rec->buf = buf;
	return ntkl_record_header(p, header_type, hook, version, size, aligned, clock);
}

/*
 * Reserve a record of event id (ETW_EVENT_*, uapi/ntkl_events.h) with
 * payload bytes and fill its header (type, hook and version come from the
 * event's one definition); returns where the payload goes, or NULL if the
 * event is lost (and counted). Preemption must be off until
 * ntkl_record_end().
 */
static __always_inline u8 *ntkl_record_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
					     enum etw_event_id id, size_t payload)
{
	const struct etw_event_desc *ev = &etw_events[id];

	return ntkl_record_begin_common(lg, rec, ev->header_type, ev->hook_id, ev->version,
					payload, 0, false);
}

/* The same, stamped with a time the caller read (see ntkl_reserve_at()). */
static __always_inline u8 *ntkl_record_begin_at(struct ntkl_logger *lg, struct ntkl_record *rec,
						enum etw_event_id id, size_t payload, u64 clock)
{
	const struct etw_event_desc *ev = &etw_events[id];

	return ntkl_record_begin_common(lg, rec, ev->header_type, ev->hook_id, ev->version,
					payload, clock, true);
}

static __always_inline void ntkl_record_end(struct ntkl_record *rec)
{
	ntkl_commit(rec->buf, rec->size);
}

/* Is a payload of size bytes one its layout allows? (A function: min may be 0.) */
static __always_inline bool ntkl_payload_fits(size_t size, size_t min, size_t max)
{
	return size >= min && size <= max;
}

/*
 * ntkl_record_begin() or _at(), for the typed writers below: a constant
 * event is checked at build time to have the writer's layout, a constant
 * size to be one the layout allows.
 */
static __always_inline void *ntkl_record_begin_typed(struct ntkl_logger *lg,
						     struct ntkl_record *rec,
						     enum etw_event_id id,
						     enum etw_layout_id layout, size_t size,
						     u64 clock, bool at)
{
	const struct etw_event_desc *ev = &etw_events[id];
	const struct etw_layout *l = &etw_layouts[layout];

	BUILD_BUG_ON(__builtin_constant_p(id) && ev->layout != layout);
	BUILD_BUG_ON(__builtin_constant_p(size) && !ntkl_payload_fits(size, l->min, l->max));
	return ntkl_record_begin_common(lg, rec, ev->header_type, ev->hook_id, ev->version,
					size, clock, at);
}

/*
 * Pass: a typed writer per payload layout, from the event list's
 * NTKL_LAYOUT() lines: ntkl_begin_<LAYOUT>(lg, &rec, ETW_EVENT_X, size)
 * and ntkl_begin_at_<LAYOUT>(..., clock) return the payload as the
 * layout's struct, no cast through void *. A constant event is checked
 * at build time to have that layout, a constant size to be one the
 * layout allows.
 */
#define NTKL_EVENT(...)
#define NTKL_FIELD(...)
#define NTKL_LAYOUT(lay, type, ...)								\
static __always_inline struct type *ntkl_begin_##lay(struct ntkl_logger *lg,		\
						      struct ntkl_record *rec,		\
						      enum etw_event_id id, size_t size)	\
{											\
	return ntkl_record_begin_typed(lg, rec, id, ETW_LAYOUT_##lay, size, 0, false);	\
}											\
static __always_inline struct type *ntkl_begin_at_##lay(struct ntkl_logger *lg,		\
							 struct ntkl_record *rec,	\
							 enum etw_event_id id,		\
							 size_t size, u64 clock)	\
{											\
	return ntkl_record_begin_typed(lg, rec, id, ETW_LAYOUT_##lay, size, clock, true);	\
}

#include "uapi/ntkl_event_list.h"
#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

/*
 * Records written as one: one reservation of aligned bytes (the sum of
 * ntkl_record_aligned() of each), so they lie next to each other in one
 * buffer with one time, whatever an interrupt or NMI writes meanwhile.
 * ntkl_record_put() fills each in turn at *pos; n of them are committed
 * (or, the reservation failed, counted lost) together. Not for probes on
 * hot paths: it is out of line.
 */
u8 *ntkl_record_group_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
			    unsigned int aligned, unsigned int n, u64 *clock);

/*
 * A group's record header may also be classic (FULL_HEADER64): the image
 * identities. Kept out of ntkl_record_header(), so that the probes' own
 * records compile as before.
 */
static __always_inline size_t ntkl_record_group_header_size(u8 header_type)
{
	return header_type == ETW_HEADER_TYPE_FULL_HEADER64 ? sizeof(struct event_trace_header) :
							       ntkl_record_header_size(header_type);
}

static __always_inline unsigned int ntkl_record_aligned(enum etw_event_id id, size_t payload)
{
	return ALIGN(ntkl_record_group_header_size(etw_events[id].header_type) + payload,
		     ETW_RECORD_ALIGN);
}

/* A classic record's header at p (ntkl writes one class: the image identities). */
static __always_inline u8 *ntkl_record_classic_header(u8 *p, u16 hook, u16 version,
						      size_t size, unsigned int aligned,
						      u64 clock)
{
	static const u8 image_id[16] = ETW_IMAGE_ID_GUID;
	struct event_trace_header *h = (void *)p;

	if (aligned != size)
		memset(p + size, 0, aligned - size);
	h->size = size;
	h->header_type = ETW_HEADER_TYPE_FULL_HEADER64;
	h->marker_flags = ETW_HEADER_FLAGS;
	h->type = ETW_HOOK_TYPE(hook);
	h->level = 0;
	h->version = version;
	h->thread_id = in_task() ? task_pid_nr(current) : 0;
	h->process_id = ntkl_record_pid();
	h->timestamp = clock;
	memcpy(h->guid, image_id, sizeof(h->guid));
	h->kernel_time = 0;
	h->user_time = 0;
	return p + sizeof(*h);
}

/* The next record of a group at *pos: its header filled; returns its payload. */
static __always_inline u8 *ntkl_record_put(u8 **pos, enum etw_event_id id, size_t payload,
					   u64 clock)
{
	const struct etw_event_desc *ev = &etw_events[id];
	size_t size = ntkl_record_group_header_size(ev->header_type) + payload;
	unsigned int aligned = ALIGN(size, ETW_RECORD_ALIGN);
	u8 *p = ev->header_type == ETW_HEADER_TYPE_FULL_HEADER64 ?
		ntkl_record_classic_header(*pos, ev->hook_id, ev->version, size, aligned, clock) :
		ntkl_record_header(*pos, ev->header_type, ev->hook_id, ev->version, size,
				   aligned, clock);

	*pos += aligned;
	return p;
}

static __always_inline void ntkl_record_group_end(struct ntkl_record *rec, unsigned int n)
{
	local_add(n - 1, &rec->buf->records);	/* ntkl_commit() counts one */
	ntkl_commit(rec->buf, rec->size);
}

void ntkl_lost_each(enum etw_event_id id);

/*
 * One payload of event id, built once, written to every logger of a
 * probe's set (ntkl_active_loggers()) that takes the event.
 */
static __always_inline void ntkl_record_each(struct ntkl_logger **loggers, unsigned int n,
					     enum etw_event_id id, const void *payload,
					     size_t size)
{
	/* begin sets both fields before end reads them: no zeroing per event */
	struct ntkl_record rec __uninitialized;
	unsigned int i;
	u8 *p;

	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], id))
			continue;
		p = ntkl_record_begin(loggers[i], &rec, id, size);
		if (!p)
			continue;
		memcpy(p, payload, size);
		ntkl_record_end(&rec);
	}
}

#endif /* _NTKL_RECORD_H */
