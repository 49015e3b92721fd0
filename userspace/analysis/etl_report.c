// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report: a capture's first answers. See etl_report.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl/etl_names.h"
#include "etl_json.h"
#include "etl_report.h"
#include "etl/etl_switches.h"

/* A (thread, time) pair: a switch in, or a ReadyThread event. */
struct tid_time {
	uint32_t tid;
	int64_t time;
};

/* A switch out in state Waiting: the thread, when, why. */
struct wait_out {
	uint32_t tid;
	uint8_t reason;
	int64_t time;
};

struct work {
	const struct etl_filter *flt;	/* NULL: everything */
	const struct etl_file *f;
	struct etl_report *r;
	struct etl_error *err;
	double freq;
	struct tid_time *ready;
	size_t nready, ready_cap;
	struct etl_model m;		/* processes and threads: their names */
	struct sym_trace_addrs addrs;	/* sampled IPs and frames, for the functions */
	struct etl_span span;		/* the records' times, the activity's */
	int64_t win_first, win_last;	/* the window the times are counted over */
	struct wait_out *outs;		/* switches out Waiting */
	size_t nouts, outs_cap;
	double *idle_s;			/* per CPU: its idle thread's time (counted less busy) */
};

/* b - a for b >= a, in unsigned arithmetic: a corrupt time cannot overflow. */
static uint64_t elapsed(int64_t a, int64_t b)
{
	return (uint64_t)b - (uint64_t)a;
}

static int oom(struct work *w)
{
	return etl_error_set(w->err, "out of memory writing the report");
}

static int push(struct tid_time **v, size_t *n, size_t *cap, uint32_t tid, int64_t time)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 1024;
		struct tid_time *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -1;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = (struct tid_time){ tid, time };
	return 0;
}

static int by_tid_time(const void *a, const void *b)
{
	const struct tid_time *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int on_buffer(void *ctx, const struct etl_buffer *b)
{
	struct work *w = ctx;

	w->r->buffers++;
	w->r->bytes += b->hdr.buffer_size;
	return 0;
}

/*
 * A kernel record of what the system did while the trace was collected,
 * not one a logger writes around the collection: the header's group
 * (Header, HeaderExtension, GroupMasksEnd, RundownComplete), SystemConfig
 * (Windows and ntkl write it at stop), the rundowns (Process, Thread and
 * Image DCStart and DCEnd, KernelBase, StackWalk KeyRundown), image
 * identities (classic records) and other sessions' provider events (the
 * CLR rundown PerfView merges in after the kernel session stopped).
 */
void etl_span_init(struct etl_span *s)
{
	s->first = s->act_first = INT64_MAX;
	s->last = s->act_last = INT64_MIN;
}

void etl_span_add(struct etl_span *s, const struct etl_buffer *b, const struct etl_record *rec)
{
	if (!b->index)
		return;
	if (rec->timestamp < s->first)
		s->first = rec->timestamp;
	if (rec->timestamp > s->last)
		s->last = rec->timestamp;
	if (etl_record_is_activity(rec)) {
		if (rec->timestamp < s->act_first)
			s->act_first = rec->timestamp;
		if (rec->timestamp > s->act_last)
			s->act_last = rec->timestamp;
	}
}

bool etl_span_has_activity(const struct etl_span *s)
{
	return s->act_first <= s->act_last;
}

void etl_span_collection(const struct etl_span *s, int64_t *first, int64_t *last)
{
	*first = etl_span_has_activity(s) ? s->act_first : s->first;
	*last = etl_span_has_activity(s) ? s->act_last : s->last;
}

bool etl_record_is_activity(const struct etl_record *rec)
{
	uint8_t group = (uint8_t)(rec->hook_id >> 8), type = (uint8_t)rec->hook_id;

	if (rec->kind != ETL_KIND_KERNEL)
		return false;
	switch (group) {
	case ETW_GROUP_HEADER:
	case ETW_GROUP_CONFIG:
		return false;
	case ETW_GROUP_PROCESS:
	case ETW_GROUP_THREAD:
	case ETW_GROUP_IMAGE:
		return type != 3 && type != 4 && rec->hook_id != ETW_EVENT_IMAGE_KERNEL_BASE_HOOK;
	case ETW_GROUP_STACKWALK:
		return rec->hook_id != ETW_EVENT_STACK_KEY_RUNDOWN_HOOK;
	}
	return true;
}

/* Counts, span, ReadyThread events, Process/Thread starts and ends. */
static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *rec)
{
	struct work *w = ctx;
	struct etl_report *r = w->r;

	r->events++;
	etl_span_add(&w->span, b, rec);
	if (rec->kind != ETL_KIND_KERNEL)
		return 0;
	if (sym_trace_gather(&w->addrs, rec))
		return oom(w);
	switch (rec->hook_id) {
	case ETW_EVENT_READY_THREAD_HOOK:
		if (rec->payload_len >= sizeof(struct etw_ready_thread) &&
		    push(&w->ready, &w->nready, &w->ready_cap, etl_le32(rec->payload),
			 rec->timestamp))
			return oom(w);
		break;
	case ETW_EVENT_PROCESS_START_HOOK:
		r->process_starts++;
		break;
	case ETW_EVENT_PROCESS_END_HOOK:
		r->process_ends++;
		break;
	case ETW_EVENT_THREAD_START_HOOK:
		r->thread_starts++;
		break;
	case ETW_EVENT_THREAD_END_HOOK:
		r->thread_ends++;
		break;
	}
	return 0;
}

/*
 * The one pass over the records: the model's, report's own counts, the
 * switches', the profile's and the storage section's (each finished after
 * it, with the model);
 * then the span and the losses.
 */
static int walk_records(struct work *w, struct etl_switches *s)
{
	struct etl_report *r = w->r;
	struct etl_switches_reader *sr = etl_switches_begin(s, w->err);
	struct etl_profile_reader *pr = etl_profile_begin(&r->profile, w->flt, w->err);
	struct etl_storage_reader *str = etl_storage_begin(&r->storage, w->flt, w->err);
	struct etl_syscalls_reader *scr = etl_syscalls_begin(&r->syscalls, w->flt, w->err);
	struct etl_memory_reader *mr = etl_memory_begin(&r->memory, w->flt, w->err);
	struct etl_network_reader *nr = etl_network_begin(&r->network, w->flt, w->err);
	struct etl_walker also[7] = { { .buffer = on_buffer, .record = on_record, .ctx = w } };
	const struct etl_model *m;
	int walked, failed;

	if (!sr || !pr || !str || !scr || !nr || !mr) {
		if (sr)
			etl_switches_end(sr, false);
		if (pr)
			etl_profile_end(pr, w->f, NULL);
		if (str)
			etl_storage_end(str, w->f, NULL);
		if (scr)
			etl_syscalls_end(scr, w->f, NULL, NULL);
		if (mr)
			etl_memory_end(mr, w->f, NULL);
		if (nr)
			etl_network_end(nr, w->f, NULL);
		return -1;
	}
	also[1] = etl_switches_walker(sr);
	also[2] = etl_profile_walker(pr);
	also[3] = etl_storage_walker(str);
	also[4] = etl_syscalls_walker(scr);
	also[6] = etl_memory_walker(mr);
	also[5] = etl_network_walker(nr);
	etl_span_init(&w->span);
	walked = !etl_model_read_all(w->f, &w->m, also, 7, w->err);
	m = walked ? &w->m : NULL;
	failed = etl_switches_end(sr, walked) | etl_profile_end(pr, w->f, m) |
		 etl_storage_end(str, w->f, m) | etl_network_end(nr, w->f, m);
	/* after the switches: they name each record's thread */
	failed |= etl_syscalls_end(scr, w->f, failed ? NULL : m, failed ? NULL : s);
	failed |= etl_memory_end(mr, w->f, failed ? NULL : m);
	if (failed || !walked)
		return -1;
	if (sym_trace_from_model(&r->trace, &w->m, &w->addrs))
		return oom(w);
	r->events_lost = w->f->header.events_lost;
	r->buffers_lost = w->f->header.buffers_lost;
	return 0;
}

/*
 * The window busy %, CPU time and rates are of: the collection, from the
 * first to the last activity record (etl_record_is_activity(); all records in a file
 * without one), or switch (a CompCS packet can be older than its batch's
 * record). The file's span, all records', is trace_s.
 */
static bool in_window(const struct work *w, int64_t t)
{
	return t >= w->win_first && t <= w->win_last;
}

/* Whether the filter selects thread tid (its process and names from the model). */
static bool selected(const struct work *w, uint32_t tid)
{
	const struct etl_model_thread *t;
	uint32_t pid;

	if (!etl_filter_by_thread(w->flt))
		return true;
	t = etl_model_thread(&w->m, tid);
	pid = t ? t->pid : UINT32_MAX;
	return etl_filter_thread(w->flt, tid, pid, t ? t->name : NULL,
				 etl_model_process_name(&w->m, pid));
}

static void window(struct work *w, const struct etl_switches *s)
{
	struct etl_report *r = w->r;

	if (w->span.act_first <= w->span.act_last) {
		w->win_first = w->span.act_first;
		w->win_last = w->span.act_last;
	} else {
		w->win_first = w->span.first;
		w->win_last = w->span.last;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].time < w->win_first)
			w->win_first = s->v[i].time;
		if (s->v[i].time > w->win_last)
			w->win_last = s->v[i].time;
	}
	if (w->win_last > w->win_first)
		r->collection_s = (double)elapsed(w->win_first, w->win_last) / w->freq;
	if (w->flt && w->flt->has_time) {
		/* from the collection's start: the activity's, as the profile's */
		int64_t origin = w->span.act_first <= w->span.act_last ? w->span.act_first : w->span.first;
		int64_t a = origin + (int64_t)(w->flt->start_s * w->freq);
		int64_t b = origin + (int64_t)(w->flt->end_s * w->freq);

		if (a > w->win_last)
			a = w->win_last;
		if (a > w->win_first)
			w->win_first = a;
		if (b < w->win_last)
			w->win_last = b;
		r->windowed = true;
		r->from_s = (double)(w->win_first - origin) / w->freq;
		r->to_s = (double)(w->win_last - origin) / w->freq;
	}
	if (w->win_last > w->win_first)
		r->duration_s = (double)elapsed(w->win_first, w->win_last) / w->freq;
	r->clock_first = w->win_first;
	r->clock_last = w->win_last;
	if (w->span.last > w->span.first)
		r->trace_s = (double)elapsed(w->span.first < w->win_first ? w->span.first : w->win_first,
					     w->span.last > w->win_last ? w->span.last : w->win_last) / w->freq;
}

static int thread_by_cpu(const void *a, const void *b)
{
	const struct etl_report_thread *x = a, *y = b;

	if (x->cpu_s != y->cpu_s)
		return x->cpu_s < y->cpu_s ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int proc_by_cpu(const void *a, const void *b)
{
	const struct etl_report_process *x = a, *y = b;

	if (x->cpu_s != y->cpu_s)
		return x->cpu_s < y->cpu_s ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int thread_by_tid(const void *a, const void *b)
{
	const struct etl_report_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int thread_by_pid(const void *a, const void *b)
{
	const struct etl_report_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return thread_by_tid(a, b);
}

static int thread_by_name(const void *a, const void *b)
{
	const struct etl_report_thread *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : thread_by_tid(a, b);
}

static int proc_by_pid(const void *a, const void *b)
{
	const struct etl_report_process *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int proc_by_name(const void *a, const void *b)
{
	const struct etl_report_process *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : proc_by_pid(a, b);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int push_out(struct work *w, const struct etl_switch *sw)
{
	if (w->nouts == w->outs_cap) {
		size_t c = w->outs_cap ? 2 * w->outs_cap : 1024;
		struct wait_out *p = realloc(w->outs, c * sizeof(*p));

		if (!p)
			return -1;
		w->outs = p;
		w->outs_cap = c;
	}
	w->outs[w->nouts++] = (struct wait_out){ sw->old_tid, sw->old_wait_reason, sw->time };
	return 0;
}

/* Per CPU: the ticks of the window counted (a known thread ran) and busy. */
struct cpu_time {
	uint64_t span, busy;
};

/*
 * tid ran on cpu over [a, b]: the part inside the window counts towards
 * the CPU's span, its busy time (not the idle thread) and the thread's
 * CPU time.
 */
static int add_run(struct work *w, struct cpu_time *ct, struct tid_time **run, size_t *nrun,
		   size_t *cap, uint32_t tid, int64_t a, int64_t b)
{
	uint64_t d;

	if (a < w->win_first)
		a = w->win_first;
	if (b > w->win_last)
		b = w->win_last;
	if (b <= a)
		return 0;
	d = elapsed(a, b);
	ct->span += d;
	if (tid)
		ct->busy += d;
	return push(run, nrun, cap, tid, (int64_t)d);
}

/*
 * Threads' running time and switches in, CPUs' busy time, wait reasons.
 * Over the window: the time before a CPU's first switch is its old
 * thread's, the time after its last switch its new thread's (unknown for
 * a CPU's last compact switch: that time is not counted).
 */
static int from_switches(struct work *w, const struct etl_switches *s,
			 struct tid_time **ins, size_t *nins)
{
	struct etl_report *r = w->r;
	struct tid_time *run = NULL;	/* (thread, ticks run) per interval */
	size_t nrun = 0, run_cap = 0, ins_cap = 0, i, j;
	struct cpu_time *ct;

	r->ncpus = s->ncpus;
	r->busy_pct = calloc(s->ncpus ? s->ncpus : 1, sizeof(*r->busy_pct));
	ct = calloc(s->ncpus ? s->ncpus : 1, sizeof(*ct));
	if (!r->busy_pct || !ct)
		goto nomem;
	for (i = 0; i < s->n; i++) {
		const struct etl_switch *sw = &s->v[i], *prev = i ? sw - 1 : NULL;
		const struct etl_switch *next = i + 1 < s->n ? sw + 1 : NULL;
		struct cpu_time *c = &ct[sw->cpu];

		r->compact |= sw->source == ETL_SWITCH_COMPACT;
		r->switches += in_window(w, sw->time);
		if (sw->old_tid && sw->old_state == ETW_KTHREAD_WAITING &&
		    (sw->known & ETL_SWITCH_HAS_STATE) && in_window(w, sw->time) &&
		    selected(w, sw->old_tid)) {
			r->waits[sw->old_wait_reason]++;
			if (push_out(w, sw))
				goto nomem;
		}
		if ((sw->known & ETL_SWITCH_HAS_NEW) &&
		    push(ins, nins, &ins_cap, sw->new_tid, sw->time))
			goto nomem;
		/* the old thread ran since the CPU's previous switch, or the window's start */
		if (add_run(w, c, &run, &nrun, &run_cap, sw->old_tid,
			    prev && prev->cpu == sw->cpu ? prev->time : w->win_first, sw->time))
			goto nomem;
		/* the CPU's last switch: its new thread runs to the window's end */
		if ((!next || next->cpu != sw->cpu) && (sw->known & ETL_SWITCH_HAS_NEW) &&
		    add_run(w, c, &run, &nrun, &run_cap, sw->new_tid, sw->time, w->win_last))
			goto nomem;
	}
	w->idle_s = calloc(s->ncpus ? s->ncpus : 1, sizeof(*w->idle_s));
	if (!w->idle_s)
		goto nomem;
	for (uint32_t c = 0; c < s->ncpus; c++) {
		r->busy_pct[c] = ct[c].span ? 100.0 * (double)ct[c].busy / (double)ct[c].span : -1;
		w->idle_s[c] = (double)(ct[c].span - ct[c].busy) / w->freq;
	}
	if (r->duration_s > 0)
		r->switches_per_s = (double)r->switches / r->duration_s;

	/* per thread: sum the intervals (sorted by thread), the idle thread left out */
	if (nrun)
		qsort(run, nrun, sizeof(*run), by_tid_time);
	if (*nins)
		qsort(*ins, *nins, sizeof(**ins), by_tid_time);
	r->threads = calloc(nrun + 1, sizeof(*r->threads));
	if (!r->threads)
		goto nomem;
	for (i = 0, j = 0; i < nrun; i = j) {
		struct etl_report_thread *t;
		const struct etl_model_thread *n;
		uint64_t ticks = 0;

		for (j = i; j < nrun && run[j].tid == run[i].tid; j++)
			ticks += (uint64_t)run[j].time;
		if (!run[i].tid || !ticks || !selected(w, run[i].tid))
			continue;
		t = &r->threads[r->nthreads++];
		t->tid = run[i].tid;
		t->cpu_s = (double)ticks / w->freq;
		n = etl_model_thread(&w->m, t->tid);
		t->pid = n ? n->pid : UINT32_MAX;
		if (n)
			memcpy(t->name, n->name, sizeof(t->name));
	}
	for (i = 0; i < *nins; i++) {
		if (!in_window(w, (*ins)[i].time))
			continue;
		for (j = 0; j < r->nthreads && r->threads[j].tid != (*ins)[i].tid; j++)
			;
		if (j < r->nthreads)
			r->threads[j].switches_in++;
	}
	free(run);
	free(ct);
	return 0;
nomem:
	free(run);
	free(ct);
	return oom(w);
}

/* Threads' CPU time summed per process, with its one name (etl_model.h). */
static int make_procs(struct work *w)
{
	struct etl_report *r = w->r;

	r->procs = calloc(r->nthreads + 1, sizeof(*r->procs));
	if (!r->procs)
		return oom(w);
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct etl_report_thread *t = &r->threads[i];
		size_t j;

		for (j = 0; j < r->nprocs && r->procs[j].pid != t->pid; j++)
			;
		if (j == r->nprocs) {
			const char *name = etl_model_process_name(&w->m, t->pid);

			r->procs[j].pid = t->pid;
			snprintf(r->procs[j].name, sizeof(r->procs[j].name), "%s", name ? name : "");
			r->nprocs++;
		}
		r->procs[j].cpu_s += t->cpu_s;
		r->procs[j].threads++;
	}
	{
		enum etl_sort k = w->flt ? w->flt->sort : ETL_SORT_CPU;

		qsort(r->procs, r->nprocs ? r->nprocs : 1, sizeof(*r->procs),
		      k == ETL_SORT_CPU ? proc_by_cpu : k == ETL_SORT_NAME ? proc_by_name : proc_by_pid);
		qsort(r->threads, r->nthreads ? r->nthreads : 1, sizeof(*r->threads),
		      k == ETL_SORT_CPU ? thread_by_cpu : k == ETL_SORT_NAME ? thread_by_name :
		      k == ETL_SORT_PID ? thread_by_pid : thread_by_tid);
	}
	return 0;
}

/* Each ReadyThread to the thread's next switch in; the percentiles. */
static int ready_latency(struct work *w, const struct tid_time *ins, size_t nins)
{
	struct etl_report *r = w->r;
	double *lat = malloc((w->nready + 1) * sizeof(*lat));
	size_t n = 0;

	if (!lat)
		return oom(w);
	for (size_t i = 0; i < w->nready; i++) {
		struct tid_time key = w->ready[i];
		size_t lo = 0, hi = nins;

		if (!in_window(w, key.time) || !selected(w, key.tid))
			continue;
		r->ready_events++;
		/* the first switch in of the thread at or after the event */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (by_tid_time(&ins[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nins && ins[lo].tid == key.tid)
			lat[n++] = (double)elapsed(key.time, ins[lo].time) / w->freq * 1e6;
	}
	r->ready_measured = n;
	if (n) {
		qsort(lat, n, sizeof(*lat), cmp_double);
		r->ready_p50_us = lat[n / 2];
		r->ready_p90_us = lat[n * 9 / 10];
		r->ready_p99_us = lat[n * 99 / 100];
		r->ready_max_us = lat[n - 1];
	}
	free(lat);
	return 0;
}

/* The first of v[0..n) (sorted by thread, time) at or after (tid, time). */
static size_t lower_bound(const struct tid_time *v, size_t n, uint32_t tid, int64_t time)
{
	struct tid_time key = { tid, time };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_tid_time(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Each switch out Waiting to the end of the wait, as WPA's Waits: the
 * thread's first ReadyThread at or after it, if that comes before its
 * next switch in; else that switch in. A wait with neither is counted
 * but not timed. ins and w->ready sorted by thread, time.
 */
static void wait_times(struct work *w, const struct tid_time *ins, size_t nins)
{
	struct etl_report *r = w->r;

	for (size_t i = 0; i < w->nouts; i++) {
		const struct wait_out *o = &w->outs[i];
		size_t in = o->time < INT64_MAX ? lower_bound(ins, nins, o->tid, o->time + 1) : nins;
		size_t rd = lower_bound(w->ready, w->nready, o->tid, o->time);
		bool has_in = in < nins && ins[in].tid == o->tid;
		bool has_rd = rd < w->nready && w->ready[rd].tid == o->tid;
		int64_t end;

		if (has_rd && (!has_in || w->ready[rd].time <= ins[in].time))
			end = w->ready[rd].time;
		else if (has_in)
			end = ins[in].time;
		else
			continue;
		r->waits_timed[o->reason]++;
		r->wait_s[o->reason] += (double)elapsed(o->time, end) / w->freq;
	}
}

int etl_report_read(const struct etl_file *f, struct etl_report *r, struct etl_error *err)
{
	return etl_report_read_filtered(f, r, NULL, err);
}

int etl_report_read_filtered(const struct etl_file *f, struct etl_report *r,
			     const struct etl_filter *flt, struct etl_error *err)
{
	struct work w = { .f = f, .r = r, .err = err, .flt = flt };
	struct etl_switches s = { 0 };
	struct tid_time *ins = NULL;
	size_t nins = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->top = flt ? flt->top : 0;
	r->sort = flt ? flt->sort : ETL_SORT_CPU;
	w.freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;
	if (walk_records(&w, &s))
		goto out;
	window(&w, &s);
	if (from_switches(&w, &s, &ins, &nins) || make_procs(&w) || ready_latency(&w, ins, nins))
		goto out;
	if (etl_idle_make(&r->idle, &s, w.idle_s, &w.m, flt, w.win_first, w.win_last, w.freq)) {
		oom(&w);
		goto out;
	}
	if (r->profile.cpus && r->duration_s > 0)
		r->samples_hz = (double)r->profile.samples / r->profile.cpus / r->duration_s;
	r->requested_hz = r->profile.requested_hz;
	if (w.nready)
		qsort(w.ready, w.nready, sizeof(*w.ready), by_tid_time);
	wait_times(&w, ins, nins);
	ret = 0;
out:
	free(ins);
	free(w.ready);
	free(w.outs);
	free(w.idle_s);
	etl_model_free(&w.m);
	sym_trace_addrs_free(&w.addrs);
	etl_switches_free(&s);
	if (ret)
		etl_report_free(r);
	return ret;
}

int etl_report_functions(struct etl_report *r, struct sym_loader *ld, struct etl_error *err)
{
	char msg[sizeof(err->msg)];

	sym_functions_free(&r->functions);
	if (sym_functions_of(&r->trace, ld, &r->functions, msg, sizeof(msg)))
		return etl_error_set(err, "%s", msg);
	if (etl_syscalls_name(&r->syscalls, &r->trace, ld))
		return etl_error_set(err, "out of memory");
	return 0;
}

void etl_report_free(struct etl_report *r)
{
	sym_functions_free(&r->functions);
	sym_trace_free(&r->trace);
	etl_profile_free(&r->profile);
	etl_storage_free(&r->storage);
	etl_syscalls_free(&r->syscalls);
	etl_memory_free(&r->memory);
	etl_network_free(&r->network);
	etl_idle_free(&r->idle);
	free(r->busy_pct);
	free(r->procs);
	free(r->threads);
	memset(r, 0, sizeof(*r));
}

static void print_pid(FILE *out, uint32_t pid)
{
	if (pid == UINT32_MAX)
		fprintf(out, "%8s", "?");
	else
		fprintf(out, "%8u", pid);
}

/* The wait reasons with a switch out, most first (ties: by reason). */
static size_t waits_by_count(const struct etl_report *r, uint8_t order[256])
{
	size_t n = 0;

	for (int k = 0; k < 256; k++)
		if (r->waits[k])
			order[n++] = (uint8_t)k;
	for (size_t i = 1; i < n; i++)	/* insertion sort: stable, and at most 256 */
		for (size_t j = i; j > 0 && r->waits[order[j]] > r->waits[order[j - 1]]; j--) {
			uint8_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static void print_waits(FILE *out, const struct etl_report *r)
{
	uint8_t order[256];
	size_t n = waits_by_count(r, order);

	fprintf(out, "\nWait reasons (switches out Waiting, most first; wait: to the thread's ReadyThread, else its next switch in):\n");
	if (!n) {
		fprintf(out, "  none (no switch out in state Waiting)\n");
		return;
	}
	fprintf(out, "%10s %12s %12s  %s\n", "count", "total ms", "mean us", "reason");
	for (size_t i = 0; i < n; i++) {
		uint8_t k = order[i];
		const char *name = etl_kwait_reason_name(k);

		fprintf(out, "%10lu %12.3f ", r->waits[k], r->wait_s[k] * 1e3);
		if (r->waits_timed[k])
			fprintf(out, "%12.1f", r->wait_s[k] / (double)r->waits_timed[k] * 1e6);
		else
			fprintf(out, "%12s", "none");
		if (name)
			fprintf(out, "  %s\n", name);
		else
			fprintf(out, "  %u\n", k);
	}
}

static double pct(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static size_t report_top(const struct etl_report *r)
{
	return r->top ? r->top : ETL_REPORT_TOP;
}

/* "top 10", "first 10 by pid", or "all" */
static const char *top_str(const struct etl_report *r, char *buf, size_t size)
{
	static const char *const key[] = { "cpu", "pid", "tid", "name" };

	if (report_top(r) == SIZE_MAX)
		return "all";
	if (r->sort == ETL_SORT_CPU)
		snprintf(buf, size, "top %zu", report_top(r));
	else
		snprintf(buf, size, "first %zu by %s", report_top(r), key[r->sort]);
	return buf;
}

/* A sampled row's weight: its samples times the interval, in ms (WPA's Weight). */
static void print_weight(FILE *out, const struct etl_profile *p, unsigned long samples)
{
	if (p->interval)
		fprintf(out, " %10.1f", (double)samples * p->interval / 1e4);
	else
		fprintf(out, " %10s", "?");
}

#define SAMPLED_TITLE	" (SampledProfile, as WPA's CPU Usage (Sampled); weight: samples x interval"

static void print_sampled_procs(FILE *out, const struct etl_report *r, size_t top)
{
	const struct etl_profile *p = &r->profile;
	char buf[32];

	if (!p->samples)
		return;
	fprintf(out, "\nProcesses by samples" SAMPLED_TITLE "; %s):\n%8s %10s %7s %10s  %s\n",
		top_str(r, buf, sizeof(buf)), "pid", "samples", "%", "weight ms", "name");
	for (size_t i = 0; i < p->nprocs && i < top; i++) {
		print_pid(out, p->procs[i].pid);
		fprintf(out, " %10lu %6.2f%%", p->procs[i].samples, pct(p->procs[i].samples, p->samples));
		print_weight(out, p, p->procs[i].samples);
		fprintf(out, "  %s\n", p->procs[i].name);
	}
}

static void print_sampled_threads(FILE *out, const struct etl_report *r, size_t top)
{
	const struct etl_profile *p = &r->profile;
	char buf[32];

	if (!p->samples)
		return;
	fprintf(out, "\nThreads by samples" SAMPLED_TITLE "; %s):\n%8s %8s %10s %7s %10s  %s\n",
		top_str(r, buf, sizeof(buf)), "tid", "pid", "samples", "%", "weight ms", "name");
	for (size_t i = 0, rows = 0; i < p->nthreads && rows < top; i++) {
		const struct etl_profile_thread *t = &p->threads[i];

		if (!t->samples)
			continue;
		rows++;
		fprintf(out, "%8u ", t->tid);
		print_pid(out, t->pid);
		fprintf(out, " %10lu %6.2f%%", t->samples, pct(t->samples, p->samples));
		print_weight(out, p, t->samples);
		fprintf(out, "  %s\n", t->name);
	}
}

static void print_sampled_images(FILE *out, const struct etl_report *r, size_t top)
{
	const struct etl_profile *p = &r->profile;
	char buf[32];

	if (!p->samples)
		return;
	fprintf(out, "\nImages by samples" SAMPLED_TITLE "; %s):\n%10s %7s %10s  %s\n",
		top_str(r, buf, sizeof(buf)), "samples", "%", "weight ms", "image");
	for (size_t i = 0; i < p->nmodules && i < top; i++) {
		fprintf(out, "%10lu %6.2f%%", p->modules[i].samples,
			pct(p->modules[i].samples, p->samples));
		print_weight(out, p, p->modules[i].samples);
		fprintf(out, "  %s\n", p->modules[i].name);
	}
}

/* The samples, and the rate achieved per CPU beside the requested one. */
static void print_samples_line(FILE *out, const struct etl_report *r)
{
	const struct etl_profile *p = &r->profile;

	fprintf(out, "Samples:           ");
	if (!p->samples) {
		fprintf(out, "none (SampledProfile: record PROFILE)\n");
		return;
	}
	fprintf(out, "%lu on %u CPUs: %.1f per CPU per second", p->samples, p->cpus, r->samples_hz);
	if (r->requested_hz > 0)
		fprintf(out, ", %.1f requested (interval %.4f ms): %.1f%%\n", r->requested_hz,
			p->interval / 1e4, 100.0 * r->samples_hz / r->requested_hz);
	else
		fprintf(out, "; the interval requested is not in the file (no CollectionStart or SetInterval)\n");
}

/* A measure, or null when nothing was measured. */
static void json_num(FILE *out, bool measured, double v)
{
	if (measured)
		fprintf(out, "%.3f", v);
	else
		fprintf(out, "null");
}

void etl_report_print(FILE *out, const struct etl_report *r)
{
	const struct etl_profile *p = &r->profile;
	size_t top = report_top(r);
	char buf[32];

	if (r->windowed)
		fprintf(out, "Duration:          %.3f s: --time %.6f,%.6f of the %.3f s collection (first to last event recorded)",
			r->duration_s, r->from_s, r->to_s, r->collection_s);
	else
		fprintf(out, "Duration:          %.3f s of collection (first to last event recorded)",
			r->duration_s);
	if (r->trace_s > r->collection_s + 0.0005)
		fprintf(out, "; the file spans %.3f s with the records written around it (rundowns, SystemConfig, other sessions merged in), not counted",
			r->trace_s);
	fprintf(out, "\n");
	fprintf(out, "Events:            %lu in %lu buffers (%.1f MB)\n", r->events, r->buffers,
		r->bytes / 1e6);
	fprintf(out, "Events lost:       %u", r->events_lost);
	if (r->events_lost || r->buffers_lost)
		fprintf(out, " (buffers lost %u): the reader fell behind: record with a larger -buffersize or -maxbuffers",
			r->buffers_lost);
	fprintf(out, "\nCPUs busy:         (context switches)");
	for (uint32_t c = 0; c < r->ncpus; c++) {
		if (r->busy_pct[c] < 0)
			fprintf(out, " cpu%u -", c);
		else
			fprintf(out, " cpu%u %.1f%%", c, r->busy_pct[c]);
	}
	fprintf(out, "%s\n", r->ncpus ? "" : " none recorded (CSWITCH)");
	if (p->samples) {
		fprintf(out, "                   (samples not idle)");
		for (uint32_t c = 0; c < p->ncpus; c++)
			fprintf(out, " cpu%u %.1f%%", c,
				pct(p->cpu[c] - p->cpu_idle[c], p->cpu[c]));
		fprintf(out, "\n");
	}
	fprintf(out, "Context switches:  %lu (%.1f per second)%s\n", r->switches,
		r->switches_per_s, r->compact ? ", from CompCS batches" : "");
	print_samples_line(out, r);
	fprintf(out, "Process starts:    %lu, ends %lu; thread starts %lu, ends %lu\n",
		r->process_starts, r->process_ends, r->thread_starts, r->thread_ends);

	fprintf(out, "\nProcesses by CPU time (context switches, %s):\n", top_str(r, buf, sizeof(buf)));
	if (!r->nprocs)
		fprintf(out, "  none: no context switches (record CSWITCH)%s\n",
			p->samples ? "; by samples below" : "");
	else
		fprintf(out, "%8s %10s %8s  %s\n", "pid", "cpu s", "threads", "name");
	for (size_t i = 0; i < r->nprocs && i < top; i++) {
		print_pid(out, r->procs[i].pid);
		fprintf(out, " %10.4f %8lu  %s\n", r->procs[i].cpu_s, r->procs[i].threads,
			r->procs[i].name);
	}
	print_sampled_procs(out, r, top);
	fprintf(out, "\nThreads by CPU time (context switches, %s):\n", top_str(r, buf, sizeof(buf)));
	if (!r->nthreads)
		fprintf(out, "  none: no context switches (record CSWITCH)%s\n",
			p->samples ? "; by samples below" : "");
	else
		fprintf(out, "%8s %8s %10s %10s  %s\n", "tid", "pid", "cpu s", "switch-in", "name");
	for (size_t i = 0; i < r->nthreads && i < top; i++) {
		const struct etl_report_thread *t = &r->threads[i];

		fprintf(out, "%8u ", t->tid);
		print_pid(out, t->pid);
		fprintf(out, " %10.4f %10lu  %s\n", t->cpu_s, t->switches_in, t->name);
	}
	print_sampled_threads(out, r, top);
	print_sampled_images(out, r, top);
	print_waits(out, r);
	fprintf(out, "\nReady latency (ReadyThread to switch in): ");
	if (!r->ready_events)
		fprintf(out, "none (no ReadyThread events: record DISPATCHER and CSWITCH)\n");
	else if (!r->ready_measured)
		fprintf(out, "none (%lu ReadyThread events, none followed by a switch in)\n",
			r->ready_events);
	else
		fprintf(out, "%lu of %lu events; p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us\n",
			r->ready_measured, r->ready_events, r->ready_p50_us, r->ready_p90_us,
			r->ready_p99_us, r->ready_max_us);
	if (!r->functions.n && p->samples)
		fprintf(out, "\nFunctions by samples: none named here (ntkl names the functions of Linux images, from this machine's files and kernel: ntkl symbols); the images are above\n");
	/* the functions, how much they name, how whole the user stacks are */
	sym_functions_print(out, &r->functions, top);
	etl_storage_print(out, &r->storage, top);
	etl_syscalls_print(out, &r->syscalls, top);
	etl_memory_print(out, &r->memory, top);
	etl_network_print(out, &r->network, top);
	etl_idle_print(out, &r->idle, r->duration_s, top);
}

/*
 * "functions": every row (image!function, samples, percent of all
 * samples); "functions_named": IPs and frames a function names, of all,
 * kernel and user; "functions_not_named": the images not named here, why.
 */
static void print_functions_json(FILE *out, const struct sym_functions *fn)
{
	fprintf(out, " \"functions\": [");
	for (size_t i = 0; i < fn->n; i++) {
		fprintf(out, "%s\n  {\"function\": ", i ? "," : "");
		etl_json_str(out, fn->v[i].name);
		fprintf(out, ", \"samples\": %lu, \"pct\": %.3f}", fn->v[i].samples,
			fn->all_samples ? 100.0 * (double)fn->v[i].samples / (double)fn->all_samples
					: 0.0);
	}
	fprintf(out, "],\n \"functions_named\": {");
	for (int frame = 0; frame < 2; frame++)
		for (int kernel = 1; kernel >= 0; kernel--)
			fprintf(out, "%s\"%s_%s\": {\"named\": %lu, \"all\": %lu}",
				frame || !kernel ? ", " : "", kernel ? "kernel" : "user",
				frame ? "frames" : "ips", fn->named[kernel][frame],
				fn->all[kernel][frame]);
	fprintf(out, "},\n \"functions_not_named\": [");
	for (size_t k = 0; k < fn->nnotes; k++) {
		fprintf(out, "%s", k ? ", " : "");
		etl_json_str(out, fn->notes[k]);
	}
	fprintf(out, "]");
}

/*
 * "user_stacks": how the user stacks end (sym_profile.h): "whole",
 * "early", "not_named" (of which "no_image"), and each kind's outermost
 * frames, most first ("function": image!function, "?" in no image;
 * "stacks"); null with no user stack (or a Windows trace's).
 */
static void print_user_stacks_json(FILE *out, const struct sym_user_stacks *u)
{
	static const char *const kind[SYM_END_KINDS] = { "whole", "early", "not_named" };

	fprintf(out, " \"user_stacks\": ");
	if (!sym_user_stacks_counted(u)) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{");
	for (int k = 0; k < SYM_END_KINDS; k++)
		fprintf(out, "\"%s\": %lu, ", kind[k], u->n[k]);
	fprintf(out, "\"no_image\": %lu", u->no_image);
	for (int k = 0; k < SYM_END_KINDS; k++) {
		fprintf(out, ",\n  \"%s_ends\": [", kind[k]);
		for (size_t i = 0; i < u->nends[k]; i++) {
			fprintf(out, "%s{\"function\": ", i ? ", " : "");
			etl_json_str(out, u->ends[k][i].name);
			fprintf(out, ", \"stacks\": %lu}", u->ends[k][i].samples);
		}
		fprintf(out, "]");
	}
	fprintf(out, "}");
}

/* pid, or null when unknown */
static void json_pid(FILE *out, uint32_t pid)
{
	if (pid == UINT32_MAX)
		fprintf(out, "null");
	else
		fprintf(out, "%u", pid);
}

/*
 * From the SampledProfile events: "busy_pct_sampled" (per CPU, the
 * samples not in the idle thread), "processes_sampled",
 * "threads_sampled", "images_sampled" (most samples first, every row).
 */
static void print_sampled_json(FILE *out, const struct etl_report *r)
{
	const struct etl_profile *p = &r->profile;

	fprintf(out, " \"busy_pct_sampled\": [");
	for (uint32_t c = 0; c < p->ncpus; c++)
		fprintf(out, "%s%.3f", c ? ", " : "", pct(p->cpu[c] - p->cpu_idle[c], p->cpu[c]));
	fprintf(out, "],\n \"processes_sampled\": [");
	for (size_t i = 0; i < p->nprocs; i++) {
		fprintf(out, "%s\n  {\"pid\": ", i ? "," : "");
		json_pid(out, p->procs[i].pid);
		fprintf(out, ", \"samples\": %lu, \"name\": ", p->procs[i].samples);
		etl_json_str(out, p->procs[i].name);
		fputc('}', out);
	}
	fprintf(out, "],\n \"threads_sampled\": [");
	for (size_t i = 0, rows = 0; i < p->nthreads; i++) {
		if (!p->threads[i].samples)
			continue;
		fprintf(out, "%s\n  {\"tid\": %u, \"pid\": ", rows++ ? "," : "", p->threads[i].tid);
		json_pid(out, p->threads[i].pid);
		fprintf(out, ", \"samples\": %lu, \"name\": ", p->threads[i].samples);
		etl_json_str(out, p->threads[i].name);
		fputc('}', out);
	}
	fprintf(out, "],\n \"images_sampled\": [");
	for (size_t i = 0; i < p->nmodules; i++) {
		fprintf(out, "%s\n  {\"image\": ", i ? "," : "");
		etl_json_str(out, p->modules[i].name);
		fprintf(out, ", \"samples\": %lu}", p->modules[i].samples);
	}
	fprintf(out, "],\n");
}

void etl_report_print_json(FILE *out, const struct etl_report *r)
{
	fprintf(out, "{\"duration_s\": %.6f, \"clock_first\": %lld, \"clock_last\": %lld, \"trace_s\": %.6f, \"collection_s\": %.6f,\n",
		r->duration_s, (long long)r->clock_first, (long long)r->clock_last, r->trace_s,
		r->collection_s);
	fprintf(out, " \"events\": %lu, \"buffers\": %lu, \"bytes\": %llu,\n",
		r->events, r->buffers, (unsigned long long)r->bytes);
	fprintf(out, " \"events_lost\": %u, \"buffers_lost\": %u,\n \"busy_pct\": [",
		r->events_lost, r->buffers_lost);
	for (uint32_t c = 0; c < r->ncpus; c++) {
		if (r->busy_pct[c] < 0)
			fprintf(out, "%snull", c ? ", " : "");
		else
			fprintf(out, "%s%.3f", c ? ", " : "", r->busy_pct[c]);
	}
	fprintf(out, "],\n \"switches\": %lu, \"switches_per_s\": %.3f, \"compact\": %s,\n",
		r->switches, r->switches_per_s, r->compact ? "true" : "false");
	fprintf(out, " \"samples\": %lu, \"sample_cpus\": %u, \"samples_per_cpu_s\": ",
		r->profile.samples, r->profile.cpus);
	json_num(out, r->profile.samples, r->samples_hz);
	fprintf(out, ", \"requested_per_cpu_s\": ");
	json_num(out, r->requested_hz > 0, r->requested_hz);
	fprintf(out, ", \"sample_interval_100ns\": ");
	if (r->profile.interval)
		fprintf(out, "%u,\n", r->profile.interval);
	else
		fprintf(out, "null,\n");
	fprintf(out, " \"process_starts\": %lu, \"process_ends\": %lu, \"thread_starts\": %lu, \"thread_ends\": %lu,\n",
		r->process_starts, r->process_ends, r->thread_starts, r->thread_ends);
	fprintf(out, " \"processes\": [");
	for (size_t i = 0; i < r->nprocs; i++) {
		fprintf(out, "%s\n  {\"pid\": ", i ? "," : "");
		if (r->procs[i].pid == UINT32_MAX)
			fprintf(out, "null");
		else
			fprintf(out, "%u", r->procs[i].pid);
		fprintf(out, ", \"cpu_s\": %.6f, \"threads\": %lu, \"name\": ", r->procs[i].cpu_s,
			r->procs[i].threads);
		etl_json_str(out, r->procs[i].name);
		fputc('}', out);
	}
	fprintf(out, "],\n \"threads\": [");
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct etl_report_thread *t = &r->threads[i];

		fprintf(out, "%s\n  {\"tid\": %u, \"pid\": ", i ? "," : "", t->tid);
		if (t->pid == UINT32_MAX)
			fprintf(out, "null");
		else
			fprintf(out, "%u", t->pid);
		fprintf(out, ", \"cpu_s\": %.6f, \"switches_in\": %lu, \"name\": ", t->cpu_s,
			t->switches_in);
		etl_json_str(out, t->name);
		fputc('}', out);
	}
	fprintf(out, "],\n \"waits\": {");
	for (int k = 0, first = 1; k < 256; k++) {
		const char *name = etl_kwait_reason_name((uint8_t)k);
		char num[8];

		if (!r->waits[k])
			continue;
		snprintf(num, sizeof(num), "%d", k);
		fprintf(out, "%s", first ? "" : ", ");
		etl_json_str(out, name ? name : num);
		fprintf(out, ": %lu", r->waits[k]);
		first = 0;
	}
	fprintf(out, "},\n \"wait_reasons\": [");
	{
		uint8_t order[256];
		size_t n = waits_by_count(r, order);

		for (size_t i = 0; i < n; i++) {
			uint8_t k = order[i];
			const char *name = etl_kwait_reason_name(k);
			char num[8];

			snprintf(num, sizeof(num), "%u", k);
			fprintf(out, "%s\n  {\"reason\": ", i ? "," : "");
			etl_json_str(out, name ? name : num);
			fprintf(out, ", \"count\": %lu, \"timed\": %lu, \"total_s\": %.9f, \"mean_us\": ",
				r->waits[k], r->waits_timed[k], r->wait_s[k]);
			json_num(out, r->waits_timed[k], r->waits_timed[k] ?
				 r->wait_s[k] / (double)r->waits_timed[k] * 1e6 : 0);
			fputc('}', out);
		}
	}
	fprintf(out, "],\n \"ready_events\": %lu, \"ready_measured\": %lu, \"ready_p50_us\": ",
		r->ready_events, r->ready_measured);
	json_num(out, r->ready_measured, r->ready_p50_us);
	fprintf(out, ", \"ready_p90_us\": ");
	json_num(out, r->ready_measured, r->ready_p90_us);
	fprintf(out, ", \"ready_p99_us\": ");
	json_num(out, r->ready_measured, r->ready_p99_us);
	fprintf(out, ", \"ready_max_us\": ");
	json_num(out, r->ready_measured, r->ready_max_us);
	fprintf(out, ",\n");
	print_sampled_json(out, r);
	print_functions_json(out, &r->functions);
	fprintf(out, ",\n");
	print_user_stacks_json(out, &r->functions.user);
	fprintf(out, ",\n \"storage\": ");
	etl_storage_print_json(out, &r->storage);
	fprintf(out, ",\n \"syscalls\": ");
	etl_syscalls_print_json(out, &r->syscalls);
	fprintf(out, ",\n \"memory\": ");
	etl_memory_print_json(out, &r->memory);
	fprintf(out, ",\n \"network\": ");
	etl_network_print_json(out, &r->network);
	fprintf(out, ",\n \"idle\": ");
	etl_idle_print_json(out, &r->idle, r->duration_s);
	fprintf(out, "}\n");
}
