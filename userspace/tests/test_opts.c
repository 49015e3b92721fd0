// SPDX-License-Identifier: GPL-2.0
/*
 * The logger options of ntkl start, record and update: xperf spellings,
 * values as the next argument or after '=', and the refusals.
 */
#include <unistd.h>

#include "test.h"
#include "ctl/ntkl_ctl.h"
#include "ctl/ntkl_opts.h"

#define ALL	(NTKL_OPT_ON | NTKL_OPT_BUFFERSIZE | NTKL_OPT_MINBUFFERS | \
		 NTKL_OPT_MAXBUFFERS | NTKL_OPT_CLOCK | NTKL_OPT_BUFFERING | \
		 NTKL_OPT_FLUSHTIMER | NTKL_OPT_FILE | NTKL_OPT_OUTPUT | \
		 NTKL_OPT_SETPROFINT)

/* Take every option of argv (NULL-terminated); the index it stopped at. */
static int take_all(char **argv, unsigned int allowed, struct ntkl_logger_opts *o,
		    int *last_ret, char *err, size_t err_size)
{
	int argc = 0, i = 0, ret = 0;

	while (argv[argc])
		argc++;
	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	while (i < argc) {
		ret = ntkl_opts_take(argc, argv, &i, allowed, o, err, err_size);
		if (ret <= 0)
			break;
	}
	*last_ret = ret;
	return i;
}

static void test_parse(void)
{
	struct ntkl_logger_opts o;
	struct ntkl_properties p;
	char err[512];
	int ret, i;

	test_begin("start_options");
	{
		char *argv[] = { "-on", "PROC_THREAD+SPINLOCK", "-buffersize", "4",
				 "-minbuffers", "8", "-maxbuffers", "0x10", "-clock",
				 "system", "-flushtimer", "2", "-f", "out.etl", NULL };

		i = take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 14);
		CHECK_STR(err, "");
		CHECK_EQ(o.flags.enable_flags, 3);
		CHECK_EQ(o.flags.group_masks[1], 0x10000);
		CHECK_EQ(o.buffer_size_kb, 4);
		CHECK_EQ(o.minimum_buffers, 8);
		CHECK_EQ(o.maximum_buffers, 16);
		CHECK_EQ(o.clock_type, NTKL_CLOCK_SYSTEM);
		CHECK_EQ(o.flush_timer, 2);
		CHECK_STR(o.file, "out.etl");
		CHECK(!o.buffering);
		CHECK_EQ(o.seen, ALL & ~(NTKL_OPT_BUFFERING | NTKL_OPT_OUTPUT |
					 NTKL_OPT_SETPROFINT));
	}
	test_end();

	test_begin("to_props");
	ntkl_props_init(&p, "x");
	ntkl_opts_to_props(&o, &p);
	CHECK_EQ(p.buffer_size_kb, 4);
	CHECK_EQ(p.minimum_buffers, 8);
	CHECK_EQ(p.maximum_buffers, 16);
	CHECK_EQ(p.clock_type, NTKL_CLOCK_SYSTEM);
	CHECK_EQ(p.flush_timer, 2);
	CHECK_EQ(p.log_file_mode, NTKL_MODE_SEQUENTIAL);
	CHECK_EQ(p.enable_flags, 3);
	CHECK_EQ(p.group_masks[1], 0x10000);
	CHECK_STR(p.logger_name, "x");
	test_end();

	test_begin("spellings");
	{
		char *argv[] = { "--ON=cswitch", "-BufferSize=64", "-Buffering",
				 "-CLOCK", "Cycle", "-o", "x.etl", NULL };

		i = take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 7);
		CHECK_EQ(o.flags.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
		CHECK_EQ(o.buffer_size_kb, 64);
		CHECK(o.buffering);
		CHECK_EQ(o.clock_type, NTKL_CLOCK_CYCLE);
		CHECK_STR(o.file, "x.etl");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.log_file_mode, NTKL_MODE_BUFFERING);
	}
	test_end();

	/* a logger that walks stacks: 4x the default buffers, unless given */
	test_begin("stackwalk_buffers");
	{
		char *argv[] = { "-on", "CSWITCH", "-stackwalk", "CSwitch", NULL };
		char *argv2[] = { "-on", "CSWITCH", "-stackwalk", "CSwitch", "-maxbuffers", "24",
				  NULL };
		char *argv3[] = { "-on", "CSWITCH", NULL };
		long cpus = sysconf(_SC_NPROCESSORS_CONF);
		unsigned int allowed = ALL | NTKL_OPT_STACKWALK;

		take_all(argv, allowed, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		ntkl_props_init(&p, "x");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.maximum_buffers, (uint32_t)(4 * NTKL_DEFAULT_BUFFERS_PER_CPU * cpus));
		take_all(argv2, allowed, &o, &ret, err, sizeof(err));
		ntkl_props_init(&p, "x");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.maximum_buffers, 24);
		take_all(argv3, allowed, &o, &ret, err, sizeof(err));
		ntkl_props_init(&p, "x");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.maximum_buffers, 0);		/* the module's default */
	}
	test_end();

	/* a logger that takes SYSCALL: 4x the default buffers too */
	test_begin("syscall_buffers");
	{
		char *argv[] = { "-on", "PROC_THREAD+SYSCALL", NULL };
		char *argv2[] = { "-on", "SYSCALL", "-maxbuffers", "24", NULL };
		long cpus = sysconf(_SC_NPROCESSORS_CONF);

		take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		ntkl_props_init(&p, "x");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.maximum_buffers, (uint32_t)(4 * NTKL_DEFAULT_BUFFERS_PER_CPU * cpus));
		take_all(argv2, ALL, &o, &ret, err, sizeof(err));
		ntkl_props_init(&p, "x");
		ntkl_opts_to_props(&o, &p);
		CHECK_EQ(p.maximum_buffers, 24);
	}
	test_end();

	/*
	 * Stack caching wherever stacks are walked; -nostackcaching writes
	 * them whole; -stackcaching and -nostackcaching not both at once.
	 */
	test_begin("stack_caching_default");
	{
		static const struct {
			const char *stackwalk, *option;
			bool caching;
		} cases[] = {
			{ "CSwitch", NULL, true },
			{ "ReadyThread", NULL, true },
			{ "Profile+CSwitch+ReadyThread", NULL, true },
			{ "Profile", NULL, true },
			{ "FileRead+DiskReadInit", NULL, true },
			{ NULL, NULL, false },
			{ "none", NULL, false },
			{ "Profile", "-stackcaching", true },
			{ "CSwitch", "-nostackcaching", false },
			{ "Profile+CSwitch", "-nostackcaching", false },
		};
		unsigned int allowed = ALL | NTKL_OPT_STACKWALK | NTKL_OPT_STACKCACHING |
				       NTKL_OPT_NOSTACKCACHING;

		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			char *argv[6] = { "-on", "CSWITCH" };
			int n = 2;

			if (cases[k].stackwalk) {
				argv[n++] = "-stackwalk";
				argv[n++] = (char *)cases[k].stackwalk;
			}
			if (cases[k].option)
				argv[n++] = (char *)cases[k].option;
			argv[n] = NULL;
			take_all(argv, allowed, &o, &ret, err, sizeof(err));
			CHECK_STR(err, "");
			CHECK_EQ(ntkl_opts_check(&o, err, sizeof(err)), 0);
			ntkl_props_init(&p, "x");
			ntkl_opts_to_props(&o, &p);
			CHECK_EQ(!!(p.logger_options & NTKL_LOGGER_OPT_STACK_CACHING),
				 cases[k].caching);
		}
		{
			char *both[] = { "-stackwalk", "CSwitch", "-stackcaching",
					 "-nostackcaching", NULL };

			take_all(both, allowed, &o, &ret, err, sizeof(err));
			CHECK_EQ(ntkl_opts_check(&o, err, sizeof(err)), (unsigned long long)-1);
			CHECK_HAS(err, "-stackcaching and -nostackcaching contradict each other");
		}
	}
	test_end();

	/* xperf -SetProfInt N, any case, in 100 ns units */
	test_begin("setprofint");
	{
		char *argv[] = { "-on", "PROFILE", "-SetProfInt", "20000", NULL };
		char *argv2[] = { "-setprofint", "20000", NULL };

		i = take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 4);
		CHECK_EQ(o.profile_interval, 20000);
		CHECK(o.seen & NTKL_OPT_SETPROFINT);
		CHECK_EQ(o.flags.enable_flags, EVENT_TRACE_FLAG_PROFILE);
		/* not an option of a command that does not take it */
		i = take_all(argv2, ALL & ~NTKL_OPT_SETPROFINT, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 0);
		CHECK_EQ(ret, 0);
	}
	test_end();

	test_begin("stops_at_other_words");
	{
		char *argv[] = { "-on", "THREAD", "name", "-f", "x", NULL };
		char *argv2[] = { "-maxbuffers", "4", "-buffering", NULL };
		char *argv3[] = { "-onx", NULL };

		i = take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 2);
		CHECK_EQ(ret, 0);
		/* an option the command does not take is not ours */
		i = take_all(argv2, NTKL_OPT_MAXBUFFERS, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 2);
		CHECK_EQ(ret, 0);
		i = take_all(argv3, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(ret, 0);
		CHECK(ntkl_opts_is_option("-x"));
		CHECK(!ntkl_opts_is_option("-"));
		CHECK(!ntkl_opts_is_option("name"));
	}
	test_end();
}

static void expect_error(char **argv, const char *want)
{
	struct ntkl_logger_opts o;
	char err[512];
	int ret;

	take_all(argv, ALL, &o, &ret, err, sizeof(err));
	CHECK_EQ(ret, (unsigned long long)-1);
	CHECK_HAS(err, want);
}

static void test_errors(void)
{
	test_begin("bad_values");
	expect_error((char *[]){ "-buffersize", "abc", NULL }, "bad -buffersize value 'abc'");
	expect_error((char *[]){ "-buffersize", "-4", NULL }, "bad -buffersize value '-4'");
	expect_error((char *[]){ "-maxbuffers", "99999999999", NULL }, "bad -maxbuffers value");
	expect_error((char *[]){ "-minbuffers=", NULL }, "bad -minbuffers value ''");
	expect_error((char *[]){ "-clock", "tsc", NULL }, "unknown -clock 'tsc': qpc, system or cycle");
	expect_error((char *[]){ "-on", "NOPE", NULL }, "-on NOPE: unknown flag 'NOPE'");
	expect_error((char *[]){ "-f", "", NULL }, "-f needs a file name");
	expect_error((char *[]){ "-setprofint", "1ms", NULL }, "bad -setprofint value '1ms'");
	test_end();

	/* a value out of its range says the range, not "a number is expected" */
	test_begin("values_out_of_bounds_say_the_bounds");
	expect_error((char *[]){ "-buffersize", "99999999999", NULL },
		     "bad -buffersize value '99999999999': out of bounds: 4..16384 KB");
	expect_error((char *[]){ "-buffersize", "0", NULL },
		     "bad -buffersize value '0': out of bounds: 4..16384 KB");
	expect_error((char *[]){ "-buffersize", "16385", NULL }, "out of bounds: 4..16384 KB");
	expect_error((char *[]){ "-maxbuffers", "4097", NULL },
		     "bad -maxbuffers value '4097': out of bounds: 0..4096");
	expect_error((char *[]){ "-minbuffers", "99999999999999999999999", NULL },
		     "out of bounds: 0..4096");
	expect_error((char *[]){ "-flushtimer", "3601", NULL },
		     "bad -flushtimer value '3601': out of bounds: 0..3600 s");
	expect_error((char *[]){ "-setprofint", "1", NULL },
		     "bad -setprofint value '1': out of bounds: 1221..10000000");
	expect_error((char *[]){ "-buffersize", "abc", NULL },
		     "a number is expected, 4..16384 KB");
	test_end();

	test_begin("min_above_max_before_the_module");
	{
		char *argv[] = { "-minbuffers", "64", "-maxbuffers", "8", NULL };
		struct ntkl_logger_opts o;
		char err[512];
		int ret;

		take_all(argv, ALL, &o, &ret, err, sizeof(err));
		CHECK_EQ(ret, 1);
		CHECK_EQ(ntkl_opts_check(&o, err, sizeof(err)), (unsigned long long)-1);
		CHECK_HAS(err, "-minbuffers 64 is above -maxbuffers 8");
		o.maximum_buffers = 0;	/* the default maximum: the module decides */
		CHECK_EQ(ntkl_opts_check(&o, err, sizeof(err)), 0);
	}
	test_end();

	test_begin("missing_values");
	expect_error((char *[]){ "-buffersize", NULL }, "-buffersize needs a value");
	expect_error((char *[]){ "-on", NULL }, "-on needs a value");
	expect_error((char *[]){ "-buffering=1", NULL }, "-buffering takes no value");
	test_end();

	test_begin("clock_names");
	CHECK_STR(ntkl_clock_name(NTKL_CLOCK_QPC), "qpc");
	CHECK_STR(ntkl_clock_name(NTKL_CLOCK_SYSTEM), "system");
	CHECK_STR(ntkl_clock_name(NTKL_CLOCK_CYCLE), "cycle");
	CHECK(!ntkl_clock_name(0));
	CHECK(!ntkl_clock_name(9));
	test_end();
}

/* Does sw hold exactly these hooks, in any order? */
static bool hooks_are(const struct ntkl_stackwalk *sw, const uint16_t *want, uint32_t n)
{
	if (sw->count != n)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j;

		for (j = 0; j < n && sw->hooks[j] != want[i]; j++)
			;
		if (j == n)
			return false;
	}
	return true;
}

/* -profile NAME, against the EventTrace flags and hook ids of uapi/. */
static void test_profiles(void)
{
	const uint32_t proc_thread = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
	const uint16_t three[] = { NTKL_STACK_HOOK_PROFILE, NTKL_STACK_HOOK_CSWITCH,
				   NTKL_STACK_HOOK_READY_THREAD };
	const uint16_t two[] = { NTKL_STACK_HOOK_CSWITCH, NTKL_STACK_HOOK_READY_THREAD };
	const unsigned int all = ALL | NTKL_OPT_STACKWALK | NTKL_OPT_PROFILE;
	struct ntkl_logger_opts o;
	char err[512], names[256];
	int ret, i;

	test_begin("profile_cpu");
	{
		char *argv[] = { "-profile", "CPU", "-f", "x.etl", NULL };

		i = take_all(argv, all, &o, &ret, err, sizeof(err));
		CHECK_EQ(i, 4);
		CHECK_STR(err, "");
		CHECK_EQ(o.flags.enable_flags, proc_thread | EVENT_TRACE_FLAG_IMAGE_LOAD |
			 EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER |
			 EVENT_TRACE_FLAG_PROFILE | EVENT_TRACE_FLAG_DPC |
			 EVENT_TRACE_FLAG_INTERRUPT);
		CHECK(hooks_are(&o.stackwalk, three, 3));
		CHECK(o.seen & NTKL_OPT_ON);
		CHECK(o.seen & NTKL_OPT_STACKWALK);
		CHECK_STR(o.profile, "cpu");
	}
	test_end();

	test_begin("profile_latency");
	{
		char *argv[] = { "-profile=latency", NULL };

		take_all(argv, all, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		CHECK_EQ(o.flags.enable_flags, proc_thread | EVENT_TRACE_FLAG_IMAGE_LOAD |
			 EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER |
			 EVENT_TRACE_FLAG_DPC | EVENT_TRACE_FLAG_INTERRUPT);
		CHECK(hooks_are(&o.stackwalk, two, 2));
	}
	test_end();

	/* the user's -on and -stackwalk win, before or after -profile */
	test_begin("profile_own_on_and_stackwalk_win");
	{
		char *before[] = { "-on", "CSWITCH", "-stackwalk", "CSwitch", "-profile", "cpu", NULL };
		char *after[] = { "-profile", "cpu", "-on", "CSWITCH", "-stackwalk", "CSwitch", NULL };
		const uint16_t cs[] = { NTKL_STACK_HOOK_CSWITCH };

		take_all(before, all, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		CHECK_EQ(o.flags.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
		CHECK(hooks_are(&o.stackwalk, cs, 1));
		take_all(after, all, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		CHECK_EQ(o.flags.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
		CHECK(hooks_are(&o.stackwalk, cs, 1));
	}
	test_end();

	test_begin("profile_none_stacks_and_unknown");
	{
		char *argv[] = { "-profile", "dpcisr", NULL };

		take_all(argv, all, &o, &ret, err, sizeof(err));
		CHECK_STR(err, "");
		CHECK_EQ(o.stackwalk.count, 0);
		CHECK(o.seen & NTKL_OPT_STACKWALK);
		take_all((char *[]){ "-profile", "fast", NULL }, all, &o, &ret, err, sizeof(err));
		CHECK_EQ(ret, (unsigned long long)-1);
		CHECK_STR(err, "unknown -profile 'fast': the profiles are general, cpu, latency, dpcisr, spinlock, diskio, fileio, network, memory, power");
		CHECK_STR(ntkl_profile_names(names, sizeof(names)),
			  "general, cpu, latency, dpcisr, spinlock, diskio, fileio, network, memory, power");
		/* not an option of a command without it (update) */
		i = 0;
		memset(&o, 0, sizeof(o));
		CHECK_EQ(ntkl_opts_take(2, (char *[]){ "-profile", "cpu", NULL }, &i, ALL, &o,
					err, sizeof(err)), 0);
	}
	test_end();

	/* every profile's flags and hooks parse (a typo in the table fails here) */
	for (const struct ntkl_profile *p = ntkl_profiles; p->name; p++) {
		test_begin("profile_%s_parses", p->name);
		take_all((char *[]){ "-profile", (char *)p->name, NULL }, all, &o, &ret, err,
			 sizeof(err));
		CHECK_EQ(ret, 1);
		CHECK_STR(err, "");
		CHECK(ntkl_flags_record_any(&o.flags));
		test_end();
	}
}

int main(void)
{
	test_parse();
	test_errors();
	test_profiles();
	return test_exit();
}
