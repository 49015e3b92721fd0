// SPDX-License-Identifier: GPL-2.0
/*
 * The message of a failed control call: the ETW error each errno stands
 * for (uapi/ntkl.h's map), and advice that names the logger, the bound
 * that was crossed, or what to run.
 */
#include <errno.h>

#include "test.h"
#include "ctl/ntkl_ctl.h"
#include "ctl/ntkl_errors.h"

static const char *line(const struct ntkl_error_ctx *ctx, const char *what, int err)
{
	static char buf[1024];

	return ntkl_error_format(ctx, what, err, buf, sizeof(buf));
}

static void test_names(void)
{
	test_begin("etw_names");
	CHECK_STR(ntkl_etw_error_name(EEXIST, NTKL_OP_START), "ERROR_ALREADY_EXISTS");
	CHECK_STR(ntkl_etw_error_name(ENOSPC, NTKL_OP_START), "ERROR_NO_SYSTEM_RESOURCES");
	CHECK_STR(ntkl_etw_error_name(ENOENT, NTKL_OP_STOP), "ERROR_WMI_INSTANCE_NOT_FOUND");
	CHECK_STR(ntkl_etw_error_name(ENOENT, NTKL_OP_OPEN), "ERROR_FILE_NOT_FOUND");
	CHECK_STR(ntkl_etw_error_name(ENODEV, NTKL_OP_OPEN), "ERROR_DEV_NOT_EXIST");
	CHECK_STR(ntkl_etw_error_name(EINVAL, NTKL_OP_START), "ERROR_INVALID_PARAMETER");
	CHECK_STR(ntkl_etw_error_name(EPERM, NTKL_OP_QUERY), "ERROR_ACCESS_DENIED");
	CHECK_STR(ntkl_etw_error_name(EACCES, NTKL_OP_OPEN), "ERROR_ACCESS_DENIED");
	CHECK_STR(ntkl_etw_error_name(E2BIG, NTKL_OP_LIST), "ERROR_MORE_DATA");
	CHECK_STR(ntkl_etw_error_name(EBUSY, NTKL_OP_BIND), "ERROR_ACTIVE_CONNECTIONS");
	CHECK_STR(ntkl_etw_error_name(ENOTTY, NTKL_OP_QUERY), "ERROR_NOT_SUPPORTED");
	CHECK_STR(ntkl_etw_error_name(ENOMEM, NTKL_OP_START), "ERROR_NOT_ENOUGH_MEMORY");
	CHECK_STR(ntkl_etw_error_name(-EEXIST, NTKL_OP_START), "ERROR_ALREADY_EXISTS");
	CHECK_STR(ntkl_etw_error_name(EDOM, NTKL_OP_START), "ERROR_GEN_FAILURE");
	test_end();
}

static void test_lines(void)
{
	struct ntkl_error_ctx ctx = { .cmd = "start", .op = NTKL_OP_START, .logger = "foo" };
	const char *s;

	test_begin("already_exists");
	CHECK_STR(line(&ctx, "cannot start logger foo", -EEXIST),
		  "ntkl start: cannot start logger foo: File exists (ERROR_ALREADY_EXISTS): a logger named foo is running: stop it (ntkl stop foo) or pick another name");
	test_end();

	test_begin("all_loggers_in_use");
	CHECK_STR(line(&ctx, "cannot start logger foo", ENOSPC),
		  "ntkl start: cannot start logger foo: No space left on device (ERROR_NO_SYSTEM_RESOURCES): all 64 loggers are in use: ntkl list");
	test_end();

	test_begin("no_such_logger");
	ctx.cmd = "stop";
	ctx.op = NTKL_OP_STOP;
	CHECK_STR(line(&ctx, "cannot stop logger foo", ENOENT),
		  "ntkl stop: cannot stop logger foo: No such file or directory (ERROR_WMI_INSTANCE_NOT_FOUND): no logger named foo is running: ntkl list shows those that are");
	test_end();

	test_begin("module_not_loaded");
	ctx.op = NTKL_OP_OPEN;
	CHECK_STR(line(&ctx, "cannot open /dev/ntkl", -ENOENT),
		  "ntkl stop: cannot open /dev/ntkl: No such file or directory (ERROR_FILE_NOT_FOUND): the ntkl module is not loaded: modprobe ntkl (or scripts/vm-run)");
	s = line(&ctx, "cannot open /dev/ntkl", -ENODEV);
	CHECK_HAS(s, "(ERROR_DEV_NOT_EXIST): the ntkl module is not loaded");
	test_end();

	test_begin("access_denied");
	for (int op = NTKL_OP_OPEN; op <= NTKL_OP_READ; op++) {
		ctx.op = op;
		CHECK_HAS(line(&ctx, "x", EPERM),
			  "(ERROR_ACCESS_DENIED): needs CAP_PERFMON (or CAP_SYS_ADMIN): run as root, or sudo setcap cap_perfmon+ep $(command -v ntkl)");
		/* the device's permissions (the group), else another's logger */
		CHECK_HAS(line(&ctx, "x", EACCES), op == NTKL_OP_OPEN ?
			  "(ERROR_ACCESS_DENIED): /dev/ntkl is for root and the group tracing" :
			  "(ERROR_ACCESS_DENIED): logger foo belongs to another user: only its owner or root (CAP_SYS_ADMIN) may");
	}
	test_end();

	test_begin("access_denied_names_owner");
	{
		struct ntkl_properties cur;

		ntkl_props_init(&cur, "foo");
		cur.owner_uid = 0;	/* root is in every /etc/passwd */
		ctx.op = NTKL_OP_STOP;
		ctx.current = &cur;
		CHECK_STR(line(&ctx, "cannot stop logger foo", EACCES),
			  "ntkl stop: cannot stop logger foo: Permission denied (ERROR_ACCESS_DENIED): logger foo belongs to root: only its owner or root (CAP_SYS_ADMIN) may stop, change, flush or read it; ask them, or run as root");
		cur.owner_uid = 4000000000u;	/* in no /etc/passwd */
		CHECK_HAS(line(&ctx, "x", EACCES), "logger foo belongs to uid 4000000000: only");
		/* an ABI 3 module says no owner */
		cur.size = NTKL_PROPERTIES_SIZE_VER0;
		CHECK_HAS(line(&ctx, "x", EACCES), "logger foo belongs to another user:");
		ctx.current = NULL;
	}
	ctx.op = NTKL_OP_PROFILE_INTERVAL;
	ctx.machine_wide = 1;
	CHECK_HAS(line(&ctx, "x", EPERM),
		  "(ERROR_ACCESS_DENIED): this setting is machine-wide: changing it needs CAP_SYS_ADMIN (run as root)");
	ctx.machine_wide = 0;
	test_end();

	test_begin("one_reader");
	ctx.cmd = "save";
	ctx.op = NTKL_OP_BIND;
	s = line(&ctx, "cannot read logger foo", EBUSY);
	CHECK_HAS(s, "Device or resource busy (ERROR_ACTIVE_CONNECTIONS): logger foo already has a reader");
	CHECK_HAS(s, "ntkl query foo");
	test_end();

	test_begin("no_advice_no_colon");
	ctx.op = NTKL_OP_READ;
	CHECK_STR(line(&ctx, "reading", EDOM),
		  "ntkl save: reading: Numerical argument out of domain (ERROR_GEN_FAILURE)");
	test_end();

	test_begin("no_logger_name");
	ctx.logger = NULL;
	ctx.op = NTKL_OP_START;
	CHECK_HAS(line(&ctx, "x", EEXIST), "a logger with that name is running");
	ctx.op = NTKL_OP_QUERY;
	CHECK_HAS(line(&ctx, "x", ENOENT), "no such logger is running");
	test_end();

	test_begin("spinlock_bounds");
	ctx.cmd = "spinlock-config";
	ctx.op = NTKL_OP_SPINLOCK;
	CHECK_STR(line(&ctx, "cannot set the spin lock settings", EINVAL),
		  "ntkl spinlock-config: cannot set the spin lock settings: Invalid argument (ERROR_INVALID_PARAMETER): spin=N needs N >= 1, acquire=N >= 1000, contention=N >= 1, hold=N 0 or >= 1000000");
	ctx.cmd = "save";
	test_end();

	test_begin("profile_not_supported");
	ctx.op = NTKL_OP_START;
	CHECK_HAS(line(&ctx, "x", EOPNOTSUPP), "(ERROR_NOT_SUPPORTED): PROFILE needs a perf");
	ctx.op = NTKL_OP_PROFILE_INTERVAL;
	CHECK_HAS(line(&ctx, "x", EINVAL), "1221..10000000 (100 ns units");
	test_end();

	test_begin("truncated_line");
	{
		char small[20];

		ctx.op = NTKL_OP_START;
		ntkl_error_format(&ctx, "cannot start", EEXIST, small, sizeof(small));
		CHECK_STR(small, "ntkl save: cannot s");
	}
	test_end();
}

static void test_bounds(void)
{
	struct ntkl_properties p, cur;
	struct ntkl_error_ctx ctx = {
		.cmd = "start", .op = NTKL_OP_START, .logger = "foo", .asked = &p,
	};
	char buf[512];

	test_begin("buffersize_too_small");
	ntkl_props_init(&p, "foo");
	p.buffer_size_kb = 2;
	CHECK_STR(line(&ctx, "cannot start logger foo", EINVAL),
		  "ntkl start: cannot start logger foo: Invalid argument (ERROR_INVALID_PARAMETER): -buffersize 2 is outside 4..16384 KB");
	test_end();

	test_begin("buffersize_too_big");
	p.buffer_size_kb = 16385;
	CHECK_HAS(line(&ctx, "x", EINVAL), "-buffersize 16385 is outside 4..16384 KB");
	p.buffer_size_kb = 16384;
	CHECK(!strstr(line(&ctx, "x", EINVAL), "-buffersize 16384"));
	test_end();

	test_begin("buffers");
	ntkl_props_init(&p, "foo");
	p.minimum_buffers = 100;
	p.maximum_buffers = 10;
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "-minbuffers 100 is above -maxbuffers 10");
	p.minimum_buffers = 0;
	p.maximum_buffers = 5000;
	CHECK_STR(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "-maxbuffers 5000 is above 4096");
	test_end();

	test_begin("stack_caching_older_module");
	ntkl_props_init(&p, "foo");
	p.logger_options = NTKL_LOGGER_OPT_STACK_CACHING;
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "needs a module of control ABI 6 or later");
	/* caching may be the default the user never asked for: the way out */
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)), "or give -nostackcaching");
	/* a bound it breaks is the reason, not the option */
	p.buffer_size_kb = 2;
	CHECK_STR(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "-buffersize 2 is outside 4..16384 KB");
	test_end();

	test_begin("several_problems");
	ntkl_props_init(&p, "foo");
	p.buffer_size_kb = 1;
	p.flush_timer = 4000;
	CHECK_STR(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "-buffersize 1 is outside 4..16384 KB; -flushtimer 4000 is above 3600 s");
	test_end();

	test_begin("flush_timer_in_ms");
	ntkl_props_init(&p, "foo");
	p.log_file_mode = NTKL_MODE_MS_FLUSH_TIMER;
	p.flush_timer = 4000;		/* 4 s in ms: fine */
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)), "the bounds are");
	test_end();

	test_begin("clock_mode_name");
	ntkl_props_init(&p, "");
	p.clock_type = 7;
	p.log_file_mode = 0x2;
	ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf));
	CHECK_HAS(buf, "logger names are 1..127 bytes");
	CHECK_HAS(buf, "clock type 7");
	CHECK_HAS(buf, "log file mode 0x2");
	test_end();

	test_begin("nothing_identified");
	ntkl_props_init(&p, "foo");
	CHECK_STR(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "the bounds are -buffersize 4..16384 KB, -minbuffers and -maxbuffers up to 4096 (minimum <= maximum), -flushtimer 0..3600 s, -clock qpc|system|cycle");
	ctx.asked = NULL;
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)), "the bounds are");
	test_end();

	test_begin("update_bounds");
	ctx.cmd = "update";
	ctx.op = NTKL_OP_UPDATE;
	ctx.asked = &p;
	ctx.current = &cur;
	ntkl_props_init(&cur, "foo");
	cur.number_of_buffers = 16;
	cur.maximum_buffers = 16;
	ntkl_props_init(&p, "foo");
	p.maximum_buffers = 4000;
	CHECK_STR(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "-maxbuffers 4000: a running logger keeps the buffers it started with (-maxbuffers 16); stop it and start it with -maxbuffers 4000");
	p.maximum_buffers = 16;
	CHECK_HAS(ntkl_error_advice(&ctx, EINVAL, buf, sizeof(buf)),
		  "a running logger changes only -on and -flushtimer");
	test_end();

	test_begin("name_too_long");
	ntkl_props_init(&p, NULL);
	{
		char name[200];

		memset(name, 'x', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		CHECK_EQ(ntkl_props_set_name(&p, name), (unsigned long long)-ENAMETOOLONG);
		CHECK_EQ(p.size, sizeof(p));
		name[127] = '\0';
		CHECK_EQ(ntkl_props_set_name(&p, name), 0);
		CHECK_EQ(strlen(p.logger_name), 127);
	}
	CHECK_HAS(line(&ctx, "x", ENAMETOOLONG), "(ERROR_INVALID_PARAMETER): logger names are 1..127 bytes");
	test_end();
}

int main(void)
{
	test_names();
	test_lines();
	test_bounds();
	return test_exit();
}
