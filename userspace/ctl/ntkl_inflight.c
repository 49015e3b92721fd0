// SPDX-License-Identifier: GPL-2.0
/*
 * Writes in flight with io_uring. See ntkl_inflight.h.
 */
#include <errno.h>
#include <string.h>

#include "ntkl_inflight.h"

int ntkl_inflight_init(struct ntkl_inflight *q)
{
	int ret;

	memset(q, 0, sizeof(*q));
	ret = io_uring_queue_init(NTKL_INFLIGHT_MAX, &q->ring, 0);
	if (ret < 0)
		return ret;
	q->ready = true;
	return 0;
}

/* Mark every write the kernel has finished done: waiting for one if wait. */
static int reap(struct ntkl_inflight *q, bool wait)
{
	struct io_uring_cqe *cqe;
	int ret;

	for (;;) {
		ret = wait ? io_uring_wait_cqe(&q->ring, &cqe) : io_uring_peek_cqe(&q->ring, &cqe);
		if (ret == -EINTR && wait)
			continue;
		if (ret == -EAGAIN && !wait)
			return 0;	/* none finished yet */
		if (ret < 0)
			return ret;
		if (cqe->user_data < NTKL_INFLIGHT_MAX) {
			struct ntkl_inflight_write *w = &q->slot[cqe->user_data];

			w->res = cqe->res;
			w->done = true;
		}
		io_uring_cqe_seen(&q->ring, cqe);
		wait = false;	/* one waited for: take the rest that are there */
	}
}

int ntkl_inflight_submit(struct ntkl_inflight *q, int fd, const uint8_t *p, uint32_t len,
			 uint64_t off, uint64_t events)
{
	unsigned int i = (q->first + q->count) % NTKL_INFLIGHT_MAX;
	struct io_uring_sqe *sqe;
	int ret;

	if (q->count == NTKL_INFLIGHT_MAX)
		return -EBUSY;
	sqe = io_uring_get_sqe(&q->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_write(sqe, fd, p, len, off);
	io_uring_sqe_set_data64(sqe, i);
	q->slot[i] = (struct ntkl_inflight_write){ .p = p, .len = len, .off = off,
						   .events = events };
	do
		ret = io_uring_submit(&q->ring);
	while (ret == -EINTR);
	if (ret < 0)
		return ret;
	q->count++;
	return 0;
}

int ntkl_inflight_pop(struct ntkl_inflight *q, bool wait, struct ntkl_inflight_write *w)
{
	struct ntkl_inflight_write *oldest = &q->slot[q->first];
	int ret;

	if (!q->count)
		return 0;
	if (!oldest->done) {
		ret = reap(q, wait && !oldest->done);
		if (ret < 0)
			return ret;
		while (wait && !oldest->done) {
			ret = reap(q, true);
			if (ret < 0)
				return ret;
		}
		if (!oldest->done)
			return 0;
	}
	*w = *oldest;
	q->first = (q->first + 1) % NTKL_INFLIGHT_MAX;
	q->count--;
	return 1;
}

void ntkl_inflight_exit(struct ntkl_inflight *q)
{
	struct ntkl_inflight_write w;

	if (!q->ready)
		return;
	/* the buffers written stay mapped until their writes are done */
	while (q->count && ntkl_inflight_pop(q, true, &w) > 0)
		;
	io_uring_queue_exit(&q->ring);
	q->ready = false;
}
