/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the numbers in an ETL file: groups, hooks, header types, buffer
 * types and flags, clock types, logger modes, wait reasons, thread states.
 *
 * Only names with a public source are given (uapi/ntkl_etw.h, the
 * Microsoft Learn MOF class pages, evntrace.h/evntcons.h constants); an
 * unknown value gets NULL and callers print the number.
 */
#ifndef NTKL_ETL_NAMES_H
#define NTKL_ETL_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct etl_flag_name {
	uint32_t value;
	const char *name;
};

const char *etl_group_name(uint8_t group);
const char *etl_hook_name(uint16_t hook_id);	/* opcode name within its group */

/* "Thread/CSwitch", "Thread/0x48", "group 0x33/0x01" into buf. */
const char *etl_hook_label(uint16_t hook_id, char *buf, size_t size);

const char *etl_header_type_name(uint8_t header_type);
const char *etl_buffer_type_name(uint16_t buffer_type);
const char *etl_clock_type_name(uint32_t clock_type);
const char *etl_kwait_reason_name(uint8_t reason);
const char *etl_kthread_state_name(uint8_t state);
const char *etl_ext_type_name(uint16_t ext_type);
const char *etl_spinlock_mode_name(uint8_t mode);
const char *etl_ready_adjust_reason_name(int8_t reason);

/*
 * "NAME1|NAME2|0x100" for the bits of value: known bits by name, the rest
 * as one hex number; "0" when value is 0. Always NUL-terminated.
 */
const char *etl_flags_str(const struct etl_flag_name *table, uint32_t value,
			  char *buf, size_t size);

extern const struct etl_flag_name etl_buffer_flag_names[];
extern const struct etl_flag_name etl_logfile_mode_names[];
extern const struct etl_flag_name etl_event_header_flag_names[];

/* Group-mask constants (PERF_*) with names, for the HeaderExtension. */
extern const struct etl_flag_name etl_perf_group_names[];

#endif /* NTKL_ETL_NAMES_H */
