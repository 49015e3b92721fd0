// SPDX-License-Identifier: GPL-2.0
/*
 * A file's processes, threads and images, in one pass. See etl_model.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl_decode.h"
#include "etl_events.h"
#include "etl_model.h"
#include "etl_utf16.h"

static const struct etl_model_thread idle_thread = { .tid = 0, .pid = 0, .name = "Idle" };

struct pass {
	struct etl_model *m;
	const struct etl_walker *also;	/* nalso walkers of the same pass */
	size_t nalso;
	struct etl_error *err;
};

/*
 * Room for one more in v (n of cap, size bytes each): v, or its new place,
 * or NULL out of memory. Every record of a kind is pushed in file order,
 * then sorted by id and time and cut to the latest of each id.
 */
static void *push(void *v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		void *p = realloc(v, c * size);

		if (!p)
			return NULL;
		v = p;
		*cap = c;
	}
	return v;
}

/* Thread Start/End/DCStart/DCEnd v3: the thread's process and name then. */
static int add_thread(struct etl_model *m, const struct etl_record *r)
{
	struct etl_model_thread *t, *v;

	if (r->payload_len < sizeof(struct etw_thread_v3))
		return 0;	/* the checker's business; no name then */
	v = push(m->threads, &m->nthreads, &m->threads_cap, sizeof(*v));
	if (!v)
		return -1;
	m->threads = v;
	t = &v[m->nthreads];
	t->tid = etl_le32(r->payload + offsetof(struct etw_thread_v3, thread_id));
	if (!t->tid)
		return 0;	/* the idle threads are "Idle" */
	t->pid = etl_le32(r->payload + offsetof(struct etw_thread_v3, process_id));
	t->named_at = r->timestamp;
	etl_utf16_to_utf8(r->payload + sizeof(struct etw_thread_v3),
			  r->payload_len - sizeof(struct etw_thread_v3), t->name, sizeof(t->name),
			  NULL);
	m->nthreads++;
	return 0;
}

/* Process Start/End/DCStart/DCEnd v4: the process's image name then. */
static int add_process(struct etl_model *m, const struct etl_record *r)
{
	struct etl_model_process *p, *v;

	v = push(m->procs, &m->nprocs, &m->procs_cap, sizeof(*v));
	if (!v)
		return -1;
	m->procs = v;
	p = &v[m->nprocs];
	if ((r->version & 0xFF) != 4 ||
	    !etl_process_image_name(r->payload, r->payload_len, &p->pid, p->name, sizeof(p->name)))
		return 0;
	p->named_at = r->timestamp;
	m->nprocs++;
	return 0;
}

static int add_record(struct etl_model *m, const struct etl_record *r)
{
	if (etl_images_add(&m->images, r))
		return -1;
	if (r->kind != ETL_KIND_KERNEL || !etl_event_layout(r->hook_id, (uint8_t)r->version))
		return 0;
	switch (r->hook_id) {
	case ETW_EVENT_THREAD_START_HOOK:
	case ETW_EVENT_THREAD_END_HOOK:
	case ETW_EVENT_THREAD_DC_START_HOOK:
	case ETW_EVENT_THREAD_DC_END_HOOK:
		return add_thread(m, r);
	case ETW_EVENT_PROCESS_START_HOOK:
	case ETW_EVENT_PROCESS_END_HOOK:
	case ETW_EVENT_PROCESS_DC_START_HOOK:
	case ETW_EVENT_PROCESS_DC_END_HOOK:
		return add_process(m, r);
	}
	return 0;
}

static int on_buffer(void *ctx, const struct etl_buffer *b)
{
	struct pass *p = ctx;
	int skip = 0;

	/* a walker that skips a buffer's records skips them for every one */
	for (size_t i = 0; i < p->nalso; i++) {
		int take = p->also[i].buffer ? p->also[i].buffer(p->also[i].ctx, b) : 0;

		if (take < 0)
			return -1;
		if (take > 0)
			skip = take;
	}
	return skip;
}

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct pass *p = ctx;

	if (add_record(p->m, r))
		return etl_error_set(p->err, "out of memory reading the processes and threads");
	for (size_t i = 0; i < p->nalso; i++)
		if (p->also[i].record && p->also[i].record(p->also[i].ctx, b, r))
			return -1;
	return 0;
}

/* By id, then time; equal times in file order (the sort key's last part). */
struct key {
	uint32_t id;
	int64_t time;
	size_t seq;
};

static int by_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Keep the latest record of each id: v[0..*n) of size bytes each, its id
 * and time at id_off and time_off, sorted by id then time with equal
 * times in file order; *n becomes their number. 0, or -1 out of memory.
 */
static int latest_of_each(void *v, size_t *np, size_t size, size_t id_off, size_t time_off)
{
	char *base = v, *tmp;
	struct key *keys;
	size_t n = *np, out = 0;

	if (!n)
		return 0;
	keys = malloc(n * sizeof(*keys));
	tmp = malloc(n * size);
	if (!keys || !tmp) {
		free(keys);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&keys[i].id, base + i * size + id_off, sizeof(uint32_t));
		memcpy(&keys[i].time, base + i * size + time_off, sizeof(int64_t));
		keys[i].seq = i;
	}
	qsort(keys, n, sizeof(*keys), by_key);
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || keys[i + 1].id != keys[i].id)
			memcpy(tmp + out++ * size, base + keys[i].seq * size, size);
	memcpy(base, tmp, out * size);
	free(keys);
	free(tmp);
	*np = out;
	return 0;
}

int etl_model_read(const struct etl_file *f, struct etl_model *m, const struct etl_walker *also,
		   struct etl_error *err)
{
	return etl_model_read_all(f, m, also, also ? 1 : 0, err);
}

int etl_model_read_all(const struct etl_file *f, struct etl_model *m,
		       const struct etl_walker *also, size_t nalso, struct etl_error *err)
{
	struct pass p = { .m = m, .also = also, .nalso = nalso, .err = err };
	struct etl_walker w = { .buffer = on_buffer, .record = on_record, .ctx = &p };

	memset(m, 0, sizeof(*m));
	if (etl_walk(f, &w, err))
		goto fail;
	etl_images_finish(&m->images);
	if (latest_of_each(m->threads, &m->nthreads, sizeof(*m->threads),
			   offsetof(struct etl_model_thread, tid),
			   offsetof(struct etl_model_thread, named_at)) ||
	    latest_of_each(m->procs, &m->nprocs, sizeof(*m->procs),
			   offsetof(struct etl_model_process, pid),
			   offsetof(struct etl_model_process, named_at))) {
		etl_error_set(err, "out of memory reading the processes and threads");
		goto fail;
	}
	return 0;
fail:
	etl_model_free(m);
	return -1;
}

const struct etl_model_thread *etl_model_thread(const struct etl_model *m, uint32_t tid)
{
	size_t lo = 0, hi = m->nthreads;

	if (!tid)
		return &idle_thread;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->threads[mid].tid == tid)
			return &m->threads[mid];
		if (m->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint32_t etl_model_pid(const struct etl_model *m, uint32_t tid)
{
	const struct etl_model_thread *t = etl_model_thread(m, tid);

	return t ? t->pid : ETL_MODEL_NO_PID;
}

const char *etl_model_process_name(const struct etl_model *m, uint32_t pid)
{
	const struct etl_model_thread *leader;
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid].pid == pid)
			return m->procs[mid].name;
		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pid == ETL_MODEL_NO_PID)
		return NULL;
	leader = etl_model_thread(m, pid);
	return leader && leader->name[0] ? leader->name : NULL;
}

void etl_model_free(struct etl_model *m)
{
	free(m->threads);
	free(m->procs);
	etl_images_free(&m->images);
	memset(m, 0, sizeof(*m));
}
