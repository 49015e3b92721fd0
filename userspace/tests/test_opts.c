// SPDX-License-Identifier: GPL-2.0
/*
 * The logger options of ntkl start, record and update: xperf spellings,
 * values as the next argument or after '=', and the refusals.
 */
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

int main(void)
{
	test_parse();
	test_errors();
	return test_exit();
}
