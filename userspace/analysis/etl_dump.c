// SPDX-License-Identifier: GPL-2.0
/*
 * `ntkl dump`: a tracerpt-like summary of an ETL file.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_check.h"
#include "etl_dump.h"
#include "etl/etl_reader.h"
#include "etl/etl_switches.h"
#include "etl/etl_decode.h"
#include "etl/etl_events.h"
#include "etl/etl_index.h"
#include "etl/etl_names.h"
#include "etl_profile.h"
#include "etl/etl_model.h"
#include "symbols/symbols.h"
#include "etl/etl_providers.h"

/* ---------------------------------------------------------------------- */
/* Counts per event type                                                   */
/* ---------------------------------------------------------------------- */

/* What makes two events "the same type" depends on the header kind. */
struct type_key {
	uint8_t kind;			/* enum etl_record_kind */
	uint8_t header_type;
	uint16_t version;
	uint16_t id;			/* hook, Class.Type, or event id */
	uint8_t opcode;			/* EVENT_HEADER only */
	uint8_t guid[16];
};

struct type_count {
	struct type_key key;
	unsigned long count;
};

struct type_table {
	struct type_count *items;	/* in insertion order */
	size_t n, cap;
	struct etl_index index;		/* by key */
};

static void table_init(struct type_table *t)
{
	memset(t, 0, sizeof(*t));
	t->index.item_size = sizeof(struct type_count);
	t->index.key_off = offsetof(struct type_count, key);
	t->index.key_size = sizeof(struct type_key);
}

/* Count n more events of type k. */
static int table_add(struct type_table *t, const struct type_key *k, unsigned long n)
{
	size_t s, i = etl_index_find(&t->index, t->items, k, &s);

	if (i != SIZE_MAX) {
		t->items[i].count += n;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct type_count *items = realloc(t->items, cap * sizeof(*items));

		if (!items)
			return -1;
		t->items = items;
		t->cap = cap;
	}
	t->items[t->n].key = *k;
	t->items[t->n].count = n;
	if (etl_index_reserve(&t->index, t->items, t->n))
		return -1;
	etl_index_find(&t->index, t->items, k, &s);
	t->index.slots[s] = (uint32_t)++t->n;
	return 0;
}

static void table_free(struct type_table *t)
{
	free(t->items);
	etl_index_free(&t->index);
}

static void record_key(const struct etl_record *r, struct type_key *k)
{
	memset(k, 0, sizeof(*k));	/* the padding takes part in hash and compare */
	k->kind = (uint8_t)r->kind;
	k->header_type = r->header_type;
	k->version = r->version;
	switch (r->kind) {
	case ETL_KIND_KERNEL:
		k->id = r->hook_id;
		break;
	case ETL_KIND_CLASSIC:
		k->id = r->classic_type;
		break;
	case ETL_KIND_EVENT:
		k->id = r->descriptor.id;
		k->opcode = r->descriptor.opcode;
		break;
	}
	if (r->has_guid)
		memcpy(k->guid, r->guid, sizeof(k->guid));
}

static int key_cmp(const void *a, const void *b)
{
	const struct type_key *x = &((const struct type_count *)a)->key;
	const struct type_key *y = &((const struct type_count *)b)->key;
	int c;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	c = memcmp(x->guid, y->guid, sizeof(x->guid));
	if (c)
		return c;
	if (x->id != y->id)
		return x->id - y->id;
	if (x->header_type != y->header_type)
		return x->header_type - y->header_type;
	if (x->opcode != y->opcode)
		return x->opcode - y->opcode;
	return x->version - y->version;
}

/* ---------------------------------------------------------------------- */
/* Printing                                                                */
/* ---------------------------------------------------------------------- */

struct buffer_summary {
	uint32_t index;
	uint64_t offset;
	struct wmi_buffer_header hdr;
	uint32_t filled;
	unsigned long records;
	int64_t first_ts, last_ts;
	bool bad;			/* its records stopped at an error */
};

struct dump {
	const struct etl_file *f;
	const struct etl_filter *flt;	/* --stats' tables: NULL all */
	struct sym_loader *ld;		/* --stats' functions: NULL none */
	unsigned int flags;
	FILE *out, *err;
	const char *prefix;
	struct type_table types;
	struct etl_providers providers;	/* the user-mode providers */
	struct buffer_summary *bufs;
	size_t nbufs, bufs_cap;
	bool quiet;			/* errors are the check's to report */
	unsigned long records;
	int status;
	/* ETL_DUMP_EVENTS: the switches, printed next to their records */
	struct etl_switches sw;
	bool sw_ok;
	struct etl_error sw_err;	/* why they could not be read */
	bool sw_err_reported;		/* the walk said it already */
	size_t *sw_order;		/* indices into sw.v in file order */
	size_t sw_pos;
};

static void print_time_line(FILE *out, const char *label, int64_t ft)
{
	char buf[64];

	fprintf(out, "%-20s %s\n", label, etl_filetime_str(ft, buf, sizeof(buf)));
}

static void print_header(struct dump *d)
{
	const struct etl_file *f = d->f;
	const struct trace_logfile_header *h = &f->header;
	const char *clock = etl_clock_type_name(h->reserved_flags);
	FILE *out = d->out;
	char mode[512];

	fprintf(out, "%-20s %s (%" PRIu64 " bytes)\n", "File:", f->path, f->size);
	fprintf(out, "%-20s \"", "LoggerName:");
	etl_print_escaped(out, f->logger_name, SIZE_MAX, false);
	fprintf(out, "\"\n%-20s \"", "LogFileName:");
	etl_print_escaped(out, f->log_file_name, SIZE_MAX, false);
	fprintf(out, "\"\n");
	fprintf(out, "%-20s %u\n", "BufferSize:", h->buffer_size);
	fprintf(out, "%-20s 0x%08x (OS %u.%u, file format %u.%u)\n", "Version:",
		h->version, h->version & 0xFF, (h->version >> 8) & 0xFF,
		(h->version >> 16) & 0xFF, h->version >> 24);
	fprintf(out, "%-20s %u (OS build)\n", "ProviderVersion:", h->provider_version);
	fprintf(out, "%-20s %u\n", "NumberOfProcessors:", h->number_of_processors);
	print_time_line(out, "StartTime:", h->start_time);
	print_time_line(out, "EndTime:", h->end_time);
	print_time_line(out, "BootTime:", h->boot_time);
	fprintf(out, "%-20s %u (%u.%04u ms)\n", "TimerResolution:",
		h->timer_resolution, h->timer_resolution / 10000,
		h->timer_resolution % 10000);
	fprintf(out, "%-20s %u MB\n", "MaximumFileSize:", h->maximum_file_size);
	fprintf(out, "%-20s 0x%08x (%s)\n", "LogFileMode:", h->log_file_mode,
		etl_flags_str(etl_logfile_mode_names, h->log_file_mode, mode,
			      sizeof(mode)));
	fprintf(out, "%-20s %u\n", "BuffersWritten:", h->buffers_written);
	fprintf(out, "%-20s %u\n", "StartBuffers:", h->start_buffers);
	fprintf(out, "%-20s %u\n", "EventsLost:", h->events_lost);
	fprintf(out, "%-20s %u\n", "BuffersLost:", h->buffers_lost);
	fprintf(out, "%-20s %u\n", "PointerSize:", h->pointer_size);
	fprintf(out, "%-20s %u\n", "CpuSpeedInMHz:", h->cpu_speed_in_mhz);
	fprintf(out, "%-20s %" PRId64 "\n", "PerfFreq:", (int64_t)h->perf_freq);
	fprintf(out, "%-20s %u (%s)\n", "ClockType:", h->reserved_flags,
		clock ? clock : "unknown");
	fprintf(out, "%-20s %" PRId64 " (the Header event's clock value)\n",
		"StartClock:", f->header_system_time);
	fprintf(out, "%-20s %d min\n", "TimeZoneBias:", h->time_zone.bias);
}

/* The switches r recorded (a CSwitch event, or a CompCS batch's packets). */
static void print_switches_of(struct dump *d, const struct etl_record *r)
{
	const struct etl_switches *s = &d->sw;
	char line[256];

	if (!d->sw_order)
		return;
	while (d->sw_pos < s->n &&
	       s->v[d->sw_order[d->sw_pos]].file_offset < r->file_offset)
		d->sw_pos++;
	for (; d->sw_pos < s->n &&
	       s->v[d->sw_order[d->sw_pos]].file_offset == r->file_offset; d->sw_pos++)
		fprintf(d->out, "    %s\n",
			etl_switch_format(&s->v[d->sw_order[d->sw_pos]], line, sizeof(line)));
}

static void print_event(struct dump *d, const struct etl_record *r)
{
	FILE *out = d->out;
	char label[80], guid[48];
	double secs;

	fprintf(out, "[buf %u cpu %u +0x%x] %" PRId64, r->buffer_index,
		r->processor, r->buffer_offset, r->timestamp);
	if (etl_time_to_seconds(d->f, r->timestamp, &secs))
		fprintf(out, " (%+.7f s)", secs);
	if (r->has_ids)
		fprintf(out, " pid %u tid %u", r->process_id, r->thread_id);

	switch (r->kind) {
	case ETL_KIND_KERNEL:
		fprintf(out, " %s (0x%04x %s v%u, %u bytes)\n",
			etl_hook_label(r->hook_id, label, sizeof(label)),
			r->hook_id, etl_header_type_name(r->header_type),
			r->version, r->size);
		break;
	case ETL_KIND_CLASSIC:
		if (etl_record_listed(r))	/* an image identity: "ImageID/DbgID_RSDS" */
			fprintf(out, " %s", etl_hook_label(r->hook_id, label, sizeof(label)));
		fprintf(out, " class %s type %u level %u (%s v%u, %u bytes)\n",
			r->has_guid ? etl_guid_str(r->guid, guid, sizeof(guid)) : "(instance)",
			r->classic_type, r->classic_level,
			etl_header_type_name(r->header_type), r->version, r->size);
		break;
	case ETL_KIND_EVENT:
		fprintf(out, " provider %s id %u opcode %u task %u level %u keyword 0x%" PRIx64 " (%s v%u, %u bytes)\n",
			etl_guid_str(r->guid, guid, sizeof(guid)), r->descriptor.id,
			r->descriptor.opcode, r->descriptor.task,
			r->descriptor.level, (uint64_t)r->descriptor.keyword,
			etl_header_type_name(r->header_type), r->version, r->size);
		break;
	}
	if (!etl_decode_record(out, "    ", d->f, r) && r->payload_len)
		fprintf(out, "    payload: %u bytes, layout not decoded\n", r->payload_len);
	print_switches_of(d, r);
}

static void print_buffers(struct dump *d)
{
	char flags[128];

	fprintf(d->out, "\nBuffers:\n");
	fprintf(d->out, "%6s %12s %8s %8s %6s %4s  %-30s %-8s %8s %20s %20s\n",
		"index", "file offset", "size", "saved", "seq", "cpu", "flags",
		"type", "records", "first timestamp", "last timestamp");
	for (size_t i = 0; i < d->nbufs; i++) {
		const struct buffer_summary *s = &d->bufs[i];
		const char *type = etl_buffer_type_name(s->hdr.buffer_type);
		char tbuf[16];

		if (!type) {
			snprintf(tbuf, sizeof(tbuf), "%u", s->hdr.buffer_type);
			type = tbuf;
		}
		snprintf(flags, sizeof(flags), "0x%02x(", s->hdr.buffer_flag);
		etl_flags_str(etl_buffer_flag_names, s->hdr.buffer_flag,
			      flags + strlen(flags), sizeof(flags) - strlen(flags) - 1);
		strcat(flags, ")");
		fprintf(d->out, "%6u 0x%010" PRIx64 " %8u %8u %6" PRId64 " %4u  %-30s %-8s %8lu",
			s->index, s->offset, s->hdr.buffer_size, s->hdr.saved_offset,
			(int64_t)s->hdr.sequence_number, s->hdr.processor_index,
			flags, type, s->records);
		if (s->records)
			fprintf(d->out, " %20" PRId64 " %20" PRId64, s->first_ts, s->last_ts);
		if (s->filled != s->hdr.saved_offset)	/* the relogger's buffer 0 */
			fprintf(d->out, "  (records up to Offset 0x%x)", s->filled);
		fprintf(d->out, "%s\n", s->bad ? "  (stopped at an error)" : "");
	}
}

/* "0x0f2e PerfInfo/SampleProf", "class {...} type 32", "provider {...} id 144 opcode 40" */
static void print_event_name(FILE *out, const struct type_key *k)
{
	char label[80], guid[48];

	switch (k->kind) {
	case ETL_KIND_KERNEL:
		fprintf(out, "0x%04x %s\n", k->id, etl_hook_label(k->id, label, sizeof(label)));
		break;
	case ETL_KIND_CLASSIC: {
		static const uint8_t image_id[16] = ETW_IMAGE_ID_GUID;

		/* the image identities are in the event list: "ImageID/DbgID_RSDS" */
		if (!memcmp(k->guid, image_id, sizeof(image_id)))
			fprintf(out, "%s ", etl_hook_label(ETW_HOOK(ETW_GROUP_IMAGE_ID, k->id),
							   label, sizeof(label)));
		fprintf(out, "class %s type %u\n",
			etl_guid_str(k->guid, guid, sizeof(guid)), k->id);
		break;
	}
	default:
		fprintf(out, "provider %s id %u opcode %u\n",
			etl_guid_str(k->guid, guid, sizeof(guid)), k->id, k->opcode);
		break;
	}
}

static void print_types(struct dump *d)
{
	struct type_table *t = &d->types;

	if (t->n)	/* qsort(NULL, 0) is undefined */
		qsort(t->items, t->n, sizeof(*t->items), key_cmp);
	fprintf(d->out, "\nEvents by type:\n");
	fprintf(d->out, "%8s  %-16s %4s  %s\n", "count", "header", "ver", "event");
	for (size_t i = 0; i < t->n; i++) {
		const struct type_count *tc = &t->items[i];

		fprintf(d->out, "%8lu  %-16s %4u  ", tc->count,
			etl_header_type_name(tc->key.header_type), tc->key.version);
		print_event_name(d->out, &tc->key);
	}
	fprintf(d->out, "\nTotal: %lu events in %zu buffers, %zu event types\n",
		d->records, d->nbufs, t->n);
}

/* What the compressed buffers take on disk (BufferSize) and uncompressed (SavedOffset). */
static void print_compression(struct dump *d)
{
	uint64_t disk = 0, plain = 0;
	size_t n = 0;

	for (size_t i = 0; i < d->nbufs; i++) {
		const struct wmi_buffer_header *h = &d->bufs[i].hdr;

		if (!(h->buffer_flag & ETW_BUFFER_FLAG_COMPRESSED))
			continue;
		n++;
		disk += h->buffer_size;
		plain += h->saved_offset;
	}
	if (n)
		fprintf(d->out, "Compressed: %zu buffers, %" PRIu64 " bytes on disk for %" PRIu64 " uncompressed (%.1f%%)\n",
			n, disk, plain, plain ? 100.0 * (double)disk / (double)plain : 0.0);
}

/* ---------------------------------------------------------------------- */
/* The walk                                                                */
/* ---------------------------------------------------------------------- */

static void report(struct dump *d, const char *msg)
{
	if (!d->quiet)
		fprintf(d->err, "%s%s\n", d->prefix, msg);
	d->status = 1;
	if (!d->sw_ok && !strcmp(msg, d->sw_err.msg))
		d->sw_err_reported = true;
}

static int add_buffer(struct dump *d, const struct etl_buffer *b,
		      struct buffer_summary **s)
{
	if (d->nbufs == d->bufs_cap) {
		size_t cap = d->bufs_cap ? d->bufs_cap * 2 : 64;
		struct buffer_summary *n = realloc(d->bufs, cap * sizeof(*n));

		if (!n)
			return -1;
		d->bufs = n;
		d->bufs_cap = cap;
	}
	*s = &d->bufs[d->nbufs++];
	memset(*s, 0, sizeof(**s));
	(*s)->index = b->index;
	(*s)->offset = b->offset;
	(*s)->hdr = b->hdr;
	(*s)->filled = b->filled;
	return 0;
}

static void walk(struct dump *d)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	int rc;

	etl_buffers_begin(d->f, &bc);
	while ((rc = etl_next_buffer(d->f, &bc, &b, &err)) > 0) {
		struct etl_record_cursor rcur;
		struct buffer_summary *s;
		struct etl_record r;
		struct type_key k;
		int rr;

		if (add_buffer(d, &b, &s)) {
			report(d, "out of memory");
			etl_buffers_end(&bc);
			return;
		}
		etl_records_begin(&b, &rcur);
		while ((rr = etl_next_record(&b, &rcur, &r, &err)) > 0) {
			if (!s->records)
				s->first_ts = r.timestamp;
			s->last_ts = r.timestamp;
			s->records++;
			d->records++;
			record_key(&r, &k);
			if (table_add(&d->types, &k, 1)) {
				report(d, "out of memory");
				etl_buffers_end(&bc);
				return;
			}
			etl_providers_add(&d->providers, &r);
			if (d->flags & ETL_DUMP_EVENTS)
				print_event(d, &r);
		}
		if (rr < 0) {
			/* The buffer's size is sound: go on with the next one. */
			s->bad = true;
			report(d, err.msg);
		}
	}
	if (rc < 0) {
		char msg[sizeof(err.msg) + 128];

		snprintf(msg, sizeof(msg), "%s; the %zu buffers before it are shown", err.msg,
			 d->nbufs);
		report(d, msg);
	} else if (d->nbufs != d->f->header.buffers_written) {
		char msg[160];

		/* Windows rewrites BuffersWritten at stop; readers trust it. */
		snprintf(msg, sizeof(msg),
			 "file: %zu buffers in the file, but the header's BuffersWritten is %u: truncated or damaged file",
			 d->nbufs, d->f->header.buffers_written);
		report(d, msg);
	}
	/* A malformed batch the walk itself could not see. */
	if ((d->flags & ETL_DUMP_EVENTS) && !d->sw_ok && !d->sw_err_reported)
		report(d, d->sw_err.msg);
}

struct check_ctx {
	struct dump *d;
	unsigned long shown;
};

#define CHECK_MAX_SHOWN	100

static void on_violation(void *ctx, const char *msg)
{
	struct check_ctx *c = ctx;

	if (c->shown++ < CHECK_MAX_SHOWN)
		fprintf(c->d->err, "%s%s\n", c->d->prefix, msg);
}

static void run_check(struct dump *d)
{
	struct check_ctx ctx = { .d = d };
	struct etl_check_stats st;

	if (!etl_check(d->f, false, on_violation, &ctx, &st)) {
		fprintf(d->out, "%s: OK: %lu buffers, %lu events, every check passed\n",
			d->f->path, st.buffers, st.records);
		return;
	}
	if (st.violations > CHECK_MAX_SHOWN)
		fprintf(d->err, "%s... %lu more violations not shown\n", d->prefix,
			st.violations - CHECK_MAX_SHOWN);
	fprintf(d->err, "%s%lu check violation%s\n", d->prefix, st.violations,
		st.violations == 1 ? "" : "s");
	d->status = 1;
}

/* ---------------------------------------------------------------------- */
/* Context switches: --stats and --switches                                */
/* ---------------------------------------------------------------------- */

static void print_bytes_per_switch(FILE *out, const struct etl_switch_count *c)
{
	if (c->switches)
		fprintf(out, " %13.2f\n", (double)c->bytes / (double)c->switches);
	else
		fprintf(out, " %13s\n", "-");
}

static void print_source(FILE *out, const struct etl_switches *s, bool compact)
{
	const struct etl_switch_count *t = compact ? &s->total.compact : &s->total.full;

	if (compact)
		fprintf(out, "\nCompCS (0x0525): compact batches, the thread switched in is the next switch's old thread\n");
	else
		fprintf(out, "\nCSwitch (0x0524): one event per switch\n");
	if (!t->records) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "%6s %10s %10s %12s %13s\n", "cpu", "switches",
		compact ? "batches" : "events", "bytes", "bytes/switch");
	for (uint32_t i = 0; i < s->ncpus; i++) {
		const struct etl_switch_count *c = compact ? &s->cpu[i].compact : &s->cpu[i].full;

		fprintf(out, "%6u %10lu %10lu %12" PRIu64, i, c->switches, c->records, c->bytes);
		print_bytes_per_switch(out, c);
	}
	fprintf(out, "%6s %10lu %10lu %12" PRIu64, "total", t->switches, t->records, t->bytes);
	print_bytes_per_switch(out, t);
}

static void print_stats(struct dump *d, const struct etl_switches *s)
{
	const struct trace_logfile_header *h = &d->f->header;
	const char *clock = etl_clock_type_name(h->reserved_flags);
	FILE *out = d->out;

	fprintf(out, "File: %s\n", d->f->path);
	fprintf(out, "Clock: %u (%s), PerfFreq %" PRId64 "\n", h->reserved_flags,
		clock ? clock : "unknown", (int64_t)h->perf_freq);
	fprintf(out, "Context switches: %lu (CSwitch %lu, CompCS %lu)\n",
		s->total.full.switches + s->total.compact.switches,
		s->total.full.switches, s->total.compact.switches);
	print_source(out, s, false);
	print_source(out, s, true);

	fprintf(out, "\nReadyThread (0x0532)\n");
	if (!s->total.ready_threads) {
		fprintf(out, "  none\n");
	} else {
		fprintf(out, "%6s %10s\n", "cpu", "events");
		for (uint32_t i = 0; i < s->ncpus; i++)
			fprintf(out, "%6u %10lu\n", i, s->cpu[i].ready_threads);
		fprintf(out, "%6s %10lu\n", "total", s->total.ready_threads);
	}
	/* Signs of lost events or a confused producer; silent when clean. */
	if (s->total.chain_breaks)
		fprintf(out, "\nCSwitch events whose NewThreadId is not the next switch's OldThreadId on the CPU: %lu\n",
			s->total.chain_breaks);
	if (s->total.batch_overlaps)
		fprintf(out, "\nCompCS batches starting before the previous batch of the CPU ended: %lu\n",
			s->total.batch_overlaps);
}

/* ---------------------------------------------------------------------- */
/* Sampled profile: --stats                                                */
/* ---------------------------------------------------------------------- */

#define PROFILE_TOP	10
#define PROFILE_ALL	SIZE_MAX

static double percent(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The rows of --stats' tables: --top's, --all's, or PROFILE_TOP. */
static size_t stats_rows(const struct dump *d)
{
	if (d->flt && d->flt->top)
		return d->flt->top;
	return d->flags & ETL_DUMP_ALL_ROWS ? PROFILE_ALL : PROFILE_TOP;
}

/* Samples per CPU, then the busiest processes and threads; nothing without samples. */
static void print_profile(struct dump *d, const struct etl_profile *pp)
{
	const struct etl_profile p = *pp;
	size_t rows = stats_rows(d);
	FILE *out = d->out;
	char top[48] = "all";
	size_t i, shown;

	if (!p.samples)
		return;
	fprintf(out, "\nSampledProfile (0x0F2E): %lu samples (%lu in user space)", p.samples,
		p.user_samples);
	if (p.interval)
		fprintf(out, ", interval %u x 100 ns (%.4f ms)", p.interval, p.interval / 1e4);
	fprintf(out, "; CollectionStart %lu, CollectionEnd %lu, SetInterval %lu\n",
		p.collection_starts, p.collection_ends, p.set_intervals);
	fprintf(out, "Rate: %.1f samples per CPU per second achieved (%u CPUs, the %.3f s collection)",
		p.achieved_hz, p.cpus, p.duration_s);
	if (p.requested_hz > 0)
		fprintf(out, ", %.1f requested: %.1f%%\n", p.requested_hz,
			100.0 * p.achieved_hz / p.requested_hz);
	else
		fprintf(out, "; the interval requested is not in the file\n");
	fprintf(out, "%6s %10s\n", "cpu", "samples");
	for (uint32_t c = 0; c < p.ncpus; c++)
		fprintf(out, "%6u %10lu\n", c, p.cpu[c]);
	fprintf(out, "%6s %10lu\n", "total", p.samples);

	if (rows != PROFILE_ALL && d->flt && d->flt->sort != ETL_SORT_CPU)
		snprintf(top, sizeof(top), "first %zu by %s", rows,
			 d->flt->sort == ETL_SORT_PID ? "pid" : d->flt->sort == ETL_SORT_TID ? "tid" : "name");
	else if (rows != PROFILE_ALL)
		snprintf(top, sizeof(top), "top %zu", rows);
	fprintf(out, "\nProcesses by samples (%s):\n%8s %10s %7s  %s\n", top,
		"pid", "samples", "%", "name");
	for (i = 0; i < p.nprocs && i < rows; i++) {
		if (p.procs[i].pid == UINT32_MAX)
			fprintf(out, "%8s", "?");
		else
			fprintf(out, "%8u", p.procs[i].pid);
		fprintf(out, " %10lu %6.2f%%  %s\n", p.procs[i].samples,
			percent(p.procs[i].samples, p.samples), p.procs[i].name);
	}
	fprintf(out, "\nThreads by samples (%s):\n%8s %8s %10s %7s  %s\n", top,
		"tid", "pid", "samples", "%", "name");
	shown = 0;
	for (i = 0; i < p.nthreads && shown < rows; i++) {
		const struct etl_profile_thread *t = &p.threads[i];

		if (!t->samples)
			continue;
		shown++;
		fprintf(out, "%8u ", t->tid);
		if (t->pid == UINT32_MAX)
			fprintf(out, "%8s", "?");
		else
			fprintf(out, "%8u", t->pid);
		fprintf(out, " %10lu %6.2f%%  %s\n", t->samples, percent(t->samples, p.samples),
			t->name);
	}
	fprintf(out, "\nImages by samples (%s; IPs in an Image record: kernel %lu of %lu, %.2f%%; user %lu of %lu, %.2f%%):\n%10s %7s  %s\n",
		top, p.kernel_resolved, p.samples - p.user_samples,
		percent(p.kernel_resolved, p.samples - p.user_samples), p.user_resolved,
		p.user_samples, percent(p.user_resolved, p.user_samples), "samples", "%", "image");
	for (i = 0; i < p.nmodules && i < rows; i++)
		fprintf(out, "%10lu %6.2f%%  %s\n", p.modules[i].samples,
			percent(p.modules[i].samples, p.samples), p.modules[i].name);
}

/* ---------------------------------------------------------------------- */
/* ISR, DPC, TimerDPC: --stats                                             */
/* ---------------------------------------------------------------------- */

#define DPC_ROUTINES	4096

struct dpc_routine {
	uint16_t hook;
	uint64_t routine;
	unsigned long count;
	uint64_t ticks, max_ticks;	/* the logger's clock */
};

static int dpc_by_time(const void *a, const void *b)
{
	const struct dpc_routine *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? 1 : -1;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* ISR, DPC and TimerDPC records per event and Routine, in the stats pass. */
struct dpc_table {
	struct dpc_routine *v;		/* DPC_ROUTINES of them */
	size_t n, other;
};

static int dpc_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct dpc_table *t = ctx;
	uint64_t start, routine, ticks;
	size_t i;

	(void)b;
	if (r->kind != ETL_KIND_KERNEL || r->version != 2 ||
	    (r->hook_id != ETW_EVENT_ISR_HOOK && r->hook_id != ETW_EVENT_DPC_HOOK &&
	     r->hook_id != ETW_EVENT_TIMER_DPC_HOOK) || r->payload_len < 16)
		return 0;
	memcpy(&start, r->payload, 8);
	memcpy(&routine, r->payload + 8, 8);
	ticks = (uint64_t)r->timestamp > start ? (uint64_t)r->timestamp - start : 0;
	for (i = 0; i < t->n; i++)
		if (t->v[i].hook == r->hook_id && t->v[i].routine == routine)
			break;
	if (i == t->n) {
		if (t->n == DPC_ROUTINES) {
			t->other++;
			return 0;
		}
		t->v[t->n].hook = r->hook_id;
		t->v[t->n++].routine = routine;
	}
	t->v[i].count++;
	t->v[i].ticks += ticks;
	if (ticks > t->v[i].max_ticks)
		t->v[i].max_ticks = ticks;
	return 0;
}

/*
 * Count and time (record time less InitialTime) per event and Routine,
 * most time first; nothing without such events.
 */
static void print_dpc(struct dump *d, struct dpc_table *t)
{
	double us_per_tick = d->f->header.perf_freq > 0 ? 1e6 / (double)d->f->header.perf_freq : 0;
	struct dpc_routine *v = t->v;
	size_t i;

	if (!t->n)
		return;
	qsort(v, t->n, sizeof(*v), dpc_by_time);
	fprintf(d->out, "\nISR, DPC and TimerDPC by Routine (time from InitialTime to the record):\n"
		"%-8s %18s %10s %12s %10s\n", "event", "routine", "count", "total us",
		"max us");
	for (i = 0; i < t->n; i++)
		fprintf(d->out, "%-8s %#18" PRIx64 " %10lu %12.1f %10.1f\n",
			etl_event_find(v[i].hook)->label,
			v[i].routine, v[i].count, (double)v[i].ticks * us_per_tick,
			(double)v[i].max_ticks * us_per_tick);
	if (t->other)
		fprintf(d->out, "(%zu records of further routines not listed)\n", t->other);
}

static void print_switch_list(struct dump *d, const struct etl_switches *s)
{
	const struct trace_logfile_header *h = &d->f->header;
	FILE *out = d->out;

	fprintf(out, "# cpu time old new clock=%u freq=%" PRId64 "\n",
		h->reserved_flags, (int64_t)h->perf_freq);
	for (size_t i = 0; i < s->n; i++) {
		const struct etl_switch *sw = &s->v[i];

		fprintf(out, "%u %" PRId64 " %u ", sw->cpu, sw->time, sw->old_tid);
		if (sw->known & ETL_SWITCH_HAS_NEW)
			fprintf(out, "%u\n", sw->new_tid);
		else
			fputs("-\n", out);
	}
}

/* Most events first; the type order among equals. */
static int count_cmp(const void *a, const void *b)
{
	const struct type_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return key_cmp(a, b);
}

/* The counts of the walk by event name: header type and version merged. */
static void print_names(struct dump *d)
{
	struct type_table names;

	table_init(&names);
	for (size_t i = 0; i < d->types.n; i++) {
		struct type_key k = d->types.items[i].key;

		k.header_type = 0;
		k.version = 0;
		if (table_add(&names, &k, d->types.items[i].count)) {
			report(d, "out of memory");
			table_free(&names);
			return;
		}
	}
	if (names.n)	/* qsort(NULL, 0) is undefined */
		qsort(names.items, names.n, sizeof(*names.items), count_cmp);
	fprintf(d->out, "\nEvents by name\n%8s  %s\n", "count", "event");
	for (size_t i = 0; i < names.n; i++) {
		fprintf(d->out, "%8lu  ", names.items[i].count);
		print_event_name(d->out, &names.items[i].key);
	}
	fprintf(d->out, "%8lu  total, in %zu buffers\n", d->records, d->nbufs);
	table_free(&names);
}

static int addrs_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	(void)b;
	return sym_trace_gather(ctx, r);
}

/*
 * --stats: the switches, the samples, the ISR/DPC routines and the sampled
 * addresses in one pass with one model (etl_model_read_all()); then the
 * walk that counts every record by event (it goes on past a bad buffer,
 * as the summary's does); the functions last, named with d->ld.
 */
static void dump_stats(struct dump *d)
{
	struct dpc_table dpc = { .v = calloc(DPC_ROUTINES, sizeof(*dpc.v)) };
	struct sym_trace_addrs addrs = { 0 };
	struct sym_functions fn = { 0 };
	struct etl_switches_reader *sr;
	struct etl_profile_reader *pr;
	struct etl_walker also[4];
	struct sym_trace trace = { 0 };
	struct etl_switches s;
	struct etl_profile p;
	struct etl_model m;
	struct etl_error e;
	bool walked, p_ok;
	char msg[512];

	sr = etl_switches_begin(&s, &e);
	pr = etl_profile_begin(&p, d->flt, &e);
	if (!dpc.v || !sr || !pr) {
		report(d, "out of memory");
		if (sr)
			etl_switches_end(sr, false);
		if (pr)
			etl_profile_end(pr, d->f, NULL);
		free(dpc.v);
		return;
	}
	also[0] = etl_switches_walker(sr);
	also[1] = etl_profile_walker(pr);
	also[2] = (struct etl_walker){ .record = dpc_record, .ctx = &dpc };
	also[3] = (struct etl_walker){ .record = addrs_record, .ctx = &addrs };
	walked = !etl_model_read_all(d->f, &m, also, 4, &e);
	if (etl_switches_end(sr, walked) || !walked) {
		report(d, e.msg);
		etl_profile_end(pr, d->f, NULL);
		goto out;
	}
	p_ok = !etl_profile_end(pr, d->f, &m);
	print_stats(d, &s);
	if (p_ok)
		print_profile(d, &p);
	else
		report(d, e.msg);
	print_dpc(d, &dpc);
	walk(d);
	print_names(d);
	if (d->ld && !d->status) {
		if (sym_trace_from_model(&trace, &m, &addrs))
			report(d, "out of memory");
		else if (sym_functions_of(&trace, d->ld, &fn, msg, sizeof(msg)))
			report(d, msg);
		else
			sym_functions_print(d->out, &fn, stats_rows(d));
	}
	etl_profile_free(&p);
out:
	sym_functions_free(&fn);
	sym_trace_free(&trace);
	sym_trace_addrs_free(&addrs);
	etl_model_free(&m);
	etl_switches_free(&s);
	free(dpc.v);
}

static void dump_switches(struct dump *d)
{
	struct etl_switches s;
	struct etl_error e;

	if (etl_switches_read(d->f, &s, &e)) {
		report(d, e.msg);
		return;
	}
	print_switch_list(d, &s);
	etl_switches_free(&s);
}

static int dump_file(const struct etl_file *f, unsigned int flags, const struct etl_filter *flt,
		     struct sym_loader *ld, FILE *out, FILE *err, const char *prefix)
{
	struct dump d = {
		.f = f, .flags = flags, .out = out, .err = err, .prefix = prefix, .flt = flt,
		.ld = ld,
	};

	table_init(&d.types);
	if (flags & ETL_DUMP_STATS) {
		dump_stats(&d);
		goto out;
	}
	if (flags & ETL_DUMP_SWITCHES) {
		dump_switches(&d);
		goto out;
	}
	if (flags & ETL_DUMP_EVENTS) {
		d.sw_ok = !etl_switches_read(f, &d.sw, &d.sw_err);
		if (d.sw_ok && d.sw.n && !(d.sw_order = etl_switches_file_order(&d.sw)))
			report(&d, "out of memory");
	}

	if (flags & ETL_DUMP_CHECK) {
		if (flags & ETL_DUMP_EVENTS) {
			d.quiet = true;	/* the check reports problems itself */
			walk(&d);
			d.quiet = false;
			d.status = 0;
		}
		run_check(&d);
		goto out;
	}

	/*
	 * A file cut short (a VM that died while recording) or a corrupt
	 * buffer: every buffer before it is shown, then the error, as
	 * trace-cmd and perf do (the walk reports it; the status is 1).
	 */
	print_header(&d);
	if (flags & ETL_DUMP_EVENTS)
		fprintf(out, "\nEvents:\n");
	walk(&d);
	print_buffers(&d);
	print_types(&d);
	etl_providers_print(out, &d.providers);
	print_compression(&d);
out:
	table_free(&d.types);
	etl_providers_free(&d.providers);
	free(d.bufs);
	free(d.sw_order);
	etl_switches_free(&d.sw);
	fflush(out);
	return d.status;
}

int etl_dump_memory(const char *name, const void *data, uint64_t size,
		    unsigned int flags, FILE *out, FILE *err,
		    const char *err_prefix)
{
	struct etl_file f;
	struct etl_error e;
	int ret;

	if (etl_open_memory(&f, name, data, size, &e)) {
		fprintf(err, "%s%s\n", err_prefix, e.msg);
		return 1;
	}
	ret = dump_file(&f, flags, NULL, NULL, out, err, err_prefix);
	etl_close(&f);
	return ret;
}

int etl_dump_path(const char *path, unsigned int flags, FILE *out, FILE *err,
		  const char *err_prefix)
{
	return etl_dump_path_filtered(path, flags, NULL, out, err, err_prefix);
}

int etl_dump_path_filtered(const char *path, unsigned int flags, const struct etl_filter *flt,
			   FILE *out, FILE *err, const char *err_prefix)
{
	return etl_dump_path_named(path, flags, flt, NULL, out, err, err_prefix);
}

int etl_dump_path_named(const char *path, unsigned int flags, const struct etl_filter *flt,
			struct sym_loader *ld, FILE *out, FILE *err, const char *err_prefix)
{
	struct etl_file f;
	struct etl_error e;
	int ret;

	if (etl_open(&f, path, &e)) {
		fprintf(err, "%s%s\n", err_prefix, e.msg);
		return 1;
	}
	ret = dump_file(&f, flags, flt, ld, out, err, err_prefix);
	etl_close(&f);
	return ret;
}
