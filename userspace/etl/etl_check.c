// SPDX-License-Identifier: GPL-2.0
/*
 * Strict ETL checks (shared/docs/etl-format.md §7), made precise against
 * the real Windows files in shared/etl-samples:
 *
 * - SequenceNumber: every sample numbers the header buffer 0 and the others
 *   1..BuffersWritten-1, each once (AMSITrace: 4,5,1,2,3 in file order).
 *   So the check is "< BuffersWritten and unique", stricter than the
 *   "<= BuffersWritten" public readers use.
 * - SavedOffset vs Offset: equal in every buffer of every sample except the
 *   header buffer of the relogged TraceLoggingTester file, where SavedOffset
 *   (0x1B8) ends at the Header event and Offset (0x2C0) after the group-0
 *   events the relogger appended. Allowed there only: buffer 0, Offset
 *   larger, both on record boundaries.
 * - The header buffer's BufferFlag is 0x21 in files Windows wrote and 0x01
 *   in relogged ones: not checked.
 * - CurrentOffset often exceeds BufferSize in real files: not checked.
 * - BufferSize of a buffer that is not compressed: a multiple of 8 in
 *   every sample (and every size ETW takes), so the next buffer's records
 *   start on 8-byte boundaries of the file too.
 * - Compressed buffers (BufferFlag 0x40, the PerfView sample): BufferSize
 *   is the size on disk, SavedOffset = Offset the size uncompressed, and
 *   every check of the records runs on the decompressed buffer, as the
 *   reader gives it. The header buffer is not compressed, and the file's
 *   LogFileMode has EVENT_TRACE_COMPRESSED_MODE.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_check.h"
#include "etl_events.h"
#include "etl_names.h"

struct checker {
	const struct etl_file *f;
	bool stop_at_first;
	etl_violation_fn report;
	void *ctx;
	unsigned long violations;
	uint8_t *seq_seen;		/* bitmap of SequenceNumbers */
	uint64_t seq_bits;
	bool image_ids;			/* an Image record had its identity */
	bool image_file_versions;	/* ImageID/FileVersion records: xperf's kind */
};

/* Report one violation; true if the caller should stop. */
__attribute__((format(printf, 2, 3)))
static bool violation(struct checker *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->violations++;
	if (c->report)
		c->report(c->ctx, msg);
	return c->stop_at_first;
}

#define BUF_FMT		"buffer %u (file offset 0x%llx): "
#define BUF_ARGS(b)	(b)->index, (unsigned long long)(b)->offset
#define REC_FMT		BUF_FMT "record at +0x%x: "
#define REC_ARGS(b, r)	BUF_ARGS(b), (r)->buffer_offset

static const char *type_label(uint8_t header_type)
{
	const char *n = etl_header_type_name(header_type);

	return n ? n : "unknown";
}

/* What a compressed buffer adds to its header's rules; true to stop. */
static bool check_compressed(struct checker *c, const struct etl_buffer *b)
{
	const struct trace_logfile_header *h = &c->f->header;
	const struct wmi_buffer_header *bh = &b->hdr;

	if (b->index == 0 &&
	    violation(c, BUF_FMT "the header buffer is compressed (BufferFlag 0x%04x): readers need it as it is",
		      BUF_ARGS(b), bh->buffer_flag))
		return true;
	if (!(h->log_file_mode & EVENT_TRACE_COMPRESSED_MODE) &&
	    violation(c, BUF_FMT "compressed (BufferFlag 0x%04x), but the header's LogFileMode 0x%08x lacks COMPRESSED_MODE (0x%08x)",
		      BUF_ARGS(b), bh->buffer_flag, h->log_file_mode,
		      EVENT_TRACE_COMPRESSED_MODE))
		return true;
	return bh->saved_offset > h->buffer_size &&
	       violation(c, BUF_FMT "SavedOffset 0x%x (the size uncompressed) is larger than the header's BufferSize 0x%x",
			 BUF_ARGS(b), bh->saved_offset, h->buffer_size);
}

/* The buffer header fields; true to stop. */
static bool check_buffer_header(struct checker *c, const struct etl_buffer *b)
{
	const struct trace_logfile_header *h = &c->f->header;
	const struct wmi_buffer_header *bh = &b->hdr;
	const char *tname = etl_buffer_type_name(bh->buffer_type);

	if (b->index == 0) {
		if (bh->buffer_type != ETW_BUFFER_TYPE_HEADER &&
		    violation(c, BUF_FMT "BufferType %u (%s), the header buffer must be HEADER (4)",
			      BUF_ARGS(b), bh->buffer_type, tname ? tname : "unknown"))
			return true;
		if (bh->sequence_number != 0 &&
		    violation(c, BUF_FMT "SequenceNumber %lld, the header buffer must be 0",
			      BUF_ARGS(b), (long long)bh->sequence_number))
			return true;
	} else {
		if (bh->buffer_type >= ETW_BUFFER_TYPE_MAXIMUM &&
		    violation(c, BUF_FMT "unknown BufferType %u", BUF_ARGS(b),
			      bh->buffer_type))
			return true;
		if (bh->buffer_type == ETW_BUFFER_TYPE_HEADER &&
		    violation(c, BUF_FMT "BufferType HEADER (4) outside buffer 0",
			      BUF_ARGS(b)))
			return true;
		if ((bh->sequence_number < 1 ||
		     bh->sequence_number >= (int64_t)h->buffers_written) &&
		    violation(c, BUF_FMT "SequenceNumber %lld is outside 1..%lld (BuffersWritten %u - 1)",
			      BUF_ARGS(b), (long long)bh->sequence_number,
			      (long long)h->buffers_written - 1, h->buffers_written))
			return true;
	}
	if (bh->sequence_number >= 0 && (uint64_t)bh->sequence_number < c->seq_bits) {
		uint64_t s = (uint64_t)bh->sequence_number;

		if ((c->seq_seen[s / 8] & (1u << (s % 8))) &&
		    violation(c, BUF_FMT "SequenceNumber %lld was already used by an earlier buffer",
			      BUF_ARGS(b), (long long)bh->sequence_number))
			return true;
		c->seq_seen[s / 8] |= (uint8_t)(1u << (s % 8));
	}
	if (bh->buffer_size > h->buffer_size &&
	    violation(c, BUF_FMT "BufferSize 0x%x is larger than the header's BufferSize 0x%x",
		      BUF_ARGS(b), bh->buffer_size, h->buffer_size))
		return true;
	if (bh->processor_index >= h->number_of_processors &&
	    violation(c, BUF_FMT "ProcessorIndex %u is not below NumberOfProcessors %u",
		      BUF_ARGS(b), bh->processor_index, h->number_of_processors))
		return true;
	if (bh->offset != bh->saved_offset && !b->filled_from_offset &&
	    violation(c, BUF_FMT "Offset 0x%x differs from SavedOffset 0x%x",
		      BUF_ARGS(b), bh->offset, bh->saved_offset))
		return true;
	if (b->compressed && check_compressed(c, b))
		return true;
	if (!b->compressed && bh->buffer_size % ETW_RECORD_ALIGN &&
	    violation(c, BUF_FMT "BufferSize 0x%x is not a multiple of %d: the next buffer's records would be misaligned",
		      BUF_ARGS(b), bh->buffer_size, ETW_RECORD_ALIGN))
		return true;
	if (bh->saved_offset % ETW_RECORD_ALIGN &&
	    violation(c, BUF_FMT "SavedOffset 0x%x is not a multiple of %d",
		      BUF_ARGS(b), bh->saved_offset, ETW_RECORD_ALIGN))
		return true;
	return false;
}

/*
 * A StackWalk: whole 8-byte frames after its fixed bytes (16, or a stack
 * key definition's 8), and the event a Stack belongs to no later than
 * itself (Windows walks after it logs the event, and so does ntkl).
 */
static bool check_stack(struct checker *c, const struct etl_buffer *b,
			const struct etl_record *r, const struct etw_layout *l)
{
	uint64_t event_time;

	if ((r->payload_len - l->fixed) % 8)
		return violation(c, REC_FMT "StackWalk payload is 0x%x bytes: not %u + 8 per frame (Size 0x%x)",
				 REC_ARGS(b, r), r->payload_len, l->fixed, r->size);
	/* a stack key's definition (KeyDelete, KeyRundown) is about no one event */
	if (l->fixed < sizeof(struct etw_stack_walk))
		return false;
	event_time = etl_le64(r->payload + offsetof(struct etw_stack_walk, event_time_stamp));
	if (event_time > (uint64_t)r->timestamp)
		return violation(c, REC_FMT "StackWalk EventTimeStamp %" PRIu64 " is after its own time %" PRId64,
				 REC_ARGS(b, r), event_time, r->timestamp);
	return false;
}

/* A stack key reference: the event it belongs to no later than itself, as a Stack's. */
static bool check_stack_ref(struct checker *c, const struct etl_buffer *b,
			    const struct etl_record *r)
{
	uint64_t event_time = etl_le64(r->payload +
				       offsetof(struct etw_stack_key_ref, event_time_stamp));

	if (event_time > (uint64_t)r->timestamp)
		return violation(c, REC_FMT "StackKey EventTimeStamp %" PRIu64 " is after its own time %" PRId64,
				 REC_ARGS(b, r), event_time, r->timestamp);
	return false;
}

/*
 * Payload sizes of the layouts the event table knows (uapi/ntkl_events.h):
 * a Size that a flipped byte made larger can still land on a record
 * boundary, but not on the size the event's layout has. Every sample
 * record obeys these.
 */
static bool check_payload_size(struct checker *c, const struct etl_buffer *b,
			       const struct etl_record *r)
{
	const struct etw_layout *l;
	char hook[64];

	if (!etl_record_listed(r))
		return false;
	l = etl_event_layout(r->hook_id, (uint8_t)r->version);
	if (l && l->tail == ETW_TAIL_STACK_FRAMES && r->payload_len >= l->min &&
	    r->payload_len <= l->max)
		return check_stack(c, b, r, l);
	if (l == &etw_layouts[ETW_LAYOUT_STACK_KEY_REF] && r->payload_len == l->min)
		return check_stack_ref(c, b, r);
	if (!l || (r->payload_len >= l->min && r->payload_len <= l->max))
		return false;
	etl_hook_label(r->hook_id, hook, sizeof(hook));
	if (l->min == l->max)
		return violation(c, REC_FMT "%s payload is 0x%x bytes, its layout has 0x%x (Size 0x%x)",
				 REC_ARGS(b, r), hook, r->payload_len, l->min, r->size);
	return violation(c, REC_FMT "%s payload is 0x%x bytes, its layout needs 0x%x to 0x%x (Size 0x%x)",
			 REC_ARGS(b, r), hook, r->payload_len, l->min, l->max, r->size);
}

/* The record's ImageBase and ProcessId, if it is an Image or identity record with both. */
static bool image_fields(const struct etl_record *r, uint64_t *base, uint32_t *pid)
{
	uint32_t pid_at;

	if (!etl_record_listed(r) || r->payload_len < 12)
		return false;
	switch (r->hook_id) {
	case ETW_EVENT_IMAGE_ID_HOOK:
		pid_at = offsetof(struct etw_image_id, process_id);
		break;
	case ETW_EVENT_DBGID_RSDS_HOOK:
	case ETW_EVENT_DBGID_NONE_HOOK:
		pid_at = offsetof(struct etw_dbgid_rsds, process_id);
		break;
	case ETW_EVENT_IMAGE_LOAD_HOOK:
	case ETW_EVENT_IMAGE_UNLOAD_HOOK:
	case ETW_EVENT_IMAGE_DC_START_HOOK:
	case ETW_EVENT_IMAGE_DC_END_HOOK:
		pid_at = offsetof(struct etw_image_v3, process_id);
		break;
	default:
		return false;
	}
	if (r->payload_len < pid_at + 4)
		return false;
	*base = etl_le64(r->payload);
	*pid = etl_le32(r->payload + pid_at);
	return true;
}

static bool is_dbgid(const struct etl_record *r)
{
	return etl_record_listed(r) && (r->hook_id == ETW_EVENT_DBGID_RSDS_HOOK ||
					r->hook_id == ETW_EVENT_DBGID_NONE_HOOK);
}

/*
 * Image identities (uapi/ntkl_event_list.h): a DbgID record comes right
 * after the ImageID of its image, and an Image record right after a
 * DbgID is that image's, all three with one time, ImageBase and
 * ProcessId (the strictest reader's pairing); and once one Image record
 * has its identity, every later one has. That is how ntkl writes them
 * (one reservation each: module/producers/image.c). xperf -merge, whose
 * files have ImageID/FileVersion records, is not held to it: the Windows
 * samples have a DbgID_RSDS first in a buffer whose ImageID ended the
 * one before, and Image records with no identity.
 */
static bool check_image_identity(struct checker *c, const struct etl_buffer *b,
				 const struct etl_record *r, const struct etl_record *prev)
{
	uint64_t base, prev_base = 0;
	uint32_t pid, prev_pid = 0;
	bool has_prev;
	char hook[64];

	if (etl_record_listed(r) && r->hook_id == ETW_EVENT_IMAGE_ID_FILE_VERSION_HOOK)
		c->image_file_versions = true;
	/* xperf's merge places them more loosely (across buffers, among others) */
	if (c->image_file_versions || !image_fields(r, &base, &pid))
		return false;
	has_prev = prev && image_fields(prev, &prev_base, &prev_pid);
	if (is_dbgid(r)) {
		if (!has_prev || prev->hook_id != ETW_EVENT_IMAGE_ID_HOOK ||
		    prev->kind != ETL_KIND_CLASSIC)
			return violation(c, REC_FMT "%s does not come right after an ImageID record",
					 REC_ARGS(b, r),
					 etl_hook_label(r->hook_id, hook, sizeof(hook)));
	} else if (r->kind == ETL_KIND_KERNEL) {
		if (!has_prev || !is_dbgid(prev)) {
			if (c->image_ids)
				return violation(c, REC_FMT "%s has no ImageID and DbgID record right before it",
						 REC_ARGS(b, r),
						 etl_hook_label(r->hook_id, hook, sizeof(hook)));
			return false;
		}
		c->image_ids = true;
	} else {
		return false;	/* an ImageID: its DbgID checks it */
	}
	if (prev->timestamp != r->timestamp || prev_base != base || prev_pid != pid)
		return violation(c, REC_FMT "%s (ImageBase 0x%llx, ProcessId %u, TimeStamp %lld) is not the image of the record before it (ImageBase 0x%llx, ProcessId %u, TimeStamp %lld)",
				 REC_ARGS(b, r), etl_hook_label(r->hook_id, hook, sizeof(hook)),
				 (unsigned long long)base, pid, (long long)r->timestamp,
				 (unsigned long long)prev_base, prev_pid, (long long)prev->timestamp);
	return false;
}

/* One record; true to stop. */
static bool check_record(struct checker *c, const struct etl_buffer *b,
			 const struct etl_record *r, bool first,
			 const struct etl_record *prev)
{
	const struct etw_event_desc *ev;
	char hook[64];

	if (r->flags != ETW_HEADER_FLAGS &&
	    violation(c, REC_FMT "flags byte 0x%02x, every record must have 0xC0 (%s, Size 0x%x)",
		      REC_ARGS(b, r), r->flags, type_label(r->header_type), r->size))
		return true;

	/*
	 * A 64-bit kernel logs the events ntkl writes only with the 64-bit
	 * kernel header forms. Not every event: in the PerfView sample
	 * (Windows 8, PointerSize 8) a process logged its two
	 * SystemConfig/IDEChannel events with SYSTEM32 headers.
	 */
	ev = r->kind == ETL_KIND_KERNEL ? etl_event_find(r->hook_id) : NULL;
	if (c->f->header.pointer_size == 8 &&
	    ev && ev->header_type != ETW_HEADER_TYPE_ANY &&
	    (r->header_type == ETW_HEADER_TYPE_SYSTEM32 ||
	     r->header_type == ETW_HEADER_TYPE_COMPACT32 ||
	     r->header_type == ETW_HEADER_TYPE_PERFINFO32) &&
	    violation(c, REC_FMT "32-bit kernel header %s in a file with PointerSize 8",
		      REC_ARGS(b, r), type_label(r->header_type)))
		return true;

	if (b->index == 0 && first &&
	    (r->header_type != ETW_HEADER_TYPE_SYSTEM64 ||
	     r->hook_id != ETW_EVENT_HEADER_HOOK ||
	     (r->version & 0xFF) != etw_events[ETW_EVENT_HEADER].version) &&
	    violation(c, REC_FMT "the first record must be the Header event (SYSTEM64, group 0, type 0, version 2), not %s hook 0x%04x version %u",
		      REC_ARGS(b, r), type_label(r->header_type), r->hook_id,
		      r->version & 0xFF))
		return true;

	/*
	 * Windows keeps only group-0 events in buffer 0; ntkl also puts the
	 * SystemConfig CPU event there (issue 3), so that one is allowed too.
	 */
	if (b->index == 0 &&
	    (r->kind != ETL_KIND_KERNEL ||
	     (ETW_HOOK_GROUP(r->hook_id) != ETW_GROUP_HEADER &&
	      r->hook_id != ETW_EVENT_CONFIG_CPU_HOOK)) &&
	    violation(c, REC_FMT "the header buffer holds only group-0 (EventTrace) and SystemConfig CPU events, not %s %s",
		      REC_ARGS(b, r), type_label(r->header_type),
		      r->kind == ETL_KIND_KERNEL ?
		      etl_hook_label(r->hook_id, hook, sizeof(hook)) : "event"))
		return true;

	if (check_payload_size(c, b, r) || check_image_identity(c, b, r, prev))
		return true;

	if (prev && r->timestamp < prev->timestamp &&
	    violation(c, REC_FMT "TimeStamp %lld is before the previous record's %lld (at +0x%x)",
		      REC_ARGS(b, r), (long long)r->timestamp,
		      (long long)prev->timestamp, prev->buffer_offset))
		return true;
	return false;
}

/* The records of one buffer; true to stop. */
static bool check_records(struct checker *c, const struct etl_buffer *b,
			  unsigned long *records)
{
	struct etl_record_cursor cur;
	struct etl_record r, prev;
	struct etl_error err;
	bool first = true, saved_on_boundary = false;
	char hook[64];
	int rc;

	etl_records_begin(b, &cur);
	while ((rc = etl_next_record(b, &cur, &r, &err)) > 0) {
		(*records)++;
		if (check_record(c, b, &r, first, first ? NULL : &prev))
			return true;
		first = false;
		prev = r;
		if (cur.pos == b->hdr.saved_offset)
			saved_on_boundary = true;
	}
	if (rc < 0) {
		/* A bad Size sends the walk into the middle of the next record. */
		if (first)
			return violation(c, "%s", err.msg);
		return violation(c, "%s (after the record at +0x%x: %s %s, Size 0x%x)",
				 err.msg, prev.buffer_offset,
				 type_label(prev.header_type),
				 prev.kind == ETL_KIND_KERNEL ?
				 etl_hook_label(prev.hook_id, hook, sizeof(hook)) : "event",
				 prev.size);
	}

	if (cur.end_marker) {
		/* Records may end early at the marker; the rest must be fill. */
		for (uint32_t i = (uint32_t)cur.pos; i < b->filled; i++) {
			if (b->data[i] == ETW_BUFFER_FILL_BYTE)
				continue;
			return violation(c, BUF_FMT "end-of-records marker at +0x%x, but the byte at +0x%x is 0x%02x, not 0xFF fill (records must fill up to SavedOffset 0x%x)",
					 BUF_ARGS(b), (uint32_t)cur.pos, i,
					 b->data[i], b->filled);
		}
	} else if (cur.pos != b->filled) {
		return violation(c, BUF_FMT "the last record's padding ends at +0x%llx, past the filled end 0x%x: records must exactly fill [0x48, SavedOffset)",
				 BUF_ARGS(b), (unsigned long long)cur.pos,
				 b->filled);
	}
	if (b->filled_from_offset && !saved_on_boundary &&
	    b->hdr.saved_offset != ETL_BUFFER_HEADER_SIZE)
		return violation(c, BUF_FMT "SavedOffset 0x%x (Offset 0x%x) is not on a record boundary",
				 BUF_ARGS(b), b->hdr.saved_offset, b->hdr.offset);
	return false;
}

unsigned long etl_check(const struct etl_file *f, bool stop_at_first,
			etl_violation_fn report, void *ctx,
			struct etl_check_stats *stats)
{
	const struct trace_logfile_header *h = &f->header;
	struct checker c = {
		.f = f, .stop_at_first = stop_at_first,
		.report = report, .ctx = ctx,
	};
	struct etl_check_stats st = { 0 };
	struct etl_cursor cur;
	struct etl_buffer b;
	struct etl_error err;
	bool stop = false;
	int rc = 0;

	/* No file holds more buffers than headers fit in it. */
	c.seq_bits = h->buffers_written;
	if (c.seq_bits > f->size / ETL_BUFFER_HEADER_SIZE + 1)
		c.seq_bits = f->size / ETL_BUFFER_HEADER_SIZE + 1;
	c.seq_seen = calloc(c.seq_bits / 8 + 1, 1);
	if (!c.seq_seen) {
		violation(&c, "file: out of memory");
		goto out;
	}

	if (h->pointer_size != 8 &&
	    violation(&c, "file: Header PointerSize %u, expected 8 (64-bit)",
		      h->pointer_size))
		goto out;
	if (h->number_of_processors == 0 &&
	    violation(&c, "file: Header NumberOfProcessors is 0"))
		goto out;

	etl_buffers_begin(f, &cur);
	while (!stop && (rc = etl_next_buffer(f, &cur, &b, &err)) > 0) {
		st.buffers++;
		stop = check_buffer_header(&c, &b) ||
		       check_records(&c, &b, &st.records);
	}
	etl_buffers_end(&cur);
	if (stop)
		goto out;
	if (rc < 0) {
		/* The next buffer's position is unknown: nothing more to check. */
		violation(&c, "%s", err.msg);
		goto out;
	}
	if (st.buffers != h->buffers_written)
		violation(&c, "file: %lu buffers in the file, but the header's BuffersWritten is %u",
			  st.buffers, h->buffers_written);
out:
	free(c.seq_seen);
	st.violations = c.violations;
	if (stats)
		*stats = st;
	return c.violations;
}
