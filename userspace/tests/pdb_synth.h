/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic images for the PDB writer's tests (test_pdb.c, and pdb_gen.c
 * for scripts/test_pdb): deterministic sections and functions with gaps,
 * touching and aliased functions, a size-0 label, mangled, mixed-case,
 * UTF-8 and long names, and the addresses (gaps) no function holds.
 */
#ifndef NTKL_PDB_SYNTH_H
#define NTKL_PDB_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb.h"

struct synth_image {
	struct pdb_image img;
	struct pdb_section sections[4];
	struct pdb_function *fns;
	size_t cap;
	uint32_t *gaps;			/* RVAs inside a section, in no function */
	size_t ngaps, gap_cap;
};

__attribute__((unused))
static void synth_free(struct synth_image *s)
{
	for (size_t i = 0; i < s->img.nfunctions; i++)
		free((char *)s->fns[i].name);
	free(s->fns);
	free(s->gaps);
	memset(s, 0, sizeof(*s));
}

/* Exits on no memory: a test cannot go on without its image. */
static void *synth_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p) {
		fprintf(stderr, "pdb_synth: out of memory\n");
		exit(2);
	}
	return p;
}

static void synth_fn(struct synth_image *s, const char *name, uint32_t rva, uint32_t size)
{
	size_t n = s->img.nfunctions;
	char *copy = strdup(name);

	if (!copy) {
		fprintf(stderr, "pdb_synth: out of memory\n");
		exit(2);
	}
	s->fns = synth_grow(s->fns, &s->cap, n + 1, sizeof(*s->fns));
	s->fns[n] = (struct pdb_function){ copy, rva, size };
	s->img.functions = s->fns;
	s->img.nfunctions = n + 1;
}

static void synth_gap(struct synth_image *s, uint32_t rva)
{
	s->gaps = synth_grow(s->gaps, &s->gap_cap, s->ngaps + 1, sizeof(*s->gaps));
	s->gaps[s->ngaps++] = rva;
}

/* A gap [from, to): its first and last byte. */
static void synth_gap_range(struct synth_image *s, uint32_t from, uint32_t to)
{
	if (to <= from)
		return;
	synth_gap(s, from);
	if (to - 1 != from)
		synth_gap(s, to - 1);
}

static void synth_init(struct synth_image *s, const char *pdb_name, uint8_t seed,
		       uint32_t age)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 16; i++)
		s->img.guid[i] = (uint8_t)(seed + i * 17);
	s->img.age = age;
	s->img.signature = 0x5f000000u + seed;
	s->img.pdb_name = pdb_name;
	s->img.sections = s->sections;
}

static void synth_section(struct synth_image *s, const char *name, uint32_t rva,
			  uint32_t size, uint32_t characteristics)
{
	s->sections[s->img.nsections++] =
		(struct pdb_section){ name, rva, size, characteristics };
}

/*
 * Three sections: .text with 60 functions of varied sizes and gaps (some
 * touching), an alias and a size-0 label; .init.text filled edge to edge;
 * .data with no function.
 */
__attribute__((unused))
static void synth_multi(struct synth_image *s)
{
	char name[3200];
	uint32_t cursor = 0x1040, text_end = 0x9000, init = 0x9000;
	static const uint32_t init_sizes[] = { 0x100, 0x80, 0x300, 0x180 };

	synth_init(s, "multi.pdb", 0x21, 1);
	synth_section(s, ".text", 0x1000, text_end - 0x1000, PDB_SCN_TEXT);
	synth_section(s, ".init.te", 0x9000, 0x1000, PDB_SCN_TEXT);
	synth_section(s, ".data", 0xa000, 0x2000, PDB_SCN_CNT_INITIALIZED_DATA |
		      PDB_SCN_MEM_READ | PDB_SCN_MEM_WRITE);
	synth_gap_range(s, 0x1000, cursor);
	for (int i = 0; i < 60; i++) {
		uint32_t size = 0x10 + (uint32_t)(i * 37) % 0x90;
		uint32_t gap = i % 4 == 0 ? 0 : i % 4 == 1 ? 0x10 : 3 + (uint32_t)i;

		switch (i) {
		case 0: snprintf(name, sizeof(name), "_ZN4core3fmt9Formatter3padEPKcm"); break;
		case 1: snprintf(name, sizeof(name), "?Process@Worker@@QEAAXPEAX@Z"); break;
		case 2: snprintf(name, sizeof(name), "Foo"); break;
		case 3: snprintf(name, sizeof(name), "foo"); break;
		case 4: snprintf(name, sizeof(name), "FOO"); break;
		case 5:
			memset(name, 'x', 3000);
			memcpy(name, "_ZN4long", 8);
			name[3000] = '\0';
			break;
		case 6: snprintf(name, sizeof(name), "f\xc3\xa9t\xc3\xa9_utf8"); break;
		default: snprintf(name, sizeof(name), "fn_%02d", i); break;
		}
		synth_fn(s, name, cursor, size);
		if (i == 10)
			synth_fn(s, "alias_of_fn_10", cursor, size);
		if (i == 13)
			synth_fn(s, "label_no_size", cursor + size, 0);
		synth_gap_range(s, cursor + size, cursor + size + gap);
		cursor += size + gap;
	}
	synth_gap_range(s, cursor, text_end);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "init_fn_%d", i);
		synth_fn(s, name, init, init_sizes[i]);
		init += init_sizes[i];
	}
	synth_fn(s, "init_last_to_the_end", init, 0xa000 - init);
	synth_gap(s, 0xa000);
	synth_gap(s, 0xbfff);
}

/* One section, no function. */
__attribute__((unused))
static void synth_empty(struct synth_image *s)
{
	synth_init(s, "empty.pdb", 0x42, 0x1f);
	synth_section(s, ".text", 0x1000, 0x1000, PDB_SCN_TEXT);
	synth_gap(s, 0x1000);
	synth_gap(s, 0x1800);
}

/* n functions in one .text, like a kernel's: sizes 16..715, gaps 0..47. */
__attribute__((unused))
static void synth_big(struct synth_image *s, size_t n)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	uint32_t cursor = 0x1000;
	char name[64];

	synth_init(s, "big.pdb", 0x63, 3);
	for (size_t i = 0; i < n; i++) {
		uint32_t size, gap;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		size = 16 + (uint32_t)(state % 700);
		gap = (state >> 32) % 4 == 0 ? 0 : (uint32_t)(state >> 40) % 48;
		snprintf(name, sizeof(name), "%s_%06zu",
			 i % 3 == 0 ? "ksys_call" : i % 3 == 1 ? "__do_work" : "Big_Fn", i);
		synth_fn(s, name, cursor, size);
		if (gap)
			synth_gap(s, cursor + size);	/* the first byte past it */
		cursor += size + gap;
	}
	synth_gap_range(s, cursor, cursor + 0x100);
	synth_section(s, ".text", 0x1000, cursor + 0x100 - 0x1000, PDB_SCN_TEXT);
}

/* names of 3000 bytes: a file past 4096 blocks, whose FPM blocks repeat */
__attribute__((unused))
static void synth_wide(struct synth_image *s)
{
	char name[3100];
	uint32_t cursor = 0x1000;

	synth_init(s, "wide.pdb", 0x77, 2);
	memset(name, 'w', sizeof(name));
	for (int i = 0; i < 6000; i++) {
		snprintf(name + 3000, 100, "_%d", i);
		synth_fn(s, name, cursor, 0x40);
		if (i % 2)
			synth_gap(s, cursor + 0x40);
		cursor += 0x40 + (i % 2) * 0x10;
	}
	synth_section(s, ".text", 0x1000, cursor - 0x1000, PDB_SCN_TEXT);
}

/*
 * 900 functions with no gap between them, as kallsyms sizes the kernel's
 * (to the next symbol), some of 1 or 2 bytes and some aliased: modules
 * are cut where functions touch (pdb_module.c), and every byte must still
 * resolve to its function.
 */
__attribute__((unused))
static void synth_touching(struct synth_image *s)
{
	uint32_t cursor = 0x1000;
	char name[64];

	synth_init(s, "touching.pdb", 0x2b, 1);
	for (int i = 0; i < 900; i++) {
		uint32_t size = i % 7 == 3 ? 1u + (uint32_t)i % 2 : 0x10 + (uint32_t)(i * 37) % 0x60;

		snprintf(name, sizeof(name), "touch_%03d", i);
		synth_fn(s, name, cursor, size);
		if (i % 50 == 10) {
			snprintf(name, sizeof(name), "alias_%03d", i);
			synth_fn(s, name, cursor, size);
		}
		cursor += size;
	}
	synth_gap_range(s, cursor, cursor + 0x10);
	synth_section(s, ".text", 0x1000, cursor + 0x10 - 0x1000, PDB_SCN_TEXT);
}

#endif /* NTKL_PDB_SYNTH_H */
