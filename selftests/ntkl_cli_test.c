// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_cli_test: the ntkl command as a user types it, in the test VM:
 * record, start/stop with a background writer, query/list/flush/update,
 * buffering mode with save, spinlock-config, PROFILE with -setprofint and
 * profile-interval, -stackwalk, and the error messages. Every
 * file written must pass `ntkl dump --check`, with BuffersWritten equal to
 * the buffers in the file.
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include "kselftest_harness.h"
#include "ntkl_util.h"

/* Run a shell command; its exit status, its output (stdout and stderr) in out. */
static int sh(char *out, size_t size, const char *fmt, ...)
{
	char cmd[1024];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (out) {
		n = fread(out, 1, size - 1, p);
		out[n] = 0;
	}
	/* read the rest too, or the command dies of SIGPIPE */
	{
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), p) > 0)
			;
	}
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `ntkl dump --check` passes and the header counts every buffer. */
static bool file_ok(const char *path, char *why, size_t size)
{
	char out[4096];
	struct stat st;
	unsigned long written = 0;
	char *p;

	if (sh(out, sizeof(out), "ntkl dump --check %s", path)) {
		snprintf(why, size, "%s", out);
		return false;
	}
	if (sh(out, sizeof(out), "ntkl dump %s", path) || stat(path, &st)) {
		snprintf(why, size, "ntkl dump %s failed", path);
		return false;
	}
	p = strstr(out, "BuffersWritten:");
	if (p)
		written = strtoul(p + strlen("BuffersWritten:"), NULL, 10);
	p = strstr(out, "BufferSize:");
	if (!p || !written ||
	    (unsigned long)st.st_size != written * strtoul(p + strlen("BufferSize:"), NULL, 10)) {
		snprintf(why, size, "BuffersWritten %lu does not match the file size %lld",
			 written, (long long)st.st_size);
		return false;
	}
	return true;
}

TEST(record_fork_exec)
{
	char out[65536], why[4096];

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl record -on PROC_THREAD -o /tmp/r.etl -- sh -c 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done'"))
		TH_LOG("%s", out);
	EXPECT_TRUE(file_ok("/tmp/r.etl", why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/r.etl | grep -q 'ImageFileName=\"true\"'"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/r.etl | grep -q Thread/Start"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/r.etl | grep -q Process/End"));
	/* COMMAND's exit status is record's */
	EXPECT_EQ(7, sh(NULL, 0, "ntkl record -on PROC_THREAD -o /tmp/r7.etl -- sh -c 'exit 7'"));
	EXPECT_TRUE(file_ok("/tmp/r7.etl", why, sizeof(why))) TH_LOG("%s", why);
}

TEST(start_query_flush_stop)
{
	char out[8192], why[4096];

	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl start cli -on PROC_THREAD+CSWITCH -f /tmp/s.etl"))
		TH_LOG("%s", out);
	sh(NULL, 0, "ls -R /proc/self > /dev/null");
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl query cli"));
	EXPECT_NE(NULL, strstr(out, "cli"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl list"));
	EXPECT_NE(NULL, strstr(out, "cli"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl flush cli"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl update cli -on PROC_THREAD+COMPACT_CSWITCH -flushtimer 1"))
		TH_LOG("%s", out);
	sh(NULL, 0, "ls -R /proc/self > /dev/null");
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl stop cli")) TH_LOG("%s", out);
	EXPECT_TRUE(file_ok("/tmp/s.etl", why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --stats /tmp/s.etl"));
	/* both forms: CSwitch before the update, CompCS after */
	EXPECT_NE(NULL, strstr(out, "CSwitch"));
	EXPECT_NE(NULL, strstr(out, "CompCS"));
}

TEST(buffering_save)
{
	char out[8192], why[4096];

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl start fr -on PROC_THREAD -buffering -buffersize 4 -maxbuffers 8"))
		TH_LOG("%s", out);
	sh(NULL, 0, "for i in $(seq 1 40); do /bin/true; done");
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl save fr /tmp/fr1.etl")) TH_LOG("%s", out);
	sh(NULL, 0, "for i in $(seq 1 10); do /bin/true; done");
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl save fr /tmp/fr2.etl")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl stop fr")) TH_LOG("%s", out);
	EXPECT_TRUE(file_ok("/tmp/fr1.etl", why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_TRUE(file_ok("/tmp/fr2.etl", why, sizeof(why))) TH_LOG("%s", why);
}

TEST(spinlock_config)
{
	char out[4096];

	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl spinlock-config contention=3 spin=2"));
	EXPECT_NE(NULL, strstr(out, "SpinLockContentionSampleRate: 3"));
	EXPECT_EQ(2, sh(out, sizeof(out), "ntkl spinlock-config acquire=10"));
	EXPECT_NE(NULL, strstr(out, "acquire=N needs N >= 1000"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl spinlock-config -defaults"));
	EXPECT_NE(NULL, strstr(out, "SpinLockContentionSampleRate: 1"));
}

/* -on PROFILE -setprofint: samples the dump names and counts, at that interval. */
TEST(profile)
{
	char out[16384], why[4096];

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl record -on PROC_THREAD+PROFILE -setprofint 20000 -o /tmp/p.etl -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'"))
		TH_LOG("%s", out);
	EXPECT_TRUE(file_ok("/tmp/p.etl", why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/p.etl | grep -q 'PerfInfo/SampleProf'"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/p.etl | grep -q 'SampledProfile: InstructionPointer=0x'"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/p.etl | grep -q 'NewInterval=20000 OldInterval=20000 SourceName=\"Timer\"'"));
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --stats /tmp/p.etl"));
	EXPECT_NE(NULL, strstr(out, "interval 20000 x 100 ns")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Threads by samples"));
	EXPECT_NE(NULL, strstr(out, "  sh\n")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl profile-interval"));
	EXPECT_NE(NULL, strstr(out, "Profile interval: 20000"));
	EXPECT_EQ(2, sh(out, sizeof(out), "ntkl profile-interval 1000"));
	EXPECT_NE(NULL, strstr(out, "1221..10000000"));
	EXPECT_EQ(2, sh(out, sizeof(out), "ntkl record -on PROFILE -setprofint 99999999 -o /tmp/q.etl -- true"));
	EXPECT_NE(NULL, strstr(out, "out of bounds"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl profile-interval -default"));
	EXPECT_NE(NULL, strstr(out, "Profile interval: 10000"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl help start"));
	EXPECT_NE(NULL, strstr(out, "PROFILE"));
	EXPECT_NE(NULL, strstr(out, "-setprofint N"));
}

/* -stackwalk: stacks in the file, the list in query, update, errors. */
TEST(stackwalk)
{
	char out[16384], why[4096];

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl record -on PROC_THREAD+LOADER+CSWITCH+PROFILE+DISPATCHER -stackwalk Profile+CSwitch+ReadyThread -o /tmp/st.etl -- threadmix 4 100"))
		TH_LOG("%s", out);
	EXPECT_TRUE(file_ok("/tmp/st.etl", why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/st.etl | grep -q 'StackWalk/Stack (0x1820 PERFINFO64 v2'"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --events /tmp/st.etl | grep -q '  frame 0: 0x'"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl dump --stats /tmp/st.etl | grep -q '0x1820 StackWalk/Stack'"));

	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl start clist -on CSWITCH+PROFILE -stackwalk 0x0f2e -buffering"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl query clist"));
	EXPECT_NE(NULL, strstr(out, "Stack Walk            : Profile\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Stacks Truncated      : 0\n")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl update clist -stackwalk cswitch+ReadyThread"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl query clist"));
	EXPECT_NE(NULL, strstr(out, "Stack Walk            : CSwitch+ReadyThread\n")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl update clist -stackwalk none"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl query clist"));
	EXPECT_NE(NULL, strstr(out, "Stack Walk            : none\n")) TH_LOG("%s", out);
	/* a name xperf has but ntkl cannot walk, a hook the module refuses */
	EXPECT_EQ(2, sh(out, sizeof(out), "ntkl update clist -stackwalk DiskIo"));
	EXPECT_NE(NULL, strstr(out, "unknown stack walk event 'DiskIo'")) TH_LOG("%s", out);
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl update clist -stackwalk 0x0301"));
	EXPECT_NE(NULL, strstr(out, "cannot walk the stacks of 0x0301")) TH_LOG("%s", out);
	EXPECT_EQ(0, sh(NULL, 0, "ntkl stop clist"));
	/* start refused: no logger left running */
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl start clist2 -on CSWITCH -stackwalk 0x0301 -buffering"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl list"));
	EXPECT_EQ(NULL, strstr(out, "clist2")) TH_LOG("%s", out);
}

TEST(error_messages)
{
	char out[4096];

	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl start dup -on PROC_THREAD -buffering"));
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl start DUP -on PROC_THREAD -buffering"));
	EXPECT_NE(NULL, strstr(out, "ERROR_ALREADY_EXISTS"));
	EXPECT_EQ(0, sh(NULL, 0, "ntkl stop dup"));
	EXPECT_EQ(1, sh(out, sizeof(out), "ntkl stop nosuch"));
	EXPECT_NE(NULL, strstr(out, "ERROR_WMI_INSTANCE_NOT_FOUND"));
	EXPECT_NE(0, sh(out, sizeof(out), "ntkl start big -on PROC_THREAD -buffersize 99999 -buffering"));
	EXPECT_NE(NULL, strstr(out, "4..16384 KB"));
	EXPECT_EQ(2, sh(out, sizeof(out), "ntkl start x -on NOPE -buffering"));
	EXPECT_NE(NULL, strstr(out, "PROC_THREAD"));
	EXPECT_EQ(0, sh(out, sizeof(out), "ntkl list"));
	EXPECT_EQ(NULL, strstr(out, "big"));
}

TEST_HARNESS_MAIN
