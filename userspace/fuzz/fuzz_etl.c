// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: every reader of an ETL file in libntkletl on one
 * input, as `ntkl dump`, `report`, `relog`, `merge` and `convert` would
 * run them on a file from anywhere: the summary (with the providers), the
 * strict checks, the dump with every event decoded, the stats with every
 * row, the switches, the context switches, the sampled profile, the
 * report, the CompCS relog, the merge and the chrome-json conversion.
 * Built with ASan and UBSan (make fuzz); any crash, leak or undefined
 * behaviour is a bug, and each one found becomes a unit test
 * (userspace/tests/test_fuzz_finds.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "etl/etl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct etl_relog_stats rst;
	struct etl_switches sw;
	struct etl_profile prof;
	struct etl_report rep;
	struct etl_error err;
	struct etl_file f;
	uint8_t *out;
	size_t out_size;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	etl_dump_memory("fuzz", data, size, 0, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_EVENTS, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_CHECK, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_STATS | ETL_DUMP_ALL_ROWS, devnull, devnull,
			"");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_SWITCHES, devnull, devnull, "");
	if (etl_open_memory(&f, "fuzz", data, size, &err))
		return 0;
	etl_chrome_write(devnull, &f, ETL_CHROME_SAMPLES, NULL, &err);
	etl_switches_read(&f, &sw, &err);
	etl_switches_free(&sw);
	etl_profile_read(&f, &prof, &err);
	etl_profile_free(&prof);
	if (!etl_report_read(&f, &rep, &err)) {
		etl_report_print_json(devnull, &rep);
		etl_report_free(&rep);
	}
	if (!etl_relog_expand_compact(&f, &out, &out_size, &rst, &err))
		free(out);
	/* the input merged with itself: two files, one header */
	if (!etl_merge((const struct etl_file *const[]){ &f, &f }, 2, &out, &out_size, &rst,
		       &err))
		free(out);
	etl_close(&f);
	return 0;
}
