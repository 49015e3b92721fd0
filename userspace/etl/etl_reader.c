// SPDX-License-Identifier: GPL-2.0
/*
 * ETL reader: buffers, record headers, the Header event.
 *
 * Layouts are the uapi structs; a struct is only ever memcpy'd out of the
 * file after the bytes it covers were checked to be there, so a truncated
 * or corrupted file gives an error, never an out-of-bounds read.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etl_reader.h"
#include "etl_names.h"
#include "etl_utf16.h"
#include "etl_xpress.h"

/* The uapi structs are copied straight from the file: little-endian only. */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "ntkl reads ETL files on little-endian hosts only");

int etl_error_set(struct etl_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

uint32_t etl_header_size(uint8_t header_type)
{
	/* The 32-bit forms differ in the payload's pointers, not the header. */
	switch (header_type) {
	case ETW_HEADER_TYPE_SYSTEM32:
	case ETW_HEADER_TYPE_SYSTEM64:
		return sizeof(struct system_trace_header);
	case ETW_HEADER_TYPE_COMPACT32:
	case ETW_HEADER_TYPE_COMPACT64:
		return sizeof(struct compact_trace_header);
	case ETW_HEADER_TYPE_PERFINFO32:
	case ETW_HEADER_TYPE_PERFINFO64:
		return sizeof(struct perfinfo_trace_header);
	case ETW_HEADER_TYPE_FULL_HEADER32:
	case ETW_HEADER_TYPE_FULL_HEADER64:
		return sizeof(struct event_trace_header);
	case ETW_HEADER_TYPE_INSTANCE32:
	case ETW_HEADER_TYPE_INSTANCE64:
		return sizeof(struct event_instance_header);
	case ETW_HEADER_TYPE_EVENT_HEADER32:
	case ETW_HEADER_TYPE_EVENT_HEADER64:
		return sizeof(struct event_header);
	default:
		return 0;
	}
}

bool etl_header_is_32bit(uint8_t header_type)
{
	switch (header_type) {
	case ETW_HEADER_TYPE_SYSTEM32:
	case ETW_HEADER_TYPE_COMPACT32:
	case ETW_HEADER_TYPE_PERFINFO32:
	case ETW_HEADER_TYPE_FULL_HEADER32:
	case ETW_HEADER_TYPE_INSTANCE32:
	case ETW_HEADER_TYPE_EVENT_HEADER32:
		return true;
	default:
		return false;
	}
}

void etl_buffers_begin(const struct etl_file *f, struct etl_cursor *c)
{
	memset(c, 0, sizeof(*c));
	c->inflate_left = ETL_MAX_INFLATED_SIZE;
	/* saturating: a size near 2^64 cannot come from a mapped file anyway */
	if (f->size > (UINT64_MAX - ETL_MAX_INFLATED_SIZE) / ETL_INFLATE_PER_BYTE)
		c->inflate_left = UINT64_MAX;
	else
		c->inflate_left += (uint64_t)ETL_INFLATE_PER_BYTE * f->size;
}

void etl_buffers_end(struct etl_cursor *c)
{
	free(c->inflated);
	c->inflated = NULL;
	c->inflated_cap = 0;
}

/*
 * Where the records of b end. SavedOffset, except in the header buffer of
 * a relogged file: the relogger (TraceLoggingTester sample) leaves
 * SavedOffset at the end of the Header event (0x1B8) and appends more
 * group-0 events up to Offset (0x2C0), the field dissect.etl reads. So in
 * buffer 0 a larger Offset wins. Elsewhere Offset is ignored here (the
 * strict check compares the two).
 */
static int etl_buffer_fill(struct etl_buffer *b, struct etl_error *err)
{
	uint32_t size = b->size;
	uint32_t saved = b->hdr.saved_offset;
	uint32_t offset = b->hdr.offset;

	if (saved > size)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): SavedOffset 0x%x is past BufferSize 0x%x",
			b->index, (unsigned long long)b->offset, saved, size);
	b->filled = saved;
	b->filled_from_offset = false;
	if (b->index == 0 && offset > saved && offset <= size &&
	    offset >= ETL_BUFFER_HEADER_SIZE) {
		b->filled = offset;
		b->filled_from_offset = true;
	}
	if (b->filled < ETL_BUFFER_HEADER_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): SavedOffset 0x%x is inside the buffer header (< 0x%x)",
			b->index, (unsigned long long)b->offset, saved,
			ETL_BUFFER_HEADER_SIZE);
	return 0;
}

/*
 * A compressed buffer: its header as it is, then the LZ77 stream after it
 * up to BufferSize, which must give exactly SavedOffset - 0x48 bytes.
 * b->data becomes the cursor's copy, header and records, SavedOffset long.
 */
static int inflate_buffer(struct etl_cursor *c, struct etl_buffer *b,
			  struct etl_error *err)
{
	uint32_t want = b->hdr.saved_offset;
	struct etl_xpress_error xe;
	size_t got;

	if (want < ETL_BUFFER_HEADER_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): compressed, but its SavedOffset (the uncompressed size) 0x%x is inside the buffer header (< 0x%x)",
			b->index, (unsigned long long)b->offset, want,
			ETL_BUFFER_HEADER_SIZE);
	if (want > ETL_MAX_INFLATED_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): compressed, but its SavedOffset (the uncompressed size) 0x%x is above the 0x%x bytes ntkl decompresses",
			b->index, (unsigned long long)b->offset, want,
			ETL_MAX_INFLATED_SIZE);
	if (want > c->inflate_left)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): compressed, and with its SavedOffset 0x%x the file's buffers decompress to more than %u MB plus %u times the file's size, far beyond real traces (about 5 times): a corrupt file",
			b->index, (unsigned long long)b->offset, want, ETL_MAX_INFLATED_SIZE >> 20,
			ETL_INFLATE_PER_BYTE);
	c->inflate_left -= want;
	if (c->inflated_cap < want) {
		uint8_t *p = realloc(c->inflated, want);

		if (!p)
			return etl_error_set(err,
				"buffer %u (file offset 0x%llx): out of memory for its 0x%x uncompressed bytes",
				b->index, (unsigned long long)b->offset, want);
		c->inflated = p;
		c->inflated_cap = want;
	}
	memcpy(c->inflated, b->data, ETL_BUFFER_HEADER_SIZE);
	if (etl_xpress_decompress(b->data + ETL_BUFFER_HEADER_SIZE,
				  b->hdr.buffer_size - ETL_BUFFER_HEADER_SIZE,
				  c->inflated + ETL_BUFFER_HEADER_SIZE,
				  want - ETL_BUFFER_HEADER_SIZE, &got, &xe))
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): corrupt compressed data at +0x%zx (of BufferSize 0x%x): %s (0x%zx of SavedOffset 0x%x bytes decompressed)",
			b->index, (unsigned long long)b->offset,
			ETL_BUFFER_HEADER_SIZE + xe.in_pos, b->hdr.buffer_size,
			xe.what, ETL_BUFFER_HEADER_SIZE + xe.out_pos, want);
	if (got != want - ETL_BUFFER_HEADER_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): compressed data ends after 0x%zx bytes decompressed, SavedOffset says 0x%x",
			b->index, (unsigned long long)b->offset,
			ETL_BUFFER_HEADER_SIZE + got, want);
	b->data = c->inflated;
	b->size = want;
	b->compressed = true;
	return 0;
}

/* The walk is over (end or error): let go of what the cursor holds. */
static int end_walk(struct etl_cursor *c, int ret)
{
	etl_buffers_end(c);
	return ret;
}

static int read_buffer(const struct etl_file *f, struct etl_cursor *c,
		       struct etl_buffer *b, struct etl_error *err)
{
	uint64_t left = f->size - c->offset;

	if (left < ETL_BUFFER_HEADER_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): only 0x%llx bytes left, a buffer header needs 0x%x: truncated file (ntkl dump --repair cuts the partial buffer off)",
			b->index, (unsigned long long)b->offset,
			(unsigned long long)left, ETL_BUFFER_HEADER_SIZE);
	memcpy(&b->hdr, f->data + c->offset, sizeof(b->hdr));
	b->data = f->data + c->offset;
	b->size = b->hdr.buffer_size;

	if (b->hdr.buffer_size < ETL_BUFFER_HEADER_SIZE)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): BufferSize 0x%x is smaller than the buffer header (0x%x)",
			b->index, (unsigned long long)b->offset,
			b->hdr.buffer_size, ETL_BUFFER_HEADER_SIZE);
	if (b->hdr.buffer_size > left)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): BufferSize 0x%x runs past the end of the file (0x%llx bytes left): truncated file (ntkl dump --repair cuts the partial buffer off)",
			b->index, (unsigned long long)b->offset,
			b->hdr.buffer_size, (unsigned long long)left);
	if ((b->hdr.buffer_flag & ETW_BUFFER_FLAG_COMPRESSED) &&
	    inflate_buffer(c, b, err))
		return -1;
	return etl_buffer_fill(b, err);
}

int etl_next_buffer(const struct etl_file *f, struct etl_cursor *c,
		    struct etl_buffer *b, struct etl_error *err)
{
	if (c->failed)
		return end_walk(c, etl_error_set(err,
			"buffer %u: not read after an earlier error", c->index));
	if (c->offset >= f->size)
		return end_walk(c, 0);

	memset(b, 0, sizeof(*b));
	b->index = c->index;
	b->offset = c->offset;
	b->stream_offset = c->stream_offset;
	c->failed = true;	/* until this buffer proves sound */
	if (read_buffer(f, c, b, err))
		return end_walk(c, -1);

	c->failed = false;
	c->offset += b->hdr.buffer_size;
	/* Past the bigger of its two sizes: record offsets never overlap. */
	c->stream_offset += b->size > b->hdr.buffer_size ? b->size : b->hdr.buffer_size;
	c->index++;
	return 1;
}

long etl_count_buffers(const struct etl_file *f, struct etl_error *err)
{
	struct etl_cursor c;
	struct etl_buffer b;
	long n = 0;
	int rc;

	etl_buffers_begin(f, &c);
	while ((rc = etl_next_buffer(f, &c, &b, err)) > 0)
		n++;
	return rc < 0 ? -1 : n;
}

void etl_records_begin(const struct etl_buffer *b, struct etl_record_cursor *c)
{
	(void)b;
	c->pos = ETL_BUFFER_HEADER_SIZE;
	c->done = false;
	c->end_marker = false;
}

static const char *header_type_label(uint8_t t)
{
	const char *name = etl_header_type_name(t);

	return name ? name : "unknown";
}

/* Fill r from the fixed header at p (size already checked to cover it). */
static void parse_header(const uint8_t *p, struct etl_record *r)
{
	switch (r->header_type) {
	case ETW_HEADER_TYPE_SYSTEM32:
	case ETW_HEADER_TYPE_SYSTEM64:
	case ETW_HEADER_TYPE_COMPACT32:
	case ETW_HEADER_TYPE_COMPACT64: {
		/* COMPACT is SYSTEM without the CPU times: same first 0x18. */
		struct compact_trace_header h;

		memcpy(&h, p, sizeof(h));
		r->kind = ETL_KIND_KERNEL;
		r->version = (uint16_t)h.marker;
		r->hook_id = h.hook_id;
		r->has_ids = true;
		r->thread_id = h.thread_id;
		r->process_id = h.process_id;
		r->timestamp = h.system_time;
		break;
	}
	case ETW_HEADER_TYPE_PERFINFO32:
	case ETW_HEADER_TYPE_PERFINFO64: {
		struct perfinfo_trace_header h;

		memcpy(&h, p, sizeof(h));
		r->kind = ETL_KIND_KERNEL;
		r->version = (uint16_t)h.marker;
		r->hook_id = h.hook_id;
		r->timestamp = h.timestamp;
		break;
	}
	case ETW_HEADER_TYPE_FULL_HEADER32:
	case ETW_HEADER_TYPE_FULL_HEADER64:
	case ETW_HEADER_TYPE_INSTANCE32:
	case ETW_HEADER_TYPE_INSTANCE64: {
		/* The instance header shares the first 0x18 bytes. */
		struct event_trace_header h;
		size_t n = r->header_len < sizeof(h) ? r->header_len : sizeof(h);

		memset(&h, 0, sizeof(h));
		memcpy(&h, p, n);
		r->kind = ETL_KIND_CLASSIC;
		r->classic_type = h.type;
		r->classic_level = h.level;
		r->version = h.version;
		r->has_ids = true;
		r->thread_id = h.thread_id;
		r->process_id = h.process_id;
		r->timestamp = h.timestamp;
		if (r->header_type == ETW_HEADER_TYPE_FULL_HEADER32 ||
		    r->header_type == ETW_HEADER_TYPE_FULL_HEADER64) {
			static const uint8_t image_id[16] = ETW_IMAGE_ID_GUID;

			r->has_guid = true;
			memcpy(r->guid, h.guid, sizeof(r->guid));
			/* the image identities are in the event list by a hook */
			if (!memcmp(h.guid, image_id, sizeof(image_id)))
				r->hook_id = ETW_HOOK(ETW_GROUP_IMAGE_ID, h.type);
		}
		break;
	}
	default: {
		struct event_header h;

		memcpy(&h, p, sizeof(h));
		r->kind = ETL_KIND_EVENT;
		r->event_flags = h.flags;
		r->event_property = h.event_property;
		r->descriptor = h.descriptor;
		r->version = h.descriptor.version;
		r->has_ids = true;
		r->thread_id = h.thread_id;
		r->process_id = h.process_id;
		r->timestamp = h.timestamp;
		r->has_guid = true;
		memcpy(r->guid, h.provider_id, sizeof(r->guid));
		break;
	}
	}
}

/*
 * Walk the extended data items of an EVENT_HEADER record; the payload
 * follows the last one. Every item must lie inside the record.
 */
static int parse_ext_items(const struct etl_buffer *b, const uint8_t *p,
			   struct etl_record *r, struct etl_error *err)
{
	uint32_t pos = r->header_len;

	for (;;) {
		struct etw_event_header_ext_item item;

		if (r->size - pos < sizeof(item))
			return etl_error_set(err,
				"buffer %u (file offset 0x%llx): record at +0x%x: extended data item at +0x%x runs past the record end (Size 0x%x)",
				b->index, (unsigned long long)b->offset,
				r->buffer_offset, pos, r->size);
		memcpy(&item, p + pos, sizeof(item));
		if (item.offset < sizeof(item) + item.data_size)
			return etl_error_set(err,
				"buffer %u (file offset 0x%llx): record at +0x%x: extended data item at +0x%x: size 0x%x is less than 8 + DataSize 0x%x",
				b->index, (unsigned long long)b->offset,
				r->buffer_offset, pos, item.offset,
				item.data_size);
		if (item.offset > r->size - pos)
			return etl_error_set(err,
				"buffer %u (file offset 0x%llx): record at +0x%x: extended data item at +0x%x (size 0x%x) runs past the record end (Size 0x%x)",
				b->index, (unsigned long long)b->offset,
				r->buffer_offset, pos, item.offset, r->size);
		pos += item.offset;	/* >= 8: the walk always advances */
		r->ext_count++;
		if (!(item.linkage & ETW_EXT_ITEM_LINKAGE_MORE))
			break;
	}
	r->ext = p + r->header_len;
	r->ext_len = pos - r->header_len;
	r->payload = p + pos;
	r->payload_len = r->size - pos;
	return 0;
}

/* A record's Size: kernel headers keep it at +4; the others start with it. */
static uint16_t record_size(const uint8_t *p, uint8_t header_type)
{
	if (header_type <= ETW_HEADER_TYPE_COMPACT64 ||
	    header_type == ETW_HEADER_TYPE_PERFINFO32 ||
	    header_type == ETW_HEADER_TYPE_PERFINFO64)
		return etl_le16(p + 4);
	return etl_le16(p);
}

uint64_t etl_count_records(const struct etl_buffer *b)
{
	uint64_t pos = ETL_BUFFER_HEADER_SIZE, n = 0;

	while (pos < b->filled && b->filled - pos >= 4) {
		const uint8_t *p = b->data + pos;
		uint32_t marker = etl_le32(p), hsize, size;

		if (marker == ETW_END_OF_RECORDS_MARKER)
			break;
		hsize = etl_header_size((uint8_t)(marker >> 16));
		if (!hsize || b->filled - pos < hsize)
			break;
		size = record_size(p, (uint8_t)(marker >> 16));
		if (size < hsize || size > b->filled - pos)
			break;
		n++;
		pos += (size + ETW_RECORD_ALIGN - 1) & ~(uint32_t)(ETW_RECORD_ALIGN - 1);
	}
	return n;
}

int etl_next_record(const struct etl_buffer *b, struct etl_record_cursor *c,
		    struct etl_record *r, struct etl_error *err)
{
	uint32_t pos, left, marker, hsize;
	const uint8_t *p;

	if (c->done || c->pos >= b->filled)
		return 0;
	pos = (uint32_t)c->pos;
	c->done = true;		/* until this record proves sound */
	left = b->filled - pos;
	p = b->data + pos;

	memset(r, 0, sizeof(*r));
	r->buffer_index = b->index;
	r->buffer_offset = pos;
	r->file_offset = b->stream_offset + pos;
	r->processor = b->hdr.processor_index;

	if (left < 4)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): record at +0x%x: only %u bytes before the filled end 0x%x, too few for a record header",
			b->index, (unsigned long long)b->offset, pos, left,
			b->filled);
	marker = etl_le32(p);
	if (marker == ETW_END_OF_RECORDS_MARKER) {
		c->end_marker = true;
		return 0;
	}
	r->header_type = (uint8_t)(marker >> 16);
	r->flags = (uint8_t)(marker >> 24);
	hsize = etl_header_size(r->header_type);
	if (!hsize)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): record at +0x%x: unknown header type 0x%02x (first dword 0x%08x)",
			b->index, (unsigned long long)b->offset, pos,
			r->header_type, marker);
	r->header_len = (uint16_t)hsize;
	if (left < hsize)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): record at +0x%x: a %s header needs 0x%x bytes, only 0x%x before the filled end 0x%x",
			b->index, (unsigned long long)b->offset, pos,
			header_type_label(r->header_type), hsize, left,
			b->filled);

	r->size = record_size(p, r->header_type);
	if (r->size < hsize)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): record at +0x%x: Size 0x%x is smaller than its %s header (0x%x)",
			b->index, (unsigned long long)b->offset, pos, r->size,
			header_type_label(r->header_type), hsize);
	if (r->size > left)
		return etl_error_set(err,
			"buffer %u (file offset 0x%llx): record at +0x%x: Size 0x%x runs past the filled end of the buffer (0x%x)",
			b->index, (unsigned long long)b->offset, pos, r->size,
			b->filled);

	parse_header(p, r);
	r->payload = p + hsize;
	r->payload_len = r->size - hsize;
	if (r->kind == ETL_KIND_EVENT &&
	    (r->event_flags & EVENT_HEADER_FLAG_EXTENDED_INFO) &&
	    parse_ext_items(b, p, r, err))
		return -1;

	/* Size excludes the padding to the next 8-byte boundary. */
	c->pos = (uint64_t)pos + ((r->size + ETW_RECORD_ALIGN - 1) &
				  ~(uint32_t)(ETW_RECORD_ALIGN - 1));
	c->done = false;
	return 1;
}

/* Parse buffer 0 (bc at it) and its Header event into f. */
static int read_header_buffer(struct etl_file *f, struct etl_cursor *bc,
			      struct etl_error *err)
{
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record r;
	size_t used = 0;
	uint32_t strings;
	int ret;

	ret = etl_next_buffer(f, bc, &b, err);
	if (ret <= 0)
		return ret ? -1 : etl_error_set(err, "no buffer in the file");
	etl_records_begin(&b, &rc);
	ret = etl_next_record(&b, &rc, &r, err);
	if (ret < 0)
		return -1;
	if (ret == 0)
		return etl_error_set(err,
			"buffer 0 (file offset 0x0): no record: the Header event is missing");
	if (r.kind != ETL_KIND_KERNEL || r.hook_id != ETW_EVENT_HEADER_HOOK)
		return etl_error_set(err,
			"buffer 0 (file offset 0x0): record at +0x%x: the first record is not the Header event (%s, hook 0x%04x)",
			r.buffer_offset, header_type_label(r.header_type),
			r.hook_id);
	if (r.payload_len < sizeof(f->header))
		return etl_error_set(err,
			"buffer 0 (file offset 0x0): record at +0x%x: Header event payload is 0x%x bytes, TRACE_LOGFILE_HEADER needs 0x%zx",
			r.buffer_offset, r.payload_len, sizeof(f->header));

	memcpy(&f->header, r.payload, sizeof(f->header));
	f->header_system_time = r.timestamp;
	f->header_payload_len = r.payload_len;

	/* Two NUL-terminated UTF-16 strings follow: logger, then file name. */
	strings = sizeof(f->header);
	f->logger_name = etl_utf16_to_utf8_alloc(r.payload + strings,
					       r.payload_len - strings, &used, NULL);
	if (!f->logger_name)
		return etl_error_set(err, "out of memory");
	strings += (uint32_t)used;
	f->log_file_name = etl_utf16_to_utf8_alloc(r.payload + strings,
						 r.payload_len - strings, NULL, NULL);
	if (!f->log_file_name)
		return etl_error_set(err, "out of memory");
	return 0;
}

static int read_header(struct etl_file *f, struct etl_error *err)
{
	struct etl_cursor bc;
	int ret;

	etl_buffers_begin(f, &bc);
	ret = read_header_buffer(f, &bc, err);
	etl_buffers_end(&bc);
	return ret;
}

/*
 * Whether the file cannot be an ETL file: every one has the Header event
 * right after buffer 0's header, a SYSTEM header with its hook (marker,
 * size and hook: the first 8 bytes). Random bytes fail this, so they are
 * called "not an ETL file" rather than a damaged or truncated one. Too
 * few bytes to tell: the reader says how the file is cut.
 */
static bool not_an_etl_file(const uint8_t *data, uint64_t size)
{
	struct system_trace_header ev;
	uint8_t type;

	if (size < ETL_BUFFER_HEADER_SIZE + 8)
		return false;
	memcpy(&ev, data + ETL_BUFFER_HEADER_SIZE, 8);
	type = (uint8_t)(ev.marker >> 16);
	return (type != ETW_HEADER_TYPE_SYSTEM32 && type != ETW_HEADER_TYPE_SYSTEM64) ||
	       ev.hook_id != ETW_EVENT_HEADER_HOOK;
}

int etl_open_memory(struct etl_file *f, const char *name, const void *data,
		    uint64_t size, struct etl_error *err)
{
	memset(f, 0, sizeof(*f));
	f->path = strdup(name ? name : "");
	f->data = data;
	f->size = size;
	if (!f->path)
		return etl_error_set(err, "out of memory");
	if (size == 0 || !data)
		etl_error_set(err, "empty file (0 bytes): not an ETL file");
	else if (size < ETL_BUFFER_HEADER_SIZE)
		etl_error_set(err,
			"file is %llu bytes, smaller than one buffer header (0x%x): not an ETL file",
			(unsigned long long)size, ETL_BUFFER_HEADER_SIZE);
	else if (not_an_etl_file(data, size))
		etl_error_set(err,
			"not an ETL file: no Header event at file offset 0x%x, where every ETL file has one (first dword 0x%08x, hook 0x%04x)",
			ETL_BUFFER_HEADER_SIZE, etl_le32((const uint8_t *)data + ETL_BUFFER_HEADER_SIZE),
			etl_le32((const uint8_t *)data + ETL_BUFFER_HEADER_SIZE + 4) >> 16);
	else if (!read_header(f, err))
		return 0;
	free(f->logger_name);
	free(f->log_file_name);
	free((char *)f->path);
	memset(f, 0, sizeof(*f));
	return -1;
}

int etl_open(struct etl_file *f, const char *path, struct etl_error *err)
{
	struct stat st;
	void *map = NULL;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	/* O_NONBLOCK: a FIFO given as the file is refused, not waited on for ever */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return etl_error_set(err, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		ret = etl_error_set(err, "cannot stat: %s", strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return etl_error_set(err, "not a regular file: an ETL file is read whole, give the file itself (not a pipe or device)");
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			ret = etl_error_set(err, "cannot map: %s", strerror(errno));
			close(fd);
			return ret;
		}
	}
	close(fd);	/* the mapping keeps the file */

	if (etl_open_memory(f, path, map, (uint64_t)st.st_size, err)) {
		if (map)
			munmap(map, (size_t)st.st_size);
		f->data = NULL;
		return -1;
	}
	f->mapped = map != NULL;
	return 0;
}

void etl_close(struct etl_file *f)
{
	if (f->mapped)
		munmap((void *)f->data, (size_t)f->size);
	free(f->logger_name);
	free(f->log_file_name);
	free((char *)f->path);
	memset(f, 0, sizeof(*f));
}

bool etl_time_to_filetime(const struct etl_file *f, int64_t t, int64_t *filetime)
{
	__int128 v;

	if (f->header.perf_freq <= 0)
		return false;
	v = (__int128)t - f->header_system_time;
	v = v * ETW_FILETIME_PER_SECOND / f->header.perf_freq;
	v += f->header.start_time;
	if (v > INT64_MAX || v < INT64_MIN)
		return false;
	*filetime = (int64_t)v;
	return true;
}

bool etl_time_to_seconds(const struct etl_file *f, int64_t t, double *seconds)
{
	if (f->header.perf_freq <= 0)
		return false;
	*seconds = (double)((__int128)t - f->header_system_time) /
		   (double)f->header.perf_freq;
	return true;
}

int etl_walk(const struct etl_file *f, const struct etl_walker *w, struct etl_error *err)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record r;
	int ret;

	etl_buffers_begin(f, &bc);
	while ((ret = etl_next_buffer(f, &bc, &b, err)) > 0) {
		int take = w->buffer ? w->buffer(w->ctx, &b) : 0;

		if (take < 0) {
			ret = -1;
			break;
		}
		if (take > 0)
			continue;
		etl_records_begin(&b, &rc);
		while ((ret = etl_next_record(&b, &rc, &r, err)) > 0)
			if (w->record(w->ctx, &b, &r)) {
				ret = -1;
				break;
			}
		if (ret < 0)
			break;
	}
	/* a walk stopped early (a bad record, a callback) still holds a buffer */
	etl_buffers_end(&bc);
	return ret < 0 ? -1 : 0;
}
