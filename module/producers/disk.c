// SPDX-License-Identifier: GPL-2.0
/*
 * DiskIo (EVENT_TRACE_GROUP_IO): the block layer's requests as Windows'
 * disk I/O records, from its tracepoints.
 *
 *   ReadInit, WriteInit, FlushInit (DISK_IO_INIT)   block:block_rq_issue,
 *             when the request goes to the driver: Irp, IssuingThreadId;
 *             followed by the stack of the context that issues it
 *             (-stackwalk DiskReadInit, DiskWriteInit, DiskFlushInit): the
 *             submitter's when it issues its own request, as a direct
 *             read or write does, else the kworker's or the flusher's
 *   Read, Write, FlushBuffers (DISK_IO)             block:block_rq_complete,
 *             its first completion: DiskNumber, IrpFlags, TransferSize,
 *             ByteOffset, Irp, HighResResponseTime (completion less
 *             issue), IssuingThreadId
 *
 * Irp is the request (struct request *), a kernel address. DiskNumber is
 * the whole disk's diskseq, which /sys/block/<disk>/diskseq shows and the
 * file writer's SystemConfig PhyDisk records carry (userspace/ctl/
 * ntkl_sysconfig.c). Other operations (discard, write zeroes, driver
 * commands) are not written: DiskIo has no event for them.
 *
 * The issuing thread is the one that submitted the request's first bio:
 * block:block_getrq (a bio got its own request) and block:block_bio_frontmerge
 * (a bio became the first of a request) run in the submitter's context,
 * the issue often in a kworker's and the completion in an interrupt. Each
 * in-flight request has an entry in one table, allocated at load, keyed by
 * its first bio (by the request itself when it has none: the flush
 * machinery's own request): the submitter at getrq, the issue time at
 * issue, read and freed at the first completion. A flush request names
 * the last thread that asked that disk for a flush (a getrq of a bio with
 * REQ_PREFLUSH, keyed by the disk). Entries are claimed with cmpxchg in a
 * short window of slots: no lock, no allocation, safe in any context. A
 * request whose entry finds no free slot still gets its Init record, but
 * its completion cannot be written and is counted lost at once. The table
 * is emptied whenever the probes are attached again, so an entry left by a
 * request that never completed while they were attached does not outlive
 * them; one left while they are (a request merged into another, whose
 * first bio is not the one that had the entry) is found again and
 * overwritten when its bio is reused, and otherwise only takes a slot.
 *
 * The probes are one group, attached only while a running logger takes
 * DISK_IO or DISK_IO_INIT (the attach and detach hooks below).
 */
#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/ioprio.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <trace/events/block.h>

#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"

#define DISK_TP		1		/* the group of every probe here */

#define DISK_TABLE_BITS	14		/* 16384 requests in flight */
#define DISK_TABLE_SIZE	BIT(DISK_TABLE_BITS)
#define DISK_WINDOW	16		/* slots a key may take, from its hash */

/* an entry's flags */
#define DISK_ISSUED	BIT(0)		/* issue time set: a completion is written */

struct disk_entry {
	unsigned long key;		/* 0: free; claimed by cmpxchg */
	u32 tid;			/* the submitter, 0 if unknown */
	u32 flags;
	u64 issue_qpc;			/* QPC (100 ns) at issue */
};

static struct disk_entry *disk_table;
static u64 cycle_freq;			/* ticks a second of NTKL_CLOCK_CYCLE */

/* A disk's entry (its last flush asker) cannot be a bio's or a request's. */
static __always_inline unsigned long disk_key(const struct gendisk *disk)
{
	return (unsigned long)disk | 1;
}

/* The key of a request's entry: its first bio, or itself without one. */
static __always_inline unsigned long rq_key(const struct request *rq)
{
	return rq->bio ? (unsigned long)rq->bio : (unsigned long)rq;
}

static __always_inline struct disk_entry *slot(unsigned long key, unsigned int i)
{
	return &disk_table[(hash_long(key, DISK_TABLE_BITS) + i) & (DISK_TABLE_SIZE - 1)];
}

static struct disk_entry *find(unsigned long key)
{
	unsigned int i;

	for (i = 0; i < DISK_WINDOW; i++) {
		struct disk_entry *e = slot(key, i);

		if (READ_ONCE(e->key) == key)
			return e;
	}
	return NULL;
}

/*
 * The entry of key: its own if it has one (the key is a bio or request
 * reused since), else a free slot claimed and emptied of its last key's
 * fields; NULL if the window is full. Only one context at a time adds a
 * given key: its submitter or issuer.
 */
static struct disk_entry *find_or_claim(unsigned long key)
{
	struct disk_entry *e = find(key);
	unsigned int i;

	if (e)
		return e;
	for (i = 0; i < DISK_WINDOW; i++) {
		e = slot(key, i);
		if (!READ_ONCE(e->key) && !cmpxchg(&e->key, 0, key)) {
			e->tid = 0;
			e->flags = 0;
			e->issue_qpc = 0;
			return e;
		}
	}
	return NULL;
}

static __always_inline void release(struct disk_entry *e)
{
	/* the entry's fields were read before it is free for another key */
	smp_store_release(&e->key, 0);
}

static __always_inline u32 current_tid(void)
{
	return in_task() ? task_pid_nr(current) : 0;
}

/* Its completion's event: Read, Write or FlushBuffers; 0 for none. */
static __always_inline u16 completion_event(const struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return ETW_EVENT_DISKIO_READ;
	case REQ_OP_WRITE:
		return ETW_EVENT_DISKIO_WRITE;
	case REQ_OP_FLUSH:
		return ETW_EVENT_DISKIO_FLUSH_BUFFERS;
	default:
		return 0;
	}
}

/* Its Init event's place among the walked events (-stackwalk DiskReadInit ...). */
static __always_inline enum ntkl_walk init_walk(u16 completion)
{
	return completion == ETW_EVENT_DISKIO_READ ? NTKL_WALK_DISKIO_READ_INIT :
	       completion == ETW_EVENT_DISKIO_WRITE ? NTKL_WALK_DISKIO_WRITE_INIT :
						      NTKL_WALK_DISKIO_FLUSH_INIT;
}

static __always_inline u16 init_event(u16 completion)
{
	return completion == ETW_EVENT_DISKIO_READ ? ETW_EVENT_DISKIO_READ_INIT :
	       completion == ETW_EVENT_DISKIO_WRITE ? ETW_EVENT_DISKIO_WRITE_INIT :
						      ETW_EVENT_DISKIO_FLUSH_INIT;
}

/* The disk's number: its diskseq, as /sys/block/<disk>/diskseq shows it. */
static __always_inline u32 disk_number(const struct request *rq)
{
	const struct gendisk *disk = rq->q->disk;

	return disk ? (u32)disk->diskseq : 0;
}

/* Linux's I/O priority class as the IRP's priority hint (TraceEvent's IOPriority). */
static __always_inline u32 irp_priority(struct request *rq)
{
	switch (IOPRIO_PRIO_CLASS(req_get_ioprio(rq))) {
	case IOPRIO_CLASS_RT:
		return 4;			/* High */
	case IOPRIO_CLASS_IDLE:
		return 1;			/* Very low */
	default:
		return 3;			/* Normal */
	}
}

static __always_inline u32 irp_flags(struct request *rq, u16 completion)
{
	u32 flags = irp_priority(rq) << ETW_IRP_PRIORITY_SHIFT;

	/* a flush has the priority alone, as Windows' */
	if (completion == ETW_EVENT_DISKIO_FLUSH_BUFFERS)
		return flags;
	flags |= ETW_IRP_NOCACHE;
	if (completion == ETW_EVENT_DISKIO_READ)
		flags |= ETW_IRP_READ_OPERATION;
	else if (completion == ETW_EVENT_DISKIO_WRITE)
		flags |= ETW_IRP_WRITE_OPERATION;
	if (rq->cmd_flags & REQ_SYNC)
		flags |= ETW_IRP_SYNCHRONOUS_API;
	if (rq->cmd_flags & REQ_RAHEAD)
		flags |= ETW_IRP_PAGING_IO;
	return flags;
}

/* QPC ticks (100 ns) as ticks of the logger's clock. */
static __always_inline u64 in_clock(const struct ntkl_logger *lg, u64 qpc)
{
	if (lg->clock_type != NTKL_CLOCK_CYCLE)
		return qpc;		/* QPC and SYSTEM: both 100 ns units */
	return mul_u64_u64_div_u64(qpc, cycle_freq, ETW_FILETIME_PER_SECOND);
}

/* A submitter: the thread whose bio just got a request, or became a request's first. */
static void remember_submitter(struct bio *bio)
{
	struct disk_entry *e = find_or_claim((unsigned long)bio);

	if (!e)
		return;		/* the issue counts the completion lost */
	e->tid = current_tid();
	e->flags = 0;
	/* who last asked this disk for a flush: the flush request's issuer */
	if ((bio->bi_opf & REQ_PREFLUSH) && bio->bi_bdev) {
		struct disk_entry *d = find_or_claim(disk_key(bio->bi_bdev->bd_disk));

		if (d) {
			d->tid = e->tid;
			d->flags = 0;
		}
	}
}

static void probe_block_getrq(void *data, struct bio *bio)
{
	remember_submitter(bio);
}

static void probe_block_bio_frontmerge(void *data, struct bio *bio)
{
	remember_submitter(bio);
}

/* A request merged into another: its first bio is no request's first now. */
static void probe_block_rq_merge(void *data, struct request *rq)
{
	struct disk_entry *e = rq->bio ? find((unsigned long)rq->bio) : NULL;

	if (e)
		release(e);
}

static void probe_block_rq_issue(void *data, struct request *rq)
{
	u16 completion = completion_event(rq);
	struct ntkl_logger **loggers;
	struct etw_diskio_init init;
	struct disk_entry *e;
	unsigned int n;
	u32 tid;

	if (!completion)
		return;
	e = find_or_claim(rq_key(rq));
	if (e && !rq->bio) {
		/* the flush machinery's request: for the thread that asked */
		struct disk_entry *d = rq->q->disk ? find(disk_key(rq->q->disk)) : NULL;

		e->tid = d ? READ_ONCE(d->tid) : current_tid();
	} else if (e && !(e->flags & DISK_ISSUED) && !e->tid) {
		e->tid = current_tid();		/* submitted before the probes */
	}
	tid = e ? e->tid : current_tid();
	if (e) {
		e->issue_qpc = ntkl_clock_qpc();
		e->flags |= DISK_ISSUED;
	} else {
		ntkl_lost_each(completion);
	}

	n = ntkl_active_loggers(&loggers);
	init.irp = (unsigned long)rq;
	init.issuing_thread_id = tid;
	ntkl_record_each_walked(loggers, n, init_event(completion), &init, ETW_DISKIO_INIT_SIZE,
				init_walk(completion), NULL);
}

static void write_completion(struct request *rq, u16 event, const struct disk_entry *e,
			     u64 elapsed, unsigned int nr_bytes)
{
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	struct ntkl_record rec;

	for (i = 0; i < n; i++) {
		struct ntkl_logger *lg = loggers[i];

		if (!ntkl_event_on(lg, event))
			continue;
		if (event == ETW_EVENT_DISKIO_FLUSH_BUFFERS) {
			struct etw_diskio_flush *p;

			p = ntkl_begin_DISKIO_FLUSH(lg, &rec, ETW_EVENT_DISKIO_FLUSH_BUFFERS,
						    ETW_DISKIO_FLUSH_SIZE);
			if (!p)
				continue;
			p->disk_number = disk_number(rq);
			p->irp_flags = irp_flags(rq, event);
			p->high_res_response_time = in_clock(lg, elapsed);
			p->irp = (unsigned long)rq;
			p->issuing_thread_id = e->tid;
		} else {
			struct etw_diskio_rw *p;

			p = ntkl_begin_DISKIO_RW(lg, &rec, event, ETW_DISKIO_RW_SIZE);
			if (!p)
				continue;
			p->disk_number = disk_number(rq);
			p->irp_flags = irp_flags(rq, event);
			p->transfer_size = nr_bytes;
			p->reserved = 0;
			p->byte_offset = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
			p->file_object = 0;
			p->irp = (unsigned long)rq;
			p->high_res_response_time = in_clock(lg, elapsed);
			p->issuing_thread_id = e->tid;
		}
		ntkl_record_end(&rec);
	}
}

/*
 * The first completion of an issued request writes its record and frees
 * its entry. A later one (the flush machinery ends a request's data part,
 * then the request) or one of a request never issued (an empty flush,
 * which its flush request stands for) finds none, or one not issued.
 */
static void probe_block_rq_complete(void *data, struct request *rq, blk_status_t error,
				    unsigned int nr_bytes)
{
	u16 event = completion_event(rq);
	struct disk_entry *e, copy;
	u64 now, elapsed;

	if (!event)
		return;
	e = find(rq_key(rq));
	if (!e)
		return;
	copy = *e;
	release(e);
	if (!(copy.flags & DISK_ISSUED))
		return;
	now = ntkl_clock_qpc();
	elapsed = now > copy.issue_qpc ? now - copy.issue_qpc : 0;
	write_completion(rq, event, &copy, elapsed, nr_bytes);
}

/* Before the probes are attached again: no entry of before is trusted. */
static void prepare_group(unsigned int group)
{
	memset(disk_table, 0, DISK_TABLE_SIZE * sizeof(*disk_table));
}

/* Does a logger of set take DiskIo (its completions or its inits)? */
static bool set_disk(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_DISKIO_READ) ||
		    ntkl_set_event_on(set, i, ETW_EVENT_DISKIO_READ_INIT))
			return true;
	return false;
}

/* Attached before the set is seen (under the table mutex, as every hook) */
static int disk_attach(const struct ntkl_active_set *set)
{
	return set_disk(set) ? ntkl_tp_set(&ntkl_disk_producer, DISK_TP, true, prepare_group) : 0;
}

/* ... and detached once no probe reads a set that took DiskIo. */
static void disk_detach(const struct ntkl_active_set *set)
{
	if (!set_disk(set))
		ntkl_tp_set(&ntkl_disk_producer, DISK_TP, false, NULL);
}

static int disk_init(void)
{
	disk_table = kvcalloc(DISK_TABLE_SIZE, sizeof(*disk_table), GFP_KERNEL);
	if (!disk_table)
		return -ENOMEM;
	cycle_freq = ntkl_clock_freq(NTKL_CLOCK_CYCLE);
	return 0;
}

static void disk_exit(void)
{
	kvfree(disk_table);
	disk_table = NULL;
}

/* Completions before issues, issues before submissions (producers/tracepoints.h). */
static struct ntkl_tp disk_tps[] = {
	NTKL_TP(block_rq_complete, DISK_TP, "no DiskIo records"),
	NTKL_TP(block_rq_issue, DISK_TP, "no DiskIo records"),
	NTKL_TP(block_rq_merge, DISK_TP, "no DiskIo records"),
	NTKL_TP(block_bio_frontmerge, DISK_TP, "no DiskIo records"),
	NTKL_TP(block_getrq, DISK_TP, "no DiskIo records"),
};

const struct ntkl_producer ntkl_disk_producer = {
	.name = "disk",
	.init = disk_init,
	.exit = disk_exit,
	.tps = disk_tps,
	.nr_tps = ARRAY_SIZE(disk_tps),
	.attach = disk_attach,
	.detach = disk_detach,
};
