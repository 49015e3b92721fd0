/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntkletl, the ETL format library: its one public header. Every
 * function it exports is named etl_*; the wire format's structs and
 * tables it reads are uapi's (etw_*, uapi/ntkl_etw.h, ntkl_events.h).
 *
 *   etl_reader.h    open an ETL file, walk its buffers and records
 *   etl_check.h     the strict checks (ntkl dump --check)
 *   etl_decode.h    a record's fields by name (ntkl dump --events)
 *   etl_dump.h      the dump command's printers
 *   etl_switches.h  context switches from CSwitch and CompCS alike
 *   etl_profile.h   sampled profile: samples per CPU, thread and process
 *   etl_relog.h     rewrite a file: CompCS batches expanded to CSwitch events
 *   etl_repair.h    what ntkl dump --repair changes in a cut file
 *   etl_report.h    ntkl report: CPU busy, top threads, waits, ready latency
 *   etl_events.h    the event list's lookups; etl_names.h, names of numbers
 *   etl_utf16.h     UTF-16LE strings
 *   etl_xpress.h    the LZ77 compression of compressed buffers
 */
#ifndef NTKL_ETL_H
#define NTKL_ETL_H

#include "etl_check.h"
#include "etl_chrome.h"
#include "etl_decode.h"
#include "etl_dump.h"
#include "etl_events.h"
#include "etl_names.h"
#include "etl_profile.h"
#include "etl_reader.h"
#include "etl_relog.h"
#include "etl_repair.h"
#include "etl_report.h"
#include "etl_switches.h"
#include "etl_utf16.h"
#include "etl_xpress.h"

#endif /* NTKL_ETL_H */
