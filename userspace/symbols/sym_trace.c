// SPDX-License-Identifier: GPL-2.0
/*
 * The images of a trace, their DbgID records and the addresses that fall
 * in them. See sym_trace.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl_events.h"
#include "etl/etl_utf16.h"
#include "sym_trace.h"

/* The classic event class of ImageID and the DbgID records (KernelTraceControl). */
static const uint8_t image_id_guid[16] = {
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde,
};
#define DBGID_RSDS	36
#define DBGID_NONE	0x20
#define MAX_CPUS	4096

/* a DbgID record waiting for its Image record */
struct pending {
	bool set, rsds;
	uint64_t base;
	uint32_t pid;
	int64_t time;
	uint8_t guid[16];
	uint32_t age;
	char pdb_name[256];
};

/* an address to look up once every image and thread is known */
struct addr {
	uint64_t addr;
	uint32_t id;			/* a pid, or a tid when by_tid */
	bool by_tid;
	int64_t time;			/* its record's */
};

struct thr {
	uint32_t tid, pid;
	size_t seq;			/* the event's order in the file */
};

struct reader {
	struct sym_trace *t;
	size_t cap;
	struct pending *pend;		/* per CPU */
	struct addr *addrs;
	size_t naddrs, addr_cap;
	struct thr *threads;		/* every Thread event's tid and pid */
	size_t nthreads, thread_cap;
};

static int push_addr(struct reader *rd, uint64_t addr, uint32_t id, bool by_tid, int64_t time)
{
	if (rd->naddrs == rd->addr_cap) {
		size_t c = rd->addr_cap ? 2 * rd->addr_cap : 4096;
		struct addr *v = realloc(rd->addrs, c * sizeof(*v));

		if (!v)
			return -1;
		rd->addrs = v;
		rd->addr_cap = c;
	}
	rd->addrs[rd->naddrs++] = (struct addr){ addr, id, by_tid, time };
	return 0;
}

static void dbgid(struct reader *rd, const struct etl_record *r)
{
	struct pending *p;
	const uint8_t *d = r->payload;
	size_t fixed = 8 + 4 + 16 + 4;

	if (r->processor >= MAX_CPUS || r->version != 2 || r->payload_len < 12)
		return;
	p = &rd->pend[r->processor];
	memset(p, 0, sizeof(*p));
	p->base = etl_le64(d);
	p->pid = etl_le32(d + 8);
	p->time = r->timestamp;
	if (r->classic_type == DBGID_NONE) {
		p->set = true;
		rd->t->none_records++;
		return;
	}
	if (r->payload_len <= fixed)
		return;
	memcpy(p->guid, d + 12, 16);
	p->age = etl_le32(d + 28);
	/* PdbFileName: 8-bit, NUL-terminated */
	size_t len = strnlen((const char *)d + fixed, r->payload_len - fixed);

	if (len >= sizeof(p->pdb_name))
		len = sizeof(p->pdb_name) - 1;
	memcpy(p->pdb_name, d + fixed, len);
	p->rsds = p->set = true;
	rd->t->rsds_records++;
}

static int image(struct reader *rd, const struct etl_record *r)
{
	struct sym_trace *t = rd->t;
	struct sym_trace_image *img;
	struct pending *p = r->processor < MAX_CPUS ? &rd->pend[r->processor] : NULL;

	if (t->n == rd->cap) {
		size_t c = rd->cap ? 2 * rd->cap : 256;

		img = realloc(t->v, c * sizeof(*img));
		if (!img)
			return -1;
		t->v = img;
		rd->cap = c;
	}
	img = &t->v[t->n];
	memset(img, 0, sizeof(*img));
	img->base = etl_le64(r->payload + offsetof(struct etw_image_v3, image_base));
	img->size = etl_le64(r->payload + offsetof(struct etw_image_v3, image_size));
	img->pid = etl_le32(r->payload + offsetof(struct etw_image_v3, process_id));
	img->first_time = r->timestamp;
	img->path = etl_utf16_to_utf8_alloc(r->payload + sizeof(struct etw_image_v3),
					    r->payload_len - sizeof(struct etw_image_v3), NULL, NULL);
	if (!img->path)
		return -1;
	t->n++;
	if (p && p->set && p->base == img->base && p->pid == img->pid && p->time == r->timestamp) {
		img->has_rsds = p->rsds;
		img->has_none = !p->rsds;
		memcpy(img->guid, p->guid, 16);
		img->age = p->age;
		memcpy(img->pdb_name, p->pdb_name, sizeof(img->pdb_name));
	}
	if (p)
		p->set = false;
	return 0;
}

static int thread(struct reader *rd, const struct etl_record *r)
{
	if (r->payload_len < 8)
		return 0;
	if (rd->nthreads == rd->thread_cap) {
		size_t c = rd->thread_cap ? 2 * rd->thread_cap : 1024;
		struct thr *v = realloc(rd->threads, c * sizeof(*v));

		if (!v)
			return -1;
		rd->threads = v;
		rd->thread_cap = c;
	}
	rd->threads[rd->nthreads] = (struct thr){
		.tid = etl_le32(r->payload + offsetof(struct etw_thread_v3, thread_id)),
		.pid = etl_le32(r->payload + offsetof(struct etw_thread_v3, process_id)),
		.seq = rd->nthreads,
	};
	rd->nthreads++;
	return 0;
}

static int add_record(struct reader *rd, const struct etl_record *r)
{
	if (r->kind == ETL_KIND_CLASSIC && r->has_guid && !memcmp(r->guid, image_id_guid, 16)) {
		if (r->classic_type == DBGID_RSDS || r->classic_type == DBGID_NONE)
			dbgid(rd, r);
		return 0;
	}
	if (r->kind != ETL_KIND_KERNEL)
		return 0;
	switch (r->hook_id) {
	case ETW_EVENT_IMAGE_DC_START_HOOK:
	case ETW_EVENT_IMAGE_DC_END_HOOK:
	case ETW_EVENT_IMAGE_LOAD_HOOK:
	case ETW_EVENT_IMAGE_UNLOAD_HOOK:
		/* version 2 has version 3's layout (etl_images.c) */
		if ((r->version & 0xFF) >= 2 && (r->version & 0xFF) <= 3 &&
		    r->payload_len >= sizeof(struct etw_image_v3))
			return image(rd, r);
		return 0;
	case ETW_EVENT_THREAD_START_HOOK:
	case ETW_EVENT_THREAD_END_HOOK:
	case ETW_EVENT_THREAD_DC_START_HOOK:
	case ETW_EVENT_THREAD_DC_END_HOOK:
		return thread(rd, r);
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		if (r->payload_len < 12)
			return 0;
		return push_addr(rd, etl_le64(r->payload), etl_le32(r->payload + 8), true,
				 r->timestamp);
	case ETW_EVENT_STACK_WALK_HOOK: {
		uint32_t pid;

		if (r->payload_len < sizeof(struct etw_stack_walk))
			return 0;
		pid = etl_le32(r->payload + offsetof(struct etw_stack_walk, stack_process));
		for (uint32_t off = sizeof(struct etw_stack_walk); off + 8 <= r->payload_len; off += 8)
			if (push_addr(rd, etl_le64(r->payload + off), pid, false, r->timestamp))
				return -1;
		return 0;
	}
	}
	return 0;
}

static int by_pid_base(const void *a, const void *b)
{
	const struct sym_trace_image *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* One entry per image: DCStart and DCEnd (Load, UnLoad) list the same one. */
static void merge_images(struct sym_trace *t)
{
	size_t out = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), by_pid_base);
	for (size_t i = 0; i < t->n; i++) {
		struct sym_trace_image *x = &t->v[i], *last = out ? &t->v[out - 1] : NULL;

		if (last && !by_pid_base(last, x)) {
			if (!last->has_rsds && x->has_rsds) {
				last->has_rsds = true;
				memcpy(last->guid, x->guid, 16);
				last->age = x->age;
				memcpy(last->pdb_name, x->pdb_name, sizeof(x->pdb_name));
			}
			last->has_none |= x->has_none;
			if (x->first_time < last->first_time)
				last->first_time = x->first_time;
			free(x->path);
			continue;
		}
		t->v[out++] = *x;
	}
	t->n = out;
}

static int by_tid(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The pid of tid: its last Thread event's in the file. */
static uint32_t pid_of(const struct reader *rd, uint32_t tid)
{
	size_t lo = 0, hi = rd->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rd->threads[mid].tid <= tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && rd->threads[lo - 1].tid == tid ? rd->threads[lo - 1].pid : UINT32_MAX;
}

/*
 * The image of process pid holding addr at time. A forked child lists its
 * parent's images, and an exec then loads its own where they may lie (a
 * static executable at the same base): of the images holding addr, the
 * one loaded last before time is the one there, as WPA takes it.
 */
static struct sym_trace_image *find(struct sym_trace *t, uint32_t pid, uint64_t addr,
				    int64_t time)
{
	struct sym_trace_image *best = NULL;

	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sym_trace_image *x = &t->v[mid];

		if (x->pid < pid || (x->pid == pid && x->base <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* images rarely overlap: a few below the nearest are enough */
	for (int tries = 0; tries < 8 && lo-- > 0 && t->v[lo].pid == pid; tries++) {
		struct sym_trace_image *x = &t->v[lo];

		if (addr - x->base >= x->size)
			continue;
		if (!best || (x->first_time <= time &&
			      (best->first_time > time || x->first_time > best->first_time)))
			best = x;
	}
	return best;
}

static int resolve(struct reader *rd)
{
	struct sym_trace *t = rd->t;
	size_t cap = 0;

	if (rd->nthreads)
		qsort(rd->threads, rd->nthreads, sizeof(*rd->threads), by_tid);
	for (size_t i = 0; i < rd->naddrs; i++) {
		const struct addr *a = &rd->addrs[i];
		bool kernel = a->addr >> 63;
		uint32_t pid = kernel ? 0 : a->by_tid ? pid_of(rd, a->id) : a->id;
		struct sym_trace_image *img = find(t, pid, a->addr, a->time);

		if (!a->addr)
			continue;
		if (kernel)
			t->kernel_addrs++;
		else
			t->user_addrs++;
		/* SampledProfile's IPs (found by thread), for dump --stats */
		if (a->by_tid)
			t->all_samples++;
		if (!img)
			t->missed[kernel][!a->by_tid]++;
		if (img) {
			if (t->nsamples == cap) {
				size_t c = cap ? 2 * cap : 4096;
				struct sym_trace_sample *v = realloc(t->samples, c * sizeof(*v));

				if (!v)
					return -1;
				t->samples = v;
				cap = c;
			}
			t->samples[t->nsamples++] = (struct sym_trace_sample){
				(size_t)(img - t->v), a->addr, !a->by_tid };
		}
		if (img)
			img->hits++;
		else if (kernel)
			t->kernel_missed++;
		else
			t->user_missed++;
	}
	return 0;
}

int sym_trace_read(const struct etl_file *f, struct sym_trace *t, struct etl_error *err)
{
	struct reader rd = { .t = t };
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record r;
	int ret;

	memset(t, 0, sizeof(*t));
	rd.pend = calloc(MAX_CPUS, sizeof(*rd.pend));
	if (!rd.pend)
		return etl_error_set(err, "out of memory");
	etl_buffers_begin(f, &bc);
	while ((ret = etl_next_buffer(f, &bc, &b, err)) > 0) {
		etl_records_begin(&b, &rc);
		while ((ret = etl_next_record(&b, &rc, &r, err)) > 0) {
			if (add_record(&rd, &r)) {
				etl_buffers_end(&bc);
				ret = etl_error_set(err, "out of memory reading the images");
				goto out;
			}
		}
		if (ret < 0) {
			etl_buffers_end(&bc);
			goto out;
		}
	}
	if (ret == 0) {
		merge_images(t);
		if (resolve(&rd))
			ret = etl_error_set(err, "out of memory reading the samples");
	}
out:
	free(rd.pend);
	free(rd.addrs);
	free(rd.threads);
	return ret < 0 ? -1 : 0;
}

void sym_trace_free(struct sym_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	free(t->samples);
	memset(t, 0, sizeof(*t));
}
