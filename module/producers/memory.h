/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What memory.c's VirtualAlloc records and valloc_rundown.c's rundown
 * share: how a mapping's Flags are made.
 */
#ifndef _NTKL_PRODUCERS_MEMORY_H
#define _NTKL_PRODUCERS_MEMORY_H

#include <linux/types.h>

#include "uapi/ntkl_etw.h"

/*
 * Windows commits what Linux charges to the commit limit (a writable
 * private mapping, unless MAP_NORESERVE: accountable_mapping()); what it
 * does not charge is only reserved.
 */
static __always_inline u32 ntkl_mem_alloc_flags(bool write, bool noreserve)
{
	return write && !noreserve ? ETW_MEM_COMMIT | ETW_MEM_RESERVE : ETW_MEM_RESERVE;
}

#endif
