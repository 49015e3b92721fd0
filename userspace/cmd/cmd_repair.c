// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl dump --repair FILE: complete a file whose writer died, in place,
 * changing only what etl_repair_plan() says is wrong. The plan is made
 * from the file as it is before anything is written, so a healthy file,
 * or one that is no ETL file, is never touched.
 *
 * The file is opened for writing only once the plan says something must
 * change. The header and FLUSH_MARKER are written (and synced) before the
 * partial buffer is cut off: a repair killed in between leaves a file
 * that reads as before and that a second --repair completes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "etl/etl.h"

/* One line: what the repair changed, and what it kept. */
static void say_changes(const char *path, const struct etl_repair *r)
{
	char before[64], after[64];

	printf("%s: repaired:", path);
	if (r->whole < r->size)
		printf(" cut %" PRIu64 " bytes of a partly written buffer off the end;",
		       r->size - r->whole);
	if (r->buffers != r->old_buffers_written)
		printf(" BuffersWritten %u -> %" PRIu64 ";", r->old_buffers_written, r->buffers);
	if (r->end_time != r->old_end_time)
		printf(" EndTime %s -> %s (the latest buffer's time);",
		       etl_filetime_str(r->old_end_time, before, sizeof(before)),
		       etl_filetime_str(r->end_time, after, sizeof(after)));
	if (r->mark_last)
		printf(" FLUSH_MARKER set on the last buffer (file offset 0x%" PRIx64 ");",
		       r->last);
	printf(" EventsLost %u and BuffersLost %u kept as recorded\n", r->events_lost,
	       r->buffers_lost);
}

/* write len bytes of map at off back to the file: 0 or -1 said */
static int put_back(const char *path, int fd, const uint8_t *map, size_t off, size_t len)
{
	if (pwrite(fd, map + off, len, (off_t)off) == (ssize_t)len)
		return 0;
	fprintf(stderr, "ntkl dump: --repair: %s: writing at file offset 0x%zx: %s\n", path, off,
		errno ? strerror(errno) : "short write");
	return -1;
}

/*
 * Apply r: map is a private (copy-on-write) mapping of the file, patched
 * here and the changed bytes written to the file, reopened for writing
 * only now that the plan says something must change. 0, or -1 said.
 */
static int repair_in_place(const char *path, const struct stat *was, uint8_t *map,
			   const struct etl_repair *r)
{
	struct stat now;
	int fd, ret = -1;

	etl_repair_apply(map, r);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ntkl dump: --repair: %s: cannot open for writing: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &now) || now.st_ino != was->st_ino || now.st_dev != was->st_dev ||
	    now.st_size != was->st_size) {
		fprintf(stderr, "ntkl dump: --repair: %s: the file changed while it was read: run --repair again\n",
			path);
		goto out;
	}
	if (put_back(path, fd, map, ETL_REPAIR_LOGFILE_HEADER_OFFSET,
		     sizeof(struct trace_logfile_header)) ||
	    (r->mark_last && put_back(path, fd, map, r->last, ETL_BUFFER_HEADER_SIZE)))
		goto out;
	if (fsync(fd) && errno != EINVAL) {
		fprintf(stderr, "ntkl dump: --repair: %s: fsync: %s\n", path, strerror(errno));
		goto out;
	}
	if (r->whole < r->size && ftruncate(fd, (off_t)r->whole)) {
		fprintf(stderr, "ntkl dump: --repair: %s: cannot cut the partial buffer off: %s\n",
			path, strerror(errno));
		goto out;
	}
	if (fsync(fd) && errno != EINVAL) {
		fprintf(stderr, "ntkl dump: --repair: %s: fsync: %s\n", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

int cmd_dump_repair(const char *path)
{
	struct etl_check_stats st;
	struct etl_repair r;
	struct etl_error e;
	struct etl_file f;
	struct stat sb;
	uint8_t *map;
	unsigned long bad;
	int fd, ret;

	/* O_NONBLOCK: a FIFO is refused below, not waited on for ever */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ntkl dump: --repair: %s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
		fprintf(stderr, "ntkl dump: --repair: %s: %s\n", path,
			sb.st_size == 0 && S_ISREG(sb.st_mode) ? "empty file (0 bytes): not an ETL file" :
			"not a regular file");
		close(fd);
		return 1;
	}
	/* private: the plan is made on what the file is; nothing reaches it unasked */
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "ntkl dump: --repair: %s: cannot map: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	if (etl_repair_plan(map, (uint64_t)sb.st_size, &r, &e)) {
		fprintf(stderr, "ntkl dump: --repair: %s: %s; the file is unchanged\n", path, e.msg);
		ret = -1;
	} else if (!r.needed) {
		printf("%s: nothing to repair: %" PRIu64 " whole buffers, as BuffersWritten says; the file is unchanged\n",
		       path, r.buffers);
		ret = 1;
	} else {
		ret = repair_in_place(path, &sb, map, &r);
	}
	munmap(map, (size_t)sb.st_size);
	close(fd);
	if (ret)
		return ret < 0 ? 1 : 0;
	say_changes(path, &r);
	if (etl_open(&f, path, &e)) {
		fprintf(stderr, "ntkl dump: --repair: %s: still unreadable: %s\n", path, e.msg);
		return 1;
	}
	bad = etl_check(&f, true, NULL, NULL, &st);
	etl_close(&f);
	printf("%s: %" PRIu64 " buffers, %lu events%s\n", path, r.buffers, st.records,
	       bad ? "; ntkl dump --check still finds problems" : ", every check passed");
	return bad ? 1 : 0;
}
