// SPDX-License-Identifier: GPL-2.0
/*
 * A table as a PDB's sections and functions (RVAs from the image base),
 * for pdb_write(). See sym.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

void sym_pdb_free(struct sym_pdb *p)
{
	free(p->sections);
	free(p->functions);
	memset(p, 0, sizeof(*p));
}

/* the section holding rva, or -1 (sections ascend, few: a scan) */
static long section_of(const struct sym_pdb *p, uint64_t rva)
{
	for (size_t i = 0; i < p->nsections; i++)
		if (rva >= p->sections[i].rva && rva - p->sections[i].rva < p->sections[i].size)
			return (long)i;
	return -1;
}

int sym_pdb_build(const struct sym_table *t, uint64_t image_size, struct sym_pdb *p,
		  char *err, size_t err_size)
{
	size_t nsec = t->nsegs ? t->nsegs : 1;

	memset(p, 0, sizeof(*p));
	p->sections = calloc(nsec, sizeof(*p->sections));
	p->functions = calloc(t->nfuncs ? t->nfuncs : 1, sizeof(*p->functions));
	if (!p->sections || !p->functions) {
		sym_pdb_free(p);
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	if (!t->nsegs) {
		/*
		 * The kernel and its modules: the image the trace gives is a
		 * page (NTKL_IMAGE_HEADER_SIZE) and then their text.
		 */
		if (image_size <= NTKL_IMAGE_HEADER_SIZE || image_size > UINT32_MAX) {
			sym_pdb_free(p);
			snprintf(err, err_size, "an image of size %#llx cannot be described in a PDB",
				 (unsigned long long)image_size);
			return -1;
		}
		p->sections[0] = (struct pdb_section){ ".text", NTKL_IMAGE_HEADER_SIZE,
			(uint32_t)(image_size - NTKL_IMAGE_HEADER_SIZE), PDB_SCN_TEXT };
		p->nsections = 1;
	}
	for (size_t i = 0; i < t->nsegs; i++) {
		uint64_t rva = t->segs[i].addr - t->base, size = t->segs[i].size;

		if (t->segs[i].addr < t->base || rva > UINT32_MAX || size > UINT32_MAX - rva) {
			sym_pdb_free(p);
			snprintf(err, err_size, "a segment at %#llx lies outside 4 GiB of the image base %#llx",
				 (unsigned long long)t->segs[i].addr, (unsigned long long)t->base);
			return -1;
		}
		/* the next segment may share this one's last page: never overlap */
		if (p->nsections && rva < (uint64_t)p->sections[p->nsections - 1].rva +
					 p->sections[p->nsections - 1].size)
			continue;
		p->sections[p->nsections++] = (struct pdb_section){
			".text", (uint32_t)rva, (uint32_t)size, PDB_SCN_TEXT };
	}
	for (size_t i = 0; i < t->nfuncs; i++) {
		const struct sym_func *f = &t->funcs[i];
		uint64_t rva = f->addr - t->base, size = f->size, end;
		long s = f->addr >= t->base ? section_of(p, rva) : -1;

		if (s < 0) {
			p->outside++;
			continue;
		}
		end = (uint64_t)p->sections[s].rva + p->sections[s].size;
		if (size > end - rva)
			size = end - rva;
		p->functions[p->nfunctions++] = (struct pdb_function){
			.name = f->name, .rva = (uint32_t)rva, .size = (uint32_t)size };
	}
	return 0;
}
