/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write an ETL file from a logger: read whole buffers from a descriptor
 * bound to it (the header buffer first, then buffers 1..N; 0 at the end)
 * and append them to a file; after each buffer (so that a file cut by a
 * crash or kill -9 reads whole, EventsLost aside) and at the end, patch
 * the header buffer's Header event with:
 *
 *	EndTime         FILETIME now
 *	BuffersWritten  buffers in the file, the header buffer included:
 *	                readers walk exactly that many (etl_check checks it)
 *	EventsLost      the logger's final count (QUERY on the bound fd)
 *	BuffersLost     likewise
 *
 * The commands use it three ways: ntkl start's background writer, ntkl
 * save (a buffering-mode snapshot), ntkl record (in the foreground).
 *
 * Where the module lets it (uapi/ntkl.h "Mapped reading": a reader that
 * may see kernel addresses), the writer maps the logger's buffers and
 * writes each from where it lies (NEXT_BUFFER), saving read()'s copy of
 * every byte; else it reads them.
 *
 * With NTKL_DIRECT_IO=1 in the environment (an experiment, off by
 * default: docs/design.md "Reading" has the figures), it writes every
 * buffer with direct I/O where the file's file system allows
 * (ntkl_direct.h): the device takes a buffer straight from the logger's
 * pages, and no page-cache page is allocated, zeroed and filled for it.
 * Where the buffers are mapped and the kernel has io_uring, up to
 * NTKL_INFLIGHT_MAX writes are in flight (ntkl_inflight.h), each buffer
 * held in the logger until its write is done (NTKL_NEXT_KEEP); else one
 * at a time. A buffer counts as in the file (and in BuffersWritten) once
 * its write and every earlier one are done. Only the header buffer and
 * its patches go through the page cache.
 */
#ifndef NTKL_WRITER_H
#define NTKL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "etl_file.h"
#include "ntkl_direct.h"
#include "ntkl_inflight.h"
#include "uapi/ntkl.h"
#include "uapi/ntkl_etw.h"

struct ntkl_writer {
	int in_fd;			/* bound to the logger */
	int out_fd;			/* the file, written from offset 0 */
	uint32_t buffer_size;		/* bytes per buffer */
	uint8_t *buf;			/* one buffer, page-aligned */
	const uint8_t *cur;		/* the buffer to write: buf, or in map */
	int64_t cur_records;		/* its records as the module counted, or -1 */
	const uint8_t *map;		/* the logger's buffers mapped, or NULL */
	size_t map_len;
	uint64_t buffers;		/* in the file, header buffer included */
	uint64_t bytes;			/* ... and their bytes */
	uint64_t taken;			/* buffers put: in the file or in flight */
	uint64_t next_offset;		/* where the next buffer goes */
	/* the file opened for direct writes (decided at the first buffer) */
	struct ntkl_direct direct;
	int at_offsets;			/* so every write is a pwrite() at its offset */
	/* writes in flight, their buffers held in the logger (NTKL_NEXT_KEEP) */
	struct ntkl_inflight inflight;
	int async;			/* data buffers go through inflight */
	uint32_t release;		/* held buffers done with: give back next */
	uint64_t last_offset;		/* of the last buffer written */
	struct wmi_buffer_header last_data;	/* the last data buffer's header */
	int64_t max_time;		/* the latest data buffer's TimeStamp */
	uint64_t events;		/* records in the data buffers */
	/* -compress: data buffers compressed as Windows writes them */
	uint8_t *cbuf;			/* NULL: not compressing */
	size_t cbuf_cap;
	const char *path;		/* the file's name, for LogFileName (or NULL) */
	int failed;			/* the first -errno: no step after it */
	char error[320];		/* why the last call failed */
};

/* Set up w; the descriptors stay the caller's. 0 or -ENOMEM. */
int ntkl_writer_init(struct ntkl_writer *w, int in_fd, int out_fd,
		    uint32_t buffer_size);
void ntkl_writer_free(struct ntkl_writer *w);

/*
 * Write the file compressed, as Windows' compressed ETL files are
 * (EVENT_TRACE_COMPRESSED_MODE, -compress): the header buffer as it is,
 * with COMPRESSED_MODE in its LogFileMode; each data buffer its header
 * (BufferFlag COMPRESSED, BufferSize the bytes on disk, SavedOffset the
 * size uncompressed) then its records as one [MS-XCA] LZ77 stream
 * (etl_xpress.h). Before the first step: 0 or -ENOMEM.
 */
int ntkl_writer_compress(struct ntkl_writer *w);

/*
 * Read one buffer and append it. Returns 1 (one more buffer in the file),
 * 0 (end of data: the logger stopped and is drained, or the snapshot
 * ended), or -errno with w->error set; a buffer that could not be written
 * whole is cut off again, so the file always ends on a buffer boundary.
 * Blocks in read() as the device does: poll in_fd first to avoid that.
 */
int ntkl_writer_step(struct ntkl_writer *w);

/* Steps until the end of data: 0 or -errno. */
int ntkl_writer_drain(struct ntkl_writer *w);

/*
 * The patch from the writer's count and the logger's final properties
 * (counters above 32 bits are clamped to 0xFFFFFFFF).
 */
void ntkl_writer_patch_from(const struct ntkl_writer *w,
			   const struct ntkl_properties *final,
			   struct etl_header_patch *patch);

/* Patch the file with the final properties and fsync it: 0 or -errno. */
int ntkl_writer_finish(struct ntkl_writer *w, const struct ntkl_properties *final);

/*
 * The end of a recording, once the logger stopped (or the snapshot is
 * taken): drain what is left unless error (the caller's first -errno, or
 * 0) says not to, add SystemConfig PhyDisk and LogDisk in a last buffer
 * (ntkl_sysconfig.h), take the logger's final counters (QUERY on the bound
 * in_fd, zeros if that fails) into *final, and patch the file holding
 * whatever whole buffers it has, so that it reads even after an error.
 * Returns the first error (w->error says it) or 0.
 */
int ntkl_writer_end(struct ntkl_writer *w, int error, struct ntkl_properties *final);


#endif /* NTKL_WRITER_H */
