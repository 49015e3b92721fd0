/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntklsym, the functions of Linux images: its one public header.
 *
 *   sym.h           symbol tables: ELF files, kallsyms, build-ids, PDB input
 *   sym_trace.h     a trace's images, their identities and sampled addresses
 *   sym_load.h      a trace's image loaded from this machine, checked
 *   sym_profile.h   the functions with the most samples
 */
#ifndef NTKL_SYMBOLS_H
#define NTKL_SYMBOLS_H

#include "sym.h"
#include "sym_load.h"
#include "sym_profile.h"
#include "sym_trace.h"

#endif /* NTKL_SYMBOLS_H */
