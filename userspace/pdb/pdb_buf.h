/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable little-endian byte buffer: each PDB stream is built in one
 * before the MSF container lays them out in blocks. An allocation that
 * fails marks the buffer; the writer checks the mark once at the end
 * rather than after every append.
 */
#ifndef NTKL_PDB_BUF_H
#define NTKL_PDB_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdb_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;		/* an allocation failed: the contents are short */
};

void pdb_buf_free(struct pdb_buf *b);
void pdb_buf_put(struct pdb_buf *b, const void *p, size_t n);
void pdb_buf_zero(struct pdb_buf *b, size_t n);
void pdb_buf_u8(struct pdb_buf *b, uint8_t v);
void pdb_buf_u16(struct pdb_buf *b, uint16_t v);
void pdb_buf_u32(struct pdb_buf *b, uint32_t v);
/* s and its terminating NUL */
void pdb_buf_str(struct pdb_buf *b, const char *s);
/* zero bytes up to a multiple of align */
void pdb_buf_align(struct pdb_buf *b, size_t align);
/* overwrite what was appended earlier at off */
void pdb_buf_set_u16(struct pdb_buf *b, size_t off, uint16_t v);
void pdb_buf_set_u32(struct pdb_buf *b, size_t off, uint32_t v);

static inline void pdb_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif /* NTKL_PDB_BUF_H */
