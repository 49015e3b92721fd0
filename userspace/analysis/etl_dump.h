/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report `ntkl dump` prints: the header's fields, one line per buffer,
 * counts per event type, and with ETL_DUMP_EVENTS every event with its
 * decoded fields (and each context switch, CSwitch or CompCS packet, as a
 * "switch ..." line). ETL_DUMP_STATS and ETL_DUMP_SWITCHES print only the
 * context-switch statistics or list instead. In the library so the tests
 * run the very same code.
 */
#ifndef NTKL_ETL_DUMP_H
#define NTKL_ETL_DUMP_H

#include <stdint.h>
#include <stdio.h>

enum etl_dump_flags {
	ETL_DUMP_EVENTS	= 1 << 0,	/* every event, decoded */
	ETL_DUMP_CHECK	= 1 << 1,	/* strict checks instead of the summary */
	ETL_DUMP_STATS	= 1 << 2,	/* switches, ReadyThread, samples; events by name */
	/*
	 * Only the switches, for scripts: "# cpu time old new clock=C freq=F",
	 * then "<cpu> <time> <old_tid> <new_tid>" per switch in decimal,
	 * sorted by cpu then time, "-" for an unknown new_tid.
	 */
	ETL_DUMP_SWITCHES = 1 << 3,
	/*
	 * With ETL_DUMP_STATS: every process, thread and image with samples,
	 * not only the 10 with the most (for scripts that sum a program's).
	 */
	ETL_DUMP_ALL_ROWS = 1 << 4,
};

/*
 * Dump the file at path to out; problems go to err, each line prefixed
 * with err_prefix (e.g. "ntkl dump: FILE: "). Returns 0, or 1 if the file
 * could not be read completely or a check failed.
 */
int etl_dump_path(const char *path, unsigned int flags, FILE *out, FILE *err,
		  const char *err_prefix);

/*
 * The same with flt (etl_filter.h; NULL: all) for ETL_DUMP_STATS: the
 * sampled tables and the rate of what it selects, its rows and order.
 */
struct etl_filter;
int etl_dump_path_filtered(const char *path, unsigned int flags, const struct etl_filter *flt,
			   FILE *out, FILE *err, const char *err_prefix);

/*
 * The same, and with ETL_DUMP_STATS the functions with the most samples
 * last, named with ld as ntkl symbols names them for WPA (NULL: none),
 * from the same pass.
 */
struct sym_loader;
int etl_dump_path_named(const char *path, unsigned int flags, const struct etl_filter *flt,
			struct sym_loader *ld, FILE *out, FILE *err, const char *err_prefix);

/* Same for a file already in memory. */
int etl_dump_memory(const char *name, const void *data, uint64_t size,
		    unsigned int flags, FILE *out, FILE *err,
		    const char *err_prefix);

#endif /* NTKL_ETL_DUMP_H */
