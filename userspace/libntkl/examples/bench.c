// SPDX-License-Identifier: GPL-2.0
/*
 * libntkl-bench: what writing an event through libntkl costs, for
 * scripts/bench (selftests/workloads/ntkl-bench.sh runs it in the VM).
 *
 *   libntkl-bench -m none|um|umc [-n EVENTS] [-o FILE.etl] [-c CPU]
 *
 * One writer thread pinned to CPU (default 1) writes EVENTS events of two
 * UINT32 fields with a TraceLogging schema (the units example's kind):
 *   none  the same loop with no logger (ntkl_um_write is not called)
 *   um    a private logger, uncompressed
 *   umc   a private logger, EVENT_TRACE_COMPRESSED_MODE
 * The logger is started before the writer pins itself, so its thread may
 * run on any CPU. MinimumBuffers (committed at start, so the loop takes no
 * page fault) holds every event, so the writer never
 * waits for the logger thread (the fast path alone is timed) and none is
 * lost; BLOCKING_MODE makes sure of the latter. One line:
 *   events=N ns=T cpu=C lost=N bytes=B
 * ns: the writer's wall time for the loop (CLOCK_MONOTONIC); cpu: the
 * process's CPU time (every thread: the writer, and the logger thread
 * writing and compressing buffers) from before start to after stop.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "libntkl.h"

static const uint8_t guid[16] = {
	0x6c, 0x6b, 0x74, 0x6e, 0x62, 0x65, 0x6e, 0x63, 0x68, 0, 0, 0, 0, 0, 0, 2,
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

int main(int argc, char **argv)
{
	struct ntkl_um_properties p = { .size = sizeof(p), .log_file_mode = NTKL_UM_MODE_BLOCKING };
	struct ntkl_um_descriptor d = { .id = 1, .level = 4 };
	struct ntkl_um_logger *lg = NULL;
	struct ntkl_um_provider *prov = NULL;
	struct ntkl_um_schema s;
	const char *mode = "um", *file = "/tmp/libntkl-bench.etl";
	unsigned long events = 200000;
	uint64_t t0, t1, c0, c1;
	volatile uint32_t sink = 0;
	int cpu = 1, opt;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "m:n:o:c:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': events = strtoul(optarg, NULL, 0); break;
		case 'o': file = optarg; break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: libntkl-bench -m none|um|umc [-n EVENTS] [-o FILE.etl] [-c CPU]\n");
			return 2;
		}
	}
	if (strcmp(mode, "none") && strcmp(mode, "um") && strcmp(mode, "umc")) {
		fprintf(stderr, "libntkl-bench: -m %s: give none, um or umc\n", mode);
		return 2;
	}
	/* 64 KiB buffers, enough for every event (144 bytes each) */
	p.buffer_size_kb = 64;
	p.maximum_buffers = (uint32_t)(events * 160 / 65536 + 16);
	/* all committed at start: the loop takes no page faults */
	p.minimum_buffers = p.maximum_buffers;
	if (!strcmp(mode, "umc"))
		p.log_file_mode |= NTKL_UM_MODE_COMPRESSED;
	struct ntkl_um_field f[] = {
		{ "unit", NTKL_UM_UINT32, NULL, 4 }, { "thread", NTKL_UM_UINT32, NULL, 4 },
	};
	c0 = cpu_ns();
	if (strcmp(mode, "none") &&
	    (ntkl_um_start(&lg, "bench", file, &p) ||
	     ntkl_um_register(lg, "ntkl-bench", guid, 0, 0, &prov) ||
	     ntkl_um_schema(&s, "Step", f, 2))) {
		fprintf(stderr, "libntkl-bench: %s\n", ntkl_um_last_error());
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("libntkl-bench: pinning the writer (it runs unpinned)");
	t0 = now_ns(CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < events; i++) {
		uint32_t thread = 0;

		f[0].data = &i;
		f[1].data = &thread;
		if (prov)
			ntkl_um_write(prov, &d, &s, f, 2);
		else
			sink += i;	/* the loop, and the fields built, without the write */
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	if (lg) {
		ntkl_um_unregister(prov);
		if (ntkl_um_stop(lg, &p)) {
			fprintf(stderr, "libntkl-bench: %s\n", ntkl_um_last_error());
			return 1;
		}
		unlink(file);
	}
	c1 = cpu_ns();
	printf("events=%lu ns=%llu cpu=%llu lost=%llu bytes=%llu\n", events,
	       (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       (unsigned long long)(lg ? p.events_lost : 0),
	       (unsigned long long)(lg ? p.file_bytes : 0));
	return 0;
}
