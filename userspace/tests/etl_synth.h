/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build small ETL files in memory from the uapi structs, for the tests of
 * code that reads events (context switches): a header buffer with the
 * Header and HeaderExtension events, then data buffers, each of one CPU,
 * holding PERFINFO64 records. Buffers are appended in the order the test
 * asks for, so CPUs can interleave as they do in real files.
 *
 *	struct synth s;
 *
 *	synth_begin(&s, 4096, 2);
 *	synth_buffer(&s, 1);
 *	synth_record(&s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, t, &cs, sizeof(cs));
 *	...
 *	img = synth_end(&s, &size);	   (an exactly-sized malloc)
 *	cimg = synth_compress(img, size, &csize);   (the same, compressed)
 */
#ifndef NTKL_TEST_ETL_SYNTH_H
#define NTKL_TEST_ETL_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_reader.h"
#include "etl/etl_events.h"
#include "etl/etl_xpress.h"
#include "uapi/ntkl_etw.h"

#define SYNTH_START_CLOCK	1000
#define SYNTH_PERF_FREQ		10000000
#define SYNTH_CLOCK_TYPE	1	/* QPC */

struct synth {
	uint8_t *data;
	size_t size;			/* bytes of whole buffers so far */
	size_t cap;
	uint32_t buffer_size;
	uint32_t nbufs;
	uint32_t filled;		/* of the open buffer; 0: none open */
	uint16_t cpu;			/* of the open buffer */
	int64_t last_time;
	bool failed;			/* a record did not fit */
};

static inline uint32_t synth_align(uint32_t n)
{
	return (n + ETW_RECORD_ALIGN - 1) & ~(uint32_t)(ETW_RECORD_ALIGN - 1);
}

/* Close the open buffer: its header, and 0xFF after the records. */
static inline void synth_close(struct synth *s)
{
	struct wmi_buffer_header bh = {
		.buffer_size = s->buffer_size,
		.saved_offset = s->filled,
		.current_offset = s->filled,
		.timestamp = s->last_time,
		.sequence_number = s->nbufs,
		.processor_index = s->cpu,
		.logger_id = 1,
		.state = ETW_BUFFER_STATE_FLUSH,
		.offset = s->filled,
		.buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX,
		.buffer_type = ETW_BUFFER_TYPE_GENERIC,
	};
	uint8_t *b;

	if (!s->filled)
		return;
	b = s->data + s->size;
	if (s->nbufs == 0) {
		bh.buffer_flag |= ETW_BUFFER_FLAG_FLUSH_MARKER;
		bh.buffer_type = ETW_BUFFER_TYPE_HEADER;
	}
	memcpy(b, &bh, sizeof(bh));
	memset(b + s->filled, ETW_BUFFER_FILL_BYTE, s->buffer_size - s->filled);
	s->size += s->buffer_size;
	s->nbufs++;
	s->filled = 0;
}

/* Start a buffer of cpu (closing the open one). */
static inline void synth_buffer(struct synth *s, uint16_t cpu)
{
	uint8_t *d;

	synth_close(s);
	if (s->size + s->buffer_size > s->cap) {
		size_t cap = 2 * (s->size + s->buffer_size);

		d = realloc(s->data, cap);
		if (!d) {
			s->failed = true;
			return;
		}
		s->data = d;
		s->cap = cap;
	}
	memset(s->data + s->size, 0, s->buffer_size);
	s->cpu = cpu;
	s->filled = ETL_BUFFER_HEADER_SIZE;
}

/* Append a record with header h (marker, size, hook, time set) and payload. */
static inline uint8_t *synth_raw(struct synth *s, const void *h, uint32_t hlen,
				 const void *payload, uint32_t len)
{
	uint8_t *p;

	if (!s->filled || s->filled + synth_align(hlen + len) > s->buffer_size ||
	    hlen + len > 0xFFFF) {
		s->failed = true;
		return NULL;
	}
	p = s->data + s->size + s->filled;
	memcpy(p, h, hlen);
	if (len)
		memcpy(p + hlen, payload, len);
	s->filled += synth_align(hlen + len);
	return p;
}

/* A PERFINFO64 record (as the kernel logger writes CSwitch and CompCS). */
static inline uint8_t *synth_record(struct synth *s, uint16_t hook, uint16_t version,
				    int64_t time, const void *payload, uint32_t len)
{
	struct perfinfo_trace_header h = {
		.marker = ETW_MARKER_PERFINFO64(version),
		.size = (uint16_t)(sizeof(h) + len),
		.hook_id = hook,
		.timestamp = time,
	};

	s->last_time = time;
	return synth_raw(s, &h, sizeof(h), payload, len);
}

/* A SYSTEM64 record (the Header events). */
static inline void synth_system_record(struct synth *s, uint16_t hook, uint16_t version,
				       int64_t time, const void *payload, uint32_t len)
{
	struct system_trace_header h = {
		.marker = ETW_MARKER_SYSTEM64(version),
		.size = (uint16_t)(sizeof(h) + len),
		.hook_id = hook,
		.system_time = time,
	};

	synth_raw(s, &h, sizeof(h), payload, len);
}

/* A file of buffer_size buffers; the header buffer is written now. */
static inline void synth_begin(struct synth *s, uint32_t buffer_size, uint32_t ncpus)
{
	struct {
		struct trace_logfile_header t;
		uint8_t names[6];	/* UTF-16LE "t", then "" */
	} hdr = {
		.t = {
			.buffer_size = buffer_size,
			.version = ETW_LOGFILE_VERSION,
			.provider_version = ETW_NTKL_PROVIDER_VERSION,
			.number_of_processors = ncpus,
			.timer_resolution = 40000,	/* 4 ms */
			.log_file_mode = EVENT_TRACE_FILE_MODE_SEQUENTIAL |
					 EVENT_TRACE_SYSTEM_LOGGER_MODE,
			.start_buffers = 1,
			.pointer_size = 8,
			.perf_freq = SYNTH_PERF_FREQ,
			.start_time = ETW_FILETIME_UNIX_EPOCH,
			.reserved_flags = SYNTH_CLOCK_TYPE,
		},
		.names = { 't', 0, 0, 0, 0, 0 },
	};
	struct etw_header_extension ext = { .kernel_event_version = 70 };

	memset(s, 0, sizeof(*s));
	s->buffer_size = buffer_size;
	synth_buffer(s, 0);
	synth_system_record(s, ETW_EVENT_HEADER_HOOK, etw_events[ETW_EVENT_HEADER].version,
			    SYNTH_START_CLOCK, &hdr, sizeof(hdr));
	ext.group_masks.masks[1] = PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH) |
				   PERF_GET_MASK_GROUP(PERF_COMPACT_CSWITCH);
	synth_system_record(s, ETW_EVENT_HEADER_EXTENSION_HOOK, etw_events[ETW_EVENT_HEADER].version,
			    SYNTH_START_CLOCK, &ext, sizeof(ext));
}

/* A Thread v3 record of hook for pid/tid named name (ASCII), at t. */
static inline void synth_thread(struct synth *s, uint16_t hook, int64_t t, uint32_t pid,
				uint32_t tid, const char *name)
{
	uint8_t rec[sizeof(struct etw_thread_v3) + 64] = { 0 };
	struct etw_thread_v3 *th = (void *)rec;
	size_t n = strlen(name) < 31 ? strlen(name) : 31;

	th->process_id = pid;
	th->thread_id = tid;
	for (size_t i = 0; i < n; i++)
		rec[sizeof(*th) + 2 * i] = (uint8_t)name[i];
	synth_system_record(s, hook, 3, t, rec, (uint32_t)(sizeof(*th) + 2 * n + 2));
}

/* An Image DCStart (v3) of pid at t: base, size and an ASCII path. */
static inline void synth_image_dc_start(struct synth *s, int64_t t, uint32_t pid, uint64_t base,
					uint64_t size, const char *path)
{
	uint8_t rec[sizeof(struct etw_image_v3) + 2 * 4096 + 2] = { 0 };
	struct etw_image_v3 im = { .image_base = base, .image_size = size, .process_id = pid };
	size_t n = strlen(path) < 4096 ? strlen(path) : 4096;

	memcpy(rec, &im, sizeof(im));
	for (size_t i = 0; i < n; i++)
		rec[sizeof(im) + 2 * i] = (uint8_t)path[i];
	synth_record(s, ETW_EVENT_IMAGE_DC_START_HOOK, 3, t, rec, (uint32_t)(sizeof(im) + 2 * n + 2));
}

/* A SampledProfile of thread tid at ip, at t. */
static inline void synth_sample(struct synth *s, int64_t t, uint32_t tid, uint64_t ip)
{
	struct perfinfo_sampled_profile sp = { .instruction_pointer = ip, .thread_id = tid, .count = 1 };

	synth_record(s, ETW_EVENT_SAMPLED_PROFILE_HOOK, 2, t, &sp, sizeof(sp));
}

/* Frames a synthetic stack record holds at most */
#define SYNTH_STACK_FRAMES	16

/*
 * A StackWalk/Stack record at t for pid/tid's event at event_time, of
 * frames f[0..n) (innermost first, n <= SYNTH_STACK_FRAMES).
 */
static inline void synth_stack_walk(struct synth *s, int64_t t, int64_t event_time,
				    uint32_t pid, uint32_t tid, const uint64_t *f, size_t n)
{
	struct {
		struct etw_stack_walk sw;
		uint64_t frames[SYNTH_STACK_FRAMES];
	} rec = { { (uint64_t)event_time, pid, tid }, { 0 } };

	memcpy(rec.frames, f, n * sizeof(*f));
	synth_record(s, ETW_EVENT_STACK_WALK_HOOK, 2, t, &rec,
		     (uint32_t)(sizeof(rec.sw) + n * sizeof(*f)));
}

/* A stack key reference (hook: StackKeyKernel or StackKeyUser) at t. */
static inline void synth_stack_key_ref(struct synth *s, uint16_t hook, int64_t t,
				       int64_t event_time, uint32_t pid, uint32_t tid,
				       uint64_t key)
{
	struct etw_stack_key_ref ref = { (uint64_t)event_time, pid, tid, key };

	synth_record(s, hook, 2, t, &ref, sizeof(ref));
}

/* A key's definition (KeyRundown) at t: frames f[0..n), innermost first. */
static inline void synth_stack_key_def(struct synth *s, int64_t t, uint64_t key,
				       const uint64_t *f, size_t n)
{
	struct {
		struct etw_stack_key_def h;
		uint64_t frames[SYNTH_STACK_FRAMES];
	} rec = { { key }, { 0 } };

	memcpy(rec.frames, f, n * sizeof(*f));
	synth_record(s, ETW_EVENT_STACK_KEY_RUNDOWN_HOOK, 2, t, &rec,
		     (uint32_t)(sizeof(rec.h) + n * sizeof(*f)));
}

/*
 * Close the last buffer, set BuffersWritten and EndTime; returns the file
 * in an exactly-sized malloc (so ASan sees reads past it), or NULL if a
 * record did not fit. s is empty afterwards.
 */
static inline uint8_t *synth_end(struct synth *s, size_t *size)
{
	struct trace_logfile_header t;
	uint8_t *img = NULL;
	/* the Header event's payload: after the buffer and record headers */
	size_t off = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header);

	synth_close(s);
	if (!s->failed && s->data) {
		memcpy(&t, s->data + off, sizeof(t));
		t.buffers_written = s->nbufs;
		t.end_time = t.start_time + 1;
		memcpy(s->data + off, &t, sizeof(t));
		img = malloc(s->size);
		if (img)
			memcpy(img, s->data, s->size);
	}
	*size = img ? s->size : 0;
	free(s->data);
	memset(s, 0, sizeof(*s));
	return img;
}

/*
 * The file img (as synth_end made it) with every buffer after the header
 * buffer compressed as Windows does: BufferFlag COMPRESSED, the header as
 * it was, then the LZ77 stream of [0x48, SavedOffset); BufferSize the size
 * on disk. The header's LogFileMode gets COMPRESSED_MODE. Returns an
 * exactly-sized malloc, or NULL.
 */
static inline uint8_t *synth_compress(const uint8_t *img, size_t size, size_t *out_size)
{
	size_t log_mode = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header) +
			  offsetof(struct trace_logfile_header, log_file_mode);
	uint8_t *out = malloc(size + size / 8 + 64), *ret = NULL;
	size_t in = 0, pos = 0;
	uint32_t mode;

	*out_size = 0;
	if (!out)
		return NULL;
	while (in + ETL_BUFFER_HEADER_SIZE <= size) {
		struct wmi_buffer_header bh;
		size_t n;

		memcpy(&bh, img + in, sizeof(bh));
		if (bh.buffer_size < ETL_BUFFER_HEADER_SIZE || bh.buffer_size > size - in)
			goto out;
		if (in == 0) {
			memcpy(out, img, bh.buffer_size);
			pos = bh.buffer_size;
			in = bh.buffer_size;
			continue;
		}
		if (etl_xpress_compress(img + in + ETL_BUFFER_HEADER_SIZE,
					bh.saved_offset - ETL_BUFFER_HEADER_SIZE,
					out + pos + ETL_BUFFER_HEADER_SIZE,
					size + size / 8 + 64 - pos - ETL_BUFFER_HEADER_SIZE, &n))
			goto out;
		in += bh.buffer_size;
		bh.buffer_size = (uint32_t)(ETL_BUFFER_HEADER_SIZE + n);
		bh.buffer_flag |= ETW_BUFFER_FLAG_COMPRESSED;
		memcpy(out + pos, &bh, sizeof(bh));
		pos += bh.buffer_size;
	}
	memcpy(&mode, out + log_mode, sizeof(mode));
	mode |= EVENT_TRACE_COMPRESSED_MODE;
	memcpy(out + log_mode, &mode, sizeof(mode));
	ret = malloc(pos);
	if (ret) {
		memcpy(ret, out, pos);
		*out_size = pos;
	}
out:
	free(out);
	return ret;
}

#endif /* NTKL_TEST_ETL_SYNTH_H */
