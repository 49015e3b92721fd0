/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions with the most samples, named as ntkl symbols names them
 * for WPA (this machine's files and kernel, checked against the trace's
 * build-ids): for dump --stats, so a Linux user sees the names WPA will.
 */
#ifndef NTKL_SYM_PROFILE_H
#define NTKL_SYM_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "sym_load.h"

/*
 * Print "Functions by samples" for the trace at path: its rows functions
 * with the most SampledProfile IPs as image!function ("image!?" where the
 * image cannot be named here, each such image's reason on a line after).
 * Nothing if the trace has no sample in a Linux image. 0, or -1 with err
 * (an unreadable trace, out of memory).
 */
int sym_profile_print(FILE *out, const char *path, size_t rows, struct sym_loader *ld,
		      char *err, size_t err_size);

#endif /* NTKL_SYM_PROFILE_H */
