/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions with the most samples, named as ntkl symbols names them
 * for WPA (this machine's files and kernel, checked against the trace's
 * build-ids): for dump --stats and report, so a Linux user sees the
 * names WPA will.
 */
#ifndef NTKL_SYM_PROFILE_H
#define NTKL_SYM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sym_load.h"

/* one row: a function (or an image's unnamed part) and its samples */
struct sym_function_row {
	char *name;			/* image!function, image!? for none */
	unsigned long samples;		/* SampledProfile IPs in it */
};

/*
 * How whole a trace's user stacks are, from the file alone. A user stack
 * is the user part (frames below 2^63) of a StackWalk record or of a
 * resolved stack key reference (sym_trace.h); a stack with no user frame
 * (a kernel thread's, the idle thread's) is none. Each ends, by the name
 * of its outermost frame (sym_table_find(), as ntkl symbols names it):
 *
 *   whole      in a start routine of a process or thread (sym_start_routine())
 *   early      in another function: the walk stopped there (no unwind
 *              data, an unreadable stack, the frame cap, a process whose
 *              map the module was still making)
 *   not named  in a frame with no name here: its image not named on this
 *              machine (sym_functions' notes say why), no function at the
 *              address, or no image of the trace (no_image of them): whole
 *              or early cannot be told
 *
 * Stacks ending in a Windows image are left out (windows: their names are
 * Microsoft's PDBs'), as the functions are.
 */
enum sym_stack_end { SYM_END_WHOLE, SYM_END_EARLY, SYM_END_NOT_NAMED, SYM_END_KINDS };

struct sym_user_stacks {
	unsigned long n[SYM_END_KINDS];	/* stacks by how they end */
	unsigned long no_image;		/* of n[SYM_END_NOT_NAMED]: in no image */
	unsigned long windows;		/* in a Windows image, not counted */
	/* the outermost frames of each kind, image!function ("?": no image), most first */
	struct sym_function_row *ends[SYM_END_KINDS];	/* .samples: the stacks ending there */
	size_t nends[SYM_END_KINDS];
};

/* Is function (a symbol's name) a start routine, where a whole user stack ends? */
bool sym_start_routine(const char *function);

/* The user stacks counted (all three kinds); 0 for a Windows trace's. */
unsigned long sym_user_stacks_counted(const struct sym_user_stacks *u);

/* A trace's sampled functions, named as ntkl symbols names them for WPA. */
struct sym_functions {
	struct sym_function_row *v;	/* by samples, most first */
	size_t n;
	unsigned long all_samples;	/* SampledProfile events, in an image or not */
	/* IPs and frames a function holds, and all, by [kernel][frame] */
	unsigned long named[2][2], all[2][2];
	char **notes;			/* per image not named here: "path: why" */
	size_t nnotes;
	struct sym_user_stacks user;	/* how whole the user stacks are */
};

/*
 * Name f's sampled IPs and stack frames into fn: nothing (n 0) if the
 * trace has no sample in a Linux image. 0, or -1 with err (an unreadable
 * trace, out of memory); sym_functions_free() either way.
 */
int sym_functions_read(const struct etl_file *f, struct sym_loader *ld,
		       struct sym_functions *fn, char *err, size_t err_size);

/* The same from a trace already read (its samples get sorted by image). */
int sym_functions_of(struct sym_trace *t, struct sym_loader *ld, struct sym_functions *fn,
		     char *err, size_t err_size);

/*
 * "Functions by samples": the first rows of fn (SIZE_MAX: all) as
 * image!function with the samples and their share of all samples, the
 * images not named here with their reasons, how many IPs and frames a
 * function names; then "User stacks:", how many are whole, and where
 * the others end (sym_user_stacks_print()). Without a row (no sample in
 * a Linux image), the user stacks and the images not named here only;
 * nothing without either.
 */
void sym_functions_print(FILE *out, const struct sym_functions *fn, size_t rows);

/*
 * One line: "User stacks: W of W+E whole (P%), ending in a process's or
 * thread's start routine (top: ...); E end early, in another function
 * (top: ...); U more end in a frame not named here (top: ...)", with the
 * three commonest outermost frames of each kind ("N in no image" for
 * "?"); whole or early is only told of a stack whose end has a name.
 * Nothing if no user stack is counted.
 */
void sym_user_stacks_print(FILE *out, const struct sym_user_stacks *u);

void sym_functions_free(struct sym_functions *fn);

/*
 * sym_functions_read() and sym_functions_print() of the trace at path.
 * 0, or -1 with err (an unreadable trace, out of memory).
 */
int sym_profile_print(FILE *out, const char *path, size_t rows, struct sym_loader *ld,
		      char *err, size_t err_size);

#endif /* NTKL_SYM_PROFILE_H */
