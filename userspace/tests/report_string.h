/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ntkl report prints of a report read in a unit test, as a string
 * the test checks with CHECK_HAS (free() it); NULL if out of memory.
 */
#ifndef NTKL_TEST_REPORT_STRING_H
#define NTKL_TEST_REPORT_STRING_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/analysis.h"

static inline char *report_string(const struct etl_report *r, bool json)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	if (json)
		etl_report_print_json(out, r);
	else
		etl_report_print(out, r);
	fclose(out);
	return text;
}

#endif
