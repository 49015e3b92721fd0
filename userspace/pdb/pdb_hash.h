/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hashes a PDB's readers recompute: the string hash of the named
 * stream map and of the symbol hash tables (the "V1" hash of
 * microsoft-pdb's misc.h), and the symbol hash table of the publics and
 * globals streams (GSI).
 */
#ifndef NTKL_PDB_HASH_H
#define NTKL_PDB_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "pdb/pdb_buf.h"

/* The symbol hash tables' bucket count (IPHR_HASH). */
#define PDB_GSI_BUCKETS	4096u

uint32_t pdb_hash_v1(const char *s, size_t len);

/*
 * The order of names in one hash bucket, which a reader's lookup stops
 * early on: shorter names first, then case-insensitively for ASCII names,
 * bytewise otherwise. <0, 0, >0.
 */
int pdb_gsi_name_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* One symbol in a hash table: its name and its offset in the record stream. */
struct pdb_gsi_entry {
	const char *name;
	uint32_t name_len;
	uint32_t sym_offset;
};

/*
 * Append the hash table of entries[0, n) to out: header, hash records,
 * bucket bitmap, bucket offsets. entries is reordered. 0 or -ENOMEM.
 */
int pdb_gsi_hash_build(struct pdb_buf *out, struct pdb_gsi_entry *entries, size_t n);

#endif /* NTKL_PDB_HASH_H */
