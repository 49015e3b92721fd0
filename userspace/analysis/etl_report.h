/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The first questions about a capture, answered without WPA (ntkl report):
 * how long, how many events and bytes, what was lost and how to avoid it,
 * how busy each CPU was, how often threads switched, which processes and
 * threads ran most, why threads waited, how long a thread made ready
 * waited for a CPU, and how many processes and threads came and went.
 *
 * The duration is of the collection: from the first to the last record
 * of what the system did, leaving out the records a logger writes around
 * it (the header's, the rundowns' DCStart and DCEnd, SystemConfig at stop,
 * image identities, other sessions' provider events merged in after it,
 * as PerfView's CLR rundown); a file with none but those is its records'
 * span. Rates (switches per second, samples per second) and busy % are
 * of it.
 *
 * Everything comes from the context switches (etl_switches.h: CSwitch
 * events and CompCS batches alike), the ReadyThread events and the
 * Process/Thread events, with these rules:
 *
 *   - the thread running on a CPU between two of its switches is the old
 *     thread of the second (both forms carry it); before a CPU's first
 *     switch, from the trace's start, the old thread of that switch;
 *     after its last switch, to the trace's end, the new thread of that
 *     switch (unknown for a CPU's last CompCS packet: that time is left
 *     out of the CPU's span); the trace's start and end: the collection's;
 *   - a CPU's busy time is the time a thread other than the idle thread
 *     (0) ran; busy % is of the trace (less any time left out above), so
 *     a CPU idle but for a few late switches reads nearly 0 %;
 *   - a thread's CPU time is the sum of its running intervals; a
 *     process's, the sum of its threads' (the process from the thread's
 *     Thread events, its name the one of etl/etl_model.h, as WPA's);
 *   - a wait reason counts each switch out in state Waiting, and its
 *     wait time, as WPA's Waits: from the switch out to the thread's
 *     first ReadyThread at or after it if that comes before its next
 *     switch in, else to that switch in (a wait with neither is counted,
 *     not timed); printed most first, with the total and the mean;
 *   - ready latency: from a ReadyThread event of a thread to its next
 *     switch in on any CPU (a ReadyThread with no later switch in is not
 *     counted; with none measured the percentiles are "none" in the
 *     text and null in the JSON);
 *   - functions by samples (kernel and user): the SampledProfile IPs
 *     named as ntkl symbols names them for WPA, the very code and table
 *     of dump --stats (symbols/sym_profile.h), named by
 *     etl_report_functions() from the addresses and images of the same
 *     pass (one pass over the records, etl_model_read_all(), gives the
 *     model, the counts, the ReadyThread events, the switches, the
 *     samples, the storage records and the sampled addresses);
 *   - storage, when the file has DiskIo, FileIo or HardFault records:
 *     disks, processes and files by bytes, hard faults (etl_storage.h);
 *   - system calls, when the file has SysClEnter or SysClExit records:
 *     per process and routine, calls, failures and time (etl_syscalls.h,
 *     its records' threads from the switches above);
 *   - network, when the file has TcpIp or UdpIp records: per process and
 *     connection, bytes sent and received, connects, accepts, disconnects,
 *     retransmits (etl_network.h).
 *
 * And memory, when the file has page fault or VirtualAlloc records: per
 * process, its faults by kind and the memory it committed and freed
 * (etl_memory.h); idle, when a CPU switched to or from its idle thread:
 * per CPU, its idle time, wakeups, idle periods and the C-states it left,
 * and the threads it woke for (etl_idle.h).
 */
#ifndef NTKL_ETL_REPORT_H
#define NTKL_ETL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"
#include "etl_idle.h"
#include "etl_memory.h"
#include "etl_network.h"
#include "etl_profile.h"
#include "etl_storage.h"
#include "etl_syscalls.h"
#include "symbols/symbols.h"

#define ETL_REPORT_TOP	10

struct etl_report_thread {
	uint32_t tid, pid;		/* pid UINT32_MAX: unknown */
	double cpu_s;			/* seconds on a CPU */
	unsigned long switches_in;
	char name[64];
};

struct etl_report_process {
	uint32_t pid;
	double cpu_s;
	unsigned long threads;
	char name[64];
};

struct etl_report {
	double duration_s;		/* the collection: clock_first to clock_last */
	double trace_s;			/* the file: first to last record, all of them */
	int64_t clock_first, clock_last;	/* the window, in the file's clock */
	unsigned long events, buffers;
	uint64_t bytes;			/* the file */
	uint32_t events_lost, buffers_lost;
	uint32_t ncpus;
	double *busy_pct;		/* per CPU, of the trace; -1 for a CPU without switches */
	unsigned long switches;
	double switches_per_s;
	bool compact;			/* any switch came from CompCS */
	struct etl_report_process *procs;	/* by CPU time, most first */
	size_t nprocs;
	struct etl_report_thread *threads;	/* by CPU time, most first */
	size_t nthreads;
	unsigned long waits[256];	/* switches out Waiting, by KWAIT_REASON */
	unsigned long waits_timed[256];	/* of which the end was seen */
	double wait_s[256];		/* their wait time, seconds */
	unsigned long ready_events, ready_measured;
	double ready_p50_us, ready_p90_us, ready_p99_us, ready_max_us;
	unsigned long process_starts, process_ends, thread_starts, thread_ends;
	/* the SampledProfile events (etl_profile.h); the rates per CPU over duration_s */
	struct etl_profile profile;
	double samples_hz, requested_hz;	/* requested 0: no interval in the file */
	struct sym_functions functions;	/* empty unless etl_report_functions() */
	struct etl_storage storage;	/* disks, processes and files (etl_storage.h) */
	struct etl_syscalls syscalls;	/* system calls per process (etl_syscalls.h) */
	struct etl_memory memory;	/* page faults, VirtualAlloc per process (etl_memory.h) */
	struct etl_network network;	/* bytes and connections per process (etl_network.h) */
	struct etl_idle idle;		/* each CPU's idle periods, their wakers (etl_idle.h) */
	size_t top;			/* rows per table printed: 0 ETL_REPORT_TOP, SIZE_MAX all */
	enum etl_sort sort;		/* the tables' order */
	bool windowed;			/* --time: duration_s is of [from_s, to_s] */
	double from_s, to_s;		/* of the collection, from its start */
	double collection_s;		/* the whole collection's */
	struct sym_trace trace;		/* the images and sampled addresses, for it */
};

/*
 * Whether rec is of the collection's activity, not one of the records a
 * logger writes around it (the rule above); the duration's records.
 */
bool etl_record_is_activity(const struct etl_record *rec);

/*
 * The times an analysis's pass saw: of every record of the data buffers
 * (the header buffer's are the logger's) and of the activity records
 * among them; the collection is the activity's span, or all records'
 * in a file without activity.
 */
struct etl_span {
	int64_t first, last;		/* every data record's */
	int64_t act_first, act_last;	/* the activity records' */
};

void etl_span_init(struct etl_span *s);
void etl_span_add(struct etl_span *s, const struct etl_buffer *b, const struct etl_record *rec);
bool etl_span_has_activity(const struct etl_span *s);
/* The collection's first and last times. */
void etl_span_collection(const struct etl_span *s, int64_t *first, int64_t *last);

/* Work out r from f. 0, or -1 with err set; etl_report_free() either way. */
int etl_report_read(const struct etl_file *f, struct etl_report *r, struct etl_error *err);

/*
 * The same, of what flt selects (etl_filter.h; NULL: all): its window for
 * every count and rate, its threads for the process and thread tables,
 * the waits and the ready latency, its order and rows.
 */
int etl_report_read_filtered(const struct etl_file *f, struct etl_report *r,
			     const struct etl_filter *flt, struct etl_error *err);

/*
 * r's functions by samples, named with ld from this machine's files and
 * kernel. 0, or -1 with err set.
 */
int etl_report_functions(struct etl_report *r, struct sym_loader *ld, struct etl_error *err);

void etl_report_free(struct etl_report *r);

/* As text for people, or as one JSON object (keys as the struct's). */
void etl_report_print(FILE *out, const struct etl_report *r);
void etl_report_print_json(FILE *out, const struct etl_report *r);

#endif /* NTKL_ETL_REPORT_H */
