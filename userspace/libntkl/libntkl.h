/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libntkl: user-mode private loggers (ETW's EVENT_TRACE_PRIVATE_LOGGER_MODE
 * with EVENT_TRACE_PRIVATE_IN_PROC) that write the program's own events to
 * an ETL file, in the same clock as ntkl's kernel loggers so the two files
 * merge.
 *
 * A logger lives inside one process: per-CPU buffers in the process's
 * memory (MinimumBuffers committed at start, up to MaximumBuffers
 * reserved), a logger thread that writes full buffers to the file and
 * flushes partly filled ones every FlushTimer seconds. Writing an event
 * never enters the kernel on the fast path and never waits unless the
 * logger runs in NTKL_UM_MODE_BLOCKING; an event that finds no buffer is
 * counted in EventsLost.
 *
 * Events are EVENT_HEADER records (provider GUID, event descriptor,
 * payload) that describe themselves the TraceLogging way: the event and
 * field names and types ride in each record's EVENT_SCHEMA_TL extended
 * data item, the provider's name in its PROV_TRAITS item, so `ntkl dump
 * --events` (and Windows tools) decode them without a manifest.
 *
 * Every function returns 0 (or a count) or a negative errno; then
 * ntkl_um_last_error() says why, on one line, with the fix. Every symbol
 * of the library begins with ntkl_um_ (NTKL_UM_ for macros).
 */
#ifndef LIBNTKL_H
#define LIBNTKL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NTKL_UM_VERSION_MAJOR	0
#define NTKL_UM_VERSION_MINOR	1

/* LogFileMode bits (ETW's values; evntrace.h names in brackets) */
#define NTKL_UM_MODE_SEQUENTIAL	0x00000001u	/* [EVENT_TRACE_FILE_MODE_SEQUENTIAL] */
#define NTKL_UM_MODE_PRIVATE	0x00000800u	/* [EVENT_TRACE_PRIVATE_LOGGER_MODE], always set */
#define NTKL_UM_MODE_IN_PROC	0x00020000u	/* [EVENT_TRACE_PRIVATE_IN_PROC], always set */
#define NTKL_UM_MODE_COMPRESSED	0x04000000u	/* [EVENT_TRACE_COMPRESSED_MODE] */
#define NTKL_UM_MODE_BLOCKING	0x20000000u	/* [EVENT_TRACE_BLOCKING_MODE] */

/* ClockType: the kernel loggers' (uapi/ntkl.h NTKL_CLOCK_*) */
#define NTKL_UM_CLOCK_QPC	1	/* CLOCK_MONOTONIC in 100 ns units, PerfFreq 10 MHz */
#define NTKL_UM_CLOCK_SYSTEM	2	/* FILETIME (CLOCK_REALTIME, 100 ns since 1601) */
#define NTKL_UM_CLOCK_CYCLE	3	/* the TSC on x86 (PerfFreq measured), else ns */

#define NTKL_UM_NAME_MAX	64	/* logger and provider names, NUL included */

/*
 * EVENT_TRACE_PROPERTIES' fields for a private logger. Zero asks for the
 * default. size must be sizeof(struct ntkl_um_properties) (later versions
 * accept older sizes).
 */
struct ntkl_um_properties {
	uint32_t size;
	uint32_t buffer_size_kb;	/* 4..16384; default 64 */
	uint32_t minimum_buffers;	/* committed at start; default 2 per CPU */
	uint32_t maximum_buffers;	/* reserved; default 8 per CPU (>= minimum) */
	uint32_t flush_timer;		/* seconds between flushes of partial buffers; 0: 1 */
	uint32_t log_file_mode;		/* NTKL_UM_MODE_*; PRIVATE | IN_PROC always added */
	uint32_t clock_type;		/* NTKL_UM_CLOCK_*; default QPC */
	uint32_t reserved;		/* must be 0 */

	/* out (ntkl_um_query, ntkl_um_stop) */
	uint32_t number_of_buffers;	/* committed */
	uint32_t free_buffers;
	uint32_t number_of_processors;
	uint32_t logger_thread_id;
	uint64_t events_lost;
	uint64_t buffers_written;	/* trace buffers in the file, header buffer included */
	uint64_t log_buffers_lost;	/* trace buffers a failed write lost */
	uint64_t events_written;	/* the program's events in the buffers written */
	uint64_t file_bytes;
	uint64_t perf_freq;		/* clock ticks per second */
	uint64_t start_clock;		/* clock value at start */
};

/* A logger (opaque). */
struct ntkl_um_logger;

/* A provider registered with a logger (EventRegister's handle). */
struct ntkl_um_provider;

/*
 * StartTrace: start logger name writing to the ETL file path (created, or
 * replacing the file there; a symlink's target is replaced, the link
 * kept). props may be NULL (every default). On success *out is the
 * logger and the logger thread runs. A start that fails leaves path as
 * it was: a file there byte for byte (the new one is written beside it
 * and renamed over it only once the logger runs), and none where there
 * was none. -EEXIST if another ntkl writer is writing path.
 */
int ntkl_um_start(struct ntkl_um_logger **out, const char *name, const char *path,
		  const struct ntkl_um_properties *props);

/*
 * ControlTrace(STOP): write every buffer, complete the file (BuffersWritten,
 * EventsLost, EndTime) and free the logger. final (may be NULL) gets the
 * last counters. Writers must have stopped writing to this logger.
 */
int ntkl_um_stop(struct ntkl_um_logger *lg, struct ntkl_um_properties *final);

/* ControlTrace(FLUSH): every partly filled buffer to the file, now. */
int ntkl_um_flush(struct ntkl_um_logger *lg);

/* ControlTrace(QUERY): the settings as applied and the counters. */
int ntkl_um_query(struct ntkl_um_logger *lg, struct ntkl_um_properties *props);

/*
 * ControlTrace(UPDATE): what a running private logger may change: the
 * flush timer and MaximumBuffers (up to what start reserved). Other
 * fields must be 0 or equal to the running values (-EINVAL otherwise).
 */
int ntkl_um_update(struct ntkl_um_logger *lg, const struct ntkl_um_properties *props);

/*
 * EventRegister + EnableTraceEx2 in one: provider provider_name of this
 * program, GUID guid (as files store it: 3 little-endian fields, then 8
 * bytes; required), enabled on lg at level (0: every level) for the
 * keywords in keyword_mask (0: every keyword).
 */
int ntkl_um_register(struct ntkl_um_logger *lg, const char *provider_name,
		     const uint8_t guid[16], uint8_t level, uint64_t keyword_mask,
		     struct ntkl_um_provider **out);

/* EventUnregister. */
void ntkl_um_unregister(struct ntkl_um_provider *p);

/* EVENT_DESCRIPTOR */
struct ntkl_um_descriptor {
	uint16_t id;
	uint8_t version;
	uint8_t channel;
	uint8_t level;
	uint8_t opcode;
	uint16_t task;
	uint64_t keyword;
};

/* TraceLogging field types (TlgIn_t values; the file carries them) */
enum ntkl_um_type {
	NTKL_UM_UTF16STRING = 1,	/* NUL-terminated UTF-16LE */
	NTKL_UM_STRING = 2,		/* NUL-terminated 8-bit (UTF-8) */
	NTKL_UM_INT8 = 3,
	NTKL_UM_UINT8 = 4,
	NTKL_UM_INT16 = 5,
	NTKL_UM_UINT16 = 6,
	NTKL_UM_INT32 = 7,
	NTKL_UM_UINT32 = 8,
	NTKL_UM_INT64 = 9,
	NTKL_UM_UINT64 = 10,
	NTKL_UM_FLOAT = 11,
	NTKL_UM_DOUBLE = 12,
	NTKL_UM_BOOL32 = 13,
	NTKL_UM_GUID = 15,
	NTKL_UM_FILETIME = 17,
	NTKL_UM_HEXINT32 = 20,
	NTKL_UM_HEXINT64 = 21,
};

/* One field of an event: its name, type and value. */
struct ntkl_um_field {
	const char *name;
	enum ntkl_um_type type;
	const void *data;		/* the value, as the type lays it out */
	uint32_t size;			/* bytes at data (strings: terminator included) */
};

/*
 * An event's schema, built once (ntkl_um_schema) and reused: the event
 * name and its fields' names and types in TraceLogging's encoding.
 */
struct ntkl_um_schema {
	uint16_t len;
	uint8_t blob[510];
};

/*
 * Build the schema of event name with nfields fields (names and types
 * from fields; data and size are ignored). -ENAMETOOLONG if it does not
 * fit in 510 bytes.
 */
int ntkl_um_schema(struct ntkl_um_schema *s, const char *name,
		   const struct ntkl_um_field *fields, unsigned int nfields);

/*
 * EventWrite: one event of provider p with descriptor d and schema s
 * (NULL: no TraceLogging schema, a manifest event), the fields' values
 * back to back as its payload. Returns 0; -ENOSPC if the event was lost
 * (no free buffer; counted in EventsLost); 0 without writing if p is not
 * enabled for d's level and keyword; -EMSGSIZE if it is larger than a
 * buffer can hold. Thread-safe; lock-free and without system calls on
 * its fast path (a full buffer adds a sem_post; in NTKL_UM_MODE_BLOCKING
 * an event that finds no free buffer waits on a mutex and condition).
 */
int ntkl_um_write(struct ntkl_um_provider *p, const struct ntkl_um_descriptor *d,
		  const struct ntkl_um_schema *s, const struct ntkl_um_field *fields,
		  unsigned int nfields);

/* The logger's clock now, in its units (as the events are stamped). */
uint64_t ntkl_um_clock(const struct ntkl_um_logger *lg);

/* Why the calling thread's last failed call failed (one line), or "". */
const char *ntkl_um_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBNTKL_H */
