/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack caching (NTKL_LOGGER_OPT_STACK_CACHING, WPR's stack
 * caching): a logger's stacks written as references to keys
 * (StackKeyKernel, StackKeyUser) and each key's frames once, in its
 * definition (KeyDelete when the cache drops it, KeyRundown at stop).
 */
#ifndef _NTKL_STACK_CACHE_H
#define _NTKL_STACK_CACHE_H

#include <linux/types.h>

struct ntkl_logger;
struct ntkl_stack;

/* At START, before the logger is published; at its release. */
int ntkl_stack_cache_alloc(struct ntkl_logger *lg);
void ntkl_stack_cache_free(struct ntkl_logger *lg);

/*
 * The references of st's stack for the event stamped event_time, and the
 * definitions of the keys they evict; false if the cache cannot take it
 * (none, busy in the context this one interrupted, closed by the
 * rundown, or a part too long for an entry): then write the Stack.
 */
bool ntkl_stack_cache_write(struct ntkl_logger *lg, const struct ntkl_stack *st, u64 event_time);

/*
 * KeyRundown for each key in every CPU's cache, into that CPU's buffers.
 * A snapshot (taken false): the keys stay cached, but no new one is made
 * (stacks are written whole) until the snapshot is taken (taken true).
 * Stop: the caches close. Process context, sleeps.
 */
void ntkl_stack_cache_snapshot(struct ntkl_logger *lg, bool taken);
void ntkl_stack_cache_rundown(struct ntkl_logger *lg);

#endif /* _NTKL_STACK_CACHE_H */
