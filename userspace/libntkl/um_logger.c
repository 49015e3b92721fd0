// SPDX-License-Identifier: GPL-2.0
/*
 * A private logger's life: StartTrace (ntkl_um_start), the logger thread,
 * ControlTrace's FLUSH, QUERY, UPDATE and STOP, and the one-line errors.
 *
 * The logger thread sleeps on a semaphore that writers post when they
 * close a buffer (sem_post: no lock, async-signal-safe), wakes at least
 * every FlushTimer seconds to close and write the partly filled buffers,
 * and writes closed buffers in the order they were closed once every
 * writer that reserved in them has committed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "um_internal.h"
#include "ctl/etl_file.h"
#include "uapi/ntkl.h"

static __thread char um_error[320];

void um_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(um_error, sizeof(um_error), fmt, ap);
	va_end(ap);
}

NTKL_UM_API const char *ntkl_um_last_error(void)
{
	return um_error;
}

NTKL_UM_API uint64_t ntkl_um_clock(const struct ntkl_um_logger *lg)
{
	return lg ? um_clock_now(lg) : 0;
}

/* Write every closed buffer that writers have finished with. */
static void write_closed(struct ntkl_um_logger *lg)
{
	int i;

	while ((i = um_pop_closed(&lg->pool)) >= 0) {
		struct um_buf *b = &lg->pool.bufs[i];

		/* a writer between reserve and commit: wait for it */
		while (!um_buf_ready(&lg->pool, i)) {
			struct timespec t = { 0, 20000 };

			nanosleep(&t, NULL);
		}
		if (b->filled > UM_BUF_HDR)
			um_out_buffer(lg, um_buf_mem(&lg->pool, (uint32_t)i), b->filled, b->cpu,
				      atomic_load_explicit(&b->events, memory_order_relaxed));
		um_release(lg, i);
	}
}

static void *logger_thread(void *arg)
{
	struct ntkl_um_logger *lg = arg;
	uint32_t timer = atomic_load(&lg->flush_timer);
	struct timespec next;

	atomic_store(&lg->thread_tid, (uint32_t)gettid());
	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += timer;
	for (;;) {
		uint32_t req;

		/* (CLOCK_MONOTONIC: setting the wall clock does not move the flushes) */
		if (sem_clockwait(&lg->wake, CLOCK_MONOTONIC, &next) < 0 && errno == ETIMEDOUT) {
			/* FlushTimer: partly filled buffers go out too */
			um_close_all(lg);
			clock_gettime(CLOCK_MONOTONIC, &next);
			next.tv_sec += timer;
		}
		if (timer != atomic_load(&lg->flush_timer)) {
			/* UPDATE changed it: the next flush is the new timer from now */
			timer = atomic_load(&lg->flush_timer);
			clock_gettime(CLOCK_MONOTONIC, &next);
			next.tv_sec += timer;
		}
		req = atomic_load(&lg->flush_req);
		if (req != atomic_load(&lg->flush_done) || atomic_load(&lg->stopping))
			um_close_all(lg);
		write_closed(lg);
		atomic_store(&lg->flush_done, req);
		if (atomic_load(&lg->stopping)) {
			um_close_all(lg);
			write_closed(lg);
			break;
		}
	}
	return NULL;
}

static uint32_t or_default(uint32_t v, uint32_t def)
{
	return v ? v : def;
}

/* The properties as applied: defaults filled in, bounds checked. */
static int apply(struct ntkl_um_properties *a, const struct ntkl_um_properties *p,
		 uint32_t ncpu)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (p) {
		if (p->size < offsetof(struct ntkl_um_properties, number_of_buffers) ||
		    p->size > sizeof(*p)) {
			um_set_error("ntkl_um_start: properties size %u: set size = sizeof(struct ntkl_um_properties) (%zu)",
				     p->size, sizeof(*p));
			return -EINVAL;
		}
		memcpy(a, p, offsetof(struct ntkl_um_properties, number_of_buffers));
		a->size = sizeof(*a);
	}
	if (a->reserved) {
		um_set_error("ntkl_um_start: reserved is %u: it must be 0", a->reserved);
		return -EINVAL;
	}
	a->buffer_size_kb = or_default(a->buffer_size_kb, 64);
	if (a->buffer_size_kb < NTKL_MIN_BUFFER_KB || a->buffer_size_kb > NTKL_MAX_BUFFER_KB) {
		um_set_error("ntkl_um_start: buffer_size_kb %u: give %u..%u (0: 64)",
			     a->buffer_size_kb, NTKL_MIN_BUFFER_KB, NTKL_MAX_BUFFER_KB);
		return -EINVAL;
	}
	a->minimum_buffers = or_default(a->minimum_buffers, 2 * ncpu);
	a->maximum_buffers = or_default(a->maximum_buffers,
					a->minimum_buffers > 8 * ncpu ? a->minimum_buffers :
					8 * ncpu);
	if (a->minimum_buffers < 2 || a->maximum_buffers < a->minimum_buffers ||
	    a->maximum_buffers > 65536) {
		um_set_error("ntkl_um_start: minimum_buffers %u, maximum_buffers %u: give 2 <= minimum <= maximum <= 65536",
			     a->minimum_buffers, a->maximum_buffers);
		return -EINVAL;
	}
	a->flush_timer = or_default(a->flush_timer, 1);
	if (a->log_file_mode & ~(NTKL_UM_MODE_SEQUENTIAL | NTKL_UM_MODE_PRIVATE |
				 NTKL_UM_MODE_IN_PROC | NTKL_UM_MODE_COMPRESSED |
				 NTKL_UM_MODE_BLOCKING)) {
		um_set_error("ntkl_um_start: log_file_mode 0x%08x: a private logger takes SEQUENTIAL, COMPRESSED and BLOCKING only",
			     a->log_file_mode);
		return -EINVAL;
	}
	a->log_file_mode |= NTKL_UM_MODE_SEQUENTIAL | NTKL_UM_MODE_PRIVATE | NTKL_UM_MODE_IN_PROC;
	a->clock_type = or_default(a->clock_type, NTKL_UM_CLOCK_QPC);
	if (a->clock_type > NTKL_UM_CLOCK_CYCLE) {
		um_set_error("ntkl_um_start: clock_type %u: give 1 (QPC), 2 (SYSTEM) or 3 (CYCLE)",
			     a->clock_type);
		return -EINVAL;
	}
	return 0;
}

static int check_name(const char *name)
{
	size_t n, i;

	if (!name) {
		um_set_error("ntkl_um_start: the logger name is NULL");
		return -EINVAL;
	}
	n = strlen(name);
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7F)
			break;
	if (!n || n >= NTKL_UM_NAME_MAX || i < n) {
		um_set_error("ntkl_um_start: logger name \"%.80s\": give 1..%d printable ASCII characters",
			     name, NTKL_UM_NAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

static void logger_free(struct ntkl_um_logger *lg)
{
	if (lg->fd >= 0)
		close(lg->fd);
	um_pool_free(&lg->pool);
	sem_destroy(&lg->wake);
	pthread_mutex_destroy(&lg->wait_lock);
	pthread_cond_destroy(&lg->wait_cond);
	free(lg->path);
	free(lg);
}

/* The logger thread told to stop, and gone: every closed buffer written. */
static void stop_thread(struct ntkl_um_logger *lg)
{
	atomic_store(&lg->stopping, 1);
	sem_post(&lg->wake);
	/* blocked writers give up (their events are lost) */
	pthread_mutex_lock(&lg->wait_lock);
	pthread_cond_broadcast(&lg->wait_cond);
	pthread_mutex_unlock(&lg->wait_lock);
	pthread_join(lg->thread, NULL);
}

NTKL_UM_API int ntkl_um_start(struct ntkl_um_logger **out, const char *name, const char *path,
			      const struct ntkl_um_properties *props)
{
	struct ntkl_um_logger *lg;
	struct ntkl_output_new file;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char err[320];
	int ret;

	if (!out) {
		um_set_error("ntkl_um_start: out is NULL: pass the address of a logger pointer");
		return -EINVAL;
	}
	*out = NULL;
	ret = check_name(name);
	if (ret)
		return ret;
	if (!path || !*path) {
		um_set_error("ntkl_um_start: no file: give the ETL file to write");
		return -EINVAL;
	}
	if (ncpu < 1)
		ncpu = 1;
	lg = calloc(1, sizeof(*lg));
	if (!lg) {
		um_set_error("ntkl_um_start: out of memory");
		return -ENOMEM;
	}
	lg->fd = -1;
	sem_init(&lg->wake, 0, 0);
	pthread_mutex_init(&lg->wait_lock, NULL);
	pthread_cond_init(&lg->wait_cond, NULL);
	ret = apply(&lg->props, props, (uint32_t)ncpu);
	if (ret)
		goto fail;
	snprintf(lg->name, sizeof(lg->name), "%s", name);
	lg->path = strdup(path);
	lg->mode = lg->props.log_file_mode;
	lg->clock_type = lg->props.clock_type;
	lg->pid = (uint32_t)getpid();
	atomic_init(&lg->flush_timer, lg->props.flush_timer);
	ret = um_pool_init(&lg->pool, lg->props.buffer_size_kb * 1024, lg->props.minimum_buffers,
			   lg->props.maximum_buffers, (uint32_t)ncpu, err, sizeof(err));
	if (ret) {
		um_set_error("ntkl_um_start: %s", err);
		goto fail;
	}
	if (!lg->path) {
		ret = -ENOMEM;
		um_set_error("ntkl_um_start: out of memory");
		goto fail;
	}
	/*
	 * Locked against a second writer as the kernel writers' files are;
	 * a file already at path stays as it is, and a new one is written
	 * beside it, until the logger runs (ntkl_output_begin()).
	 */
	ret = ntkl_output_begin(&file, path, err, sizeof(err));
	if (ret) {
		um_set_error("ntkl_um_start: %s", err);
		goto fail;
	}
	lg->fd = file.fd;
	um_clock_init(lg);
	lg->start_clock = um_clock_now(lg);
	lg->start_filetime = etl_filetime_now();
	ret = um_out_open(lg);
	if (ret)
		goto fail_out;
	ret = pthread_create(&lg->thread, NULL, logger_thread, lg);
	if (ret) {
		ret = -ret;
		um_set_error("ntkl_um_start: cannot start the logger thread: %s", strerror(-ret));
		goto fail_out;
	}
	/* QUERY gives its id from the start on */
	while (!atomic_load(&lg->thread_tid)) {
		struct timespec t = { 0, 50000 };

		nanosleep(&t, NULL);
	}
	/* only now does the new file replace one at path */
	ret = ntkl_output_commit(&file, err, sizeof(err));
	if (ret) {
		um_set_error("ntkl_um_start: %s", err);
		stop_thread(lg);
		goto fail_out;
	}
	*out = lg;
	return 0;
fail_out:
	if (lg->out)
		um_out_close(lg);
	/* what this call made goes, and nothing else: a file at path stays as it was */
	ntkl_output_abort(&file);
	lg->fd = -1;
fail:
	logger_free(lg);
	return ret;
}

static int check_logger(const struct ntkl_um_logger *lg, const char *fn)
{
	if (!lg) {
		um_set_error("%s: the logger is NULL: pass what ntkl_um_start gave", fn);
		return -EINVAL;
	}
	if (atomic_load(&lg->stopping)) {
		um_set_error("%s: logger %s is stopping", fn, lg->name);
		return -ESHUTDOWN;
	}
	return 0;
}

NTKL_UM_API int ntkl_um_flush(struct ntkl_um_logger *lg)
{
	uint32_t req;
	int ret = check_logger(lg, "ntkl_um_flush");

	if (ret)
		return ret;
	req = atomic_fetch_add(&lg->flush_req, 1) + 1;
	sem_post(&lg->wake);
	while ((int32_t)(atomic_load(&lg->flush_done) - req) < 0) {
		struct timespec t = { 0, 100000 };

		nanosleep(&t, NULL);
	}
	return 0;
}

static void fill_counters(struct ntkl_um_logger *lg, struct ntkl_um_properties *p)
{
	*p = lg->props;
	p->number_of_buffers = atomic_load(&lg->pool.committed_n);
	p->free_buffers = atomic_load(&lg->pool.free_n);
	p->maximum_buffers = atomic_load(&lg->pool.limit);
	p->flush_timer = atomic_load(&lg->flush_timer);
	p->number_of_processors = lg->pool.ncpu;
	p->logger_thread_id = atomic_load(&lg->thread_tid);
	p->events_lost = atomic_load(&lg->events_lost);
	p->buffers_written = atomic_load(&lg->buffers_written);
	p->log_buffers_lost = atomic_load(&lg->log_buffers_lost);
	p->events_written = atomic_load(&lg->events_written);
	p->file_bytes = atomic_load(&lg->file_bytes);
	p->perf_freq = lg->perf_freq;
	p->start_clock = lg->start_clock;
}

NTKL_UM_API int ntkl_um_query(struct ntkl_um_logger *lg, struct ntkl_um_properties *props)
{
	int ret = check_logger(lg, "ntkl_um_query");

	if (ret)
		return ret;
	if (!props) {
		um_set_error("ntkl_um_query: props is NULL");
		return -EINVAL;
	}
	fill_counters(lg, props);
	return 0;
}

NTKL_UM_API int ntkl_um_update(struct ntkl_um_logger *lg, const struct ntkl_um_properties *p)
{
	int ret = check_logger(lg, "ntkl_um_update");

	if (ret)
		return ret;
	if (!p || p->size != sizeof(*p)) {
		um_set_error("ntkl_um_update: %s", !p ? "props is NULL" :
			     "set size = sizeof(struct ntkl_um_properties)");
		return -EINVAL;
	}
#define FIXED(f) (p->f && p->f != lg->props.f)
	if (FIXED(buffer_size_kb) || FIXED(minimum_buffers) || FIXED(clock_type) ||
	    (p->log_file_mode && (p->log_file_mode | NTKL_UM_MODE_SEQUENTIAL | NTKL_UM_MODE_PRIVATE |
				  NTKL_UM_MODE_IN_PROC) != lg->props.log_file_mode)) {
		um_set_error("ntkl_um_update: a running logger changes only flush_timer and maximum_buffers: leave the others 0 (or stop and start it)");
		return -EINVAL;
	}
#undef FIXED
	if (p->maximum_buffers &&
	    (p->maximum_buffers > lg->pool.maximum ||
	     p->maximum_buffers < atomic_load(&lg->pool.committed_n))) {
		um_set_error("ntkl_um_update: maximum_buffers %u: give %u..%u (the buffers in use .. what start reserved)",
			     p->maximum_buffers, atomic_load(&lg->pool.committed_n), lg->pool.maximum);
		return -EINVAL;
	}
	if (p->maximum_buffers)
		atomic_store(&lg->pool.limit, p->maximum_buffers);
	if (p->flush_timer) {
		atomic_store(&lg->flush_timer, p->flush_timer);
		sem_post(&lg->wake);
	}
	return 0;
}

NTKL_UM_API int ntkl_um_stop(struct ntkl_um_logger *lg, struct ntkl_um_properties *final)
{
	int ret = check_logger(lg, "ntkl_um_stop");

	if (ret)
		return ret;
	stop_thread(lg);
	ret = um_out_close(lg);
	if (ret)
		um_set_error("ntkl_um_stop: %s", lg->error);
	if (final)
		fill_counters(lg, final);
	logger_free(lg);
	return ret;
}
