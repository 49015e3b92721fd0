// SPDX-License-Identifier: GPL-2.0
/*
 * CSwitch events and CompCS batches to one per-CPU stream of switches.
 * The rules are in etl_switches.h; nothing here trusts the file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_switches.h"
#include "etl_names.h"

#define WAIT_CAP	PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_WAIT_TIME)

/* A CompCS record, kept until every batch of its CPU is known. */
struct batch {
	uint32_t cpu;
	int64_t first_ts;
	const uint8_t *p;
	uint8_t *copy;			/* p's bytes, if its buffer was decompressed */
	uint32_t len;
	uint32_t buffer_index;
	uint32_t buffer_offset;
	uint64_t buffer_file_offset;
	uint64_t file_offset;
};

struct etl_switches_reader {
	struct etl_switches *s;
	struct batch *batches;
	size_t nbatches, batches_cap;
	size_t cap;			/* of s->v */
	struct etl_error *err;
};

static uint64_t record_bytes(uint16_t size)
{
	return ((uint64_t)size + ETW_RECORD_ALIGN - 1) & ~(uint64_t)(ETW_RECORD_ALIGN - 1);
}

/* Grow *v (elem bytes each) to hold at least n + 1; false if out of memory. */
static bool grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 1024;
	if (ncap > SIZE_MAX / elem)
		return false;
	p = realloc(*v, ncap * elem);
	if (!p)
		return false;
	*v = p;
	*cap = ncap;
	return true;
}

static struct etl_switch_cpu *cpu_stats(struct etl_switches_reader *rd, uint32_t cpu)
{
	struct etl_switches *s = rd->s;

	if (cpu >= s->ncpus) {
		struct etl_switch_cpu *c = realloc(s->cpu, (cpu + 1) * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + s->ncpus, 0, (cpu + 1 - s->ncpus) * sizeof(*c));
		s->cpu = c;
		s->ncpus = cpu + 1;
	}
	return &s->cpu[cpu];
}

static struct etl_switch *new_switch(struct etl_switches_reader *rd)
{
	struct etl_switches *s = rd->s;
	struct etl_switch *sw;

	if (!grow((void **)&s->v, &rd->cap, s->n, sizeof(*s->v)))
		return NULL;
	sw = &s->v[s->n];
	memset(sw, 0, sizeof(*sw));
	sw->seq = s->n++;
	return sw;
}

static int oom(struct etl_switches_reader *rd)
{
	return etl_error_set(rd->err, "out of memory");
}

static int add_cswitch(struct etl_switches_reader *rd, const struct etl_record *r,
		       const struct etl_buffer *b)
{
	struct etl_switch_cpu *c = cpu_stats(rd, r->processor);
	struct wmi_contextswap cs;
	struct etl_switch *sw;

	if (r->payload_len < sizeof(cs))
		return etl_error_set(rd->err,
			"buffer %u (file offset 0x%llx): record at +0x%x: CSwitch payload is 0x%x bytes, WMI_CONTEXTSWAP needs 0x%zx",
			b->index, (unsigned long long)b->offset, r->buffer_offset,
			r->payload_len, sizeof(cs));
	if (!c || !(sw = new_switch(rd)))
		return oom(rd);
	memcpy(&cs, r->payload, sizeof(cs));
	sw->time = r->timestamp;
	sw->cpu = r->processor;
	sw->old_tid = cs.old_thread_id;
	sw->new_tid = cs.new_thread_id;
	sw->new_wait_time = cs.new_thread_wait_time;
	sw->old_state = cs.old_thread_state;
	sw->old_wait_reason = cs.old_thread_wait_reason;
	sw->old_priority = cs.old_thread_priority;
	sw->prev_cstate = cs.previous_c_state;
	sw->source = ETL_SWITCH_FULL;
	sw->known = ETL_SWITCH_HAS_NEW | ETL_SWITCH_HAS_STATE |
		    ETL_SWITCH_HAS_PRIORITY | ETL_SWITCH_HAS_WAIT | ETL_SWITCH_HAS_CSTATE;
	sw->buffer_index = r->buffer_index;
	sw->buffer_offset = r->buffer_offset;
	sw->file_offset = r->file_offset;
	c->full.switches++;
	c->full.records++;
	c->full.bytes += record_bytes(r->size);
	return 0;
}

static int add_batch(struct etl_switches_reader *rd, const struct etl_record *r,
		     const struct etl_buffer *b)
{
	struct etl_switch_cpu *c = cpu_stats(rd, r->processor);
	struct perfinfo_ccswap_buffer h;
	struct batch *bt;

	if (r->payload_len < sizeof(h))
		return etl_error_set(rd->err,
			"buffer %u (file offset 0x%llx): record at +0x%x: CompCS payload is 0x%x bytes, PERFINFO_CCSWAP_BUFFER needs 0x%zx",
			b->index, (unsigned long long)b->offset, r->buffer_offset,
			r->payload_len, sizeof(h));
	if (!c || !grow((void **)&rd->batches, &rd->batches_cap, rd->nbatches,
			sizeof(*rd->batches)))
		return oom(rd);
	memcpy(&h, r->payload, sizeof(h));
	bt = &rd->batches[rd->nbatches++];
	memset(bt, 0, sizeof(*bt));
	/* A decompressed buffer's bytes go with the next buffer: keep a copy. */
	if (b->compressed) {
		bt->copy = malloc(r->payload_len);
		if (!bt->copy)
			return oom(rd);
		memcpy(bt->copy, r->payload, r->payload_len);
	}
	bt->cpu = r->processor;
	bt->first_ts = h.first_timestamp;
	bt->p = bt->copy ? bt->copy : r->payload;
	bt->len = r->payload_len;
	bt->buffer_index = b->index;
	bt->buffer_offset = r->buffer_offset;
	bt->buffer_file_offset = b->offset;
	bt->file_offset = r->file_offset;
	c->compact.records++;
	c->compact.bytes += record_bytes(r->size);
	return 0;
}

/* One record: 0, or -1 (rd->err set). */
static int add_record(struct etl_switches_reader *rd, const struct etl_record *r,
		      const struct etl_buffer *b)
{
	struct etl_switch_cpu *c;

	if (r->kind != ETL_KIND_KERNEL)
		return 0;
	switch (r->hook_id) {
	case ETW_EVENT_CSWITCH_HOOK:
		return add_cswitch(rd, r, b);
	case ETW_EVENT_COMPACT_CSWITCH_HOOK:
		return add_batch(rd, r, b);
	case ETW_EVENT_READY_THREAD_HOOK:
		c = cpu_stats(rd, r->processor);
		if (!c)
			return oom(rd);
		c->ready_threads++;
		return 0;
	}
	return 0;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	return add_record(ctx, r, b);
}

struct etl_switches_reader *etl_switches_begin(struct etl_switches *s, struct etl_error *err)
{
	struct etl_switches_reader *rd = calloc(1, sizeof(*rd));

	memset(s, 0, sizeof(*s));
	if (!rd) {
		etl_error_set(err, "out of memory");
		return NULL;
	}
	rd->s = s;
	rd->err = err;
	return rd;
}

struct etl_walker etl_switches_walker(struct etl_switches_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

/* A CPU's batches in the order they were filled; the file order breaks ties. */
static int batch_cmp(const void *a, const void *b)
{
	const struct batch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

static int packet_error(struct etl_switches_reader *rd, const struct batch *bt, uint32_t n,
			uint32_t pos, const char *what)
{
	return etl_error_set(rd->err,
		"buffer %u (file offset 0x%llx): record at +0x%x: CompCS packet %u at payload +0x%x: %s",
		bt->buffer_index, (unsigned long long)bt->buffer_file_offset,
		bt->buffer_offset, n, pos, what);
}

/* One batch's packets to switches; *last is the time of its last switch. */
static int decode_batch(struct etl_switches_reader *rd, const struct batch *bt, int64_t *last)
{
	typedef struct perfinfo_ccswap_buffer B;
	struct etl_switch_cpu *c = &rd->s->cpu[bt->cpu];
	struct perfinfo_ccswap_packet pkt;
	struct perfinfo_ccswap_buffer h;
	int64_t time = bt->first_ts;
	uint32_t pos, n, count = 0;
	char what[128];

	memcpy(&h, bt->p, sizeof(h));
	for (pos = sizeof(B); pos < bt->len; pos += n, count++) {
		struct etl_switch *sw;

		n = perfinfo_ccswap_decode(bt->p + pos, bt->len - pos, &pkt);
		if (!n) {
			enum perfinfo_ccswap_type t = (enum perfinfo_ccswap_type)(bt->p[pos] & 3);

			snprintf(what, sizeof(what),
				 "runs past the record: %u byte%s left, a packet of type %u needs %u",
				 bt->len - pos, bt->len - pos == 1 ? "" : "s", t,
				 perfinfo_ccswap_packet_size(t));
			return packet_error(rd, bt, count, pos, what);
		}
		if (time > 0 && pkt.time_delta > INT64_MAX - time)
			return packet_error(rd, bt, count, pos,
					    "the time overflows 64 bits");
		time += pkt.time_delta;
		if ((pkt.type == PERF_CSWAP_LITE || pkt.type == PERF_CSWAP_FULL) &&
		    !h.tid_table[pkt.tid_index]) {
			snprintf(what, sizeof(what),
				 "OldThreadIdIndex %u points at an unused TidTable slot (0)",
				 pkt.tid_index);
			return packet_error(rd, bt, count, pos, what);
		}
		sw = new_switch(rd);
		if (!sw)
			return oom(rd);
		sw->time = time;
		sw->cpu = bt->cpu;
		sw->source = ETL_SWITCH_COMPACT;
		sw->packet_type = (uint8_t)pkt.type;
		sw->packet = (uint16_t)count;	/* a record holds < 0x8000 packets */
		sw->buffer_index = bt->buffer_index;
		sw->buffer_offset = bt->buffer_offset;
		sw->file_offset = bt->file_offset;
		switch (pkt.type) {
		case PERF_CSWAP_IDLE_SHORT:
		case PERF_CSWAP_IDLE:
			break;	/* the idle thread: nothing more is recorded */
		case PERF_CSWAP_LITE:
			sw->old_tid = h.tid_table[pkt.tid_index];
			sw->old_priority = (int8_t)(h.thread_base_priority[pkt.tid_index] +
						    pkt.pri_inc);
			sw->known = ETL_SWITCH_HAS_STATE | ETL_SWITCH_HAS_PRIORITY |
				    ETL_SWITCH_WAIT_AT_MOST_1;
			break;
		case PERF_CSWAP_FULL:
			sw->old_tid = h.tid_table[pkt.tid_index];
			sw->old_priority = (int8_t)pkt.priority;
			sw->new_wait_time = pkt.new_thread_wait_time;
			sw->known = ETL_SWITCH_HAS_STATE | ETL_SWITCH_HAS_PRIORITY |
				    ETL_SWITCH_HAS_WAIT;
			break;
		}
		if (sw->known & ETL_SWITCH_HAS_STATE) {
			if (pkt.state_wr < ETW_MAXIMUM_WAIT_REASON) {
				sw->old_state = ETW_KTHREAD_WAITING;
				sw->old_wait_reason = pkt.state_wr;
			} else {
				sw->old_state = (uint8_t)(pkt.state_wr - ETW_MAXIMUM_WAIT_REASON);
			}
		}
		c->compact.switches++;
	}
	*last = time;
	return 0;
}

static int decode_batches(struct etl_switches_reader *rd)
{
	int64_t last = 0;

	if (rd->nbatches)	/* qsort(NULL, 0) is undefined */
		qsort(rd->batches, rd->nbatches, sizeof(*rd->batches), batch_cmp);
	for (size_t i = 0; i < rd->nbatches; i++) {
		const struct batch *bt = &rd->batches[i];

		if (i && rd->batches[i - 1].cpu == bt->cpu && bt->first_ts < last)
			rd->s->cpu[bt->cpu].batch_overlaps++;
		if (decode_batch(rd, bt, &last))
			return -1;
	}
	return 0;
}

static int switch_cmp(const void *a, const void *b)
{
	const struct etl_switch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The thread a switch brings in is the one the next switch takes out. */
static void link_switches(struct etl_switches *s)
{
	for (size_t i = 0; i + 1 < s->n; i++) {
		struct etl_switch *sw = &s->v[i];
		const struct etl_switch *next = &s->v[i + 1];

		if (next->cpu != sw->cpu)
			continue;
		if (!(sw->known & ETL_SWITCH_HAS_NEW)) {
			sw->new_tid = next->old_tid;
			sw->known |= ETL_SWITCH_HAS_NEW;
		} else if (sw->new_tid != next->old_tid) {
			s->cpu[sw->cpu].chain_breaks++;
		}
	}
}

static void add_count(struct etl_switch_count *t, const struct etl_switch_count *c)
{
	t->switches += c->switches;
	t->records += c->records;
	t->bytes += c->bytes;
}

int etl_switches_end(struct etl_switches_reader *rd, bool walked)
{
	struct etl_switches *s = rd->s;
	int ret = -1;

	if (!walked || decode_batches(rd))
		goto out;
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), switch_cmp);
	link_switches(s);
	for (uint32_t i = 0; i < s->ncpus; i++) {
		const struct etl_switch_cpu *c = &s->cpu[i];

		add_count(&s->total.full, &c->full);
		add_count(&s->total.compact, &c->compact);
		s->total.ready_threads += c->ready_threads;
		s->total.chain_breaks += c->chain_breaks;
		s->total.batch_overlaps += c->batch_overlaps;
	}
	ret = 0;
out:
	for (size_t i = 0; i < rd->nbatches; i++)
		free(rd->batches[i].copy);
	free(rd->batches);
	free(rd);
	if (ret)
		etl_switches_free(s);
	return ret;
}

int etl_switches_read(const struct etl_file *f, struct etl_switches *s,
		      struct etl_error *err)
{
	struct etl_switches_reader *rd = etl_switches_begin(s, err);
	struct etl_walker w;

	if (!rd)
		return -1;
	w = etl_switches_walker(rd);
	return etl_switches_end(rd, !etl_walk(f, &w, err));
}

void etl_switches_free(struct etl_switches *s)
{
	free(s->v);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}

static const struct etl_switch *order_base;

static int file_order_cmp(const void *a, const void *b)
{
	const struct etl_switch *x = &order_base[*(const size_t *)a];
	const struct etl_switch *y = &order_base[*(const size_t *)b];

	if (x->file_offset != y->file_offset)
		return x->file_offset < y->file_offset ? -1 : 1;
	return x->packet < y->packet ? -1 : x->packet > y->packet;
}

size_t *etl_switches_file_order(const struct etl_switches *s)
{
	size_t *idx;

	if (!s->n || !(idx = malloc(s->n * sizeof(*idx))))
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		idx[i] = i;
	order_base = s->v;	/* qsort has no context argument */
	qsort(idx, s->n, sizeof(*idx), file_order_cmp);
	order_base = NULL;
	return idx;
}

static const char *name_or_number(const char *name, unsigned int v, char *buf,
				  size_t size)
{
	if (name)
		return name;
	snprintf(buf, size, "%u", v);
	return buf;
}

const char *etl_switch_format(const struct etl_switch *sw, char *buf, size_t size)
{
	char new[16] = "-", state[32] = "-", reason[32] = "-", prio[8] = "-";
	char wait[16] = "-", num[16];
	bool idle = sw->old_tid == 0;

	if (sw->known & ETL_SWITCH_HAS_NEW)
		snprintf(new, sizeof(new), "%u", sw->new_tid);
	if (!idle && (sw->known & ETL_SWITCH_HAS_STATE)) {
		snprintf(state, sizeof(state), "%s",
			 name_or_number(etl_kthread_state_name(sw->old_state),
					sw->old_state, num, sizeof(num)));
		if (sw->old_state == ETW_KTHREAD_WAITING)
			snprintf(reason, sizeof(reason), "%s",
				 name_or_number(etl_kwait_reason_name(sw->old_wait_reason),
						sw->old_wait_reason, num, sizeof(num)));
	}
	if (!idle && (sw->known & ETL_SWITCH_HAS_PRIORITY))
		snprintf(prio, sizeof(prio), "%d", sw->old_priority);
	if (!idle && (sw->known & ETL_SWITCH_WAIT_AT_MOST_1))
		snprintf(wait, sizeof(wait), "0-1");
	else if (!idle && (sw->known & ETL_SWITCH_HAS_WAIT)) {
		if (sw->new_wait_time <= 1)
			snprintf(wait, sizeof(wait), "0-1");
		else if (sw->new_wait_time >= WAIT_CAP)
			snprintf(wait, sizeof(wait), "%u+", WAIT_CAP);
		else
			snprintf(wait, sizeof(wait), "%u", sw->new_wait_time);
	}
	snprintf(buf, size, "switch cpu=%u time=%" PRId64 " old=%u new=%s state=%s reason=%s prio=%s wait=%s",
		 sw->cpu, sw->time, sw->old_tid, new, state, reason, prio, wait);
	return buf;
}
