/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing whole buffers to a file with direct I/O (O_DIRECT), where the
 * file's file system supports it.
 *
 * Why: a buffered write() of a trace costs the CPU twice per byte. The
 * kernel allocates a page-cache page for every 4 KB of file, and zeroes it
 * (Debian's kernels set init_on_alloc). Then it copies the bytes into it.
 * A logger's buffers are whole, page-aligned in the writer's mapping of
 * them (uapi/ntkl.h "Mapped reading"), and land at multiples of their size.
 * That is what direct I/O asks for, so the device takes them straight
 * from the logger's pages: the CPU touches none of the bytes. Each further
 * logger then costs its records, not its records three times over.
 *
 * When: only where statx() reports the file's direct-I/O alignment
 * (STATX_DIOALIGN: ext4, xfs, f2fs, btrfs, block devices; tmpfs and most
 * network file systems report none, and there a buffered write is all
 * there is), and a buffer of the writer's size at a multiple of it meets
 * that alignment. Otherwise the caller writes as before.
 *
 * The direct descriptor is a second open of the same file: the first one
 * stays buffered for the few hundred bytes of header the writer patches
 * in place after every buffer (direct I/O would need whole blocks).
 *
 * A direct write returns only once the device has the data: where the
 * device is slow next to the event rate, the logger's buffers fill up
 * while the writer waits. Several writes in flight (ntkl_inflight.h, each
 * buffer held meanwhile: NTKL_NEXT_KEEP) wait less, but under make bench's
 * emulated disk still not enough (docs/design.md "Reading"), where the
 * page cache absorbs it all. So the writer uses this only when asked
 * (ntkl_writer.h says how).
 */
#ifndef NTKL_DIRECT_H
#define NTKL_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ntkl_direct {
	int fd;				/* the file opened O_DIRECT, or -1 */
	uint32_t mem_align;		/* what a buffer's address must be a multiple of */
};

/* Not in use: what ntkl_direct_open() leaves when it cannot. */
#define NTKL_DIRECT_NONE	((struct ntkl_direct){ .fd = -1 })

/*
 * Open the regular file at fd again for direct writes of unit bytes at
 * multiples of unit, from memory aligned to mem (a power of two: the page
 * size, say), if its file system allows: 0, or -errno (-EOPNOTSUPP: not a
 * regular file, no alignment reported, or unit and mem do not meet it)
 * with d->fd -1. The caller then writes buffered; no error to report.
 */
int ntkl_direct_open(struct ntkl_direct *d, int fd, size_t unit, size_t mem);

/*
 * len bytes at p to offset off: direct where p is aligned, else through
 * buffered_fd (the same file, buffered); through short writes and EINTR.
 * A file system that reported an alignment and then refuses it (EINVAL)
 * gets the rest buffered, and d stops being used. 0 or -errno.
 */
int ntkl_direct_pwrite(struct ntkl_direct *d, int buffered_fd, const uint8_t *p,
		       size_t len, uint64_t off);

/* Whether len bytes at p may go direct: d open, and p aligned for it. */
bool ntkl_direct_usable(const struct ntkl_direct *d, const uint8_t *p, size_t len);

/*
 * The end of a direct write of len bytes at p to off made elsewhere (in
 * flight), res its result (bytes written, or -errno): what it left
 * unwritten goes through buffered_fd, as ntkl_direct_pwrite() does. 0 or
 * -errno.
 */
int ntkl_direct_complete(struct ntkl_direct *d, int buffered_fd, const uint8_t *p,
			 size_t len, uint64_t off, ssize_t res);

void ntkl_direct_close(struct ntkl_direct *d);

#endif /* NTKL_DIRECT_H */
