/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program database (PDB) files for Linux images, so that WPA, xperf,
 * PerfView and TraceProcessor name the frames of ntkl's stacks.
 *
 * A trace names each image's PDB by GUID, age and file name (its
 * DbgID_RSDS record); the tools look for
 *
 *	DIR/<name>.pdb/<GUID><age>/<name>.pdb
 *
 * under a symbol path "srv*DIR" (or _NT_SYMBOL_PATH) with no server.
 * pdb_store_path() makes that path and its folders, pdb_write() the file:
 * a publics PDB in the shape of Microsoft's public PDBs plus one module
 * that gives every function its length (docs/pdb.md says why).
 *
 * Addresses are RVAs (address - image base) and each function must lie
 * inside one of the image's sections. The caller chooses the sections;
 * Windows images start their first section at RVA 0x1000, and keeping
 * that shape (the image base moved down to match) is what DIA expects.
 */
#ifndef NTKL_PDB_H
#define NTKL_PDB_H

#include <stddef.h>
#include <stdint.h>

/* IMAGE_SCN_* section characteristics (PE/COFF) */
#define PDB_SCN_CNT_CODE		0x00000020u
#define PDB_SCN_CNT_INITIALIZED_DATA	0x00000040u
#define PDB_SCN_MEM_EXECUTE		0x20000000u
#define PDB_SCN_MEM_READ		0x40000000u
#define PDB_SCN_MEM_WRITE		0x80000000u
/* what a linker gives .text */
#define PDB_SCN_TEXT	(PDB_SCN_CNT_CODE | PDB_SCN_MEM_EXECUTE | PDB_SCN_MEM_READ)

/* The longest function name a symbol record holds (a record is <= 64 KiB). */
#define PDB_NAME_MAX	60000

struct pdb_section {
	const char *name;		/* e.g. ".text"; 8 bytes are kept */
	uint32_t rva;			/* sections ascend and do not overlap */
	uint32_t size;			/* > 0 */
	uint32_t characteristics;	/* PDB_SCN_* */
};

struct pdb_function {
	const char *name;		/* as the tools show it (mangled or not) */
	uint32_t rva;
	uint32_t size;			/* 0: unknown (a public name only) */
};

struct pdb_image {
	uint8_t guid[16];		/* Windows byte order, as in RSDS records */
	uint32_t age;
	uint32_t signature;		/* a time stamp; the tools match GUID and age */
	const char *pdb_name;		/* "vmlinux.pdb": names the module inside */
	const struct pdb_section *sections;
	size_t nsections;		/* 1 .. PDB_MAX_SECTIONS */
	const struct pdb_function *functions;	/* any order; names may repeat */
	size_t nfunctions;
};

#define PDB_MAX_SECTIONS	0xfff0

/*
 * Write img's PDB to path, atomically (a temporary file in the same
 * folder, renamed over path once complete). 0, or -errno with a one-line
 * reason in err: -EINVAL for an image that breaks the rules above.
 */
int pdb_write(const char *path, const struct pdb_image *img,
	      char *err, size_t err_size);

/*
 * The symbol store's path of a PDB: dir/<pdb_name>/<GUID as 32 upper-case
 * hex digits><age in upper-case hex>/<pdb_name>, in out, with its folders
 * made. 0, or -errno with a reason in err (-EINVAL: a pdb_name with '/',
 * -ENAMETOOLONG: out too small).
 */
int pdb_store_path(const char *dir, const char *pdb_name,
		   const uint8_t guid[16], uint32_t age,
		   char *out, size_t out_size, char *err, size_t err_size);

/* The store's folder name for guid and age (33..41 bytes with the NUL). */
void pdb_store_id(const uint8_t guid[16], uint32_t age, char out[48]);

#endif /* NTKL_PDB_H */
