// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer 0 of a libntkl file: the Header event (TRACE_LOGFILE_HEADER) and
 * PartitionInfo, the shape of the user-mode sessions' files among the
 * Windows samples (AMSITrace, lxcore_kernel: no HeaderExtension, which
 * only system loggers write). LogFileMode carries the private-logger bits
 * (EVENT_TRACE_PRIVATE_LOGGER_MODE | EVENT_TRACE_PRIVATE_IN_PROC). The
 * file name and the time zone are filled in by the writer's own code
 * (etl_header_complete() in userspace/ctl/etl_file.c, ntkl_time_zone()),
 * EndTime and the counters patched at stop (etl_header_patch_fd()).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include "um_internal.h"
#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"

#define PARTITION_INFO_BYTES	48

static uint8_t *put_record(struct ntkl_um_logger *lg, uint8_t **pos, uint16_t hook,
			   size_t payload)
{
	struct system_trace_header h = {
		.marker = ETW_MARKER_SYSTEM64(2),
		.size = (uint16_t)(sizeof(h) + payload),
		.hook_id = hook,
		/* the controlling process and thread: the one that started it */
		.thread_id = (uint32_t)gettid(),
		.process_id = (uint32_t)getpid(),
		.system_time = (int64_t)lg->start_clock,
	};
	uint8_t *p = *pos;

	memcpy(p, &h, sizeof(h));
	memset(p + sizeof(h), 0, payload);
	*pos += UM_ALIGN8(sizeof(h) + payload);
	return p + sizeof(h);
}

static size_t put_utf16(uint8_t *p, const char *s)
{
	size_t n = 0;

	/* logger names are ASCII (start checks it) */
	for (; *s; s++, n += 2) {
		p[n] = (uint8_t)*s;
		p[n + 1] = 0;
	}
	p[n] = p[n + 1] = 0;
	return n + 2;
}

static uint32_t cpu_mhz(void)
{
	uint64_t f = 0;
	FILE *fp = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "re");

	if (fp) {
		if (fscanf(fp, "%llu", (unsigned long long *)&f) != 1)
			f = 0;
		fclose(fp);
	}
	return (uint32_t)(f / 1000);
}

void um_header_build(struct ntkl_um_logger *lg, uint8_t *buf)
{
	struct wmi_buffer_header bh;
	struct trace_logfile_header t;
	size_t name_bytes = (strlen(lg->name) + 1) * 2;
	uint8_t *pos = buf + UM_BUF_HDR, *p;
	uint32_t filled;

	memset(buf, ETW_BUFFER_FILL_BYTE, lg->pool.size);
	p = put_record(lg, &pos, ETW_EVENT_HEADER_HOOK, sizeof(t) + name_bytes + 2);
	memset(&t, 0, sizeof(t));
	t.buffer_size = lg->pool.size;
	t.version = ETW_LOGFILE_VERSION;
	t.provider_version = ETW_NTKL_PROVIDER_VERSION;
	t.number_of_processors = lg->pool.ncpu;
	t.timer_resolution = (uint32_t)(10000000 / sysconf(_SC_CLK_TCK));
	t.log_file_mode = lg->mode;
	t.start_buffers = 1;
	t.pointer_size = 8;
	t.cpu_speed_in_mhz = cpu_mhz();
	t.boot_time = um_boot_filetime();
	t.perf_freq = (int64_t)lg->perf_freq;
	t.start_time = lg->start_filetime;
	t.reserved_flags = lg->clock_type;
	memcpy(p, &t, sizeof(t));
	put_utf16(p + sizeof(t), lg->name);
	put_utf16(p + sizeof(t) + name_bytes, "");
	/* PartitionInfo: zeros on a host that is no VM partition, as in the samples */
	put_record(lg, &pos, ETW_EVENT_PARTITION_INFO_HOOK, PARTITION_INFO_BYTES);

	filled = (uint32_t)(pos - buf);
	memset(&bh, 0, sizeof(bh));
	bh.buffer_size = lg->pool.size;
	bh.saved_offset = filled;
	bh.current_offset = filled;
	bh.offset = filled;
	bh.logger_id = 0;
	bh.state = 3;
	bh.buffer_flag = ETW_BUFFER_FLAG_FLUSH_MARKER | ETW_BUFFER_FLAG_PROC_INDEX;
	bh.buffer_type = ETW_BUFFER_TYPE_HEADER;
	bh.start_time = lg->start_filetime;
	bh.start_perf_clock = (int64_t)lg->start_clock;
	memcpy(buf, &bh, sizeof(bh));
}
