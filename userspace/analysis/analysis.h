/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntklanalysis, what an ETL file means: its one public header. It reads
 * files with the format library (etl/etl.h) and names sampled functions
 * with the symbols library (symbols/symbols.h); its functions are named
 * etl_* after the files they answer about.
 *
 *   etl_report.h    ntkl report: CPU busy, top threads, waits, ready latency,
 *                   functions by samples
 *   etl_dump.h      ntkl dump's printers: header, buffers, events, checks,
 *                   --stats (switches, ReadyThread, samples), --switches
 *   etl_profile.h   sampled profile: samples per CPU, thread, process, image,
 *                   the achieved and requested sample rate
 *   etl_storage.h   report's storage section: disks' service times,
 *                   processes and files by bytes, hard faults
 *   etl_memory.h    report's memory section: page faults by kind,
 *                   VirtualAlloc commit per process
 *   etl_syscalls.h  report's system calls section: calls and their time
 *                   per process and routine
 *   etl_network.h   report's network section: bytes and connections per
 *                   process
 *   etl_filter.h    what report and dump --stats show: --pid, --tid,
 *                   --comm, --time, --top, --sort
 *   etl_chrome.h    ntkl convert --to chrome-json
 *   etl_folded.h    ntkl convert --to folded: stacks for flame graphs,
 *                   frames named as dump --stats names them
 *   etl_relog.h     ntkl relog and merge: rewrite files
 *
 * Processes, threads and images come from the format library's one model
 * (etl/etl_model.h), read in the same pass as each analysis's own
 * records. Inside the library only: etl_json.h (JSON strings).
 */
#ifndef NTKL_ANALYSIS_H
#define NTKL_ANALYSIS_H

#include "etl/etl.h"

#include "etl_chrome.h"
#include "etl_dump.h"
#include "etl_filter.h"
#include "etl_folded.h"
#include "etl_profile.h"
#include "etl_relog.h"
#include "etl_report.h"
#include "etl_storage.h"
#include "etl_memory.h"
#include "etl_network.h"
#include "etl_syscalls.h"

#endif /* NTKL_ANALYSIS_H */
