/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The streams of the PDBs ntkl writes, their numbers, and the image they
 * describe once placed: every function at a section:offset, sorted by
 * address. Each stream's builder lives in the file of its concern:
 * pdb_info.c (PDB info, names, TPI and IPI), pdb_symbols.c (symbol
 * records, publics, globals), pdb_module.c (the modules' streams and
 * section contributions), pdb_dbi.c (DBI and section headers).
 */
#ifndef NTKL_PDB_STREAMS_H
#define NTKL_PDB_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "pdb/pdb.h"
#include "pdb/pdb_buf.h"

enum pdb_stream {
	PDB_STREAM_OLD_DIRECTORY = 0,	/* fixed numbers 0-4 */
	PDB_STREAM_INFO = 1,
	PDB_STREAM_TPI = 2,
	PDB_STREAM_DBI = 3,
	PDB_STREAM_IPI = 4,
	PDB_STREAM_NAMES,		/* "/names", named in the info stream */
	PDB_STREAM_TPI_HASH,
	PDB_STREAM_IPI_HASH,
	PDB_STREAM_SYMBOLS,		/* symbol records (S_PUB32, S_PROCREF) */
	PDB_STREAM_GLOBALS,		/* globals hash (GSI) of the S_PROCREFs */
	PDB_STREAM_PUBLICS,		/* publics hash and address map (PSI) */
	PDB_STREAM_SECTION_HEADERS,	/* named by the DBI's debug header */
	PDB_STREAM_MODULES,		/* then each module's S_GPROC32 records */
};

/* A function placed in its section (1-based, as symbols number them). */
struct pdb_fn {
	const char *name;
	uint32_t name_len;
	uint16_t section;
	uint32_t offset;
	uint32_t size;
	uint16_t module;		/* 0-based; with a size only: */
	uint32_t proc_offset;		/* its S_GPROC32 in the module's stream */
};

/* A range of a section holding functions: a DBI section contribution. */
struct pdb_contrib {
	uint16_t section;
	uint16_t module;		/* 0-based */
	uint32_t offset;
	uint32_t size;
	uint32_t characteristics;
};

/* A run of functions, adjacent in address order, that one module holds. */
struct pdb_module {
	size_t first_fn, nfns;
	size_t carry_first, ncarry;	/* the previous module's, repeated: pdb_module.c */
	size_t first_contrib, ncontribs;
	uint32_t symbols_size;		/* bytes of its stream's symbols */
};

/*
 * Functions per module (at least: a module ends at a gap): a reader looks
 * for a function by scanning its module's records, so modules are kept
 * short.
 */
#define PDB_MODULE_FUNCTIONS	64

struct pdb_model {
	const struct pdb_image *img;
	struct pdb_fn *fns;		/* by section, offset, then name */
	size_t nfns;
	struct pdb_contrib *contribs;	/* by section and offset, disjoint */
	size_t ncontribs;
	struct pdb_module *modules;	/* at least one */
	size_t nmodules;
};

void pdb_build_info(struct pdb_buf *out, const struct pdb_image *img);
void pdb_build_names(struct pdb_buf *out);
void pdb_build_type_stream(struct pdb_buf *out, uint16_t hash_stream);

int pdb_build_symbols(const struct pdb_model *m, struct pdb_buf *symbols,
		      struct pdb_buf *publics, struct pdb_buf *globals);

int pdb_build_modules(struct pdb_model *m);
void pdb_build_module_stream(struct pdb_model *m, size_t module, struct pdb_buf *out);
/* "vmlinux.pdb"'s modules are "vmlinux#1", "vmlinux#2"... */
void pdb_module_name(struct pdb_buf *out, const struct pdb_image *img, size_t module);

void pdb_build_dbi(const struct pdb_model *m, struct pdb_buf *out);
void pdb_build_section_headers(const struct pdb_image *img, struct pdb_buf *out);

#endif /* NTKL_PDB_STREAMS_H */
