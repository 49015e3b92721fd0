/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The three ETW clock types, read by every probe. Each reading is NMI-safe
 * and comparable across CPUs, so tools can merge per-CPU buffers by time.
 *
 *   QPC (1)     CLOCK_MONOTONIC in 100 ns units (PerfFreq 10 MHz). On x86,
 *               like Windows' QPC, the TSC scaled: ntkl scales it itself (an
 *               anchor on CLOCK_MONOTONIC and a multiplier, below) rather
 *               than call the kernel's timekeeping, whose indirect call
 *               costs more than the rest of a switch record.
 *   SYSTEM (2)  FILETIME: 100 ns units since 1601 (can jump, like Windows)
 *   CYCLE (3)   the TSC on x86 (PerfFreq = tsc_khz), nanoseconds elsewhere
 */
#ifndef _NTKL_CLOCK_H
#define _NTKL_CLOCK_H

#include <linux/math64.h>
#include <linux/seqlock.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

#include "uapi/ntkl.h"
#include "wrapper/mul.h"

/*
 * QPC from the TSC: qpc + (tsc now - tsc) * mult / 2^64. Set by
 * ntkl_clock_anchor() when the kernel trusts its TSC; mult 0 means "ask
 * the kernel" (ktime_get_mono_fast_ns()). Two copies under a seqcount
 * latch, so a reading in an NMI never sees half an update.
 */
struct ntkl_qpc_scale {
	u64 tsc;
	u64 qpc;
	u64 mult;			/* 100 ns units per TSC cycle, << 64 */
};

struct ntkl_qpc_latch {
	seqcount_latch_t seq;
	struct ntkl_qpc_scale scale[2];
};

extern struct ntkl_qpc_latch ntkl_qpc;

void ntkl_clock_anchor(void);
void ntkl_clock_start(u32 clock_type, u64 *clock, u64 *filetime);
u64 ntkl_qpc_slow(void);
u64 ntkl_clock_system(void);
u64 ntkl_clock_freq(u32 clock_type);
u64 ntkl_filetime_now(void);
u64 ntkl_filetime_boot(void);
u32 ntkl_cpu_mhz(void);

#ifdef CONFIG_X86
/*
 * A record's TSC reading, as the scheduler's own clock takes it
 * (native_sched_clock()): unordered. The fence of rdtsc_ordered() would
 * keep it from being read before earlier loads complete, which moves a
 * record's time by a few cycles at most, less than the TSCs of two CPUs
 * may differ by; the record's place in its buffer is decided after, by
 * the reservation. clock.c's pairing of two clocks orders its readings.
 */
static __always_inline u64 ntkl_rdtsc(void)
{
	return rdtsc();
}
#endif

static __always_inline u64 ntkl_clock_qpc(void)
{
#ifdef CONFIG_X86
	const struct ntkl_qpc_scale *s;
	unsigned int seq;
	u64 qpc;
	s64 cycles;

	do {
		seq = raw_read_seqcount_latch(&ntkl_qpc.seq);
		s = &ntkl_qpc.scale[seq & 1];
		if (unlikely(!s->mult))
			return ntkl_qpc_slow();
		/* another CPU's anchor may be a few cycles ahead of this TSC */
		cycles = max_t(s64, ntkl_rdtsc() - s->tsc, 0);
		qpc = s->qpc + ntkl_mul_u64_u64_shr(cycles, s->mult, 64);
	} while (raw_read_seqcount_latch_retry(&ntkl_qpc.seq, seq));
	return qpc;
#else
	return ntkl_qpc_slow();
#endif
}

static __always_inline u64 ntkl_clock(u32 clock_type)
{
	switch (clock_type) {
	case NTKL_CLOCK_SYSTEM:
		return ntkl_clock_system();
	case NTKL_CLOCK_CYCLE:
#ifdef CONFIG_X86
		return ntkl_rdtsc();
#else
		return ktime_get_mono_fast_ns();
#endif
	default:
		return ntkl_clock_qpc();
	}
}

#endif /* _NTKL_CLOCK_H */
