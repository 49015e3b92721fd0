// SPDX-License-Identifier: GPL-2.0
/*
 * Printing loggers. See ntkl_show.h.
 */
#include <inttypes.h>
#include <pwd.h>
#include <stddef.h>
#include <string.h>

#include "etl/etl_decode.h"
#include "etl/etl_names.h"
#include "ntkl_flags.h"
#include "ntkl_opts.h"
#include "ntkl_show.h"

/* Labels padded as xperf -loggers pads them. */
#define LINE(out, label, fmt, ...) \
	fprintf(out, "%-22s: " fmt "\n", label, ##__VA_ARGS__)

const char *ntkl_status_name(uint32_t status)
{
	switch (status) {
	case NTKL_STATUS_RUNNING:
		return "running";
	case NTKL_STATUS_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}

const char *ntkl_flush_timer_str(const struct ntkl_properties *p, char *buf,
				 size_t size)
{
	if (!p->flush_timer)
		snprintf(buf, size, "none");
	else if (p->log_file_mode & NTKL_MODE_MS_FLUSH_TIMER)
		snprintf(buf, size, "%u ms", p->flush_timer);
	else
		snprintf(buf, size, "%u s", p->flush_timer);
	return buf;
}

/*
 * /etc/passwd read directly (fgetpwent), not through NSS: ntkl is linked
 * statically and glibc's NSS needs its shared libraries at run time.
 */
const char *ntkl_owner_str(const struct ntkl_properties *p, char *buf, size_t size)
{
	const struct passwd *pw = NULL;
	FILE *f;

	if (p->size < offsetof(struct ntkl_properties, owner_uid) + sizeof(p->owner_uid)) {
		snprintf(buf, size, "-");
		return buf;
	}
	f = fopen("/etc/passwd", "re");
	while (f && (pw = fgetpwent(f)) && pw->pw_uid != p->owner_uid)
		;
	if (pw)
		snprintf(buf, size, "%s", pw->pw_name);
	else if (!p->owner_uid)
		snprintf(buf, size, "root");	/* even where /etc/passwd is missing */
	else
		snprintf(buf, size, "uid %u", p->owner_uid);
	if (f)
		fclose(f);
	return buf;
}

static void props_flags(const struct ntkl_properties *p, struct ntkl_flags *f)
{
	f->enable_flags = p->enable_flags;
	memcpy(f->group_masks, p->group_masks, sizeof(f->group_masks));
}

static const char *clock_label(uint32_t clock_type)
{
	const char *name = ntkl_clock_name(clock_type);

	return name ? name : "unknown";
}

/* Where the events go, in a few words. */
static void sink_str(const struct ntkl_properties *p, const struct ntkl_sink *s,
		     char *buf, size_t size)
{
	if (s && s->writer && s->writer->file[0]) {
		if (s->busy)
			snprintf(buf, size, "%s (writer pid %ld)", s->writer->file,
				 s->writer->pid);
		else if (!strcmp(s->writer->state, "writing"))
			/* it never said it ended: it was killed */
			snprintf(buf, size, "%s (writer pid %ld died: ntkl stop completes the file)",
				 s->writer->file, s->writer->pid);
		else
			snprintf(buf, size, "%s (writer gone: %s%s%s)", s->writer->file,
				 s->writer->state[0] ? s->writer->state : "exited",
				 s->writer->error[0] ? ", " : "", s->writer->error);
	} else if (p->log_file_mode & NTKL_MODE_BUFFERING) {
		snprintf(buf, size, "memory only (buffering mode: ntkl save %s FILE)",
			 p->logger_name);
	} else if (p->readers) {
		snprintf(buf, size, "a reader without a state file (ntkl record?)");
	} else {
		snprintf(buf, size, "none: no reader, events are lost");
	}
}

/* LogFileMode by name: ETW's modes, and ntkl's own OWNED. */
static const char *mode_str(uint32_t mode, char *buf, size_t size)
{
	size_t n;

	etl_flags_str(etl_logfile_mode_names, mode & ~NTKL_MODE_OWNED, buf, size);
	n = strlen(buf);
	if (mode & NTKL_MODE_OWNED)
		snprintf(buf + n, size - n, "|OWNED: stops when its starting descriptor closes");
	return buf;
}

/* absent_count, as far as the module that answered wrote it (ABI 8) */
static uint32_t absent_count(const struct ntkl_properties *p)
{
	if (p->size < offsetof(struct ntkl_properties, absent_hooks) + sizeof(p->absent_hooks))
		return 0;
	return p->absent_count;
}

/* "FileIo/Read, FileIo/Create": the absent events named, and how many more */
static const char *absent_str(const struct ntkl_properties *p, char *buf, size_t size)
{
	uint32_t i, n = absent_count(p);
	size_t len = 0;
	char label[64];

	buf[0] = '\0';
	for (i = 0; i < n && i < NTKL_ABSENT_HOOKS_MAX && len < size; i++) {
		len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				etl_hook_label(p->absent_hooks[i], label, sizeof(label)));
	}
	if (n > NTKL_ABSENT_HOOKS_MAX && len < size)
		snprintf(buf + len, size - len, " and %u more", n - NTKL_ABSENT_HOOKS_MAX);
	return buf;
}

unsigned int ntkl_show_absent(FILE *err, const char *cmd, const struct ntkl_properties *p)
{
	uint32_t i, n = absent_count(p);
	char label[64];

	for (i = 0; i < n && i < NTKL_ABSENT_HOOKS_MAX; i++)
		fprintf(err, "ntkl %s: warning: this kernel cannot give every %s event: a kernel function ntkl probes for it is absent (the kernel log, dmesg, names it)\n",
			cmd, etl_hook_label(p->absent_hooks[i], label, sizeof(label)));
	if (n > NTKL_ABSENT_HOOKS_MAX)
		fprintf(err, "ntkl %s: warning: and %u more events, for the same reason\n", cmd,
			n - NTKL_ABSENT_HOOKS_MAX);
	return n;
}

void ntkl_show_settings(FILE *out, const struct ntkl_properties *p)
{
	struct ntkl_flags f;
	char on[256], ft[32], mode[256];

	props_flags(p, &f);
	LINE(out, "Logger Name", "%s", p->logger_name);
	LINE(out, "Logger Id", "%u", p->logger_id);
	LINE(out, "Trace Flags", "%s", ntkl_flags_format(&f, on, sizeof(on)));
	LINE(out, "Buffer Size", "%u KB", p->buffer_size_kb);
	LINE(out, "Minimum Buffers", "%u", p->minimum_buffers);
	LINE(out, "Maximum Buffers", "%u", p->maximum_buffers);
	LINE(out, "Number of Buffers", "%u", p->number_of_buffers);
	LINE(out, "Clock Type", "%s (%" PRIu64 " ticks/s)", clock_label(p->clock_type),
	     (uint64_t)p->perf_freq);
	LINE(out, "Flush Timer", "%s", ntkl_flush_timer_str(p, ft, sizeof(ft)));
	LINE(out, "Log File Mode", "0x%08x (%s)", p->log_file_mode,
	     mode_str(p->log_file_mode, mode, sizeof(mode)));
	if (p->logger_options & NTKL_LOGGER_OPT_STACK_CACHING)
		LINE(out, "Stack Caching", "%s", "on: stacks by key (StackKeyKernel, StackKeyUser)");
}

void ntkl_show_props(FILE *out, const struct ntkl_properties *p,
		     const struct ntkl_sink *sink)
{
	struct ntkl_flags f;
	char buf[PATH_MAX + 512], ft[32];

	props_flags(p, &f);
	LINE(out, "Logger Name", "%s", p->logger_name);
	LINE(out, "Logger Id", "%u", p->logger_id);
	LINE(out, "Owner", "%s", ntkl_owner_str(p, buf, sizeof(buf)));
	LINE(out, "Instance Guid", "%s", etl_guid_str(p->instance_guid, buf, sizeof(buf)));
	LINE(out, "Status", "%s, %s", ntkl_status_name(p->logger_status),
	     p->accept_new_events ? "accepting events" : "not accepting events");
	LINE(out, "Log File Mode", "0x%08x (%s)", p->log_file_mode,
	     mode_str(p->log_file_mode, buf, sizeof(buf)));
	if (p->logger_options & NTKL_LOGGER_OPT_STACK_CACHING)
		LINE(out, "Stack Caching", "%s", "on: stacks by key (StackKeyKernel, StackKeyUser)");
	if (p->logger_options & NTKL_LOGGER_OPT_FRAME_POINTERS)
		LINE(out, "User Stacks", "%s", "by frame pointers (-nounwind)");
	sink_str(p, sink, buf, sizeof(buf));
	LINE(out, "Log Filename", "%s", buf);
	LINE(out, "Clock Type", "%u %s (%" PRIu64 " ticks/s)", p->clock_type,
	     clock_label(p->clock_type), (uint64_t)p->perf_freq);
	LINE(out, "Buffer Size", "%u KB", p->buffer_size_kb);
	LINE(out, "Minimum Buffers", "%u", p->minimum_buffers);
	LINE(out, "Maximum Buffers", "%u", p->maximum_buffers);
	LINE(out, "Number of Buffers", "%u", p->number_of_buffers);
	LINE(out, "Free Buffers", "%u", p->free_buffers);
	LINE(out, "Flush Timer", "%s", ntkl_flush_timer_str(p, ft, sizeof(ft)));
	LINE(out, "Trace Flags", "%s", ntkl_flags_format(&f, buf, sizeof(buf)));
	LINE(out, "Enable Flags", "0x%08x (%s)", p->enable_flags,
	     etl_flags_str(ntkl_enable_flag_names, p->enable_flags, buf, sizeof(buf)));
	fprintf(out, "%-22s:", "Group Masks");
	for (int i = 0; i < PERF_NUM_MASKS; i++)
		fprintf(out, " %08x", p->group_masks[i]);
	fprintf(out, "\n");
	LINE(out, "Groups", "%s", ntkl_groups_format(p->group_masks, buf, sizeof(buf)));
	if (absent_count(p))
		LINE(out, "Absent Events", "%s (not on this kernel; dmesg says why)",
		     absent_str(p, buf, sizeof(buf)));
	LINE(out, "Number of Processors", "%u", p->number_of_processors);
	LINE(out, "Maximum Event Size", "%u", p->maximum_event_size);
	LINE(out, "Events Lost", "%" PRIu64, (uint64_t)p->events_lost);
	LINE(out, "Buffers Written", "%" PRIu64, (uint64_t)p->buffers_written);
	LINE(out, "Log Buffers Lost", "%" PRIu64, (uint64_t)p->log_buffers_lost);
	LINE(out, "Real Time Buffers Lost", "%" PRIu64, (uint64_t)p->real_time_buffers_lost);
	LINE(out, "Buffers Closed", "%" PRIu64, (uint64_t)p->sequence_number);
	LINE(out, "Start Time", "%s", etl_filetime_str((int64_t)p->start_time, buf, sizeof(buf)));
	LINE(out, "Start Clock", "%" PRIu64, (uint64_t)p->start_clock);
	LINE(out, "Boot Time", "%s", etl_filetime_str((int64_t)p->boot_time, buf, sizeof(buf)));
	LINE(out, "Readers", "%u", p->readers);
	LINE(out, "Context Flags", "0x%08x", p->flags);
}

static const char *mode_word(const struct ntkl_properties *p)
{
	return p->log_file_mode & NTKL_MODE_BUFFERING ? "buffering" : "file";
}

void ntkl_show_list(FILE *out, const struct ntkl_properties *p,
		    const struct ntkl_sink *sinks, uint32_t count)
{
	int name_w = 4, owner_w = 5, flags_w = 5;
	char on[256], buffers[32], where[PATH_MAX + 128], owner[64];
	struct ntkl_flags f;

	for (uint32_t i = 0; i < count; i++) {
		int n = (int)strlen(p[i].logger_name);

		if (n > name_w)
			name_w = n;
		n = (int)strlen(ntkl_owner_str(&p[i], owner, sizeof(owner)));
		if (n > owner_w)
			owner_w = n;
		props_flags(&p[i], &f);
		n = (int)strlen(ntkl_flags_format(&f, on, sizeof(on)));
		if (n > flags_w)
			flags_w = n;
	}
	fprintf(out, "%3s  %-*s  %-*s  %-8s %-9s %6s %9s %8s %8s  %-*s  %s\n", "ID",
		name_w, "NAME", owner_w, "OWNER", "STATUS", "MODE", "BUF KB", "BUFFERS", "WRITTEN",
		"LOST", flags_w, "FLAGS", "FILE");
	for (uint32_t i = 0; i < count; i++) {
		props_flags(&p[i], &f);
		snprintf(buffers, sizeof(buffers), "%u/%u",
			 p[i].number_of_buffers - p[i].free_buffers,
			 p[i].number_of_buffers);
		if (sinks && sinks[i].writer && sinks[i].writer->file[0])
			snprintf(where, sizeof(where), "%s%s", sinks[i].writer->file,
				 sinks[i].busy ? "" : " (writer gone)");
		else if (p[i].log_file_mode & NTKL_MODE_BUFFERING)
			snprintf(where, sizeof(where), "-");
		else
			snprintf(where, sizeof(where), "%s",
				 p[i].readers ? "(reader)" : "(no reader)");
		fprintf(out, "%3u  %-*s  %-*s  %-8s %-9s %6u %9s %8" PRIu64 " %8" PRIu64 "  %-*s  %s\n",
			p[i].logger_id, name_w, p[i].logger_name, owner_w,
			ntkl_owner_str(&p[i], owner, sizeof(owner)),
			ntkl_status_name(p[i].logger_status), mode_word(&p[i]),
			p[i].buffer_size_kb, buffers, (uint64_t)p[i].buffers_written,
			(uint64_t)p[i].events_lost, flags_w,
			ntkl_flags_format(&f, on, sizeof(on)), where);
	}
}
