// SPDX-License-Identifier: GPL-2.0
/*
 * The symbol record stream and its two indexes by name: one S_PUB32 per
 * function, which the publics stream (PSI) indexes by name (a hash table)
 * and by address (the address map); and one S_PROCREF per function of
 * known size, pointing at its S_GPROC32 in its module, which the globals
 * stream (GSI) indexes by name, as a linker's PDB does. Facts from
 * LLVM's docs/PDB/PublicStream.rst, GlobalStream.rst, CodeViewSymbols.rst.
 */
#include <errno.h>
#include <stdlib.h>

#include "pdb/pdb_hash.h"
#include "pdb/pdb_streams.h"

#define S_PUB32			0x110eu
#define S_PROCREF		0x1125u
#define PUBLIC_FLAG_FUNCTION	0x2u

/*
 * An S_PUB32: u16 length (of what follows), u16 kind, u32 flags,
 * u32 offset, u16 section, the name with its NUL, zeros up to 4 bytes.
 */
static void put_public(struct pdb_buf *out, const struct pdb_fn *f)
{
	size_t start = out->len;

	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, S_PUB32);
	pdb_buf_u32(out, PUBLIC_FLAG_FUNCTION);
	pdb_buf_u32(out, f->offset);
	pdb_buf_u16(out, f->section);
	pdb_buf_put(out, f->name, f->name_len);
	pdb_buf_u8(out, 0);
	pdb_buf_align(out, 4);
	pdb_buf_set_u16(out, start, (uint16_t)(out->len - start - 2));
}

/*
 * An S_PROCREF: u16 length, u16 kind, u32 checksum of the name (0, as
 * linkers leave it), u32 offset of the S_GPROC32 in its module's stream,
 * u16 module (1-based), the name with its NUL, zeros up to 4 bytes.
 */
static void put_procref(struct pdb_buf *out, const struct pdb_fn *f)
{
	size_t start = out->len;

	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, S_PROCREF);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, f->proc_offset);
	pdb_buf_u16(out, (uint16_t)(f->module + 1));
	pdb_buf_put(out, f->name, f->name_len);
	pdb_buf_u8(out, 0);
	pdb_buf_align(out, 4);
	pdb_buf_set_u16(out, start, (uint16_t)(out->len - start - 2));
}

/* The globals stream: the hash table of the S_PROCREFs, nothing more. */
static int build_globals(const struct pdb_model *m, struct pdb_buf *symbols,
			 struct pdb_buf *out)
{
	struct pdb_gsi_entry *e = malloc((m->nfns ? m->nfns : 1) * sizeof(*e));
	size_t n = 0;
	int ret;

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < m->nfns; i++) {
		if (!m->fns[i].size)
			continue;
		e[n++] = (struct pdb_gsi_entry){ m->fns[i].name, m->fns[i].name_len,
						 (uint32_t)symbols->len };
		put_procref(symbols, &m->fns[i]);
	}
	ret = pdb_gsi_hash_build(out, e, n);
	free(e);
	return ret;
}

/*
 * The publics stream: a header (bytes of hash table, bytes of address
 * map, no thunks, no section offsets), the hash table, then the address
 * map: each S_PUB32's record offset, ordered by section, offset and name
 * (the model's order already), which readers binary-search.
 */
static int build_publics(const struct pdb_model *m, const uint32_t *offsets,
			 struct pdb_buf *out)
{
	struct pdb_gsi_entry *e = malloc((m->nfns ? m->nfns : 1) * sizeof(*e));
	size_t hash_start, hash_bytes;
	int ret;

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < m->nfns; i++)
		e[i] = (struct pdb_gsi_entry){ m->fns[i].name, m->fns[i].name_len, offsets[i] };

	pdb_buf_u32(out, 0);			/* hash table bytes, below */
	pdb_buf_u32(out, (uint32_t)(m->nfns * 4));
	pdb_buf_u32(out, 0);			/* thunks */
	pdb_buf_u32(out, 0);			/* thunk size */
	pdb_buf_u16(out, 0);			/* thunk table section */
	pdb_buf_u16(out, 0);
	pdb_buf_u32(out, 0);			/* thunk table offset */
	pdb_buf_u32(out, 0);			/* section offsets */
	hash_start = out->len;
	ret = pdb_gsi_hash_build(out, e, m->nfns);
	free(e);
	if (ret)
		return ret;
	hash_bytes = out->len - hash_start;
	pdb_buf_set_u32(out, 0, (uint32_t)hash_bytes);
	for (size_t i = 0; i < m->nfns; i++)
		pdb_buf_u32(out, offsets[i]);
	return out->failed ? -ENOMEM : 0;
}

int pdb_build_symbols(const struct pdb_model *m, struct pdb_buf *symbols,
		      struct pdb_buf *publics, struct pdb_buf *globals)
{
	uint32_t *offsets = malloc((m->nfns ? m->nfns : 1) * sizeof(*offsets));
	int ret;

	if (!offsets)
		return -ENOMEM;
	for (size_t i = 0; i < m->nfns; i++) {
		offsets[i] = (uint32_t)symbols->len;
		put_public(symbols, &m->fns[i]);
	}
	ret = build_publics(m, offsets, publics);
	free(offsets);
	if (ret)
		return ret;
	ret = build_globals(m, symbols, globals);
	if (ret)
		return ret;
	return symbols->failed ? -ENOMEM : 0;
}
