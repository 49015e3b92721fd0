// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled profile of an ETL file. See etl_profile.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_index.h"
#include "etl_profile.h"
#include "etl/etl_utf16.h"

#define NO_PID		UINT32_MAX

/* A sample's thread and IP, kept until the images are known. */
struct sample {
	uint32_t tid;
	uint64_t ip;
};

struct reader {
	struct etl_profile *p;
	struct etl_error *err;
	size_t cap;			/* threads allocated */
	struct etl_index by_tid;	/* the threads, by tid */
	struct sample *samples;
	size_t nsamples, samples_cap;
};

static int oom(struct reader *rd)
{
	return etl_error_set(rd->err, "out of memory reading the sampled profile");
}

/* The thread tid's index, or SIZE_MAX; *slot where it is or would go. */
static size_t find_thread(const struct reader *rd, uint32_t tid, size_t *slot)
{
	return etl_index_find(&rd->by_tid, rd->p->threads, &tid, slot);
}

/* The thread tid, added if new; NULL if out of memory. */
static struct etl_profile_thread *thread(struct reader *rd, uint32_t tid)
{
	struct etl_profile *p = rd->p;
	struct etl_profile_thread *t;
	size_t i, s;

	i = find_thread(rd, tid, &s);
	if (i != SIZE_MAX)
		return &p->threads[i];
	if (p->nthreads == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 64;

		t = realloc(p->threads, cap * sizeof(*t));
		if (!t)
			return NULL;
		p->threads = t;
		rd->cap = cap;
	}
	t = &p->threads[p->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid ? NO_PID : 0;
	t->named_at = INT64_MIN;
	if (!tid)
		strcpy(t->name, "Idle");
	if (etl_index_reserve(&rd->by_tid, p->threads, p->nthreads))
		return NULL;
	find_thread(rd, tid, &s);
	rd->by_tid.slots[s] = (uint32_t)++p->nthreads;
	return t;
}

static int add_sample(struct reader *rd, const struct etl_record *r)
{
	struct etl_profile *p = rd->p;
	struct etl_profile_thread *t;
	uint64_t ip;

	if (r->payload_len < sizeof(struct perfinfo_sampled_profile))
		return etl_error_set(rd->err, "buffer %u, record at +0x%x: SampledProfile of %u bytes, not %zu",
				     r->buffer_index, r->buffer_offset, r->payload_len,
				     sizeof(struct perfinfo_sampled_profile));
	if (r->processor >= p->ncpus) {
		unsigned long *cpu = realloc(p->cpu, (r->processor + 1u) * sizeof(*cpu));

		if (!cpu)
			return oom(rd);
		memset(cpu + p->ncpus, 0, (r->processor + 1u - p->ncpus) * sizeof(*cpu));
		p->cpu = cpu;
		p->ncpus = r->processor + 1u;
	}
	t = thread(rd, etl_le32(r->payload + offsetof(struct perfinfo_sampled_profile, thread_id)));
	if (!t)
		return oom(rd);
	ip = etl_le64(r->payload + offsetof(struct perfinfo_sampled_profile, instruction_pointer));
	if (rd->nsamples == rd->samples_cap) {
		size_t cap = rd->samples_cap ? 2 * rd->samples_cap : 1024;
		struct sample *v = realloc(rd->samples, cap * sizeof(*v));

		if (!v)
			return oom(rd);
		rd->samples = v;
		rd->samples_cap = cap;
	}
	rd->samples[rd->nsamples++] = (struct sample){ t->tid, ip };
	t->samples++;
	p->cpu[r->processor]++;
	p->samples++;
	if (!(ip >> 63))
		p->user_samples++;
	return 0;
}

/* Thread Start/End/DCStart/DCEnd: the thread's process and name, the latest. */
static int add_thread(struct reader *rd, const struct etl_record *r)
{
	struct etl_profile_thread *t;
	uint32_t tid;

	if (r->payload_len < sizeof(struct etw_thread_v3))
		return 0;	/* the checker's business; no name then */
	tid = etl_le32(r->payload + offsetof(struct etw_thread_v3, thread_id));
	if (!tid)
		return 0;	/* the idle threads are "Idle" */
	t = thread(rd, tid);
	if (!t)
		return oom(rd);
	if (r->timestamp < t->named_at)
		return 0;
	t->named_at = r->timestamp;
	t->pid = etl_le32(r->payload + offsetof(struct etw_thread_v3, process_id));
	etl_utf16_to_utf8(r->payload + sizeof(struct etw_thread_v3),
			  r->payload_len - sizeof(struct etw_thread_v3), t->name, sizeof(t->name),
			  NULL);
	return 0;
}

static void add_interval(struct etl_profile *p, const struct etl_record *r)
{
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
		break;
	}
}

static int add_record(struct reader *rd, const struct etl_record *r)
{
	if (r->kind != ETL_KIND_KERNEL || !etl_event_layout(r->hook_id, (uint8_t)r->version))
		return 0;
	switch (r->hook_id) {
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		return add_sample(rd, r);
	case ETW_EVENT_THREAD_START_HOOK:
	case ETW_EVENT_THREAD_END_HOOK:
	case ETW_EVENT_THREAD_DC_START_HOOK:
	case ETW_EVENT_THREAD_DC_END_HOOK:
		return add_thread(rd, r);
	case ETW_EVENT_PROFILE_SET_INTERVAL_HOOK:
	case ETW_EVENT_PROFILE_COLLECTION_START_HOOK:
	case ETW_EVENT_PROFILE_COLLECTION_END_HOOK:
		add_interval(rd->p, r);
		return 0;
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

/* Processes with samples, named after the thread whose id is theirs. */
static int make_procs(struct reader *rd)
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
			p->procs[i].pid = th->pid;
			p->nprocs++;
		}
		p->procs[i].samples += th->samples;
	}
	for (size_t i = 0; i < p->nprocs; i++) {
		size_t s, t;

		if (p->procs[i].pid == NO_PID)
			continue;
		t = find_thread(rd, p->procs[i].pid, &s);
		if (t != SIZE_MAX)
			memcpy(p->procs[i].name, p->threads[t].name, sizeof(p->procs[i].name));
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

/* Each sample's image, counted by image name ("?": none). Needs the threads' pids. */
static int make_modules(struct reader *rd, const struct etl_file *f)
{
	struct etl_profile *p = rd->p;
	struct etl_images m;
	unsigned long *count = NULL, unresolved = 0;
	int ret = -1;

	if (etl_images_read(f, &m, rd->err))
		goto out;
	count = calloc(m.n + 1, sizeof(*count));
	p->modules = calloc(m.n + 1, sizeof(*p->modules));
	if (!count || !p->modules) {
		oom(rd);
		goto out;
	}
	for (size_t i = 0; i < rd->nsamples; i++) {
		const struct sample *sm = &rd->samples[i];
		size_t s, t = find_thread(rd, sm->tid, &s);
		uint32_t pid = t == SIZE_MAX ? NO_PID : p->threads[t].pid;
		const struct etl_image *img = etl_images_find(&m, pid, sm->ip);

		if (!img) {
			unresolved++;
			continue;
		}
		count[img - m.v]++;
		if (sm->ip >> 63)
			p->kernel_resolved++;
		else
			p->user_resolved++;
	}
	/* by name: a library mapped by many processes is one line */
	for (size_t i = 0; i < m.n; i++) {
		size_t j;

		if (!count[i])
			continue;
		for (j = 0; j < p->nmodules && strcmp(p->modules[j].name, m.v[i].name); j++)
			;
		if (j == p->nmodules)
			memcpy(p->modules[p->nmodules++].name, m.v[i].name, sizeof(m.v[i].name));
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
	etl_images_free(&m);
	return ret;
}

int etl_profile_read(const struct etl_file *f, struct etl_profile *p, struct etl_error *err)
{
	struct reader rd = {
		.p = p, .err = err,
		.by_tid = {
			.item_size = sizeof(struct etl_profile_thread),
			.key_off = offsetof(struct etl_profile_thread, tid),
			.key_size = sizeof(uint32_t),
		},
	};
	struct etl_cursor bc;
	struct etl_buffer b;
	int rc = 0, ret = 0;

	memset(p, 0, sizeof(*p));
	etl_buffers_begin(f, &bc);
	while (!ret && (rc = etl_next_buffer(f, &bc, &b, err)) > 0) {
		struct etl_record_cursor rcur;
		struct etl_record r;
		int rr;

		etl_records_begin(&b, &rcur);
		while ((rr = etl_next_record(&b, &rcur, &r, err)) > 0)
			if (add_record(&rd, &r)) {
				ret = -1;
				break;
			}
		if (rr < 0)
			ret = -1;
	}
	if (!ret && rc < 0)
		ret = -1;
	/* a walk stopped by a bad record still holds a decompressed buffer */
	etl_buffers_end(&bc);
	/* names need the hash, which sorting the threads breaks */
	if (!ret)
		ret = make_procs(&rd);
	if (!ret && rd.nsamples)
		ret = make_modules(&rd, f);
	etl_index_free(&rd.by_tid);
	free(rd.samples);
	if (ret) {
		etl_profile_free(p);
		return -1;
	}
	if (p->nthreads)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), by_samples);
	return 0;
}

void etl_profile_free(struct etl_profile *p)
{
	free(p->cpu);
	free(p->threads);
	free(p->procs);
	free(p->modules);
	memset(p, 0, sizeof(*p));
}
