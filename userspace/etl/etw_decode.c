// SPDX-License-Identifier: GPL-2.0
/*
 * Payload decoders. Fixed fields are read at the offsets of the uapi
 * structs (offsetof/sizeof), never by casting the payload: the payload may
 * be short, and nothing here reads a byte past p + len.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "etw_decode.h"
#include "etw_names.h"
#include "utf16.h"

/* ---------------------------------------------------------------------- */
/* A bounds-checked field printer                                          */
/* ---------------------------------------------------------------------- */

struct dec {
	FILE *out;
	const uint8_t *p;
	uint32_t len;
	uint32_t pos;			/* cursor for the variable-length part */
	uint32_t used;			/* highest byte decoded, for "not decoded" */
	bool is_short;
	const char *short_field;
	uint32_t short_need;
};

enum fmt { FMT_DEC, FMT_SIGNED, FMT_HEX };

static void dec_begin(struct dec *d, FILE *out, const char *indent,
		      const char *what, const uint8_t *p, uint32_t len)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
	d->p = p;
	d->len = len;
	fprintf(out, "%s%s:", indent, what);
}

/* true if [off, off + n) is inside the payload; else the payload is short. */
static bool dec_have(struct dec *d, uint64_t off, uint64_t n, const char *field)
{
	if (d->is_short)
		return false;
	if (off + n > d->len) {
		d->is_short = true;
		d->short_field = field;
		d->short_need = off + n > UINT32_MAX ? UINT32_MAX : (uint32_t)(off + n);
		return false;
	}
	if (off + n > d->used)
		d->used = (uint32_t)(off + n);
	return true;
}

static uint64_t dec_load(const struct dec *d, uint32_t off, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v |= (uint64_t)d->p[off + i] << (8 * i);
	return v;
}

/* Read and print an integer field of n bytes at off; 0 if short. */
static uint64_t dec_int(struct dec *d, uint32_t off, uint32_t n,
			const char *name, enum fmt fmt)
{
	uint64_t v;

	if (!dec_have(d, off, n, name))
		return 0;
	v = dec_load(d, off, n);
	switch (fmt) {
	case FMT_HEX:
		fprintf(d->out, " %s=0x%" PRIx64, name, v);
		break;
	case FMT_SIGNED: {
		/* sign-extend from n bytes */
		int64_t s = n < 8 && (v >> (8 * n - 1)) ? (int64_t)(v | ~0ULL << (8 * n))
							: (int64_t)v;
		fprintf(d->out, " %s=%" PRId64, name, s);
		break;
	}
	default:
		fprintf(d->out, " %s=%" PRIu64, name, v);
		break;
	}
	return v;
}

/* Read an integer without printing it; 0 if short. */
static uint64_t dec_peek(struct dec *d, uint32_t off, uint32_t n, const char *name)
{
	return dec_have(d, off, n, name) ? dec_load(d, off, n) : 0;
}

#define FIELD_OFF(type, field)	((uint32_t)offsetof(type, field))
#define FIELD_LEN(type, field)	((uint32_t)sizeof(((type *)0)->field))
#define DEC(d, type, field, name, fmt) \
	dec_int(d, FIELD_OFF(type, field), FIELD_LEN(type, field), name, fmt)

/* A NUL-terminated UTF-16 string at the cursor. */
static void dec_wstr(struct dec *d, const char *name)
{
	char buf[1024];
	size_t used = 0;
	bool terminated;

	if (!dec_have(d, d->pos, 2, name))
		return;
	terminated = utf16le_to_utf8(d->p + d->pos, d->len - d->pos, buf,
				     sizeof(buf), &used);
	fprintf(d->out, " %s=\"", name);
	etw_print_escaped(d->out, buf, sizeof(buf), false);
	fputc('"', d->out);
	if (!terminated)
		fprintf(d->out, "(unterminated)");
	d->pos += (uint32_t)used;
	if (d->pos > d->used)
		d->used = d->pos;
}

/* A UTF-16 string in a fixed array of n bytes at off. */
static void dec_wstr_fixed(struct dec *d, uint32_t off, uint32_t n, const char *name)
{
	char buf[1024];

	if (!dec_have(d, off, n, name))
		return;
	utf16le_to_utf8(d->p + off, n, buf, sizeof(buf), NULL);
	fprintf(d->out, " %s=\"", name);
	etw_print_escaped(d->out, buf, sizeof(buf), false);
	fputc('"', d->out);
}

/* A NUL-terminated 8-bit string at the cursor (code page unknown). */
static void dec_astr(struct dec *d, const char *name)
{
	const uint8_t *s = d->p + d->pos;
	uint32_t left, n;

	if (!dec_have(d, d->pos, 1, name))
		return;
	left = d->len - d->pos;
	for (n = 0; n < left && s[n]; n++)
		;
	fprintf(d->out, " %s=\"", name);
	etw_print_escaped(d->out, (const char *)s, n, true);
	fputc('"', d->out);
	if (n == left) {
		fprintf(d->out, "(unterminated)");
		d->pos = d->len;
	} else {
		d->pos += n + 1;
	}
	if (d->pos > d->used)
		d->used = d->pos;
}

static void dec_end(struct dec *d)
{
	if (d->is_short)
		fprintf(d->out, " [payload short: 0x%x bytes, %s needs 0x%x]",
			d->len, d->short_field, d->short_need);
	else if (d->used < d->len)
		fprintf(d->out, " [+%u bytes not decoded]", d->len - d->used);
	fputc('\n', d->out);
}

void etw_print_escaped(FILE *out, const char *s, size_t max, bool ascii_only)
{
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7F || (ascii_only && c >= 0x80))
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

const char *etw_filetime_str(int64_t filetime, char *buf, size_t size)
{
	int64_t since_epoch, secs, frac;
	struct tm tm;
	time_t t;

	/* 0 and negatives (and years past 9999) are no date: show the number. */
	if (filetime <= 0)
		goto not_a_date;
	since_epoch = filetime - ETW_FILETIME_UNIX_EPOCH;	/* no overflow: filetime > 0 */
	secs = since_epoch / ETW_FILETIME_PER_SECOND;
	frac = since_epoch % ETW_FILETIME_PER_SECOND;
	if (frac < 0) {
		frac += ETW_FILETIME_PER_SECOND;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
		goto not_a_date;
	snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d.%07" PRId64 " UTC",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, frac);
	return buf;

not_a_date:
	snprintf(buf, size, "%" PRId64 " (not a date)", filetime);
	return buf;
}

const char *etw_guid_str(const uint8_t g[16], char *buf, size_t size)
{
	snprintf(buf, size,
		 "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 etl_le32(g), etl_le16(g + 4), etl_le16(g + 6), g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
	return buf;
}

bool etw_sid_to_string(const uint8_t *p, uint32_t len, char *buf, size_t size,
		       uint32_t *sid_len)
{
	struct etw_sid sid;
	uint64_t authority = 0;
	uint32_t need;
	size_t n;

	if (len < sizeof(sid))
		return false;
	memcpy(&sid, p, sizeof(sid));
	need = (uint32_t)sizeof(sid) + 4u * sid.sub_authority_count;
	if (len < need)
		return false;
	for (int i = 0; i < 6; i++)	/* big-endian, unlike the rest */
		authority = authority << 8 | sid.identifier_authority[i];
	if (authority >> 32)
		n = (size_t)snprintf(buf, size, "S-%u-0x%012" PRIx64, sid.revision, authority);
	else
		n = (size_t)snprintf(buf, size, "S-%u-%" PRIu64, sid.revision, authority);
	for (uint32_t i = 0; i < sid.sub_authority_count && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "-%u",
				      etl_le32(p + sizeof(sid) + 4 * i));
	*sid_len = need;
	return true;
}

/* ---------------------------------------------------------------------- */
/* Group 0: the logger's own events                                        */
/* ---------------------------------------------------------------------- */

void etw_decode_logfile_header(FILE *out, const char *indent,
			       const uint8_t *p, uint32_t len)
{
	typedef struct trace_logfile_header H;
	char mode[512];
	struct dec d;
	uint64_t v;

	dec_begin(&d, out, indent, "Header", p, len);
	DEC(&d, H, buffer_size, "BufferSize", FMT_DEC);
	DEC(&d, H, version, "Version", FMT_HEX);
	DEC(&d, H, provider_version, "ProviderVersion", FMT_DEC);
	DEC(&d, H, number_of_processors, "NumberOfProcessors", FMT_DEC);
	DEC(&d, H, end_time, "EndTime", FMT_SIGNED);
	DEC(&d, H, timer_resolution, "TimerResolution", FMT_DEC);
	DEC(&d, H, maximum_file_size, "MaximumFileSize", FMT_DEC);
	v = DEC(&d, H, log_file_mode, "LogFileMode", FMT_HEX);
	if (!d.is_short)
		fprintf(out, "(%s)", etw_flags_str(etw_logfile_mode_names,
						  (uint32_t)v, mode, sizeof(mode)));
	DEC(&d, H, buffers_written, "BuffersWritten", FMT_DEC);
	DEC(&d, H, start_buffers, "StartBuffers", FMT_DEC);
	DEC(&d, H, pointer_size, "PointerSize", FMT_DEC);
	DEC(&d, H, events_lost, "EventsLost", FMT_DEC);
	DEC(&d, H, cpu_speed_in_mhz, "CpuSpeedInMHz", FMT_DEC);
	DEC(&d, H, time_zone.bias, "TimeZoneBias", FMT_SIGNED);
	DEC(&d, H, boot_time, "BootTime", FMT_SIGNED);
	DEC(&d, H, perf_freq, "PerfFreq", FMT_SIGNED);
	DEC(&d, H, start_time, "StartTime", FMT_SIGNED);
	DEC(&d, H, reserved_flags, "ReservedFlags", FMT_DEC);
	DEC(&d, H, buffers_lost, "BuffersLost", FMT_DEC);
	d.pos = sizeof(H);
	dec_wstr(&d, "LoggerName");
	dec_wstr(&d, "LogFileName");
	/* The zone names are in the middle: count them as decoded. */
	if (!d.is_short && d.used < d.pos)
		d.used = d.pos;
	dec_end(&d);
}

void etw_decode_header_extension(FILE *out, const char *indent,
				 const uint8_t *p, uint32_t len)
{
	typedef struct etw_header_extension X;
	struct perfinfo_groupmask gm;
	struct dec d;

	dec_begin(&d, out, indent, "GroupMasks", p, len);
	fprintf(out, " Masks=");
	for (int i = 0; i < PERF_NUM_MASKS; i++) {
		uint32_t off = FIELD_OFF(X, group_masks.masks[0]) + 4 * (uint32_t)i;

		gm.masks[i] = (uint32_t)dec_peek(&d, off, 4, "GroupMasks");
		if (d.is_short)
			break;
		fprintf(out, "%s%08x", i ? ":" : "", gm.masks[i]);
	}
	DEC(&d, X, kernel_event_version, "KernelEventVersion", FMT_DEC);
	if (!d.is_short) {
		const struct etw_flag_name *g;
		bool any = false;

		fprintf(out, " On=");
		for (g = etw_perf_group_names; g->name; g++) {
			if (!perf_group_is_on(&gm, g->value))
				continue;
			fprintf(out, "%s%s", any ? "|" : "", g->name);
			any = true;
		}
		if (!any)
			fprintf(out, "none");
	}
	dec_end(&d);
}

/* ---------------------------------------------------------------------- */
/* Thread and Process                                                      */
/* ---------------------------------------------------------------------- */

void etw_decode_thread_v3(FILE *out, const char *indent,
			  const uint8_t *p, uint32_t len)
{
	typedef struct etw_thread_v3 T;
	struct dec d;

	dec_begin(&d, out, indent, "Thread", p, len);
	DEC(&d, T, process_id, "ProcessId", FMT_DEC);
	DEC(&d, T, thread_id, "TThreadId", FMT_DEC);
	DEC(&d, T, stack_base, "StackBase", FMT_HEX);
	DEC(&d, T, stack_limit, "StackLimit", FMT_HEX);
	DEC(&d, T, user_stack_base, "UserStackBase", FMT_HEX);
	DEC(&d, T, user_stack_limit, "UserStackLimit", FMT_HEX);
	DEC(&d, T, affinity, "Affinity", FMT_HEX);
	DEC(&d, T, win32_start_addr, "Win32StartAddr", FMT_HEX);
	DEC(&d, T, teb_base, "TebBase", FMT_HEX);
	DEC(&d, T, sub_process_tag, "SubProcessTag", FMT_HEX);
	DEC(&d, T, base_priority, "BasePriority", FMT_DEC);
	DEC(&d, T, page_priority, "PagePriority", FMT_DEC);
	DEC(&d, T, io_priority, "IoPriority", FMT_DEC);
	DEC(&d, T, thread_flags, "ThreadFlags", FMT_HEX);
	/* Version 3 as Windows 10 and 11 log it: a name, a lone NUL if none. */
	d.pos = sizeof(T);
	dec_wstr(&d, "ThreadName");
	dec_end(&d);
}

/*
 * The TOKEN_USER block at the cursor: struct etw_sid_header then a SID.
 * A zero first dword is a null token of 4 bytes (TraceEvent's reading; no
 * sample has one).
 */
static void dec_sid(struct dec *d, const char *name)
{
	char sid[160];
	uint32_t sid_len = 0, hdr = sizeof(struct etw_sid_header);

	if (!dec_have(d, d->pos, 4, name))
		return;
	if (etl_le32(d->p + d->pos) == 0) {
		fprintf(d->out, " %s=(null)", name);
		d->pos += 4;
		return;
	}
	if (!dec_have(d, d->pos, hdr + sizeof(struct etw_sid), name))
		return;
	if (!etw_sid_to_string(d->p + d->pos + hdr, d->len - d->pos - hdr,
			       sid, sizeof(sid), &sid_len)) {
		/* force the short report with the size the SID asks for */
		uint8_t n = d->p[d->pos + hdr + offsetof(struct etw_sid, sub_authority_count)];

		dec_have(d, d->pos, hdr + sizeof(struct etw_sid) + 4u * n, name);
		return;
	}
	dec_have(d, d->pos, hdr + sid_len, name);
	fprintf(d->out, " %s=%s", name, sid);
	d->pos += hdr + sid_len;
}

void etw_decode_process_v4(FILE *out, const char *indent,
			   const uint8_t *p, uint32_t len)
{
	typedef struct etw_process_v4 P;
	struct dec d;

	dec_begin(&d, out, indent, "Process", p, len);
	DEC(&d, P, unique_process_key, "UniqueProcessKey", FMT_HEX);
	DEC(&d, P, process_id, "ProcessId", FMT_DEC);
	DEC(&d, P, parent_id, "ParentId", FMT_DEC);
	DEC(&d, P, session_id, "SessionId", FMT_DEC);
	DEC(&d, P, exit_status, "ExitStatus", FMT_SIGNED);
	DEC(&d, P, directory_table_base, "DirectoryTableBase", FMT_HEX);
	DEC(&d, P, flags, "Flags", FMT_HEX);
	d.pos = ETW_PROCESS_V4_FIXED_SIZE;
	dec_sid(&d, "UserSID");
	dec_astr(&d, "ImageFileName");
	dec_wstr(&d, "CommandLine");
	dec_wstr(&d, "PackageFullName");
	dec_wstr(&d, "ApplicationId");
	dec_end(&d);
}

/* ---------------------------------------------------------------------- */
/* Scheduling: CSwitch, CompCS, SpinLock, ReadyThread                      */
/* ---------------------------------------------------------------------- */

static void print_name(FILE *out, const char *name)
{
	if (name)
		fprintf(out, "(%s)", name);
}

void etw_decode_cswitch(FILE *out, const char *indent,
			const uint8_t *p, uint32_t len)
{
	typedef struct wmi_contextswap C;
	struct dec d;
	uint64_t v;

	dec_begin(&d, out, indent, "CSwitch", p, len);
	DEC(&d, C, new_thread_id, "NewThreadId", FMT_DEC);
	DEC(&d, C, old_thread_id, "OldThreadId", FMT_DEC);
	DEC(&d, C, new_thread_priority, "NewThreadPriority", FMT_SIGNED);
	DEC(&d, C, old_thread_priority, "OldThreadPriority", FMT_SIGNED);
	DEC(&d, C, previous_c_state, "PreviousCState", FMT_DEC);
	DEC(&d, C, spare_byte, "SpareByte", FMT_SIGNED);
	v = DEC(&d, C, old_thread_wait_reason, "OldThreadWaitReason", FMT_DEC);
	if (!d.is_short)
		print_name(out, etw_kwait_reason_name((uint8_t)v));
	DEC(&d, C, old_thread_wait_mode, "OldThreadWaitMode", FMT_SIGNED);
	v = DEC(&d, C, old_thread_state, "OldThreadState", FMT_DEC);
	if (!d.is_short)
		print_name(out, etw_kthread_state_name((uint8_t)v));
	DEC(&d, C, old_thread_ideal_processor, "OldThreadWaitIdealProcessor", FMT_DEC);
	DEC(&d, C, new_thread_wait_time, "NewThreadWaitTime", FMT_DEC);
	DEC(&d, C, old_thread_remaining_quantum, "Reserved", FMT_SIGNED);
	dec_end(&d);
}

/* OldThreadStateWr: a wait reason below MaximumWaitReason, else a State. */
static void print_state_wr(FILE *out, uint8_t state_wr)
{
	const char *name;

	if (state_wr < ETW_MAXIMUM_WAIT_REASON) {
		name = etw_kwait_reason_name(state_wr);
		fprintf(out, " State=Waiting WaitReason=%u", state_wr);
		print_name(out, name);
	} else {
		uint8_t state = (uint8_t)(state_wr - ETW_MAXIMUM_WAIT_REASON);

		fprintf(out, " State=%u", state);
		print_name(out, etw_kthread_state_name(state));
	}
}

void etw_decode_compact_cswitch(FILE *out, const char *indent,
				const uint8_t *p, uint32_t len)
{
	typedef struct perfinfo_ccswap_buffer B;
	static const char *const type_names[] = {
		[PERF_CSWAP_IDLE_SHORT]	= "IDLE_SHORT",
		[PERF_CSWAP_IDLE]	= "IDLE",
		[PERF_CSWAP_LITE]	= "LITE",
		[PERF_CSWAP_FULL]	= "FULL",
	};
	uint32_t tids[PERFINFO_CCSWAP_MAX_TID];
	int8_t base_pri[PERFINFO_CCSWAP_MAX_TID];
	struct perfinfo_ccswap_packet pkt;
	uint64_t time;
	uint32_t pos, n, count = 0;
	struct dec d;

	dec_begin(&d, out, indent, "CompCS", p, len);
	time = DEC(&d, B, first_timestamp, "FirstTimeStamp", FMT_DEC);
	if (!dec_have(&d, 0, sizeof(B), "TidTable")) {
		dec_end(&d);
		return;
	}
	fprintf(out, " TidTable=");
	for (int i = 0; i < PERFINFO_CCSWAP_MAX_TID; i++) {
		tids[i] = etl_le32(p + FIELD_OFF(B, tid_table) + 4 * (uint32_t)i);
		base_pri[i] = (int8_t)p[FIELD_OFF(B, thread_base_priority) + (uint32_t)i];
		fprintf(out, "%s%u/%d", i ? "," : "", tids[i], base_pri[i]);
	}
	d.used = d.len;		/* the packets are printed below */
	dec_end(&d);

	/* Packets back to back; each takes at least 2 bytes, so this ends. */
	for (pos = sizeof(B); pos < len; pos += n) {
		n = perfinfo_ccswap_decode(p + pos, len - pos, &pkt);
		if (!n) {
			fprintf(out, "%s  packet %u at +0x%x: truncated: %u bytes left, a %s packet needs %u\n",
				indent, count, pos, len - pos,
				type_names[p[pos] & 3],
				perfinfo_ccswap_packet_size((enum perfinfo_ccswap_type)(p[pos] & 3)));
			break;
		}
		time += pkt.time_delta;
		fprintf(out, "%s  packet %u at +0x%x: %s TimeDelta=%u Time=%" PRIu64,
			indent, count, pos, type_names[pkt.type], pkt.time_delta, time);
		if (pkt.type == PERF_CSWAP_LITE || pkt.type == PERF_CSWAP_FULL) {
			fprintf(out, " OldThread=%u(TidTable[%u])", tids[pkt.tid_index],
				pkt.tid_index);
			print_state_wr(out, pkt.state_wr);
		} else {
			fprintf(out, " OldThread=0(idle)");
		}
		if (pkt.type == PERF_CSWAP_LITE)
			fprintf(out, " Priority=%d(base %d + %u)",
				base_pri[pkt.tid_index] + pkt.pri_inc,
				base_pri[pkt.tid_index], pkt.pri_inc);
		if (pkt.type == PERF_CSWAP_FULL)
			fprintf(out, " Priority=%u NewThreadWaitTime=%u",
				pkt.priority, pkt.new_thread_wait_time);
		fputc('\n', out);
		count++;
	}
}

void etw_decode_spinlock(FILE *out, const char *indent,
			 const uint8_t *p, uint32_t len)
{
	typedef struct wmi_spinlock S;
	struct dec d;
	uint64_t flags;

	dec_begin(&d, out, indent, "SpinLock", p, len);
	DEC(&d, S, spin_lock_address, "SpinLockAddress", FMT_HEX);
	DEC(&d, S, caller_address, "CallerAddress", FMT_HEX);
	DEC(&d, S, acquire_time, "AcquireTime", FMT_DEC);
	DEC(&d, S, release_time, "ReleaseTime", FMT_DEC);
	DEC(&d, S, wait_time_in_cycles, "WaitTimeInCycles", FMT_DEC);
	DEC(&d, S, spin_count, "SpinCount", FMT_DEC);
	DEC(&d, S, thread_id, "ThreadId", FMT_DEC);
	DEC(&d, S, interrupt_count, "InterruptCount", FMT_DEC);
	DEC(&d, S, irql, "Irql", FMT_DEC);
	DEC(&d, S, acquire_depth, "AcquireDepth", FMT_DEC);
	flags = dec_peek(&d, FIELD_OFF(S, flags), FIELD_LEN(S, flags), "Flags");
	if (!d.is_short) {
		uint8_t mode = (uint8_t)(flags & WMI_SPINLOCK_ACQUIRE_MODE_MASK);

		fprintf(out, " AcquireMode=%u", mode);
		print_name(out, etw_spinlock_mode_name(mode));
		fprintf(out, " ExecuteDpc=%d ExecuteIsr=%d",
			!!(flags & WMI_SPINLOCK_EXECUTE_DPC),
			!!(flags & WMI_SPINLOCK_EXECUTE_ISR));
	}
	dec_have(&d, FIELD_OFF(S, reserved), FIELD_LEN(S, reserved), "Reserved");
	dec_end(&d);
}

void etw_decode_ready_thread(FILE *out, const char *indent,
			     const uint8_t *p, uint32_t len)
{
	typedef struct etw_ready_thread R;
	struct dec d;
	uint64_t v;

	dec_begin(&d, out, indent, "ReadyThread", p, len);
	DEC(&d, R, thread_id, "TThreadId", FMT_DEC);
	v = DEC(&d, R, adjust_reason, "AdjustReason", FMT_SIGNED);
	if (!d.is_short)
		print_name(out, etw_ready_adjust_reason_name((int8_t)v));
	DEC(&d, R, adjust_increment, "AdjustIncrement", FMT_SIGNED);
	v = DEC(&d, R, flag, "Flag", FMT_HEX);
	if (!d.is_short && v) {
		fprintf(out, "(%s%s%s)",
			v & ETW_READY_THREAD_READIED_FROM_DPC ? " ReadiedFromDPC" : "",
			v & ETW_READY_THREAD_KERNEL_STACK_SWAPPED ? " KernelStackSwapped" : "",
			v & ETW_READY_THREAD_PROCESS_SWAPPED ? " ProcessSwapped" : "");
	}
	DEC(&d, R, reserved, "Reserved", FMT_SIGNED);
	dec_end(&d);
}

/* ---------------------------------------------------------------------- */
/* SystemConfig                                                            */
/* ---------------------------------------------------------------------- */

void etw_decode_config_cpu(FILE *out, const char *indent,
			   const uint8_t *p, uint32_t len)
{
	typedef struct etw_config_cpu C;
	struct dec d;

	dec_begin(&d, out, indent, "CPU", p, len);
	DEC(&d, C, mhz, "MHz", FMT_DEC);
	DEC(&d, C, number_of_processors, "NumberOfProcessors", FMT_DEC);
	DEC(&d, C, mem_size, "MemSize", FMT_DEC);
	DEC(&d, C, page_size, "PageSize", FMT_DEC);
	DEC(&d, C, allocation_granularity, "AllocationGranularity", FMT_DEC);
	dec_wstr_fixed(&d, FIELD_OFF(C, computer_name), FIELD_LEN(C, computer_name),
		       "ComputerName");
	dec_wstr_fixed(&d, FIELD_OFF(C, domain_name), FIELD_LEN(C, domain_name),
		       "DomainName");
	DEC(&d, C, hyper_threading_flag, "HyperThreadingFlag", FMT_HEX);
	DEC(&d, C, highest_user_address, "HighestUserAddress", FMT_HEX);
	DEC(&d, C, processor_architecture, "ProcessorArchitecture", FMT_DEC);
	DEC(&d, C, processor_level, "ProcessorLevel", FMT_DEC);
	DEC(&d, C, processor_revision, "ProcessorRevision", FMT_HEX);
	DEC(&d, C, pae_enabled, "PaeEnabled", FMT_DEC);
	DEC(&d, C, nx_enabled, "NxEnabled", FMT_DEC);
	DEC(&d, C, memory_speed, "MemorySpeed", FMT_DEC);
	dec_end(&d);
}

/* ---------------------------------------------------------------------- */
/* EVENT_HEADER extended data items                                        */
/* ---------------------------------------------------------------------- */

void etw_decode_ext_items(FILE *out, const char *indent,
			  const uint8_t *p, uint32_t len)
{
	struct etw_event_header_ext_item item;
	uint32_t pos = 0;

	fprintf(out, "%sExtendedData:", indent);
	/* The reader checked the chain; still never trust it here. */
	while (len - pos >= sizeof(item)) {
		const char *name;

		memcpy(&item, p + pos, sizeof(item));
		name = etw_ext_type_name(item.ext_type);
		if (name)
			fprintf(out, " %s", name);
		else
			fprintf(out, " type%u", item.ext_type);
		fprintf(out, "(%u bytes)", item.data_size);
		if (item.ext_type == EVENT_HEADER_EXT_TYPE_PROV_TRAITS &&
		    item.data_size > 2 && item.data_size <= len - pos - sizeof(item)) {
			/* Traits: u16 size, then the provider name (UTF-8). */
			fprintf(out, "=\"");
			etw_print_escaped(out, (const char *)p + pos + sizeof(item) + 2,
					  item.data_size - 2u, false);
			fputc('"', out);
		}
		if (item.offset < sizeof(item) || item.offset > len - pos)
			break;
		pos += item.offset;
	}
	fputc('\n', out);
}

/* ---------------------------------------------------------------------- */
/* Dispatch                                                                */
/* ---------------------------------------------------------------------- */

bool etw_decode_record(FILE *out, const char *indent, const struct etl_file *f,
		       const struct etl_record *r)
{
	uint8_t version = (uint8_t)r->version;	/* without the ext-item bits */

	(void)f;
	if (r->kind == ETL_KIND_EVENT) {
		/* The payload needs the provider's manifest: only the items. */
		if (r->ext)
			etw_decode_ext_items(out, indent, r->ext, r->ext_len);
		return false;
	}
	if (r->kind != ETL_KIND_KERNEL)
		return false;

	switch (r->hook_id) {
	case ETW_HOOK_HEADER:
		etw_decode_logfile_header(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_HEADER_EXTENSION:
	case ETW_HOOK_GROUP_MASKS_END:
		etw_decode_header_extension(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_THREAD_START:
	case ETW_HOOK_THREAD_END:
	case ETW_HOOK_THREAD_DC_START:
	case ETW_HOOK_THREAD_DC_END:
		if (version != ETW_VERSION_THREAD)
			return false;
		etw_decode_thread_v3(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_PROCESS_START:
	case ETW_HOOK_PROCESS_END:
	case ETW_HOOK_PROCESS_DC_START:
	case ETW_HOOK_PROCESS_DC_END:
	case ETW_HOOK_PROCESS_DEFUNCT:
		if (version != ETW_VERSION_PROCESS)
			return false;
		etw_decode_process_v4(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_CSWITCH:
		etw_decode_cswitch(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_COMPACT_CSWITCH:
		etw_decode_compact_cswitch(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_SPINLOCK:
		etw_decode_spinlock(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_READY_THREAD:
		etw_decode_ready_thread(out, indent, r->payload, r->payload_len);
		return true;
	case ETW_HOOK_CONFIG_CPU:
		if (version != ETW_VERSION_CONFIG_CPU)
			return false;
		etw_decode_config_cpu(out, indent, r->payload, r->payload_len);
		return true;
	default:
		return false;
	}
}
