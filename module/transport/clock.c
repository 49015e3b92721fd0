// SPDX-License-Identifier: GPL-2.0
/*
 * The clocks' slow paths and the QPC anchor (clock.h says what each clock
 * is).
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#include "ntkl.h"
#include "wrapper/mul.h"

/*
 * ns -> 100 ns units without a division: ns * ceil(2^64 / 100) >> 64. A
 * 32-bit multiplier would be 6e-10 off, a second for wall-clock time.
 */
#define NS_TO_100NS_MULT	184467440737095517ULL

static inline u64 ns_to_100ns(u64 ns)
{
	return ntkl_mul_u64_u64_shr(ns, NS_TO_100NS_MULT, 64);
}

struct ntkl_qpc_latch ntkl_qpc = {
	.seq = SEQCNT_LATCH_ZERO(ntkl_qpc.seq),
};

u64 ntkl_qpc_slow(void)
{
	return ns_to_100ns(ktime_get_mono_fast_ns());
}

/* 2^64 * 10^4 / khz: 100 ns units per cycle of a khz clock, as 0.64 fixed point. */
static u64 qpc_mult(u32 khz)
{
	u32 rem;
	u64 hi = div_u64_rem(10000ULL << 32, khz, &rem);

	return hi << 32 | div_u64((u64)rem << 32, khz);
}

static void qpc_set(const struct ntkl_qpc_scale *s)
{
	/* odd: readers use copy 1 while copy 0 changes, then the reverse */
	raw_write_seqcount_latch(&ntkl_qpc.seq);
	ntkl_qpc.scale[0] = *s;
	raw_write_seqcount_latch(&ntkl_qpc.seq);
	ntkl_qpc.scale[1] = *s;
}

/*
 * Two clocks read at one instant: a reading of clock b bracketed by two of
 * clock a, interrupts off, keeping the narrowest bracket of a few tries and
 * its middle. One try is not enough: under a hypervisor, and under qemu's
 * TCG, the vCPU itself can stop between two readings for longer than a
 * tick, which would put that gap into every time converted with the pair.
 */
#define CLOCK_PAIR_TRIES	8

typedef u64 (*clock_read_t)(u32 clock_type);

static void clock_pair(clock_read_t a, clock_read_t b, u32 clock_type, u64 *at_a, u64 *at_b)
{
	u64 best = U64_MAX, a1, a2, bv;
	unsigned long flags;
	int i;

	for (i = 0; i < CLOCK_PAIR_TRIES; i++) {
		local_irq_save(flags);
		a1 = a(clock_type);
		bv = b(clock_type);
		a2 = a(clock_type);
		local_irq_restore(flags);
		if (a2 < a1 || a2 - a1 >= best)
			continue;
		best = a2 - a1;
		*at_a = a1 + best / 2;
		*at_b = bv;
	}
	if (best == U64_MAX) {		/* a went backwards every time: take one reading */
		*at_a = a(clock_type);
		*at_b = b(clock_type);
	}
}

static u64 read_qpc_slow(u32 clock_type)
{
	return ntkl_qpc_slow();
}

#ifdef CONFIG_X86
static u64 read_tsc(u32 clock_type)
{
	return rdtsc_ordered();
}
#endif

/*
 * (Re)anchor QPC on the TSC: at load, and when a QPC logger starts while no
 * other runs (so no running capture ever sees a step). Re-anchoring picks
 * up the kernel's refined tsc_khz and keeps QPC near CLOCK_MONOTONIC: in a
 * capture the two part only by NTP's slewing of CLOCK_MONOTONIC (none
 * without NTP) and the rounding of the kernel's TSC scale (about 0.1 ppm).
 * Only while the kernel trusts its TSC (it marks it unstable if it drifts
 * between CPUs or against another clocksource); else, and on other
 * architectures, QPC is ktime_get_mono_fast_ns().
 */
void ntkl_clock_anchor(void)
{
	struct ntkl_qpc_scale s = { };
#ifdef CONFIG_X86
	if (boot_cpu_has(X86_FEATURE_TSC) && !check_tsc_unstable() && tsc_khz > 10000) {
		s.mult = qpc_mult(tsc_khz);
		clock_pair(read_tsc, read_qpc_slow, 0, &s.tsc, &s.qpc);
	}
#endif
	qpc_set(&s);
}

static u64 read_clock(u32 clock_type)
{
	return ntkl_clock(clock_type);
}

static u64 read_filetime(u32 clock_type)
{
	return ntkl_filetime_now();
}

/* A logger's start: its clock's value and the FILETIME of the same instant. */
void ntkl_clock_start(u32 clock_type, u64 *clock, u64 *filetime)
{
	clock_pair(read_clock, read_filetime, clock_type, clock, filetime);
}

u64 ntkl_clock_system(void)
{
	return ns_to_100ns(ktime_get_real_fast_ns()) + ETW_FILETIME_UNIX_EPOCH;
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
