/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ntkl dump --repair` would change in a file whose writer died
 * before completing it (kill -9, a crash, a full disk), worked out from
 * the file alone and before anything is written. `ntkl stop`, completing
 * the file of a background writer that died (ntkl_file_complete() in
 * ctl/etl_file.c), takes its buffers and EndTime from the same plan:
 *
 *  - a partly written buffer at the end (the last BufferSize runs past
 *    the end of the file, or fewer bytes than a buffer header are left,
 *    or the rest is zeros the file system never got) is cut off;
 *  - BuffersWritten becomes the number of whole buffers;
 *  - EndTime becomes the time of the latest whole buffer (its flush
 *    time, the largest buffer TimeStamp), as a FILETIME;
 *  - the last whole buffer gets FLUSH_MARKER, as a writer's final flush
 *    sets it.
 *
 * Everything else in the header stays as recorded: EventsLost,
 * BuffersLost, StartTime, the clock. A file that needs none of this (no
 * partial buffer, BuffersWritten right) needs no repair and is never
 * written. A file that is not an ETL file (buffer 0 holds no Header
 * event), or is damaged before its end (a buffer in the middle with an
 * impossible BufferSize), is refused: cutting there would throw whole
 * buffers away.
 */
#ifndef NTKL_ETL_REPAIR_H
#define NTKL_ETL_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "etl_reader.h"

struct etl_repair {
	bool needed;			/* anything below to change */
	uint64_t size;			/* the file's size now */
	uint64_t whole;			/* bytes of whole buffers: the size after */
	uint64_t buffers;		/* whole buffers, the header buffer included */
	uint64_t last;			/* file offset of the last whole buffer */
	bool mark_last;			/* it lacks FLUSH_MARKER */
	uint32_t old_buffers_written;
	int64_t old_end_time;		/* FILETIME */
	int64_t end_time;		/* FILETIME after: old_end_time if no buffer time converts */
	/*
	 * The latest whole buffer's time as a FILETIME, needed or not (a
	 * whole file's too), if it converts to one at or after StartTime
	 * (has_buffers_end_time); end_time is this when the repair is needed.
	 */
	bool has_buffers_end_time;
	int64_t buffers_end_time;
	uint32_t events_lost, buffers_lost;	/* kept, for the message */
};

/* Byte offsets of what a repair writes, for a caller that patches a file in place. */
#define ETL_REPAIR_LOGFILE_HEADER_OFFSET \
	(ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header))

/*
 * Plan the repair of the size bytes at data (the whole file). 0 with *r
 * filled (r->needed false: nothing to repair), or -1 with the reason in
 * err: "not an ETL file: ...", or where the file is damaged.
 */
int etl_repair_plan(const uint8_t *data, uint64_t size, struct etl_repair *r,
		    struct etl_error *err);

/*
 * Apply r to the file's bytes in memory (data holds at least r->whole
 * bytes, writable): the header's BuffersWritten and EndTime, the last
 * buffer's FLUSH_MARKER. The caller cuts the file to r->whole bytes.
 */
void etl_repair_apply(uint8_t *data, const struct etl_repair *r);

#endif /* NTKL_ETL_REPAIR_H */
