/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ETL file's stacks as folded stacks (ntkl convert --to folded): the
 * text Brendan Gregg's flamegraph.pl, speedscope, inferno and most flame
 * graph tools read, as `perf script | stackcollapse-perf.pl` writes it.
 * One line per distinct stack:
 *
 *	process;outermost;...;innermost count
 *
 * frames named image!function as ntkl symbols names them for WPA (and
 * dump --stats' functions): the function holding the address in the
 * image's file on this machine (its symbol table, or its debug file's by
 * build-id; the kernel's from kallsyms), checked against the trace's
 * build-id; image!? where the image has no name for it or cannot be read
 * (one line per image on the caller's notes stream says why), ? where no
 * Image record covers the address. A ';' in a name becomes ':' (it would
 * split the frame). The process is the model's one name (etl_model.h;
 * else its thread's, else "?"); with ETL_FOLDED_TID it is
 * "process-PID/TID", as stackcollapse-perf.pl --tid writes it.
 *
 * Whose stacks: each SampledProfile event's (ETL_FOLDED_PROFILE), or
 * each CSwitch event's new thread's (ETL_FOLDED_CSWITCH, WPA's New
 * Thread Stack). An event's stack is a StackWalk record, or the
 * StackKeyKernel and StackKeyUser references of stack caching resolved
 * through their definitions (etl/etl_stack_keys.h), frames innermost
 * first, kernel ones then user ones; it belongs to the latest event
 * before it on its CPU with the same time and thread (the stack is
 * written right after its event, only a nested interrupt's records
 * between them, and one interrupt may write two events of one time). A
 * sample without a stack is its IP alone, as perf script gives a sample
 * without a callchain; a switch without one is left out (counted).
 */
#ifndef NTKL_ETL_FOLDED_H
#define NTKL_ETL_FOLDED_H

#include <stdio.h>

#include "etl/etl_reader.h"
#include "symbols/sym_load.h"

enum etl_folded_event {
	ETL_FOLDED_PROFILE,		/* SampledProfile: the sampled thread's stack */
	ETL_FOLDED_CSWITCH,		/* CSwitch: the new thread's stack */
};

#define ETL_FOLDED_TID	0x1		/* "process-PID/TID" for the process */

struct etl_folded_stats {
	unsigned long events;		/* SampledProfile (or CSwitch) events */
	unsigned long stacks;		/* of which with a stack */
	unsigned long lines;		/* distinct stacks written */
	unsigned long unresolved;	/* stack key references no definition gives */
};

/*
 * Write f's stacks of event to out as folded lines, naming frames with
 * ld; one "not named here: PATH: WHY" line per image it cannot name to
 * notes (NULL: none). 0, or -1 with err set (the reader's errors, out of
 * memory, a write error); stats may be NULL.
 */
int etl_folded_write(FILE *out, const struct etl_file *f, enum etl_folded_event event,
		     unsigned int flags, struct sym_loader *ld, FILE *notes,
		     struct etl_folded_stats *stats, struct etl_error *err);

#endif /* NTKL_ETL_FOLDED_H */
