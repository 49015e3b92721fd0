/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntkl report's memory section (WPA's Page Faults and VirtualAlloc views
 * in brief): per process, its page faults by kind and the anonymous
 * private memory it mapped and unmapped.
 *
 *   - faults: TransitionFault, DemandZeroFault, CopyOnWrite,
 *     HardPageFault, AccessViolation (and GuardPageFault, which Linux
 *     never writes but a Windows file may hold), each the process of its
 *     record's header (SYSTEM64: the faulting thread and process);
 *   - VirtualAlloc and VirtualFree, the process of their ProcessId (the
 *     PERFINFO64 header has none): allocs and the bytes committed
 *     (MEM_COMMIT) or only reserved; frees and the bytes released;
 *     outstanding, the committed bytes of the trace's allocations that
 *     no VirtualFree of the trace released by its end (a region freed
 *     in part keeps the rest);
 *   - the VirtualAlloc rundown at the start (VirtualAllocDCStart): how
 *     many regions were mapped before the trace and their committed
 *     bytes, in all (it is no process's activity, so makes no row);
 *   - rows are ordered by faults, then committed bytes, most first;
 *   - working sets (MEMINFO_WS: ProcessMemInfo snapshots, every half
 *     second): per process, of the snapshots in the window, the last
 *     one's working set, private working set and commit, and the largest
 *     working set; ordered by that peak, most first.
 *
 * The window and the processes are report's (etl_filter.h): --time keeps
 * the records inside it, --pid and --comm the processes they select;
 * --tid the faults of those threads (a VirtualAlloc names no thread, so
 * none of them).
 */
#ifndef NTKL_ETL_MEMORY_H
#define NTKL_ETL_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"

struct etl_model;

enum etl_fault_kind {
	ETL_FAULT_TRANSITION,
	ETL_FAULT_DEMAND_ZERO,
	ETL_FAULT_COPY_ON_WRITE,
	ETL_FAULT_GUARD,
	ETL_FAULT_HARD,
	ETL_FAULT_ACCESS_VIOLATION,
	ETL_FAULT_KINDS
};

struct etl_memory_row {
	uint32_t pid;
	char name[64];			/* the process's, "?" if no Process event names it */
	unsigned long faults[ETL_FAULT_KINDS], all_faults;
	unsigned long allocs, frees;
	uint64_t commit_bytes, reserve_bytes, freed_bytes, outstanding_bytes;
};

/* A process's working set, from the ProcessMemInfo snapshots (bytes). */
struct etl_ws_row {
	uint32_t pid;
	char name[64];
	unsigned long snapshots;	/* that name it */
	uint64_t ws, private_ws, commit;	/* the last snapshot's */
	uint64_t peak_ws;
};

struct etl_memory {
	bool any;			/* the file has page fault, VirtualAlloc or ProcessMemInfo records */
	unsigned long faults[ETL_FAULT_KINDS], all_faults;
	unsigned long allocs, frees;
	uint64_t commit_bytes, freed_bytes, outstanding_bytes;
	/* the VirtualAlloc rundown at the start: regions mapped before the trace */
	unsigned long start_regions;
	uint64_t start_commit_bytes;
	struct etl_memory_row *rows;	/* by faults, then committed bytes, most first */
	size_t nrows;
	unsigned long snapshots;	/* ProcessMemInfo records in the window */
	struct etl_ws_row *ws;		/* by peak working set, most first */
	size_t nws;
};

/*
 * Work out mem, of what flt selects (NULL: all), inside a pass with its
 * model (etl_model_read_all()): begin (NULL, err set, out of memory), the
 * walker to add to the pass, then end with the pass's model, or NULL if
 * the walk failed: 0, or -1 with err set. end frees the reader.
 */
struct etl_memory_reader *etl_memory_begin(struct etl_memory *mem, const struct etl_filter *flt,
					   struct etl_error *err);
struct etl_walker etl_memory_walker(struct etl_memory_reader *rd);
int etl_memory_end(struct etl_memory_reader *rd, const struct etl_file *f,
		   const struct etl_model *m);

void etl_memory_free(struct etl_memory *mem);

/* The section, if the file has its records: totals, then top rows. */
void etl_memory_print(FILE *out, const struct etl_memory *mem, size_t top);
/* The same as one JSON object (every row). */
void etl_memory_print_json(FILE *out, const struct etl_memory *mem);

#endif /* NTKL_ETL_MEMORY_H */
