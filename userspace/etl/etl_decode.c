// SPDX-License-Identifier: GPL-2.0
/*
 * Payload decoders. Fixed fields are read at the offsets of the uapi
 * structs (offsetof/sizeof), never by casting the payload: the payload may
 * be short, and nothing here reads a byte past p + len.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "etl_decode.h"
#include "etl_events.h"
#include "etl_names.h"
#include "etl_tlg.h"
#include "etl_utf16.h"

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
	/* a copy: array fields name themselves in a buffer of the caller's */
	char short_field[48];
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
		snprintf(d->short_field, sizeof(d->short_field), "%s", field);
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

/* A NUL-terminated UTF-16 string at the cursor. */
static void dec_wstr(struct dec *d, const char *name)
{
	char buf[1024];
	size_t used = 0;
	bool terminated;

	if (!dec_have(d, d->pos, 2, name))
		return;
	terminated = etl_utf16_to_utf8(d->p + d->pos, d->len - d->pos, buf,
				     sizeof(buf), &used);
	fprintf(d->out, " %s=\"", name);
	etl_print_escaped(d->out, buf, sizeof(buf), false);
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
	etl_utf16_to_utf8(d->p + off, n, buf, sizeof(buf), NULL);
	fprintf(d->out, " %s=\"", name);
	etl_print_escaped(d->out, buf, sizeof(buf), false);
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
	etl_print_escaped(d->out, (const char *)s, n, true);
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

void etl_print_escaped(FILE *out, const char *s, size_t max, bool ascii_only)
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

const char *etl_filetime_str(int64_t filetime, char *buf, size_t size)
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

const char *etl_guid_str(const uint8_t g[16], char *buf, size_t size)
{
	snprintf(buf, size,
		 "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 etl_le32(g), etl_le16(g + 4), etl_le16(g + 6), g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
	return buf;
}

bool etl_sid_to_string(const uint8_t *p, uint32_t len, char *buf, size_t size,
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
/* Fixed fields, as the event table lists them                             */
/* ---------------------------------------------------------------------- */

static void print_name(FILE *out, const char *name)
{
	if (name)
		fprintf(out, "(%s)", name);
}

/* The group masks of a HeaderExtension, kept for the names after them. */
struct dec_state {
	struct perfinfo_groupmask gm;
};

static void dec_group_masks(struct dec *d, const struct etw_field *f, struct dec_state *st)
{
	fprintf(d->out, " %s=", f->name);
	for (int i = 0; i < PERF_NUM_MASKS; i++) {
		st->gm.masks[i] = (uint32_t)dec_peek(d, f->offset + 4 * (uint32_t)i, 4, f->name);
		if (d->is_short)
			break;
		fprintf(d->out, "%s%08x", i ? ":" : "", st->gm.masks[i]);
	}
}

static void dec_spinlock_flags(struct dec *d, const struct etw_field *f)
{
	uint64_t flags = dec_peek(d, f->offset, f->size, f->name);
	uint8_t mode = (uint8_t)(flags & WMI_SPINLOCK_ACQUIRE_MODE_MASK);

	if (d->is_short)
		return;
	fprintf(d->out, " AcquireMode=%u", mode);
	print_name(d->out, etl_spinlock_mode_name(mode));
	fprintf(d->out, " ExecuteDpc=%d ExecuteIsr=%d",
		!!(flags & WMI_SPINLOCK_EXECUTE_DPC), !!(flags & WMI_SPINLOCK_EXECUTE_ISR));
}

static void dec_field(struct dec *d, const struct etw_field *f, struct dec_state *st)
{
	char mode[512];
	uint64_t v;

	switch ((enum etw_field_kind)f->kind) {
	case ETW_FIELD_UINT:
		dec_int(d, f->offset, f->size, f->name, FMT_DEC);
		break;
	case ETW_FIELD_INT:
		dec_int(d, f->offset, f->size, f->name, FMT_SIGNED);
		break;
	case ETW_FIELD_HEX:
	case ETW_FIELD_KADDR:
	case ETW_FIELD_ADDR:
		dec_int(d, f->offset, f->size, f->name, FMT_HEX);
		break;
	case ETW_FIELD_WAIT_REASON:
		v = dec_int(d, f->offset, f->size, f->name, FMT_DEC);
		if (!d->is_short)
			print_name(d->out, etl_kwait_reason_name((uint8_t)v));
		break;
	case ETW_FIELD_THREAD_STATE:
		v = dec_int(d, f->offset, f->size, f->name, FMT_DEC);
		if (!d->is_short)
			print_name(d->out, etl_kthread_state_name((uint8_t)v));
		break;
	case ETW_FIELD_ADJUST_REASON:
		v = dec_int(d, f->offset, f->size, f->name, FMT_SIGNED);
		if (!d->is_short)
			print_name(d->out, etl_ready_adjust_reason_name((int8_t)v));
		break;
	case ETW_FIELD_READY_FLAGS:
		v = dec_int(d, f->offset, f->size, f->name, FMT_HEX);
		if (!d->is_short && v)
			fprintf(d->out, "(%s%s%s)",
				v & ETW_READY_THREAD_READIED_FROM_DPC ? " ReadiedFromDPC" : "",
				v & ETW_READY_THREAD_KERNEL_STACK_SWAPPED ? " KernelStackSwapped" : "",
				v & ETW_READY_THREAD_PROCESS_SWAPPED ? " ProcessSwapped" : "");
		break;
	case ETW_FIELD_SPINLOCK_FLAGS:
		dec_spinlock_flags(d, f);
		break;
	case ETW_FIELD_PROFILE_FLAGS:
		v = dec_int(d, f->offset, f->size, f->name, FMT_HEX);
		if (!d->is_short)
			fprintf(d->out, "(ExecutingDPC=%d ExecutingISR=%d Priority=%u)",
				!!(v & ETW_PROFILE_EXECUTING_DPC), !!(v & ETW_PROFILE_EXECUTING_ISR),
				(unsigned int)((v & ETW_PROFILE_PRIORITY_MASK) >>
					       ETW_PROFILE_PRIORITY_SHIFT));
		break;
	case ETW_FIELD_LOGFILE_MODE:
		v = dec_int(d, f->offset, f->size, f->name, FMT_HEX);
		if (!d->is_short)
			fprintf(d->out, "(%s)", etl_flags_str(etl_logfile_mode_names,
							      (uint32_t)v, mode, sizeof(mode)));
		break;
	case ETW_FIELD_GROUP_MASKS:
		dec_group_masks(d, f, st);
		break;
	case ETW_FIELD_WSTR_ARRAY:
		dec_wstr_fixed(d, f->offset, f->size, f->name);
		break;
	case ETW_FIELD_GUID:
		if (dec_have(d, f->offset, 16, f->name))
			fprintf(d->out, " %s=%s", f->name,
				etl_guid_str(d->p + f->offset, mode, sizeof(mode)));
		break;
	case ETW_FIELD_IPV4:
	case ETW_FIELD_IPV6:
		/* as the wire has them: network byte order */
		if (dec_have(d, f->offset, f->size, f->name) &&
		    inet_ntop(f->kind == ETW_FIELD_IPV4 ? AF_INET : AF_INET6, d->p + f->offset,
			      mode, sizeof(mode)))
			fprintf(d->out, " %s=%s", f->name, mode);
		break;
	case ETW_FIELD_PORT:
		if (dec_have(d, f->offset, 2, f->name))
			fprintf(d->out, " %s=%u", f->name,
				(unsigned int)d->p[f->offset] << 8 | d->p[f->offset + 1]);
		break;
	case ETW_FIELD_RESERVED:
		dec_have(d, f->offset, f->size, f->name);
		break;
	case ETW_FIELD_LAYOUT:
		break;		/* a layout's first row, never one of its fields */
	}
}

/* ---------------------------------------------------------------------- */
/* What follows the fixed fields                                           */
/* ---------------------------------------------------------------------- */

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
	if (!etl_sid_to_string(d->p + d->pos + hdr, d->len - d->pos - hdr,
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

bool etl_process_image_name(const uint8_t *p, uint32_t len, uint32_t *pid, char *name,
			    size_t size)
{
	uint32_t pos = ETW_PROCESS_V4_FIXED_SIZE, sid_len = 0;
	char sid[160];
	size_t n = 0;

	if (len < pos + 4 || !size)
		return false;
	*pid = etl_le32(p + offsetof(struct etw_process_v4, process_id));
	if (etl_le32(p + pos) == 0) {
		pos += 4;	/* a null token */
	} else {
		pos += sizeof(struct etw_sid_header);
		if (len < pos || !etl_sid_to_string(p + pos, len - pos, sid, sizeof(sid),
						    &sid_len))
			return false;
		pos += sid_len;
	}
	while (pos < len && p[pos] && n + 1 < size)
		name[n++] = (char)p[pos++];
	name[n] = 0;
	return pos < len;	/* the name's NUL is there */
}

/* OldThreadStateWr: a wait reason below MaximumWaitReason, else a State. */
static void print_state_wr(FILE *out, uint8_t state_wr)
{
	const char *name;

	if (state_wr < ETW_MAXIMUM_WAIT_REASON) {
		name = etl_kwait_reason_name(state_wr);
		fprintf(out, " State=Waiting WaitReason=%u", state_wr);
		print_name(out, name);
	} else {
		uint8_t state = (uint8_t)(state_wr - ETW_MAXIMUM_WAIT_REASON);

		fprintf(out, " State=%u", state);
		print_name(out, etl_kthread_state_name(state));
	}
}

/*
 * StackWalk/Stack: the frame count, then one line per frame, innermost
 * first, each marked kernel or user (ends the record's line itself).
 */
static void dec_stack_frames(struct dec *d, const char *indent)
{
	uint32_t pos = d->pos, n = (d->len - d->pos) / 8, i;

	fprintf(d->out, " Frames=%u", n);
	/* a stack has a frame at least */
	if (!dec_have(d, pos, (uint64_t)(n ? n : 1) * 8, "Stack")) {
		dec_end(d);
		return;
	}
	dec_end(d);
	for (i = 0; i < n; i++) {
		uint64_t a = etl_le64(d->p + pos + 8 * i);

		fprintf(d->out, "%s  frame %u: 0x%016" PRIx64 " %s\n", indent, i, a,
			a >> 63 ? "kernel" : "user");
	}
}

/* CompCS: the TidTable, then one line per packet (ends the record's line itself). */
static void dec_ccswap_packets(struct dec *d, const char *indent)
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
	FILE *out = d->out;
	const uint8_t *p = d->p;
	uint32_t pos, n, len = d->len, count = 0;
	uint64_t time;

	if (!dec_have(d, 0, sizeof(B), "TidTable")) {
		dec_end(d);
		return;
	}
	time = dec_load(d, FIELD_OFF(B, first_timestamp), FIELD_LEN(B, first_timestamp));
	fprintf(out, " TidTable=");
	for (int i = 0; i < PERFINFO_CCSWAP_MAX_TID; i++) {
		tids[i] = etl_le32(p + FIELD_OFF(B, tid_table) + 4 * (uint32_t)i);
		base_pri[i] = (int8_t)p[FIELD_OFF(B, thread_base_priority) + (uint32_t)i];
		fprintf(out, "%s%u/%d", i ? "," : "", tids[i], base_pri[i]);
	}
	d->used = d->len;	/* the packets are printed below */
	dec_end(d);

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

/* The groups a HeaderExtension's masks turn on, by name. */
static void dec_group_names(struct dec *d, const struct dec_state *st)
{
	const struct etl_flag_name *g;
	bool any = false;

	if (d->is_short)
		return;
	fprintf(d->out, " On=");
	for (g = etl_perf_group_names; g->name; g++) {
		if (!perf_group_is_on(&st->gm, g->value))
			continue;
		fprintf(d->out, "%s%s", any ? "|" : "", g->name);
		any = true;
	}
	if (!any)
		fprintf(d->out, "none");
}

/*
 * SystemConfig's arrays: count (the payload's first u32) entries of size
 * bytes at the cursor, a KAFFINITY (ProcessorGroup) or a GROUP_AFFINITY
 * (NumaNode); no more than the payload holds.
 */
static void dec_affinities(struct dec *d, uint32_t size)
{
	uint64_t count = dec_peek(d, 0, 4, "count");
	char name[32];

	/* Windows writes one group, one node at least (the layout's minimum) */
	if (!dec_have(d, d->pos, size, "Mask[0]"))
		return;
	for (uint64_t i = 0; i < count && !d->is_short; i++) {
		snprintf(name, sizeof(name), "Mask[%" PRIu64 "]", i);
		dec_int(d, d->pos, 8, name, FMT_HEX);
		if (size > 8) {
			snprintf(name, sizeof(name), "Group[%" PRIu64 "]", i);
			dec_int(d, d->pos + 8, 2, name, FMT_DEC);
			dec_have(d, d->pos, size, name);	/* the reserved words */
		}
		d->pos += size;
	}
}

/* ProviderBinaryPath's GUIDs (as many as GuidCount says), then BinaryPath. */
static void dec_provider_binary(struct dec *d)
{
	uint64_t count = dec_peek(d, 0, 4, "GuidCount");
	char name[32], guid[40];

	for (uint64_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "Guid[%" PRIu64 "]", i);
		if (!dec_have(d, d->pos, 16, name))
			return;
		fprintf(d->out, " %s=%s", name, etl_guid_str(d->p + d->pos, guid, sizeof(guid)));
		d->pos += 16;
	}
	dec_wstr(d, "BinaryPath");
}

/* An array of 8-byte times, as many as the payload's first u32 says. */
static void dec_timestamps(struct dec *d)
{
	uint64_t count = dec_peek(d, 0, 4, "TimeStampCount");
	char name[32];

	for (uint64_t i = 0; i < count && !d->is_short; i++) {
		snprintf(name, sizeof(name), "TimeStamp[%" PRIu64 "]", i);
		dec_int(d, d->pos, 8, name, FMT_DEC);
		d->pos += 8;
	}
}

/* ProcessMemInfo's entries: as many as Count says, ProcessID and eight page counts each. */
static void dec_process_meminfo(struct dec *d)
{
	static const char *const counts[ETW_PMI_COUNTS] = {
		"WorkingSetPageCount", "CommitPageCount", "VirtualSizeInPages",
		"PrivateWorkingSetPageCount", "StoreSizePageCount", "StoredPageCount",
		"CommitDebtInPages", "SharedCommitInPages",
	};
	uint64_t count = dec_peek(d, 0, 4, "Count");
	char name[48];

	/* ntkl writes one entry at least (the layout's minimum) */
	if (!dec_have(d, d->pos, ETW_PROCESS_MEMINFO_ENTRY_SIZE, "ProcessID[0]"))
		return;
	for (uint64_t i = 0; i < count && !d->is_short; i++) {
		snprintf(name, sizeof(name), "ProcessID[%" PRIu64 "]", i);
		dec_int(d, d->pos, 4, name, FMT_DEC);
		for (unsigned int c = 0; c < ETW_PMI_COUNTS; c++) {
			snprintf(name, sizeof(name), "%s[%" PRIu64 "]", counts[c], i);
			dec_int(d, d->pos + ETW_PROCESS_MEMINFO_COUNT_OFFSET(c), 8, name, FMT_DEC);
		}
		d->pos += ETW_PROCESS_MEMINFO_ENTRY_SIZE;
	}
}

/* Decode what follows the fixed fields; ends the line unless the tail does. */
static void dec_tail(struct dec *d, const char *indent, const struct etw_layout *l,
		     const struct dec_state *st)
{
	d->pos = l->fixed;
	switch ((enum etw_tail)l->tail) {
	case ETW_TAIL_NONE:
		break;
	case ETW_TAIL_LOGFILE_NAMES:
		dec_wstr(d, "LoggerName");
		dec_wstr(d, "LogFileName");
		/* The zone names are in the middle: count them as decoded. */
		if (!d->is_short && d->used < d->pos)
			d->used = d->pos;
		break;
	case ETW_TAIL_GROUP_NAMES:
		dec_group_names(d, st);
		break;
	case ETW_TAIL_THREAD_NAME:
		/*
		 * Version 3 as Windows 10 and 11 log it: a name, a lone NUL if
		 * none. Windows 8 (build 9200, the PerfView sample) ends it at
		 * the fixed fields, with no name at all.
		 */
		if (d->len > l->fixed)
			dec_wstr(d, "ThreadName");
		break;
	case ETW_TAIL_PROCESS:
		dec_sid(d, "UserSID");
		dec_astr(d, "ImageFileName");
		dec_wstr(d, "CommandLine");
		dec_wstr(d, "PackageFullName");
		dec_wstr(d, "ApplicationId");
		break;
	case ETW_TAIL_CCSWAP_PACKETS:
		dec_ccswap_packets(d, indent);
		return;
	case ETW_TAIL_FILE_NAME:
		dec_wstr(d, "FileName");
		break;
	case ETW_TAIL_SOURCE_NAME:
		dec_wstr(d, "SourceName");
		break;
	case ETW_TAIL_STACK_FRAMES:
		dec_stack_frames(d, indent);
		return;
	case ETW_TAIL_AFFINITIES:
		dec_affinities(d, 8);
		break;
	case ETW_TAIL_GROUP_AFFINITIES:
		dec_affinities(d, sizeof(struct etw_group_affinity));
		break;
	case ETW_TAIL_NIC_STRINGS:
		dec_wstr(d, "NICDescription");
		dec_wstr(d, "IpAddresses");
		dec_wstr(d, "DnsServerAddresses");
		break;
	case ETW_TAIL_DEVICE_DESCRIPTION:
		dec_wstr(d, "DeviceDescription");
		break;
	case ETW_TAIL_PROVIDER_BINARY:
		dec_provider_binary(d);
		break;
	case ETW_TAIL_TIMESTAMPS:
		dec_timestamps(d);
		break;
	case ETW_TAIL_PDB_NAME:
		dec_astr(d, "PdbFileName");
		break;
	case ETW_TAIL_PROCESS_MEMINFO:
		dec_process_meminfo(d);
		break;
	}
	dec_end(d);
}

void etl_decode_layout(FILE *out, const char *indent, enum etw_layout_id layout,
		       const uint8_t *p, uint32_t len)
{
	const struct etw_layout *l = &etw_layouts[layout];
	struct dec_state st;
	struct dec d;

	memset(&st, 0, sizeof(st));
	dec_begin(&d, out, indent, l->title, p, len);
	for (const struct etw_field *f = l->fields; etw_field_in_layout(f); f++)
		dec_field(&d, f, &st);
	dec_tail(&d, indent, l, &st);
}

/* ---------------------------------------------------------------------- */
/* EVENT_HEADER extended data items                                        */
/* ---------------------------------------------------------------------- */

void etl_decode_ext_items(FILE *out, const char *indent,
			  const uint8_t *p, uint32_t len)
{
	struct etw_event_header_ext_item item;
	uint32_t pos = 0;

	fprintf(out, "%sExtendedData:", indent);
	/* The reader checked the chain; still never trust it here. */
	while (len - pos >= sizeof(item)) {
		const char *name;

		memcpy(&item, p + pos, sizeof(item));
		name = etl_ext_type_name(item.ext_type);
		if (name)
			fprintf(out, " %s", name);
		else
			fprintf(out, " type%u", item.ext_type);
		fprintf(out, "(%u bytes)", item.data_size);
		if (item.ext_type == EVENT_HEADER_EXT_TYPE_PROV_TRAITS &&
		    item.data_size > 2 && item.data_size <= len - pos - sizeof(item)) {
			/* Traits: u16 size, then the provider name (UTF-8). */
			fprintf(out, "=\"");
			etl_print_escaped(out, (const char *)p + pos + sizeof(item) + 2,
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
/* Dispatch: the event table says which layout a record has                */
/* ---------------------------------------------------------------------- */

bool etl_decode_record(FILE *out, const char *indent, const struct etl_file *f,
		       const struct etl_record *r)
{
	const struct etw_layout *l;

	(void)f;
	if (r->kind == ETL_KIND_EVENT) {
		/*
		 * A TraceLogging event describes its payload in its schema
		 * item; any other needs the provider's manifest: the items only.
		 */
		if (r->ext)
			etl_decode_ext_items(out, indent, r->ext, r->ext_len);
		return r->ext && etl_tlg_decode(out, indent, r->ext, r->ext_len, r->payload,
						r->payload_len);
	}
	if (!etl_record_listed(r))
		return false;
	/* the version without the ext-item bits */
	l = etl_event_layout(r->hook_id, (uint8_t)r->version);
	if (!l || l == &etw_layouts[ETW_LAYOUT_EMPTY])
		return false;
	etl_decode_layout(out, indent, (enum etw_layout_id)(l - etw_layouts),
			  r->payload, r->payload_len);
	return true;
}
