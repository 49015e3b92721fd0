// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's system calls section. See etl_syscalls.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl/etl_switches.h"
#include "etl_array.h"
#include "etl_json.h"
#include "etl_report.h"
#include "etl_syscalls.h"
#include "symbols/sym.h"
#include "symbols/sym_load.h"
#include "symbols/sym_trace.h"

#define NO_PID	UINT32_MAX
#define NO_TID	UINT32_MAX

/* A SysClEnter (enter true, value the address) or SysClExit (value the status). */
struct sc_rec {
	int64_t time;
	uint64_t offset;		/* in the file: the order of a CPU's records at one time */
	uint64_t value;
	uint32_t cpu, tid;
	bool enter;
};

struct etl_syscalls_reader {
	const struct etl_filter *flt;
	struct etl_syscalls *s;
	struct etl_error *err;
	struct sc_rec *recs;
	size_t nrecs, recs_cap;
	struct etl_span span;
};

static int oom(struct etl_syscalls_reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the system call events");
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct etl_syscalls_reader *rd = ctx;
	struct sc_rec *r;
	bool enter;

	etl_span_add(&rd->span, b, rec);
	if (rec->kind != ETL_KIND_KERNEL)
		return 0;
	if (rec->hook_id == ETW_EVENT_SYSCALL_ENTER_HOOK)
		enter = true;
	else if (rec->hook_id == ETW_EVENT_SYSCALL_EXIT_HOOK)
		enter = false;
	else
		return 0;
	rd->s->any = true;
	if (rec->payload_len < (enter ? sizeof(struct perfinfo_syscall_enter) :
			       sizeof(struct perfinfo_syscall_exit)))
		return 0;
	r = ETL_ARRAY_PUSH(rd, recs);
	if (!r)
		return oom(rd);
	r->time = rec->timestamp;
	r->offset = rec->file_offset;
	r->cpu = rec->processor;
	r->enter = enter;
	r->tid = NO_TID;
	r->value = enter ? etl_le64(rec->payload) : etl_le32(rec->payload);
	return 0;
}

struct etl_syscalls_reader *etl_syscalls_begin(struct etl_syscalls *s,
					       const struct etl_filter *flt,
					       struct etl_error *err)
{
	struct etl_syscalls_reader *rd = calloc(1, sizeof(*rd));

	memset(s, 0, sizeof(*s));
	if (!rd) {
		etl_error_set(err, "out of memory reading the system call events");
		return NULL;
	}
	rd->flt = flt;
	rd->s = s;
	rd->err = err;
	etl_span_init(&rd->span);
	return rd;
}

struct etl_walker etl_syscalls_walker(struct etl_syscalls_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

static int by_cpu_time(const void *a, const void *b)
{
	const struct sc_rec *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* A switch of the CPU at or after rec: later, or at its time and later in the file. */
static bool switch_after(const struct etl_switch *sw, const struct sc_rec *r)
{
	if (sw->time != r->time)
		return sw->time > r->time;
	return sw->file_offset > r->offset;
}

/*
 * Each record's thread: the old thread of its CPU's next switch; after
 * the CPU's last switch, that switch's new thread (if known). Both arrays
 * are sorted by CPU, then time.
 */
static void attribute(struct etl_syscalls_reader *rd, const struct etl_switches *sw)
{
	size_t i, j = 0;

	for (i = 0; i < rd->nrecs; i++) {
		struct sc_rec *r = &rd->recs[i];
		const struct etl_switch *last = NULL;

		while (j < sw->n && (sw->v[j].cpu < r->cpu ||
				     (sw->v[j].cpu == r->cpu && !switch_after(&sw->v[j], r))))
			j++;
		if (j < sw->n && sw->v[j].cpu == r->cpu) {
			r->tid = sw->v[j].old_tid;
			continue;
		}
		if (j > 0 && sw->v[j - 1].cpu == r->cpu)
			last = &sw->v[j - 1];
		if (last && (last->known & ETL_SWITCH_HAS_NEW))
			r->tid = last->new_tid;
	}
}

static int by_tid_time(const void *a, const void *b)
{
	const struct sc_rec *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static struct etl_syscall_row *row(struct etl_syscalls_reader *rd, const struct etl_model *m,
				   uint32_t pid, uint64_t address)
{
	struct etl_syscalls *s = rd->s;
	struct etl_syscall_row *r;
	const char *name;

	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].pid == pid && s->rows[i].address == address)
			return &s->rows[i];
	r = realloc(s->rows, (s->nrows + 1) * sizeof(*r));
	if (!r)
		return NULL;
	s->rows = r;
	r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->address = address;
	name = pid == NO_PID || !m ? NULL : etl_model_process_name(m, pid);
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "?");
	return r;
}

static int row_by_time(const void *a, const void *b)
{
	const struct etl_syscall_row *x = a, *y = b;

	if (x->total_ms != y->total_ms)
		return x->total_ms > y->total_ms ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* The collection's window ([a, b], in the file's clock), --time's part of it. */
static void window(const struct etl_file *f, const struct etl_syscalls_reader *rd, int64_t *a,
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

/* Whether the filter keeps thread tid; its process in *pid. */
static bool selected(const struct etl_syscalls_reader *rd, const struct etl_model *m,
		     uint32_t tid, uint32_t *pid)
{
	const struct etl_model_thread *t = m ? etl_model_thread(m, tid) : NULL;

	*pid = t ? t->pid : NO_PID;
	if (!etl_filter_by_thread(rd->flt))
		return true;
	return etl_filter_thread(rd->flt, tid, *pid, t ? t->name : NULL,
				 m ? etl_model_process_name(m, *pid) : NULL);
}

/* Each thread's calls, in its order: an enter, then its exit unless another enter comes first. */
static int count_calls(struct etl_syscalls_reader *rd, const struct etl_file *f,
		       const struct etl_model *m)
{
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;
	struct etl_syscalls *s = rd->s;
	int64_t a, b;
	size_t i;

	window(f, rd, &a, &b);
	for (i = 0; i < rd->nrecs; i++) {
		const struct sc_rec *e = &rd->recs[i], *x = i + 1 < rd->nrecs ? &rd->recs[i + 1] : NULL;
		struct etl_syscall_row *r;
		uint32_t pid;

		if (!e->enter || e->tid == NO_TID || e->time < a || e->time > b ||
		    !selected(rd, m, e->tid, &pid))
			continue;
		r = row(rd, m, pid, e->value);
		if (!r)
			return oom(rd);
		r->calls++;
		if (x && x->tid == e->tid && !x->enter) {
			double ms = (double)(x->time - e->time) / freq * 1e3;

			r->timed++;
			r->total_ms += ms;
			if (ms > r->max_ms)
				r->max_ms = ms;
			r->failed += x->value != ETW_STATUS_SUCCESS;
		}
	}
	for (i = 0; i < rd->nrecs; i++) {
		const struct sc_rec *e = &rd->recs[i];

		if (e->time < a || e->time > b)
			continue;
		if (e->tid == NO_TID) {
			s->unattributed++;
			continue;
		}
		s->enters += e->enter;
		s->exits += !e->enter;
	}
	return 0;
}

int etl_syscalls_end(struct etl_syscalls_reader *rd, const struct etl_file *f,
		     const struct etl_model *m, const struct etl_switches *sw)
{
	int ret = 0;

	if (m && sw && rd->nrecs) {
		qsort(rd->recs, rd->nrecs, sizeof(*rd->recs), by_cpu_time);
		attribute(rd, sw);
		qsort(rd->recs, rd->nrecs, sizeof(*rd->recs), by_tid_time);
		ret = count_calls(rd, f, m);
		if (!ret && rd->s->nrows)
			qsort(rd->s->rows, rd->s->nrows, sizeof(*rd->s->rows), row_by_time);
	}
	if (ret)
		etl_syscalls_free(rd->s);
	free(rd->recs);
	free(rd);
	return ret;
}

/* The kernel image of t that holds addr, or NULL. */
static const struct sym_trace_image *kernel_image_of(const struct sym_trace *t, uint64_t addr)
{
	for (size_t i = 0; i < t->n && !t->v[i].pid; i++)
		if (addr >= t->v[i].base && addr - t->v[i].base < t->v[i].size)
			return &t->v[i];
	return NULL;
}

int etl_syscalls_name(struct etl_syscalls *s, const struct sym_trace *t, struct sym_loader *ld)
{
	/* each image loaded once, for every row it holds (t's kernel images come first) */
	for (size_t i = 0; i < t->n && !t->v[i].pid; i++) {
		const struct sym_trace_image *img = &t->v[i];
		struct sym_table tab;
		uint8_t guid[16];
		char why[512];
		bool any = false;

		for (size_t k = 0; k < s->nrows && !any; k++)
			any = kernel_image_of(t, s->rows[k].address) == img;
		if (!any || sym_is_windows_path(img->path))
			continue;
		sym_table_init(&tab);
		if (sym_load_checked(ld, img, &tab, guid, why, sizeof(why))) {
			sym_table_free(&tab);
			continue;	/* the functions section says why */
		}
		sym_table_sort(&tab);
		for (size_t k = 0; k < s->nrows; k++) {
			struct etl_syscall_row *r = &s->rows[k];
			const struct sym_func *f;

			if (kernel_image_of(t, r->address) != img)
				continue;
			f = sym_table_find(&tab, img->base, r->address);
			if (f)
				snprintf(r->function, sizeof(r->function), "%s!%s",
					 sym_base_name(img->path), f->name);
		}
		sym_table_free(&tab);
	}
	return 0;
}

void etl_syscalls_free(struct etl_syscalls *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static void print_pid(FILE *out, uint32_t pid)
{
	if (pid == NO_PID)
		fprintf(out, "%8s", "?");
	else
		fprintf(out, "%8u", pid);
}

void etl_syscalls_print(FILE *out, const struct etl_syscalls *s, size_t top)
{
	if (!s->any)
		return;
	fprintf(out, "\nSystem calls: %lu entered, %lu returned", s->enters, s->exits);
	if (s->unattributed)
		fprintf(out, ", %lu records on no known thread (no context switch names it)",
			s->unattributed);
	fprintf(out, "\n");
	if (!s->nrows)
		return;
	fprintf(out, "\nSystem calls by time, per process (top %zu; time: SysClEnter to its SysClExit; routine: SysCallAddress, named by this machine's kernel):\n"
		"%8s %9s %8s %12s %10s  %-16s %s\n", top, "pid", "calls", "failed", "total ms",
		"max ms", "name", "routine");
	for (size_t i = 0; i < s->nrows && i < top; i++) {
		const struct etl_syscall_row *r = &s->rows[i];

		print_pid(out, r->pid);
		fprintf(out, " %9lu %8lu %12.3f %10.3f  %-16s ", r->calls, r->failed,
			r->total_ms, r->max_ms, r->name);
		if (r->function[0])
			fprintf(out, "%s\n", r->function);
		else
			fprintf(out, "%#llx\n", (unsigned long long)r->address);
	}
}

void etl_syscalls_print_json(FILE *out, const struct etl_syscalls *s)
{
	fprintf(out, "{\"enters\": %lu, \"exits\": %lu, \"unattributed\": %lu,\n    \"calls\": [",
		s->enters, s->exits, s->unattributed);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct etl_syscall_row *r = &s->rows[i];

		fprintf(out, "%s\n      {\"pid\": ", i ? "," : "");
		if (r->pid == NO_PID)
			fprintf(out, "null");
		else
			fprintf(out, "%u", r->pid);
		fprintf(out, ", \"name\": ");
		etl_json_str(out, r->name);
		fprintf(out, ", \"routine\": ");
		if (r->function[0])
			etl_json_str(out, r->function);
		else
			fprintf(out, "null");
		fprintf(out, ", \"address\": \"%#llx\", \"calls\": %lu, \"timed\": %lu, \"failed\": %lu, \"total_ms\": %.6f, \"max_ms\": %.6f}",
			(unsigned long long)r->address, r->calls, r->timed, r->failed,
			r->total_ms, r->max_ms);
	}
	fprintf(out, "]}");
}
