// SPDX-License-Identifier: GPL-2.0
/*
 * The one validator of the control ABI's settings (uapi/ntkl_bounds.h),
 * which the module and the ntkl command both use: each bound at its edge,
 * every problem of a START at once, the spin-lock settings and the
 * profile interval.
 */
#include <assert.h>

#include "test.h"
#include "uapi/ntkl_bounds.h"

/* xperf's profile interval bounds and default, in 100 ns units: 0.1221 ms to 1 s, 1 ms */
static_assert(NTKL_PROFILE_INTERVAL_MIN == 1221 && NTKL_PROFILE_INTERVAL_MAX == 10000000 &&
	      NTKL_PROFILE_INTERVAL_DEFAULT == 10000, "xperf's profile interval bounds");
/* what the edge cases below take for granted */
static_assert(sizeof(((struct ntkl_properties *)0)->logger_name) == NTKL_NAME_MAX,
	      "logger_name holds NTKL_NAME_MAX bytes");
static_assert(NTKL_MIN_BUFFER_KB > 1 && NTKL_MAX_BUFFERS >= 9 && NTKL_CLOCK_CYCLE + 1 < 9,
	      "the values the cases use are in bounds (or out) as they say");

static void props(struct ntkl_properties *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	strcpy(p->logger_name, "bounds");
}

#define BAD(p, which)	(ntkl_start_props_out_of_bounds(p) == 1u << (which))

static void test_start(void)
{
	struct ntkl_properties p;

	test_begin("start_defaults_in_bounds");
	props(&p);
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	test_end();

	test_begin("start_each_bound_at_its_edge");
	props(&p);
	p.logger_name[0] = '\0';
	CHECK(BAD(&p, NTKL_PROP_NAME));
	props(&p);
	memset(p.logger_name, 'x', sizeof(p.logger_name));	/* no NUL */
	CHECK(BAD(&p, NTKL_PROP_NAME));
	p.logger_name[NTKL_NAME_MAX - 1] = '\0';		/* 127 bytes: fine */
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	props(&p);
	p.buffer_size_kb = NTKL_MIN_BUFFER_KB - 1;
	CHECK(BAD(&p, NTKL_PROP_BUFFER_SIZE));
	p.buffer_size_kb = NTKL_MIN_BUFFER_KB;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	p.buffer_size_kb = NTKL_MAX_BUFFER_KB;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	p.buffer_size_kb = NTKL_MAX_BUFFER_KB + 1;
	CHECK(BAD(&p, NTKL_PROP_BUFFER_SIZE));
	props(&p);
	p.minimum_buffers = NTKL_MAX_BUFFERS + 1;
	CHECK(BAD(&p, NTKL_PROP_MIN_BUFFERS));
	props(&p);
	p.maximum_buffers = NTKL_MAX_BUFFERS + 1;
	CHECK(BAD(&p, NTKL_PROP_MAX_BUFFERS));
	props(&p);
	p.minimum_buffers = 9;
	p.maximum_buffers = 8;
	CHECK(BAD(&p, NTKL_PROP_MIN_ABOVE_MAX));
	p.maximum_buffers = 9;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	props(&p);
	p.log_file_mode = 0x00000002;	/* EVENT_TRACE_FILE_MODE_CIRCULAR */
	CHECK(BAD(&p, NTKL_PROP_MODE));
	props(&p);
	p.clock_type = NTKL_CLOCK_CYCLE + 1;
	CHECK(BAD(&p, NTKL_PROP_CLOCK));
	props(&p);
	p.flush_timer = NTKL_MAX_FLUSH_TIMER;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	p.flush_timer = NTKL_MAX_FLUSH_TIMER + 1;
	CHECK(BAD(&p, NTKL_PROP_FLUSH_TIMER));
	/* in milliseconds, a thousand times as many */
	p.log_file_mode = NTKL_MODE_MS_FLUSH_TIMER;
	p.flush_timer = NTKL_MAX_FLUSH_TIMER * 1000;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p), 0);
	test_end();

	test_begin("start_every_problem_at_once");
	props(&p);
	p.buffer_size_kb = 1;
	p.clock_type = 9;
	p.flush_timer = 99999;
	CHECK_EQ(ntkl_start_props_out_of_bounds(&p),
		 1u << NTKL_PROP_BUFFER_SIZE | 1u << NTKL_PROP_CLOCK | 1u << NTKL_PROP_FLUSH_TIMER);
	test_end();
}

static void test_spinlock(void)
{
	struct ntkl_spinlock_config c = {
		.size = sizeof(c),
		.spin_threshold = NTKL_SPIN_THRESHOLD_MIN,
		.acquire_sample_rate = NTKL_ACQUIRE_SAMPLE_RATE_MIN,
		.contention_sample_rate = NTKL_CONTENTION_SAMPLE_RATE_MIN,
		.hold_threshold = 0,
	};

	test_begin("spinlock_bounds");
	CHECK(!ntkl_spinlock_config_is_default(&c));
	CHECK_EQ(ntkl_spinlock_config_out_of_bounds(&c), 0);
	c.hold_threshold = NTKL_HOLD_THRESHOLD_MIN - 1;
	CHECK_EQ(ntkl_spinlock_config_out_of_bounds(&c), 1u << NTKL_SPIN_HOLD_THRESHOLD);
	c.hold_threshold = NTKL_HOLD_THRESHOLD_MIN;
	c.acquire_sample_rate = NTKL_ACQUIRE_SAMPLE_RATE_MIN - 1;
	c.spin_threshold = 0;
	CHECK_EQ(ntkl_spinlock_config_out_of_bounds(&c),
		 1u << NTKL_SPIN_ACQUIRE_RATE | 1u << NTKL_SPIN_THRESHOLD);
	memset(&c, 0, sizeof(c));
	CHECK(ntkl_spinlock_config_is_default(&c));
	test_end();
}

static void test_profile_interval(void)
{
	struct ntkl_profile_interval p = { .size = sizeof(p) };

	test_begin("profile_interval_bounds");
	/* 0 asks for the default */
	CHECK_EQ(ntkl_profile_interval_asked(&p), NTKL_PROFILE_INTERVAL_DEFAULT);
	p.interval = 5000;
	CHECK_EQ(ntkl_profile_interval_asked(&p), 5000);
	p.interval = 0;
	CHECK_EQ(ntkl_profile_interval_out_of_bounds(&p), 0);
	p.interval = NTKL_PROFILE_INTERVAL_MIN;
	CHECK_EQ(ntkl_profile_interval_out_of_bounds(&p), 0);
	p.interval = NTKL_PROFILE_INTERVAL_MIN - 1;
	CHECK_EQ(ntkl_profile_interval_out_of_bounds(&p), 1u << NTKL_PROFINT_INTERVAL);
	p.interval = NTKL_PROFILE_INTERVAL_MAX;
	CHECK_EQ(ntkl_profile_interval_out_of_bounds(&p), 0);
	p.interval = NTKL_PROFILE_INTERVAL_MAX + 1;
	p.source = 1;
	CHECK_EQ(ntkl_profile_interval_out_of_bounds(&p),
		 1u << NTKL_PROFINT_INTERVAL | 1u << NTKL_PROFINT_SOURCE);
	test_end();
}

int main(void)
{
	test_start();
	test_spinlock();
	test_profile_interval();
	return test_exit();
}
