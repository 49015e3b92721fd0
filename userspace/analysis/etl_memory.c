// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's memory section. See etl_memory.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl_array.h"
#include "etl_json.h"
#include "etl_memory.h"
#include "etl_report.h"

#define NO_TID	UINT32_MAX

/*
 * One page fault (kind < ETL_FAULT_KINDS), VirtualAlloc, VirtualFree or
 * VirtualAllocDCStart record, or one process's entry of a ProcessMemInfo
 * snapshot.
 */
enum { REC_ALLOC = ETL_FAULT_KINDS, REC_FREE, REC_DC_START, REC_SNAPSHOT };

struct mem_rec {
	int64_t time;
	uint64_t offset;		/* in the file: the order of records at one time */
	uint64_t base, size;		/* VirtualAlloc, VirtualFree */
	uint64_t ws, private_ws, commit;	/* a snapshot's, a DCStart's, bytes */
	uint32_t pid, tid, flags;
	uint8_t kind;
	bool first;			/* a snapshot's first entry: counts the snapshot */
};

/* A committed region no VirtualFree has released yet. */
struct live {
	uint32_t pid;
	uint64_t start, end;
};

struct etl_memory_reader {
	const struct etl_filter *flt;
	struct etl_memory *mem;
	struct etl_error *err;
	struct mem_rec *recs;
	size_t nrecs, recs_cap;
	struct live *live;
	size_t nlive, live_cap;
	struct etl_span span;
};

static int oom(struct etl_memory_reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the memory events");
}

static int fault_kind(uint16_t hook)
{
	switch (hook) {
	case ETW_EVENT_TRANSITION_FAULT_HOOK:
		return ETL_FAULT_TRANSITION;
	case ETW_EVENT_DEMAND_ZERO_FAULT_HOOK:
		return ETL_FAULT_DEMAND_ZERO;
	case ETW_EVENT_COPY_ON_WRITE_HOOK:
		return ETL_FAULT_COPY_ON_WRITE;
	case ETW_EVENT_GUARD_PAGE_FAULT_HOOK:
		return ETL_FAULT_GUARD;
	case ETW_EVENT_HARD_PAGE_FAULT_HOOK:
		return ETL_FAULT_HARD;
	case ETW_EVENT_ACCESS_VIOLATION_HOOK:
		return ETL_FAULT_ACCESS_VIOLATION;
	case ETW_EVENT_VIRTUAL_ALLOC_HOOK:
		return REC_ALLOC;
	case ETW_EVENT_VIRTUAL_FREE_HOOK:
		return REC_FREE;
	case ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK:
		return REC_DC_START;
	default:
		return -1;
	}
}

static struct mem_rec *new_rec(struct etl_memory_reader *rd)
{
	return ETL_ARRAY_PUSH(rd, recs);
}

/* A page count of a ProcessMemInfo entry, in bytes (Linux's pages are 4 KiB, as Windows'). */
static uint64_t pmi_bytes(const uint8_t *entry, enum etw_process_meminfo_count i)
{
	return etl_le64(entry + ETW_PROCESS_MEMINFO_COUNT_OFFSET(i)) * 4096;
}

/* A ProcessMemInfo snapshot (version 2 or later): one record a process in it. */
static int on_snapshot(struct etl_memory_reader *rd, const struct etl_record *rec)
{
	uint32_t n;

	rd->mem->any = true;
	if (rec->version < 2 || rec->payload_len < sizeof(struct etw_process_meminfo))
		return 0;
	n = etl_le32(rec->payload);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = rec->payload + sizeof(struct etw_process_meminfo) +
				   (size_t)i * ETW_PROCESS_MEMINFO_ENTRY_SIZE;
		struct mem_rec *r;

		if (e + ETW_PROCESS_MEMINFO_ENTRY_SIZE > rec->payload + rec->payload_len)
			break;
		r = new_rec(rd);
		if (!r)
			return oom(rd);
		r->time = rec->timestamp;
		r->offset = rec->file_offset;
		r->kind = REC_SNAPSHOT;
		r->first = !i;
		r->pid = etl_le32(e);
		r->tid = NO_TID;
		r->ws = pmi_bytes(e, ETW_PMI_WORKING_SET);
		r->private_ws = pmi_bytes(e, ETW_PMI_PRIVATE_WORKING_SET);
		r->commit = pmi_bytes(e, ETW_PMI_COMMIT);
	}
	return 0;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct etl_memory_reader *rd = ctx;
	struct mem_rec *r;
	int kind;

	etl_span_add(&rd->span, b, rec);
	if (rec->kind != ETL_KIND_KERNEL)
		return 0;
	if (rec->hook_id == ETW_EVENT_PROCESS_MEMINFO_HOOK)
		return on_snapshot(rd, rec);
	kind = fault_kind(rec->hook_id);
	if (kind < 0)
		return 0;
	rd->mem->any = true;
	if (kind < ETL_FAULT_KINDS ? !rec->has_ids || rec->payload_len < 16 :
	    kind == REC_DC_START ? rec->payload_len < sizeof(struct perfinfo_virtual_alloc_dc) :
				   rec->payload_len < sizeof(struct perfinfo_virtual_alloc))
		return 0;
	r = new_rec(rd);
	if (!r)
		return oom(rd);
	r->time = rec->timestamp;
	r->offset = rec->file_offset;
	r->kind = kind;
	if (kind < ETL_FAULT_KINDS) {
		r->pid = rec->process_id;
		r->tid = rec->thread_id;
	} else {
		r->base = etl_le64(rec->payload);
		r->size = etl_le64(rec->payload + 8);
		r->pid = etl_le32(rec->payload + 16);
		r->flags = etl_le32(rec->payload + 20);
		r->tid = NO_TID;
		if (kind == REC_DC_START)
			r->commit = etl_le64(rec->payload + 24);
	}
	return 0;
}

struct etl_memory_reader *etl_memory_begin(struct etl_memory *mem, const struct etl_filter *flt,
					   struct etl_error *err)
{
	struct etl_memory_reader *rd = calloc(1, sizeof(*rd));

	memset(mem, 0, sizeof(*mem));
	if (!rd) {
		etl_error_set(err, "out of memory reading the memory events");
		return NULL;
	}
	rd->flt = flt;
	rd->mem = mem;
	rd->err = err;
	etl_span_init(&rd->span);
	return rd;
}

struct etl_walker etl_memory_walker(struct etl_memory_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

static int by_time(const void *a, const void *b)
{
	const struct mem_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static struct etl_memory_row *row(struct etl_memory_reader *rd, const struct etl_model *m,
				  uint32_t pid)
{
	struct etl_memory *mem = rd->mem;
	struct etl_memory_row *r;
	const char *name;

	for (size_t i = 0; i < mem->nrows; i++)
		if (mem->rows[i].pid == pid)
			return &mem->rows[i];
	r = realloc(mem->rows, (mem->nrows + 1) * sizeof(*r));
	if (!r)
		return NULL;
	mem->rows = r;
	r = &mem->rows[mem->nrows++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	name = m ? etl_model_process_name(m, pid) : NULL;
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "?");
	return r;
}

/* The snapshot entry e into its process's working-set row (records in time order). */
static int ws_take(struct etl_memory_reader *rd, const struct etl_model *m,
		   const struct mem_rec *e)
{
	struct etl_memory *mem = rd->mem;
	struct etl_ws_row *r = NULL;
	const char *name;

	for (size_t i = 0; i < mem->nws && !r; i++)
		if (mem->ws[i].pid == e->pid)
			r = &mem->ws[i];
	if (!r) {
		r = realloc(mem->ws, (mem->nws + 1) * sizeof(*r));
		if (!r)
			return -1;
		mem->ws = r;
		r = &mem->ws[mem->nws++];
		memset(r, 0, sizeof(*r));
		r->pid = e->pid;
		name = m ? etl_model_process_name(m, e->pid) : NULL;
		snprintf(r->name, sizeof(r->name), "%s", name ? name : "?");
	}
	r->snapshots++;
	r->ws = e->ws;
	r->private_ws = e->private_ws;
	r->commit = e->commit;
	if (e->ws > r->peak_ws)
		r->peak_ws = e->ws;
	return 0;
}

static int ws_order(const void *a, const void *b)
{
	const struct etl_ws_row *x = a, *y = b;

	if (x->peak_ws != y->peak_ws)
		return x->peak_ws > y->peak_ws ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int row_order(const void *a, const void *b)
{
	const struct etl_memory_row *x = a, *y = b;

	if (x->all_faults != y->all_faults)
		return x->all_faults > y->all_faults ? -1 : 1;
	if (x->commit_bytes != y->commit_bytes)
		return x->commit_bytes > y->commit_bytes ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The collection's window ([a, b], in the file's clock), --time's part of it. */
static void window(const struct etl_file *f, const struct etl_memory_reader *rd, int64_t *a,
		   int64_t *b)
{
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;

	etl_span_collection(&rd->span, a, b);
	if (rd->flt && rd->flt->has_time && *b >= *a) {
		int64_t w0 = *a + (int64_t)(rd->flt->start_s * freq);
		int64_t w1 = *a + (int64_t)(rd->flt->end_s * freq);

		*a = w0 > *b ? *b : w0;
		*b = w1 < *b ? w1 : *b;
	}
}

/* Whether the filter keeps the record's process (and, for a fault, its thread). */
static bool selected(const struct etl_memory_reader *rd, const struct etl_model *m,
		     const struct mem_rec *r)
{
	const struct etl_model_thread *t;

	if (!etl_filter_by_thread(rd->flt))
		return true;
	t = m && r->tid != NO_TID ? etl_model_thread(m, r->tid) : NULL;
	return etl_filter_thread(rd->flt, r->tid, r->pid, t ? t->name : NULL,
				 m ? etl_model_process_name(m, r->pid) : NULL);
}

static int live_add(struct etl_memory_reader *rd, uint32_t pid, uint64_t start, uint64_t end)
{
	struct live *l = ETL_ARRAY_PUSH(rd, live);

	if (!l)
		return -1;
	*l = (struct live){ .pid = pid, .start = start, .end = end };
	return 0;
}

/* Release [start, end) of pid's committed regions: each overlap cut out (a middle one splits). */
static int live_release(struct etl_memory_reader *rd, uint32_t pid, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < rd->nlive) {
		struct live *l = &rd->live[i];

		if (l->pid != pid || l->end <= start || l->start >= end) {
			i++;
			continue;
		}
		if (l->start < start && l->end > end) {
			uint64_t tail = l->end;

			l->end = start;
			if (live_add(rd, pid, end, tail))
				return -1;
			i++;
		} else if (l->start < start) {
			l->end = start;
			i++;
		} else if (l->end > end) {
			l->start = end;
			i++;
		} else {
			rd->live[i] = rd->live[--rd->nlive];
		}
	}
	return 0;
}

static int count(struct etl_memory_reader *rd, const struct etl_file *f, const struct etl_model *m)
{
	struct etl_memory *mem = rd->mem;
	int64_t a, b;
	size_t i;

	window(f, rd, &a, &b);
	for (i = 0; i < rd->nrecs; i++) {
		const struct mem_rec *e = &rd->recs[i];
		struct etl_memory_row *r;

		if (e->time < a || e->time > b || !selected(rd, m, e))
			continue;
		mem->snapshots += e->kind == REC_SNAPSHOT && e->first;
		if (e->kind == REC_SNAPSHOT) {
			if (ws_take(rd, m, e))
				return oom(rd);
			continue;
		}
		/* the rundown: what was mapped before the trace, not a row's activity */
		if (e->kind == REC_DC_START) {
			mem->start_regions++;
			mem->start_commit_bytes += e->commit;
			continue;
		}
		r = row(rd, m, e->pid);
		if (!r)
			return oom(rd);
		if (e->kind < ETL_FAULT_KINDS) {
			r->faults[e->kind]++;
			r->all_faults++;
			mem->faults[e->kind]++;
			mem->all_faults++;
		} else if (e->kind == REC_ALLOC) {
			r->allocs++;
			mem->allocs++;
			if (e->flags & ETW_MEM_COMMIT) {
				r->commit_bytes += e->size;
				mem->commit_bytes += e->size;
				if (live_add(rd, e->pid, e->base, e->base + e->size))
					return oom(rd);
			} else {
				r->reserve_bytes += e->size;
			}
		} else {
			r->frees++;
			mem->frees++;
			r->freed_bytes += e->size;
			mem->freed_bytes += e->size;
			if (live_release(rd, e->pid, e->base, e->base + e->size))
				return oom(rd);
		}
	}
	for (i = 0; i < rd->nlive; i++) {
		struct etl_memory_row *r = row(rd, m, rd->live[i].pid);

		if (!r)
			return oom(rd);
		r->outstanding_bytes += rd->live[i].end - rd->live[i].start;
		mem->outstanding_bytes += rd->live[i].end - rd->live[i].start;
	}
	return 0;
}

int etl_memory_end(struct etl_memory_reader *rd, const struct etl_file *f,
		   const struct etl_model *m)
{
	int ret = 0;

	if (m && rd->nrecs) {
		/* each CPU's buffers hold its own records: VirtualFree after its VirtualAlloc */
		qsort(rd->recs, rd->nrecs, sizeof(*rd->recs), by_time);
		ret = count(rd, f, m);
		if (!ret && rd->mem->nrows)
			qsort(rd->mem->rows, rd->mem->nrows, sizeof(*rd->mem->rows), row_order);
		if (!ret && rd->mem->nws)
			qsort(rd->mem->ws, rd->mem->nws, sizeof(*rd->mem->ws), ws_order);
	}
	if (ret)
		etl_memory_free(rd->mem);
	free(rd->live);
	free(rd->recs);
	free(rd);
	return ret;
}

void etl_memory_free(struct etl_memory *mem)
{
	free(mem->ws);
	free(mem->rows);
	memset(mem, 0, sizeof(*mem));
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

static void print_rows(FILE *out, const struct etl_memory *mem, size_t top);

static void print_ws(FILE *out, const struct etl_memory *mem, size_t top)
{
	fprintf(out, "\nWorking sets per process (top %zu; %lu ProcessMemInfo snapshots; ws, private, commit: the last snapshot's):\n"
		"%8s %9s %12s %12s %12s %12s  %s\n", top, mem->snapshots, "pid", "snapshots",
		"peak ws MiB", "ws MiB", "private MiB", "commit MiB", "name");
	for (size_t i = 0; i < mem->nws && i < top; i++) {
		const struct etl_ws_row *r = &mem->ws[i];

		fprintf(out, "%8u %9lu %12.1f %12.1f %12.1f %12.1f  %s\n", r->pid, r->snapshots,
			mib(r->peak_ws), mib(r->ws), mib(r->private_ws), mib(r->commit), r->name);
	}
}

void etl_memory_print(FILE *out, const struct etl_memory *mem, size_t top)
{
	const unsigned long *k = mem->faults;

	if (!mem->any)
		return;
	fprintf(out, "\nMemory: %lu page faults (%lu transition, %lu demand zero, %lu copy on write, %lu hard, %lu access violations",
		mem->all_faults, k[ETL_FAULT_TRANSITION], k[ETL_FAULT_DEMAND_ZERO],
		k[ETL_FAULT_COPY_ON_WRITE], k[ETL_FAULT_HARD], k[ETL_FAULT_ACCESS_VIOLATION]);
	if (k[ETL_FAULT_GUARD])
		fprintf(out, ", %lu guard page", k[ETL_FAULT_GUARD]);
	fprintf(out, "); %lu VirtualAlloc (%.1f MiB committed), %lu VirtualFree (%.1f MiB), %.1f MiB outstanding",
		mem->allocs, mib(mem->commit_bytes), mem->frees, mib(mem->freed_bytes),
		mib(mem->outstanding_bytes));
	if (mem->start_regions)
		fprintf(out, "; mapped at the start: %lu regions, %.1f MiB committed",
			mem->start_regions, mib(mem->start_commit_bytes));
	fputc('\n', out);
	if (mem->nrows)
		print_rows(out, mem, top);
	if (mem->snapshots)
		print_ws(out, mem, top);
}

static void print_rows(FILE *out, const struct etl_memory *mem, size_t top)
{
	fprintf(out, "\nMemory per process (top %zu; outstanding: committed in the trace, not freed by its end):\n"
		"%8s %10s %10s %8s %8s %6s %8s %11s %8s %10s %11s  %s\n", top, "pid", "transition",
		"demandzero", "cow", "hard", "av", "allocs", "commit MiB", "frees", "freed MiB",
		"outst. MiB", "name");
	for (size_t i = 0; i < mem->nrows && i < top; i++) {
		const struct etl_memory_row *r = &mem->rows[i];

		fprintf(out, "%8u %10lu %10lu %8lu %8lu %6lu %8lu %11.1f %8lu %10.1f %11.1f  %s\n",
			r->pid, r->faults[ETL_FAULT_TRANSITION], r->faults[ETL_FAULT_DEMAND_ZERO],
			r->faults[ETL_FAULT_COPY_ON_WRITE], r->faults[ETL_FAULT_HARD],
			r->faults[ETL_FAULT_ACCESS_VIOLATION], r->allocs, mib(r->commit_bytes),
			r->frees, mib(r->freed_bytes), mib(r->outstanding_bytes), r->name);
	}
}

static void print_faults_json(FILE *out, const unsigned long *k)
{
	fprintf(out, "\"transition\": %lu, \"demand_zero\": %lu, \"copy_on_write\": %lu, \"guard_page\": %lu, \"hard\": %lu, \"access_violation\": %lu",
		k[ETL_FAULT_TRANSITION], k[ETL_FAULT_DEMAND_ZERO], k[ETL_FAULT_COPY_ON_WRITE],
		k[ETL_FAULT_GUARD], k[ETL_FAULT_HARD], k[ETL_FAULT_ACCESS_VIOLATION]);
}

void etl_memory_print_json(FILE *out, const struct etl_memory *mem)
{
	fprintf(out, "{\"faults\": %lu, ", mem->all_faults);
	print_faults_json(out, mem->faults);
	fprintf(out, ",\n    \"allocs\": %lu, \"commit_bytes\": %llu, \"frees\": %lu, \"freed_bytes\": %llu, \"outstanding_bytes\": %llu,\n    \"start_regions\": %lu, \"start_commit_bytes\": %llu,\n    \"processes\": [",
		mem->allocs, (unsigned long long)mem->commit_bytes, mem->frees,
		(unsigned long long)mem->freed_bytes, (unsigned long long)mem->outstanding_bytes,
		mem->start_regions, (unsigned long long)mem->start_commit_bytes);
	for (size_t i = 0; i < mem->nrows; i++) {
		const struct etl_memory_row *r = &mem->rows[i];

		fprintf(out, "%s\n      {\"pid\": %u, \"name\": ", i ? "," : "", r->pid);
		etl_json_str(out, r->name);
		fprintf(out, ", \"faults\": %lu, ", r->all_faults);
		print_faults_json(out, r->faults);
		fprintf(out, ", \"allocs\": %lu, \"commit_bytes\": %llu, \"reserve_bytes\": %llu, \"frees\": %lu, \"freed_bytes\": %llu, \"outstanding_bytes\": %llu}",
			r->allocs, (unsigned long long)r->commit_bytes,
			(unsigned long long)r->reserve_bytes, r->frees,
			(unsigned long long)r->freed_bytes, (unsigned long long)r->outstanding_bytes);
	}
	fprintf(out, "],\n    \"snapshots\": %lu, \"working_sets\": [", mem->snapshots);
	for (size_t i = 0; i < mem->nws; i++) {
		const struct etl_ws_row *r = &mem->ws[i];

		fprintf(out, "%s\n      {\"pid\": %u, \"name\": ", i ? "," : "", r->pid);
		etl_json_str(out, r->name);
		fprintf(out, ", \"snapshots\": %lu, \"peak_ws_bytes\": %llu, \"ws_bytes\": %llu, \"private_ws_bytes\": %llu, \"commit_bytes\": %llu}",
			r->snapshots, (unsigned long long)r->peak_ws, (unsigned long long)r->ws,
			(unsigned long long)r->private_ws, (unsigned long long)r->commit);
	}
	fprintf(out, "]}");
}
