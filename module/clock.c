// SPDX-License-Identifier: GPL-2.0
/*
 * The three ETW clock types. Every reading is NMI-safe and comparable
 * across CPUs, so tools can merge per-CPU buffers by time.
 *
 *   QPC (1)     CLOCK_MONOTONIC in 100 ns ticks: PerfFreq 10 MHz, as Windows
 *   SYSTEM (2)  FILETIME: 100 ns units since 1601 (can jump, like Windows)
 *   CYCLE (3)   the TSC on x86 (PerfFreq = tsc_khz), nanoseconds elsewhere
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#include <linux/sched/clock.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#include "ntkl.h"

/*
 * ns -> 100 ns units without a division: ns * ceil(2^64 / 100) >> 64. A
 * 32-bit multiplier would be 6e-10 off, a second for wall-clock time.
 */
#define NS_TO_100NS_MULT	184467440737095517ULL

static inline u64 ns_to_100ns(u64 ns)
{
	return mul_u64_u64_shr(ns, NS_TO_100NS_MULT, 64);
}

u64 ntkl_clock(u32 clock_type)
{
	switch (clock_type) {
	case NTKL_CLOCK_SYSTEM:
		return ns_to_100ns(ktime_get_real_fast_ns()) + ETW_FILETIME_UNIX_EPOCH;
	case NTKL_CLOCK_CYCLE:
#ifdef CONFIG_X86
		return rdtsc_ordered();
#else
		return ktime_get_mono_fast_ns();
#endif
	default:
		return ns_to_100ns(ktime_get_mono_fast_ns());
	}
}

u64 ntkl_clock_freq(u32 clock_type)
{
	if (clock_type == NTKL_CLOCK_CYCLE) {
#ifdef CONFIG_X86
		return (u64)tsc_khz * 1000;
#else
		return NSEC_PER_SEC;
#endif
	}
	return ETW_FILETIME_PER_SECOND;
}

u64 ntkl_filetime_now(void)
{
	return ns_to_100ns(ktime_get_real_ns()) + ETW_FILETIME_UNIX_EPOCH;
}

u64 ntkl_filetime_boot(void)
{
	return ns_to_100ns(ktime_get_real_ns() - ktime_get_boottime_ns()) +
	       ETW_FILETIME_UNIX_EPOCH;
}

u32 ntkl_cpu_mhz(void)
{
#ifdef CONFIG_X86
	return cpu_khz / 1000;
#else
	return 0;
#endif
}
