// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled profile of an ETL file. See etl_profile.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_model.h"
#include "etl_profile.h"
#include "etl_report.h"

#define NO_PID		UINT32_MAX

/* A sample's thread, IP and time, kept until the threads and images are known. */
struct sample {
	uint32_t tid;
	uint32_t cpu;
	uint64_t ip;
	int64_t time;
};

struct etl_profile_reader {
	const struct etl_filter *flt;	/* NULL: every sample */
	struct etl_profile *p;
	struct etl_error *err;
	const struct etl_model *m;	/* threads, processes, images: the pass's */
	struct sample *samples;
	size_t nsamples, samples_cap;
	uint32_t set_interval;		/* the first timer SetInterval's */
	struct etl_span span;		/* the data records' times, the activity's */
};

static int oom(struct etl_profile_reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the sampled profile");
}

static int add_sample(struct etl_profile_reader *rd, const struct etl_record *r)
{
	struct etl_profile *p = rd->p;
	uint64_t ip;

	if (r->payload_len < sizeof(struct perfinfo_sampled_profile))
		return etl_error_set(rd->err, "buffer %u, record at +0x%x: SampledProfile of %u bytes, not %zu",
				     r->buffer_index, r->buffer_offset, r->payload_len,
				     sizeof(struct perfinfo_sampled_profile));
	if (r->processor >= p->ncpus)
		p->ncpus = r->processor + 1u;
	ip = etl_le64(r->payload + offsetof(struct perfinfo_sampled_profile, instruction_pointer));
	if (rd->nsamples == rd->samples_cap) {
		size_t cap = rd->samples_cap ? 2 * rd->samples_cap : 1024;
		struct sample *v = realloc(rd->samples, cap * sizeof(*v));

		if (!v)
			return oom(rd);
		rd->samples = v;
		rd->samples_cap = cap;
	}
	rd->samples[rd->nsamples++] = (struct sample){
		etl_le32(r->payload + offsetof(struct perfinfo_sampled_profile, thread_id)),
		r->processor, ip, r->timestamp,
	};
	return 0;
}

static void add_interval(struct etl_profile_reader *rd, const struct etl_record *r)
{
	struct etl_profile *p = rd->p;
	uint32_t source, interval;

	if (r->payload_len < sizeof(struct etw_sampled_profile_interval))
		return;
	source = etl_le32(r->payload + offsetof(struct etw_sampled_profile_interval, source));
	interval = etl_le32(r->payload +
			    offsetof(struct etw_sampled_profile_interval, new_interval));
	switch (r->hook_id) {
	case ETW_EVENT_PROFILE_COLLECTION_START_HOOK:
		p->collection_starts++;
		if (source == ETW_PROFILE_SOURCE_TIMER && !p->interval)
			p->interval = interval;
		break;
	case ETW_EVENT_PROFILE_COLLECTION_END_HOOK:
		p->collection_ends++;
		break;
	default:
		p->set_intervals++;
		if (source == ETW_PROFILE_SOURCE_TIMER && !rd->set_interval)
			rd->set_interval = interval;
		break;
	}
}

/* Samples and the interval events, in the model's pass over the records. */
static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct etl_profile_reader *rd = ctx;

	etl_span_add(&rd->span, b, r);
	if (r->kind != ETL_KIND_KERNEL || !etl_event_layout(r->hook_id, (uint8_t)r->version))
		return 0;
	switch (r->hook_id) {
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		return add_sample(rd, r);
	case ETW_EVENT_PROFILE_SET_INTERVAL_HOOK:
	case ETW_EVENT_PROFILE_COLLECTION_START_HOOK:
	case ETW_EVENT_PROFILE_COLLECTION_END_HOOK:
		add_interval(rd, r);
		return 0;
	}
	return 0;
}

static int sample_by_tid(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Every thread seen, named (the model's) or sampled, by tid, with its
 * samples: both lists are sorted by tid, so one merge.
 */
static int make_threads(struct etl_profile_reader *rd)
{
	struct etl_profile *p = rd->p;
	const struct etl_model *m = rd->m;
	size_t i = 0, j = 0;

	if (rd->nsamples)
		qsort(rd->samples, rd->nsamples, sizeof(*rd->samples), sample_by_tid);
	p->threads = calloc(m->nthreads + rd->nsamples + 1, sizeof(*p->threads));
	if (!p->threads)
		return oom(rd);
	while (i < m->nthreads || j < rd->nsamples) {
		struct etl_profile_thread *t = &p->threads[p->nthreads];
		uint32_t tid = j == rd->nsamples || (i < m->nthreads &&
						     m->threads[i].tid <= rd->samples[j].tid)
				       ? m->threads[i].tid : rd->samples[j].tid;
		const struct etl_model_thread *mt = etl_model_thread(m, tid);

		t->tid = tid;
		t->pid = mt ? mt->pid : NO_PID;
		t->named_at = mt && tid ? mt->named_at : INT64_MIN;
		if (mt)
			memcpy(t->name, mt->name, sizeof(t->name));
		if (i < m->nthreads && m->threads[i].tid == tid)
			i++;
		for (; j < rd->nsamples && rd->samples[j].tid == tid; j++)
			t->samples++;
		p->nthreads++;
	}
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct etl_profile_thread *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int proc_by_samples(const void *a, const void *b)
{
	const struct etl_profile_process *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Processes with samples, with their one name (etl_model.h). */
static int make_procs(struct etl_profile_reader *rd)
{
	struct etl_profile *p = rd->p;

	p->procs = calloc(p->nthreads ? p->nthreads : 1, sizeof(*p->procs));
	if (!p->procs)
		return oom(rd);
	for (size_t t = 0; t < p->nthreads; t++) {
		const struct etl_profile_thread *th = &p->threads[t];
		size_t i;

		if (!th->samples)
			continue;
		for (i = 0; i < p->nprocs && p->procs[i].pid != th->pid; i++)
			;
		if (i == p->nprocs) {
			const char *name = etl_model_process_name(rd->m, th->pid);

			p->procs[i].pid = th->pid;
			if (name)
				snprintf(p->procs[i].name, sizeof(p->procs[i].name), "%s", name);
			p->nprocs++;
		}
		p->procs[i].samples += th->samples;
	}
	if (p->nprocs)
		qsort(p->procs, p->nprocs, sizeof(*p->procs), proc_by_samples);
	return 0;
}

static int module_by_samples(const void *a, const void *b)
{
	const struct etl_profile_module *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Each sample's image at its time, counted by image name ("?": none). */
static int make_modules(struct etl_profile_reader *rd)
{
	struct etl_profile *p = rd->p;
	const struct etl_images *m = &rd->m->images;
	unsigned long *count = NULL, unresolved = 0;
	int ret = -1;

	count = calloc(m->n + 1, sizeof(*count));
	p->modules = calloc(m->n + 1, sizeof(*p->modules));
	if (!count || !p->modules) {
		oom(rd);
		goto out;
	}
	for (size_t i = 0; i < rd->nsamples; i++) {
		const struct sample *sm = &rd->samples[i];
		const struct etl_image *img = etl_images_find(m, etl_model_pid(rd->m, sm->tid),
							      sm->ip, sm->time);

		if (!img) {
			unresolved++;
			continue;
		}
		count[img - m->v]++;
		if (sm->ip >> 63)
			p->kernel_resolved++;
		else
			p->user_resolved++;
	}
	/* by name: a library mapped by many processes is one line */
	for (size_t i = 0; i < m->n; i++) {
		size_t j;

		if (!count[i])
			continue;
		for (j = 0; j < p->nmodules && strcmp(p->modules[j].name, m->v[i].name); j++)
			;
		if (j == p->nmodules)
			memcpy(p->modules[p->nmodules++].name, m->v[i].name, sizeof(m->v[i].name));
		p->modules[j].samples += count[i];
	}
	if (unresolved) {
		strcpy(p->modules[p->nmodules].name, "?");
		p->modules[p->nmodules++].samples = unresolved;
	}
	qsort(p->modules, p->nmodules, sizeof(*p->modules), module_by_samples);
	ret = 0;
out:
	free(count);
	return ret;
}

/*
 * The collection's span (--time: the window of it), the samples in it
 * counted per CPU, those of the threads the filter selects kept for the
 * tables; the requested and the achieved rate per CPU.
 */
static int select_samples(const struct etl_file *f, struct etl_profile_reader *rd)
{
	struct etl_profile *p = rd->p;
	const struct etl_filter *flt = rd->flt;
	double freq = f->header.perf_freq > 0 ? (double)f->header.perf_freq : 1e7;
	int64_t a, b;
	size_t kept = 0;

	etl_span_collection(&rd->span, &a, &b);
	if (flt && flt->has_time && b >= a) {
		int64_t w0 = a + (int64_t)(flt->start_s * freq), w1 = a + (int64_t)(flt->end_s * freq);

		if (w0 > b)
			w0 = b;
		a = w0;
		b = w1 < b ? w1 : b;
	}
	p->cpu = calloc(p->ncpus + 1, sizeof(*p->cpu));
	p->cpu_idle = calloc(p->ncpus + 1, sizeof(*p->cpu_idle));
	if (!p->cpu || !p->cpu_idle)
		return oom(rd);
	for (size_t i = 0; i < rd->nsamples; i++) {
		const struct sample *sm = &rd->samples[i];

		if (flt && flt->has_time && (sm->time < a || sm->time > b))
			continue;
		p->cpu[sm->cpu]++;
		if (!sm->tid)
			p->cpu_idle[sm->cpu]++;
		p->samples++;
		if (!(sm->ip >> 63))
			p->user_samples++;
		if (etl_filter_by_thread(flt)) {
			const struct etl_model_thread *t = etl_model_thread(rd->m, sm->tid);
			uint32_t pid = t ? t->pid : NO_PID;

			if (!etl_filter_thread(flt, sm->tid, pid, t ? t->name : NULL,
					       etl_model_process_name(rd->m, pid)))
				continue;
		}
		rd->samples[kept++] = *sm;
	}
	rd->nsamples = kept;
	if (!p->interval)
		p->interval = rd->set_interval;
	p->cpus = f->header.number_of_processors > p->ncpus ? f->header.number_of_processors
							    : p->ncpus;
	if (b > a)
		p->duration_s = (double)((uint64_t)b - (uint64_t)a) / freq;
	if (p->duration_s > 0 && p->cpus)
		p->achieved_hz = (double)p->samples / p->cpus / p->duration_s;
	if (p->interval)
		p->requested_hz = 1e7 / p->interval;
	return 0;
}

static int thread_by_tid(const void *a, const void *b)
{
	const struct etl_profile_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int thread_by_pid(const void *a, const void *b)
{
	const struct etl_profile_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return thread_by_tid(a, b);
}

static int thread_by_name(const void *a, const void *b)
{
	const struct etl_profile_thread *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : thread_by_tid(a, b);
}

static int proc_by_pid(const void *a, const void *b)
{
	const struct etl_profile_process *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int proc_by_name(const void *a, const void *b)
{
	const struct etl_profile_process *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : proc_by_pid(a, b);
}

static int module_by_name(const void *a, const void *b)
{
	const struct etl_profile_module *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int etl_profile_read(const struct etl_file *f, struct etl_profile *p, struct etl_error *err)
{
	return etl_profile_read_filtered(f, p, NULL, err);
}

struct etl_profile_reader *etl_profile_begin(struct etl_profile *p, const struct etl_filter *flt,
					     struct etl_error *err)
{
	struct etl_profile_reader *rd = calloc(1, sizeof(*rd));

	memset(p, 0, sizeof(*p));
	if (!rd) {
		etl_error_set(err, "out of memory reading the sampled profile");
		return NULL;
	}
	rd->p = p;
	rd->flt = flt;
	rd->err = err;
	etl_span_init(&rd->span);
	return rd;
}

struct etl_walker etl_profile_walker(struct etl_profile_reader *rd)
{
	return (struct etl_walker){ .record = on_record, .ctx = rd };
}

int etl_profile_end(struct etl_profile_reader *rd, const struct etl_file *f,
		    const struct etl_model *m)
{
	const struct etl_filter *flt = rd->flt;
	struct etl_profile *p = rd->p;
	int ret = -1;

	rd->m = m;
	if (m)
		ret = select_samples(f, rd);
	if (!ret)
		ret = make_threads(rd);
	if (!ret)
		ret = make_procs(rd);
	if (!ret && rd->nsamples)
		ret = make_modules(rd);
	free(rd->samples);
	free(rd);
	if (ret) {
		etl_profile_free(p);
		return -1;
	}
	if (p->nthreads)
		qsort(p->threads, p->nthreads, sizeof(*p->threads),
		      !flt || flt->sort == ETL_SORT_CPU ? by_samples :
		      flt->sort == ETL_SORT_NAME ? thread_by_name :
		      flt->sort == ETL_SORT_PID ? thread_by_pid : thread_by_tid);
	if (flt && flt->sort != ETL_SORT_CPU && p->nprocs)
		qsort(p->procs, p->nprocs, sizeof(*p->procs),
		      flt->sort == ETL_SORT_NAME ? proc_by_name : proc_by_pid);
	if (flt && flt->sort == ETL_SORT_NAME && p->nmodules)
		qsort(p->modules, p->nmodules, sizeof(*p->modules), module_by_name);
	return 0;
}

int etl_profile_read_filtered(const struct etl_file *f, struct etl_profile *p,
			      const struct etl_filter *flt, struct etl_error *err)
{
	struct etl_profile_reader *rd = etl_profile_begin(p, flt, err);
	struct etl_walker also;
	struct etl_model m;
	int ret;

	if (!rd)
		return -1;
	also = etl_profile_walker(rd);
	ret = etl_model_read(f, &m, &also, err);
	ret = (etl_profile_end(rd, f, ret ? NULL : &m) || ret) ? -1 : 0;
	etl_model_free(&m);
	return ret;
}

void etl_profile_free(struct etl_profile *p)
{
	free(p->cpu);
	free(p->cpu_idle);
	free(p->threads);
	free(p->procs);
	free(p->modules);
	memset(p, 0, sizeof(*p));
}
