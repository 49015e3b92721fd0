// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer pool and the writers' fast path.
 *
 * Memory: MaximumBuffers buffers' worth of address space is reserved at
 * start (PROT_NONE), MinimumBuffers of it committed (read-write, touched);
 * a buffer more is committed only when the free ones run out, up to the
 * maximum, as ETW's user-mode loggers do (seed 003). Each buffer is a
 * whole number of pages.
 *
 * Fast path: per-CPU buffers with a compare-and-swap reserve, the CPU
 * from sched_getcpu(). Not restartable sequences: an rseq critical
 * section needs per-architecture assembly and glibc owns the process's
 * rseq area; glibc (2.35+) already reads the CPU number from it in
 * sched_getcpu(), so the CPU costs a load, and the CAS makes a reserve
 * correct even when the thread migrates between reading the CPU and
 * reserving (it then writes into the other CPU's buffer: still whole and
 * in order). The clock is read inside the CAS loop, after the offset: a
 * record that got a later offset read the clock later, so a buffer's
 * records are in time order as readers expect.
 *
 * A writer that finds its buffer full closes it (sets UM_CLOSED: no more
 * reserves), queues it for the logger thread and installs a free buffer
 * in its CPU's slot. A slot holds the buffer's index and generation, and
 * so does the buffer's state word: a writer holding a stale view can never
 * replace, close or reserve in a recycled buffer (whose offset may have
 * come back to the value it read, with records of later times before it). The
 * logger thread writes a closed buffer once every writer that reserved
 * in it committed (committed == filled).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "um_internal.h"
#include "uapi/ntkl_etw.h"

int um_pool_init(struct um_pool *pool, uint32_t size, uint32_t minimum, uint32_t maximum,
		 uint32_t ncpu, char *err, size_t err_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t i;

	memset(pool, 0, sizeof(*pool));
	pool->size = size;
	pool->stride = (size + page - 1) / page * page;
	pool->minimum = minimum;
	pool->maximum = maximum;
	pool->ncpu = ncpu;
	atomic_init(&pool->limit, maximum);
	pool->mem = mmap(NULL, pool->stride * maximum, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pool->mem == MAP_FAILED) {
		pool->mem = NULL;
		snprintf(err, err_size, "cannot reserve %u buffers of %u bytes: %s: lower maximum_buffers or buffer_size_kb",
			 maximum, size, strerror(errno));
		return -ENOMEM;
	}
	pool->bufs = calloc(maximum, sizeof(*pool->bufs));
	pool->slot = calloc(ncpu, sizeof(*pool->slot));
	if (!pool->bufs || !pool->slot ||
	    mprotect(pool->mem, pool->stride * minimum, PROT_READ | PROT_WRITE)) {
		snprintf(err, err_size, "cannot commit %u buffers of %u bytes: lower minimum_buffers or buffer_size_kb",
			 minimum, size);
		um_pool_free(pool);
		return -ENOMEM;
	}
	/* the unused tail of every buffer reads 0xFF, as Windows leaves it */
	memset(pool->mem, ETW_BUFFER_FILL_BYTE, pool->stride * minimum);
	for (i = 0; i < maximum; i++)
		atomic_init(&pool->bufs[i].state, (uint64_t)UM_CLOSED);
	atomic_init(&pool->committed_n, minimum);
	for (i = minimum; i-- > 0;) {
		atomic_init(&pool->bufs[i].next_free, (uint32_t)(pool->free_top & 0xFFFFFFFFu));
		pool->free_top = i + 1;
	}
	atomic_init(&pool->free_n, minimum);
	return 0;
}

void um_pool_free(struct um_pool *pool)
{
	if (pool->mem)
		munmap(pool->mem, pool->stride * pool->maximum);
	free(pool->bufs);
	free(pool->slot);
	memset(pool, 0, sizeof(*pool));
}

/* Treiber stack with a tag against ABA: tag << 32 | index + 1. */
static int pop_free(struct um_pool *pool)
{
	uint64_t top = atomic_load_explicit(&pool->free_top, memory_order_acquire);

	for (;;) {
		uint32_t i = (uint32_t)top;
		uint64_t next;

		if (!i)
			return -1;
		next = (top >> 32) + 1;
		next = next << 32 |
		       atomic_load_explicit(&pool->bufs[i - 1].next_free, memory_order_relaxed);
		if (atomic_compare_exchange_weak_explicit(&pool->free_top, &top, next,
							  memory_order_acquire,
							  memory_order_acquire)) {
			atomic_fetch_sub_explicit(&pool->free_n, 1, memory_order_relaxed);
			return (int)(i - 1);
		}
	}
}

static void push_free(struct um_pool *pool, uint32_t index)
{
	uint64_t top = atomic_load_explicit(&pool->free_top, memory_order_relaxed);
	uint64_t next;

	do {
		atomic_store_explicit(&pool->bufs[index].next_free, (uint32_t)top,
				      memory_order_relaxed);
		next = ((top >> 32) + 1) << 32 | (index + 1);
	} while (!atomic_compare_exchange_weak_explicit(&pool->free_top, &top, next,
							memory_order_release,
							memory_order_relaxed));
	atomic_fetch_add_explicit(&pool->free_n, 1, memory_order_relaxed);
}

/* One buffer more, committed now: its index, or -1 at the limit. */
static int grow(struct um_pool *pool)
{
	uint32_t n = atomic_load_explicit(&pool->committed_n, memory_order_relaxed);

	do {
		if (n >= atomic_load_explicit(&pool->limit, memory_order_relaxed))
			return -1;
	} while (!atomic_compare_exchange_weak_explicit(&pool->committed_n, &n, n + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	if (mprotect(um_buf_mem(pool, n), pool->stride, PROT_READ | PROT_WRITE)) {
		/* out of memory: the buffer stays uncommitted, the slot unused */
		return -1;
	}
	memset(um_buf_mem(pool, n), ETW_BUFFER_FILL_BYTE, pool->stride);
	return (int)n;
}

/* Close generation gen of buffer index (a later one stays open). */
static void close_buf(struct ntkl_um_logger *lg, uint32_t index, uint32_t gen)
{
	struct um_pool *pool = &lg->pool;
	struct um_buf *b = &pool->bufs[index];
	uint64_t old = atomic_load_explicit(&b->state, memory_order_relaxed);
	uint32_t top;

	do {
		if (UM_GEN(old) != gen || (old & UM_CLOSED))
			return;	/* recycled, or someone else closed and queued it */
	} while (!atomic_compare_exchange_weak_explicit(&b->state, &old, old | UM_CLOSED,
							memory_order_acq_rel,
							memory_order_relaxed));
	b->filled = UM_OFFSET(old);
	top = atomic_load_explicit(&pool->closed_top, memory_order_relaxed);
	do
		b->next_closed = top;
	while (!atomic_compare_exchange_weak_explicit(&pool->closed_top, &top, index + 1,
						      memory_order_release,
						      memory_order_relaxed));
	sem_post(&lg->wake);
}

/*
 * Put a fresh buffer in cpu's slot in place of expected (0, or a closed
 * buffer): 0 (the slot changed, by us or another writer), -1 no buffer.
 */
static int install(struct ntkl_um_logger *lg, uint32_t cpu, uint64_t expected)
{
	struct um_pool *pool = &lg->pool;
	struct um_buf *b;
	uint32_t gen;
	int i = pop_free(pool);

	if (i < 0)
		i = grow(pool);
	if (i < 0)
		return -1;
	b = &pool->bufs[i];
	b->cpu = (uint16_t)cpu;
	b->filled = 0;
	gen = ++b->gen;
	atomic_store_explicit(&b->events, 0, memory_order_relaxed);
	atomic_store_explicit(&b->committed, UM_BUF_HDR, memory_order_relaxed);
	atomic_store_explicit(&b->state, (uint64_t)gen << 32 | UM_BUF_HDR, memory_order_release);
	if (!atomic_compare_exchange_strong_explicit(&pool->slot[cpu], &expected,
						     (uint64_t)gen << 32 | (uint32_t)(i + 1),
						     memory_order_acq_rel,
						     memory_order_acquire)) {
		/*
		 * Another writer put one there first. Ours goes to the logger
		 * thread like any closed buffer: a writer with a stale view of
		 * the slot may have reserved in it already.
		 */
		close_buf(lg, (uint32_t)i, gen);
	}
	return 0;
}

static uint32_t this_cpu(const struct um_pool *pool)
{
	int cpu = sched_getcpu();

	if (cpu < 0)
		return 0;
	return (uint32_t)cpu < pool->ncpu ? (uint32_t)cpu : (uint32_t)cpu % pool->ncpu;
}

int um_reserve(struct ntkl_um_logger *lg, uint32_t len, uint8_t **at, uint64_t *ts)
{
	struct um_pool *pool = &lg->pool;
	uint32_t cpu = this_cpu(pool);

	for (;;) {
		uint64_t s = atomic_load_explicit(&pool->slot[cpu], memory_order_acquire);
		uint32_t i = (uint32_t)s, gen = UM_GEN(s);
		struct um_buf *b;
		uint64_t st;

		if (i) {
			b = &pool->bufs[i - 1];
			st = atomic_load_explicit(&b->state, memory_order_acquire);
			/* closed, or recycled since the slot named it: replace it */
			while (!(st & UM_CLOSED) && UM_GEN(st) == gen) {
				if (UM_OFFSET(st) + len > pool->size) {
					close_buf(lg, i - 1, gen);
					break;
				}
				*ts = um_clock_now(lg);
				if (atomic_compare_exchange_weak_explicit(&b->state, &st, st + len,
									  memory_order_acquire,
									  memory_order_acquire)) {
					*at = um_buf_mem(pool, i - 1) + UM_OFFSET(st);
					return (int)(i - 1);
				}
			}
		}
		if (install(lg, cpu, s) < 0)
			return -1;
	}
}

void um_commit(struct ntkl_um_logger *lg, int index, uint32_t len)
{
	struct um_buf *b = &lg->pool.bufs[index];

	atomic_fetch_add_explicit(&b->events, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->committed, len, memory_order_release);
}

/* The logger's own record: in the file, not among the program's events. */
void um_commit_own(struct ntkl_um_logger *lg, int index, uint32_t len)
{
	atomic_fetch_add_explicit(&lg->pool.bufs[index].committed, len, memory_order_release);
}

void um_close_all(struct ntkl_um_logger *lg)
{
	struct um_pool *pool = &lg->pool;
	uint32_t cpu;

	for (cpu = 0; cpu < pool->ncpu; cpu++) {
		uint64_t s = atomic_load_explicit(&pool->slot[cpu], memory_order_acquire);

		if ((uint32_t)s)
			close_buf(lg, (uint32_t)s - 1, UM_GEN(s));
	}
}

int um_pop_closed(struct um_pool *pool)
{
	uint32_t i;

	if (!pool->pending) {
		/* take the whole list, newest first, and turn it around */
		uint32_t n = atomic_exchange_explicit(&pool->closed_top, 0, memory_order_acquire);

		while (n) {
			uint32_t next = pool->bufs[n - 1].next_closed;

			pool->bufs[n - 1].next_closed = pool->pending;
			pool->pending = n;
			n = next;
		}
	}
	i = pool->pending;
	if (!i)
		return -1;
	pool->pending = pool->bufs[i - 1].next_closed;
	return (int)(i - 1);
}

bool um_buf_ready(const struct um_pool *pool, int index)
{
	struct um_buf *b = &pool->bufs[index];

	return atomic_load_explicit(&b->committed, memory_order_acquire) == b->filled;
}

void um_release(struct ntkl_um_logger *lg, int index)
{
	struct um_pool *pool = &lg->pool;
	struct um_buf *b = &pool->bufs[index];

	memset(um_buf_mem(pool, (uint32_t)index), ETW_BUFFER_FILL_BYTE, b->filled);
	push_free(pool, (uint32_t)index);
	if (atomic_load_explicit(&lg->blocked, memory_order_acquire)) {
		pthread_mutex_lock(&lg->wait_lock);
		pthread_cond_broadcast(&lg->wait_cond);
		pthread_mutex_unlock(&lg->wait_lock);
	}
}
