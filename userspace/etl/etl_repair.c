// SPDX-License-Identifier: GPL-2.0
/*
 * The plan of `ntkl dump --repair`, from the file's bytes alone. See
 * etl_repair.h.
 */
#include <stddef.h>
#include <string.h>

#include "etl_repair.h"

/* true if every byte of [p, p + n) is zero: space the writer never filled */
static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Walk the buffer headers: r->whole, r->buffers, r->last and the latest
 * buffer time. Stops at a partly written end; -1 for damage before it.
 */
static int find_whole_buffers(const uint8_t *data, uint64_t size, struct etl_repair *r,
			      int64_t *latest, struct etl_error *err)
{
	struct wmi_buffer_header bh;
	uint64_t off = 0, left;

	*latest = INT64_MIN;
	while (off < size) {
		left = size - off;
		if (left < ETL_BUFFER_HEADER_SIZE)
			break;		/* a buffer header cut short */
		memcpy(&bh, data + off, sizeof(bh));
		if (bh.buffer_size > left)
			break;		/* the buffer cut short */
		if (bh.buffer_size < ETL_BUFFER_HEADER_SIZE) {
			if (all_zero(data + off, left))
				break;	/* never written */
			return etl_error_set(err,
				"buffer %llu (file offset 0x%llx): BufferSize 0x%x, smaller than a buffer header: the file is damaged before its end, not cut short; --repair only cuts a partly written last buffer off",
				(unsigned long long)r->buffers, (unsigned long long)off,
				bh.buffer_size);
		}
		if (bh.timestamp > *latest)
			*latest = bh.timestamp;
		r->last = off;
		r->buffers++;
		off += bh.buffer_size;
	}
	r->whole = off;
	return 0;
}

int etl_repair_plan(const uint8_t *data, uint64_t size, struct etl_repair *r,
		    struct etl_error *err)
{
	struct system_trace_header ev;
	struct wmi_buffer_header last;
	struct etl_file f;
	int64_t latest, end;

	memset(r, 0, sizeof(*r));
	r->size = size;
	/* first: is it an ETL file at all (buffer 0 whole, its Header event)? */
	if (etl_open_memory(&f, "", data, size, err)) {
		if (size < sizeof(last) || !strstr(err->msg, "truncated file"))
			return -1;
		memcpy(&last, data, sizeof(last));
		return etl_error_set(err,
			"the header buffer (buffer 0) itself is cut short (0x%llx of its 0x%x bytes): there is no whole buffer to keep",
			(unsigned long long)size, last.buffer_size);
	}
	r->old_buffers_written = f.header.buffers_written;
	r->old_end_time = f.header.end_time;
	r->events_lost = f.header.events_lost;
	r->buffers_lost = f.header.buffers_lost;
	memcpy(&ev, data + ETL_BUFFER_HEADER_SIZE, sizeof(ev));
	if (((ev.marker >> 16) & 0xFF) != ETW_HEADER_TYPE_SYSTEM64) {
		etl_close(&f);
		return etl_error_set(err,
			"the Header event is not a 64-bit one (marker 0x%08x): --repair patches 64-bit files only",
			ev.marker);
	}
	if (find_whole_buffers(data, size, r, &latest, err)) {
		etl_close(&f);
		return -1;
	}
	/* a buffer time that converts to before StartTime is not to be trusted */
	r->end_time = r->old_end_time;
	if (etl_time_to_filetime(&f, latest, &end) && end >= f.header.start_time) {
		r->has_buffers_end_time = true;
		r->buffers_end_time = end;
		r->end_time = end;
	}
	etl_close(&f);

	r->needed = r->whole < size || r->buffers != r->old_buffers_written;
	if (!r->needed) {
		/* nothing changes: the plan says what would, had the file been cut */
		r->end_time = r->old_end_time;
		return 0;
	}
	memcpy(&last, data + r->last, sizeof(last));
	r->mark_last = r->last && !(last.buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER);
	return 0;
}

void etl_repair_apply(uint8_t *data, const struct etl_repair *r)
{
	struct trace_logfile_header h;
	struct wmi_buffer_header bh;

	if (!r->needed)
		return;
	memcpy(&h, data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, sizeof(h));
	h.buffers_written = r->buffers > UINT32_MAX ? UINT32_MAX : (uint32_t)r->buffers;
	h.end_time = r->end_time;
	memcpy(data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	if (r->mark_last) {
		memcpy(&bh, data + r->last, sizeof(bh));
		bh.buffer_flag |= ETW_BUFFER_FLAG_FLUSH_MARKER;
		memcpy(data + r->last, &bh, sizeof(bh));
	}
}
