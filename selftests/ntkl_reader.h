/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a capture back with the ntkl reader library, for the selftests
 * that link it (selftests/Makefile: READER_TESTS): one walk over every
 * record, the strict checker's verdict, and a reader draining in a thread.
 */
#ifndef NTKL_READER_H
#define NTKL_READER_H

#include <pthread.h>

#include "ntkl_util.h"
#include "etl_check.h"
#include "etl_reader.h"

/* Called for every buffer (r NULL) and then for each of its records. */
typedef void (*capture_fn)(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r);

/* What the strict checker says of a capture, and its size. */
struct capture_verdict {
	unsigned long violations;
	char first_violation[256];
	unsigned int buffers, records;
};

static inline void capture_on_violation(void *ctx, const char *msg)
{
	struct capture_verdict *v = ctx;

	if (!v->violations++)
		snprintf(v->first_violation, sizeof(v->first_violation), "%s", msg);
}

/*
 * Walk the capture's buffers and records, calling fn (if not NULL) on
 * each, then run the strict checker over the whole file into v (if not
 * NULL). 0, or -1 if the file does not open (the reason in v).
 */
static inline int capture_walk(const struct capture *c, capture_fn fn, void *ctx,
			       struct capture_verdict *v)
{
	struct etl_record_cursor rc;
	struct etl_error err;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record r;
	struct etl_file f;

	if (v)
		memset(v, 0, sizeof(*v));
	if (etl_open_memory(&f, "capture", c->data, c->size, &err)) {
		if (v)
			snprintf(v->first_violation, sizeof(v->first_violation), "%s", err.msg);
		return -1;
	}
	etl_buffers_begin(&f, &bc);
	while (etl_next_buffer(&f, &bc, &b, &err) == 1) {
		if (v)
			v->buffers++;
		if (fn)
			fn(ctx, &f, &b, NULL);
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) == 1) {
			if (v)
				v->records++;
			if (fn)
				fn(ctx, &f, &b, &r);
		}
	}
	if (v)
		etl_check(&f, false, capture_on_violation, v, NULL);
	etl_close(&f);
	return 0;
}

/* Kernel records of hook in a capture. */
struct hook_count {
	uint16_t hook;
	unsigned int n;
};

static inline void count_one_hook(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct hook_count *hc = ctx;

	hc->n += r && r->kind == ETL_KIND_KERNEL && r->hook_id == hc->hook;
}

static inline unsigned int capture_count_hook(const struct capture *c, uint16_t hook)
{
	struct hook_count hc = { hook, 0 };

	capture_walk(c, count_one_hook, &hc, NULL);
	return hc.n;
}

/* A reader that drains its logger in a thread while the writers run. */
struct drain_job {
	int fd;
	size_t size;
	struct capture c;
	int ret;
};

static inline void *drain_thread(void *arg)
{
	struct drain_job *job = arg;

	job->ret = capture_drain(job->fd, job->size, &job->c, 0);
	return NULL;
}

#endif /* NTKL_READER_H */
