/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the numbers in an ETL file: groups, hooks, header types, buffer
 * types and flags, clock types, logger modes, wait reasons, thread states.
 *
 * Only names with a public source are given (uapi/ntkl_etw.h, the
 * Microsoft Learn MOF class pages, evntrace.h/evntcons.h constants); an
 * unknown value gets NULL and callers print the number.
 */
#ifndef NTKL_ETW_NAMES_H
#define NTKL_ETW_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct etw_flag_name {
	uint32_t value;
	const char *name;
};

const char *etw_group_name(uint8_t group);
const char *etw_hook_name(uint16_t hook_id);	/* opcode name within its group */

/* "Thread/CSwitch", "Thread/0x48", "group 0x33/0x01" into buf. */
const char *etw_hook_label(uint16_t hook_id, char *buf, size_t size);

const char *etw_header_type_name(uint8_t header_type);
const char *etw_buffer_type_name(uint16_t buffer_type);
const char *etw_clock_type_name(uint32_t clock_type);
const char *etw_kwait_reason_name(uint8_t reason);
const char *etw_kthread_state_name(uint8_t state);
const char *etw_ext_type_name(uint16_t ext_type);
const char *etw_spinlock_mode_name(uint8_t mode);
const char *etw_ready_adjust_reason_name(int8_t reason);

/*
 * "NAME1|NAME2|0x100" for the bits of value: known bits by name, the rest
 * as one hex number; "0" when value is 0. Always NUL-terminated.
 */
const char *etw_flags_str(const struct etw_flag_name *table, uint32_t value,
			  char *buf, size_t size);

extern const struct etw_flag_name etw_buffer_flag_names[];
extern const struct etw_flag_name etw_logfile_mode_names[];
extern const struct etw_flag_name etw_event_header_flag_names[];

/* Group-mask constants (PERF_*) with names, for the HeaderExtension. */
extern const struct etw_flag_name etw_perf_group_names[];

#endif /* NTKL_ETW_NAMES_H */
