// SPDX-License-Identifier: GPL-2.0
/*
 * -on FLAGS: parse and name. See ntkl_flags.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_events.h"
#include "ntkl_flags.h"


/* The -on names: the event list's NTKL_KEYWORD lines, in its order. */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(...)
#define NTKL_KEYWORD(kw, flags, grp, text) { #kw, flags, grp, text },
const struct ntkl_flag_keyword ntkl_flag_keywords[] = {
#include "uapi/ntkl_event_list.h"
	{ NULL, 0, 0, NULL },
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD
#undef NTKL_KEYWORD

/*
 * xperf's kernel groups, as `xperf -providers KG` lists them (Windows
 * Performance Toolkit; DiagEasy's list is also on learn.microsoft.com's
 * "WPA Providers" page). -on takes them like a flag name: a group stands
 * for the flags of it that ntkl records (ntkl_flag_keywords), and
 * ntkl_flags_warnings() names the others.
 */
static const struct {
	const char *name;
	const char *flags;
} kernel_groups[] = {
	{ "Base", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+PROFILE+MEMINFO+MEMINFO_WS" },
	{ "Diag", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+CSWITCH+PERF_COUNTER+COMPACT_CSWITCH" },
	{ "DiagEasy", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+CSWITCH+PERF_COUNTER" },
	{ "Latency", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+CSWITCH+PROFILE" },
	{ "FileIO", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+FILE_IO+FILE_IO_INIT" },
	{ "IOTrace", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+CSWITCH+IDLE_STATES" },
	{ "ResumeTrace", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+PROFILE+POWER" },
	{ "SysProf", "PROC_THREAD+LOADER+PROFILE" },
	{ "ResidentSet", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+MEMORY+MEMINFO+VAMAP+SESSION+VIRT_ALLOC" },
	{ "ReferenceSet", "PROC_THREAD+LOADER+HARD_FAULTS+MEMORY+FOOTPRINT+VIRT_ALLOC+MEMINFO+VAMAP+SESSION+REFSET+MEMINFO_WS" },
	{ "Network", "PROC_THREAD+LOADER+NETWORKTRACE" },
};

#define N_KERNEL_GROUPS	(sizeof(kernel_groups) / sizeof(kernel_groups[0]))

#define FLAG(name)	{ EVENT_TRACE_FLAG_##name, #name }

const struct etl_flag_name ntkl_enable_flag_names[] = {
	FLAG(PROCESS),
	FLAG(THREAD),
	FLAG(IMAGE_LOAD),
	FLAG(PROCESS_COUNTERS),
	FLAG(CSWITCH),
	FLAG(DPC),
	FLAG(INTERRUPT),
	FLAG(SYSTEMCALL),
	FLAG(DISK_IO),
	FLAG(DISK_FILE_IO),
	FLAG(DISK_IO_INIT),
	FLAG(DISPATCHER),
	FLAG(MEMORY_PAGE_FAULTS),
	FLAG(MEMORY_HARD_FAULTS),
	FLAG(VIRTUAL_ALLOC),
	FLAG(VAMAP),
	FLAG(NETWORK_TCPIP),
	FLAG(REGISTRY),
	FLAG(DBGPRINT),
	FLAG(JOB),
	FLAG(ALPC),
	FLAG(SPLIT_IO),
	FLAG(DEBUG_EVENTS),
	FLAG(DRIVER),
	FLAG(PROFILE),
	FLAG(FILE_IO),
	FLAG(FILE_IO_INIT),
	FLAG(NO_SYSCONFIG),
	FLAG(ENABLE_RESERVE),
	FLAG(FORWARD_WMI),
	FLAG(EXTENSION),
	{ 0, NULL },
};


static void group_set(uint32_t masks[PERF_NUM_MASKS], uint32_t group)
{
	masks[PERF_GET_MASK_INDEX(group)] |= PERF_GET_MASK_GROUP(group);
}

static void group_clear(uint32_t masks[PERF_NUM_MASKS], uint32_t group)
{
	masks[PERF_GET_MASK_INDEX(group)] &= ~PERF_GET_MASK_GROUP(group);
}

static bool group_on(const uint32_t masks[PERF_NUM_MASKS], uint32_t group)
{
	return (masks[PERF_GET_MASK_INDEX(group)] & PERF_GET_MASK_GROUP(group)) ==
	       PERF_GET_MASK_GROUP(group);
}

/* Append sep and text (no sep first) to buf; false once text no longer fits. */
static bool append(char *buf, size_t size, size_t *len, const char *sep,
		   const char *text)
{
	int n = snprintf(buf + *len, size - *len, "%s%s", *len ? sep : "", text);

	if (n < 0 || (size_t)n >= size - *len) {
		buf[*len] = '\0';	/* no half name */
		return false;
	}
	*len += (size_t)n;
	return true;
}

static void expand_group(int g, struct ntkl_flags *out, char *missing, size_t msize,
			 char *recording, size_t rsize);

const char *ntkl_flag_names_list(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++)
		if (!append(buf, size, &len, ", ", k->name))
			break;
	return buf;
}

/*
 * "  NAME         A+B+C" under indent, cut after a '+' into lines of
 * fewer than 80 columns, the rest aligned under the first flag.
 */
static void print_wrapped(FILE *out, const char *indent, const char *name, const char *flags)
{
	size_t room, col = strlen(indent) + 2 + 12 + 1, len = strlen(flags);

	room = col < 79 ? 79 - col : 1;
	fprintf(out, "%s  %-12s ", indent, name);
	while (len > room) {
		size_t cut = room;

		while (cut && flags[cut - 1] != '+')
			cut--;
		if (!cut)
			break;		/* one flag longer than the room: as it is */
		fprintf(out, "%.*s\n%*s", (int)cut, flags, (int)col, "");
		flags += cut;
		len -= cut;
	}
	fprintf(out, "%s\n", flags);
}

void ntkl_flags_help(FILE *out, const char *indent)
{
	for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++)
		fprintf(out, "%s  %-16s %s\n", indent, k->name, k->help);
	fprintf(out, "%sor xperf's kernel groups, for the flags of them ntkl records:\n", indent);
	for (size_t g = 0; g < N_KERNEL_GROUPS; g++) {
		char recording[256];

		expand_group((int)g, NULL, NULL, 0, recording, sizeof(recording));
		print_wrapped(out, indent, kernel_groups[g].name, recording);
	}
	fprintf(out, "%sor numbers: a group mask constant such as 0x20010000 (the mask\n"
		"%sindex in the top 3 bits), or EnableFlags below 0x20000000\n",
		indent, indent);
}

static const struct ntkl_flag_keyword *find_keyword(const char *name, size_t len)
{
	for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++)
		if (strlen(k->name) == len && !strncasecmp(k->name, name, len))
			return k;
	return NULL;
}

static int find_group(const char *name, size_t len)
{
	for (size_t g = 0; g < N_KERNEL_GROUPS; g++)
		if (strlen(kernel_groups[g].name) == len &&
		    !strncasecmp(kernel_groups[g].name, name, len))
			return (int)g;
	return -1;
}

/*
 * Walk a group's flags: the ones ntkl records are added to *out, the
 * names of the others to missing (", "-joined) and of the recorded ones to
 * recording ('+'-joined); either buffer may be NULL.
 */
static void expand_group(int g, struct ntkl_flags *out, char *missing, size_t msize,
			 char *recording, size_t rsize)
{
	const char *s = kernel_groups[g].flags;
	size_t mlen = 0, rlen = 0;
	char name[32];

	if (missing)
		missing[0] = '\0';
	if (recording)
		recording[0] = '\0';
	while (*s) {
		size_t len = strcspn(s, "+");
		const struct ntkl_flag_keyword *k = find_keyword(s, len);

		snprintf(name, sizeof(name), "%.*s", (int)len, s);
		if (k) {
			if (out) {
				out->enable_flags |= k->enable_flags;
				if (k->group)
					group_set(out->group_masks, k->group);
			}
			if (recording)
				append(recording, rsize, &rlen, "+", name);
		} else if (missing) {
			append(missing, msize, &mlen, ", ", name);
		}
		s += len + (s[len] == '+');
	}
}

/* One '+'-separated item of len bytes at s; 0 or -1 with err set. */
static int parse_item(const char *s, size_t len, struct ntkl_flags *out,
		      char *err, size_t err_size)
{
	const struct ntkl_flag_keyword *k;
	char item[64], names[256];
	unsigned long long v;
	char *end;

	if (len == 0) {
		snprintf(err, err_size, "empty flag name (two '+' in a row, or one at an end)");
		return -1;
	}
	if (len >= sizeof(item)) {
		snprintf(err, err_size, "unknown flag '%.*s...': valid names are %s, or a number",
			 32, s, ntkl_flag_names_list(names, sizeof(names)));
		return -1;
	}
	memcpy(item, s, len);
	item[len] = '\0';

	if (isdigit((unsigned char)item[0])) {
		errno = 0;
		v = strtoull(item, &end, 0);
		if (*end || errno || v > UINT32_MAX) {
			snprintf(err, err_size, "bad flag number '%s': a 32-bit number, like 0x3 or 0x20010000",
				 item);
			return -1;
		}
		if (!(v & PERF_MASK_INDEX)) {
			out->enable_flags |= (uint32_t)v;
			return 0;
		}
		if (!PERF_GET_MASK_GROUP((uint32_t)v)) {
			snprintf(err, err_size, "group constant '%s' sets no bit: the low 29 bits select the groups of Masks[%u]",
				 item, PERF_GET_MASK_INDEX((uint32_t)v));
			return -1;
		}
		group_set(out->group_masks, (uint32_t)v);
		return 0;
	}

	k = find_keyword(item, len);
	if (!k && find_group(item, len) >= 0) {
		expand_group(find_group(item, len), out, NULL, 0, NULL, 0);
		return 0;
	}
	if (!k) {
		snprintf(err, err_size,
			 "unknown flag '%s': valid names are %s (joined with '+'), xperf's kernel groups (Base, Latency, DiagEasy, SysProf, ...), or a number: a group constant like 0x20010000, or EnableFlags below 0x20000000",
			 item, ntkl_flag_names_list(names, sizeof(names)));
		return -1;
	}
	out->enable_flags |= k->enable_flags;
	if (k->group)
		group_set(out->group_masks, k->group);
	return 0;
}

int ntkl_flags_parse(const char *spec, struct ntkl_flags *out, char *err,
		     size_t err_size)
{
	const char *s = spec;

	memset(out, 0, sizeof(*out));
	if (!*spec) {
		snprintf(err, err_size, "no flags given");
		return -1;
	}
	for (;;) {
		const char *plus = strchr(s, '+');
		size_t len = plus ? (size_t)(plus - s) : strlen(s);

		if (parse_item(s, len, out, err, err_size))
			return -1;
		if (!plus)
			return 0;
		s = plus + 1;
	}
}

const char *ntkl_flags_format(const struct ntkl_flags *f, char *buf, size_t size)
{
	uint32_t m[PERF_NUM_MASKS];
	char num[16];
	size_t len = 0;

	buf[0] = '\0';
	memcpy(m, f->group_masks, sizeof(m));
	m[0] |= f->enable_flags;
	/* the groups EnableFlags bits stand for need no name of their own */
	for (uint32_t bit = 1; bit; bit <<= 1)
		if ((m[0] & bit) && etw_enable_flag_group(bit))
			group_clear(m, etw_enable_flag_group(bit));

	for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++) {
		if ((m[0] & k->enable_flags) != k->enable_flags ||
		    (k->group && !group_on(m, k->group)))
			continue;
		if (!append(buf, size, &len, "+", k->name))
			return buf;
		m[0] &= ~k->enable_flags;
		if (k->group)
			group_clear(m, k->group);
	}
	for (uint32_t i = 0; i < PERF_NUM_MASKS; i++) {
		if (!m[i])
			continue;
		/* Masks[0] is EnableFlags: a plain number; the rest as groups */
		snprintf(num, sizeof(num), "0x%x", i ? (i << 29) | m[i] : m[i]);
		if (!append(buf, size, &len, "+", num))
			return buf;
	}
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}

const char *ntkl_groups_format(const uint32_t masks[PERF_NUM_MASKS], char *buf,
			       size_t size)
{
	uint32_t m[PERF_NUM_MASKS];
	char num[16];
	size_t len = 0;

	buf[0] = '\0';
	memcpy(m, masks, sizeof(m));
	/* Masks[0] is EnableFlags: its other bits have EVENT_TRACE_FLAG names */
	m[0] &= PERF_PROCESS | PERF_THREAD | PERF_LOADER;
	for (const struct etl_flag_name *g = etl_perf_group_names; g->name; g++) {
		if (!group_on(masks, g->value))
			continue;
		if (!append(buf, size, &len, "|", g->name))
			return buf;
		group_clear(m, g->value);
	}
	for (uint32_t i = 0; i < PERF_NUM_MASKS; i++) {
		if (!m[i])
			continue;
		snprintf(num, sizeof(num), "0x%08x", (i << 29) | m[i]);
		if (!append(buf, size, &len, "|", num))
			return buf;
	}
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}

bool ntkl_flags_record_any(const struct ntkl_flags *f)
{
	struct perfinfo_groupmask gm;

	memcpy(gm.masks, f->group_masks, sizeof(gm.masks));
	etw_groups_add_enable_flags(&gm, f->enable_flags);
	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];

		if (ev->header_type != ETW_HEADER_TYPE_ANY && ev->mask &&
		    perf_group_is_on(&gm, ev->mask))
			return true;
	}
	return false;
}

size_t ntkl_flags_warnings(const char *spec, const struct ntkl_flags *f, char *buf,
			   size_t size)
{
	char missing[256], recording[256], line[640], names[256];
	size_t len = 0, lines = 0;
	const char *s = spec;

	buf[0] = '\0';
	for (;;) {
		size_t n = strcspn(s, "+");
		int g = find_group(s, n);

		if (g >= 0) {
			expand_group(g, NULL, missing, sizeof(missing), recording,
				     sizeof(recording));
			if (missing[0]) {
				snprintf(line, sizeof(line),
					 "ntkl: %s: %s not recorded by ntkl (recording %s)\n",
					 kernel_groups[g].name, missing, recording);
				if (append(buf, size, &len, "", line))
					lines++;
			}
		}
		if (!s[n])
			break;
		s += n + 1;
	}
	if (!ntkl_flags_record_any(f)) {
		snprintf(line, sizeof(line),
			 "ntkl: -on %s selects no event ntkl records: the trace will hold only the rundowns (ntkl records %s)\n",
			 spec, ntkl_flag_names_list(names, sizeof(names)));
		if (append(buf, size, &len, "", line))
			lines++;
	}
	return lines;
}
