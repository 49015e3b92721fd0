/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index over items the caller keeps in an array, by a key inside each
 * item (its bytes at key_off, key_size long): open addressing over slots
 * that hold an item's index + 1 (0: free). The dump's table of event
 * types and the sampled profile's threads both count things by key.
 */
#ifndef NTKL_ETL_INDEX_H
#define NTKL_ETL_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct etl_index {
	uint32_t *slots;
	size_t nslots;			/* a power of two; 0 before the first item */
	size_t item_size, key_off, key_size;
};

/* The item with key, or SIZE_MAX; *slot: where it is, or would go. */
size_t etl_index_find(const struct etl_index *ix, const void *items, const void *key,
		      size_t *slot);
/*
 * Room for item n (the items before it indexed): grows the slots at 3/4
 * full. Then find item n's slot and set it to n + 1. 0, or -1 (no memory).
 */
int etl_index_reserve(struct etl_index *ix, const void *items, size_t n);
void etl_index_free(struct etl_index *ix);

#endif /* NTKL_ETL_INDEX_H */
