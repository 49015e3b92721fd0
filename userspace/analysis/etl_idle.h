/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntkl report's idle section: how each CPU idled, what woke it, and the
 * C-state it left (powertop's questions, from the context switches alone).
 *
 * WPA's CPU Idle States graph reads events whose binary shape Windows
 * publishes nowhere (docs/linux-to-nt.md, "Power and memory lists"), so
 * ntkl writes none; the switches say as much:
 *
 *   - an idle period of a CPU runs from a switch to its idle thread (new
 *     thread 0) to the CPU's next switch, which leaves it (old thread 0):
 *     that switch is the CPU's wakeup, and its new thread the one it woke
 *     for (a CompCS batch's last switch names no new thread: it counts as
 *     a wakeup of no known thread);
 *   - idle_s is the idle thread's time on the CPU inside the window, as
 *     report counts it for busy % (etl_report.h), which hands it over: the
 *     time before a CPU's first switch is its old thread's, after its
 *     last its new thread's;
 *   - wakeups are the switches out of idle inside the window; the period
 *     lengths (median, max) are of the periods that began and ended in it;
 *   - the C-state left is the CSwitch's PreviousCState, which ntkl fills
 *     from power:cpu_idle (the state index the CPU entered: on a machine
 *     without a cpuidle driver, a VM's, the default idle's 1; 0 for a
 *     CPU that went idle before the logger started). A CompCS switch
 *     carries none: cstate_unknown counts those;
 *   - the wakers are the threads the CPUs woke for, by count, most first.
 *
 * The window is report's (--time); --pid, --tid and --comm keep the wakers
 * they select (a CPU's idle time is the CPU's, whatever ran on it).
 */
#ifndef NTKL_ETL_IDLE_H
#define NTKL_ETL_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"

struct etl_model;
struct etl_switches;

/* PreviousCState 0..ETL_IDLE_CSTATES - 2 each, the last row all higher */
#define ETL_IDLE_CSTATES	10

struct etl_idle_cpu {
	uint32_t cpu;
	double idle_s;			/* the idle thread's time on it */
	unsigned long wakeups;		/* switches out of idle */
	unsigned long periods;		/* idle periods whole in the window */
	double median_ms, max_ms;	/* of those periods; 0 with none */
	unsigned long cstate[ETL_IDLE_CSTATES];	/* the wakeups by C-state left */
	unsigned long cstate_unknown;	/* CompCS: none carried */
};

struct etl_idle_waker {
	uint32_t tid, pid;		/* tid UINT32_MAX: not known; pid too, or no Thread event */
	unsigned long wakeups;
	char name[64];			/* the thread's */
	char process[64];		/* its process's */
};

struct etl_idle {
	bool any;			/* a switch to or from an idle thread */
	unsigned long wakeups;		/* of every CPU */
	struct etl_idle_cpu *cpus;	/* the CPUs with switches, by number */
	uint32_t ncpus;
	struct etl_idle_waker *wakers;	/* by wakeups, most first, then tid */
	size_t nwakers;
};

/*
 * Work out idle from the pass's switches and model, over the window
 * [first, last] of the file's clock (freq ticks a second), the wakers of
 * the threads flt selects (NULL: all); idle_s[cpu] is each CPU's idle
 * thread time, as report worked it out (s->ncpus entries): 0, or -1 out
 * of memory (idle then empty).
 */
int etl_idle_make(struct etl_idle *idle, const struct etl_switches *s, const double *idle_s,
		  const struct etl_model *m, const struct etl_filter *flt,
		  int64_t first, int64_t last, double freq);

/*
 * The section, if the file has idle switches: per CPU, then the top
 * wakers (top rows); rates over duration_s.
 */
void etl_idle_print(FILE *out, const struct etl_idle *idle, double duration_s, size_t top);

/* The JSON object of report --json's "idle" (every waker). */
void etl_idle_print_json(FILE *out, const struct etl_idle *idle, double duration_s);

void etl_idle_free(struct etl_idle *idle);

#endif /* NTKL_ETL_IDLE_H */
