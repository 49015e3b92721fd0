/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict checks of an ETL file: what the strictest public readers require
 * (shared/docs/etl-format.md §7), plus sanity checks that catch a damaged
 * record header. Each violation is one message:
 *
 *	buffer N (file offset 0x...): record at +0x...: <what is wrong>
 *	buffer N (file offset 0x...): <what is wrong>
 *	file: <what is wrong>
 */
#ifndef NTKL_ETL_CHECK_H
#define NTKL_ETL_CHECK_H

#include <stdbool.h>

#include "etl_reader.h"

/* Called once per violation; msg is only valid during the call. */
typedef void (*etl_violation_fn)(void *ctx, const char *msg);

struct etl_check_stats {
	unsigned long buffers;
	unsigned long records;
	unsigned long violations;
};

/*
 * Check the whole file f (opened with etl_open). With stop_at_first, stop
 * after the first violation. Returns the number of violations (0 = clean).
 */
unsigned long etl_check(const struct etl_file *f, bool stop_at_first,
			etl_violation_fn report, void *ctx,
			struct etl_check_stats *stats);

#endif /* NTKL_ETL_CHECK_H */
