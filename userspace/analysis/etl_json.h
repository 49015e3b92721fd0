/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON strings for the analyses that write JSON (report --json,
 * chrome-json). Inside the analysis library only.
 */
#ifndef NTKL_ETL_JSON_H
#define NTKL_ETL_JSON_H

#include <stdio.h>

/* s as a JSON string: quotes, backslashes and control bytes escaped. */
void etl_json_str(FILE *out, const char *s);

#endif /* NTKL_ETL_JSON_H */
