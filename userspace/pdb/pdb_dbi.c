// SPDX-License-Identifier: GPL-2.0
/*
 * The DBI stream (stream 3): which streams hold the symbols, the
 * modules and their section contributions, the section map, and the
 * optional debug header whose only entry names the section header
 * stream (the image's sections as IMAGE_SECTION_HEADERs, which readers
 * turn section:offset into RVAs with). Facts from LLVM's
 * docs/PDB/DbiStream.rst and microsoft-pdb's dbi.h.
 */
#include <string.h>

#include "pdb/pdb_streams.h"

#define DBI_VERSION_V70		19990903u
#define DBI_BUILD_NUMBER	0x8e00u	/* new format (bit 15), version 14.0 */
#define DBI_SEC_CONTRIB_V60	(0xeffe0000u + 19970605u)
#define MACHINE_AMD64		0x8664u
#define NO_STREAM		0xffffu
#define DBG_HEADER_ENTRIES	11	/* FPO ... original section headers */
#define DBG_SECTION_HEADERS	5

/* section map descriptor flags (OMF segment descriptor) */
#define SEG_READ		0x0001u
#define SEG_WRITE		0x0002u
#define SEG_EXECUTE		0x0004u
#define SEG_ADDRESS_32BIT	0x0008u
#define SEG_SELECTOR		0x0100u
#define SEG_ABSOLUTE		0x0200u

/* A section contribution: 28 bytes. */
static void put_contrib(struct pdb_buf *out, const struct pdb_contrib *c)
{
	pdb_buf_u16(out, c->section);
	pdb_buf_u16(out, 0);
	pdb_buf_u32(out, c->offset);
	pdb_buf_u32(out, c->size);
	pdb_buf_u32(out, c->characteristics);
	pdb_buf_u16(out, c->module);
	pdb_buf_u16(out, 0);
	pdb_buf_u32(out, 0);			/* data CRC */
	pdb_buf_u32(out, 0);			/* relocation CRC */
}

/*
 * A module list entry: u32 unused, the module's first section
 * contribution, u16 flags, u16 stream, u32 symbol bytes, u32 C11 and C13
 * line bytes, u16 source files, u16 pad, u32 unused, two u32 name
 * indices, then module and object names, padded to 4 bytes.
 */
static void put_module_info(struct pdb_buf *out, const struct pdb_model *m, size_t i)
{
	const struct pdb_module *mod = &m->modules[i];
	struct pdb_contrib none = { .section = 0xffff, .module = (uint16_t)i };

	pdb_buf_u32(out, 0);
	put_contrib(out, mod->ncontribs ? &m->contribs[mod->first_contrib] : &none);
	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, (uint16_t)(PDB_STREAM_MODULES + i));
	pdb_buf_u32(out, mod->symbols_size);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, 0);
	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, 0);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, 0);
	pdb_module_name(out, m->img, i);
	pdb_module_name(out, m->img, i);
	pdb_buf_align(out, 4);
}

static uint16_t segment_flags(uint32_t characteristics)
{
	uint16_t flags = SEG_ADDRESS_32BIT | SEG_SELECTOR;

	if (characteristics & PDB_SCN_MEM_READ)
		flags |= SEG_READ;
	if (characteristics & PDB_SCN_MEM_WRITE)
		flags |= SEG_WRITE;
	if (characteristics & PDB_SCN_MEM_EXECUTE)
		flags |= SEG_EXECUTE;
	return flags;
}

/* One 20-byte section map descriptor. */
static void put_segment(struct pdb_buf *out, uint16_t flags, uint16_t frame,
			uint32_t length)
{
	pdb_buf_u16(out, flags);
	pdb_buf_u16(out, 0);			/* overlay */
	pdb_buf_u16(out, 0);			/* group */
	pdb_buf_u16(out, frame);		/* the section's number */
	pdb_buf_u16(out, 0xffff);		/* no segment name */
	pdb_buf_u16(out, 0xffff);		/* no class name */
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, length);
}

/*
 * The section map: one descriptor per section, then the one linkers add
 * for absolute symbols; the count twice (all and logical).
 */
static void put_section_map(struct pdb_buf *out, const struct pdb_image *img)
{
	uint16_t count = (uint16_t)(img->nsections + 1);

	pdb_buf_u16(out, count);
	pdb_buf_u16(out, count);
	for (size_t i = 0; i < img->nsections; i++)
		put_segment(out, segment_flags(img->sections[i].characteristics),
			    (uint16_t)(i + 1), img->sections[i].size);
	put_segment(out, SEG_ADDRESS_32BIT | SEG_ABSOLUTE, count, 0xffffffffu);
}

void pdb_build_dbi(const struct pdb_model *m, struct pdb_buf *out)
{
	size_t sizes = 0, start;

	pdb_buf_u32(out, 0xffffffffu);		/* version signature -1 */
	pdb_buf_u32(out, DBI_VERSION_V70);
	pdb_buf_u32(out, m->img->age);
	pdb_buf_u16(out, PDB_STREAM_GLOBALS);
	pdb_buf_u16(out, DBI_BUILD_NUMBER);
	pdb_buf_u16(out, PDB_STREAM_PUBLICS);
	pdb_buf_u16(out, 0);			/* mspdb DLL version */
	pdb_buf_u16(out, PDB_STREAM_SYMBOLS);
	pdb_buf_u16(out, 0);			/* mspdb DLL build */
	sizes = out->len;
	pdb_buf_zero(out, 5 * 4);		/* substream sizes, below */
	pdb_buf_u32(out, NO_STREAM);		/* no MFC type server */
	pdb_buf_zero(out, 2 * 4);		/* debug header and EC sizes, below */
	pdb_buf_u16(out, 0);			/* flags: not incremental, not stripped */
	pdb_buf_u16(out, MACHINE_AMD64);
	pdb_buf_u32(out, 0);

	start = out->len;
	for (size_t i = 0; i < m->nmodules; i++)
		put_module_info(out, m, i);
	pdb_buf_set_u32(out, sizes, (uint32_t)(out->len - start));

	start = out->len;
	pdb_buf_u32(out, DBI_SEC_CONTRIB_V60);
	for (size_t i = 0; i < m->ncontribs; i++)
		put_contrib(out, &m->contribs[i]);
	pdb_buf_set_u32(out, sizes + 4, (uint32_t)(out->len - start));

	start = out->len;
	put_section_map(out, m->img);
	pdb_buf_set_u32(out, sizes + 8, (uint32_t)(out->len - start));

	/*
	 * file info: u16 module count, u16 file count (none), per module its
	 * first file's index and its file count (all 0), padded to 4 bytes
	 */
	start = out->len;
	pdb_buf_u16(out, (uint16_t)m->nmodules);
	pdb_buf_u16(out, 0);
	pdb_buf_zero(out, 2 * 2 * m->nmodules);
	pdb_buf_align(out, 4);
	pdb_buf_set_u32(out, sizes + 12, (uint32_t)(out->len - start));
	/* (type server map: empty, size 0) */

	start = out->len;
	pdb_build_names(out);			/* EC names: an empty string table */
	pdb_buf_set_u32(out, sizes + 28, (uint32_t)(out->len - start));

	start = out->len;
	for (int i = 0; i < DBG_HEADER_ENTRIES; i++)
		pdb_buf_u16(out, i == DBG_SECTION_HEADERS ?
			    PDB_STREAM_SECTION_HEADERS : NO_STREAM);
	pdb_buf_set_u32(out, sizes + 24, (uint32_t)(out->len - start));
}

/* 40-byte IMAGE_SECTION_HEADERs; the name cut to its 8 bytes. */
void pdb_build_section_headers(const struct pdb_image *img, struct pdb_buf *out)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const struct pdb_section *s = &img->sections[i];
		char name[8] = { 0 };

		if (s->name)
			memcpy(name, s->name, strnlen(s->name, sizeof(name)));
		pdb_buf_put(out, name, sizeof(name));
		pdb_buf_u32(out, s->size);		/* virtual size */
		pdb_buf_u32(out, s->rva);
		pdb_buf_u32(out, 0);			/* no raw data: */
		pdb_buf_u32(out, 0);			/* the PDB describes, holds no code */
		pdb_buf_zero(out, 4 + 4 + 2 + 2);	/* relocations, line numbers */
		pdb_buf_u32(out, s->characteristics);
	}
}
