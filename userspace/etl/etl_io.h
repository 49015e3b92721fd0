/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a whole buffer to a file (etl_io.c): what the ETL writers, the
 * real-time writer's direct I/O and the PDB writer all need.
 */
#ifndef NTKL_ETL_IO_H
#define NTKL_ETL_IO_H

#include <stddef.h>
#include <stdint.h>

/*
 * len bytes at p to fd, at its file offset (off < 0) or at off, through
 * short writes and EINTR: 0, or -errno (-EIO when nothing more could be
 * written).
 */
int etl_write_all(int fd, const void *p, size_t len, int64_t off);

#endif /* NTKL_ETL_IO_H */
