/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions with the most samples, named as ntkl symbols names them
 * for WPA (this machine's files and kernel, checked against the trace's
 * build-ids): for dump --stats and report, so a Linux user sees the
 * names WPA will.
 */
#ifndef NTKL_SYM_PROFILE_H
#define NTKL_SYM_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "sym_load.h"

/* one row: a function (or an image's unnamed part) and its samples */
struct sym_function_row {
	char *name;			/* image!function, image!? for none */
	unsigned long samples;		/* SampledProfile IPs in it */
};

/* A trace's sampled functions, named as ntkl symbols names them for WPA. */
struct sym_functions {
	struct sym_function_row *v;	/* by samples, most first */
	size_t n;
	unsigned long all_samples;	/* SampledProfile events, in an image or not */
	/* IPs and frames a function holds, and all, by [kernel][frame] */
	unsigned long named[2][2], all[2][2];
	char **notes;			/* per image not named here: "path: why" */
	size_t nnotes;
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
 * function names. Nothing if fn has no row.
 */
void sym_functions_print(FILE *out, const struct sym_functions *fn, size_t rows);

void sym_functions_free(struct sym_functions *fn);

/*
 * sym_functions_read() and sym_functions_print() of the trace at path.
 * 0, or -1 with err (an unreadable trace, out of memory).
 */
int sym_profile_print(FILE *out, const char *path, size_t rows, struct sym_loader *ld,
		      char *err, size_t err_size);

#endif /* NTKL_SYM_PROFILE_H */
