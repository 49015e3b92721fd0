// SPDX-License-Identifier: GPL-2.0
/*
 * The index of etl_index.h.
 */
#include <stdlib.h>
#include <string.h>

#include "etl_index.h"

static const uint8_t *key_of(const struct etl_index *ix, const void *items, size_t i)
{
	return (const uint8_t *)items + i * ix->item_size + ix->key_off;
}

static size_t hash(const struct etl_index *ix, const uint8_t *key)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < ix->key_size; i++)
		h = (h ^ key[i]) * 16777619u;
	return h & (ix->nslots - 1);
}

size_t etl_index_find(const struct etl_index *ix, const void *items, const void *key,
		      size_t *slot)
{
	size_t s;

	*slot = 0;
	if (!ix->nslots)
		return SIZE_MAX;
	for (s = hash(ix, key); ix->slots[s]; s = (s + 1) & (ix->nslots - 1))
		if (!memcmp(key_of(ix, items, ix->slots[s] - 1), key, ix->key_size)) {
			*slot = s;
			return ix->slots[s] - 1;
		}
	*slot = s;
	return SIZE_MAX;
}

int etl_index_reserve(struct etl_index *ix, const void *items, size_t n)
{
	struct etl_index grown = *ix;
	size_t s;

	if ((n + 1) * 4 <= ix->nslots * 3)
		return 0;
	grown.nslots = ix->nslots ? ix->nslots * 2 : 64;
	grown.slots = calloc(grown.nslots, sizeof(*grown.slots));
	if (!grown.slots)
		return -1;
	for (size_t i = 0; i < n; i++) {
		etl_index_find(&grown, items, key_of(ix, items, i), &s);
		grown.slots[s] = (uint32_t)i + 1;
	}
	free(ix->slots);
	*ix = grown;
	return 0;
}

void etl_index_free(struct etl_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->nslots = 0;
}
