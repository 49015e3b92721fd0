// SPDX-License-Identifier: GPL-2.0
/*
 * The logger thread's output: the header buffer, then each trace buffer as
 * the thread takes it, the header patched after each (so that a file cut
 * by a crash reads whole) and at the end (EndTime, BuffersWritten,
 * EventsLost, BuffersLost), with the ntkl writer's own pieces
 * (userspace/ctl/etl_file.h).
 *
 * EVENT_TRACE_COMPRESSED_MODE, as seed 003 describes user-mode loggers
 * (Windows 8.1 and later): each trace buffer becomes its header
 * (BufferFlag COMPRESSED, BufferSize = bytes on disk, SavedOffset = size
 * uncompressed) and its records as one [MS-XCA] LZ77 stream
 * (userspace/etl/etl_xpress.c), appended to a compression buffer two
 * buffers large. Whenever that holds a buffer's worth, the first
 * BufferSize bytes go to the file and the rest moves down, a partial
 * trace buffer that the next flush completes. One flush thus carries
 * pieces of many trace buffers: each counts as written once its last byte
 * is in the file. If a flush fails, every whole trace buffer in the
 * compression buffer is lost (LogBuffersLost); the tail of a trace buffer
 * that is already partly in the file stays, so a later flush that
 * succeeds (each flush tries again: a full disk may get space) completes
 * it. ntkl_um_stop returns the first write error all the same. On disk a compressed file is what `ntkl record
 * -compress` writes: compressed buffers back to back, which ntkl dump and
 * Windows' readers read.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "um_internal.h"
#include "ctl/etl_file.h"
#include "ctl/ntkl_time_zone.h"
#include "etl/etl_xpress.h"
#include "uapi/ntkl_etw.h"

struct um_entry {
	uint32_t start, len;		/* in cbuf */
	uint32_t events;
	uint64_t file_offset;		/* where it starts in the file */
};

struct um_logger_out {
	uint64_t bytes;			/* file size so far */
	uint64_t last_offset;		/* of the last whole buffer */
	uint64_t whole_end;		/* the end of the last whole buffer */
	uint8_t *zbuf;			/* one buffer compressed */
	size_t zcap;
	/* the compression buffer */
	uint8_t *cbuf;
	uint32_t cfill;
	struct um_entry *ent;
	uint32_t nent, ent_cap;
	uint32_t partial;		/* ent[0] is already partly in the file */
};

static void note_error(struct ntkl_um_logger *lg, int err, const char *what)
{
	if (lg->write_error)
		return;
	lg->write_error = err;
	snprintf(lg->error, sizeof(lg->error), "%s: %s: %s", lg->path, what, strerror(-err));
}

static void keep_whole(struct ntkl_um_logger *lg)
{
	struct etl_header_patch patch = {
		.end_time = etl_filetime_now(),
		.buffers_written = (uint32_t)atomic_load(&lg->buffers_written),
		.events_lost = (uint32_t)atomic_load(&lg->events_lost),
		.buffers_lost = (uint32_t)atomic_load(&lg->log_buffers_lost),
	};
	char err[160];
	int ret = etl_header_patch_fd(lg->fd, &patch, err, sizeof(err));

	if (ret)
		note_error(lg, ret, err);
}

int um_out_open(struct ntkl_um_logger *lg)
{
	struct um_logger_out *o = calloc(1, sizeof(*o));
	struct etw_time_zone_information tz;
	uint32_t size = lg->pool.size;
	char full[PATH_MAX], err[200];
	uint8_t *hdr;
	int ret;

	if (!o)
		return -ENOMEM;
	lg->out = o;
	if (lg->mode & NTKL_UM_MODE_COMPRESSED) {
		o->zcap = UM_BUF_HDR + etl_xpress_bound(size);
		o->zbuf = malloc(o->zcap);
		/* the compression buffer: two trace buffers large */
		o->cbuf = malloc(2 * (size_t)size);
		o->ent_cap = 2 * size / UM_BUF_HDR + 2;
		o->ent = calloc(o->ent_cap, sizeof(*o->ent));
		if (!o->zbuf || !o->cbuf || !o->ent)
			return -ENOMEM;
	}
	hdr = malloc(size);
	if (!hdr)
		return -ENOMEM;
	um_header_build(lg, hdr);
	ntkl_time_zone((int64_t)time(NULL), &tz);
	if (etl_header_complete(hdr, size, realpath(lg->path, full) ? full : lg->path, &tz,
				err, sizeof(err)) &&
	    etl_header_complete(hdr, size, NULL, &tz, err, sizeof(err))) {
		free(hdr);
		um_set_error("libntkl: the header buffer: %s", err);
		return -EINVAL;
	}
	ret = etl_write_all(lg->fd, hdr, size, -1);
	free(hdr);
	if (ret) {
		um_set_error("libntkl: writing the header buffer of %s: %s", lg->path,
			     strerror(-ret));
		return ret;
	}
	o->bytes = size;
	o->whole_end = size;
	atomic_store(&lg->buffers_written, 1);
	atomic_store(&lg->file_bytes, size);
	lg->seq = 1;
	return 0;
}

/* The trace buffer's header as it goes to the file. */
static void seal(struct ntkl_um_logger *lg, uint8_t *buf, uint32_t filled, uint16_t cpu)
{
	struct wmi_buffer_header bh;

	memset(&bh, 0, sizeof(bh));
	bh.buffer_size = lg->pool.size;
	bh.saved_offset = filled;
	bh.current_offset = filled;
	bh.offset = filled;
	bh.timestamp = (int64_t)um_clock_now(lg);
	bh.sequence_number = (int64_t)lg->seq++;
	bh.processor_index = cpu;
	bh.state = 3;
	bh.buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX;
	bh.buffer_type = ETW_BUFFER_TYPE_GENERIC;
	bh.start_time = lg->start_filetime;
	bh.start_perf_clock = (int64_t)lg->start_clock;
	memcpy(buf, &bh, sizeof(bh));
}

static void put_plain(struct ntkl_um_logger *lg, uint8_t *buf, uint32_t events)
{
	struct um_logger_out *o = lg->out;
	int ret = etl_write_all(lg->fd, buf, lg->pool.size, -1);

	if (ret) {
		/* cut a half-written buffer off: the file ends on a boundary */
		if (ftruncate(lg->fd, (off_t)o->bytes) == 0)
			lseek(lg->fd, (off_t)o->bytes, SEEK_SET);
		note_error(lg, ret, "writing a buffer");
		atomic_fetch_add(&lg->log_buffers_lost, 1);
		/* its SequenceNumber goes to the next one: the file's stay 1..N */
		lg->seq--;
		return;
	}
	o->last_offset = o->bytes;
	o->bytes += lg->pool.size;
	atomic_fetch_add(&lg->buffers_written, 1);
	atomic_fetch_add(&lg->events_written, events);
	atomic_store(&lg->file_bytes, o->bytes);
	keep_whole(lg);
}

/*
 * The first n bytes of the compression buffer to the file: the trace
 * buffers that end in them are written; on failure the whole ones are lost.
 */
static void flush_compressed(struct ntkl_um_logger *lg, uint32_t n)
{
	struct um_logger_out *o = lg->out;
	uint32_t i, done = 0;
	int ret = etl_write_all(lg->fd, o->cbuf, n, -1);

	if (ret) {
		/* what this flush wrote of itself goes: the file ends where it was */
		if (ftruncate(lg->fd, (off_t)o->bytes) == 0)
			lseek(lg->fd, (off_t)o->bytes, SEEK_SET);
		note_error(lg, ret, "writing the compression buffer");
		/*
		 * Every whole trace buffer in it is lost; a started one's tail
		 * stays. The lost ones took the latest SequenceNumbers: the
		 * next buffers take them again, so the file's stay 1..N.
		 */
		for (i = o->partial; i < o->nent; i++) {
			atomic_fetch_add(&lg->log_buffers_lost, 1);
			lg->seq--;
		}
		if (o->partial) {
			o->nent = 1;
			o->cfill = o->ent[0].len;
		} else {
			o->nent = 0;
			o->cfill = 0;
		}
		return;
	}
	for (i = 0; i < o->nent && o->ent[i].start + o->ent[i].len <= n; i++) {
		o->last_offset = o->ent[i].file_offset;
		o->whole_end = o->bytes + o->ent[i].start + o->ent[i].len;
		atomic_fetch_add(&lg->buffers_written, 1);
		atomic_fetch_add(&lg->events_written, o->ent[i].events);
		done++;
	}
	o->bytes += n;
	/* the rest moves down: its first entry (if any) is now partly in the file */
	memmove(o->cbuf, o->cbuf + n, o->cfill - n);
	o->cfill -= n;
	memmove(o->ent, o->ent + done, (o->nent - done) * sizeof(*o->ent));
	o->nent -= done;
	o->partial = 0;
	for (i = 0; i < o->nent; i++) {
		if (o->ent[i].start < n) {
			o->ent[i].len -= n - o->ent[i].start;
			o->ent[i].start = 0;
			o->partial = 1;
		} else {
			o->ent[i].start -= n;
		}
	}
	atomic_store(&lg->file_bytes, o->bytes);
	keep_whole(lg);
}

static void put_compressed(struct ntkl_um_logger *lg, uint8_t *buf, uint32_t filled,
			   uint32_t events)
{
	struct um_logger_out *o = lg->out;
	struct wmi_buffer_header bh;
	const uint8_t *src = buf;
	uint32_t len = lg->pool.size;
	struct um_entry *e;
	size_t n;

	memcpy(&bh, buf, sizeof(bh));
	if (!etl_xpress_compress(buf + UM_BUF_HDR, filled - UM_BUF_HDR, o->zbuf + UM_BUF_HDR,
				 o->zcap - UM_BUF_HDR, &n) &&
	    UM_BUF_HDR + n < lg->pool.size) {
		bh.buffer_size = (uint32_t)(UM_BUF_HDR + n);
		bh.buffer_flag |= ETW_BUFFER_FLAG_COMPRESSED;
		memcpy(o->zbuf, &bh, sizeof(bh));
		src = o->zbuf;
		len = bh.buffer_size;
	}
	/* (a buffer LZ77 cannot shrink goes as it is, a whole buffer) */
	e = &o->ent[o->nent++];
	e->start = o->cfill;
	e->len = len;
	e->events = events;
	e->file_offset = o->bytes + o->cfill;
	memcpy(o->cbuf + o->cfill, src, len);
	o->cfill += len;
	/* (after a failed flush only a partial tail stays: the loop ends) */
	while (o->cfill >= lg->pool.size)
		flush_compressed(lg, lg->pool.size);
}

void um_out_buffer(struct ntkl_um_logger *lg, uint8_t *buf, uint32_t filled, uint16_t cpu,
		   uint32_t events)
{
	int64_t t;

	seal(lg, buf, filled, cpu);
	memcpy(&t, buf + offsetof(struct wmi_buffer_header, timestamp), sizeof(t));
	if ((uint64_t)t > lg->max_time)
		lg->max_time = (uint64_t)t;
	if (lg->out->cbuf)
		put_compressed(lg, buf, filled, events);
	else
		put_plain(lg, buf, events);
}

int um_out_close(struct ntkl_um_logger *lg)
{
	struct um_logger_out *o = lg->out;
	char err[200];
	int ret;

	if (!o)
		return 0;
	if (o->cbuf && o->cfill)
		flush_compressed(lg, o->cfill);
	/* a trace buffer that could never be completed: the file ends before it */
	if (o->cbuf && o->nent && ftruncate(lg->fd, (off_t)o->whole_end))
		note_error(lg, -errno, "cutting a partial buffer off");
	keep_whole(lg);
	ret = etl_mark_last_buffer_fd(lg->fd, o->last_offset, err, sizeof(err));
	if (ret)
		note_error(lg, ret, err);
	if (fsync(lg->fd) < 0 && errno != EINVAL && errno != EROFS)
		note_error(lg, -errno, "fsync");
	free(o->zbuf);
	free(o->cbuf);
	free(o->ent);
	free(o);
	lg->out = NULL;
	return lg->write_error;
}
