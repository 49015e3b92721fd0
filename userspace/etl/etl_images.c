// SPDX-License-Identifier: GPL-2.0
/*
 * The images of an ETL file. See etl_images.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl_events.h"
#include "etl_images.h"
#include "etl_utf16.h"

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

/* The last component of a Windows or Linux path, in place. */
static void base_name(char *s)
{
	char *slash = strrchr(s, '/'), *back = strrchr(s, '\\');
	char *last = slash > back ? slash : back;

	if (last && last[1])
		memmove(s, last + 1, strlen(last + 1) + 1);
}

static int add_image(struct etl_images *m, size_t *cap, const struct etl_record *r)
{
	struct etl_image *img;

	if (m->n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;

		img = realloc(m->v, c * sizeof(*img));
		if (!img)
			return -1;
		m->v = img;
		*cap = c;
	}
	img = &m->v[m->n++];
	img->base = etl_le64(r->payload + offsetof(struct etw_image_v3, image_base));
	img->size = etl_le64(r->payload + offsetof(struct etw_image_v3, image_size));
	img->pid = etl_le32(r->payload + offsetof(struct etw_image_v3, process_id));
	etl_utf16_to_utf8(r->payload + sizeof(struct etw_image_v3),
			  r->payload_len - sizeof(struct etw_image_v3), img->name,
			  sizeof(img->name), NULL);
	base_name(img->name);
	return 0;
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
	return strcmp(x->name, y->name);
}

int etl_images_read(const struct etl_file *f, struct etl_images *m, struct etl_error *err)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record r;
	size_t cap = 0, out = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	etl_buffers_begin(f, &bc);
	while ((ret = etl_next_buffer(f, &bc, &b, err)) > 0) {
		etl_records_begin(&b, &rc);
		while ((ret = etl_next_record(&b, &rc, &r, err)) > 0) {
			if (is_image_event(&r) && add_image(m, &cap, &r)) {
				etl_buffers_end(&bc);
				return etl_error_set(err, "out of memory reading the images");
			}
		}
		if (ret < 0) {
			etl_buffers_end(&bc);
			return -1;
		}
	}
	if (ret < 0)
		return -1;
	/* one entry per image: DCStart and DCEnd describe the same one */
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_pid_base);
	for (size_t i = 0; i < m->n; i++)
		if (!out || by_pid_base(&m->v[out - 1], &m->v[i]))
			m->v[out++] = m->v[i];
	m->n = out;
	return 0;
}

const struct etl_image *etl_images_find(const struct etl_images *m, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	const struct etl_image *best = NULL;

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

		if (addr - x->base < x->size) {
			best = x;
			break;
		}
	}
	return best;
}

void etl_images_free(struct etl_images *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
