// SPDX-License-Identifier: GPL-2.0
/* Cached stacks' definitions, and their references resolved. See etl_stack_keys.h. */
#include <stdlib.h>
#include <string.h>

#include "etl.h"
#include "etl_stack_keys.h"

struct etl_stack_key_def {
	uint64_t key;
	int64_t time;			/* the definition's record's */
	size_t first;			/* in frames */
	uint32_t n;
};

bool etl_stack_ref_parse(const struct etl_record *r, struct etl_stack_ref *ref)
{
	if (r->kind != ETL_KIND_KERNEL ||
	    (r->hook_id != ETW_EVENT_STACK_KEY_KERNEL_HOOK &&
	     r->hook_id != ETW_EVENT_STACK_KEY_USER_HOOK) ||
	    r->payload_len < sizeof(struct etw_stack_key_ref))
		return false;
	ref->user = r->hook_id == ETW_EVENT_STACK_KEY_USER_HOOK;
	ref->event_time = etl_le64(r->payload + offsetof(struct etw_stack_key_ref, event_time_stamp));
	ref->pid = etl_le32(r->payload + offsetof(struct etw_stack_key_ref, stack_process));
	ref->tid = etl_le32(r->payload + offsetof(struct etw_stack_key_ref, stack_thread));
	ref->key = etl_le64(r->payload + offsetof(struct etw_stack_key_ref, stack_key));
	ref->time = r->timestamp;
	return true;
}

bool etl_stack_key_is_def(const struct etl_record *r)
{
	return r->kind == ETL_KIND_KERNEL &&
	       (r->hook_id == ETW_EVENT_STACK_KEY_DELETE_HOOK ||
		r->hook_id == ETW_EVENT_STACK_KEY_RUNDOWN_HOOK) &&
	       r->payload_len >= sizeof(struct etw_stack_key_def);
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, c * size);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

int etl_stack_keys_add(struct etl_stack_keys *k, const struct etl_record *r)
{
	uint32_t n;
	struct etl_stack_key_def *d;

	if (!etl_stack_key_is_def(r))
		return 0;
	n = (r->payload_len - (uint32_t)sizeof(struct etw_stack_key_def)) / 8;
	if (grow((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v)) ||
	    grow((void **)&k->frames, &k->frames_cap, k->nframes + n, sizeof(*k->frames)))
		return -1;
	d = &k->v[k->n++];
	d->key = etl_le64(r->payload + offsetof(struct etw_stack_key_def, stack_key));
	d->time = r->timestamp;
	d->first = k->nframes;
	d->n = n;
	for (uint32_t i = 0; i < n; i++)
		k->frames[k->nframes++] = etl_le64(r->payload + sizeof(struct etw_stack_key_def) + 8 * i);
	k->sorted = false;
	return 1;
}

static int by_key_time(const void *a, const void *b)
{
	const struct etl_stack_key_def *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

const uint64_t *etl_stack_keys_find(struct etl_stack_keys *k, uint64_t key, int64_t time,
				    uint32_t *n)
{
	size_t lo = 0, hi = k->n, i;
	const struct etl_stack_key_def *d = NULL;

	if (!k->sorted) {
		if (k->n)
			qsort(k->v, k->n, sizeof(*k->v), by_key_time);
		k->sorted = true;
	}
	/* the first definition of key */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... at or after time, else the last one */
	for (i = lo; i < k->n && k->v[i].key == key; i++) {
		d = &k->v[i];
		if (d->time >= time)
			break;
	}
	if (!d)
		return NULL;
	*n = d->n;
	return k->frames + d->first;
}

void etl_stack_keys_free(struct etl_stack_keys *k)
{
	free(k->v);
	free(k->frames);
	memset(k, 0, sizeof(*k));
}
