// SPDX-License-Identifier: GPL-2.0
/*
 * The module's CFI compiler (module/unwind/cfi.c, compiled here against
 * tests/kshim/kshim.h) against an independent reading of the same
 * .eh_frame: elfutils' libdw, which debuggers and profilers (perf, eu-stack,
 * systemtap) unwind with.
 *
 * For each ELF file of the machine (libc, the dynamic loader, libm,
 * libstdc++, libcrypto's hand-written assembly, gzip and xz from Debian,
 * busybox, the project's workloads (those of the unwinder's selftest
 * among them) and the ntkl command itself, when they are built),
 * cfi.c compiles the file's .eh_frame into sorted rows, and at every
 * address the test can enumerate cheaply (each of libdw's rows' first and
 * last byte, each of cfi.c's rows' first byte and the bytes on either
 * side, each FDE's ends and thousands of pseudo-random addresses) the row
 * ntkl_cfi_find() gives must say what libdw's frame says:
 *
 *	CFA = rsp/rbp + off            NTKL_CFI_CFA, reg and cfa_off
 *	CFA = *(rbp + off)             NTKL_CFI_CFA_DEREF (a realigned frame)
 *	the PLT's CFA expression       NTKL_CFI_PLT, rsp offset and the push point
 *	an 'S' (signal frame) FDE      NTKL_CFI_SIGNAL
 *	return address undefined       NTKL_CFI_END
 *	rbp saved at CFA + off         bp_off == off (same value/undefined: 0)
 *	outside every FDE              NTKL_CFI_NONE or no row
 *
 * A rule that the rows cannot say (a CFA on another register, a return
 * address that is not below the CFA, rbp kept in another register, an
 * arbitrary expression) must be NTKL_CFI_NONE, so the walk falls back to
 * rbp instead of following a wrong rule; those are counted and must stay
 * rare in libc, the library every walk crosses.
 *
 * The walk runs in the kernel from tables cfi.c made out of files that any
 * user can write, so cfi.c must also never read outside the section: the
 * last cases compile hundreds of truncated, bit-flipped and random copies
 * of libc's .eh_frame, each in an exactly-sized allocation, under ASan and
 * UBSan.
 *
 * NTKL_CFI_FILES="FILE..." compares more files the same way (a binary
 * whose stacks came out wrong, say).
 *
 * Without libdw-dev (scripts/install-deps' full set) the libdw cases SKIP
 * and the mutation cases still run: they read the section with <elf.h>.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef NTKL_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#endif

#include "kshim.h"
#include "test.h"
#include "unwind/cfi.h"

#ifndef NTKL_TEST_BUILD
#define NTKL_TEST_BUILD "build"
#endif

/* x86-64's DWARF register numbers (the psABI's table) */
#define DWREG_RBP	6
#define DWREG_RSP	7
#define DWREG_RA	16

/* One ELF file's .eh_frame, as its section header gives it. */
struct eh_section {
	u8 *file;		/* the whole file */
	size_t file_size;
	u8 *eh;			/* an exactly-sized copy of the section: ASan sees overreads */
	size_t size;
	u64 vaddr;		/* sh_addr */
	unsigned int shndx;
};

/*
 * Find .eh_frame by section header with <elf.h> alone, so the mutation
 * cases need no library. false: not a 64-bit ELF file with the section.
 */
static bool eh_section_read(const char *path, struct eh_section *s)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *strtab;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->file = test_read_file(path, &s->file_size);
	if (!s->file || s->file_size < sizeof(*eh))
		return false;
	eh = (const Elf64_Ehdr *)s->file;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > s->file_size ||
	    (u64)eh->e_shnum * sizeof(*sh) > s->file_size - eh->e_shoff)
		return false;
	sh = (const Elf64_Shdr *)(s->file + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	if (strtab->sh_offset > s->file_size || strtab->sh_size > s->file_size - strtab->sh_offset)
		return false;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name = (const char *)s->file + strtab->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strtab->sh_size ||
		    strnlen(name, strtab->sh_size - sh[i].sh_name) == strtab->sh_size - sh[i].sh_name ||
		    strcmp(name, ".eh_frame") || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (sh[i].sh_offset > s->file_size || sh[i].sh_size > s->file_size - sh[i].sh_offset)
			return false;
		s->eh = test_copy(s->file + sh[i].sh_offset, sh[i].sh_size);
		s->size = sh[i].sh_size;
		s->vaddr = sh[i].sh_addr;
		s->shndx = i;
		return s->eh != NULL;
	}
	return false;
}

static void eh_section_free(struct eh_section *s)
{
	free(s->eh);
	free(s->file);
	memset(s, 0, sizeof(*s));
}

#ifdef NTKL_HAVE_LIBDW

static const char *kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[NTKL_CFI_NONE] = "NONE", [NTKL_CFI_CFA] = "CFA",
		[NTKL_CFI_CFA_DEREF] = "CFA_DEREF", [NTKL_CFI_PLT] = "PLT",
		[NTKL_CFI_SIGNAL] = "SIGNAL", [NTKL_CFI_END] = "END",
	};

	return kind < ARRAY_SIZE(names) && names[kind] ? names[kind] : "?";
}

static void row_text(char *buf, size_t size, const struct ntkl_cfi_row *row)
{
	if (!row)
		snprintf(buf, size, "no row");
	else
		snprintf(buf, size, "row pc 0x%x %s reg %u cfa_off %d bp_off %d", row->pc,
			 kind_name(row->kind), row->reg, row->cfa_off, row->bp_off);
}

/* The rows of one buffer: count pass, fill pass, sort. */
struct compiled {
	long counted, filled;
	struct ntkl_cfi_row *rows;
	size_t n;
	u32 *index;		/* ntkl_cfi_index() of rows: the module's lookup */
	struct ntkl_cfi_stats st;
};

static bool compile_rows(const struct eh_section *s, struct compiled *c, char *why, size_t why_size)
{
	struct ntkl_cfi_row *heap, *scratch;
	struct ntkl_cfi_stats st2 = { 0 };
	size_t i, n_heap;
	bool same;

	memset(c, 0, sizeof(*c));
	c->counted = ntkl_cfi_compile(s->eh, s->size, s->vaddr, NULL, 0, &c->st);
	if (c->counted <= 0) {
		snprintf(why, why_size, "the counting pass returned %ld", c->counted);
		return false;
	}
	c->rows = malloc(c->counted * sizeof(*c->rows));
	if (!c->rows) {
		snprintf(why, why_size, "out of memory");
		return false;
	}
	c->filled = ntkl_cfi_compile(s->eh, s->size, s->vaddr, c->rows, c->counted, &st2);
	if (c->filled != c->counted) {
		snprintf(why, why_size, "the fill pass returned %ld, the counting pass %ld",
			 c->filled, c->counted);
		return false;
	}
	if (memcmp(&st2, &c->st, sizeof(st2))) {
		snprintf(why, why_size, "the passes' stats differ: fdes %u/%u unsupported %u/%u bad %u/%u",
			 c->st.fdes, st2.fdes, c->st.unsupported, st2.unsupported, c->st.bad, st2.bad);
		return false;
	}
	/* the module's merge of runs (with scratch) gives what a heapsort gives */
	heap = malloc(c->filled * sizeof(*heap));
	scratch = malloc(c->filled * sizeof(*scratch));
	if (!heap || !scratch) {
		free(heap);
		free(scratch);
		snprintf(why, why_size, "out of memory");
		return false;
	}
	memcpy(heap, c->rows, c->filled * sizeof(*heap));
	c->n = ntkl_cfi_sort(c->rows, c->filled, scratch);
	n_heap = ntkl_cfi_sort(heap, c->filled, NULL);
	same = n_heap == c->n && !memcmp(heap, c->rows, c->n * sizeof(*heap));
	free(heap);
	free(scratch);
	if (c->n > (size_t)c->filled || !c->n) {
		snprintf(why, why_size, "ntkl_cfi_sort() left %zu of %ld rows", c->n, c->filled);
		return false;
	}
	if (!same) {
		snprintf(why, why_size, "the merge of runs left %zu rows, the heapsort %zu, or others",
			 c->n, n_heap);
		return false;
	}
	/* sorted, one row per pc, and folded: no row repeats the one before */
	for (i = 1; i < c->n; i++) {
		const struct ntkl_cfi_row *a = &c->rows[i - 1], *b = &c->rows[i];

		if (a->pc >= b->pc) {
			snprintf(why, why_size, "rows %zu and %zu are out of order: pc 0x%x, 0x%x",
				 i - 1, i, a->pc, b->pc);
			return false;
		}
		if (a->kind == b->kind && a->reg == b->reg && a->bp_off == b->bp_off &&
		    a->cfa_off == b->cfa_off) {
			snprintf(why, why_size, "rows %zu and %zu (pc 0x%x, 0x%x) say the same: not folded",
				 i - 1, i, a->pc, b->pc);
			return false;
		}
	}
	c->index = malloc(ntkl_cfi_index_size(c->rows, c->n) * sizeof(*c->index));
	if (!c->index) {
		snprintf(why, why_size, "out of memory");
		return false;
	}
	ntkl_cfi_index(c->rows, c->n, c->index);
	return true;
}

/*
 * The module looks rows up by their index: it must find what a binary
 * search of all of them finds, at every address.
 */
static bool index_agrees(const struct ntkl_cfi_row *rows, size_t n, const u32 *index, u64 pc)
{
	return ntkl_cfi_find_indexed(rows, n, index, pc) == ntkl_cfi_find(rows, n, pc);
}

/* A mutation's rows: the index finds what the search finds, about each row. */
static void index_check(const struct ntkl_cfi_row *rows, size_t n, const char *what)
{
	u32 *index = malloc((ntkl_cfi_index_size(rows, n) + 1) * sizeof(*index));
	size_t i;
	int d;

	if (!index)
		return;
	ntkl_cfi_index(rows, n, index);
	for (i = 0; i < n; i++)
		for (d = -1; d <= 1; d++)
			if (!index_agrees(rows, n, index, rows[i].pc + (s64)d)) {
				CHECK_MSG(false, "%s: the index misses row %zu's pc%+d", what, i, d);
				free(index);
				return;
			}
	free(index);
}

/* ---------------------------------------------------------------------- */
/* The truth: libdw's frame at an address, as the row it must compile to   */
/* ---------------------------------------------------------------------- */

enum truth_kind {
	T_NO_FDE,	/* no FDE covers the address: NONE or no row */
	T_ROW,		/* a rule the rows can say: exactly this row */
	T_UNSUPPORTED,	/* a rule the rows cannot say: NONE */
	T_LIBDW_ERROR,	/* libdw could not read the frame: not compared */
	T_NOT_READ,	/* libdw has a frame where the test reads no FDE: the test's fault */
};

struct truth {
	enum truth_kind kind;
	struct ntkl_cfi_row row;	/* T_ROW: kind, reg, cfa_off, bp_off (pc unused) */
	char text[200];			/* libdw's rule in words */
};

__attribute__((format(printf, 2, 3)))
static void truth_say(struct truth *t, const char *fmt, ...)
{
	size_t len = strlen(t->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->text + len, sizeof(t->text) - len, fmt, ap);
	va_end(ap);
}

static const char *dwreg_name(u64 reg)
{
	static const char *const names[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};

	return reg < ARRAY_SIZE(names) ? names[reg] : "r?";
}

/* the CFA ops of libdw's frame as a row's kind, reg and cfa_off; false: the rows cannot say it */
static bool truth_cfa(struct truth *t, const Dwarf_Op *ops, size_t nops)
{
	s64 off;

	/* register + offset: libdw gives DW_OP_bregx reg, offset */
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		off = (s64)ops[0].number2;
		truth_say(t, "CFA %s%+lld", dwreg_name(ops[0].number), (long long)off);
		if ((ops[0].number != DWREG_RSP && ops[0].number != DWREG_RBP) ||
		    off < S32_MIN || off > S32_MAX)
			return false;
		t->row.kind = NTKL_CFI_CFA;
		t->row.reg = ops[0].number == DWREG_RSP ? NTKL_CFI_REG_SP : NTKL_CFI_REG_BP;
		t->row.cfa_off = off;
		return true;
	}
	/* a realigned frame's DW_OP_breg6 N; DW_OP_deref: the CFA was saved at rbp + N */
	if (nops == 2 && ops[0].atom == DW_OP_breg6 && ops[1].atom == DW_OP_deref) {
		off = (s64)ops[0].number;
		truth_say(t, "CFA *(rbp%+lld)", (long long)off);
		if (off < S32_MIN || off > S32_MAX)
			return false;
		t->row.kind = NTKL_CFI_CFA_DEREF;
		t->row.reg = NTKL_CFI_REG_BP;
		t->row.cfa_off = off;
		return true;
	}
	/*
	 * The PLT's rule, as binutils' ld writes it for lazy-binding stubs of
	 * 16 bytes: CFA = rsp + N, plus 8 once (rip & 15) >= P, where the stub
	 * has pushed its relocation index:
	 *	DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and;
	 *	DW_OP_litP; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
	 */
	if (nops == 9 && ops[0].atom == DW_OP_breg7 && ops[1].atom == DW_OP_breg16 &&
	    ops[1].number == 0 && ops[2].atom == DW_OP_lit15 && ops[3].atom == DW_OP_and &&
	    ops[4].atom >= DW_OP_lit0 && ops[4].atom <= DW_OP_lit15 && ops[5].atom == DW_OP_ge &&
	    ops[6].atom == DW_OP_lit3 && ops[7].atom == DW_OP_shl && ops[8].atom == DW_OP_plus) {
		off = (s64)ops[0].number;
		truth_say(t, "CFA rsp%+lld (+8 once rip & 15 >= %d): the PLT", (long long)off,
			  ops[4].atom - DW_OP_lit0);
		if (off < S32_MIN || off > S32_MAX)
			return false;
		t->row.kind = NTKL_CFI_PLT;
		t->row.reg = ops[4].atom - DW_OP_lit0;
		t->row.cfa_off = off;
		return true;
	}
	if (!nops)
		truth_say(t, "CFA undefined");
	else
		truth_say(t, "CFA an expression of %zu ops (the first 0x%x)", nops, ops[0].atom);
	return false;
}

/*
 * A register rule the rows cannot say, in words. libdw gives a
 * DW_CFA_expression rule with the DW_OP_call_frame_cfa that DWARF pushes
 * before it; DW_CFA_register as DW_OP_regx.
 */
static void truth_reg(struct truth *t, int r, const Dwarf_Op *ops, size_t nops)
{
	if (!nops) {
		truth_say(t, "%s", ops ? "undefined" : "unchanged");
		return;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		nops--;
		if (ops[0].atom == DW_OP_plus_uconst) {
			truth_say(t, "%s CFA%+lld", r ? "=" : "at", (long long)(s64)ops[0].number);
			return;
		}
	}
	if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		truth_say(t, "%s %s%+lld", r ? "=" : "at", dwreg_name(ops[0].atom - DW_OP_breg0),
			  (long long)(s64)ops[0].number);
	else if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		truth_say(t, "in %s", dwreg_name(ops[0].atom - DW_OP_reg0));
	else if (nops == 1 && ops[0].atom == DW_OP_regx)
		truth_say(t, "in %s", dwreg_name(ops[0].number));
	else
		truth_say(t, "%s an expression of %zu ops (the first 0x%x)", r ? "=" : "at", nops,
			  ops[0].atom);
}

/* libdw's frame at pc, as the row cfi.c must give */
static void truth_at(Dwarf_CFI *cfi, u64 pc, bool in_fde, struct truth *t)
{
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *fr;
	Dwarf_Addr start, end;
	bool signal = false, ra_ok;
	size_t nops;
	int r;

	memset(t, 0, sizeof(*t));
	if (dwarf_cfi_addrframe(cfi, pc, &fr)) {
		/* outside every FDE: nothing; inside one: libdw could not read it */
		t->kind = in_fde ? T_LIBDW_ERROR : T_NO_FDE;
		truth_say(t, "%s", in_fde ? dwarf_errmsg(-1) : "no FDE");
		return;
	}
	t->kind = T_UNSUPPORTED;
	if (!in_fde) {
		t->kind = T_NOT_READ;
		truth_say(t, "a frame outside the FDEs the test read");
		goto out;
	}
	if (dwarf_frame_info(fr, &start, &end, &signal) < 0) {
		t->kind = T_LIBDW_ERROR;
		truth_say(t, "dwarf_frame_info: %s", dwarf_errmsg(-1));
		goto out;
	}
	if (signal) {
		/* the walk takes the registers from the frame's ucontext */
		t->kind = T_ROW;
		t->row.kind = NTKL_CFI_SIGNAL;
		truth_say(t, "signal frame");
		goto out;
	}

	/* the return address: undefined ends the stack; else it must be at CFA - 8 */
	r = dwarf_frame_register(fr, DWREG_RA, mem, &ops, &nops);
	if (r < 0) {
		t->kind = T_LIBDW_ERROR;
		truth_say(t, "dwarf_frame_register(rip): %s", dwarf_errmsg(-1));
		goto out;
	}
	if (!nops && ops) {
		t->kind = T_ROW;
		t->row.kind = NTKL_CFI_END;
		truth_say(t, "return address undefined");
		goto out;
	}
	ra_ok = r == 0 && nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		ops[1].atom == DW_OP_plus_uconst && (s64)ops[1].number == -8;
	if (!ra_ok) {
		truth_say(t, "return address ");
		truth_reg(t, r, ops, nops);
		truth_say(t, ", ");
	}

	if (dwarf_frame_cfa(fr, &ops, &nops) < 0) {
		t->kind = T_LIBDW_ERROR;
		truth_say(t, "dwarf_frame_cfa: %s", dwarf_errmsg(-1));
		goto out;
	}
	if (!truth_cfa(t, ops, nops) || !ra_ok)
		goto out;

	/* the caller's rbp: unchanged (same value, undefined) or saved at CFA + off */
	r = dwarf_frame_register(fr, DWREG_RBP, mem, &ops, &nops);
	if (r < 0) {
		t->kind = T_LIBDW_ERROR;
		truth_say(t, ", dwarf_frame_register(rbp): %s", dwarf_errmsg(-1));
		goto out;
	}
	if (t->row.kind == NTKL_CFI_CFA_DEREF) {
		/*
		 * A realigned frame: the rows say rbp only as "at rbp + N"
		 * (DW_CFA_expression rbp: DW_OP_breg6 N, which libdw gives
		 * after the DW_OP_call_frame_cfa DWARF pushes first).
		 */
		if (r == 0 && nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		    ops[1].atom == DW_OP_breg6 && (s64)ops[1].number >= S16_MIN &&
		    (s64)ops[1].number <= S16_MAX) {
			truth_say(t, ", rbp at rbp%+lld", (long long)(s64)ops[1].number);
			t->kind = T_ROW;
			t->row.bp_off = (s64)ops[1].number;
		} else {
			truth_say(t, ", rbp ");
			truth_reg(t, r, ops, nops);
		}
	} else if (!nops) {
		truth_say(t, ", rbp %s", ops ? "undefined" : "unchanged");
		t->kind = T_ROW;
		t->row.bp_off = 0;
	} else if (r == 0 && nops <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   (nops == 1 || ops[1].atom == DW_OP_plus_uconst)) {
		s64 off = nops == 2 ? (s64)ops[1].number : 0;

		truth_say(t, ", rbp at CFA%+lld", (long long)off);
		/* 0 would read as "unchanged": no compiler saves rbp over the return address */
		if (off && off >= S16_MIN && off <= S16_MAX) {
			t->kind = T_ROW;
			t->row.bp_off = off;
		}
	} else {
		truth_say(t, ", rbp ");
		truth_reg(t, r, ops, nops);
	}
out:
	free(fr);
}

/* ---------------------------------------------------------------------- */
/* The FDEs, read with libdw's dwarf_next_cfi()                             */
/* ---------------------------------------------------------------------- */

struct fde_range {
	u64 lo, hi;		/* [lo, hi) */
};

/*
 * A pointer of .eh_frame, DW_EH_PE_* encoded (the LSB's "Exception Frame"
 * format), at p, whose own address is at. false: an encoding FDE ranges
 * do not use, or the bytes end.
 */
static bool read_encoded(const u8 **p, const u8 *end, u8 enc, u64 at, u64 *val)
{
	const u8 *q = *p;
	u64 v = 0;
	unsigned int shift = 0, size;
	bool sign = false;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		size = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		size = 2;
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		size = 0;
		break;
	default:
		return false;
	}
	if (size) {
		if ((size_t)(end - q) < size)
			return false;
		for (unsigned int i = 0; i < size; i++)
			v |= (u64)q[i] << (8 * i);
		if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (8 * size - 1)) & 1)
			v |= ~0ULL << (8 * size);
		q += size;
	} else {
		u8 b;

		do {
			if (q >= end || shift > 63)
				return false;
			b = *q++;
			v |= (u64)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		sign = (enc & 0x0f) == DW_EH_PE_sleb128 && (b & 0x40) && shift < 64;
		if (sign)
			v |= ~0ULL << shift;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += at;
		break;
	default:
		return false;
	}
	if (enc & DW_EH_PE_indirect)
		return false;
	*p = q;
	*val = v;
	return true;
}

/* the FDE pointer encoding of the CIE at offset cie_off: its 'R' augmentation */
static bool cie_fde_encoding(const unsigned char *ident, Elf_Data *data, Dwarf_Off cie_off,
			     u8 *enc)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	const char *aug;
	const u8 *p, *end;

	if (dwarf_next_cfi(ident, data, true, cie_off, &next, &e) || !dwarf_cfi_cie_p(&e))
		return false;
	aug = e.cie.augmentation;
	*enc = DW_EH_PE_absptr;
	if (aug[0] != 'z')
		return aug[0] == '\0';
	p = e.cie.augmentation_data;
	end = p + e.cie.augmentation_data_size;
	for (aug++; *aug; aug++) {
		u64 dummy;

		switch (*aug) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p++;
			break;
		case 'L':
			p++;
			break;
		case 'P':
			if (p >= end)
				return false;
			{
				u8 penc = *p++;

				/* the personality routine's pointer: only its size matters */
				if (!read_encoded(&p, end, penc & ~DW_EH_PE_indirect, 0, &dummy))
					return false;
			}
			break;
		case 'S':
		case 'B':
			break;
		default:
			/* an augmentation the test does not know: R may come after it */
			return false;
		}
	}
	return true;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Every FDE of the section with a non-empty range, sorted. Returns the
 * count, or -1 with why.
 */
static long fdes_read(Elf *elf, const struct eh_section *s, struct fde_range **out,
		      char *why, size_t why_size)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Scn *scn = elf_getscn(elf, s->shndx);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	struct fde_range *f = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int r;

	if (!ident || !data || data->d_size != s->size) {
		snprintf(why, why_size, "libelf does not give .eh_frame (section %u)", s->shndx);
		return -1;
	}
	while ((r = dwarf_next_cfi(ident, data, true, off, &next, &e)) != 1) {
		const u8 *p;
		u64 lo, len;
		u8 enc;

		if (r < 0) {
			snprintf(why, why_size, "dwarf_next_cfi at 0x%llx: %s", (unsigned long long)off,
				 dwarf_errmsg(-1));
			free(f);
			return -1;
		}
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (!cie_fde_encoding(ident, data, e.fde.CIE_pointer, &enc)) {
			snprintf(why, why_size, "the CIE at 0x%llx: an augmentation the test cannot read",
				 (unsigned long long)e.fde.CIE_pointer);
			free(f);
			return -1;
		}
		p = e.fde.start;
		if (!read_encoded(&p, e.fde.end, enc,
				  s->vaddr + (p - (const u8 *)data->d_buf), &lo) ||
		    !read_encoded(&p, e.fde.end, enc & 0x0f, 0, &len)) {
			snprintf(why, why_size, "the FDE before 0x%llx: pointer encoding 0x%x",
				 (unsigned long long)next, enc);
			free(f);
			return -1;
		}
		if (!len)
			continue;
		if (n == cap) {
			struct fde_range *g;

			cap = cap ? 2 * cap : 1024;
			g = realloc(f, cap * sizeof(*f));
			if (!g) {
				free(f);
				snprintf(why, why_size, "out of memory");
				return -1;
			}
			f = g;
		}
		f[n].lo = lo;
		f[n].hi = lo + len;
		n++;
	}
	qsort(f, n, sizeof(*f), fde_cmp);
	*out = f;
	return n;
}

/* Is pc inside an FDE? *overlap: inside more than one (libdw and cfi.c may pick either). */
static bool in_fdes(const struct fde_range *f, size_t n, u64 pc, bool *overlap)
{
	size_t lo = 0, hi = n, count = 0;

	/* the last FDE that starts at or before pc, then the ones before it that reach pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		if (pc < f[lo].hi)
			count++;
		/* FDEs are short: one of a few KB ends a look back */
		if (pc - f[lo].lo > (1u << 20))
			break;
	}
	*overlap = count > 1;
	return count > 0;
}

/* ---------------------------------------------------------------------- */
/* One file                                                                 */
/* ---------------------------------------------------------------------- */

#define SAMPLES_IN_FDES		5000
#define SAMPLES_ANYWHERE	500
#define MISMATCHES_SHOWN	5

struct file_run {
	const char *name;
	Dwarf_CFI *cfi;
	const struct compiled *c;
	const struct fde_range *fdes;
	size_t nfdes;

	unsigned long points, mismatches, unsupported, libdw_errors, not_read, overlaps;
	unsigned long index_misses;	/* the index found another row than the search */
	unsigned long sampled, sampled_unsupported;	/* the pseudo-random addresses inside FDEs */
	unsigned long kinds[NTKL_CFI_END + 1];		/* the rows the points found, by kind */
	char first[600];
	/* the unsupported rules by shape (libdw's words without their numbers) */
	struct {
		char shape[100];
		unsigned long count;
	} why[8];
};

/* count an unsupported rule under its shape: "CFA r10+0" and "CFA r10+16" are one */
static void count_unsupported(struct file_run *fr, const char *text)
{
	char shape[100];
	size_t i, n = 0;

	/* a number after a sign or "0x" is an offset or an op: N */
	while (*text && n + 2 < sizeof(shape)) {
		bool hex = text[0] == '0' && text[1] == 'x';
		const char *num = hex ? text + 2 : text + (*text == '+' || *text == '-');

		if (num != text && ((*num >= '0' && *num <= '9') || (hex && isxdigit(*num)))) {
			if (!hex)
				shape[n++] = *text;
			shape[n++] = 'N';
			for (text = num; *text && (hex ? isxdigit(*text) : isdigit(*text)); text++)
				;
			continue;
		}
		shape[n++] = *text++;
	}
	shape[n] = '\0';
	for (i = 0; i < ARRAY_SIZE(fr->why) && fr->why[i].count; i++)
		if (!strcmp(fr->why[i].shape, shape))
			break;
	if (i == ARRAY_SIZE(fr->why))
		i--;	/* the last slot takes the rest */
	if (!fr->why[i].count)
		snprintf(fr->why[i].shape, sizeof(fr->why[i].shape), "%s", shape);
	fr->why[i].count++;
}

static void check_point(struct file_run *fr, u64 pc, bool sampled)
{
	const struct ntkl_cfi_row *row = ntkl_cfi_find_indexed(fr->c->rows, fr->c->n, fr->c->index,
								pc);
	bool overlap, in = in_fdes(fr->fdes, fr->nfdes, pc, &overlap);
	struct truth t;
	bool ok;

	if (!index_agrees(fr->c->rows, fr->c->n, fr->c->index, pc))
		fr->index_misses++;
	if (overlap) {
		fr->overlaps++;
		return;
	}
	truth_at(fr->cfi, pc, in, &t);
	fr->points++;
	if (row && row->kind <= NTKL_CFI_END)
		fr->kinds[row->kind]++;
	switch (t.kind) {
	case T_LIBDW_ERROR:
		fr->libdw_errors++;
		return;
	case T_NOT_READ:
		fr->not_read++;
		return;
	case T_NO_FDE:
		ok = !row || row->kind == NTKL_CFI_NONE;
		break;
	case T_UNSUPPORTED:
		ok = !row || row->kind == NTKL_CFI_NONE;
		if (ok) {
			fr->unsupported++;
			fr->sampled_unsupported += sampled;
			count_unsupported(fr, t.text);
		}
		break;
	case T_ROW:
	default:
		ok = row && row->kind == t.row.kind;
		/* a signal frame's and the stack end's registers are not in the row */
		if (ok && t.row.kind != NTKL_CFI_SIGNAL && t.row.kind != NTKL_CFI_END)
			ok = row->reg == t.row.reg && row->cfa_off == t.row.cfa_off &&
			     row->bp_off == t.row.bp_off;
		break;
	}
	fr->sampled += sampled;
	if (ok)
		return;
	if (fr->mismatches++ < MISMATCHES_SHOWN) {
		char rt[120], line[600];

		row_text(rt, sizeof(rt), row);
		snprintf(line, sizeof(line), "%s pc 0x%llx: libdw: %s%s; cfi.c: %s", fr->name,
			 (unsigned long long)pc, t.text,
			 t.kind == T_UNSUPPORTED ? " (the rows cannot say it: want NONE)" : "", rt);
		printf("#   mismatch: %s\n", line);
		if (!fr->first[0])
			snprintf(fr->first, sizeof(fr->first), "%s", line);
	}
}

/* a fixed seed per file, so a failure reproduces */
static u64 name_seed(const char *name)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (; *name; name++)
		h = (h ^ (u8)*name) * 0x100000001b3ULL;
	return h | 1;
}

static void check_file(const char *case_name, const char *path, bool libc)
{
	struct eh_section s;
	struct compiled c = { 0 };
	struct file_run fr = { .name = case_name };
	struct fde_range *fdes = NULL;
	Elf *elf = NULL;
	u64 rng = name_seed(case_name), total = 0, span_lo, span_hi;
	u64 *prefix = NULL;
	char why[300];
	long nfdes;
	size_t i;

	if (access(path, R_OK)) {
		printf("SKIP: unit %s libdw_%s: %s is not on this machine\n", TEST_FILE, case_name,
		       path);
		fflush(stdout);
		return;
	}
	test_begin("libdw_%s", case_name);
	if (!eh_section_read(path, &s)) {
		test_fail("%s: no .eh_frame section read", path);
		goto out;
	}
	CHECK_MSG(compile_rows(&s, &c, why, sizeof(why)), "%s: %s", path, why);
	if (test_state_.failed)
		goto out;
	CHECK_MSG(c.st.bad == 0, "%s: cfi.c could not read %u CIEs or FDEs of a linker's .eh_frame",
		  path, c.st.bad);

	elf = elf_memory((char *)s.file, s.file_size);
	CHECK_MSG(elf != NULL, "%s: elf_memory: %s", path, elf_errmsg(-1));
	if (!elf)
		goto out;
	fr.cfi = dwarf_getcfi_elf(elf);
	CHECK_MSG(fr.cfi != NULL, "%s: dwarf_getcfi_elf: %s", path, dwarf_errmsg(-1));
	nfdes = fdes_read(elf, &s, &fdes, why, sizeof(why));
	CHECK_MSG(nfdes > 0, "%s: the test's reading of the FDEs: %s", path, why);
	if (!fr.cfi || nfdes <= 0)
		goto out;
	fr.c = &c;
	fr.fdes = fdes;
	fr.nfdes = nfdes;

	/*
	 * The test's own reading first: each FDE's range as dwarf_next_cfi()
	 * and the pointer encoding give it must be where libdw finds a frame
	 * starting, or the comparisons below would stand on sand.
	 */
	for (i = 0; i < fr.nfdes; i++) {
		Dwarf_Frame *f;
		Dwarf_Addr start, end;
		bool overlap;

		in_fdes(fdes, fr.nfdes, fdes[i].lo, &overlap);
		if (overlap)
			continue;
		if (dwarf_cfi_addrframe(fr.cfi, fdes[i].lo, &f) ||
		    (dwarf_frame_info(f, &start, &end, NULL), free(f), start != fdes[i].lo)) {
			test_fail("%s: the test reads an FDE at 0x%llx that libdw does not start there",
				  path, (unsigned long long)fdes[i].lo);
			goto out;
		}
	}

	/* every FDE's ends, and the bytes on either side */
	for (i = 0; i < fr.nfdes; i++) {
		check_point(&fr, fdes[i].lo, false);
		check_point(&fr, fdes[i].lo - 1, false);
		check_point(&fr, fdes[i].hi - 1, false);
		check_point(&fr, fdes[i].hi, false);
	}
	/* every row of libdw: its first and last byte */
	for (i = 0; i < fr.nfdes; i++) {
		u64 pc = fdes[i].lo;

		while (pc < fdes[i].hi) {
			Dwarf_Frame *f;
			Dwarf_Addr start, end;

			if (dwarf_cfi_addrframe(fr.cfi, pc, &f))
				break;
			dwarf_frame_info(f, &start, &end, NULL);
			free(f);
			if (pc != fdes[i].lo)
				check_point(&fr, pc, false);
			if (end > pc + 1 && end <= fdes[i].hi)
				check_point(&fr, end - 1, false);
			if (end <= pc)
				break;
			pc = end;
		}
	}
	/* every row of cfi.c: its first byte and the bytes on either side */
	for (i = 0; i < c.n; i++) {
		check_point(&fr, c.rows[i].pc, false);
		check_point(&fr, c.rows[i].pc - 1ULL, false);
		check_point(&fr, c.rows[i].pc + 1ULL, false);
	}
	/* pseudo-random addresses: inside FDEs, weighted by their size, then anywhere */
	prefix = malloc(fr.nfdes * sizeof(*prefix));
	if (!prefix)
		goto out;
	for (i = 0; i < fr.nfdes; i++) {
		total += fdes[i].hi - fdes[i].lo;
		prefix[i] = total;
	}
	for (i = 0; i < SAMPLES_IN_FDES; i++) {
		u64 r = test_rand(&rng) % total;
		size_t lo = 0, hi = fr.nfdes;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (prefix[mid] <= r)
				lo = mid + 1;
			else
				hi = mid;
		}
		check_point(&fr, fdes[lo].hi - (prefix[lo] - r), true);
	}
	span_lo = fdes[0].lo > 4096 ? fdes[0].lo - 4096 : 0;
	span_hi = fdes[fr.nfdes - 1].hi + 4096;
	for (i = 0; i < fr.nfdes; i++)
		span_hi = max(span_hi, fdes[i].hi + 4096);
	for (i = 0; i < SAMPLES_ANYWHERE; i++)
		check_point(&fr, span_lo + test_rand(&rng) % (span_hi - span_lo), false);

	printf("#   %s: %ld FDEs (cfi.c read %u), %zu rows (%ld compiled), %lu points checked, "
	       "%lu mismatches, %lu unsupported (%lu of %lu sampled), %lu libdw errors, "
	       "%lu in overlapping FDEs; rows found: CFA %lu DEREF %lu PLT %lu SIGNAL %lu END %lu NONE %lu\n",
	       case_name, nfdes, c.st.fdes, c.n, c.filled, fr.points, fr.mismatches, fr.unsupported,
	       fr.sampled_unsupported, fr.sampled, fr.libdw_errors, fr.overlaps,
	       fr.kinds[NTKL_CFI_CFA], fr.kinds[NTKL_CFI_CFA_DEREF], fr.kinds[NTKL_CFI_PLT],
	       fr.kinds[NTKL_CFI_SIGNAL], fr.kinds[NTKL_CFI_END], fr.kinds[NTKL_CFI_NONE]);
	for (i = 0; i < ARRAY_SIZE(fr.why) && fr.why[i].count; i++)
		printf("#     unsupported: %lu points: %s%s\n", fr.why[i].count, fr.why[i].shape,
		       i == ARRAY_SIZE(fr.why) - 1 ? " (and others)" : "");
	fflush(stdout);
	CHECK_MSG(fr.mismatches == 0, "%lu of %lu points differ from libdw; the first: %s",
		  fr.mismatches, fr.points, fr.first);
	CHECK_MSG(fr.index_misses == 0, "%lu of %lu points: the index finds another row than a search",
		  fr.index_misses, fr.points);
	CHECK_MSG(fr.not_read == 0, "%s: libdw finds frames at %lu points outside the FDEs the test read",
		  path, fr.not_read);
	/* libdw reads every FDE a linker wrote */
	CHECK_MSG(fr.libdw_errors == 0, "%s: libdw could not read %lu points' frames", path,
		  fr.libdw_errors);
	/* cfi.c reads each FDE once: zero-length ones may count or not */
	CHECK_MSG(c.st.fdes >= (u32)nfdes, "%s: cfi.c read %u FDEs, the file has %ld with code",
		  path, c.st.fdes, nfdes);
	if (libc)
		CHECK_MSG(fr.sampled_unsupported * 100 < fr.sampled,
			  "%s: %lu of %lu sampled addresses have a rule the rows cannot say (>= 1 %%)",
			  path, fr.sampled_unsupported, fr.sampled);
out:
	test_end();
	free(prefix);
	free(fdes);
	if (fr.cfi)
		dwarf_cfi_end(fr.cfi);
	if (elf)
		elf_end(elf);
	free(c.rows);
	free(c.index);
	eh_section_free(&s);
}

static void check_files(void)
{
	static const struct {
		const char *name, *path;
	} files[] = {
		{ "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6" },
		{ "ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" },
		{ "libm.so.6", "/lib/x86_64-linux-gnu/libm.so.6" },
		/* C++: personality and LSDA augmentations ("zPLR"), DW_CFA_GNU_args_size */
		{ "libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6" },
		/* hand-written assembly (perlasm): CFAs on other registers, expressions */
		{ "libcrypto.so.3", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3" },
		{ "gzip", "/usr/bin/gzip" },
		{ "xz", "/usr/bin/xz" },
		/* static: glibc's start code, a static libc's signal return */
		{ "busybox", "/bin/busybox" },
		{ "pingpong", NTKL_TEST_BUILD "/workloads/pingpong" },
		/* the unwinder selftest's programs, built as Debian builds its own */
		{ "unwind-static", NTKL_TEST_BUILD "/workloads/unwind-static" },
		{ "unwind-dynamic", NTKL_TEST_BUILD "/workloads/unwind-dynamic" },
		{ "libunwind_dl.so", NTKL_TEST_BUILD "/workloads/libunwind_dl.so" },
		{ "ntkl", NTKL_TEST_BUILD "/userspace/ntkl" },
	};
	const char *more = getenv("NTKL_CFI_FILES");
	char *list, *path, *save;
	size_t i;

	elf_version(EV_CURRENT);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		check_file(files[i].name, files[i].path, !strcmp(files[i].name, "libc.so.6"));
	/* NTKL_CFI_FILES="FILE...": any other binaries, e.g. one that showed a bad stack */
	if (!more || !*more)
		return;
	list = strdup(more);
	for (path = list ? strtok_r(list, " :", &save) : NULL; path;
	     path = strtok_r(NULL, " :", &save))
		check_file(test_file_(path), path, false);
	free(list);
}

#endif /* NTKL_HAVE_LIBDW */

/* ---------------------------------------------------------------------- */
/* Crafted entries: the limits a hostile file reaches on purpose             */
/* ---------------------------------------------------------------------- */

#define CRAFT_VADDR	0x100000ULL	/* where the crafted section is "loaded" */

struct craft {
	u8 b[512];
	size_t n;
};

static void put(struct craft *c, const void *p, size_t len)
{
	if (c->n + len <= sizeof(c->b))
		memcpy(c->b + c->n, p, len);
	c->n += len;
}

static void put_u8(struct craft *c, u8 v)
{
	put(c, &v, 1);
}

static void put_u32(struct craft *c, u32 v)
{
	put(c, &v, 4);		/* x86-64: little-endian, as .eh_frame is */
}

static void put_uleb(struct craft *c, u64 v)
{
	do {
		put_u8(c, (v & 0x7f) | (v >> 7 ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put_sleb(struct craft *c, s64 v)
{
	bool more = true;

	while (more) {
		u8 b = v & 0x7f;

		v >>= 7;	/* arithmetic on gcc and clang */
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		put_u8(c, b | (more ? 0x80 : 0));
	}
}

/* an entry's length, patched in at its end; DW_CFA_nop pads it to 4 bytes */
static size_t entry_begin(struct craft *c)
{
	size_t at = c->n;

	put_u32(c, 0);
	return at;
}

static void entry_end(struct craft *c, size_t at)
{
	u32 len;

	while ((c->n - at) % 4)
		put_u8(c, 0);
	len = c->n - at - 4;
	if (at + 4 <= sizeof(c->b))
		memcpy(c->b + at, &len, 4);
}

/*
 * The CIE at offset 0 as gcc writes it ("zR", pc-relative sdata4 FDE
 * pointers, CFA = rsp + 8, the return address at CFA - 8), with the
 * given alignment factors.
 */
static void craft_cie(struct craft *c, u64 code_align, s64 data_align)
{
	size_t at = entry_begin(c);

	put_u32(c, 0);				/* CIE id */
	put_u8(c, 1);				/* version */
	put(c, "zR", 3);
	put_uleb(c, code_align);
	put_sleb(c, data_align);
	put_u8(c, DWREG_RA);
	put_uleb(c, 1);				/* augmentation data: */
	put_u8(c, 0x1b);			/* DW_EH_PE_pcrel | DW_EH_PE_sdata4 */
	put_u8(c, 0x0c);			/* DW_CFA_def_cfa rsp 8 */
	put_u8(c, DWREG_RSP);
	put_u8(c, 8);
	put_u8(c, 0x80 | DWREG_RA);		/* DW_CFA_offset ra, 1 x data_align */
	put_u8(c, 1);
	entry_end(c, at);
}

/*
 * An FDE of that CIE for [pc, pc + range) running prog; a DW_CFA_set_loc
 * at prog[setloc] (its 4 bytes after the opcode) gets the pc-relative
 * value of setloc_pc.
 */
static void craft_fde(struct craft *c, u32 pc, u32 range, const u8 *prog, size_t nprog,
		      int setloc, u32 setloc_pc)
{
	size_t at = entry_begin(c), prog_at;

	put_u32(c, c->n);			/* back to the CIE at 0 */
	put_u32(c, pc - (CRAFT_VADDR + c->n));
	put_u32(c, range);
	put_uleb(c, 0);				/* no augmentation data */
	prog_at = c->n;
	put(c, prog, nprog);
	if (setloc >= 0 && prog_at + setloc + 5 <= sizeof(c->b)) {
		u32 v = setloc_pc - (CRAFT_VADDR + prog_at + setloc + 1);

		memcpy(c->b + prog_at + setloc + 1, &v, 4);
	}
	entry_end(c, at);
}

/*
 * Compile a crafted section (exactly sized): the passes agree, and each
 * row lies in [lo, hi], the range of the one FDE the section has (an
 * FDE's rules must not leak onto other functions of its file).
 */
static void craft_check(const struct craft *c, const char *what, u32 lo, u32 hi)
{
	struct ntkl_cfi_stats st = { 0 }, st2 = { 0 };
	struct ntkl_cfi_row *rows;
	u8 *eh;
	long n, filled;

	if (c->n > sizeof(c->b)) {
		test_fail("%s: the crafted section does not fit", what);
		return;
	}
	eh = test_copy(c->b, c->n);
	if (!eh)
		return;
	n = ntkl_cfi_compile(eh, c->n, CRAFT_VADDR, NULL, 0, &st);
	CHECK_MSG(n >= 0 || n == -EINVAL, "%s: the counting pass returned %ld", what, n);
	if (n > 0) {
		rows = malloc(n * sizeof(*rows));
		if (rows) {
			filled = ntkl_cfi_compile(eh, c->n, CRAFT_VADDR, rows, n, &st2);
			CHECK_MSG(filled == n, "%s: the fill pass returned %ld, the counting pass %ld",
				  what, filled, n);
			for (long i = 0; i < filled && i < n; i++)
				CHECK_MSG(rows[i].pc >= lo && rows[i].pc <= hi,
					  "%s: a row at 0x%x, outside the FDE's [0x%x, 0x%x]", what,
					  rows[i].pc, lo, hi);
			free(rows);
		}
	}
	free(eh);
}

static void check_crafted(void)
{
	static const struct {
		const char *what;
		u64 code_align;
		s64 data_align;
		u32 pc, range;
		u8 prog[64];
		size_t nprog;
		int setloc;	/* index of a DW_CFA_set_loc in prog, or -1 */
		u32 setloc_pc;
	} cases[] = {
		{ "remember_state 20 deep", 1, -8, 0x101000, 0x100,
		  { 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
		    0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x41,
		    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b,
		    0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x41 }, 42, -1, 0 },
		{ "restore_state with nothing saved", 1, -8, 0x101000, 0x100,
		  { 0x41, 0x0b, 0x41, 0x0e, 16 }, 5, -1, 0 },
		{ "advance_loc4 past the end", 1, -8, 0x101000, 0x100,
		  { 0x04, 0xff, 0xff, 0xff, 0xff, 0x0e, 16, 0x04, 0xff, 0xff, 0xff, 0x7f,
		    0x0e, 24, 0x41 }, 15, -1, 0 },
		{ "code_align 2^32", 1ULL << 32, -8, 0x101000, 0x100,
		  { 0x41, 0x0e, 16, 0x02, 0xff, 0x0e, 24 }, 7, -1, 0 },
		{ "set_loc backwards", 1, -8, 0x101000, 0x100,
		  { 0x48, 0x0e, 16, 0x01, 0, 0, 0, 0, 0x0e, 24, 0x41 }, 11, 3, 0x100ff0 },
		{ "set_loc past the end", 1, -8, 0x101000, 0x100,
		  { 0x48, 0x0e, 16, 0x01, 0, 0, 0, 0, 0x0e, 24, 0x41 }, 11, 3, 0x7fff0000 },
		{ "a 12-byte uleb", 1, -8, 0x101000, 0x100,
		  { 0x41, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		    0x80, 0x01, 0x41 }, 15, -1, 0 },
		{ "def_cfa_expression longer than the entry", 1, -8, 0x101000, 0x100,
		  { 0x41, 0x0f, 0x7f, 0x76 }, 4, -1, 0 },
		{ "expression of rbp longer than the entry", 1, -8, 0x101000, 0x100,
		  { 0x41, 0x10, DWREG_RBP, 0x7f, 0x76 }, 5, -1, 0 },
		{ "an unknown opcode", 1, -8, 0x101000, 0x100,
		  { 0x41, 0x0e, 16, 0x3f, 0x41, 0x0e, 24 }, 7, -1, 0 },
		{ "a range past 4 GiB", 1, -8, 0xffffff00, 0x200,
		  { 0x41, 0x0e, 16 }, 3, -1, 0 },
		{ "code_align 0", 0, -8, 0x101000, 0x100,
		  { 0x41, 0x0e, 16 }, 3, -1, 0 },
		/* an advance times 2^64 - 1 moves back: no row before the FDE */
		{ "code_align 2^64 - 1", ~0ULL, -8, 0x101000, 0x100,
		  { 0x60, 0x0e, 16, 0x60, 0x0e, 24 }, 6, -1, 0 },
		/* DW_CFA_offset rbp 4 times -2^62: no signed overflow (UBSan) */
		{ "data_align -2^62", 1, -(1LL << 62), 0x101000, 0x100,
		  { 0x41, 0x80 | DWREG_RBP, 4, 0x41, 0x11, DWREG_RBP, 0x7f }, 7, -1, 0 },
	};
	struct craft c;
	size_t i;

	test_begin("crafted_entries");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&c, 0, sizeof(c));
		craft_cie(&c, cases[i].code_align, cases[i].data_align);
		craft_fde(&c, cases[i].pc, cases[i].range, cases[i].prog, cases[i].nprog,
			  cases[i].setloc, cases[i].setloc_pc);
		put_u32(&c, 0);		/* the terminator */
		craft_check(&c, cases[i].what, cases[i].pc, cases[i].pc + cases[i].range);
	}

	/* the FDE's CIE pointer: at itself, before the section, at the terminator */
	for (i = 0; i < 3; i++) {
		static const char *const what[] = {
			"CIE pointer to the FDE itself", "CIE pointer before the section",
			"CIE pointer to a zero length",
		};
		size_t at;

		memset(&c, 0, sizeof(c));
		craft_cie(&c, 1, -8);
		at = entry_begin(&c);
		/* the distance back from this field (4: the FDE's own start) */
		put_u32(&c, i == 0 ? 4 : i == 1 ? c.n + 64 : c.n - at + 8);
		put_u32(&c, 0x101000 - (CRAFT_VADDR + c.n));
		put_u32(&c, 0x100);
		put_uleb(&c, 0);
		put_u8(&c, 0x41);
		entry_end(&c, at);
		put_u32(&c, 0);
		put_u32(&c, 0);
		craft_check(&c, what[i], 0x101000, 0x101100);
	}

	/* a CIE whose augmentation string runs to the end of its entry, and an FDE of it */
	memset(&c, 0, sizeof(c));
	put_u32(&c, 60);
	put_u32(&c, 0);
	put_u8(&c, 1);
	while (c.n < 64)
		put_u8(&c, 'z');
	craft_fde(&c, 0x101000, 0x100, (const u8 []){ 0x41 }, 1, -1, 0);
	craft_check(&c, "augmentation without its NUL", 0x101000, 0x101100);

	/* 64-bit DWARF's escape, and a length past the end */
	memset(&c, 0, sizeof(c));
	put_u32(&c, 0xffffffffu);
	put_u32(&c, 16);
	put_u32(&c, 0);
	put_u32(&c, 0);
	craft_check(&c, "a 64-bit length", 0, 0);
	memset(&c, 0, sizeof(c));
	craft_cie(&c, 1, -8);
	put_u32(&c, 0x1000);
	put_u32(&c, c.n);
	craft_check(&c, "a length past the end", 0, 0);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Hostile bytes: mutated copies of libc's .eh_frame                        */
/* ---------------------------------------------------------------------- */

struct mutations {
	unsigned long runs, rejected, rows, short_max;
	double worst_ms;
};

/*
 * Compile one mutated buffer (exactly sized, so ASan sees any read past
 * it): the fill pass makes no more rows than the counting pass said, a
 * fill into fewer rows than needed writes no more than it was given, and
 * the rows sort.
 */
static void compile_mutant(const u8 *eh, size_t size, u64 vaddr, struct mutations *m,
			   const char *what)
{
	struct ntkl_cfi_stats st = { 0 }, st2 = { 0 };
	struct ntkl_cfi_row *rows;
	struct timespec t0, t1;
	long n, filled;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = ntkl_cfi_compile(eh, size, vaddr, NULL, 0, &st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	m->worst_ms = max(m->worst_ms, ms);
	m->runs++;
	if (n < 0) {
		CHECK_MSG(n == -EINVAL, "%s: the counting pass returned %ld", what, n);
		m->rejected++;
		return;
	}
	rows = malloc(n ? n * sizeof(*rows) : 1);
	if (!rows)
		return;
	filled = ntkl_cfi_compile(eh, size, vaddr, rows, n, &st2);
	CHECK_MSG(filled >= 0 && filled <= n, "%s: the fill pass returned %ld, the counting pass %ld",
		  what, filled, n);
	if (filled >= 0 && filled <= n) {
		struct ntkl_cfi_row *scratch = malloc(filled ? filled * sizeof(*rows) : 1);
		/* every other mutation through the merge of runs, the rest the heapsort */
		size_t left = ntkl_cfi_sort(rows, filled, (m->rows & 1) ? NULL : scratch);

		free(scratch);

		CHECK_MSG(left <= (size_t)filled, "%s: ntkl_cfi_sort() of %ld rows left %zu", what,
			  filled, left);
		for (size_t i = 1; i < left && i <= (size_t)filled; i++)
			if (rows[i - 1].pc >= rows[i].pc) {
				CHECK_MSG(false, "%s: sorted rows %zu, %zu out of order", what, i - 1, i);
				break;
			}
		index_check(rows, left, what);
		m->rows += filled;
	}
	free(rows);

	/* room for half the rows: the fill stops at max (ASan: the array is exactly that) */
	if (n >= 2) {
		size_t half = n / 2;

		rows = malloc(half * sizeof(*rows));
		if (!rows)
			return;
		filled = ntkl_cfi_compile(eh, size, vaddr, rows, half, &st2);
		CHECK_MSG(filled <= n, "%s: a fill into %zu of %ld rows returned %ld", what, half, n,
			  filled);
		m->short_max++;
		free(rows);
	}
}

/* a mutated copy of src, exactly sized, compiled, freed */
static void mutant(const struct eh_section *s, size_t len, u64 *rng, unsigned int flips,
		   size_t burst_at, size_t burst_len, struct mutations *m, const char *what)
{
	u8 *eh = calloc(1, len ? len : 1);
	char name[120];
	unsigned int i;

	if (!eh)
		return;
	memcpy(eh, s->eh, min(len, s->size));
	for (i = 0; len && i < flips; i++) {
		u64 bit = test_rand(rng) % (len * 8);

		eh[bit / 8] ^= 1u << (bit % 8);
	}
	for (i = 0; i < burst_len && burst_at + i < len; i++)
		eh[burst_at + i] = test_rand(rng);
	snprintf(name, sizeof(name), "%s (length %zu, %u flips, %zu random bytes at %zu)", what, len,
		 flips, burst_len, burst_at);
	compile_mutant(eh, len, s->vaddr, m, name);
	free(eh);
}

/* The starts of the first entries: where a cut or a flip hits a length or a CIE pointer. */
static size_t entry_starts(const struct eh_section *s, size_t *at, size_t max)
{
	size_t n = 0, off = 0;

	while (n < max && off + 4 <= s->size) {
		u32 len;

		memcpy(&len, s->eh + off, 4);
		if (!len || len == 0xffffffffu || len > s->size - off - 4)
			break;
		at[n++] = off;
		off += 4 + (size_t)len;
	}
	return n;
}

static void check_mutations(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct eh_section s;
	struct mutations m;
	size_t at[24], nat, i;
	u64 rng = 0x45ULL << 32 | 0xcf1;

	if (!eh_section_read(libc, &s)) {
		test_skip("mutations_truncated", "%s is not here (its .eh_frame is the seed)", libc);
		test_skip("mutations_bitflips", "%s is not here", libc);
		test_skip("mutations_random", "%s is not here", libc);
		eh_section_free(&s);
		return;
	}
	nat = entry_starts(&s, at, ARRAY_SIZE(at));

	/* cut anywhere: inside a length, a CIE's augmentation, an FDE's pointers, its instructions */
	test_begin("mutations_truncated");
	memset(&m, 0, sizeof(m));
	for (i = 0; i <= 40; i++)
		mutant(&s, i, &rng, 0, 0, 0, &m, "truncated");
	for (i = 0; i < nat; i++)
		for (size_t d = 1; d <= 6; d++)
			mutant(&s, at[i] + d, &rng, 0, 0, 0, &m, "truncated in an entry");
	for (i = 0; i < 60; i++)
		mutant(&s, test_rand(&rng) % s.size, &rng, 0, 0, 0, &m, "truncated");
	mutant(&s, s.size - 1, &rng, 0, 0, 0, &m, "truncated by one byte");
	mutant(&s, s.size, &rng, 0, 0, 0, &m, "whole");
	printf("#   truncated: %lu compiles, %lu rejected, %lu rows, the slowest %.1f ms\n", m.runs,
	       m.rejected, m.rows, m.worst_ms);
	CHECK(m.runs > 100);
	test_end();

	/* flipped bits: anywhere, then in the first entries' headers (lengths, CIE ids, augmentations) */
	test_begin("mutations_bitflips");
	memset(&m, 0, sizeof(m));
	for (i = 0; i < 120; i++)
		mutant(&s, s.size, &rng, 1 + test_rand(&rng) % 64, 0, 0, &m, "bit flips");
	for (i = 0; i < 120; i++) {
		/* a few flips in the first 4 KB: the CIEs and the first FDEs */
		size_t len = min(s.size, (size_t)4096);
		u8 *eh = test_copy(s.eh, s.size);
		char name[80];

		if (!eh)
			break;
		for (unsigned int f = 0; f < 1 + i % 4; f++) {
			u64 bit = test_rand(&rng) % (len * 8);

			eh[bit / 8] ^= 1u << (bit % 8);
		}
		snprintf(name, sizeof(name), "flips in the first 4 KB (#%zu)", i);
		compile_mutant(eh, s.size, s.vaddr, &m, name);
		free(eh);
	}
	for (i = 0; i < nat; i++) {
		/* lengths that run past the end, the 64-bit escape, 0 (a terminator) */
		static const u32 lens[] = { 0, 1, 3, 0xfffffff0u, 0xffffffffu, 0x7fffffffu };

		for (size_t k = 0; k < ARRAY_SIZE(lens); k++) {
			u8 *eh = test_copy(s.eh, s.size);
			char name[80];

			if (!eh)
				break;
			memcpy(eh + at[i], &lens[k], 4);
			snprintf(name, sizeof(name), "entry at %zu with length 0x%x", at[i], lens[k]);
			compile_mutant(eh, s.size, s.vaddr, &m, name);
			/* and a CIE pointer (FDE) or CIE id that points anywhere */
			if (at[i] + 8 <= s.size) {
				u32 ptr = test_rand(&rng);

				memcpy(eh + at[i], s.eh + at[i], 4);
				memcpy(eh + at[i] + 4, &ptr, 4);
				snprintf(name, sizeof(name), "entry at %zu with CIE pointer 0x%x", at[i],
					 ptr);
				compile_mutant(eh, s.size, s.vaddr, &m, name);
			}
			free(eh);
		}
	}
	printf("#   bit flips: %lu compiles, %lu rejected, %lu rows, %lu short fills, the slowest %.1f ms\n",
	       m.runs, m.rejected, m.rows, m.short_max, m.worst_ms);
	CHECK(m.runs > 200);
	test_end();

	/* random bytes: bursts inside the real section, then whole random buffers */
	test_begin("mutations_random");
	memset(&m, 0, sizeof(m));
	for (i = 0; i < 100; i++) {
		size_t burst = 1 + test_rand(&rng) % 512;
		size_t where = i < 30 ? test_rand(&rng) % min(s.size, (size_t)8192) :
				test_rand(&rng) % s.size;

		mutant(&s, s.size, &rng, 0, where, burst, &m, "a random burst");
	}
	for (i = 0; i < 80; i++) {
		size_t len = test_rand(&rng) % 8192;

		/* the first CIE kept whole half the time, so FDEs behind it get read */
		mutant(&s, len, &rng, 0, i % 2 ? min(len, (nat > 1 ? at[1] : (size_t)0)) : 0, len,
		       &m, "random bytes");
	}
	printf("#   random: %lu compiles, %lu rejected, %lu rows, the slowest %.1f ms\n", m.runs,
	       m.rejected, m.rows, m.worst_ms);
	CHECK(m.runs >= 180);
	test_end();
	eh_section_free(&s);
}

int main(void)
{
#ifdef NTKL_HAVE_LIBDW
	check_files();
#else
	test_skip("libdw", "elfutils' libdw is not installed (libdw-dev: scripts/install-deps "
		  "installs it): cfi.c is not compared with it");
#endif
	check_crafted();
	check_mutations();
	return test_exit();
}
