/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ETL file as the Trace Event Format (ntkl convert --to chrome-json):
 * the JSON object form that Perfetto UI and speedscope load (and
 * chrome://tracing did, before Chromium dropped it), as the format's
 * document describes it ("Trace Event Format",
 * https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU/,
 * the link catapult's docs/trace-event-format.md gives).
 *
 * What it holds, for people without WPA:
 *
 *   - one track per CPU: a process "CPUs" whose thread CPU_PID + i is
 *     "CPU i" (ids no Linux thread has, etl_chrome.c), named and ordered
 *     by metadata ("M") events process_name, process_sort_index,
 *     thread_name and thread_sort_index;
 *   - on each CPU's track, one complete ("X") event per interval a thread
 *     other than the idle thread ran: from one context switch of the CPU
 *     to its next, the thread being the old thread of the second (the rule
 *     of etl_report.h; CSwitch and CompCS alike, via etl_switches.h). Its
 *     name is the thread's name from the Thread rundown and its tid
 *     ("ls (173)", else "tid 173"), its args the tid, pid, process name
 *     (the one name of etl/etl_model.h, as WPA's) and thread name;
 *   - the same intervals on the threads' own tracks (pid and tid as on
 *     Linux; a thread no Thread event placed is its own process), named
 *     "CPU n", with process_name and thread_name metadata from the
 *     rundown, so a viewer groups threads under their processes;
 *   - with ETL_CHROME_SAMPLES, one thread-scoped instant ("i") event per
 *     SampledProfile on its CPU's track, named as the slices (the
 *     sampled thread), args tid and ip;
 *   - the programs' own events (EVENT_HEADER records: libntkl's, Windows
 *     providers') on their threads' tracks, category "event": a win:Start
 *     (opcode 1) and the win:Stop (2) that ends it are one complete ("X")
 *     event, named as the start, the stop's name and fields in args end
 *     and end_fields; a stop ends the latest start still open on its
 *     thread of the same provider, task and activity id (starts opened
 *     after that one and still open stay unpaired, so a thread's pairs
 *     nest); unpaired starts and stops and any other opcode are
 *     instants. Named by their TraceLogging schema (else
 *     "{provider} id N"), args the provider's name (else its GUID) and the
 *     decoded fields as text. In a file merged from a kernel capture and a
 *     libntkl file (ntkl merge), a program's units of work sit on the same
 *     tracks as the intervals its threads ran.
 *
 * Times: "ts" and "dur" in microseconds (the format's unit; fractions
 * allowed), in whole multiples of 2^-10 us written exactly, so that a
 * viewer's double arithmetic cannot make a slice that ends where the next
 * begins overlap it (it would nest the next inside it). Time 0 is the
 * trace's start, the Header event's clock value (or an earlier switch,
 * sample or program event), the same with or without samples, so two
 * exports of one file line up; otherData's origin_clock and clock_freq
 * give it as a raw clock value.
 */
#ifndef NTKL_ETL_CHROME_H
#define NTKL_ETL_CHROME_H

#include <stdio.h>

#include "etl/etl_reader.h"

#define ETL_CHROME_SAMPLES	0x1	/* instant events for SampledProfile */

struct etl_chrome_stats {
	unsigned long slices;		/* intervals a thread ran (an "X" event on its
					   CPU's track and one on its own) */
	unsigned long threads, processes;	/* tracks of threads that ran */
	unsigned long samples;		/* "i" events */
	unsigned long events;		/* the programs' own events (records) */
	unsigned long spans;		/* of those, start-stop pairs written as one "X" */
	unsigned int cpus;		/* tracks */
};

/*
 * Write f as one JSON object to out. 0, or -1 with err set (the reader's
 * errors, malformed switches, out of memory, a write error); stats may be
 * NULL.
 */
int etl_chrome_write(FILE *out, const struct etl_file *f, unsigned int flags,
		     struct etl_chrome_stats *stats, struct etl_error *err);

#endif /* NTKL_ETL_CHROME_H */
