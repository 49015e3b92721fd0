/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context switches of an ETL file as one stream per CPU, whether the
 * logger wrote a CSwitch event (0x0524) per switch or compact CompCS
 * batches (0x0525, PERFINFO_CCSWAP_BUFFER).
 *
 * A CompCS batch belongs to the CPU of its buffer (ProcessorIndex). Its
 * packets are walked with perfinfo_ccswap_decode(): the time of a switch
 * is FirstTimeStamp plus the running sum of TimeDelta; the old thread is
 * the idle thread (0) for IDLE/IDLE_SHORT packets, else
 * TidTable[OldThreadIdIndex]; OldThreadStateWr below
 * ETW_MAXIMUM_WAIT_REASON is Waiting with that wait reason, else the state
 * plus ETW_MAXIMUM_WAIT_REASON; a LITE priority is
 * ThreadBasePriority[index] + PriInc. A packet does not name the thread
 * switched in: as Microsoft's TraceProcessor does, it is the old thread of
 * the next switch on the same CPU, perhaps in a later batch, and unknown
 * for a CPU's last compact switch. A CPU's batches are taken in the order
 * of their FirstTimeStamp (buffers of different CPUs interleave in a file).
 *
 * Malformed batches are errors naming the buffer, the record and the
 * packet: a payload shorter than the 0x58-byte header, a packet running
 * past the record's Size, a LITE or FULL packet whose OldThreadIdIndex
 * points at a TidTable slot holding 0. The header does not say how many
 * slots are in use, but the idle thread is never put in the table (seed
 * 002), so a zero slot is one no switch filled; any slot holding a
 * thread id may be used, in any order.
 */
#ifndef NTKL_ETL_SWITCHES_H
#define NTKL_ETL_SWITCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl_reader.h"

enum etl_switch_source {
	ETL_SWITCH_FULL,		/* a CSwitch event */
	ETL_SWITCH_COMPACT,		/* a packet of a CompCS batch */
};

/* Which fields a switch's record carried (the compact forms drop some). */
#define ETL_SWITCH_HAS_NEW	0x01	/* new_tid */
#define ETL_SWITCH_HAS_STATE	0x02	/* old_state, old_wait_reason */
#define ETL_SWITCH_HAS_PRIORITY	0x04	/* old_priority */
#define ETL_SWITCH_HAS_WAIT	0x08	/* new_wait_time, exactly */
#define ETL_SWITCH_WAIT_AT_MOST_1 0x10	/* LITE: the new thread waited 0 or 1 tick */
#define ETL_SWITCH_HAS_CSTATE	0x20	/* prev_cstate (CSwitch only) */

struct etl_switch {
	int64_t time;			/* raw clock units */
	uint32_t cpu;
	uint32_t old_tid;		/* 0: the idle thread */
	uint32_t new_tid;		/* valid with ETL_SWITCH_HAS_NEW */
	uint32_t new_wait_time;		/* ticks */
	uint8_t old_state;		/* KTHREAD_STATE */
	uint8_t old_wait_reason;	/* KWAIT_REASON; compact: only when Waiting */
	int8_t old_priority;
	uint8_t source;			/* enum etl_switch_source */
	uint8_t known;			/* ETL_SWITCH_HAS_* */
	uint8_t packet_type;		/* compact: enum perfinfo_ccswap_type */
	uint16_t packet;		/* compact: index in its batch */
	uint8_t prev_cstate;		/* PreviousCState: the C-state the CPU leaves */
	/* Where it came from. */
	uint32_t buffer_index;
	uint32_t buffer_offset;		/* of the record in its buffer */
	uint64_t file_offset;		/* of the record */
	uint64_t seq;			/* order before sorting (the tie-break) */
};

/* Per CPU, per source: what it took to record the switches. */
struct etl_switch_count {
	unsigned long switches;
	unsigned long records;		/* CSwitch events or CompCS batches */
	uint64_t bytes;			/* the records, headers and 8-byte padding included */
};

struct etl_switch_cpu {
	struct etl_switch_count full, compact;
	unsigned long ready_threads;	/* ReadyThread (0x0532) events */
	/* A switch whose known new thread is not the next switch's old one. */
	unsigned long chain_breaks;
	/* A batch starting before the previous batch of the CPU ended. */
	unsigned long batch_overlaps;
};

struct etl_switches {
	struct etl_switch *v;		/* sorted by cpu, then time (stable) */
	size_t n;
	uint32_t ncpus;			/* 1 + the highest CPU with an event counted */
	struct etl_switch_cpu *cpu;	/* ncpus entries */
	struct etl_switch_cpu total;
};

/*
 * Read every CSwitch, CompCS and ReadyThread event of f into s. Returns 0,
 * or -1 with err set (the reader's errors and malformed events: the
 * message names the buffer, its file offset, the record and the packet).
 * s is empty after -1; etl_switches_free() it either way.
 */
int etl_switches_read(const struct etl_file *f, struct etl_switches *s,
		      struct etl_error *err);

/*
 * The same inside another pass (etl_model_read_all()): begin (NULL, err
 * set, out of memory), the walker to add to the pass, then end with
 * whether the walk succeeded: 0, or -1 with err set. end frees the reader.
 */
struct etl_switches_reader *etl_switches_begin(struct etl_switches *s, struct etl_error *err);
struct etl_walker etl_switches_walker(struct etl_switches_reader *rd);
int etl_switches_end(struct etl_switches_reader *rd, bool walked);

void etl_switches_free(struct etl_switches *s);

/*
 * Indices into s->v in file order (record offset, then packet), to print
 * the switches next to their records; NULL if out of memory (or s->n 0).
 */
size_t *etl_switches_file_order(const struct etl_switches *s);

/*
 * One switch as "switch cpu=1 time=123 old=167 new=0 state=Waiting
 * reason=UserRequest prio=8 wait=0-1", the same for both sources so that
 * a full and a compact capture of one run compare line by line. Fields
 * one of the forms cannot carry print the same in both:
 *   - old=0 (the idle thread): state, reason, prio and wait are "-" (a
 *     compact IDLE packet has none of them);
 *   - reason is "-" unless the state is Waiting (compact keeps only one);
 *   - wait is "0-1" for 0 or 1 tick (a LITE packet says only that), and
 *     "131071+" at or above the compact cap of 2^17 - 1 ticks;
 *   - new is "-" when unknown (the last compact switch of a CPU).
 * Names for known states and reasons, else the number. Returns buf.
 */
const char *etl_switch_format(const struct etl_switch *sw, char *buf, size_t size);

#endif /* NTKL_ETL_SWITCHES_H */
