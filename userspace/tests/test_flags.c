// SPDX-License-Identifier: GPL-2.0
/*
 * -on FLAGS: every name, numbers (EnableFlags and group constants), the
 * errors a user can make, and the names query and list print back, which
 * must parse to the same flags again.
 */
#include "test.h"
#include "ctl/ntkl_flags.h"

static struct ntkl_flags parse_ok(const char *spec)
{
	struct ntkl_flags f;
	char err[512] = "";

	if (ntkl_flags_parse(spec, &f, err, sizeof(err)))
		test_fail("'%s' refused: %s", spec, err);
	return f;
}

/* The error of a spec that must be refused ("" if it was accepted). */
static const char *parse_err(const char *spec, char *err, size_t size)
{
	struct ntkl_flags f;

	err[0] = '\0';
	if (!ntkl_flags_parse(spec, &f, err, size)) {
		test_fail("'%s' accepted", spec);
		err[0] = '\0';
	}
	return err;
}

static bool masks_zero(const struct ntkl_flags *f, int from)
{
	for (int i = from; i < PERF_NUM_MASKS; i++)
		if (f->group_masks[i])
			return false;
	return true;
}

static void test_names(void)
{
	struct ntkl_flags f;

	test_begin("proc_thread");
	f = parse_ok("PROC_THREAD");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	CHECK(masks_zero(&f, 0));
	test_end();

	test_begin("process_thread_apart");
	CHECK_EQ(parse_ok("PROCESS").enable_flags, EVENT_TRACE_FLAG_PROCESS);
	CHECK_EQ(parse_ok("THREAD").enable_flags, EVENT_TRACE_FLAG_THREAD);
	CHECK_EQ(parse_ok("PROCESS+THREAD").enable_flags, 3);
	test_end();

	test_begin("case_insensitive");
	f = parse_ok("proc_thread+CSwitch");
	CHECK_EQ(f.enable_flags, 0x13);
	CHECK(masks_zero(&f, 0));
	test_end();

	test_begin("cswitch");
	f = parse_ok("CSWITCH");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
	CHECK(masks_zero(&f, 0));
	test_end();

	test_begin("compact_cswitch_needs_both");
	f = parse_ok("COMPACT_CSWITCH");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
	CHECK_EQ(f.group_masks[1], PERF_GET_MASK_GROUP(PERF_COMPACT_CSWITCH));
	CHECK_EQ(f.group_masks[0], 0);
	CHECK(masks_zero(&f, 2));
	test_end();

	test_begin("dispatcher");
	f = parse_ok("DISPATCHER");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_DISPATCHER);
	CHECK(masks_zero(&f, 0));
	test_end();

	test_begin("spinlock_is_a_group");
	f = parse_ok("spinlock");
	CHECK_EQ(f.enable_flags, 0);
	CHECK_EQ(f.group_masks[1], 0x10000);
	CHECK(masks_zero(&f, 2));
	test_end();

	/* xperf's PROFILE is EnableFlags 0x01000000, which stands for PERF_PROFILE */
	test_begin("profile");
	f = parse_ok("PROC_THREAD+PROFILE");
	CHECK_EQ(f.enable_flags, 0x01000003);
	CHECK(masks_zero(&f, 1));
	CHECK_EQ(etw_enable_flag_group(EVENT_TRACE_FLAG_PROFILE), PERF_PROFILE);
	test_end();

	test_begin("repeated_names");
	f = parse_ok("CSWITCH+COMPACT_CSWITCH+CSWITCH");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_CSWITCH);
	CHECK_EQ(f.group_masks[1], 0x100);
	test_end();
}

static void test_numbers(void)
{
	struct ntkl_flags f;

	test_begin("group_constant");
	f = parse_ok("0x20010000");
	CHECK_EQ(f.enable_flags, 0);
	CHECK_EQ(f.group_masks[1], 0x10000);
	f = parse_ok("0x40000040");		/* PERF_SYSCALL: Masks[2] */
	CHECK_EQ(f.group_masks[2], 0x40);
	CHECK_EQ(f.group_masks[1], 0);
	f = parse_ok("0xE0000001");		/* the last mask */
	CHECK_EQ(f.group_masks[7], 1);
	test_end();

	test_begin("group_constant_several_bits");
	f = parse_ok("0x20000104");
	CHECK_EQ(f.group_masks[1], 0x104);
	test_end();

	test_begin("plain_number_is_enable_flags");
	f = parse_ok("0x3");
	CHECK_EQ(f.enable_flags, 3);
	CHECK(masks_zero(&f, 0));
	CHECK_EQ(parse_ok("16").enable_flags, 0x10);
	CHECK_EQ(parse_ok("0x1FFFFFFF").enable_flags, 0x1FFFFFFF);
	CHECK_EQ(parse_ok("0").enable_flags, 0);
	test_end();

	test_begin("names_and_numbers");
	f = parse_ok("PROC_THREAD+0x20000400+0x800");
	CHECK_EQ(f.enable_flags, 0x803);
	CHECK_EQ(f.group_masks[1], 0x400);
	test_end();
}

static void test_errors(void)
{
	char err[512], names[256];

	test_begin("unknown_name");
	parse_err("PROC_THREAD+FOO", err, sizeof(err));
	CHECK_HAS(err, "unknown flag 'FOO'");
	/* the message lists every valid name */
	for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++)
		CHECK_HAS(err, k->name);
	CHECK_HAS(err, "0x20010000");
	test_end();

	test_begin("names_list");
	CHECK_STR(ntkl_flag_names_list(names, sizeof(names)),
		  "PROC_THREAD, PROCESS, THREAD, COMPACT_CSWITCH, CSWITCH, DISPATCHER, SPINLOCK, LOADER, PROFILE, DPC, INTERRUPT, DISK_IO, DISK_IO_INIT, FILENAME, FILE_IO, FILE_IO_INIT, HARD_FAULTS, SYSCALL, NETWORKTRACE, MEMINFO_WS, ALL_FAULTS, VIRT_ALLOC");
	test_end();

	test_begin("empty_items");
	CHECK_HAS(parse_err("", err, sizeof(err)), "no flags");
	CHECK_HAS(parse_err("PROC_THREAD+", err, sizeof(err)), "empty flag name");
	CHECK_HAS(parse_err("+CSWITCH", err, sizeof(err)), "empty flag name");
	CHECK_HAS(parse_err("CSWITCH++THREAD", err, sizeof(err)), "empty flag name");
	test_end();

	test_begin("bad_numbers");
	CHECK_HAS(parse_err("0x1G", err, sizeof(err)), "bad flag number '0x1G'");
	CHECK_HAS(parse_err("0x100000000", err, sizeof(err)), "bad flag number");
	CHECK_HAS(parse_err("99999999999999999999999", err, sizeof(err)), "bad flag number");
	test_end();

	test_begin("group_constant_without_bits");
	CHECK_HAS(parse_err("0x20000000", err, sizeof(err)), "sets no bit");
	CHECK_HAS(err, "Masks[1]");
	test_end();

	test_begin("long_item");
	parse_err("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		  err, sizeof(err));
	CHECK_HAS(err, "unknown flag");
	test_end();

	test_begin("tiny_error_buffer");
	{
		char small[8];

		parse_err("NOPE", small, sizeof(small));
		CHECK_EQ(strlen(small), 7);
	}
	test_end();
}

/* What the module does at START: some EnableFlags bits set a group too. */
static struct ntkl_flags as_module_stores(struct ntkl_flags f)
{
	f.group_masks[0] |= f.enable_flags;
	if (f.enable_flags & EVENT_TRACE_FLAG_CSWITCH)
		f.group_masks[1] |= PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH);
	if (f.enable_flags & EVENT_TRACE_FLAG_DISPATCHER)
		f.group_masks[1] |= PERF_GET_MASK_GROUP(PERF_DISPATCHER);
	if (f.enable_flags & EVENT_TRACE_FLAG_PROFILE)
		f.group_masks[1] |= PERF_GET_MASK_GROUP(PERF_PROFILE);
	f.enable_flags = f.group_masks[0];
	return f;
}

static void check_format(const char *spec, const char *want)
{
	struct ntkl_flags stored = as_module_stores(parse_ok(spec)), again;
	char buf[256];

	CHECK_STR(ntkl_flags_format(&stored, buf, sizeof(buf)), want);
	/* what we print parses back to the same logger settings */
	again = as_module_stores(parse_ok(buf));
	CHECK(!memcmp(&again, &stored, sizeof(again)));
}

static void test_format(void)
{
	struct ntkl_flags none = { 0 };
	char buf[256];

	test_begin("format_names");
	check_format("PROC_THREAD", "PROC_THREAD");
	check_format("PROCESS", "PROCESS");
	check_format("thread", "THREAD");
	check_format("PROCESS+THREAD", "PROC_THREAD");
	check_format("SPINLOCK+PROC_THREAD+CSWITCH", "PROC_THREAD+CSWITCH+SPINLOCK");
	check_format("COMPACT_CSWITCH", "COMPACT_CSWITCH");
	check_format("COMPACT_CSWITCH+CSWITCH", "COMPACT_CSWITCH");
	check_format("DISPATCHER+CSWITCH", "CSWITCH+DISPATCHER");
	check_format("LOADER+PROC_THREAD", "PROC_THREAD+LOADER");
	check_format("PROFILE+PROC_THREAD", "PROC_THREAD+PROFILE");
	test_end();

	test_begin("format_numbers");
	check_format("0x20000400", "0x20000400");
	check_format("PROC_THREAD+0x20000400+0x40000040", "PROC_THREAD+0x20000400+0x40000040");
	check_format("0x8", "0x8");
	check_format("0x4", "LOADER");
	check_format("0x20010000", "SPINLOCK");
	test_end();

	test_begin("format_none");
	CHECK_STR(ntkl_flags_format(&none, buf, sizeof(buf)), "none");
	test_end();

	test_begin("format_truncates_cleanly");
	{
		struct ntkl_flags f = as_module_stores(parse_ok("PROC_THREAD+CSWITCH+SPINLOCK"));
		char small[16];

		ntkl_flags_format(&f, small, sizeof(small));
		CHECK_STR(small, "PROC_THREAD");
	}
	test_end();

	test_begin("groups_format");
	{
		struct ntkl_flags f = as_module_stores(parse_ok("PROC_THREAD+CSWITCH+SPINLOCK"));

		CHECK_STR(ntkl_groups_format(f.group_masks, buf, sizeof(buf)),
			  "PROCESS|THREAD|CONTEXT_SWITCH|SPINLOCK");
		f = parse_ok("0x20000001+0x40000040");
		CHECK_STR(ntkl_groups_format(f.group_masks, buf, sizeof(buf)),
			  "SYSCALL|0x20000001");
		CHECK_STR(ntkl_groups_format(none.group_masks, buf, sizeof(buf)), "none");
	}
	test_end();

	test_begin("help_text");
	{
		char *text = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		ntkl_flags_help(out, "      ");
		fclose(out);
		for (const struct ntkl_flag_keyword *k = ntkl_flag_keywords; k->name; k++) {
			char want[64];

			snprintf(want, sizeof(want), "        %-16s %s\n", k->name, k->help);
			CHECK_HAS(text, want);
		}
		CHECK_HAS(text, "0x20010000");
		CHECK_HAS(text, "Latency      PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+\n"
			  "                     CSWITCH+PROFILE\n");
		/* usage texts fit an 80-column terminal */
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			CHECK(strlen(line) < 80);
		free(text);
	}
	test_end();

	test_begin("enable_flag_names");
	CHECK_STR(etl_flags_str(ntkl_enable_flag_names, 0x813, buf, sizeof(buf)),
		  "PROCESS|THREAD|CSWITCH|DISPATCHER");
	test_end();
}

/* DPC, INTERRUPT and xperf's kernel groups (`xperf -providers KG`). */
static void test_dpc_and_groups(void)
{
	struct ntkl_flags f;
	char w[2048];

	test_begin("dpc_interrupt");
	f = parse_ok("DPC+interrupt");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_DPC | EVENT_TRACE_FLAG_INTERRUPT);
	CHECK_EQ(f.enable_flags, 0x60);
	CHECK(masks_zero(&f, 0));
	CHECK(ntkl_flags_record_any(&f));
	test_end();

	/* xperf: PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+CSWITCH+PROFILE */
	test_begin("latency_group");
	f = parse_ok("Latency");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
		 EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_DISK_IO | EVENT_TRACE_FLAG_DPC |
		 EVENT_TRACE_FLAG_INTERRUPT | EVENT_TRACE_FLAG_CSWITCH |
		 EVENT_TRACE_FLAG_PROFILE | EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS);
	CHECK(masks_zero(&f, 1));
	/* all of it recorded since issue 36: no warning */
	CHECK_EQ(ntkl_flags_warnings("Latency", &f, w, sizeof(w)), 0);
	CHECK_STR(w, "");
	test_end();

	test_begin("groups_case_insensitive_and_combined");
	f = parse_ok("sysprof+DIAGEASY+spinlock");
	CHECK_EQ(f.enable_flags, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
		 EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_PROFILE | EVENT_TRACE_FLAG_DISK_IO |
		 EVENT_TRACE_FLAG_DPC | EVENT_TRACE_FLAG_INTERRUPT | EVENT_TRACE_FLAG_CSWITCH |
		 EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS);
	CHECK_EQ(f.group_masks[1], 0x10000);
	/* SysProf is all recorded: one line, DiagEasy's */
	CHECK_EQ(ntkl_flags_warnings("sysprof+DIAGEASY+spinlock", &f, w, sizeof(w)), 1);
	CHECK_STR(w, "ntkl: DiagEasy: PERF_COUNTER not recorded by "
		  "ntkl (recording PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+CSWITCH)\n");
	test_end();

	test_begin("diag_takes_compact_cswitch");
	f = parse_ok("Diag");
	CHECK_EQ(f.group_masks[1], PERF_GET_MASK_GROUP(PERF_COMPACT_CSWITCH));
	test_end();

	test_begin("every_group_parses");
	{
		static const char *const groups[] = {
			"Base", "Diag", "DiagEasy", "Latency", "FileIO", "IOTrace",
			"ResumeTrace", "SysProf", "ResidentSet", "ReferenceSet", "Network",
		};

		for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
			f = parse_ok(groups[i]);
			/* each has PROC_THREAD+LOADER at least */
			CHECK_EQ(f.enable_flags & 7, 7);
			CHECK(ntkl_flags_record_any(&f));
		}
	}
	test_end();

	/* issue 13: warn when the flags select nothing ntkl records */
	test_begin("warn_nothing_recorded");
	f = parse_ok("0x0");
	CHECK(!ntkl_flags_record_any(&f));
	CHECK_EQ(ntkl_flags_warnings("0x0", &f, w, sizeof(w)), 1);
	CHECK(strstr(w, "ntkl: -on 0x0 selects no event ntkl records") == w);
	f = parse_ok("0x20000");		/* REGISTRY: not recorded */
	CHECK_EQ(ntkl_flags_warnings("0x20000", &f, w, sizeof(w)), 1);
	f = parse_ok("0x10000");		/* NETWORK_TCPIP: TcpIp, UdpIp */
	CHECK(ntkl_flags_record_any(&f));
	CHECK_EQ(ntkl_flags_warnings("0x10000", &f, w, sizeof(w)), 0);
	f = parse_ok("0x20000040");		/* PERF_POOL: not recorded */
	CHECK(!ntkl_flags_record_any(&f));
	f = parse_ok("0x40000040");		/* PERF_SYSCALL: SysClEnter, SysClExit */
	CHECK(ntkl_flags_record_any(&f));
	CHECK_EQ(ntkl_flags_warnings("0x40000040", &f, w, sizeof(w)), 0);
	/* 0xffffffff is a group constant: every group of Masks[7], none recorded */
	f = parse_ok("0xffffffff");
	CHECK(!ntkl_flags_record_any(&f));
	CHECK_EQ(ntkl_flags_warnings("0xffffffff", &f, w, sizeof(w)), 1);
	/* every EnableFlags bit: partial, but records */
	f = parse_ok("0x1fffffff");
	CHECK(ntkl_flags_record_any(&f));
	CHECK_EQ(ntkl_flags_warnings("0x1fffffff", &f, w, sizeof(w)), 0);
	CHECK_STR(w, "");
	f = parse_ok("PROC_THREAD+CSWITCH");
	CHECK_EQ(ntkl_flags_warnings("PROC_THREAD+CSWITCH", &f, w, sizeof(w)), 0);
	f = parse_ok("SPINLOCK");
	CHECK(ntkl_flags_record_any(&f));
	test_end();

	test_begin("format_dpc_interrupt");
	f = parse_ok("PROC_THREAD+DPC+INTERRUPT");
	CHECK_STR(ntkl_flags_format(&f, w, sizeof(w)), "PROC_THREAD+DPC+INTERRUPT");
	test_end();
}

int main(void)
{
	test_dpc_and_groups();
	test_names();
	test_numbers();
	test_errors();
	test_format();
	return test_exit();
}
