// SPDX-License-Identifier: GPL-2.0
/* A growable little-endian byte buffer for building PDB streams. */
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb_buf.h"

void pdb_buf_free(struct pdb_buf *b)
{
	free(b->data);
	*b = (struct pdb_buf){ 0 };
}

/* Room for n more bytes; false (and the buffer marked) if there is none. */
static bool pdb_buf_room(struct pdb_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void pdb_buf_put(struct pdb_buf *b, const void *p, size_t n)
{
	if (!n || !pdb_buf_room(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pdb_buf_zero(struct pdb_buf *b, size_t n)
{
	if (!n || !pdb_buf_room(b, n))
		return;
	memset(b->data + b->len, 0, n);
	b->len += n;
}

void pdb_buf_u8(struct pdb_buf *b, uint8_t v)
{
	pdb_buf_put(b, &v, 1);
}

void pdb_buf_u16(struct pdb_buf *b, uint16_t v)
{
	uint8_t le[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	pdb_buf_put(b, le, 2);
}

void pdb_buf_u32(struct pdb_buf *b, uint32_t v)
{
	uint8_t le[4];

	pdb_put_le32(le, v);
	pdb_buf_put(b, le, 4);
}

void pdb_buf_str(struct pdb_buf *b, const char *s)
{
	pdb_buf_put(b, s, strlen(s) + 1);
}

void pdb_buf_align(struct pdb_buf *b, size_t align)
{
	pdb_buf_zero(b, (align - b->len % align) % align);
}

void pdb_buf_set_u16(struct pdb_buf *b, size_t off, uint16_t v)
{
	if (b->failed || off + 2 > b->len)
		return;
	b->data[off] = (uint8_t)v;
	b->data[off + 1] = (uint8_t)(v >> 8);
}

void pdb_buf_set_u32(struct pdb_buf *b, size_t off, uint32_t v)
{
	if (b->failed || off + 4 > b->len)
		return;
	pdb_put_le32(b->data + off, v);
}
