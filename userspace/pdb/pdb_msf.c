// SPDX-License-Identifier: GPL-2.0
/*
 * The MSF 7.00 container (facts from LLVM's docs/PDB/MsfFile.rst):
 *
 *	block 0		the superblock: magic, block size, the active free
 *			block map (1), block count, directory size, and the
 *			block that lists the directory's blocks
 *	blocks 1, 2	the two free block maps (FPMs); a set bit = a free block.
 *			They repeat every block-size blocks (4097, 4098, ...),
 *			so no stream may use those blocks
 *	the rest	stream data, the directory (stream count, each size,
 *			each stream's block numbers) and the block listing
 *			the directory's blocks
 *
 * Streams get consecutive blocks in stream order; nothing is free, so the
 * free block maps mark every block in use and only the bits past the last
 * block free. The file is exactly block count * block size long, which
 * readers check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb_msf.h"

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";

/* A free block map at every block-size interval: k * size + 1 and + 2. */
static int is_fpm_block(uint32_t block)
{
	uint32_t in_interval = block % PDB_MSF_BLOCK_SIZE;

	return in_interval == 1 || in_interval == 2;
}

struct msf_layout {
	uint32_t next;		/* the next unused block */
};

static uint32_t next_block(struct msf_layout *l)
{
	while (is_fpm_block(l->next))
		l->next++;
	return l->next++;
}

static uint32_t blocks_for(size_t bytes)
{
	return (uint32_t)((bytes + PDB_MSF_BLOCK_SIZE - 1) / PDB_MSF_BLOCK_SIZE);
}

/*
 * The free block map as readers see it: the FPM blocks of every interval
 * read in order make one bit array, bit i saying whether block i is free.
 */
static void write_fpm(uint8_t *file, uint32_t nblocks, uint32_t which)
{
	const uint32_t bits_per_block = PDB_MSF_BLOCK_SIZE * 8;

	for (uint32_t fpm = which; fpm < nblocks; fpm += PDB_MSF_BLOCK_SIZE)
		memset(file + (size_t)fpm * PDB_MSF_BLOCK_SIZE, 0xff, PDB_MSF_BLOCK_SIZE);
	for (uint32_t b = 0; b < nblocks; b++) {
		uint32_t fpm = b / bits_per_block * PDB_MSF_BLOCK_SIZE + which;
		uint32_t bit = b % bits_per_block;

		file[(size_t)fpm * PDB_MSF_BLOCK_SIZE + bit / 8] &= (uint8_t)~(1u << (bit % 8));
	}
}

int pdb_msf_build(const struct pdb_buf *streams, unsigned int nstreams,
		  uint8_t **file_out, size_t *size_out, char *err, size_t err_size)
{
	struct msf_layout l = { .next = 3 };
	uint32_t *first = NULL, *blocks = NULL, *dir_blocks = NULL;
	uint32_t total = 0, ndir, map_block;
	size_t dir_bytes, file_size, k;
	uint8_t *file = NULL, *dir = NULL;
	int ret = -ENOMEM;

	*file_out = NULL;
	*size_out = 0;
	for (unsigned int s = 0; s < nstreams; s++) {
		if (streams[s].len > UINT32_MAX / 2) {
			snprintf(err, err_size, "PDB stream %u is %zu bytes: too big for a PDB",
				 s, streams[s].len);
			return -EFBIG;
		}
		total += blocks_for(streams[s].len);
	}
	first = calloc(nstreams + 1, sizeof(*first));
	blocks = calloc(total ? total : 1, sizeof(*blocks));
	if (!first || !blocks)
		goto nomem;
	k = 0;
	for (unsigned int s = 0; s < nstreams; s++) {
		first[s] = (uint32_t)k;
		for (uint32_t i = 0; i < blocks_for(streams[s].len); i++)
			blocks[k++] = next_block(&l);
	}
	first[nstreams] = (uint32_t)k;

	/* the directory: count, sizes, then every stream's block numbers */
	dir_bytes = 4 + 4 * (size_t)nstreams + 4 * (size_t)total;
	ndir = blocks_for(dir_bytes);
	if (ndir > PDB_MSF_BLOCK_SIZE / 4) {
		/* its block list must fit the one block the superblock names */
		snprintf(err, err_size, "PDB directory of %zu bytes does not fit one block map",
			 dir_bytes);
		ret = -EFBIG;
		goto out;
	}
	dir_blocks = calloc(ndir ? ndir : 1, sizeof(*dir_blocks));
	dir = calloc(1, (size_t)ndir * PDB_MSF_BLOCK_SIZE);
	if (!dir_blocks || !dir)
		goto nomem;
	for (uint32_t i = 0; i < ndir; i++)
		dir_blocks[i] = next_block(&l);
	map_block = next_block(&l);

	pdb_put_le32(dir, nstreams);
	for (unsigned int s = 0; s < nstreams; s++)
		pdb_put_le32(dir + 4 + 4 * s, (uint32_t)streams[s].len);
	for (k = 0; k < total; k++)
		pdb_put_le32(dir + 4 + 4 * (size_t)nstreams + 4 * k, blocks[k]);

	file_size = (size_t)l.next * PDB_MSF_BLOCK_SIZE;
	file = calloc(1, file_size);
	if (!file)
		goto nomem;

	memcpy(file, msf_magic, sizeof(msf_magic));
	pdb_put_le32(file + 32, PDB_MSF_BLOCK_SIZE);
	pdb_put_le32(file + 36, 1);		/* the active free block map */
	pdb_put_le32(file + 40, l.next);	/* block count */
	pdb_put_le32(file + 44, (uint32_t)dir_bytes);
	pdb_put_le32(file + 48, 0);
	pdb_put_le32(file + 52, map_block);
	write_fpm(file, l.next, 1);
	write_fpm(file, l.next, 2);

	for (unsigned int s = 0; s < nstreams; s++) {
		size_t done = 0;

		for (k = first[s]; k < first[s + 1]; k++) {
			size_t n = streams[s].len - done;

			if (n > PDB_MSF_BLOCK_SIZE)
				n = PDB_MSF_BLOCK_SIZE;
			memcpy(file + (size_t)blocks[k] * PDB_MSF_BLOCK_SIZE,
			       streams[s].data + done, n);
			done += n;
		}
	}
	for (uint32_t i = 0; i < ndir; i++) {
		memcpy(file + (size_t)dir_blocks[i] * PDB_MSF_BLOCK_SIZE,
		       dir + (size_t)i * PDB_MSF_BLOCK_SIZE, PDB_MSF_BLOCK_SIZE);
		pdb_put_le32(file + (size_t)map_block * PDB_MSF_BLOCK_SIZE + 4 * i,
			     dir_blocks[i]);
	}
	*file_out = file;
	*size_out = file_size;
	file = NULL;
	ret = 0;
	goto out;
nomem:
	snprintf(err, err_size, "out of memory laying out the PDB's blocks");
out:
	free(file);
	free(dir);
	free(dir_blocks);
	free(blocks);
	free(first);
	return ret;
}
