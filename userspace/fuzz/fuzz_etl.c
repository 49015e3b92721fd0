// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: every reader of an ETL file in libntkletl and
 * libntklanalysis on one
 * input, as `ntkl dump`, `report`, `relog`, `merge` and `convert` would
 * run them on a file from anywhere: the summary (with the providers), the
 * strict checks, the dump with every event decoded, the stats with every
 * row, the switches, the context switches, the sampled profile, the
 * report, the CompCS relog, the merge, the chrome-json conversion and
 * the repair. Built with ASan and UBSan (make fuzz); any crash, leak or
 * undefined behaviour is a bug, and each one found becomes a unit test
 * (userspace/tests/test_fuzz_finds.c).
 *
 * The writing commands' outputs are checked too (abort() on a wrong
 * one, so libFuzzer keeps the input): an output is a valid ETL file or
 * there is none. relog's and merge's images open and read to the end,
 * and pass every strict check (dump --check) when the input did; the
 * chrome JSON is one whole object; a repaired copy opens and needs no
 * second repair. The input itself is never changed.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what the output check found wrong, then abort: the input is kept */
static void bad_output(const char *what, const char *why)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, why);
	abort();
}

/*
 * A written ETL image: it opens, every buffer and record reads, and with
 * strict (the input passed every check) it passes every check itself.
 */
static void check_etl_output(const char *what, const uint8_t *img, size_t size, bool strict)
{
	struct etl_check_stats st;
	struct etl_error err;
	struct etl_file f;

	if (etl_open_memory(&f, what, img, size, &err))
		bad_output(what, err.msg);
	if (etl_check(&f, false, NULL, NULL, &st) && strict)
		bad_output(what, "the input passes dump --check, the output does not");
	etl_close(&f);
}

/* the chrome JSON: one object, whole (its last byte closes it) */
static void check_json_output(const struct etl_file *f)
{
	struct etl_error err;
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	int ret;

	if (!mem)
		return;
	ret = etl_chrome_write(mem, f, ETL_CHROME_SAMPLES, NULL, &err);
	fclose(mem);
	if (!ret) {
		while (len && (json[len - 1] == '\n' || json[len - 1] == ' '))
			len--;
		if (!len || json[0] != '{' || json[len - 1] != '}')
			bad_output("convert", "the JSON is not one whole object");
	}
	free(json);
}

/* dump --repair on a copy: refused, nothing to do, or a file that opens and is done */
static void check_repair(const uint8_t *data, size_t size)
{
	struct etl_repair r, again;
	struct etl_error err;
	struct etl_file f;
	uint8_t *copy;

	if (etl_repair_plan(data, size, &r, &err) || !r.needed)
		return;
	if (r.whole > size || r.buffers == 0)
		bad_output("repair", "the plan keeps more than the file has");
	copy = malloc(size ? size : 1);
	if (!copy)
		return;
	memcpy(copy, data, size);
	etl_repair_apply(copy, &r);
	if (etl_open_memory(&f, "repaired", copy, r.whole, &err))
		bad_output("repair", err.msg);
	etl_close(&f);
	if (etl_repair_plan(copy, r.whole, &again, &err))
		bad_output("repair", err.msg);
	if (again.needed)
		bad_output("repair", "a repaired file needs a second repair");
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct etl_relog_stats rst;
	struct etl_switches sw;
	struct etl_profile prof;
	struct etl_report rep;
	struct etl_error err;
	struct etl_file f;
	uint8_t *out, *before;
	size_t out_size;
	bool clean;

	/* nothing may write into the input: compared at the end */
	before = malloc(size ? size : 1);
	if (!before)
		return 0;
	memcpy(before, data, size);
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	etl_dump_memory("fuzz", data, size, 0, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_EVENTS, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_CHECK, devnull, devnull, "");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_STATS | ETL_DUMP_ALL_ROWS, devnull, devnull,
			"");
	etl_dump_memory("fuzz", data, size, ETL_DUMP_SWITCHES, devnull, devnull, "");
	check_repair(data, size);
	if (etl_open_memory(&f, "fuzz", data, size, &err))
		goto out;
	clean = etl_check(&f, false, NULL, NULL, NULL) == 0;
	check_json_output(&f);
	etl_switches_read(&f, &sw, &err);
	etl_switches_free(&sw);
	etl_profile_read(&f, &prof, &err);
	etl_profile_free(&prof);
	if (!etl_report_read(&f, &rep, &err)) {
		etl_report_print_json(devnull, &rep);
		etl_report_free(&rep);
	}
	if (!etl_relog_expand(&f, ETL_RELOG_EXPAND_COMPACT | ETL_RELOG_EXPAND_STACKS, &out,
			      &out_size, &rst, &err)) {
		check_etl_output("relog", out, out_size, clean);
		free(out);
	}
	/* the input merged with itself: two files, one header */
	if (!etl_merge((const struct etl_file *const[]){ &f, &f }, 2, &out, &out_size, &rst,
		       &err)) {
		check_etl_output("merge", out, out_size, clean);
		free(out);
	}
	etl_close(&f);
out:
	if (memcmp(before, data, size))
		bad_output("input", "a reader or writer changed its input");
	free(before);
	return 0;
}
