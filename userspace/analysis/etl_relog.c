// SPDX-License-Identifier: GPL-2.0
/*
 * The relogger (etl_relog.h): gather every record of the data buffers of
 * one or more files (and, when asked, a CSwitch record per compact
 * switch), sort them by time and file order, and pack them into new
 * buffers, one CPU per buffer. `relog --expand-compact` and `merge` are
 * its two uses; `relog --expand-stacks` also turns cached stacks' key
 * references into Stack records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl_relog.h"
#include "etl/etl_stack_keys.h"
#include "etl/etl_switches.h"

/* ETW's largest buffer (16 MB): beyond it BufferSize is corrupt. */
#define RELOG_MAX_BUFFER	(16u << 20)

/*
 * The most output an input may give: 64 MB, and 64 times its bytes. Each
 * CPU's last buffer is written whole, so a corrupt file of tiny buffers on
 * many CPUs under a header BufferSize of 16 MB would otherwise ask for
 * gigabytes (130 buffers in 15 KB: 2 GB). A real file's relog stays far
 * within: its buffers take BufferSize each on disk, or a compressed
 * fraction of it.
 */
#define RELOG_OUT_FLOOR		(64u << 20)
#define RELOG_OUT_PER_IN	64

/* One record of the output, its bytes in the arena. */
struct relog_rec {
	int64_t time;
	uint64_t order;			/* file order: record offset << 16 | packet */
	size_t at;			/* in the arena */
	uint32_t len;			/* bytes, a multiple of ETW_RECORD_ALIGN */
	uint16_t processor;		/* the buffer's ProcessorIndex */
	uint16_t lost;			/* ETW_BUFFER_FLAG_EVENTS_LOST or 0 */
	uint32_t file;			/* which input: ties at one time keep file order */
};

struct relog {
	const struct etl_file *f;	/* the first input: its header buffer is kept */
	const struct etl_file *const *files;
	size_t nfiles;
	bool expand_compact;
	bool expand_stacks;
	struct etl_stack_keys keys;	/* expand_stacks: every definition */
	bool pending;			/* a StackKeyKernel waiting for its StackKeyUser */
	struct etl_stack_ref pending_ref;
	uint64_t pending_order;
	uint16_t pending_cpu;
	uint32_t buffer_size;		/* of the output: the largest input's */
	struct etl_relog_stats *st;
	struct etl_error *err;
	struct relog_rec *v;
	size_t n, cap;
	uint8_t *arena;
	size_t used, arena_cap;
	struct wmi_buffer_header tmpl;	/* the first data buffer's header */
	uint16_t flags_seen;		/* BufferFlags of the data buffers, ORed */

	/* the output: one open buffer per CPU */
	uint8_t *out;
	size_t out_size, out_cap;
	size_t out_limit;		/* RELOG_OUT_FLOOR + RELOG_OUT_PER_IN x input */
	uint8_t **open;			/* [cpu]: the open buffer, or NULL */
	uint32_t *filled;		/* [cpu] */
	int64_t *last_time;		/* [cpu] */
	uint32_t ncpus;
	int64_t next_seq;
};

static uint32_t align8(uint32_t n)
{
	return (n + ETW_RECORD_ALIGN - 1) & ~(uint32_t)(ETW_RECORD_ALIGN - 1);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int add(struct relog *rl, const void *bytes, uint32_t size, int64_t time,
	       uint32_t file, uint64_t order, uint16_t processor, uint16_t lost)
{
	uint32_t len = align8(size);
	struct relog_rec *r;

	if (grow((void **)&rl->v, &rl->cap, rl->n + 1, sizeof(*rl->v)) ||
	    grow((void **)&rl->arena, &rl->arena_cap, rl->used + len, 1))
		return etl_error_set(rl->err, "out of memory");
	memcpy(rl->arena + rl->used, bytes, size);
	memset(rl->arena + rl->used + size, 0, len - size);
	r = &rl->v[rl->n++];
	*r = (struct relog_rec){ .time = time, .order = order, .at = rl->used,
				 .len = len, .processor = processor, .lost = lost,
				 .file = file };
	rl->used += len;
	return 0;
}

/*
 * The records of input fi to copy: every record of its data buffers (but
 * the CompCS batches when they are expanded). The first input's buffer 0
 * is kept whole as the output's header buffer; another input's buffer 0
 * gives its records but its Header event (the output has one header).
 */
static bool copied(const struct relog *rl, uint32_t fi, const struct etl_buffer *b,
		   const struct etl_record *r)
{
	if (b->index == 0) {
		if (fi == 0)
			return false;
		if (r->kind == ETL_KIND_KERNEL && r->hook_id == ETW_EVENT_HEADER_HOOK) {
			rl->st->headers_dropped++;
			return false;
		}
		return true;
	}
	if (rl->expand_compact && r->kind == ETL_KIND_KERNEL &&
	    r->hook_id == ETW_EVENT_COMPACT_CSWITCH_HOOK) {
		rl->st->batches++;
		return false;
	}
	return true;
}

/* A Stack record (0x1820) of the frames of a kernel and/or a user reference. */
static int add_stack(struct relog *rl, const struct etl_stack_ref *k,
		     const struct etl_stack_ref *u, uint64_t order, uint16_t cpu)
{
	const struct etl_stack_ref *any = k ? k : u;
	struct {
		struct perfinfo_trace_header h;
		struct etw_stack_walk sw;
		uint64_t frames[ETW_STACK_MAX_FRAMES];
	} rec = { 0 };
	const uint64_t *f;
	uint32_t n = 0, m;

	for (int part = 0; part < 2; part++) {
		const struct etl_stack_ref *ref = part ? u : k;

		if (!ref)
			continue;
		f = etl_stack_keys_find(&rl->keys, ref->key, ref->time, &m);
		if (!f) {
			rl->st->stack_unresolved++;
			continue;
		}
		for (uint32_t i = 0; i < m && n < ETW_STACK_MAX_FRAMES; i++)
			rec.frames[n++] = f[i];
	}
	if (!n)
		return 0;
	rec.h.marker = ETW_MARKER_PERFINFO64(etw_events[ETW_EVENT_STACK_WALK].version);
	rec.h.size = (uint16_t)(sizeof(rec.h) + sizeof(rec.sw) + 8 * n);
	rec.h.hook_id = ETW_EVENT_STACK_WALK_HOOK;
	rec.h.timestamp = (uint64_t)any->time;
	rec.sw.event_time_stamp = any->event_time;
	rec.sw.stack_process = any->pid;
	rec.sw.stack_thread = any->tid;
	if (add(rl, &rec, rec.h.size, any->time, 0, order, cpu, 0))
		return -1;
	rl->st->stacks++;
	return 0;
}

/* The StackKeyKernel held for its StackKeyUser: none came, a Stack of its own. */
static int flush_pending(struct relog *rl)
{
	if (!rl->pending)
		return 0;
	rl->pending = false;
	return add_stack(rl, &rl->pending_ref, NULL, rl->pending_order, rl->pending_cpu);
}

/*
 * expand_stacks: a definition is dropped, a reference becomes a Stack (an
 * event's kernel reference and the user one that follows it on its CPU,
 * one Stack); 1 if r was taken so, 0 if it is copied, -1 on error.
 */
static int expand_stack_record(struct relog *rl, const struct etl_record *r)
{
	struct etl_stack_ref ref;
	const struct etl_stack_ref *k = &rl->pending_ref;

	if (etl_stack_key_is_def(r)) {
		rl->st->stack_defs++;
		return 1;
	}
	if (!etl_stack_ref_parse(r, &ref))
		return flush_pending(rl) ? -1 : 0;
	rl->st->stack_refs++;
	if (ref.user && rl->pending && rl->pending_cpu == r->processor &&
	    k->event_time == ref.event_time && k->tid == ref.tid) {
		rl->pending = false;
		return add_stack(rl, k, &ref, rl->pending_order, rl->pending_cpu) ? -1 : 1;
	}
	if (flush_pending(rl))
		return -1;
	if (ref.user)
		return add_stack(rl, NULL, &ref, r->file_offset << 16, r->processor) ? -1 : 1;
	rl->pending = true;
	rl->pending_ref = ref;
	rl->pending_order = r->file_offset << 16;
	rl->pending_cpu = r->processor;
	return 1;
}

static int gather_key(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct relog *rl = ctx;

	(void)b;
	if (r->kind == ETL_KIND_KERNEL && etl_stack_keys_add(&rl->keys, r) < 0)
		return etl_error_set(rl->err, "out of memory");
	return 0;
}

/* One input file's records into rl, with the buffer each came in. */
struct gather {
	struct relog *rl;
	uint32_t fi;
	uint16_t lost;		/* the buffer's EVENTS_LOST, for its first record copied */
};

static int gather_buffer(void *ctx, const struct etl_buffer *b)
{
	struct gather *g = ctx;
	struct relog *rl = g->rl;

	if (b->index == 0 && g->fi == 0)
		return 1;
	if (b->index) {
		if (!rl->st->buffers_in++)
			rl->tmpl = b->hdr;
		rl->flags_seen |= b->hdr.buffer_flag;
	}
	g->lost = b->hdr.buffer_flag & ETW_BUFFER_FLAG_EVENTS_LOST;
	return 0;
}

static int gather_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct gather *g = ctx;
	struct relog *rl = g->rl;

	if (!copied(rl, g->fi, b, r))
		return 0;
	if (rl->expand_stacks && b->index) {
		int taken = expand_stack_record(rl, r);

		if (taken)
			return taken < 0 ? -1 : 0;
	}
	if (add(rl, b->data + r->buffer_offset, r->size, r->timestamp, g->fi,
		r->file_offset << 16, r->processor, g->lost))
		return -1;
	g->lost = 0;
	rl->st->records++;
	return 0;
}

static int gather_records(struct relog *rl, uint32_t fi)
{
	struct gather g = { .rl = rl, .fi = fi };
	struct etl_walker w = { .buffer = gather_buffer, .record = gather_record, .ctx = &g };

	return etl_walk(rl->files[fi], &w, rl->err);
}

/* A CSwitch record per compact switch (the defaults: etl_relog.h). */
static int expand_switches(struct relog *rl)
{
	struct etl_switches s;
	int ret = 0;

	if (etl_switches_read(rl->f, &s, rl->err)) {
		etl_switches_free(&s);
		return -1;
	}
	for (size_t i = 0; i < s.n && !ret; i++) {
		const struct etl_switch *sw = &s.v[i], *next = i + 1 < s.n ? sw + 1 : NULL;
		struct {
			struct perfinfo_trace_header h;
			struct wmi_contextswap cs;
		} rec = { 0 };

		if (sw->source != ETL_SWITCH_COMPACT)
			continue;
		if (!(sw->known & ETL_SWITCH_HAS_NEW)) {
			rl->st->dropped++;
			continue;
		}
		rec.h.marker = ETW_MARKER_PERFINFO64(etw_events[ETW_EVENT_CSWITCH].version);
		rec.h.size = sizeof(rec);
		rec.h.hook_id = ETW_EVENT_CSWITCH_HOOK;
		rec.h.timestamp = sw->time;
		rec.cs.new_thread_id = sw->new_tid;
		rec.cs.old_thread_id = sw->old_tid;
		if (sw->new_tid && next && next->cpu == sw->cpu &&
		    (next->known & ETL_SWITCH_HAS_PRIORITY))
			rec.cs.new_thread_priority = next->old_priority;
		if (sw->known & ETL_SWITCH_HAS_PRIORITY)
			rec.cs.old_thread_priority = sw->old_priority;
		if (sw->known & ETL_SWITCH_HAS_STATE) {
			rec.cs.old_thread_state = sw->old_state;
			rec.cs.old_thread_wait_reason = sw->old_wait_reason;
		} else if (!sw->old_tid) {
			rec.cs.old_thread_state = ETW_KTHREAD_READY;
		}
		rec.cs.old_thread_ideal_processor = (uint8_t)sw->cpu;
		if (sw->known & ETL_SWITCH_HAS_WAIT)
			rec.cs.new_thread_wait_time = sw->new_wait_time;
		ret = add(rl, &rec, sizeof(rec), sw->time, 0,
			  sw->file_offset << 16 | sw->packet, (uint16_t)sw->cpu, 0);
		if (!ret)
			rl->st->switches++;
	}
	etl_switches_free(&s);
	return ret;
}

static int by_time(const void *a, const void *b)
{
	const struct relog_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return 0;
}

/* Append CPU cpu's open buffer to the output and close it. */
static void put_buffer(struct relog *rl, uint32_t cpu, uint16_t flush_marker)
{
	struct wmi_buffer_header bh = rl->tmpl;
	uint8_t *p = rl->open[cpu];

	if (!p)
		return;
	bh.saved_offset = rl->filled[cpu];
	/* as the module closes a buffer it flushes: a buffer's size past the end */
	bh.current_offset = rl->filled[cpu] + rl->buffer_size;
	bh.offset = rl->filled[cpu];
	bh.buffer_size = rl->buffer_size;
	bh.timestamp = rl->last_time[cpu];
	bh.sequence_number = rl->next_seq++;
	bh.processor_index = (uint16_t)cpu;
	bh.buffer_type = ETW_BUFFER_TYPE_GENERIC;
	bh.buffer_flag = (uint16_t)(((const struct wmi_buffer_header *)p)->buffer_flag |
				    flush_marker);
	bh.reference_count = 0;
	memcpy(p, &bh, sizeof(bh));
	rl->open[cpu] = NULL;
	rl->st->buffers_out++;
}

/* A new buffer for cpu at the end of the output; -1 if out of memory. */
static int open_buffer(struct relog *rl, uint32_t cpu)
{
	uint32_t size = rl->buffer_size;
	uint8_t *base = rl->out;

	if (rl->out_size + size > rl->out_limit)
		return etl_error_set(rl->err,
				     "the output would pass %zu MB, %d times the input's size: BufferSize 0x%x on %u CPUs is not what the buffers hold (a corrupt header?)",
				     rl->out_limit >> 20, RELOG_OUT_PER_IN, size, rl->ncpus);
	if (grow((void **)&rl->out, &rl->out_cap, rl->out_size + size, 1))
		return etl_error_set(rl->err, "out of memory");
	/* the open buffers moved with the output */
	for (uint32_t c = 0; c < rl->ncpus; c++)
		if (rl->open[c])
			rl->open[c] = rl->out + (rl->open[c] - base);
	rl->open[cpu] = rl->out + rl->out_size;
	memset(rl->open[cpu], ETW_BUFFER_FILL_BYTE, size);
	memset(rl->open[cpu], 0, ETL_BUFFER_HEADER_SIZE);
	((struct wmi_buffer_header *)rl->open[cpu])->buffer_flag =
		rl->tmpl.buffer_flag & ~(ETW_BUFFER_FLAG_FLUSH_MARKER |
					 ETW_BUFFER_FLAG_EVENTS_LOST |
					 ETW_BUFFER_FLAG_COMPRESSED);
	rl->filled[cpu] = ETL_BUFFER_HEADER_SIZE;
	rl->out_size += size;
	return 0;
}

static int pack(struct relog *rl)
{
	uint32_t size = rl->buffer_size;
	int64_t best;
	uint32_t last = 0;

	rl->ncpus = 1;
	for (size_t i = 0; i < rl->n; i++)
		if (rl->v[i].processor >= rl->ncpus)
			rl->ncpus = rl->v[i].processor + 1u;
	rl->open = calloc(rl->ncpus, sizeof(*rl->open));
	rl->filled = calloc(rl->ncpus, sizeof(*rl->filled));
	rl->last_time = calloc(rl->ncpus, sizeof(*rl->last_time));
	if (!rl->open || !rl->filled || !rl->last_time)
		return etl_error_set(rl->err, "out of memory");

	for (size_t i = 0; i < rl->n; i++) {
		const struct relog_rec *r = &rl->v[i];
		uint32_t cpu = r->processor;

		if (ETL_BUFFER_HEADER_SIZE + r->len > size)
			return etl_error_set(rl->err,
					     "a record of 0x%x bytes does not fit a buffer of 0x%x",
					     r->len, size);
		if (rl->open[cpu] && rl->filled[cpu] + r->len > size)
			put_buffer(rl, cpu, 0);
		if (!rl->open[cpu] && open_buffer(rl, cpu))
			return -1;
		memcpy(rl->open[cpu] + rl->filled[cpu], rl->arena + r->at, r->len);
		((struct wmi_buffer_header *)rl->open[cpu])->buffer_flag |= r->lost;
		rl->filled[cpu] += r->len;
		rl->last_time[cpu] = r->time;
	}
	/* the open buffers, oldest last record first; the flush marker on the last */
	for (;;) {
		uint32_t pick = rl->ncpus, left = 0;

		best = 0;
		for (uint32_t c = 0; c < rl->ncpus; c++) {
			if (!rl->open[c])
				continue;
			left++;
			if (pick == rl->ncpus || rl->last_time[c] < best) {
				pick = c;
				best = rl->last_time[c];
			}
		}
		if (!left)
			break;
		last = left == 1 ? ETW_BUFFER_FLAG_FLUSH_MARKER : 0;
		put_buffer(rl, pick, (uint16_t)(rl->flags_seen & last));
	}
	return 0;
}

/*
 * Buffer 0 of the first input as it was, BufferSize the output's, and its
 * Header event's counts made true of the output: BuffersWritten, every
 * input's EventsLost and BuffersLost, the latest EndTime, the most
 * processors; COMPRESSED_MODE cleared (the output never is).
 */
static int header_buffer(struct relog *rl, uint8_t *dst)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct trace_logfile_header h;
	struct wmi_buffer_header bh;
	size_t at = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header);
	int ret;

	etl_buffers_begin(rl->f, &bc);
	ret = etl_next_buffer(rl->f, &bc, &b, rl->err);
	if (ret <= 0) {
		etl_buffers_end(&bc);
		return ret ? -1 : etl_error_set(rl->err, "the file has no header buffer");
	}
	memset(dst, ETW_BUFFER_FILL_BYTE, rl->buffer_size);
	memcpy(dst, b.data, b.size < rl->buffer_size ? b.size : rl->buffer_size);
	etl_buffers_end(&bc);
	memcpy(&bh, dst, sizeof(bh));
	bh.buffer_size = rl->buffer_size;
	memcpy(dst, &bh, sizeof(bh));
	memcpy(&h, dst + at, sizeof(h));
	h.buffer_size = rl->buffer_size;
	h.buffers_written = (uint32_t)(1 + rl->st->buffers_out);
	h.log_file_mode &= ~(uint32_t)EVENT_TRACE_COMPRESSED_MODE;
	for (size_t i = 1; i < rl->nfiles; i++) {
		const struct trace_logfile_header *o = &rl->files[i]->header;

		h.events_lost += o->events_lost;
		h.buffers_lost += o->buffers_lost;
		if (o->end_time > h.end_time)
			h.end_time = o->end_time;
		if (o->number_of_processors > h.number_of_processors)
			h.number_of_processors = o->number_of_processors;
	}
	memcpy(dst + at, &h, sizeof(h));
	return 0;
}

/* The smallest buffer that holds a header buffer, and ETW's largest. */
static int check_buffer_size(const struct etl_file *f, struct etl_error *err)
{
	uint32_t size = f->header.buffer_size;
	size_t least = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header) +
		       sizeof(struct trace_logfile_header);

	/* records, and so buffers, start at multiples of 8 (ETW_RECORD_ALIGN) */
	if (size < least || size > RELOG_MAX_BUFFER || size % ETW_RECORD_ALIGN)
		return etl_error_set(err, "%s: the header's BufferSize 0x%x is not a buffer size (a multiple of %u, 0x%zx to 0x%x)",
				     f->path, size, ETW_RECORD_ALIGN, least, RELOG_MAX_BUFFER);
	return 0;
}

static int relog_files(const struct etl_file *const *files, size_t nfiles, unsigned int expand,
		       uint8_t **out, size_t *out_size, struct etl_relog_stats *st,
		       struct etl_error *err)
{
	struct relog rl = { .f = files[0], .files = files, .nfiles = nfiles,
			    .expand_compact = expand & ETL_RELOG_EXPAND_COMPACT,
			    .expand_stacks = expand & ETL_RELOG_EXPAND_STACKS,
			    .st = st, .err = err, .next_seq = 1 };
	struct etl_walker keys = { .record = gather_key, .ctx = &rl };
	int ret = -1;

	/* st: zeroed by the caller, which may have counted in it already */
	*out = NULL;
	*out_size = 0;
	rl.out_limit = RELOG_OUT_FLOOR;
	for (size_t i = 0; i < nfiles; i++) {
		if (check_buffer_size(files[i], err))
			return -1;
		if (files[i]->header.buffer_size > rl.buffer_size)
			rl.buffer_size = files[i]->header.buffer_size;
		rl.out_limit += RELOG_OUT_PER_IN * files[i]->size;
	}
	st->files = nfiles;
	/* buffer 0 first; it is filled in once the buffers are counted */
	if (grow((void **)&rl.out, &rl.out_cap, rl.buffer_size, 1)) {
		etl_error_set(err, "out of memory");
		goto out;
	}
	rl.out_size = rl.buffer_size;
	/* a cached stack's frames mostly come after its references: the definitions first */
	if (rl.expand_stacks && etl_walk(files[0], &keys, err))
		goto out;
	for (uint32_t i = 0; i < nfiles; i++) {
		if (gather_records(&rl, i)) {
			/* of several inputs, say which one cannot be read */
			if (nfiles > 1) {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				etl_error_set(err, "%s: %s", files[i]->path, msg);
			}
			goto out;
		}
	}
	if (rl.expand_stacks && flush_pending(&rl))
		goto out;
	if (rl.expand_compact && expand_switches(&rl))
		goto out;
	if (rl.n)	/* no records: rl.v is NULL, which qsort must not get */
		qsort(rl.v, rl.n, sizeof(*rl.v), by_time);
	if (pack(&rl) || header_buffer(&rl, rl.out))
		goto out;
	*out = rl.out;
	*out_size = rl.out_size;
	rl.out = NULL;
	ret = 0;
out:
	free(rl.out);
	free(rl.v);
	free(rl.arena);
	free(rl.open);
	free(rl.filled);
	free(rl.last_time);
	etl_stack_keys_free(&rl.keys);
	return ret;
}

int etl_relog_expand(const struct etl_file *f, unsigned int what, uint8_t **out,
		     size_t *out_size, struct etl_relog_stats *st, struct etl_error *err)
{
	memset(st, 0, sizeof(*st));
	return relog_files(&f, 1, what, out, out_size, st, err);
}

int etl_relog_expand_compact(const struct etl_file *f, uint8_t **out, size_t *out_size,
			     struct etl_relog_stats *st, struct etl_error *err)
{
	return etl_relog_expand(f, ETL_RELOG_EXPAND_COMPACT, out, out_size, st, err);
}

/* A clock whose readings mean the same in every file of one boot. */
static const char *clock_name(uint32_t type)
{
	switch (type) {
	case 1: return "QPC";
	case 2: return "SYSTEM";
	case 3: return "CYCLE";
	default: return "an unknown clock";
	}
}

/* |a - b| of two BootTimes from files, in 64 bits however far apart. */
static uint64_t boot_time_apart(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

int etl_merge(const struct etl_file *const *files, size_t nfiles, uint8_t **out,
	      size_t *out_size, struct etl_relog_stats *st, struct etl_error *err)
{
	const struct trace_logfile_header *h0;

	memset(st, 0, sizeof(*st));
	*out = NULL;
	*out_size = 0;
	if (!nfiles)
		return etl_error_set(err, "no file to merge");
	h0 = &files[0]->header;
	for (size_t i = 1; i < nfiles; i++) {
		const struct trace_logfile_header *h = &files[i]->header;

		if (h->pointer_size != h0->pointer_size)
			return etl_error_set(err, "%s has %u-byte pointers and %s %u-byte ones: only traces of one machine merge",
					     files[i]->path, h->pointer_size, files[0]->path,
					     h0->pointer_size);
		/* times are copied as they are: they must count the same ticks */
		if (h->reserved_flags != h0->reserved_flags || h->perf_freq != h0->perf_freq)
			return etl_error_set(err, "%s records %s time at %lld Hz and %s %s time at %lld Hz: record both with the same -clock (qpc, the default)",
					     files[i]->path, clock_name(h->reserved_flags),
					     (long long)h->perf_freq, files[0]->path,
					     clock_name(h0->reserved_flags), (long long)h0->perf_freq);
		/* QPC and CYCLE count from boot: another boot's are another scale */
		if (h0->reserved_flags != 2 && h->boot_time && h0->boot_time &&
		    boot_time_apart(h->boot_time, h0->boot_time) > (uint64_t)ETL_MERGE_BOOT_SLACK)
			st->other_boot++;
	}
	return relog_files(files, nfiles, 0, out, out_size, st, err);
}
