/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read an ETL file: walk its buffers and the records in each buffer.
 *
 * The file is mapped read-only. Nothing here trusts the file: every size
 * and offset is checked against the buffer and the file before it is used,
 * and a problem comes back as a negative return with a message naming the
 * buffer, the file offset and what is wrong. Nothing here exits or prints.
 *
 * Compressed buffers (BufferFlag 0x40, etl_xpress.h) are decompressed as
 * they are read: every consumer sees the buffer header and its records as
 * in an uncompressed file, at the same offsets inside the buffer. Their
 * bytes belong to the cursor and last until its next buffer.
 *
 * Typical use:
 *
 *	struct etl_file f;
 *	struct etl_error err;
 *	struct etl_cursor bc;
 *	struct etl_buffer b;
 *	struct etl_record_cursor rc;
 *	struct etl_record r;
 *
 *	if (etl_open(&f, path, &err))
 *		... report err.msg ...
 *	etl_buffers_begin(&f, &bc);
 *	while (etl_next_buffer(&f, &bc, &b, &err) > 0) {
 *		etl_records_begin(&b, &rc);
 *		while (etl_next_record(&b, &rc, &r, &err) > 0)
 *			... use r ...
 *	}
 *	etl_buffers_end(&bc);
 *	etl_close(&f);
 *
 * A -1 from either iterator leaves the reason in err. A walk that runs to
 * the end (0 or -1) has freed what the cursor held; one that stops early
 * calls etl_buffers_end().
 */
#ifndef NTKL_ETL_READER_H
#define NTKL_ETL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"

#define ETL_BUFFER_HEADER_SIZE	((uint32_t)sizeof(struct wmi_buffer_header))

struct etl_error {
	char msg[256];
};

/* Sets err->msg from a printf format; returns -1 so callers can return it. */
int etl_error_set(struct etl_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct etl_file {
	const char *path;		/* a copy of the name given to etl_open */
	const uint8_t *data;		/* the whole file, read-only */
	uint64_t size;

	/* From the Header event, the first record of buffer 0. */
	struct trace_logfile_header header;
	int64_t header_system_time;	/* the Header event's SystemTime */
	uint32_t header_payload_len;
	char *logger_name;		/* UTF-8, never NULL after etl_open */
	char *log_file_name;
	bool mapped;			/* data is our mmap (etl_open) */
};

/* One buffer, as found in the file (decompressed if it was compressed). */
struct etl_buffer {
	uint32_t index;
	uint64_t offset;		/* of the buffer in the file */
	/*
	 * Where the buffer would be if no buffer before it were compressed:
	 * offset in an uncompressed file. Record file_offsets count from it,
	 * so they stay unique and in file order.
	 */
	uint64_t stream_offset;
	struct wmi_buffer_header hdr;	/* a copy, fields in host order; BufferSize is on disk */
	const uint8_t *data;		/* size bytes: the header, then the records */
	uint32_t size;			/* BufferSize, or SavedOffset when compressed */
	bool compressed;		/* data was decompressed (BufferFlag 0x40) */
	/*
	 * Where the records end. Normally SavedOffset; see etl_buffer_fill()
	 * for the relogger's header buffer. Checked: 0x48 <= filled <= size.
	 */
	uint32_t filled;
	bool filled_from_offset;	/* true when Offset, not SavedOffset, gave filled */
};

struct etl_cursor {
	uint64_t offset;		/* of the next buffer */
	uint64_t stream_offset;		/* its etl_buffer.stream_offset */
	uint32_t index;
	bool failed;
	uint8_t *inflated;		/* the current compressed buffer, decompressed */
	size_t inflated_cap;
	uint64_t inflate_left;		/* of the walk's budget (ETL_INFLATE_PER_BYTE) */
};

/*
 * The most a compressed buffer may decompress to (its SavedOffset): far
 * above the buffer sizes real files use (64 KiB to 1 MiB in the samples),
 * low enough that a corrupt SavedOffset cannot make the reader allocate
 * gigabytes.
 */
#define ETL_MAX_INFLATED_SIZE	(64u << 20)

/*
 * What a file's compressed buffers may decompress to in all, in one walk:
 * one ETL_MAX_INFLATED_SIZE buffer, plus ETL_INFLATE_PER_BYTE times the
 * file's size. Windows' own compressed sample (perfview__net) decompresses
 * to 4.7 times its size, 13.4 times for its best buffer. Without a bound, a
 * buffer of a few dozen bytes could ask for 64 MB, and a file of such
 * buffers for terabytes of work.
 */
#define ETL_INFLATE_PER_BYTE	64u

enum etl_record_kind {
	ETL_KIND_KERNEL,		/* SYSTEM, COMPACT, PERFINFO: group/type hook */
	ETL_KIND_CLASSIC,		/* FULL_HEADER, INSTANCE: MOF Class.Type */
	ETL_KIND_EVENT,			/* EVENT_HEADER: provider GUID + descriptor */
};

struct etl_record {
	uint32_t buffer_index;
	uint32_t buffer_offset;		/* of the record inside its buffer */
	uint64_t file_offset;		/* buffer's stream_offset + buffer_offset */
	uint16_t processor;		/* the buffer's ProcessorIndex */
	uint8_t header_type;		/* ETW_HEADER_TYPE_* */
	uint8_t flags;			/* byte 3: 0xC0 in every sane record */
	enum etl_record_kind kind;
	uint16_t size;			/* whole record, header included */
	uint16_t header_len;		/* fixed header bytes */
	/*
	 * Kernel headers: the marker's low 16 bits (event version, plus the
	 * PMC/PEBS extended-item bits). Classic: the header's Version field.
	 * EVENT_HEADER: the descriptor's version.
	 */
	uint16_t version;

	/*
	 * ETL_KIND_KERNEL: group << 8 | type. A classic record of a class
	 * the event list holds (the image identities) has one too:
	 * ETW_GROUP_IMAGE_ID << 8 | Class.Type; other classic records 0.
	 */
	uint16_t hook_id;

	/* ETL_KIND_CLASSIC (FULL_HEADER carries a GUID, INSTANCE does not) */
	uint8_t classic_type;
	uint8_t classic_level;

	/* ETL_KIND_EVENT */
	uint16_t event_flags;		/* EVENT_HEADER_FLAG_* */
	uint16_t event_property;
	struct etw_event_descriptor descriptor;
	const uint8_t *ext;		/* extended data items, or NULL */
	uint32_t ext_len;
	uint32_t ext_count;

	bool has_guid;
	uint8_t guid[16];		/* provider or class GUID, as stored */

	int64_t timestamp;		/* raw clock value */
	bool has_ids;			/* PERFINFO headers carry no ids */
	uint32_t thread_id;
	uint32_t process_id;

	const uint8_t *payload;		/* inside the buffer's data; never past the record */
	uint32_t payload_len;
};

/* Does the event list (uapi/ntkl_event_list.h) know r by its hook_id? */
static inline bool etl_record_listed(const struct etl_record *r)
{
	return r->kind == ETL_KIND_KERNEL ||
	       (r->kind == ETL_KIND_CLASSIC && ETW_HOOK_GROUP(r->hook_id) == ETW_GROUP_IMAGE_ID);
}

struct etl_record_cursor {
	uint64_t pos;			/* offset in the buffer of the next record */
	bool done;
	bool end_marker;		/* stopped at a 0xFFFFFFFF marker */
};

/*
 * Maps path and parses the header buffer: buffer 0 must be readable
 * (decompressed if need be) and start with the Header event. Returns 0 or
 * -1 (err set).
 */
int etl_open(struct etl_file *f, const char *path, struct etl_error *err);

/* Same on bytes already in memory (tests); data must outlive f. */
int etl_open_memory(struct etl_file *f, const char *name, const void *data,
		    uint64_t size, struct etl_error *err);

void etl_close(struct etl_file *f);

void etl_buffers_begin(const struct etl_file *f, struct etl_cursor *c);

/*
 * The next buffer. Returns 1 with *b filled, 0 at the end of the file, -1
 * on an error (err set: truncated buffer, bad BufferSize, bad SavedOffset,
 * corrupt compressed data). After -1 the cursor stays failed. b->data
 * lasts until the next call with c, or etl_buffers_end(c).
 */
int etl_next_buffer(const struct etl_file *f, struct etl_cursor *c,
		    struct etl_buffer *b, struct etl_error *err);

/* Free what c holds (a walk that reached 0 or -1 already did); c can begin again. */
void etl_buffers_end(struct etl_cursor *c);

/* Number of buffers, walking the whole file; -1 on the first error. */
long etl_count_buffers(const struct etl_file *f, struct etl_error *err);

void etl_records_begin(const struct etl_buffer *b, struct etl_record_cursor *c);

/*
 * The next record of b. Returns 1 with *r filled, 0 at the end of the
 * records (filled reached or a 0xFFFFFFFF marker), -1 on a malformed record
 * (err set); after -1 the cursor is done.
 */
int etl_next_record(const struct etl_buffer *b, struct etl_record_cursor *c,
		    struct etl_record *r, struct etl_error *err);

/*
 * The records of b that etl_next_record() would return before its end or
 * first malformed record, counted from their headers' types and sizes
 * alone (extended items unchecked): the writer counts every buffer it
 * writes, and the full walk costs a quarter of recording a context switch.
 */
uint64_t etl_count_records(const struct etl_buffer *b);

/*
 * One walk over every record of a file, for the readers that want them
 * all: buffer (if set) is called with each buffer before its records,
 * record with each record. A callback returns 0, or -1 with the walk's
 * err set (through ctx) to stop it; buffer returns 1 to pass over that
 * buffer's records.
 */
struct etl_walker {
	int (*buffer)(void *ctx, const struct etl_buffer *b);
	int (*record)(void *ctx, const struct etl_buffer *b, const struct etl_record *r);
	void *ctx;
};

/* Walk f with w. 0 at the end, -1 on a reader error or a callback's (err set). */
int etl_walk(const struct etl_file *f, const struct etl_walker *w, struct etl_error *err);

/* Fixed header size for a header type, 0 if the type is unknown. */
uint32_t etl_header_size(uint8_t header_type);

/* true if the header type is one of the 32-bit ones (SYSTEM32, ...). */
bool etl_header_is_32bit(uint8_t header_type);

/*
 * Clock value -> FILETIME (100 ns since 1601), as readers do:
 * StartTime + (t - Header.SystemTime) * 10^7 / PerfFreq.
 * Returns false if PerfFreq is not positive or the result overflows.
 */
bool etl_time_to_filetime(const struct etl_file *f, int64_t t, int64_t *filetime);

/* Seconds since the Header event (may be negative); false if PerfFreq <= 0. */
bool etl_time_to_seconds(const struct etl_file *f, int64_t t, double *seconds);

/* Little-endian loads that never assume alignment. */
static inline uint16_t etl_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t etl_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t etl_le64(const uint8_t *p)
{
	return (uint64_t)etl_le32(p) | (uint64_t)etl_le32(p + 4) << 32;
}

#endif /* NTKL_ETL_READER_H */
