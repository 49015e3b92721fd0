// SPDX-License-Identifier: GPL-2.0
/*
 * The small fixed streams: the PDB info stream (what a debugger matches
 * against the image's RSDS record), the "/names" string table, and the
 * two type streams, TPI and IPI, which a publics PDB leaves empty. Facts
 * from LLVM's docs/PDB/PdbStream.rst, TpiStream.rst and HashTable.rst.
 */
#include <string.h>

#include "pdb/pdb_hash.h"
#include "pdb/pdb_streams.h"

#define PDB_IMPL_VC70		20000404u	/* the info stream's version */
#define PDB_FEATURE_VC140	20140508u	/* "has an IPI stream" */
#define PDB_TPI_V80		20040203u
#define PDB_TPI_HEADER_SIZE	56u
#define PDB_FIRST_TYPE_INDEX	0x1000u		/* below are the built-in types */
#define PDB_TPI_HASH_BUCKETS	0x3ffffu	/* what LLVM and MSVC use */
#define PDB_STRING_TABLE_MAGIC	0xeffeeffeu
#define NO_STREAM		0xffffu

static const char names_stream_name[] = "/names";

/*
 * Header (version, signature, age, GUID), then the named stream map: a
 * buffer of NUL-terminated names and a hash table from each name's
 * offset in it to a stream number; then the feature list (VC140: the
 * IPI stream is there).
 *
 * The hash table: u32 size, u32 capacity, the present and deleted bit
 * vectors (u32 word count, words), then a (key, value) pair per present
 * bucket in bucket order. A reader finds "/names" by probing from its
 * 16-bit V1 hash modulo the capacity, so it sits in that bucket.
 */
void pdb_build_info(struct pdb_buf *out, const struct pdb_image *img)
{
	const uint32_t capacity = 8;
	uint32_t bucket = (pdb_hash_v1(names_stream_name, strlen(names_stream_name)) &
			   0xffff) % capacity;

	pdb_buf_u32(out, PDB_IMPL_VC70);
	pdb_buf_u32(out, img->signature);
	pdb_buf_u32(out, img->age);
	pdb_buf_put(out, img->guid, 16);

	pdb_buf_u32(out, sizeof(names_stream_name));
	pdb_buf_put(out, names_stream_name, sizeof(names_stream_name));
	pdb_buf_u32(out, 1);			/* entries */
	pdb_buf_u32(out, capacity);
	pdb_buf_u32(out, 1);			/* present: one word */
	pdb_buf_u32(out, 1u << bucket);
	pdb_buf_u32(out, 0);			/* deleted: no words */
	pdb_buf_u32(out, 0);			/* "/names" at offset 0 ... */
	pdb_buf_u32(out, PDB_STREAM_NAMES);	/* ... is this stream */

	pdb_buf_u32(out, PDB_FEATURE_VC140);
}

/*
 * An empty PDB string table: header (magic, hash version 1, buffer size),
 * the buffer holding only the empty string, a one-bucket hash table with
 * nothing in it, and the string count. It is also the DBI's EC substream.
 */
void pdb_build_names(struct pdb_buf *out)
{
	pdb_buf_u32(out, PDB_STRING_TABLE_MAGIC);
	pdb_buf_u32(out, 1);
	pdb_buf_u32(out, 1);
	pdb_buf_u8(out, 0);
	pdb_buf_u32(out, 1);	/* buckets */
	pdb_buf_u32(out, 0);	/* bucket 0: empty */
	pdb_buf_u32(out, 0);	/* strings */
}

/*
 * A type stream with no records (TPI or IPI): type indices 0x1000 up to
 * 0x1000, and an empty hash stream of its own, as linkers write it.
 */
void pdb_build_type_stream(struct pdb_buf *out, uint16_t hash_stream)
{
	pdb_buf_u32(out, PDB_TPI_V80);
	pdb_buf_u32(out, PDB_TPI_HEADER_SIZE);
	pdb_buf_u32(out, PDB_FIRST_TYPE_INDEX);
	pdb_buf_u32(out, PDB_FIRST_TYPE_INDEX);
	pdb_buf_u32(out, 0);			/* bytes of type records */
	pdb_buf_u16(out, hash_stream);
	pdb_buf_u16(out, NO_STREAM);		/* no auxiliary hash stream */
	pdb_buf_u32(out, 4);			/* hash key size */
	pdb_buf_u32(out, PDB_TPI_HASH_BUCKETS);
	pdb_buf_zero(out, 3 * 8);		/* hash values, index offsets, adjusters: none */
}
