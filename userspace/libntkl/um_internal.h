/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntkl's insides, shared by its files (none of it is exported: the
 * library is built with -fvisibility=hidden and only libntkl.h's
 * functions are NTKL_UM_API).
 *
 *   um_clock.c    the three clock types
 *   um_buffers.c  the buffer pool and the per-CPU lock-free reserve
 *   um_header.c   the header buffer (buffer 0) of the file
 *   um_file.c     the logger thread's output: plain, or compressed
 *   um_write.c    providers, TraceLogging schemas, EventWrite
 *   um_logger.c   start/stop/flush/query/update, the logger thread, errors
 */
#ifndef NTKL_UM_INTERNAL_H
#define NTKL_UM_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "libntkl.h"

#define NTKL_UM_API __attribute__((visibility("default")))

#define UM_BUF_HDR	0x48u		/* WMI_BUFFER_HEADER */
#define UM_ALIGN8(x)	(((x) + 7u) & ~7u)
#define UM_MAX_BINARIES	64		/* (binary, provider) pairs remembered */

/*
 * A buffer's state word: its generation (high 32 bits: a reserve from a
 * writer that read an earlier generation's state fails) and the reserve
 * offset, with CLOSED once no writer may add.
 */
#define UM_CLOSED	0x80000000u
#define UM_OFFSET(st)	((uint32_t)(st) & ~UM_CLOSED)
#define UM_GEN(st)	((uint32_t)((st) >> 32))

/*
 * A buffer slot of the pool. Its memory is pool->mem + index * stride;
 * state and committed live here, out of the buffer, so that the buffer's
 * bytes are exactly what goes to the file.
 */
struct um_buf {
	_Atomic uint64_t state;		/* gen << 32 | bytes reserved (header in) | UM_CLOSED */
	_Atomic uint32_t committed;	/* bytes written by writers that finished */
	uint32_t filled;		/* state at close, without UM_CLOSED */
	uint16_t cpu;			/* the CPU slot it served */
	_Atomic uint32_t events;	/* records in it */
	uint32_t gen;			/* bumped at each reuse (the slot's ABA tag) */
	uint32_t next_closed;		/* closed list link (index + 1) */
	_Atomic uint32_t next_free;	/* free stack link (index + 1) */
};

struct um_pool {
	uint8_t *mem;			/* maximum * stride bytes reserved */
	size_t stride;			/* buffer size rounded up to pages */
	uint32_t size;			/* BufferSize */
	uint32_t minimum, maximum;	/* committed at start, reserved */
	_Atomic uint32_t limit;		/* maximum as UPDATE set it (<= maximum) */
	_Atomic uint32_t committed_n;	/* buffers committed so far */
	struct um_buf *bufs;		/* maximum of them */
	_Atomic uint64_t free_top;	/* tag << 32 | index + 1 (0: empty) */
	_Atomic uint32_t free_n;
	_Atomic uint32_t closed_top;	/* closed list, newest first (index + 1) */
	uint32_t pending;		/* the thread's share of it, oldest first */
	uint32_t ncpu;
	_Atomic uint64_t *slot;		/* per CPU: gen << 32 | index + 1 (0: none) */
};

struct um_logger_out;

struct ntkl_um_logger {
	char name[NTKL_UM_NAME_MAX];
	char *path;
	int fd;
	struct ntkl_um_properties props;	/* as applied */
	uint32_t mode;
	uint32_t clock_type;
	uint64_t perf_freq;
	uint64_t start_clock;
	int64_t start_filetime;
	uint32_t pid;				/* getpid() is a system call */
	struct um_pool pool;

	_Atomic uint64_t events_lost;
	_Atomic uint32_t blocked;		/* writers waiting (BLOCKING_MODE) */
	pthread_mutex_t wait_lock;		/* for blocked writers only */
	pthread_cond_t wait_cond;

	pthread_t thread;
	_Atomic uint32_t thread_tid;
	sem_t wake;				/* a buffer closed, or a request */
	_Atomic int stopping;
	_Atomic uint32_t flush_req, flush_done;	/* FLUSH handshakes */
	_Atomic uint32_t flush_timer;		/* seconds */

	/* logger thread only */
	struct um_logger_out *out;
	uint64_t seq;				/* SequenceNumber of the next buffer */
	uint64_t max_time;
	int write_error;			/* the first -errno of the file */
	char error[256];

	/* providers' binaries written (um_binary.c), under wait_lock */
	struct {
		uint8_t guid[16];
		uint32_t path_hash;
	} binaries[UM_MAX_BINARIES];
	unsigned int nr_binaries;

	/* counters the thread publishes */
	_Atomic uint64_t buffers_written;	/* header buffer included */
	_Atomic uint64_t log_buffers_lost;
	_Atomic uint64_t events_written;
	_Atomic uint64_t file_bytes;
};

struct ntkl_um_provider {
	struct ntkl_um_logger *lg;
	uint8_t guid[16];
	uint8_t level;
	uint64_t keyword_mask;
	uint16_t traits_len;		/* PROV_TRAITS item: u16 size, name, NUL */
	uint8_t traits[2 + NTKL_UM_NAME_MAX];
};

/* um_binary.c */
int um_binary_record(struct ntkl_um_logger *lg, const uint8_t guid[16], const void *caller);

/* um_clock.c */
int um_clock_init(struct ntkl_um_logger *lg);
uint64_t um_clock_now(const struct ntkl_um_logger *lg);
int64_t um_boot_filetime(void);

/* um_buffers.c */
int um_pool_init(struct um_pool *pool, uint32_t size, uint32_t minimum, uint32_t maximum,
		 uint32_t ncpu, char *err, size_t err_size);
void um_pool_free(struct um_pool *pool);
static inline uint8_t *um_buf_mem(const struct um_pool *pool, uint32_t i)
{
	return pool->mem + (size_t)i * pool->stride;
}
/*
 * Reserve len bytes (a multiple of 8) in the calling CPU's buffer and
 * stamp them: *ts is the clock read inside the reservation, so that
 * records of a buffer are in time order. Returns the buffer index, or -1
 * (no buffer: the caller counts the loss or, in BLOCKING_MODE, waits).
 */
int um_reserve(struct ntkl_um_logger *lg, uint32_t len, uint8_t **at, uint64_t *ts);
void um_commit(struct ntkl_um_logger *lg, int index, uint32_t len);
void um_commit_own(struct ntkl_um_logger *lg, int index, uint32_t len);
/* Close every CPU's current buffer (flush, stop): the thread writes them. */
void um_close_all(struct ntkl_um_logger *lg);
/* The closed buffers, oldest first; -1 when none. */
int um_pop_closed(struct um_pool *pool);
bool um_buf_ready(const struct um_pool *pool, int index);
void um_release(struct ntkl_um_logger *lg, int index);

/* um_header.c: the header buffer in buf (pool->size bytes) */
void um_header_build(struct ntkl_um_logger *lg, uint8_t *buf);

/* um_file.c */
int um_out_open(struct ntkl_um_logger *lg);
/* One trace buffer (filled bytes at buf) to the file, compressed or not. */
void um_out_buffer(struct ntkl_um_logger *lg, uint8_t *buf, uint32_t filled, uint16_t cpu,
		   uint32_t events);
/* The end: what is left in the compression buffer, then the header patch. */
int um_out_close(struct ntkl_um_logger *lg);

/* um_logger.c */
void um_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NTKL_UM_INTERNAL_H */
