/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transport: each logger's per-CPU rings of ETW buffers (buffers.c),
 * their mapping into a reader (mapping.c). It moves whole buffers and
 * knows no event kind.
 */
#ifndef _NTKL_TRANSPORT_BUFFERS_H
#define _NTKL_TRANSPORT_BUFFERS_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irq_work.h>
#include <asm/local.h>
#include <linux/types.h>

struct file;
struct ntkl_logger;

/*
 * One buffer's bookkeeping. fill holds, in its low 31 bits, the next free
 * byte (the header's 0x48 included); the CLOSED bit freezes it when the
 * buffer is switched away from; the bits above count the buffer's
 * generations. committed counts bytes whose writers have finished: the
 * buffer is complete when committed equals fill's offset.
 *
 * The generation goes up each time the reader gives the buffer back. A
 * writer interrupted (by interrupts that write) for as long as its ring
 * takes to go round could otherwise find the offset it read on a buffer
 * filled, read and emptied meanwhile, and reserve there with the time it
 * read before, older than the records of the buffers in between: with
 * the generation its compare-and-swap fails and it starts again
 * (userspace/tests/test_nested_writers.c runs such interleavings).
 */
#define NTKL_FILL_OFFSET	(BIT(31) - 1)
#define NTKL_FILL_CLOSED	BIT(31)
#define NTKL_FILL_GENERATION	BIT(32)		/* local_t is a long: 64 bits */

struct ntkl_buffer {
	u8 *data;
	local_t fill;
	local_t committed;
	local_t records;		/* committed ones: the mapped reader's count */
	s64 sequence;			/* set when closed */
	u64 flush_clock;		/* clock value when closed */
	u32 overshoot;			/* CurrentOffset - SavedOffset when closed */
	u16 flags;			/* ETW_BUFFER_FLAG_* extra bits */
	bool hooked;			/* through the reader hook (once) */
	struct irq_work *wake;		/* the logger's: wakes its reader */
};

/*
 * One CPU's ring of buffers. head (the buffer being written) moves on this
 * CPU while writers may run; elsewhere only when none can (an offline
 * CPU's ring, a stopped or paused logger's last pass). tail (the next
 * buffer for the reader) moves in the reader, which resets a buffer before
 * giving it back; in buffering mode a writer that needs room also moves it
 * past the oldest closed buffer.
 */
struct ntkl_cpu_ring {
	struct ntkl_buffer *bufs;
	unsigned long mask;		/* nr - 1: nr is a power of two */
	unsigned int nr;
	unsigned int cpu;
	unsigned int map_slot;		/* its first buffer's slot in a reader's mapping */
	local_t head;
	local_t tail;
	local_t lost_pending;		/* mark the next buffer EVENTS_LOST */
	local_t events_lost;
	local_t last_clock;		/* the latest record time here (u64) */
	unsigned int given;		/* buffers from tail a mapped reader holds */
};

/* buffers.c */
void ntkl_accept(struct ntkl_logger *lg, bool on);
int ntkl_buffers_alloc(struct ntkl_logger *lg);
void ntkl_buffers_free(struct ntkl_logger *lg);
void *ntkl_reserve(struct ntkl_logger *lg, unsigned int size,
		   struct ntkl_buffer **bufp, u64 *clock);
void *ntkl_reserve_at(struct ntkl_logger *lg, unsigned int size,
		      struct ntkl_buffer **bufp, u64 *clock);
void ntkl_flush_cpus(struct ntkl_logger *lg);

/*
 * A record reserved on buf is written: let the reader have it. The writer
 * of the last record of a buffer that another context closed meanwhile
 * (an interrupt's writer that found it full) completes it, so it wakes the
 * reader: a reader never polls for a buffer to complete.
 */
static inline void ntkl_commit(struct ntkl_buffer *buf, unsigned int size)
{
	long done;

	local_inc(&buf->records);
	smp_wmb();	/* the record's bytes before the count that publishes them */
	done = local_add_return(size, &buf->committed);
	if (unlikely((local_read(&buf->fill) & (NTKL_FILL_CLOSED | NTKL_FILL_OFFSET)) ==
		     (done | NTKL_FILL_CLOSED)))
		irq_work_queue(buf->wake);	/* NMI-safe */
}

u64 ntkl_events_lost(struct ntkl_logger *lg);
u32 ntkl_free_buffers(struct ntkl_logger *lg);
void ntkl_buffers_set_reader_hook(void (*hook)(u8 *data, u32 filled));
ssize_t ntkl_hold_buffer(struct ntkl_logger *lg, unsigned long *slot, u32 *records,
			 bool raw, bool keep);
void ntkl_buffers_release(struct ntkl_logger *lg);
void ntkl_buffers_release_oldest(struct ntkl_logger *lg, unsigned int n);
void ntkl_buffers_unhold_newest(struct ntkl_logger *lg, unsigned long slot);
u8 *ntkl_buffers_slot(struct ntkl_logger *lg, unsigned long slot);
/* mapping.c: a bound reader's mmap() of its logger's buffers */
struct vm_area_struct;
int ntkl_mmap(struct file *file, struct vm_area_struct *vma);
unsigned long ntkl_map_stride(const struct ntkl_logger *lg);
bool ntkl_buffer_ready(struct ntkl_logger *lg);
void ntkl_buffers_final(struct ntkl_logger *lg);
void ntkl_buffers_pause(struct ntkl_logger *lg);
void ntkl_buffers_resume(struct ntkl_logger *lg);

#endif /* _NTKL_TRANSPORT_BUFFERS_H */
