// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU ETW buffers.
 *
 * Each logger has, per CPU, a ring of buffers laid out as ETW's: a 0x48-byte
 * WMI_BUFFER_HEADER, 8-byte aligned records, a 0xFF tail. Writers run in any
 * context (task, softirq, hardirq, NMI nesting on one CPU) and never block,
 * allocate or take a lock:
 *
 *  - reserve: compare-and-swap on the current buffer's fill offset, reading
 *    the clock inside the loop so that records in a buffer are in time order
 *    even when an interrupt writes between our clock read and our swap;
 *  - full buffer: the writer that sets the CLOSED bit stamps the buffer's
 *    sequence number and moves head to the next buffer if the reader has
 *    given it back; otherwise the event is dropped and counted, and the
 *    next buffer gets the EVENTS_LOST flag;
 *  - commit: add the record's size to committed; the reader takes a closed
 *    buffer only once committed == fill.
 *
 * head moves on the ring's own CPU while writers may run, so local_t
 * operations suffice; the reader resets a buffer before it moves tail, so
 * writers reset none but in buffering mode (below). Closing the current
 * buffer on demand (flush, stop) runs on the ring's CPU for the same
 * reason (an offline CPU's ring, which no writer can touch, is closed
 * from here). In buffering mode a writer that finds no free buffer
 * empties the oldest and moves tail past it, as the reader would
 * (ring_drop_oldest()), and overwrites it; reading a snapshot first stops
 * writers, and lets them go on once it is read.
 *
 * Buffers are vmalloc'd, whole pages, zeroed: a reader may map them all
 * (transport/mapping.c), so each is pages of its own that never held
 * anything else. A mapped reader holds the buffers it was given (tail
 * stays on the first, ring->given counts them) until it gives them back.
 */
#include <linux/cpu.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ntkl.h"
#include "control/fault.h"
#include "transport/reserve.h"

#define HDR_SIZE	sizeof(struct wmi_buffer_header)
#define BUFFER_GFP	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN | __GFP_ZERO)

static_assert(sizeof(long) == 8, "a buffer's fill word holds a generation above bit 31");

/*
 * What a buffer goes through, once, before a reader who may not see it as
 * written gets it: the format layer's (format/redact.c hashes kernel
 * addresses), registered at load. The transport knows no event kind; it
 * only calls this on a whole buffer.
 */
static void (*reader_hook)(u8 *data, u32 filled);

void ntkl_buffers_set_reader_hook(void (*hook)(u8 *data, u32 filled))
{
	reader_hook = hook;
}

/* The fill word of a buffer emptied: its next generation (ntkl.h says why). */
static long fill_emptied(long fill)
{
	unsigned long gen = (unsigned long)fill &
			    ~(unsigned long)(NTKL_FILL_CLOSED | NTKL_FILL_OFFSET);

	return (long)(gen + NTKL_FILL_GENERATION + HDR_SIZE);
}

/* The rest of emptying a buffer, once its fill word says so. */
static void buffer_clear(struct ntkl_buffer *buf)
{
	local_set(&buf->committed, HDR_SIZE);
	local_set(&buf->records, 0);
	buf->flags = 0;
	buf->hooked = false;
	buf->flush_clock = 0;
	buf->overshoot = 0;
	/* sequence last: a nonzero one tells the reader the stamp is done */
	WRITE_ONCE(buf->sequence, 0);
}

/* Empty a buffer that no writer can reach (not in the ring, or no writers). */
static void buffer_reset(struct ntkl_buffer *buf)
{
	local_set(&buf->fill, fill_emptied(local_read(&buf->fill)));
	buffer_clear(buf);
}

int ntkl_buffers_alloc(struct ntkl_logger *lg)
{
	unsigned int cpus = num_possible_cpus();
	unsigned int per_cpu, cpu, i;

	if (ntkl_fault())
		return -ENOMEM;
	/* A power of two per CPU, so a ring slot is a mask, not a division. */
	per_cpu = max_t(unsigned int, NTKL_MIN_BUFFERS_PER_CPU, lg->max_buffers / cpus);
	per_cpu = rounddown_pow_of_two(per_cpu);

	/*
	 * Up to 4096 buffers of 16 MB may be asked for. What cannot fit in the
	 * memory available now is refused at once; and the buffers are taken
	 * with __GFP_RETRY_MAYFAIL, so that memory running out on the way
	 * fails this START (ENOMEM) instead of waking the OOM killer.
	 */
	if ((u64)per_cpu * cpus * lg->buffer_size >
	    (u64)si_mem_available() << PAGE_SHIFT)
		return -ENOMEM;

	lg->rings = alloc_percpu(struct ntkl_cpu_ring);
	if (!lg->rings)
		return -ENOMEM;
	lg->header = __vmalloc(PAGE_ALIGN(lg->buffer_size), BUFFER_GFP);
	if (!lg->header)
		goto nomem;

	for_each_possible_cpu(cpu) {
		struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);

		ring->cpu = cpu;
		ring->nr = per_cpu;
		ring->mask = per_cpu - 1;
		/* the mapping's slots: the header's, then each CPU's in turn */
		ring->map_slot = 1 + lg->nr_buffers;
		ring->bufs = kcalloc(per_cpu, sizeof(*ring->bufs), GFP_KERNEL);
		if (!ring->bufs)
			goto nomem;
		for (i = 0; i < per_cpu; i++) {
			ring->bufs[i].data = __vmalloc(PAGE_ALIGN(lg->buffer_size), BUFFER_GFP);
			if (!ring->bufs[i].data)
				goto nomem;
			ring->bufs[i].wake = &lg->wake_work;
			buffer_reset(&ring->bufs[i]);
		}
		local_set(&ring->head, 0);
		local_set(&ring->tail, 0);
		lg->nr_buffers += per_cpu;
	}
	return 0;

nomem:
	ntkl_buffers_free(lg);
	return -ENOMEM;
}

void ntkl_buffers_free(struct ntkl_logger *lg)
{
	unsigned int cpu, i;

	if (lg->rings) {
		for_each_possible_cpu(cpu) {
			struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);

			if (!ring->bufs)
				continue;
			for (i = 0; i < ring->nr; i++)
				vfree(ring->bufs[i].data);
			kfree(ring->bufs);
		}
		free_percpu(lg->rings);
		lg->rings = NULL;
	}
	vfree(lg->header);
	lg->header = NULL;
	lg->nr_buffers = 0;
}

static inline bool buffer_complete(struct ntkl_buffer *buf)
{
	long fill = local_read(&buf->fill);

	return (fill & NTKL_FILL_CLOSED) && READ_ONCE(buf->sequence) &&
	       local_read(&buf->committed) == (fill & NTKL_FILL_OFFSET);
}

/*
 * Buffering mode: make room by dropping the oldest closed buffer, unless a
 * writer interrupted on this CPU is still filling it. The buffer is
 * emptied before tail moves past it, as the reader does: once tail has
 * moved, an interrupting writer may make it the current buffer. Its fill
 * word is claimed first (a swap to the next generation), so that of this
 * writer and one that interrupts it, one empties it.
 */
static bool ring_drop_oldest(struct ntkl_cpu_ring *ring, unsigned long tail)
{
	struct ntkl_buffer *oldest = ntkl_ring_buffer(ring, tail);
	long fill = local_read(&oldest->fill);

	/*
	 * tail as the caller read it, before an interrupt perhaps: once the
	 * ring has gone round, that slot is a buffer in the middle. Still
	 * the oldest when we read its fill, it stays so until our swap.
	 */
	if (local_read(&ring->tail) != tail)
		return true;	/* moved on: look again */
	if (!buffer_complete(oldest))
		return false;
	if (local_cmpxchg(&oldest->fill, fill, fill_emptied(fill)) != fill)
		return true;	/* an interrupt dropped it: look again */
	buffer_clear(oldest);
	smp_wmb();	/* emptied before a writer can see it free */
	local_cmpxchg(&ring->tail, tail, tail + 1);
	return true;
}

/* Move head past buffer h if the next one is free. */
static bool ring_advance(struct ntkl_logger *lg, struct ntkl_cpu_ring *ring,
			 unsigned long h)
{
	unsigned long tail = local_read(&ring->tail);

	if (h + 1 - tail >= ring->nr) {
		if (!(lg->mode & NTKL_MODE_BUFFERING) || !ring_drop_oldest(ring, tail))
			return false;
	}
	if (local_cmpxchg(&ring->head, h, h + 1) == h &&
	    local_xchg(&ring->lost_pending, 0))
		ntkl_ring_buffer(ring, h + 1)->flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
	return true;
}

/*
 * Stamp a buffer this context has just closed and tell the reader. Only
 * the context whose swap set CLOSED gets here, so the stamps have one
 * writer. overshoot is where the fill would have gone: the size of the
 * record that did not fit, or the whole buffer for a flush (Windows'
 * CurrentOffset, docs/linux-to-nt.md "Buffers").
 */
static void buffer_closed(struct ntkl_logger *lg, struct ntkl_buffer *buf,
			  u32 overshoot)
{
	buf->overshoot = overshoot;
	buf->flush_clock = ntkl_clock(lg->clock_type);
	smp_wmb();	/* the stamp before the sequence that publishes it */
	WRITE_ONCE(buf->sequence, atomic64_inc_return(&lg->sequence));
	irq_work_queue(&lg->wake_work);
}

static void count_lost(struct ntkl_cpu_ring *ring)
{
	local_inc(&ring->events_lost);
	local_set(&ring->lost_pending, 1);
}

/*
 * Reserve size bytes (a multiple of 8) on this CPU's current buffer; the
 * caller has preemption disabled. Returns where to write the record and
 * the clock value to put in it, or NULL if the event is lost (counted).
 * With at, *clock comes in as the time the caller took (one reading shared
 * by several records, as a switch's CSwitch and CompCS); it is raised to
 * the ring's latest record time if a nested writer got in since, so the
 * records of a ring stay in time order. Without at, the clock is read here.
 * Either way the ring's latest record time is raised to the record's
 * (for at, the inline path does not raise it: reserve.h says why).
 */
static void *reserve(struct ntkl_logger *lg, unsigned int size,
		     struct ntkl_buffer **bufp, u64 *clock, bool at)
{
	u64 given = *clock;

	struct ntkl_cpu_ring *ring = this_cpu_ptr(lg->rings);
	struct ntkl_buffer *buf;
	unsigned long h;
	long fill, off;

	if (unlikely(!READ_ONCE(lg->accept) || size > lg->buffer_size - HDR_SIZE)) {
		count_lost(ring);
		return NULL;
	}
	for (;;) {
		h = local_read(&ring->head);
		buf = ntkl_ring_buffer(ring, h);
		fill = local_read(&buf->fill);
		/*
		 * Still the current buffer when we read its fill? An interrupt
		 * in between may have filled it, and the reader emptied it: a
		 * free buffer, not ours to write. Any change to it after this
		 * (closed, or emptied again: a new generation) fails our swap.
		 */
		if (unlikely(local_read(&ring->head) != h))
			continue;
		if (fill & NTKL_FILL_CLOSED) {
			/* closed by a context we interrupted: move on for it */
			if (!ring_advance(lg, ring, h))
				break;
			continue;
		}
		off = fill & NTKL_FILL_OFFSET;
		if (off + size > lg->buffer_size) {
			if (local_cmpxchg(&buf->fill, fill, fill | NTKL_FILL_CLOSED) != fill)
				continue;
			buffer_closed(lg, buf, size);
			if (!ring_advance(lg, ring, h))
				break;
			continue;
		}
		*clock = at ? max_t(u64, given, local_read(&ring->last_clock)) :
			      ntkl_clock(lg->clock_type);
		ntkl_raise_last_clock(ring, *clock, local_read(&ring->last_clock));
		if (local_cmpxchg(&buf->fill, fill, fill + size) == fill) {
			*bufp = buf;
			return buf->data + off;
		}
	}
	count_lost(ring);
	return NULL;
}

void *ntkl_reserve(struct ntkl_logger *lg, unsigned int size,
		   struct ntkl_buffer **bufp, u64 *clock)
{
	return reserve(lg, size, bufp, clock, false);
}

void *ntkl_reserve_at(struct ntkl_logger *lg, unsigned int size,
		      struct ntkl_buffer **bufp, u64 *clock)
{
	return reserve(lg, size, bufp, clock, true);
}

/* Close this CPU's current buffer if it holds anything. */
static void flush_ring(struct ntkl_logger *lg, struct ntkl_cpu_ring *ring)
{
	unsigned long h = local_read(&ring->head);
	struct ntkl_buffer *buf = ntkl_ring_buffer(ring, h);
	long fill;

	do {
		fill = local_read(&buf->fill);
		if (fill & NTKL_FILL_CLOSED) {
			ring_advance(lg, ring, h);
			return;
		}
		if ((fill & NTKL_FILL_OFFSET) == HDR_SIZE)
			return;
	} while (local_cmpxchg(&buf->fill, fill, fill | NTKL_FILL_CLOSED) != fill);
	buffer_closed(lg, buf, lg->buffer_size);
	ring_advance(lg, ring, h);
}

static void flush_this_cpu(void *arg)
{
	struct ntkl_logger *lg = arg;

	flush_ring(lg, this_cpu_ptr(lg->rings));
}

/* Close every CPU's current buffer so the reader gets what it holds. */
void ntkl_flush_cpus(struct ntkl_logger *lg)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			smp_call_function_single(cpu, flush_this_cpu, lg, 1);
		else
			flush_ring(lg, per_cpu_ptr(lg->rings, cpu));
	}
	cpus_read_unlock();
}

u64 ntkl_events_lost(struct ntkl_logger *lg)
{
	u64 lost = atomic64_read(&lg->events_lost_extra);
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		lost += local_read(&per_cpu_ptr(lg->rings, cpu)->events_lost);
	return lost;
}

u32 ntkl_free_buffers(struct ntkl_logger *lg)
{
	u32 used = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);

		used += local_read(&ring->head) - local_read(&ring->tail) + 1;
	}
	return lg->nr_buffers - min(used, lg->nr_buffers);
}

/*
 * Let writers in (on) or turn them away: AcceptNewEvents, which the slow
 * path tests, and the limit the fast path compares a record's end with
 * (reserve.h). Turned on, acceptance comes first; turned off, the limit:
 * either way the fast path never takes a record the slow path would refuse.
 */
void ntkl_accept(struct ntkl_logger *lg, bool on)
{
	if (on) {
		WRITE_ONCE(lg->accept, 1);
		WRITE_ONCE(lg->fast_limit, lg->buffer_size);
	} else {
		WRITE_ONCE(lg->fast_limit, 0);
		WRITE_ONCE(lg->accept, 0);
	}
}

/*
 * Saving a buffering-mode logger: stop writers (their events count as
 * lost) so the reader can take every buffer without racing a writer that
 * overwrites the oldest. Called with lg->lock held; ntkl_buffers_resume()
 * lets writers in again.
 */
void ntkl_buffers_pause(struct ntkl_logger *lg)
{
	ntkl_accept(lg, false);
	/* probes run with preemption off: after this none is writing */
	synchronize_rcu();
	ntkl_flush_cpus(lg);
	ntkl_buffers_final(lg);
	lg->paused = true;
}

void ntkl_buffers_resume(struct ntkl_logger *lg)
{
	lg->paused = false;
	if (READ_ONCE(lg->status) == NTKL_STATUS_RUNNING)
		ntkl_accept(lg, true);
}

/*
 * A stopped (or paused) logger has no writers: move head past current buffers
 * that were closed while their ring was full, so the reader gets them.
 */
void ntkl_buffers_final(struct ntkl_logger *lg)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);
		unsigned long h = local_read(&ring->head);

		if (local_read(&ntkl_ring_buffer(ring, h)->fill) & NTKL_FILL_CLOSED)
			ring_advance(lg, ring, h);
	}
}

/*
 * The ring whose oldest closed buffer not yet given has the lowest
 * sequence number. The buffers a mapped reader holds are still at their
 * ring's tail, but given: the one after them is that ring's next.
 * (ring->given is read without the lock by poll(), whose answer is a hint.)
 */
static struct ntkl_cpu_ring *next_ring(struct ntkl_logger *lg, bool *complete)
{
	struct ntkl_cpu_ring *best = NULL;
	unsigned long best_tail = 0;
	s64 best_seq = S64_MAX;
	unsigned int cpu;

	*complete = false;
	for_each_possible_cpu(cpu) {
		struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);
		unsigned long tail = local_read(&ring->tail) + READ_ONCE(ring->given);
		struct ntkl_buffer *buf;
		s64 seq;

		if (tail == local_read(&ring->head))
			continue;
		buf = ntkl_ring_buffer(ring, tail);
		seq = READ_ONCE(buf->sequence);
		if (seq && seq < best_seq) {
			best = ring;
			best_tail = tail;
			best_seq = seq;
		}
	}
	if (best)
		*complete = buffer_complete(ntkl_ring_buffer(best, best_tail));
	return best;
}

bool ntkl_buffer_ready(struct ntkl_logger *lg)
{
	bool complete;

	if (!READ_ONCE(lg->header_read))
		return true;
	return next_ring(lg, &complete) && complete;
}

/* Fill in the WMI_BUFFER_HEADER of a buffer about to leave the kernel. */
static void buffer_finish(struct ntkl_logger *lg, struct ntkl_cpu_ring *ring,
			  struct ntkl_buffer *buf)
{
	struct wmi_buffer_header *hdr = (struct wmi_buffer_header *)buf->data;
	u32 filled = local_read(&buf->fill) & NTKL_FILL_OFFSET;

	memset(hdr, 0, HDR_SIZE);
	hdr->buffer_size = lg->buffer_size;
	hdr->saved_offset = filled;
	/* past the end, as Windows': no record fits in a closed buffer */
	hdr->current_offset = filled + buf->overshoot;
	hdr->timestamp = buf->flush_clock;
	/* numbered per file: a buffering-mode snapshot skips overwritten ones */
	hdr->sequence_number = ++lg->read_count;
	hdr->processor_index = ring->cpu;
	hdr->logger_id = lg->id;
	hdr->state = ETW_BUFFER_STATE_FLUSH;
	hdr->offset = filled;
	hdr->buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX | buf->flags;
	hdr->buffer_type = ETW_BUFFER_TYPE_GENERIC;
	/*
	 * ReferenceTime: the logger's reference pair, the StartTime and the
	 * clock value at that instant (the Header's StartTime and SystemTime),
	 * so each buffer says how to turn its clock values into FILETIMEs.
	 * Windows' files leave GlobalEntry's list pointers here instead.
	 */
	hdr->start_time = lg->start_time;
	hdr->start_perf_clock = lg->start_clock;
	memset(buf->data + filled, ETW_BUFFER_FILL_BYTE, lg->buffer_size - filled);
}

/*
 * Give the oldest n buffers a mapped reader holds back to their rings:
 * each emptied, and its ring's tail past it, so writers may use it again.
 * A ring's oldest held buffer is at its tail: buffers are given in tail
 * order. Called with lg->lock held.
 */
void ntkl_buffers_release_oldest(struct ntkl_logger *lg, unsigned int n)
{
	while (n-- && lg->held_count) {
		struct ntkl_cpu_ring *ring = lg->held[lg->held_first];

		lg->held_first = (lg->held_first + 1) % NTKL_NEXT_MAX_HELD;
		lg->held_count--;
		if (!ring)
			continue;	/* the header buffer: nothing to reuse */
		buffer_reset(ntkl_ring_buffer(ring, local_read(&ring->tail)));
		smp_mb();	/* the reset before the writer can see the buffer free */
		local_inc(&ring->tail);
		WRITE_ONCE(ring->given, ring->given - 1);
	}
}

/* Give back every buffer the reader holds. Called with lg->lock held. */
void ntkl_buffers_release(struct ntkl_logger *lg)
{
	ntkl_buffers_release_oldest(lg, lg->held_count);
}

/* The reader holds one more buffer of ring (NULL: the header). */
static void hold_push(struct ntkl_logger *lg, struct ntkl_cpu_ring *ring)
{
	lg->held[(lg->held_first + lg->held_count) % NTKL_NEXT_MAX_HELD] = ring;
	lg->held_count++;
	if (ring)
		WRITE_ONCE(ring->given, ring->given + 1);
}

/* ... and not after all: the newest goes back where it was, untouched. */
static void hold_pop_newest(struct ntkl_logger *lg)
{
	struct ntkl_cpu_ring *ring;

	lg->held_count--;
	ring = lg->held[(lg->held_first + lg->held_count) % NTKL_NEXT_MAX_HELD];
	if (ring)
		WRITE_ONCE(ring->given, ring->given - 1);
}

/*
 * Take the reader's next buffer: the header buffer first, then closed
 * buffers in sequence order, finished (its WMI_BUFFER_HEADER filled) and,
 * unless raw, through the reader hook (ntkl_buffers_set_reader_hook()). Returns its
 * slot in the mapping (0 the header) and sets *ring to its ring (NULL for
 * the header); 0 buffers ready is -ENOENT, a writer still finishing the
 * next one -EAGAIN. The buffer stays at its ring's tail until given back.
 */
static long take_buffer(struct ntkl_logger *lg, bool raw, struct ntkl_cpu_ring **ringp)
{
	struct ntkl_cpu_ring *ring;
	struct ntkl_buffer *buf;
	unsigned long tail;
	bool complete;

	*ringp = NULL;
	if (!lg->header_read) {
		WRITE_ONCE(lg->header_read, true);
		lg->read_count = 0;
		return 0;
	}
	ring = next_ring(lg, &complete);
	if (!ring)
		return -ENOENT;
	if (!complete)
		return -EAGAIN;
	smp_rmb();	/* the count that published the records, then the records */
	tail = local_read(&ring->tail) + ring->given;
	buf = ntkl_ring_buffer(ring, tail);
	buffer_finish(lg, ring, buf);
	/*
	 * The hook need not be idempotent (hashing is not): a buffer taken
	 * again after a read() that faulted (ntkl_buffers_unhold_newest())
	 * keeps what it did.
	 */
	if (!raw && reader_hook && !buf->hooked) {
		reader_hook(buf->data, local_read(&buf->fill) & NTKL_FILL_OFFSET);
		buf->hooked = true;
	}
	*ringp = ring;
	return ring->map_slot + (tail & (ring->nr - 1));
}

/* The data of a slot of the mapping (0 the header), or NULL past the last. */
u8 *ntkl_buffers_slot(struct ntkl_logger *lg, unsigned long slot)
{
	unsigned int cpu;

	if (slot == 0)
		return lg->header;
	for_each_possible_cpu(cpu) {
		struct ntkl_cpu_ring *ring = per_cpu_ptr(lg->rings, cpu);

		if (slot >= ring->map_slot && slot < ring->map_slot + ring->nr)
			return ring->bufs[slot - ring->map_slot].data;
	}
	return NULL;
}

/*
 * Give the reader its next buffer (take_buffer() says which) where it
 * lies: held until the reader gives it back, *slot says which it is and
 * *records how many records it holds (0 for the header buffer). Unless
 * keep, the buffers held so far are given back first; with keep, -EBUSY
 * if NTKL_NEXT_MAX_HELD are held. Returns the buffer size, 0 if none is
 * ready, or -EAGAIN if the next one still has a writer finishing. Called
 * with lg->lock held, so there is one reader at a time. raw: the reader
 * may see the records as written (no reader hook).
 */
ssize_t ntkl_hold_buffer(struct ntkl_logger *lg, unsigned long *slot, u32 *records,
			 bool raw, bool keep)
{
	struct ntkl_cpu_ring *ring;
	long taken;

	if (!keep)
		ntkl_buffers_release(lg);
	else if (lg->held_count == NTKL_NEXT_MAX_HELD)
		return -EBUSY;
	taken = take_buffer(lg, raw, &ring);
	if (taken < 0)
		return taken == -ENOENT ? 0 : taken;
	atomic64_inc(&lg->buffers_written);
	*slot = taken;
	*records = 0;
	/* complete (take_buffer()): every record reserved is committed */
	if (ring)
		*records = local_read(&ntkl_ring_buffer(ring, local_read(&ring->tail) +
							ring->given)->records);
	hold_push(lg, ring);
	return lg->buffer_size;
}

/*
 * Undo the hold of the reader's newest buffer (slot), whose copy to a
 * reader that reads faulted: it is still at its ring's tail, so it is
 * the reader's next buffer again. Called with lg->lock held.
 */
void ntkl_buffers_unhold_newest(struct ntkl_logger *lg, unsigned long slot)
{
	hold_pop_newest(lg);
	/* taken again, it gets the same number: the file's numbers stay 0, 1, 2 ... */
	if (slot)
		lg->read_count--;
	else
		lg->header_read = false;
	atomic64_dec(&lg->buffers_written);
}
