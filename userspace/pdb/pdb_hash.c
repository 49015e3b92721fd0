// SPDX-License-Identifier: GPL-2.0
/*
 * The PDB's hashes, written from their public descriptions (LLVM's
 * docs/PDB/HashTable.rst and PublicStream.rst, microsoft-pdb's misc.h and
 * gsi.cpp): a reader hashes a name the same way to find its bucket, so
 * the hash and the order inside a bucket must be exactly theirs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb_hash.h"

/*
 * XOR of the name's little-endian 32-bit words, then of a trailing 16-bit
 * word and byte; the 0x20 bits forced on (case-insensitive for ASCII
 * letters) and the high bits folded down.
 */
uint32_t pdb_hash_v1(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	uint32_t h = 0;
	size_t i = 0;

	for (; i + 4 <= len; i += 4)
		h ^= (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
		     (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
	if (len - i >= 2) {
		h ^= (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
		i += 2;
	}
	if (len - i == 1)
		h ^= p[i];
	h |= 0x20202020u;
	h ^= h >> 11;
	return h ^ (h >> 16);
}

static bool is_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int pdb_gsi_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	if (!is_ascii(a, alen) || !is_ascii(b, blen))
		return memcmp(a, b, alen);
	for (size_t i = 0; i < alen; i++) {
		int ca = ascii_lower((unsigned char)a[i]);
		int cb = ascii_lower((unsigned char)b[i]);

		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct pdb_gsi_entry *a = pa, *b = pb;
	int c = pdb_gsi_name_cmp(a->name, a->name_len, b->name, b->name_len);

	if (c)
		return c;
	/* equal names: by record offset, so the file does not depend on qsort */
	return (a->sym_offset > b->sym_offset) - (a->sym_offset < b->sym_offset);
}

/*
 * The layout (GSIHashHeader and what follows; an empty table has only
 * the header):
 *	u32 signature 0xffffffff, u32 version 0xeffe0000 + 19990810,
 *	u32 bytes of hash records, u32 bytes of bitmap + bucket offsets;
 *	per symbol, bucket by bucket: u32 record offset + 1, u32 reference count 1;
 *	a bitmap of 4096 + 1 bits (129 words) marking the non-empty buckets;
 *	per non-empty bucket: its first record's index * 12 (the size of a
 *	hash record in the reference implementation's 32-bit memory).
 */
int pdb_gsi_hash_build(struct pdb_buf *out, struct pdb_gsi_entry *e, size_t n)
{
	const uint32_t bitmap_words = (PDB_GSI_BUCKETS + 1 + 31) / 32;
	uint32_t *count = calloc(PDB_GSI_BUCKETS + 1, sizeof(*count));
	uint32_t *bucket_of = malloc((n ? n : 1) * sizeof(*bucket_of));
	struct pdb_gsi_entry *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	uint32_t bitmap[(PDB_GSI_BUCKETS + 1 + 31) / 32] = { 0 };
	uint32_t nonempty = 0;

	if (!count || !bucket_of || !sorted) {
		free(count);
		free(bucket_of);
		free(sorted);
		return -ENOMEM;
	}
	/* a counting sort by bucket, then each bucket in the readers' order */
	for (size_t i = 0; i < n; i++) {
		bucket_of[i] = pdb_hash_v1(e[i].name, e[i].name_len) % PDB_GSI_BUCKETS;
		count[bucket_of[i] + 1]++;
	}
	for (uint32_t b = 0; b < PDB_GSI_BUCKETS; b++)
		count[b + 1] += count[b];	/* count[b]: where bucket b starts */
	for (size_t i = 0; i < n; i++)
		sorted[count[bucket_of[i]]++] = e[i];
	/* count[b] is now bucket b's end: shift back to the starts */
	for (uint32_t b = PDB_GSI_BUCKETS; b > 0; b--)
		count[b] = count[b - 1];
	count[0] = 0;
	for (uint32_t b = 0; b < PDB_GSI_BUCKETS; b++) {
		uint32_t len = count[b + 1] - count[b];

		if (!len)
			continue;
		if (len > 1)
			qsort(sorted + count[b], len, sizeof(*sorted), entry_cmp);
		bitmap[b / 32] |= 1u << (b % 32);
		nonempty++;
	}
	if (n)
		memcpy(e, sorted, n * sizeof(*e));

	pdb_buf_u32(out, 0xffffffffu);
	pdb_buf_u32(out, 0xeffe0000u + 19990810u);
	pdb_buf_u32(out, (uint32_t)(n * 8));
	/*
	 * An empty table ends with its header: LLVM's reader reads the
	 * bitmap only after some records, and then finds bytes it did
	 * not expect.
	 */
	pdb_buf_u32(out, n ? (bitmap_words + nonempty) * 4 : 0);
	if (!n)
		goto out;
	for (size_t i = 0; i < n; i++) {
		pdb_buf_u32(out, e[i].sym_offset + 1);
		pdb_buf_u32(out, 1);
	}
	for (uint32_t w = 0; w < bitmap_words; w++)
		pdb_buf_u32(out, bitmap[w]);
	for (uint32_t b = 0; b < PDB_GSI_BUCKETS; b++)
		if (count[b + 1] != count[b])
			pdb_buf_u32(out, count[b] * 12);
out:
	free(count);
	free(bucket_of);
	free(sorted);
	return out->failed ? -ENOMEM : 0;
}
