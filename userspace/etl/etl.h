/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntkletl, the ETL format library: its one public header, the one
 * the command includes (ntkl's other libraries include it or the headers
 * it lists). Every function it exports is named etl_*; the wire format's
 * structs and tables it reads are uapi's (etw_*, uapi/ntkl_etw.h,
 * ntkl_events.h). What a file means (report, statistics, chrome-json,
 * relog and merge) is the analysis library's (analysis/analysis.h),
 * which reads files with this one.
 *
 *   etl_reader.h    open an ETL file, walk its buffers and records
 *   etl_check.h     the strict checks (ntkl dump --check)
 *   etl_decode.h    a record's fields by name (ntkl dump --events)
 *   etl_switches.h  context switches from CSwitch and CompCS alike
 *   etl_images.h    the images (Image records) and their identities
 *   etl_model.h     one pass: processes (one name each), threads, images
 *   etl_repair.h    what ntkl dump --repair changes in a cut file
 *   etl_stack_keys.h  cached stacks: key references resolved to frames
 *   etl_events.h    the event list's lookups; etl_names.h, names of numbers
 *   etl_utf16.h     UTF-16LE strings
 *   etl_xpress.h    the LZ77 compression of compressed buffers
 *   etl_io.h        writing a whole buffer to a file
 *
 * Not in this header, so not for the command (which includes only the
 * libraries' public headers), but shared with the analysis library and
 * the tests, which include them by path (etl/etl_tlg.h): etl_index.h (a
 * hash index: ntkl dump's counts), etl_providers.h (the providers a file
 * names, which ntkl dump prints), etl_tlg.h (TraceLogging schemas: the
 * decoder's, chrome-json's, test_tlg's).
 */
#ifndef NTKL_ETL_H
#define NTKL_ETL_H

#include "etl_check.h"
#include "etl_decode.h"
#include "etl_events.h"
#include "etl_images.h"
#include "etl_io.h"
#include "etl_model.h"
#include "etl_names.h"
#include "etl_reader.h"
#include "etl_repair.h"
#include "etl_stack_keys.h"
#include "etl_switches.h"
#include "etl_utf16.h"
#include "etl_xpress.h"

#endif /* NTKL_ETL_H */
