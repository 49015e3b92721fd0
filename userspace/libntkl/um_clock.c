// SPDX-License-Identifier: GPL-2.0
/*
 * The three clock types, the kernel loggers' own (module/transport/clock.h),
 * so that a libntkl file and an ntkl kernel capture merge by timestamp:
 *
 *   QPC     CLOCK_MONOTONIC in 100 ns units, PerfFreq 10 MHz: the value
 *           the module's QPC gives at the same instant (it scales the TSC
 *           to CLOCK_MONOTONIC); vDSO, no system call
 *   SYSTEM  FILETIME from CLOCK_REALTIME (jumps when the clock is set)
 *   CYCLE   the TSC on x86, as the module's; PerfFreq measured against
 *           CLOCK_MONOTONIC over 20 ms at start (the kernel's tsc_khz is
 *           not readable from user space); nanoseconds elsewhere
 */
#include <stdint.h>
#include <time.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include "um_internal.h"
#include "ctl/etl_file.h"
#include "uapi/ntkl_etw.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t um_boot_filetime(void)
{
	struct timespec rt, bt;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	return ETW_FILETIME_UNIX_EPOCH +
	       ((int64_t)rt.tv_sec - bt.tv_sec) * ETW_FILETIME_PER_SECOND +
	       ((int64_t)rt.tv_nsec - bt.tv_nsec) / 100;
}

static uint64_t cycles(void)
{
#ifdef __x86_64__
	return __rdtsc();
#else
	return mono_ns();
#endif
}

int um_clock_init(struct ntkl_um_logger *lg)
{
	switch (lg->clock_type) {
	case NTKL_UM_CLOCK_SYSTEM:
		lg->perf_freq = 10000000;
		break;
	case NTKL_UM_CLOCK_CYCLE: {
#ifdef __x86_64__
		uint64_t n0 = mono_ns(), c0 = cycles(), n1, c1;
		struct timespec d = { 0, 20000000 };

		nanosleep(&d, NULL);
		n1 = mono_ns();
		c1 = cycles();
		lg->perf_freq = n1 > n0 ? (c1 - c0) * 1000000000u / (n1 - n0) : 1000000000u;
		/* to the kHz, as the module's tsc_khz */
		lg->perf_freq = (lg->perf_freq + 500) / 1000 * 1000;
#else
		lg->perf_freq = 1000000000u;
#endif
		break;
	}
	default:
		lg->clock_type = NTKL_UM_CLOCK_QPC;
		lg->perf_freq = 10000000;
		break;
	}
	return 0;
}

uint64_t um_clock_now(const struct ntkl_um_logger *lg)
{
	switch (lg->clock_type) {
	case NTKL_UM_CLOCK_SYSTEM:
		return (uint64_t)etl_filetime_now();
	case NTKL_UM_CLOCK_CYCLE:
		return cycles();
	default:
		return mono_ns() / 100;
	}
}
