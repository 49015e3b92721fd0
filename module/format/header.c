// SPDX-License-Identifier: GPL-2.0
/*
 * The header buffer: buffer 0 of every file, the first thing a reader
 * gets. It holds the Header event (TRACE_LOGFILE_HEADER), HeaderExtension
 * with the group masks, and SystemConfig CPU, as the NT Kernel Logger
 * writes them. The file writer completes it (LogFileName, TimeZone) and
 * patches EndTime and the counters at the end.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time.h>
#include <linux/utsname.h>

#include "format/header.h"
#include "format/events.h"
#include "format/utf16.h"

#define HDR_SIZE	sizeof(struct wmi_buffer_header)

/*
 * Start a record of event id with payload bytes at *pos; returns the
 * payload. The header buffer's events are SYSTEM64 ones (the event table
 * says so, and userspace/tests/test_events.c checks it).
 */
static u8 *put_system_record(struct ntkl_logger *lg, u8 **pos, enum etw_event_id id,
			     size_t payload)
{
	struct system_trace_header *h = (struct system_trace_header *)*pos;
	size_t size = sizeof(*h) + payload;

	h->marker = ETW_MARKER_SYSTEM64(etw_events[id].version);
	h->size = size;
	h->hook_id = etw_events[id].hook_id;
	/* the controlling process, as Windows': the one that STARTs the logger */
	h->thread_id = task_pid_nr(current);
	h->process_id = task_tgid_nr(current);
	h->system_time = lg->start_clock;
	h->kernel_time = 0;
	h->user_time = 0;
	*pos += ALIGN(size, ETW_RECORD_ALIGN);
	return (u8 *)(h + 1);
}

static void put_logfile_header(struct ntkl_logger *lg, u8 **pos)
{
	size_t name_bytes = (ntkl_utf16_len(lg->name, sizeof(lg->name)) + 1) * 2;
	struct trace_logfile_header *t;
	u8 *p;

	/*
	 * payload: the header, the logger name, an empty log file name: the
	 * module writes no file, its reader does and names it (and completes
	 * the time zone) in this buffer, userspace/ctl/etl_file.c.
	 */
	p = put_system_record(lg, pos, ETW_EVENT_HEADER, sizeof(*t) + name_bytes + 2);
	t = (struct trace_logfile_header *)p;
	t->buffer_size = lg->buffer_size;
	t->version = ETW_LOGFILE_VERSION;
	t->provider_version = ETW_NTKL_PROVIDER_VERSION;
	t->number_of_processors = num_possible_cpus();
	t->end_time = 0;
	/* the tick of NewThreadWaitTime and batch ages: a jiffy */
	t->timer_resolution = TICK_NSEC / 100;
	/* NTKL_MODE_OWNED is ntkl's, no ETW mode: files never carry it */
	t->log_file_mode = (lg->mode & ~NTKL_MODE_OWNED) | EVENT_TRACE_SYSTEM_LOGGER_MODE;
	t->buffers_written = 0;
	t->start_buffers = 1;
	t->pointer_size = 8;
	t->cpu_speed_in_mhz = ntkl_cpu_mhz();
	/*
	 * Linux keeps kernel time in UTC: Bias is the minutes west (sys_tz),
	 * all the kernel knows of the zone; the file writer fills in the rest.
	 */
	t->time_zone.bias = sys_tz.tz_minuteswest;
	t->time_zone.standard_bias = 0;
	t->time_zone.daylight_bias = 0;
	t->boot_time = lg->boot_time;
	t->perf_freq = lg->perf_freq;
	t->start_time = lg->start_time;
	t->reserved_flags = lg->clock_type;
	p += sizeof(*t);
	p += ntkl_put_utf16(p, lg->name, sizeof(lg->name));
	ntkl_put_utf16(p, "", 1);
}

/* HeaderExtension's payload, also GroupMasksEnd's: the logger's group masks. */
void ntkl_header_extension(const struct ntkl_logger *lg, struct etw_header_extension *ext)
{
	ext->group_masks = lg->groups;
	ext->kernel_event_version = ETW_NTKL_KERNEL_EVENT_VERSION;
}

static void put_header_extension(struct ntkl_logger *lg, u8 **pos)
{
	struct etw_header_extension *ext;

	ext = (void *)put_system_record(lg, pos, ETW_EVENT_HEADER_EXTENSION, sizeof(*ext));
	ntkl_header_extension(lg, ext);
}

static void put_config_cpu(struct ntkl_logger *lg, u8 **pos)
{
	struct etw_config_cpu *c;
	struct sysinfo si;

	si_meminfo(&si);
	c = (void *)put_system_record(lg, pos, ETW_EVENT_CONFIG_CPU, ETW_CONFIG_CPU_SIZE);
	c->mhz = ntkl_cpu_mhz();
	c->number_of_processors = num_possible_cpus();
	c->mem_size = (si.totalram * si.mem_unit) >> 20;
	c->page_size = PAGE_SIZE;
	c->allocation_granularity = PAGE_SIZE;
	ntkl_put_utf16((u8 *)c->computer_name, utsname()->nodename,
		       ARRAY_SIZE(c->computer_name) - 1);
	ntkl_put_utf16((u8 *)c->domain_name, utsname()->domainname,
		       ARRAY_SIZE(c->domain_name) - 1);
	c->hyper_threading_flag = 0;
	c->highest_user_address = TASK_SIZE_MAX - 1;
	c->processor_architecture = ETW_PROCESSOR_ARCHITECTURE_AMD64;
#ifdef CONFIG_X86
	c->processor_level = boot_cpu_data.x86;
	c->processor_revision = boot_cpu_data.x86_model << 8 |
				boot_cpu_data.x86_stepping;
	c->pae_enabled = 1;
	c->nx_enabled = boot_cpu_has(X86_FEATURE_NX);
#endif
	c->memory_speed = 0;
}

void ntkl_header_build(struct ntkl_logger *lg)
{
	struct wmi_buffer_header *hdr = (struct wmi_buffer_header *)lg->header;
	u8 *pos = lg->header + HDR_SIZE;
	u32 filled;

	memset(lg->header, 0, lg->buffer_size);
	put_logfile_header(lg, &pos);
	put_header_extension(lg, &pos);
	put_config_cpu(lg, &pos);
	filled = pos - lg->header;

	hdr->buffer_size = lg->buffer_size;
	hdr->saved_offset = filled;
	hdr->current_offset = filled;
	hdr->logger_id = lg->id;
	hdr->state = ETW_BUFFER_STATE_FLUSH;
	hdr->offset = filled;
	hdr->buffer_flag = ETW_BUFFER_FLAG_FLUSH_MARKER | ETW_BUFFER_FLAG_PROC_INDEX;
	hdr->buffer_type = ETW_BUFFER_TYPE_HEADER;
	memset(lg->header + filled, ETW_BUFFER_FILL_BYTE, lg->buffer_size - filled);
}
