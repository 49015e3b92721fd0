/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a logger records: the -on FLAGS of ntkl start/record/update, as
 * xperf's kernel flags. FLAGS is names and numbers joined with '+':
 *
 *   PROC_THREAD+CSWITCH       names, case-insensitive
 *   0x20010000                a group constant (PERF_SPINLOCK): the mask
 *                             index in the top 3 bits, the bits below
 *   0x3                       a plain number (< 0x20000000): EnableFlags
 *   Latency                   one of xperf's kernel groups: the flags of
 *                             it that ntkl records (ntkl_flags_warnings()
 *                             names the others)
 *
 * The result is the pair the START ioctl takes: EnableFlags and the
 * PERFINFO_GROUPMASK (struct ntkl_properties' enable_flags, group_masks).
 */
#ifndef NTKL_FLAGS_H
#define NTKL_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl_names.h"
#include "uapi/ntkl_etw.h"

struct ntkl_flags {
	uint32_t enable_flags;			/* EVENT_TRACE_FLAG_* */
	uint32_t group_masks[PERF_NUM_MASKS];	/* PERFINFO_GROUPMASK */
};

/* One -on name. */
struct ntkl_flag_keyword {
	const char *name;
	uint32_t enable_flags;
	uint32_t group;			/* a PERF_* group constant, or 0 */
	const char *help;
};

/* The names -on knows, ended by a NULL name. */
extern const struct ntkl_flag_keyword ntkl_flag_keywords[];

/* EVENT_TRACE_FLAG_* names for etl_flags_str() ("PROCESS", "CSWITCH"). */
extern const struct etl_flag_name ntkl_enable_flag_names[];

/*
 * Parse FLAGS into *out (zeroed first). Returns 0, or -1 with a one-line
 * reason in err ("unknown flag 'FOO': valid names are ...").
 */
int ntkl_flags_parse(const char *spec, struct ntkl_flags *out, char *err,
		     size_t err_size);

/*
 * Does f turn on any event ntkl writes (beyond the rundowns, which are
 * always written)? From the event list: an event ntkl writes whose group
 * the flags turn on.
 */
bool ntkl_flags_record_any(const struct ntkl_flags *f);

/*
 * What the user should hear about FLAGS, parsed into *f: one line (each
 * ending in '\n') per xperf kernel group in it that has flags ntkl does
 * not record ("ntkl: Latency: HARD_FAULTS not recorded by ntkl (recording
 * PROC_THREAD+LOADER+DISK_IO+DPC+INTERRUPT+CSWITCH+PROFILE)"), and one
 * if the flags select no event ntkl records. Returns the number of lines.
 */
size_t ntkl_flags_warnings(const char *spec, const struct ntkl_flags *f, char *buf,
			   size_t size);

/*
 * For usage texts: one line per name with what it records, then how
 * numbers are read; every line starts with indent.
 */
void ntkl_flags_help(FILE *out, const char *indent);

/* "PROC_THREAD, PROCESS, ..." : the valid names, for messages. */
const char *ntkl_flag_names_list(char *buf, size_t size);

/*
 * The flags as -on would take them back: names where the bits match one,
 * numbers for the rest ("PROC_THREAD+CSWITCH+0x20000400"); "none" if no
 * bit is set. enable_flags and group_masks as QUERY returns them: the
 * module mirrors some EnableFlags bits into the masks (CSWITCH sets
 * PERF_CONTEXT_SWITCH), and those mirrors are not repeated.
 */
const char *ntkl_flags_format(const struct ntkl_flags *f, char *buf, size_t size);

/*
 * The groups set in masks, by PERF_* name ("PROCESS|THREAD|0x20000400").
 * Of Masks[0] (EnableFlags) only the PERF_ groups are named: the other
 * bits are EnableFlags' (ntkl_enable_flag_names).
 */
const char *ntkl_groups_format(const uint32_t masks[PERF_NUM_MASKS], char *buf,
			       size_t size);

#endif /* NTKL_FLAGS_H */
