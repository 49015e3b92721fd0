// SPDX-License-Identifier: GPL-2.0
/*
 * The images of an ETL file and their identities. See etl_images.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_events.h"
#include "etl_images.h"
#include "etl_utf16.h"

/* The classic event class of ImageID and the DbgID records (KernelTraceControl). */
static const uint8_t image_id_guid[16] = {
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde,
};
#define DBGID_RSDS	36
#define DBGID_NONE	0x20
#define MAX_CPUS	4096

/* a DbgID record waiting for its Image record */
struct etl_image_pending {
	bool set, rsds;
	uint64_t base;
	uint32_t pid;
	int64_t time;
	uint8_t guid[16];
	uint32_t age;
	char pdb_name[256];
};

static bool is_image_event(const struct etl_record *r)
{
	if (r->kind != ETL_KIND_KERNEL)
		return false;
	switch (r->hook_id) {
	case ETW_EVENT_IMAGE_DC_START_HOOK:
	case ETW_EVENT_IMAGE_DC_END_HOOK:
	case ETW_EVENT_IMAGE_LOAD_HOOK:
	case ETW_EVENT_IMAGE_UNLOAD_HOOK:
		/*
		 * Version 2 (Windows 8, the PerfView sample) has version 3's
		 * layout: v3 split its Reserved0 into SignatureLevel/Type.
		 */
		return (r->version & 0xFF) >= 2 && (r->version & 0xFF) <= 3 &&
		       r->payload_len >= sizeof(struct etw_image_v3);
	}
	return false;
}

/* The last component of a Windows or Linux path. */
static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/'), *back = strrchr(s, '\\');
	const char *last = slash > back ? slash : back;

	return last && last[1] ? last + 1 : s;
}

static void dbgid(struct etl_images *m, const struct etl_record *r)
{
	struct etl_image_pending *p;
	const uint8_t *d = r->payload;
	size_t fixed = 8 + 4 + 16 + 4, len;

	if (r->processor >= MAX_CPUS || r->version != 2 || r->payload_len < 12)
		return;
	p = &m->pend[r->processor];
	memset(p, 0, sizeof(*p));
	p->base = etl_le64(d);
	p->pid = etl_le32(d + 8);
	p->time = r->timestamp;
	if (r->classic_type == DBGID_NONE) {
		p->set = true;
		m->none_records++;
		return;
	}
	if (r->payload_len <= fixed)
		return;
	memcpy(p->guid, d + 12, 16);
	p->age = etl_le32(d + 28);
	/* PdbFileName: 8-bit, NUL-terminated */
	len = strnlen((const char *)d + fixed, r->payload_len - fixed);
	if (len >= sizeof(p->pdb_name))
		len = sizeof(p->pdb_name) - 1;
	memcpy(p->pdb_name, d + fixed, len);
	p->rsds = p->set = true;
	m->rsds_records++;
}

static int add_image(struct etl_images *m, const struct etl_record *r)
{
	struct etl_image_pending *p = r->processor < MAX_CPUS ? &m->pend[r->processor] : NULL;
	struct etl_image *img;

	if (m->n == m->cap) {
		size_t c = m->cap ? 2 * m->cap : 256;

		img = realloc(m->v, c * sizeof(*img));
		if (!img)
			return -1;
		m->v = img;
		m->cap = c;
	}
	img = &m->v[m->n];
	memset(img, 0, sizeof(*img));
	img->base = etl_le64(r->payload + offsetof(struct etw_image_v3, image_base));
	img->size = etl_le64(r->payload + offsetof(struct etw_image_v3, image_size));
	img->pid = etl_le32(r->payload + offsetof(struct etw_image_v3, process_id));
	img->first_time = r->timestamp;
	img->path = etl_utf16_to_utf8_alloc(r->payload + sizeof(struct etw_image_v3),
					    r->payload_len - sizeof(struct etw_image_v3), NULL, NULL);
	if (!img->path)
		return -1;
	snprintf(img->name, sizeof(img->name), "%s", base_name(img->path));
	m->n++;
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

int etl_images_add(struct etl_images *m, const struct etl_record *r)
{
	if (!m->pend) {
		m->pend = calloc(MAX_CPUS, sizeof(*m->pend));
		if (!m->pend)
			return -1;
	}
	if (r->kind == ETL_KIND_CLASSIC && r->has_guid && !memcmp(r->guid, image_id_guid, 16)) {
		if (r->classic_type == DBGID_RSDS || r->classic_type == DBGID_NONE)
			dbgid(m, r);
		return 0;
	}
	return is_image_event(r) ? add_image(m, r) : 0;
}

static int by_pid_base(const void *a, const void *b)
{
	const struct etl_image *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* One entry per image: DCStart and DCEnd (Load, UnLoad) list the same one. */
void etl_images_finish(struct etl_images *m)
{
	size_t out = 0;

	free(m->pend);
	m->pend = NULL;
	if (!m->n)
		return;
	qsort(m->v, m->n, sizeof(*m->v), by_pid_base);
	for (size_t i = 0; i < m->n; i++) {
		struct etl_image *x = &m->v[i], *last = out ? &m->v[out - 1] : NULL;

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
		m->v[out++] = *x;
	}
	m->n = out;
}

const struct etl_image *etl_images_find(const struct etl_images *m, uint32_t pid, uint64_t addr,
					int64_t time)
{
	const struct etl_image *best = NULL;
	size_t lo = 0, hi = m->n;

	if (addr >> 63)
		pid = 0;
	/* the last image of pid whose base is at or below addr, and those before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_image *x = &m->v[mid];

		if (x->pid < pid || (x->pid == pid && x->base <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* images rarely overlap: a few below the nearest are enough */
	for (int tries = 0; tries < 8 && lo-- > 0 && m->v[lo].pid == pid; tries++) {
		const struct etl_image *x = &m->v[lo];

		if (addr - x->base >= x->size)
			continue;
		if (!best || (x->first_time <= time &&
			      (best->first_time > time || x->first_time > best->first_time)))
			best = x;
	}
	return best;
}

void etl_images_free(struct etl_images *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m->pend);
	memset(m, 0, sizeof(*m));
}
