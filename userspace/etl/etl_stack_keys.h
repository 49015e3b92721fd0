/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cached stacks (stack caching, Windows' and ntkl's -stackcaching): an
 * event's stack is a StackKeyKernel (0x1825) and/or a StackKeyUser
 * (0x1826) reference, each naming the event's time, the thread and a key;
 * the key's frames are in a definition, KeyDelete (0x1823, written when
 * the cache drops the key) or KeyRundown (0x1824, at the end), so mostly
 * after the references. A reader gathers every definition in a first pass
 * (etl_stack_keys_add() on each record) and resolves references after.
 *
 * Windows' keys are its cache entries' addresses and come back after a
 * KeyDelete for another stack; so a reference resolves to the first
 * definition of its key at or after its own time, or, if none, the last
 * one before it. ntkl's keys are never reused.
 */
#ifndef NTKL_ETL_STACK_KEYS_H
#define NTKL_ETL_STACK_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct etl_record;

struct etl_stack_key_def;

struct etl_stack_keys {
	struct etl_stack_key_def *v;	/* sorted by key, then time, once resolving */
	size_t n, cap;
	uint64_t *frames;		/* every definition's frames */
	size_t nframes, frames_cap;
	bool sorted;
};

/* A reference record, taken apart. */
struct etl_stack_ref {
	bool user;			/* StackKeyUser, else StackKeyKernel */
	uint64_t event_time;		/* the event's EventTimeStamp */
	uint32_t pid, tid;
	uint64_t key;
	int64_t time;			/* the reference's own */
};

/* Is r a well-formed StackKeyKernel or StackKeyUser reference? Then fill ref. */
bool etl_stack_ref_parse(const struct etl_record *r, struct etl_stack_ref *ref);

/* Is r a stack key definition (KeyDelete, KeyRundown)? */
bool etl_stack_key_is_def(const struct etl_record *r);

/* Take r if it is a definition: 1 taken, 0 not one, -1 out of memory. */
int etl_stack_keys_add(struct etl_stack_keys *k, const struct etl_record *r);

/*
 * The frames of key as of time (a reference's own time): NULL if no
 * definition has the key; *n their count.
 */
const uint64_t *etl_stack_keys_find(struct etl_stack_keys *k, uint64_t key, int64_t time,
				    uint32_t *n);

void etl_stack_keys_free(struct etl_stack_keys *k);

#endif /* NTKL_ETL_STACK_KEYS_H */
