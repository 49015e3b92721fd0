// SPDX-License-Identifier: GPL-2.0
/* Writing a whole buffer (etl_io.h). */
#include <errno.h>
#include <unistd.h>

#include "etl_io.h"

int etl_write_all(int fd, const void *p, size_t len, int64_t off)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = off < 0 ? write(fd, b, len) : pwrite(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		b += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}
