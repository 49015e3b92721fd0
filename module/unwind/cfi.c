// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame to unwind rows (unwind/cfi.h). The section is a run of CIEs
 * (what a group of functions shares: the encodings, the alignment
 * factors, the initial rules) and FDEs (one function's range and the
 * program of DW_CFA_* instructions that changes the rules as its code
 * moves the stack). Each FDE's program is run here once, at table build
 * time, and each place where the rules change becomes a row, so that a
 * walk in a probe does a binary search and no interpretation.
 *
 * Only the rules a walk on x86-64 needs are kept: the CFA's, rbp's and the
 * return address's. A rule the walk cannot follow (a CFA computed from
 * another register, rbp kept in another register, an expression not of
 * the two shapes compilers emit) becomes NTKL_CFI_NONE, where the walk
 * tries the frame pointer. The two expression shapes: a realigned
 * frame's CFA, loaded from the slot below its frame pointer
 * (DW_OP_breg6 N; DW_OP_deref), and a lazy-binding PLT entry's, which is
 * rsp + N until the entry's push and 8 more after it (DW_OP_breg7 N;
 * DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK; DW_OP_ge;
 * DW_OP_lit3; DW_OP_shl; DW_OP_plus). A CIE with the 'S' augmentation is a
 * signal trampoline's (glibc's __restore_rt): its frame is a ucontext.
 *
 * Every read is checked against the end of the entry it belongs to, and
 * the entry's against the section's, so a corrupt file makes fewer rows,
 * never a read outside the buffer.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#include "unwind/cfi.h"

/* DWARF register numbers of the x86-64 psABI: the table of this architecture */
#define DW_REG_BP	6
#define DW_REG_SP	7
#define DW_REG_RA	16
#define RA_CFA_OFFSET	(-8)	/* where a call left the return address */

/* DW_EH_PE_*: how a pointer is encoded (low nibble: format; high: base) */
#define PE_OMIT		0xff
#define PE_FORMAT	0x0f
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_APPL		0x70
#define PE_PCREL	0x10
#define PE_INDIRECT	0x80

/* The DW_OP_* of the two CFA expressions followed */
#define DW_OP_DEREF	0x06
#define DW_OP_AND	0x1a
#define DW_OP_PLUS	0x22
#define DW_OP_SHL	0x24
#define DW_OP_GE	0x2a
#define DW_OP_LIT0	0x30
#define DW_OP_BREG0	0x70

/* Nested DW_CFA_remember_state the walk follows: gcc's use one or two. */
#define CFI_STATES	8

/*
 * Factored offsets are bounded before they are scaled, so that a corrupt
 * file's cannot overflow: any offset past this is past what a row holds.
 */
#define FACTOR_MAX	((s64)BIT_ULL(40))
#define ALIGN_MAX	16	/* code and data alignment factors: x86-64's are 1 and -8 */

/* A reader over [p, end): once it overran, every read gives 0 and ok is false. */
struct cursor {
	const u8 *p, *end;
	bool ok;
};

static u64 get_bytes(struct cursor *c, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	if (!c->ok || (size_t)(c->end - c->p) < n) {
		c->ok = false;
		return 0;
	}
	for (i = 0; i < n; i++)		/* little-endian, any alignment */
		v |= (u64)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* A LEB128 number: 7 bits a byte, low first; the sign is bit 6 of the last. */
static u64 get_leb(struct cursor *c, bool is_signed)
{
	unsigned int shift = 0;
	u64 v = 0;
	u8 b;

	do {
		b = get_bytes(c, 1);
		if (shift < 64)
			v |= (u64)(b & 0x7f) << shift;
		shift += 7;
	} while (c->ok && (b & 0x80));
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return v;
}

static u64 get_uleb(struct cursor *c)
{
	return get_leb(c, false);
}

static s64 get_sleb(struct cursor *c)
{
	return (s64)get_leb(c, true);
}

/*
 * A pointer in encoding enc, found at the file address vaddr (the base of
 * a pc-relative one). Encodings relative to bases this file does not
 * describe here (text, data, function) or indirect ones fail the cursor.
 */
static u64 get_pointer(struct cursor *c, u8 enc, u64 vaddr)
{
	u64 v;

	switch (enc & PE_FORMAT) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = get_bytes(c, 8);
		break;
	case PE_ULEB128:
		v = get_uleb(c);
		break;
	case PE_SLEB128:
		v = get_sleb(c);
		break;
	case PE_UDATA2:
		v = get_bytes(c, 2);
		break;
	case PE_SDATA2:
		v = (s64)(s16)get_bytes(c, 2);
		break;
	case PE_UDATA4:
		v = get_bytes(c, 4);
		break;
	case PE_SDATA4:
		v = (s64)(s32)get_bytes(c, 4);
		break;
	default:
		c->ok = false;
		return 0;
	}
	if (enc & PE_INDIRECT) {
		c->ok = false;
		return 0;
	}
	switch (enc & PE_APPL) {
	case 0:
		return v;
	case PE_PCREL:
		return v + vaddr;
	}
	c->ok = false;
	return 0;
}

/* v * align, v bounded first (align is, by read_cie()) */
static s64 factored_s(s64 v, s64 align)
{
	return clamp_t(s64, v, -FACTOR_MAX, FACTOR_MAX) * align;
}

static s64 factored_u(u64 v, s64 align)
{
	return (s64)min_t(u64, v, FACTOR_MAX) * align;
}

/* The rules this walk follows, as a program leaves them. */
enum cfa_rule { CFA_REG, CFA_DEREF_BP, CFA_PLT, CFA_OTHER };
/* REG_AT_BP: saved at rbp + off (DW_CFA_expression DW_OP_breg6 off) */
enum reg_rule { REG_SAME, REG_OFFSET, REG_UNDEFINED, REG_AT_BP, REG_OTHER };

struct rules {
	u8 cfa;			/* enum cfa_rule */
	u8 cfa_reg;		/* DWARF register, for CFA_REG */
	u8 plt_push;		/* CFA_PLT: the entry offset from which 8 more */
	u8 bp, ra;		/* enum reg_rule */
	s64 cfa_off, bp_off, ra_off;
};

struct cie {
	u64 code_align;
	s64 data_align;
	u64 ra_reg;
	u8 fde_enc;
	bool has_aug_data;	/* 'z': FDEs carry augmentation data */
	bool signal;		/* 'S' */
	struct cursor init;	/* its initial instructions */
};

/* The compiler's output: rows so far, written while they fit. */
struct out {
	struct ntkl_cfi_row *rows;
	size_t max, n;
	struct ntkl_cfi_stats *stats;
	/* this FDE's last row, to fold a rule that did not change */
	bool have_last;
	struct ntkl_cfi_row last;
	/* the last CIE read: most FDEs of a file share one or two */
	size_t cie_off;			/* 0: none (a CIE is never at 0 from an FDE) */
	bool cie_ok;
	struct cie cie;
	struct rules cie_init;
};

static struct ntkl_cfi_row rules_row(const struct cie *cie, const struct rules *r, u64 pc,
				     struct ntkl_cfi_stats *stats)
{
	struct ntkl_cfi_row row = { .pc = (u32)pc, .kind = NTKL_CFI_NONE };
	bool bp_at_bp, cfa_deref;

	if (cie->signal) {
		row.kind = NTKL_CFI_SIGNAL;
		return row;
	}
	if (r->ra == REG_UNDEFINED) {
		row.kind = NTKL_CFI_END;
		return row;
	}
	if (r->ra != REG_OFFSET || r->ra_off != RA_CFA_OFFSET)
		goto unsupported;
	/* a realigned frame saves rbp where its own rbp points, not by the CFA */
	bp_at_bp = r->bp == REG_AT_BP;
	cfa_deref = r->cfa == CFA_DEREF_BP;
	if (bp_at_bp != cfa_deref)
		goto unsupported;
	if (r->bp == REG_AT_BP) {
		if (r->bp_off < S16_MIN || r->bp_off > S16_MAX)
			goto unsupported;
		row.bp_off = (s16)r->bp_off;
	} else if (r->bp == REG_OFFSET) {
		if (!r->bp_off || r->bp_off < S16_MIN || r->bp_off > S16_MAX)
			goto unsupported;
		row.bp_off = (s16)r->bp_off;
	} else if (r->bp == REG_OTHER) {
		goto unsupported;
	}
	if (r->cfa_off < S32_MIN || r->cfa_off > S32_MAX)
		goto unsupported;
	row.cfa_off = (s32)r->cfa_off;
	switch (r->cfa) {
	case CFA_REG:
		if (r->cfa_reg == DW_REG_SP)
			row.reg = NTKL_CFI_REG_SP;
		else if (r->cfa_reg == DW_REG_BP)
			row.reg = NTKL_CFI_REG_BP;
		else
			goto unsupported;
		row.kind = NTKL_CFI_CFA;
		return row;
	case CFA_DEREF_BP:
		row.kind = NTKL_CFI_CFA_DEREF;
		row.reg = NTKL_CFI_REG_BP;
		return row;
	case CFA_PLT:
		row.kind = NTKL_CFI_PLT;
		row.reg = r->plt_push;
		return row;
	}
unsupported:
	row = (struct ntkl_cfi_row){ .pc = (u32)pc, .kind = NTKL_CFI_NONE };
	stats->unsupported++;
	return row;
}

static bool same_rule(const struct ntkl_cfi_row *a, const struct ntkl_cfi_row *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->bp_off == b->bp_off &&
	       a->cfa_off == b->cfa_off;
}

/* Put a row: one at the same pc as this FDE's last replaces it. */
static void emit(struct out *o, struct ntkl_cfi_row row)
{
	if (o->have_last && o->last.pc == row.pc) {
		if (o->rows && o->n - 1 < o->max)
			o->rows[o->n - 1] = row;
		o->last = row;
		return;
	}
	if (o->have_last && same_rule(&o->last, &row))
		return;
	if (o->rows && o->n < o->max)
		o->rows[o->n] = row;
	o->n++;
	o->last = row;
	o->have_last = true;
}

/* Match DW_OP_breg6 N; DW_OP_deref, or the PLT entry's expression. */
static void cfa_expression(struct cursor c, struct rules *r)
{
	u8 op, k;
	s64 n;

	r->cfa = CFA_OTHER;
	op = get_bytes(&c, 1);
	n = get_sleb(&c);
	if (op == DW_OP_BREG0 + DW_REG_BP) {
		if (get_bytes(&c, 1) == DW_OP_DEREF && c.ok && c.p == c.end) {
			r->cfa = CFA_DEREF_BP;
			r->cfa_off = n;
		}
		return;
	}
	if (op != DW_OP_BREG0 + DW_REG_SP ||
	    get_bytes(&c, 1) != DW_OP_BREG0 + DW_REG_RA || get_sleb(&c) != 0 ||
	    get_bytes(&c, 1) != DW_OP_LIT0 + 15 || get_bytes(&c, 1) != DW_OP_AND)
		return;
	k = get_bytes(&c, 1) - DW_OP_LIT0;
	if (k > 15 || get_bytes(&c, 1) != DW_OP_GE || get_bytes(&c, 1) != DW_OP_LIT0 + 3 ||
	    get_bytes(&c, 1) != DW_OP_SHL || get_bytes(&c, 1) != DW_OP_PLUS || !c.ok ||
	    c.p != c.end)
		return;
	r->cfa = CFA_PLT;
	r->cfa_off = n;
	r->plt_push = k;
}

/* Set the rule of DWARF register reg (only rbp's and the return address's are kept). */
static void set_reg(struct rules *r, u64 reg, enum reg_rule rule, s64 off)
{
	if (reg == DW_REG_BP) {
		r->bp = rule;
		r->bp_off = off;
	} else if (reg == DW_REG_RA) {
		r->ra = rule;
		r->ra_off = off;
	}
}

/* DW_CFA_restore: the rule the CIE's initial instructions gave reg. */
static void restore_reg(struct rules *r, const struct rules *init, u64 reg)
{
	if (reg == DW_REG_BP)
		set_reg(r, reg, init->bp, init->bp_off);
	else if (reg == DW_REG_RA)
		set_reg(r, reg, init->ra, init->ra_off);
}

/*
 * Run a CFA program from pc (o NULL: the CIE's initial instructions,
 * which emit nothing) until end, emitting a row each time the location
 * advances. False if it holds an instruction this reader does not know:
 * the rest of the range is then NTKL_CFI_NONE.
 */
static bool run_program(struct cursor c, const struct cie *cie, struct rules *r,
			const struct rules *init, u64 *pc, u64 end, struct out *o,
			const u8 *section, u64 eh_vaddr)
{
	struct rules saved[CFI_STATES];
	unsigned int depth = 0;
	u64 reg, delta, next;
	struct cursor expr;
	s64 off;
	u8 op;

	while (c.ok && c.p < c.end) {
		op = get_bytes(&c, 1);
		delta = 0;
		switch (op >> 6) {
		case 1:		/* DW_CFA_advance_loc */
			delta = (op & 0x3f) * cie->code_align;
			goto advance;
		case 2:		/* DW_CFA_offset */
			off = factored_u(get_uleb(&c), cie->data_align);
			set_reg(r, op & 0x3f, REG_OFFSET, off);
			continue;
		case 3:		/* DW_CFA_restore */
			if (!init)
				return false;
			restore_reg(r, init, op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00:	/* DW_CFA_nop */
			continue;
		case 0x01:	/* DW_CFA_set_loc */
			next = get_pointer(&c, cie->fde_enc,
					   eh_vaddr + (u64)(c.p - section));
			if (!c.ok || next < *pc)
				return false;
			delta = next - *pc;
			goto advance;
		case 0x02:	/* DW_CFA_advance_loc1 */
			delta = get_bytes(&c, 1) * cie->code_align;
			goto advance;
		case 0x03:	/* DW_CFA_advance_loc2 */
			delta = get_bytes(&c, 2) * cie->code_align;
			goto advance;
		case 0x04:	/* DW_CFA_advance_loc4 */
			delta = get_bytes(&c, 4) * cie->code_align;
			goto advance;
		case 0x05:	/* DW_CFA_offset_extended */
			reg = get_uleb(&c);
			set_reg(r, reg, REG_OFFSET, factored_u(get_uleb(&c), cie->data_align));
			continue;
		case 0x06:	/* DW_CFA_restore_extended */
			if (!init)
				return false;
			restore_reg(r, init, get_uleb(&c));
			continue;
		case 0x07:	/* DW_CFA_undefined */
			set_reg(r, get_uleb(&c), REG_UNDEFINED, 0);
			continue;
		case 0x08:	/* DW_CFA_same_value */
			set_reg(r, get_uleb(&c), REG_SAME, 0);
			continue;
		case 0x09:	/* DW_CFA_register */
			reg = get_uleb(&c);
			get_uleb(&c);
			set_reg(r, reg, REG_OTHER, 0);
			continue;
		case 0x0a:	/* DW_CFA_remember_state */
			if (depth == CFI_STATES)
				return false;
			saved[depth++] = *r;
			continue;
		case 0x0b:	/* DW_CFA_restore_state */
			if (!depth)
				return false;
			*r = saved[--depth];
			continue;
		case 0x0c:	/* DW_CFA_def_cfa */
			reg = get_uleb(&c);
			r->cfa = CFA_REG;
			r->cfa_reg = reg > 0xff ? 0xff : reg;
			r->cfa_off = get_uleb(&c);
			continue;
		case 0x0d:	/* DW_CFA_def_cfa_register */
			reg = get_uleb(&c);
			r->cfa = CFA_REG;
			r->cfa_reg = reg > 0xff ? 0xff : reg;
			continue;
		case 0x0e:	/* DW_CFA_def_cfa_offset */
			r->cfa_off = get_uleb(&c);
			continue;
		case 0x0f:	/* DW_CFA_def_cfa_expression */
			delta = get_uleb(&c);
			if (!c.ok || delta > (u64)(c.end - c.p))
				return false;
			expr = (struct cursor){ c.p, c.p + delta, true };
			c.p += delta;
			cfa_expression(expr, r);
			continue;
		case 0x10:	/* DW_CFA_expression */
		case 0x16:	/* DW_CFA_val_expression */
			reg = get_uleb(&c);
			delta = get_uleb(&c);
			if (!c.ok || delta > (u64)(c.end - c.p))
				return false;
			expr = (struct cursor){ c.p, c.p + delta, true };
			c.p += delta;
			/* a realigned frame's rbp: saved at rbp + N (DW_OP_breg6 N) */
			if (op == 0x10 && get_bytes(&expr, 1) == DW_OP_BREG0 + DW_REG_BP) {
				off = get_sleb(&expr);
				if (expr.ok && expr.p == expr.end) {
					set_reg(r, reg, REG_AT_BP, off);
					continue;
				}
			}
			set_reg(r, reg, REG_OTHER, 0);
			continue;
		case 0x11:	/* DW_CFA_offset_extended_sf */
			reg = get_uleb(&c);
			set_reg(r, reg, REG_OFFSET, factored_s(get_sleb(&c), cie->data_align));
			continue;
		case 0x12:	/* DW_CFA_def_cfa_sf */
			reg = get_uleb(&c);
			r->cfa = CFA_REG;
			r->cfa_reg = reg > 0xff ? 0xff : reg;
			r->cfa_off = factored_s(get_sleb(&c), cie->data_align);
			continue;
		case 0x13:	/* DW_CFA_def_cfa_offset_sf */
			r->cfa_off = factored_s(get_sleb(&c), cie->data_align);
			continue;
		case 0x14:	/* DW_CFA_val_offset */
			reg = get_uleb(&c);
			get_uleb(&c);
			set_reg(r, reg, REG_OTHER, 0);
			continue;
		case 0x15:	/* DW_CFA_val_offset_sf */
			reg = get_uleb(&c);
			get_sleb(&c);
			set_reg(r, reg, REG_OTHER, 0);
			continue;
		case 0x2e:	/* DW_CFA_GNU_args_size */
			get_uleb(&c);
			continue;
		case 0x2f:	/* DW_CFA_GNU_negative_offset_extended */
			reg = get_uleb(&c);
			off = -factored_u(get_uleb(&c), cie->data_align);
			set_reg(r, reg, REG_OFFSET, off);
			continue;
		default:
			return false;
		}
advance:
		if (!o)
			return false;	/* a CIE's initial instructions do not move */
		if (delta > end - *pc)
			delta = end - *pc;
		if (delta) {
			emit(o, rules_row(cie, r, *pc, o->stats));
			*pc += delta;
		}
	}
	return c.ok;
}

/* The CIE at section offset off, or false if it is not one this reader follows. */
static bool read_cie(const u8 *section, size_t size, size_t off, u64 eh_vaddr, struct cie *cie,
		     struct rules *init)
{
	struct cursor c = { section + off, section + size, true };
	const char *aug;
	u64 len, aug_len;
	u8 version, enc;
	const u8 *aug_end;

	len = get_bytes(&c, 4);
	if (!c.ok || len == 0 || len == 0xffffffff || len > (u64)(c.end - c.p))
		return false;
	c.end = c.p + len;
	if (get_bytes(&c, 4) != 0)	/* a CIE's id */
		return false;
	version = get_bytes(&c, 1);
	if (version != 1 && version != 3)
		return false;
	aug = (const char *)c.p;
	while (c.ok && get_bytes(&c, 1))
		;
	if (!c.ok)
		return false;
	memset(cie, 0, sizeof(*cie));
	cie->code_align = get_uleb(&c);
	cie->data_align = get_sleb(&c);
	cie->ra_reg = version == 1 ? get_bytes(&c, 1) : get_uleb(&c);
	cie->fde_enc = PE_ABSPTR;
	if (!c.ok || cie->ra_reg != DW_REG_RA || !cie->code_align ||
	    cie->code_align > ALIGN_MAX || cie->data_align < -ALIGN_MAX ||
	    cie->data_align > ALIGN_MAX)
		return false;
	if (*aug == 'z') {
		cie->has_aug_data = true;
		aug_len = get_uleb(&c);
		if (!c.ok || aug_len > (u64)(c.end - c.p))
			return false;
		aug_end = c.p + aug_len;
		for (aug++; *aug; aug++) {
			switch (*aug) {
			case 'R':
				cie->fde_enc = get_bytes(&c, 1);
				break;
			case 'L':
				get_bytes(&c, 1);
				break;
			case 'P':	/* the personality routine: not needed */
				enc = get_bytes(&c, 1) & ~PE_INDIRECT;
				get_pointer(&c, enc, eh_vaddr + (u64)(c.p - section));
				break;
			case 'S':
				cie->signal = true;
				break;
			case 'B':		/* AArch64's BTI: no data */
				break;
			default:
				return false;
			}
		}
		if (!c.ok || c.p > aug_end)
			return false;
		c.p = aug_end;
	} else if (*aug) {
		return false;		/* "eh" and other old forms */
	}
	if (cie->fde_enc == PE_OMIT)
		return false;
	cie->init = c;
	/* at a function's entry: CFA = rsp + 8, the return address just below it */
	memset(init, 0, sizeof(*init));
	init->cfa = CFA_REG;
	init->cfa_reg = DW_REG_SP;
	init->ra = REG_UNDEFINED;
	init->bp = REG_SAME;
	if (!run_program(cie->init, cie, init, NULL, NULL, 0, NULL, section, eh_vaddr))
		return false;
	return true;
}

/* One FDE at c (past its length, whose end c.end is): its rows into o. */
static void read_fde(struct cursor c, const u8 *section, size_t size, u64 eh_vaddr,
		     struct out *o)
{
	size_t id_off = c.p - section;
	u64 cie_ptr, pc, range, end, aug_len;
	struct rules init, r;
	struct cie cie;
	bool whole;

	cie_ptr = get_bytes(&c, 4);
	if (!c.ok || cie_ptr > id_off) {
		o->stats->bad++;
		return;
	}
	if (!o->cie_off || o->cie_off != id_off - cie_ptr) {
		o->cie_off = id_off - cie_ptr;
		o->cie_ok = read_cie(section, size, o->cie_off, eh_vaddr, &o->cie, &o->cie_init);
	}
	if (!o->cie_ok) {
		o->stats->bad++;
		return;
	}
	cie = o->cie;
	init = o->cie_init;
	pc = get_pointer(&c, cie.fde_enc, eh_vaddr + (u64)(c.p - section));
	range = get_pointer(&c, cie.fde_enc & PE_FORMAT, 0);
	if (cie.has_aug_data) {
		aug_len = get_uleb(&c);
		if (aug_len > (u64)(c.end - c.p))
			c.ok = false;
		else
			c.p += aug_len;
	}
	if (!c.ok || !range || pc > U32_MAX || range > U32_MAX - pc) {
		o->stats->bad++;
		return;
	}
	o->stats->fdes++;
	r = init;
	end = pc + range;
	o->have_last = false;
	whole = run_program(c, &cie, &r, &init, &pc, end, o, section, eh_vaddr);
	if (pc < end)	/* the rules after the last advance, or none after an unknown op */
		emit(o, whole ? rules_row(&cie, &r, pc, o->stats) :
				(struct ntkl_cfi_row){ .pc = (u32)pc, .kind = NTKL_CFI_NONE });
	/* the range's end: no unwind data, unless another FDE's row begins there */
	o->have_last = false;
	emit(o, (struct ntkl_cfi_row){ .pc = (u32)end, .kind = NTKL_CFI_NONE });
}

long ntkl_cfi_compile(const u8 *eh, size_t size, u64 eh_vaddr, struct ntkl_cfi_row *rows,
		      size_t max, struct ntkl_cfi_stats *stats)
{
	struct out o = { .rows = rows, .max = rows ? max : 0, .stats = stats };
	struct cursor c = { eh, eh + size, true };
	u64 len, id;

	memset(stats, 0, sizeof(*stats));
	while (c.p < c.end) {
		len = get_bytes(&c, 4);
		if (!c.ok)
			break;
		if (len == 0)			/* the terminator */
			break;
		if (len == 0xffffffff || len > (u64)(c.end - c.p)) {
			stats->bad++;		/* 64-bit DWARF or a broken length: stop */
			break;
		}
		id = 0;
		if (len >= 4)
			id = (u32)(c.p[0] | c.p[1] << 8 | c.p[2] << 16 | (u32)c.p[3] << 24);
		if (id)				/* an FDE; CIEs are read from their FDEs */
			read_fde((struct cursor){ c.p, c.p + len, true }, eh, size, eh_vaddr, &o);
		c.p += len;
	}
	if (!o.n && !stats->fdes && stats->bad)
		return -EINVAL;
	return o.n;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ntkl_cfi_row *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	/* at one pc, a range's end sorts before the rule that begins there */
	return (x->kind != NTKL_CFI_NONE) - (y->kind != NTKL_CFI_NONE);
}

/* The end of the ascending run of rows that begins at i. */
static size_t run_end(const struct ntkl_cfi_row *rows, size_t i, size_t n)
{
	for (i++; i < n && row_cmp(&rows[i - 1], &rows[i]) <= 0; i++)
		;
	return i;
}

/*
 * Sort by merging runs: each FDE's rows ascend, and a linker writes FDEs
 * mostly in address order (libc's 28,000 rows are some 200 runs), so a
 * few passes of merging neighbouring runs sort them, where a heapsort
 * (sort()) costs n log n compares through a function pointer.
 */
static void merge_runs(struct ntkl_cfi_row *rows, struct ntkl_cfi_row *scratch, size_t n)
{
	struct ntkl_cfi_row *src = rows, *dst = scratch, *t;
	size_t i, mid, end, a, b, o, runs;

	do {
		runs = 0;
		for (i = 0; i < n; i = end) {
			mid = run_end(src, i, n);
			end = mid < n ? run_end(src, mid, n) : n;
			runs++;
			for (a = i, b = mid, o = i; o < end; o++)
				dst[o] = b >= end || (a < mid && row_cmp(&src[a], &src[b]) <= 0) ?
					 src[a++] : src[b++];
		}
		t = src;
		src = dst;
		dst = t;
	} while (runs > 1);
	if (src != rows)
		memcpy(rows, src, n * sizeof(*rows));
}

size_t ntkl_cfi_sort(struct ntkl_cfi_row *rows, size_t n, struct ntkl_cfi_row *scratch)
{
	size_t i, out = 0;

	if (run_end(rows, 0, n) < n) {
		if (scratch)
			merge_runs(rows, scratch, n);
		else
			sort(rows, n, sizeof(*rows), row_cmp, NULL);
	}
	for (i = 0; i < n; i++) {
		if (out && rows[out - 1].pc == rows[i].pc)
			out--;			/* the later says more */
		if (out && same_rule(&rows[out - 1], &rows[i]))
			continue;
		rows[out++] = rows[i];
	}
	return out;
}

void ntkl_cfi_index(const struct ntkl_cfi_row *rows, size_t n, u32 *index)
{
	size_t b, nb = ntkl_cfi_index_size(rows, n), i = 0;
	u64 start;

	for (b = 0; b < nb; b++) {
		start = rows[0].pc + ((u64)b << NTKL_CFI_BUCKET_SHIFT);
		while (i + 1 < n && rows[i + 1].pc <= start)
			i++;
		index[b] = i;
	}
}
