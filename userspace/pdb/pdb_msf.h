/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MSF 7.00 container a PDB is: a file of fixed-size blocks holding
 * numbered streams, found through a directory (docs/pdb.md).
 */
#ifndef NTKL_PDB_MSF_H
#define NTKL_PDB_MSF_H

#include <stddef.h>
#include <stdint.h>

#include "pdb/pdb_buf.h"

#define PDB_MSF_BLOCK_SIZE	4096u

/*
 * The whole container for streams[0, nstreams), in one malloc'd buffer
 * (*file, *file_size). 0, or -errno with a reason in err.
 */
int pdb_msf_build(const struct pdb_buf *streams, unsigned int nstreams,
		  uint8_t **file, size_t *file_size, char *err, size_t err_size);

#endif /* NTKL_PDB_MSF_H */
