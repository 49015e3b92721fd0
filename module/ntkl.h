/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The logger: the one object every part of the module shares (control
 * owns it, the transport fills its buffers, the format layer writes its
 * header, producers write to it). What each part offers the others is in
 * that part's header: control/control.h, control/active_set.h,
 * transport/buffers.h, format/record.h, format/header.h, format/redact.h,
 * producers/producer.h.
 */
#ifndef _NTKL_H
#define _NTKL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <asm/local.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "uapi/ntkl.h"
#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"
#include "transport/buffers.h"
#include "transport/clock.h"

struct file;
struct cred;
struct ntkl_stack_cache;

struct ntkl_logger {
	struct kref ref;
	/*
	 * Its reader's two locks (control/device.c): read_lock makes one
	 * read() or NEXT_BUFFER at a time and is the only one held across a
	 * copy to user memory; lock guards the reader's state (header_read,
	 * read_count, held, pause) and is never held across a user copy or
	 * the wait for a buffer (only, as a snapshot begins or ends, across
	 * work that ends by itself: an RCU grace period, a call on each
	 * CPU), so close() and a dying reader always get it.
	 */
	struct mutex read_lock;		/* one reader call at a time */
	struct mutex lock;		/* the reader's state */
	u32 id;				/* index in the table */
	char name[NTKL_NAME_MAX];
	u8 instance_guid[16];

	/* settings */
	u32 buffer_size;		/* bytes */
	u32 min_buffers;
	u32 max_buffers;
	u32 nr_buffers;			/* allocated, all CPUs */
	u32 mode;
	u32 options;			/* NTKL_LOGGER_OPT_* */
	u32 clock_type;
	u32 flush_timer;		/* as given */
	u32 enable_flags;
	struct perfinfo_groupmask groups; /* read by probes without locks */
	/* NTKL_MODE_OWNED: the file that started it (identity only; table lock) */
	const struct file *owner_file;
	/* who started it (control/access.c): a reference, put at release */
	const struct cred *owner;
	u32 stack_walks;		/* BIT(NTKL_WALK_*): events whose stacks it walks */
	/* NTKL_LOGGER_OPT_STACK_CACHING: its caches (producers/stack_cache.c) */
	struct ntkl_stack_cache *stack_cache;

	/* state */
	int accept;			/* AcceptNewEvents */
	/*
	 * buffer_size while it accepts events, else 0 (ntkl_accept() sets
	 * both): the reservation's fast path tests room and acceptance in
	 * one compare with it (transport/reserve.h)
	 */
	u32 fast_limit;
	u32 status;
	u64 start_time;			/* FILETIME */
	u64 start_clock;
	u64 perf_freq;
	u64 boot_time;			/* FILETIME */
	atomic64_t sequence;		/* buffers closed so far */
	atomic64_t buffers_written;	/* buffers handed to a reader */
	atomic64_t events_lost_extra;	/* losses outside the rings */
	atomic64_t stacks_truncated;	/* StackWalk events cut at the frame cap */
	atomic64_t user_stops[NTKL_USTOP_COUNT]; /* its stacks' user parts, by how they ended */

	/* buffers */
	/* each CPU's ring in its own per-CPU memory: found by this_cpu_ptr() */
	struct ntkl_cpu_ring __percpu *rings;
	u8 *header;			/* the header buffer, buffer_size bytes */

	/* the bound reader's file: buffers numbered 1..N, header first */
	bool header_read;
	u64 read_count;
	bool paused;			/* a buffering-mode logger being saved */
	bool snapshot_read;		/* ... and its snapshot read whole */
	/*
	 * The buffers a mapped reader holds, oldest first: each one's ring
	 * (NULL: the header buffer). A ring's held buffers are its given
	 * ones from tail, in the order they were given.
	 */
	struct ntkl_cpu_ring *held[NTKL_NEXT_MAX_HELD];
	unsigned int held_first, held_count;

	/* reader */
	atomic_t readers;
	wait_queue_head_t wait;
	struct irq_work wake_work;
	struct delayed_work flush_work;
};

/*
 * Kernel threads are threads of one process, System, whose id is
 * kthreadd's (2 in the initial pid namespace, where ntkl takes every id).
 */
#define NTKL_SYSTEM_PID		2

#endif /* _NTKL_H */
