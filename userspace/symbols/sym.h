/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions of a Linux image, for the PDB that names them in WPA
 * (docs/symbols.md): a user ELF file's symbol table (or its debug file's,
 * found by build-id), the kernel's and its modules' from /proc/kallsyms
 * (or the kernel's debug vmlinux), the vDSO's from this process's own
 * copy; and the build-ids that identify them.
 *
 * A table holds addresses as the image itself places them (ELF virtual
 * addresses, kernel addresses now) and the address (base) that stands
 * for the trace's ImageBase, so RVA = address - base whatever the image's
 * load address was when it was traced. sym_pdb_build() turns a table into
 * the sections and functions pdb_write() takes.
 *
 * Nothing here prints: errors come back as -1 (or -errno) with one line
 * in err that says what is wrong and what to do.
 */
#ifndef NTKL_SYM_H
#define NTKL_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdb/pdb.h"
#include "uapi/ntkl_etw.h"	/* NTKL_IMAGE_HEADER_SIZE */

#define SYM_BUILD_ID_MAX	64
#define SYM_MAX_SEGS		32

struct sym_func {
	uint64_t addr;
	uint64_t size;		/* 0: unknown */
	char *name;		/* demangled when it is a C++ or Rust name */
};

/* an executable PT_LOAD: what becomes a PDB section */
struct sym_seg {
	uint64_t addr, size;
};

struct sym_table {
	struct sym_func *funcs;
	size_t nfuncs, cap;
	struct sym_seg segs[SYM_MAX_SEGS];	/* none: one section of the image's size */
	size_t nsegs;
	uint64_t base;				/* where the trace's ImageBase is */
	uint8_t build_id[SYM_BUILD_ID_MAX];
	size_t build_id_len;			/* 0: the file has none */
	uint64_t text_addr;			/* the symbol _text's address (vmlinux), or 0 */
	bool sizes_estimated;			/* kallsyms: distance to the next symbol */
	char from[4200];				/* where the names came from, for the user */
};

void sym_table_init(struct sym_table *t);
void sym_table_free(struct sym_table *t);
/* Add a function (name demangled and copied). 0, or -1 out of memory. */
int sym_table_add(struct sym_table *t, uint64_t addr, uint64_t size, const char *name);

/*
 * The address-to-name rule of everything that names a trace's addresses
 * (dump --stats' and report's functions, the user stacks' ends, convert
 * --to folded), the functions a PDB of ntkl symbols gives WPA:
 * sym_table_sort() once, then sym_table_find() per address.
 */

/* Sort t's functions by address, functions at one address (aliases) by name. */
void sym_table_sort(struct sym_table *t);

/*
 * The function of t (sorted) that holds addr, an address in the trace's
 * image at image_base: the last one starting at or below it (of aliases,
 * the last by name), if its size reaches addr (size 0, unknown: up to the
 * next); NULL if none does.
 */
const struct sym_func *sym_table_find(const struct sym_table *t, uint64_t image_base,
				      uint64_t addr);

/*
 * A C++ or Rust symbol's readable name (libiberty), in a malloc'd string;
 * NULL when name is not a mangled one.
 */
char *sym_demangle(const char *name);

/*
 * The GNU build-id (NT_GNU_BUILD_ID) in a list of ELF notes, as the kernel
 * shows them (/sys/kernel/notes, /sys/module/M/notes/.note.gnu.build-id)
 * or as a PT_NOTE segment holds them. Its length, or 0 if none.
 */
size_t sym_notes_build_id(const uint8_t *notes, size_t len, uint8_t id[SYM_BUILD_ID_MAX]);

/* The build-id in a notes file (see above): its length, 0 none, -errno unreadable. */
int sym_notes_file_build_id(const char *path, uint8_t id[SYM_BUILD_ID_MAX]);

/* The build-id of an ELF file: its length, 0 none, -1 with err (not ELF, unreadable). */
int sym_elf_build_id(const char *path, uint8_t id[SYM_BUILD_ID_MAX], char *err, size_t err_size);

/*
 * An ELF file's functions (its FUNC symbols, and the symbol at its entry
 * point, which ld.so's and musl's _start leave untyped): its .symtab, else
 * its debug file's, found by build-id as DEBUG_ROOT/.build-id/xx/yyyy.debug
 * (Debian's -dbgsym packages; debug_root NULL: /usr/lib/debug), else its
 * .dynsym (the exported functions only). Its executable PT_LOADs become the segments;
 * base is where its file offset 0 lies (ET_EXEC: its first PT_LOAD's
 * page; PIE and shared objects: the same address before relocation).
 * 0, or -1 with err.
 */
int sym_elf_read(const char *path, const char *debug_root, struct sym_table *t,
		 char *err, size_t err_size);

/* The same for an ELF image in memory (the vDSO); name for messages. */
int sym_elf_read_memory(const void *data, size_t size, const char *name,
			struct sym_table *t, char *err, size_t err_size);

/* /proc/kallsyms, read once: every symbol, the kernel's and each module's. */
struct sym_ksym {
	uint64_t addr;
	char type;		/* nm's letter */
	int mod;		/* index in mods, -1 for the kernel */
	char *name;
};

struct sym_kallsyms {
	struct sym_ksym *v;
	size_t n;
	char **mods;
	size_t nmods;
};

/*
 * Read a kallsyms file (path NULL: /proc/kallsyms). 0, or -1 with err;
 * all-zero addresses (kernel.kptr_restrict hides them) are an error that
 * says to run as root.
 */
int sym_kallsyms_read(const char *path, struct sym_kallsyms *k, char *err, size_t err_size);
void sym_kallsyms_free(struct sym_kallsyms *k);

/*
 * The text symbols (t, T, w, W) of the kernel (module NULL) or of one
 * module, sized as the distance to the next symbol of the same image (any
 * type; the last one 0: unknown). The kernel's base is _text, a module's
 * the page its first function is in (module text starts on a page).
 * 0, or -1 with err (no such module loaded now).
 */
int sym_kallsyms_table(const struct sym_kallsyms *k, const char *module,
		       struct sym_table *t, char *err, size_t err_size);

/* A table's PDB: the arrays pdb_write() takes, pointing into the table. */
struct sym_pdb {
	struct pdb_section *sections;
	size_t nsections;
	struct pdb_function *functions;
	size_t nfunctions;
	size_t outside;			/* functions not in the image's range */
};

/*
 * The sections (each segment, or one ".text" of image_size) and the
 * functions inside them as RVAs from t->base; a function that runs past
 * its section's end is cut there, one outside every section is left out
 * (counted). 0, or -1 with err.
 */
int sym_pdb_build(const struct sym_table *t, uint64_t image_size, struct sym_pdb *p,
		  char *err, size_t err_size);
void sym_pdb_free(struct sym_pdb *p);

#endif /* NTKL_SYM_H */
