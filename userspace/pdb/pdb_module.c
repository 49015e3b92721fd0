// SPDX-License-Identifier: GPL-2.0
/*
 * Function lengths. An S_PUB32 has an address but no length, so a reader
 * that knows only publics names any address after a function with that
 * function, up to the next one: the padding between functions and code
 * ELF gives no symbol to would all be misnamed. Readers that find a
 * function by address (LLVM's native reader, DIA) look first for the
 * module whose section contribution holds the address, then in that
 * module's stream for the S_GPROC32 whose [offset, offset + length)
 * holds it. So the PDB gets modules as a linker's PDB has one per object
 * file, each holding a run of functions adjacent in address order:
 *
 *	- section contributions: the ranges of each section that functions
 *	  cover (touching or overlapping functions merged into one range),
 *	  nothing for the gaps;
 *	- a module's stream: an S_GPROC32 (with the ELF size as its length)
 *	  and S_END per function of known size, in address order, after
 *	  the S_OBJNAME and S_COMPILE3 every module of a linker's PDB has;
 *	- in the globals, an S_PROCREF to each S_GPROC32 (pdb_symbols.c),
 *	  as linkers index them by name.
 *
 * An address in a gap is then in no contribution and no function, and
 * resolves to nothing; the publics stay for the tools that read only
 * those. A module holds PDB_MODULE_FUNCTIONS functions or a few more
 * (it ends at a gap, so no contribution spans two modules): the reader
 * scans one module's records per lookup, not the whole image's.
 *
 * Where functions touch for long (the kernel's, sized to the next symbol
 * by kallsyms, have no gaps at all), a module is cut anyway after twice
 * as many: its contribution then ends one byte short of the next one's
 * start, since LLVM's reader counts a contribution's end byte as its own
 * and two that touch would overlap. That last byte is then in no
 * contribution: LLVM's reader looks it up in the next module, which
 * repeats the S_GPROC32 of the functions holding it (the globals point
 * to the first copy); a reader that looks in no module finds the same
 * name among the publics. Facts
 * from LLVM's docs/PDB/ModiStream.rst, DbiStream.rst and
 * CodeViewSymbols.rst.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pdb/pdb_streams.h"

#define S_END			0x0006u
#define S_OBJNAME		0x1101u
#define S_GPROC32		0x1110u
#define S_COMPILE3		0x113cu
#define CV_SIGNATURE_C13	4u	/* a module stream's first word */
#define CV_CFL_C		0x00u	/* S_COMPILE3's language */
#define CV_CFL_X64		0x00d0u	/* S_COMPILE3's machine */

void pdb_module_name(struct pdb_buf *out, const struct pdb_image *img, size_t module)
{
	size_t len = strlen(img->pdb_name);
	char number[24];

	if (len > 4 && !strcasecmp(img->pdb_name + len - 4, ".pdb"))
		len -= 4;
	pdb_buf_put(out, img->pdb_name, len);
	snprintf(number, sizeof(number), "#%zu", module + 1);
	pdb_buf_str(out, number);
}

static uint64_t contrib_end(const struct pdb_contrib *c)
{
	return (uint64_t)c->offset + c->size;
}

/* A new contribution for f, in the last module. */
static void add_contrib(const struct pdb_model *m, const struct pdb_fn *f,
			struct pdb_contrib *c, size_t *nc, struct pdb_module *mod, size_t nm)
{
	c[(*nc)++] = (struct pdb_contrib){
		.section = f->section,
		.module = (uint16_t)(nm - 1),
		.offset = f->offset,
		.size = f->size,
		.characteristics = m->img->sections[f->section - 1].characteristics,
	};
	mod[nm - 1].ncontribs++;
}

int pdb_build_modules(struct pdb_model *m)
{
	size_t n = m->nfns ? m->nfns : 1;
	struct pdb_contrib *c = malloc(n * sizeof(*c));
	struct pdb_module *mod = calloc(n, sizeof(*mod));
	size_t nc = 0, nm = 1;

	if (!c || !mod) {
		free(c);
		free(mod);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nfns; i++) {
		const struct pdb_fn *f = &m->fns[i];
		struct pdb_contrib *last = nc ? &c[nc - 1] : NULL;
		uint64_t end = (uint64_t)f->offset + f->size;
		bool touches = f->size && last && last->section == f->section &&
			       f->offset <= contrib_end(last);

		if (touches && f->offset == contrib_end(last) && last->size > 1 &&
		    mod[nm - 1].nfns >= 2 * PDB_MODULE_FUNCTIONS) {
			/* touching for long: cut here (see above) */
			uint32_t lost = f->offset - 1;
			size_t j = i;

			last->size--;
			while (j > mod[nm - 1].first_fn && m->fns[j - 1].section == f->section &&
			       m->fns[j - 1].offset + (uint64_t)m->fns[j - 1].size > lost)
				j--;
			mod[nm] = (struct pdb_module){ .first_fn = i, .first_contrib = nc,
						       .carry_first = j, .ncarry = i - j };
			nm++;
			add_contrib(m, f, c, &nc, mod, nm);
		} else if (touches) {
			/*
			 * Merged: LLVM's reader takes a contribution's end as
			 * part of it, so two that touch would overlap there
			 * and it would drop the second.
			 */
			if (end > contrib_end(last))
				last->size = (uint32_t)(end - last->offset);
		} else if (f->size) {
			/* a gap before f: the module may end here */
			if (mod[nm - 1].nfns >= PDB_MODULE_FUNCTIONS) {
				mod[nm] = (struct pdb_module){ .first_fn = i, .first_contrib = nc };
				nm++;
			}
			add_contrib(m, f, c, &nc, mod, nm);
		}
		m->fns[i].module = (uint16_t)(nm - 1);
		mod[nm - 1].nfns++;
	}
	m->contribs = c;
	m->ncontribs = nc;
	m->modules = mod;
	m->nmodules = nm;
	return 0;
}

/*
 * An S_GPROC32: u16 length, u16 kind, u32 parent, u32 end (the offset
 * of its S_END in this stream), u32 next, u32 code size, u32 debug start
 * and end (the prologue's end, the epilogue's start: 0), u32 type (none), u32 offset, u16 section, u8 flags, the
 * name with its NUL, zeros up to 4 bytes. Then the 4-byte S_END.
 */
static void put_procedure(struct pdb_buf *out, struct pdb_fn *f, bool repeated)
{
	size_t start = out->len, end_field;

	if (!repeated)
		f->proc_offset = (uint32_t)start;
	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, S_GPROC32);
	pdb_buf_u32(out, 0);
	end_field = out->len;
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, f->size);
	pdb_buf_u32(out, 0);			/* no prologue or epilogue known */
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, 0);
	pdb_buf_u32(out, f->offset);
	pdb_buf_u16(out, f->section);
	pdb_buf_u8(out, 0);
	pdb_buf_put(out, f->name, f->name_len);
	pdb_buf_u8(out, 0);
	pdb_buf_align(out, 4);
	pdb_buf_set_u16(out, start, (uint16_t)(out->len - start - 2));
	pdb_buf_set_u32(out, end_field, (uint32_t)out->len);
	pdb_buf_u16(out, 2);
	pdb_buf_u16(out, S_END);
}

/*
 * What opens every module of a linker's PDB: S_OBJNAME (u32 signature,
 * the object's name) and S_COMPILE3 (u32 flags with the language, u16
 * machine, u16 x 4 front-end and x 4 back-end versions, the compiler).
 */
static void put_module_header(struct pdb_buf *out, const struct pdb_image *img,
			      size_t module)
{
	size_t start = out->len;

	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, S_OBJNAME);
	pdb_buf_u32(out, 0);
	pdb_module_name(out, img, module);
	pdb_buf_align(out, 4);
	pdb_buf_set_u16(out, start, (uint16_t)(out->len - start - 2));

	start = out->len;
	pdb_buf_u16(out, 0);
	pdb_buf_u16(out, S_COMPILE3);
	pdb_buf_u32(out, CV_CFL_C);
	pdb_buf_u16(out, CV_CFL_X64);
	pdb_buf_zero(out, 8 * 2);
	pdb_buf_str(out, "ntkl");
	pdb_buf_align(out, 4);
	pdb_buf_set_u16(out, start, (uint16_t)(out->len - start - 2));
}

/*
 * A module's stream: the C13 signature, the symbols, no C11 or C13 line
 * information, and an empty list of global references (its u32 size).
 */
void pdb_build_module_stream(struct pdb_model *m, size_t module, struct pdb_buf *out)
{
	struct pdb_module *mod = &m->modules[module];

	pdb_buf_u32(out, CV_SIGNATURE_C13);
	put_module_header(out, m->img, module);
	for (size_t i = mod->carry_first; i < mod->carry_first + mod->ncarry; i++)
		if (m->fns[i].size)
			put_procedure(out, &m->fns[i], true);
	for (size_t i = mod->first_fn; i < mod->first_fn + mod->nfns; i++)
		if (m->fns[i].size)
			put_procedure(out, &m->fns[i], false);
	mod->symbols_size = (uint32_t)out->len;
	pdb_buf_u32(out, 0);
}
