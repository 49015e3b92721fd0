// SPDX-License-Identifier: GPL-2.0
/*
 * A file a command makes whole (relog, merge): written to a temporary file
 * beside its path, synced, then renamed over it, so that a killed command
 * leaves the old file or the new one, never half of one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"

int cmd_write_whole(const char *path, const uint8_t *data, size_t size)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	size_t done = 0;
	int fd, e = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = -errno;
		free(tmp);
		return e;
	}
	while (done < size && !e) {
		ssize_t n = write(fd, data + done, size - done);

		if (n < 0 && errno != EINTR)
			e = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (!e && (fchmod(fd, 0644) || fsync(fd)))
		e = -errno;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	free(tmp);
	return e;
}
