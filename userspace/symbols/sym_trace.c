// SPDX-License-Identifier: GPL-2.0
/*
 * The images of a trace, their DbgID records and the addresses that fall
 * in them. See sym_trace.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl/etl.h"
#include "sym_trace.h"

/* an address to look up once every image and thread is known */
struct sym_trace_addr {
	uint64_t addr;
	uint32_t id;			/* a pid, or a tid when by_tid */
	bool by_tid;
	bool outermost;			/* of a stack's user part */
	int64_t time;			/* its record's */
};

static int push_addr(struct sym_trace_addrs *a, uint64_t addr, uint32_t id, bool by_tid,
		     bool outermost, int64_t time)
{
	if (a->n == a->cap) {
		size_t c = a->cap ? 2 * a->cap : 4096;
		struct sym_trace_addr *v = realloc(a->v, c * sizeof(*v));

		if (!v)
			return -1;
		a->v = v;
		a->cap = c;
	}
	a->v[a->n++] = (struct sym_trace_addr){ addr, id, by_tid, outermost, time };
	return 0;
}

static int push_ref(struct sym_trace_addrs *a, const struct etl_stack_ref *ref)
{
	if (a->nrefs == a->refs_cap) {
		size_t c = a->refs_cap ? 2 * a->refs_cap : 1024;
		struct etl_stack_ref *v = realloc(a->refs, c * sizeof(*v));

		if (!v)
			return -1;
		a->refs = v;
		a->refs_cap = c;
	}
	a->refs[a->nrefs++] = *ref;
	return 0;
}

/* The index of the outermost user frame of f[0..n) (innermost first): n if none. */
static size_t outermost_user(const uint64_t *f, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (f[i] && !(f[i] >> 63))
			return i;
	return n;
}

/* Each stack key reference's frames, once every definition is in. */
static int take_refs(struct sym_trace_addrs *a)
{
	const uint64_t *f;
	uint32_t n;

	for (size_t i = 0; i < a->nrefs; i++) {
		const struct etl_stack_ref *ref = &a->refs[i];
		size_t out;

		f = etl_stack_keys_find(&a->keys, ref->key, ref->time, &n);
		if (!f)
			continue;
		out = outermost_user(f, n);
		for (uint32_t j = 0; j < n; j++)
			if (push_addr(a, f[j], ref->pid, false, j == out, ref->time))
				return -1;
	}
	a->nrefs = 0;
	return 0;
}

int sym_trace_gather(struct sym_trace_addrs *a, const struct etl_record *r)
{
	struct etl_stack_ref ref;

	if (r->kind != ETL_KIND_KERNEL)
		return 0;
	if (etl_stack_ref_parse(r, &ref))
		return push_ref(a, &ref);
	if (etl_stack_keys_add(&a->keys, r) < 0)
		return -1;
	switch (r->hook_id) {
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		if (r->payload_len < 12)
			return 0;
		return push_addr(a, etl_le64(r->payload), etl_le32(r->payload + 8), true, false,
				 r->timestamp);
	case ETW_EVENT_STACK_WALK_HOOK: {
		const uint8_t *f;
		size_t n, out;
		uint32_t pid;

		if (r->payload_len < sizeof(struct etw_stack_walk))
			return 0;
		f = r->payload + sizeof(struct etw_stack_walk);
		pid = etl_le32(r->payload + offsetof(struct etw_stack_walk, stack_process));
		n = (r->payload_len - sizeof(struct etw_stack_walk)) / 8;
		out = n;	/* the outermost user frame, as outermost_user() */
		for (size_t i = n; i-- > 0 && out == n;) {
			uint64_t addr = etl_le64(f + 8 * i);

			if (addr && !(addr >> 63))
				out = i;
		}
		for (size_t i = 0; i < n; i++)
			if (push_addr(a, etl_le64(f + 8 * i), pid, false, i == out, r->timestamp))
				return -1;
		return 0;
	}
	}
	return 0;
}

void sym_trace_addrs_free(struct sym_trace_addrs *a)
{
	free(a->v);
	free(a->refs);
	etl_stack_keys_free(&a->keys);
	memset(a, 0, sizeof(*a));
}

/* The trace's images, in the model's order (by pid, base): t->v[i] is m->images.v[i]. */
static int take_images(struct sym_trace *t, const struct etl_images *m)
{
	t->v = calloc(m->n + 1, sizeof(*t->v));
	if (!t->v)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		const struct etl_image *x = &m->v[i];
		struct sym_trace_image *img = &t->v[i];

		img->path = strdup(x->path);
		if (!img->path)
			return -1;
		t->n++;
		img->base = x->base;
		img->size = x->size;
		img->pid = x->pid;
		img->has_rsds = x->has_rsds;
		img->has_none = x->has_none;
		memcpy(img->guid, x->guid, sizeof(img->guid));
		img->age = x->age;
		memcpy(img->pdb_name, x->pdb_name, sizeof(img->pdb_name));
		img->first_time = x->first_time;
	}
	t->rsds_records = m->rsds_records;
	t->none_records = m->none_records;
	return 0;
}

/* Each address in the image its process had loaded there at its time. */
static int resolve(struct sym_trace *t, const struct etl_model *m, const struct sym_trace_addrs *as)
{
	size_t cap = 0;

	for (size_t i = 0; i < as->n; i++) {
		const struct sym_trace_addr *a = &as->v[i];
		bool kernel = a->addr >> 63;
		uint32_t pid = kernel ? 0 : a->by_tid ? etl_model_pid(m, a->id) : a->id;
		const struct etl_image *found = etl_images_find(&m->images, pid, a->addr, a->time);
		struct sym_trace_image *img = found ? &t->v[found - m->images.v] : NULL;

		if (!a->addr)
			continue;
		if (kernel)
			t->kernel_addrs++;
		else
			t->user_addrs++;
		/* a stack's user part ending in no image (in one: named by sym_functions_of()) */
		t->user_ends_missed += a->outermost && !img;
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
				(size_t)(img - t->v), a->addr, !a->by_tid, a->outermost };
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

int sym_trace_from_model(struct sym_trace *t, const struct etl_model *m,
			 struct sym_trace_addrs *a)
{
	memset(t, 0, sizeof(*t));
	return take_refs(a) || take_images(t, &m->images) || resolve(t, m, a) ? -1 : 0;
}

struct pass {
	struct sym_trace_addrs *a;
	struct etl_error *err;
};

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct pass *p = ctx;

	(void)b;
	return sym_trace_gather(p->a, r) ? etl_error_set(p->err, "out of memory reading the images")
					 : 0;
}

int sym_trace_read(const struct etl_file *f, struct sym_trace *t, struct etl_error *err)
{
	struct sym_trace_addrs a = { 0 };
	struct etl_model m;
	struct pass p = { .a = &a, .err = err };
	struct etl_walker also = { .record = on_record, .ctx = &p };
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (etl_model_read(f, &m, &also, err))
		goto out;
	if (sym_trace_from_model(t, &m, &a))
		etl_error_set(err, "out of memory reading the samples");
	else
		ret = 0;
	etl_model_free(&m);
out:
	sym_trace_addrs_free(&a);
	return ret;
}

void sym_trace_free(struct sym_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	free(t->samples);
	memset(t, 0, sizeof(*t));
}
