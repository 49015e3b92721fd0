/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntkl report's system calls section (xperf -a syscall in brief): per
 * process and system call routine, how many calls and how long they took.
 *
 *   - SysClEnter and SysClExit carry no thread (PERFINFO64 headers, as
 *     Windows writes them): a record is the thread's that ran on its CPU
 *     then, by the report's rule (etl_report.h): the old thread of the
 *     CPU's next switch, or after its last switch that switch's new
 *     thread. A record on a CPU without a switch, or whose thread is not
 *     known, is counted in `unattributed` and nowhere else;
 *   - a call is a thread's SysClEnter; its time runs to the thread's next
 *     SysClExit (the call's return), if that comes before the thread's
 *     next SysClEnter (exit and exit_group never return; a trace may end
 *     in a call): a call without its exit is counted, not timed;
 *     `failed` counts the exits whose SysCallNtStatus is not success;
 *   - the call is named by its SysCallAddress (the routine's kernel
 *     address; 0 for a call ntkl could not resolve), and by the routine's
 *     name where this machine's kernel names it (etl_syscalls_name());
 *   - rows are ordered by total time, then calls, most first.
 *
 * The window and the threads are report's (etl_filter.h): --time keeps
 * the calls entered inside it, --pid, --tid, --comm those of the threads
 * it selects.
 */
#ifndef NTKL_ETL_SYSCALLS_H
#define NTKL_ETL_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etl/etl.h"
#include "etl_filter.h"

struct etl_model;
struct etl_switches;

struct etl_syscall_row {
	uint32_t pid;			/* UINT32_MAX: a thread no Thread event names */
	char name[64];			/* the process's */
	uint64_t address;		/* SysCallAddress */
	char function[128];		/* "image!routine" (etl_syscalls_name()), or "" */
	unsigned long calls, timed, failed;
	double total_ms, max_ms;	/* of the timed calls */
};

struct etl_syscalls {
	bool any;			/* the file has SysClEnter or SysClExit records */
	unsigned long enters, exits, unattributed;
	struct etl_syscall_row *rows;	/* by total time, then calls, most first */
	size_t nrows;
};

/*
 * Work out s, of what flt selects (NULL: all), inside a pass with its
 * model (etl_model_read_all()): begin (NULL, err set, out of memory), the
 * walker to add to the pass, then end with the pass's model and switches
 * (etl_switches.h), or NULL for both if the walk failed: 0, or -1 with
 * err set. end frees the reader.
 */
struct etl_syscalls_reader *etl_syscalls_begin(struct etl_syscalls *s,
					       const struct etl_filter *flt,
					       struct etl_error *err);
struct etl_walker etl_syscalls_walker(struct etl_syscalls_reader *rd);
int etl_syscalls_end(struct etl_syscalls_reader *rd, const struct etl_file *f,
		     const struct etl_model *m, const struct etl_switches *sw);

/*
 * Name each row's address by the kernel image of t that holds it, loaded
 * through ld (sym_load_checked(): this machine's kernel, as the trace's):
 * "vmlinux!__x64_sys_getppid". A row whose image cannot be loaded, or
 * whose address is hashed or in no image, keeps "" and prints its
 * address. 0, or -1 out of memory.
 */
struct sym_trace;
struct sym_loader;
int etl_syscalls_name(struct etl_syscalls *s, const struct sym_trace *t, struct sym_loader *ld);

void etl_syscalls_free(struct etl_syscalls *s);

/* The section as text (top rows), or as a JSON object's value. */
void etl_syscalls_print(FILE *out, const struct etl_syscalls *s, size_t top);
void etl_syscalls_print_json(FILE *out, const struct etl_syscalls *s);

#endif /* NTKL_ETL_SYSCALLS_H */
