/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ETL file as one writer makes it, apart from where its buffers come
 * from: the ntkl command's logger writer (ntkl_writer.h) and libntkl's
 * private loggers (libntkl/um_file.c) both create it here, append whole
 * buffers, complete the header buffer (buffer 0: the Header event with
 * LogFileName and TimeZone), patch its counters as buffers land, and mark
 * the last buffer. Kept apart from the logger writer so that libntkl
 * needs none of the writer's I/O machinery (io_uring, direct I/O).
 */
#ifndef NTKL_ETL_FILE_H
#define NTKL_ETL_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl/etl_io.h"
#include "etl/etl_reader.h"
#include "uapi/ntkl.h"
#include "uapi/ntkl_etw.h"

/* The Header event: first record of buffer 0, a SYSTEM64 header, then this. */
#define ETL_HEADER_EVENT_OFFSET		ETL_BUFFER_HEADER_SIZE
#define ETL_LOGFILE_HEADER_OFFSET	(ETL_HEADER_EVENT_OFFSET + sizeof(struct system_trace_header))
/* what a header patch reads and rewrites: up to the logfile header's end */
#define ETL_HEADER_PATCH_BYTES		(ETL_LOGFILE_HEADER_OFFSET + \
					 sizeof(struct trace_logfile_header))

/* What the end patches into the Header event. */
struct etl_header_patch {
	int64_t end_time;		/* FILETIME */
	uint32_t buffers_written;
	uint32_t events_lost;
	uint32_t buffers_lost;
};

/*
 * Create (or empty) the ETL file at path for one writer: a descriptor,
 * with an exclusive flock() held for as long as it (or a fork's copy) is
 * open, or -errno with a one-line reason in err: -EEXIST when another
 * ntkl writer holds the file (naming its logger when it is a background
 * writer: two loggers on one file would lose the first one's events).
 * The file is only emptied once the lock is ours, and once path still
 * names the file locked: one replaced meanwhile (ntkl_output_commit()
 * renames a new file over the old) is opened again.
 */
int ntkl_output_create(const char *path, char *err, size_t err_size);

/*
 * The ETL file at path for one writer, made so that a writer that fails
 * to start (libntkl's ntkl_um_start) leaves path as it was: a file there
 * byte for byte, or none. Locked as ntkl_output_create() locks (-EEXIST
 * while another ntkl writer holds the file, a device or FIFO refused).
 *
 * ntkl_output_begin(): with no file at path, create it (O_EXCL: this
 * call's own) and write it where it lies. With one there, follow a
 * symlink to it (the link stays), hold its lock without changing a byte
 * of it, and create the new file beside it (TARGET.XXXXXX, its owner
 * where allowed and its permissions), locked. The writer writes o->fd.
 * ntkl_output_commit(): the new file takes the old one's name (rename),
 * once the writer has started. ntkl_output_abort(): remove what this
 * writer made (the temporary file, or the file it created, if path
 * still names it) and close it all; nothing else is ever removed. Each
 * returns 0 or -errno with a one-line reason in err.
 */
struct ntkl_output_new {
	int fd;				/* the file to write, locked */
	int old_fd;			/* the file there before, locked; -1 if none */
	bool created;			/* fd is path itself, created by this writer */
	char target[PATH_MAX];		/* the file's name: path, symlinks resolved */
	char tmp[PATH_MAX + 8];		/* fd's name until the commit, or "" */
};

int ntkl_output_begin(struct ntkl_output_new *o, const char *path, char *err, size_t err_size);
int ntkl_output_commit(struct ntkl_output_new *o, char *err, size_t err_size);
void ntkl_output_abort(struct ntkl_output_new *o);

/*
 * Complete the header buffer (size bytes at buf) as the one that writes
 * the file: the Header event's LogFileName (UTF-8 path, made UTF-16; the
 * records after it move up) and its TimeZone (tz; NULL keeps the
 * module's). 0, or -1 with a reason in err if buf holds no Header event
 * or the name does not fit.
 */
int etl_header_complete(uint8_t *buf, size_t size, const char *log_file_name,
			const struct etw_time_zone_information *tz,
			char *err, size_t err_size);

/*
 * The patch for a file of buffers buffers (the header buffer included)
 * and the logger's final properties (may be NULL: no losses), EndTime
 * now; counters above 32 bits are clamped to 0xFFFFFFFF.
 */
void etl_header_patch_init(struct etl_header_patch *patch, uint64_t buffers,
			   const struct ntkl_properties *final);

/*
 * Patch the Header event in the first len bytes of a file (buffer 0):
 * 0, or -1 with a reason in err if buffer 0 does not start with one.
 */
int etl_header_patch_mem(uint8_t *data, size_t len,
			 const struct etl_header_patch *patch,
			 char *err, size_t err_size);

/* Same on the file open at fd (pread, patch, pwrite): 0 or -errno/-EINVAL. */
int etl_header_patch_fd(int fd, const struct etl_header_patch *patch,
			char *err, size_t err_size);

/*
 * Set FLUSH_MARKER on the last of a file's buffers, the one at file
 * offset last (0: the header buffer is the only one, and has it), as
 * Windows marks the buffer its final flush wrote. A compressed file's
 * buffers differ in size, so the caller says where it is. 0 or -errno
 * with a reason in err.
 */
int etl_mark_last_buffer_fd(int fd, uint64_t last, char *err, size_t err_size);

/*
 * Complete a file whose writer died (SIGKILL, OOM) before patching it, as
 * `ntkl dump --repair` plans it (etl/etl_repair.h): cut a partly written
 * buffer off the end and patch the header with the whole buffers found
 * (*buffers), EndTime the latest whole buffer's time (now only if no
 * buffer time converts), and the logger's final counters (final may be
 * NULL). A file damaged before its end is refused, as repair refuses it.
 * 0, or -errno with a reason in err.
 */
int ntkl_file_complete(const char *path, const struct ntkl_properties *final,
		      uint64_t *buffers, char *err, size_t err_size);

/* FILETIME (100 ns since 1601) of the real-time clock now. */
int64_t etl_filetime_now(void);

#endif /* NTKL_ETL_FILE_H */
