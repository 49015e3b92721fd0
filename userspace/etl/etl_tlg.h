/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TraceLogging events: the payload of an EVENT_HEADER record decoded
 * from the schema its EVENT_SCHEMA_TL extended data item carries (u16
 * size, tag bytes, the event name, then per field: name, InType byte,
 * OutType byte if InType has 0x80, tag bytes if OutType has 0x80; InType
 * 0x20 a constant count (u16 in the schema), 0x40 a variable count (u16
 * in the payload); base type InType & 0x1F). Written by Windows'
 * TraceLogging providers (the TraceLoggingTester sample) and by libntkl.
 */
#ifndef NTKL_ETL_TLG_H
#define NTKL_ETL_TLG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Print "EventName: field=value ..." on one line from the schema item in
 * the extended data items ext (ext_len bytes) and the payload; false
 * (nothing printed) if there is no schema item. Reads only inside both;
 * a payload shorter than the schema says ends the line with "(payload
 * ends)", a schema it cannot follow with "(schema ...)".
 */
bool etl_tlg_decode(FILE *out, const char *indent, const uint8_t *ext, uint32_t ext_len,
		    const uint8_t *payload, uint32_t len);

/* The event name of the schema item in ext into name (size > 0); false if none. */
bool etl_tlg_event_name(const uint8_t *ext, uint32_t ext_len, char *name, size_t size);

/* The provider's name of the PROV_TRAITS item in ext into name; false if none. */
bool etl_tlg_provider_name(const uint8_t *ext, uint32_t ext_len, char *name, size_t size);

#endif /* NTKL_ETL_TLG_H */
