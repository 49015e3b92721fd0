/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes in flight: a first-in first-out queue of file writes submitted
 * with io_uring (liburing), finished in the order they were submitted.
 *
 * Why: a direct write (ntkl_direct.h) returns only once the device has
 * the data. One at a time, a slow device next to a fast event rate leaves
 * the logger's buffers to fill while the writer waits (make bench lost
 * events so). With several in flight the device works on some while the
 * writer takes the next; each write's buffer stays held in the logger
 * (NTKL_NEXT_KEEP) until its write is done, so it is given back in the
 * order it was taken, which is what NEXT_BUFFER's release asks for.
 */
#ifndef NTKL_INFLIGHT_H
#define NTKL_INFLIGHT_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* At most this many writes in flight (the kernel lets a reader hold 16). */
#define NTKL_INFLIGHT_MAX	8

struct ntkl_inflight_write {
	const uint8_t *p;		/* what was written */
	uint32_t len;
	uint64_t off;			/* where in the file */
	uint64_t events;		/* the caller's count, carried along */
	ssize_t res;			/* bytes written, or -errno, once done */
	bool done;
};

struct ntkl_inflight {
	struct io_uring ring;
	bool ready;			/* ring set up */
	unsigned int first, count;	/* the queue: slot[first] is the oldest */
	struct ntkl_inflight_write slot[NTKL_INFLIGHT_MAX];
};

/* Set q up: 0, or -errno (no io_uring in this kernel: ENOSYS, EPERM). */
int ntkl_inflight_init(struct ntkl_inflight *q);

/* Wait for every write, then tear q down (a no-op if it was not set up). */
void ntkl_inflight_exit(struct ntkl_inflight *q);

static inline bool ntkl_inflight_full(const struct ntkl_inflight *q)
{
	return q->count == NTKL_INFLIGHT_MAX;
}

/* Write len bytes at p to fd at off, in flight (q not full): 0 or -errno. */
int ntkl_inflight_submit(struct ntkl_inflight *q, int fd, const uint8_t *p, uint32_t len,
			 uint64_t off, uint64_t events);

/*
 * The oldest write, once done (wait: waiting for it): 1 with *w filled
 * and the write off the queue, 0 if there is none or it is not done yet,
 * or -errno if waiting failed.
 */
int ntkl_inflight_pop(struct ntkl_inflight *q, bool wait, struct ntkl_inflight_write *w);

#endif /* NTKL_INFLIGHT_H */
