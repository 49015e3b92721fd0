// SPDX-License-Identifier: GPL-2.0
/*
 * Direct writes of whole buffers. See ntkl_direct.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etl/etl_io.h"
#include "ntkl_direct.h"

int ntkl_direct_open(struct ntkl_direct *d, int fd, size_t unit, size_t mem)
{
	struct statx stx;
	char self[64];
	int dfd;

	*d = NTKL_DIRECT_NONE;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_DIOALIGN, &stx) < 0)
		return -errno;
	if (!S_ISREG(stx.stx_mode) || !(stx.stx_mask & STATX_DIOALIGN) ||
	    !stx.stx_dio_mem_align || !stx.stx_dio_offset_align ||
	    mem % stx.stx_dio_mem_align || unit % stx.stx_dio_offset_align)
		return -EOPNOTSUPP;
	/* a new open file description: O_DIRECT on a dup would be on fd too */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	dfd = open(self, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d->fd = dfd;
	d->mem_align = stx.stx_dio_mem_align;
	return 0;
}

bool ntkl_direct_usable(const struct ntkl_direct *d, const uint8_t *p, size_t len)
{
	return len && d->fd >= 0 && !((uintptr_t)p % d->mem_align);
}

int ntkl_direct_complete(struct ntkl_direct *d, int buffered_fd, const uint8_t *p,
			 size_t len, uint64_t off, ssize_t res)
{
	if (res < 0 && res != -EINVAL)
		return (int)res;
	if (res < 0) {
		/* alignment promised and then refused: buffered from now on */
		ntkl_direct_close(d);
	} else if ((size_t)res <= len) {
		/* a short write (the disk filling up): the rest buffered */
		p += res;
		off += (uint64_t)res;
		len -= (size_t)res;
	}
	return etl_write_all(buffered_fd, p, len, (int64_t)off);
}

int ntkl_direct_pwrite(struct ntkl_direct *d, int buffered_fd, const uint8_t *p,
		       size_t len, uint64_t off)
{
	ssize_t n;

	if (!ntkl_direct_usable(d, p, len))
		return etl_write_all(buffered_fd, p, len, (int64_t)off);
	do
		n = pwrite(d->fd, p, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return ntkl_direct_complete(d, buffered_fd, p, len, off, n < 0 ? -errno : n);
}

void ntkl_direct_close(struct ntkl_direct *d)
{
	if (d->fd >= 0)
		close(d->fd);
	*d = NTKL_DIRECT_NONE;
}
