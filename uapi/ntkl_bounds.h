/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The bounds of every setting the control ABI takes, checked in one place:
 * the module refuses what they refuse (EINVAL), and the ntkl command uses
 * the same functions to say which setting is out of bounds and what the
 * bounds are.
 */
#ifndef _UAPI_NTKL_BOUNDS_H
#define _UAPI_NTKL_BOUNDS_H

#include "ntkl.h"

/*
 * What the validators below rely on: a default within its bounds, and the
 * longest flush timer in milliseconds within 32 bits.
 */
static_assert(NTKL_PROFILE_INTERVAL_MIN <= NTKL_PROFILE_INTERVAL_DEFAULT,
	      "the default profile interval is in bounds");
static_assert(NTKL_PROFILE_INTERVAL_DEFAULT <= NTKL_PROFILE_INTERVAL_MAX,
	      "the default profile interval is in bounds");
static_assert(NTKL_MIN_BUFFER_KB <= NTKL_MAX_BUFFER_KB, "buffer size bounds");
static_assert(NTKL_MAX_FLUSH_TIMER <= 0xFFFFFFFFu / 1000, "flush timer in ms fits 32 bits");

/* The settings of START (as given, before defaults), one bit each. */
enum ntkl_prop {
	NTKL_PROP_NAME,			/* 1..NTKL_NAME_MAX - 1 bytes, NUL-terminated */
	NTKL_PROP_BUFFER_SIZE,		/* 0 (default) or NTKL_MIN..MAX_BUFFER_KB */
	NTKL_PROP_MIN_BUFFERS,		/* up to NTKL_MAX_BUFFERS */
	NTKL_PROP_MAX_BUFFERS,		/* up to NTKL_MAX_BUFFERS */
	NTKL_PROP_MIN_ABOVE_MAX,	/* minimum <= maximum when both are given */
	NTKL_PROP_MODE,			/* only NTKL_MODES_ALLOWED */
	NTKL_PROP_CLOCK,		/* 0 (QPC) or NTKL_CLOCK_QPC..CYCLE */
	NTKL_PROP_FLUSH_TIMER,		/* up to ntkl_flush_timer_max(mode) */
};

/* The longest flush timer, in the unit the mode gives it (s, or ms). */
static inline __u32 ntkl_flush_timer_max(__u32 log_file_mode)
{
	return NTKL_MAX_FLUSH_TIMER * (log_file_mode & NTKL_MODE_MS_FLUSH_TIMER ? 1000 : 1);
}

static inline int ntkl_name_ok(const char *name)
{
	unsigned int len = 0;

	while (len < NTKL_NAME_MAX && name[len])
		len++;
	return len > 0 && len < NTKL_NAME_MAX;
}

/* The settings of a START out of bounds: BIT(enum ntkl_prop) each; 0 if none. */
static inline __u32 ntkl_start_props_out_of_bounds(const struct ntkl_properties *p)
{
	__u32 bad = 0;

	if (!ntkl_name_ok(p->logger_name))
		bad |= 1u << NTKL_PROP_NAME;
	if (p->buffer_size_kb &&
	    (p->buffer_size_kb < NTKL_MIN_BUFFER_KB || p->buffer_size_kb > NTKL_MAX_BUFFER_KB))
		bad |= 1u << NTKL_PROP_BUFFER_SIZE;
	if (p->minimum_buffers > NTKL_MAX_BUFFERS)
		bad |= 1u << NTKL_PROP_MIN_BUFFERS;
	if (p->maximum_buffers > NTKL_MAX_BUFFERS)
		bad |= 1u << NTKL_PROP_MAX_BUFFERS;
	if (p->minimum_buffers && p->maximum_buffers && p->minimum_buffers > p->maximum_buffers)
		bad |= 1u << NTKL_PROP_MIN_ABOVE_MAX;
	if (p->log_file_mode & ~NTKL_MODES_ALLOWED)
		bad |= 1u << NTKL_PROP_MODE;
	if (p->clock_type > NTKL_CLOCK_CYCLE)
		bad |= 1u << NTKL_PROP_CLOCK;
	if (p->flush_timer > ntkl_flush_timer_max(p->log_file_mode))
		bad |= 1u << NTKL_PROP_FLUSH_TIMER;
	return bad;
}

/* The spin lock sampling settings, one bit each, in the struct's order. */
enum ntkl_spin_setting {
	NTKL_SPIN_THRESHOLD,		/* >= NTKL_SPIN_THRESHOLD_MIN */
	NTKL_SPIN_ACQUIRE_RATE,		/* >= NTKL_ACQUIRE_SAMPLE_RATE_MIN */
	NTKL_SPIN_CONTENTION_RATE,	/* >= NTKL_CONTENTION_SAMPLE_RATE_MIN */
	NTKL_SPIN_HOLD_THRESHOLD,	/* 0 or >= NTKL_HOLD_THRESHOLD_MIN */
};

/* Settings that mean "the defaults": every field 0. */
static inline int ntkl_spinlock_config_is_default(const struct ntkl_spinlock_config *c)
{
	return !c->spin_threshold && !c->acquire_sample_rate && !c->contention_sample_rate &&
	       !c->hold_threshold;
}

/* The spin lock settings out of bounds: BIT(enum ntkl_spin_setting) each; 0 if none. */
static inline __u32 ntkl_spinlock_config_out_of_bounds(const struct ntkl_spinlock_config *c)
{
	__u32 bad = 0;

	if (c->spin_threshold < NTKL_SPIN_THRESHOLD_MIN)
		bad |= 1u << NTKL_SPIN_THRESHOLD;
	if (c->acquire_sample_rate < NTKL_ACQUIRE_SAMPLE_RATE_MIN)
		bad |= 1u << NTKL_SPIN_ACQUIRE_RATE;
	if (c->contention_sample_rate < NTKL_CONTENTION_SAMPLE_RATE_MIN)
		bad |= 1u << NTKL_SPIN_CONTENTION_RATE;
	if (c->hold_threshold && c->hold_threshold < NTKL_HOLD_THRESHOLD_MIN)
		bad |= 1u << NTKL_SPIN_HOLD_THRESHOLD;
	return bad;
}

/* The profile interval settings, one bit each. */
enum ntkl_profint_setting {
	NTKL_PROFINT_SOURCE,		/* NTKL_PROFILE_SOURCE_TIMER only */
	NTKL_PROFINT_INTERVAL,		/* NTKL_PROFILE_INTERVAL_MIN..MAX */
};

/* The interval a SET asks for: 0 means the default. */
static inline __u32 ntkl_profile_interval_asked(const struct ntkl_profile_interval *p)
{
	return p->interval ? p->interval : NTKL_PROFILE_INTERVAL_DEFAULT;
}

/* The profile interval settings out of bounds: BIT(enum ntkl_profint_setting) each. */
static inline __u32 ntkl_profile_interval_out_of_bounds(const struct ntkl_profile_interval *p)
{
	__u32 bad = 0, v = ntkl_profile_interval_asked(p);

	if (p->source != NTKL_PROFILE_SOURCE_TIMER)
		bad |= 1u << NTKL_PROFINT_SOURCE;
	if (v < NTKL_PROFILE_INTERVAL_MIN || v > NTKL_PROFILE_INTERVAL_MAX)
		bad |= 1u << NTKL_PROFINT_INTERVAL;
	return bad;
}

#endif /* _UAPI_NTKL_BOUNDS_H */
