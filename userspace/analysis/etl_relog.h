/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The relogger: the records of one or more ETL files put back into new
 * buffers in time order. Two uses: `ntkl relog --expand-compact` and
 * `ntkl merge` (etl_merge(), below).
 *
 * Rewrite an ETL file with every CompCS batch (0x0525) expanded into the
 * CSwitch events (0x0524, v4) it stands for, so that tools which register
 * CompCS and never expand it (TraceEvent: PerfView, TraceProcessor's .NET
 * users; microsoft/perfview issue 791) see every context switch of a
 * cheap compact capture.
 *
 * The switches are those etl_switches_read() finds (etl_switches.h says
 * how a packet becomes a switch). Each becomes a PERFINFO64 CSwitch record
 * stamped with the switch's own time, on its batch's CPU; the fields a
 * packet does not carry get these values (docs/linux-to-nt.md, "CompCS
 * expanded"):
 *
 *   NewThreadId         the old thread of the CPU's next switch; a CPU's
 *                       last compact switch names none and is dropped
 *                       (counted in dropped)
 *   NewThreadPriority   the priority the new thread has when it next
 *                       switches out of that CPU (the packets record
 *                       priorities only on the way out); 0 for the idle
 *                       thread or when that packet has none
 *   OldThreadPriority   the packet's (FULL or LITE), else 0
 *   OldThreadState,     the packet's; the idle thread leaving is Ready /
 *   OldThreadWaitReason Executive, as ntkl's CSwitch writes it
 *   OldThreadWaitMode   0 (KernelMode): not recorded
 *   NewThreadWaitTime   the packet's; a LITE packet's "0 or 1 tick" is 0
 *   IdealProcessor      the CPU
 *   PreviousCState, SpareByte, RemainingQuantum   0
 *
 * Every other record is copied as it is. Buffer 0 (the header buffer)
 * stays as it was but for BuffersWritten and LogFileMode (COMPRESSED_MODE
 * cleared: the output is never compressed). The records of the other
 * buffers, CSwitch ones included, are put back in buffers of the header's
 * BufferSize, one CPU per buffer, in time order per CPU (file order among
 * equal times); a CPU's buffer is written out when the next record does
 * not fit, so buffers follow each other in the file roughly by time as
 * the kernel's do. The last buffer carries the flush marker when any
 * input buffer did; EVENTS_LOST is kept on the buffer that holds the
 * first record of an input buffer that had it.
 */
#ifndef NTKL_ETL_RELOG_H
#define NTKL_ETL_RELOG_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl_reader.h"

/*
 * Two files' BootTimes further apart than this (FILETIME units: 10 s) were
 * recorded in different boots: their QPC and CYCLE times do not compare.
 */
#define ETL_MERGE_BOOT_SLACK	100000000LL

struct etl_relog_stats {
	unsigned long files;		/* inputs */
	unsigned long headers_dropped;	/* Header events of the inputs after the first */
	unsigned long other_boot;	/* inputs whose BootTime is not the first's */
	unsigned long batches;		/* CompCS records read */
	unsigned long switches;		/* CSwitch records written for them */
	unsigned long dropped;		/* compact switches naming no new thread */
	unsigned long records;		/* records copied as they were */
	unsigned long buffers_in;	/* data buffers read (not buffer 0) */
	unsigned long buffers_out;	/* data buffers written */
	/* ETL_RELOG_EXPAND_STACKS */
	unsigned long stack_refs;	/* StackKeyKernel and StackKeyUser records read */
	unsigned long stack_defs;	/* KeyDelete and KeyRundown records dropped */
	unsigned long stacks;		/* Stack records written for the references */
	unsigned long stack_unresolved;	/* references whose key no definition has */
};

/*
 * What etl_relog_expand() expands: CompCS batches into CSwitch events (as
 * etl_relog_expand_compact()), and cached stacks into Stack records: an
 * event's StackKeyKernel and the StackKeyUser after it on its CPU become
 * one Stack (0x1820, v2) of their definitions' frames, kernel first,
 * stamped as the kernel reference; a lone reference a Stack of its own;
 * the definitions (KeyDelete, KeyRundown) are dropped; a reference whose
 * key no definition has is counted and leaves no Stack.
 */
#define ETL_RELOG_EXPAND_COMPACT	0x1u
#define ETL_RELOG_EXPAND_STACKS		0x2u

/*
 * Expand f into a new file image: *out (malloc'd, *out_size bytes) and
 * what it did in *st. Returns 0, or -1 with err set (the reader's errors,
 * a malformed CompCS batch, a record larger than a buffer, no memory).
 */
int etl_relog_expand_compact(const struct etl_file *f, uint8_t **out, size_t *out_size,
			     struct etl_relog_stats *st, struct etl_error *err);

/* The same, expanding what says (ETL_RELOG_EXPAND_*). */
int etl_relog_expand(const struct etl_file *f, unsigned int what, uint8_t **out,
		     size_t *out_size, struct etl_relog_stats *st, struct etl_error *err);

/*
 * Merge files[0..nfiles) into one file image, as xperf -merge does: the
 * records of every data buffer of every input (and of each later input's
 * buffer 0 but its Header event) in time order, packed as above into
 * buffers of the largest input's BufferSize. The output's buffer 0 is the
 * first input's with its counts made true of the whole: BuffersWritten,
 * EventsLost and BuffersLost summed over the inputs, the latest EndTime,
 * the most processors. Times are copied as they are, so the inputs must
 * share pointer size, clock type and clock frequency (an error names the
 * two that differ); inputs of another boot are counted in other_boot (a
 * QPC or CYCLE time of another boot does not compare). Put the kernel
 * capture first: its header describes the machine.
 */
int etl_merge(const struct etl_file *const *files, size_t nfiles, uint8_t **out,
	      size_t *out_size, struct etl_relog_stats *st, struct etl_error *err);

#endif /* NTKL_ETL_RELOG_H */
