/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Field-level decoding of the event payloads whose layout the event table
 * (uapi/ntkl_events.h) gives. Each prints one "Name=value ..." line
 * (CompCS adds one line per packet) and reads only inside
 * [payload, payload + len): a short payload prints the fields that fit and
 * says what is missing.
 */
#ifndef NTKL_ETL_DECODE_H
#define NTKL_ETL_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etl_reader.h"
#include "uapi/ntkl_events.h"

/*
 * Decode r's payload if its hook and version have a known layout; returns
 * true if a decoder ran. For EVENT_HEADER records it prints the extended
 * data items, then a TraceLogging payload from its schema (etl_tlg.h);
 * false for others (their payload needs the manifest).
 */
bool etl_decode_record(FILE *out, const char *indent, const struct etl_file *f,
		       const struct etl_record *r);

/*
 * Decode a payload (no record header) of a layout of the event table
 * (uapi/ntkl_events.h): its fixed fields as listed there, then what
 * follows them.
 */
void etl_decode_layout(FILE *out, const char *indent, enum etw_layout_id layout,
		       const uint8_t *p, uint32_t len);
/* EVENT_HEADER extended data items (r->ext); one line. */
void etl_decode_ext_items(FILE *out, const char *indent,
			  const uint8_t *p, uint32_t len);

/*
 * A Process v4 payload's ProcessId and ImageFileName (after the fixed
 * part and the TOKEN_USER block) into name; false if the payload is too
 * short for them.
 */
bool etl_process_image_name(const uint8_t *p, uint32_t len, uint32_t *pid, char *name,
			    size_t size);

/* "S-1-5-18" from a SID of len bytes; false if it does not fit. */
bool etl_sid_to_string(const uint8_t *p, uint32_t len, char *buf, size_t size,
		       uint32_t *sid_len);

/* "{3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}" (GUID as stored: 3 LE fields, 8 bytes). */
const char *etl_guid_str(const uint8_t guid[16], char *buf, size_t size);

/*
 * Print s (at most max bytes) with control bytes, quotes and backslashes
 * escaped; bytes >= 0x80 too if ascii_only (ANSI strings of unknown code
 * page), else they pass as UTF-8.
 */
void etl_print_escaped(FILE *out, const char *s, size_t max, bool ascii_only);

/* FILETIME as "2019-02-06 12:34:56.1234567 UTC" (or the number if out of range). */
const char *etl_filetime_str(int64_t filetime, char *buf, size_t size);

#endif /* NTKL_ETL_DECODE_H */
