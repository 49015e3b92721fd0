/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ntkl report and dump --stats show of a trace (--pid, --tid,
 * --comm, --time, --top, --sort):
 *
 *   - --time START,END: seconds from the collection's start (the first
 *     event of the report's Duration); busy %, CPU time, switches, waits,
 *     ready latency and samples are counted inside it only, and the
 *     duration and rates are its;
 *   - --pid, --tid (each a list, comma-separated) and --comm (a process or
 *     thread name, exactly): the rows of the process and thread tables,
 *     the waits and ready latency of those threads, and the samples of the
 *     images table; the per-CPU lines and the sample rate stay the whole
 *     system's (of the window);
 *   - --top N: rows per table; --sort KEY: the tables' order, "cpu" (CPU
 *     time or samples, most first; the default), "pid", "tid" (processes
 *     by pid) or "name" (image name for the images table).
 */
#ifndef NTKL_ETL_FILTER_H
#define NTKL_ETL_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETL_FILTER_MAX_IDS	64

enum etl_sort {
	ETL_SORT_CPU,
	ETL_SORT_PID,
	ETL_SORT_TID,
	ETL_SORT_NAME,
};

struct etl_filter {
	uint32_t pids[ETL_FILTER_MAX_IDS];
	size_t npids;
	uint32_t tids[ETL_FILTER_MAX_IDS];
	size_t ntids;
	const char *comm;		/* NULL: any */
	bool has_time;
	double start_s, end_s;		/* from the collection's start */
	size_t top;			/* 0: 10 */
	enum etl_sort sort;
};

/* Whether a thread (and its process) is one f selects; f NULL: all. */
bool etl_filter_thread(const struct etl_filter *f, uint32_t tid, uint32_t pid,
		       const char *thread_name, const char *process_name);

/* Whether f selects by thread at all (--pid, --tid or --comm). */
bool etl_filter_by_thread(const struct etl_filter *f);

/*
 * Parse one option's value into f: opt is 'p' (--pid), 't' (--tid), 'c'
 * (--comm), 'T' (--time), 'n' (--top) or 's' (--sort). 0, or -1 with a
 * one-line reason in why.
 */
int etl_filter_option(struct etl_filter *f, int opt, const char *arg, char *why, size_t size);

#endif /* NTKL_ETL_FILTER_H */
