// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_load_test: /dev/ntkl is a character device for root and its group (0660),
 * closed to others, and the module
 * survives repeated unload/reload without leaving kernel warnings behind,
 * also with all 64 loggers running under load.
 *
 * Runs as root in the test VM (scripts/vm-run), where $NTKL_KO names the
 * module file. The module is loaded when the test starts and is left loaded
 * when it ends, whatever the outcome.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ntkl_util.h"

#define NTKL_DEV		"/dev/" NTKL_DEVICE_NAME
#define NTKL_MODULE_NAME	"ntkl"
#define RELOAD_CYCLES		20
#define NODE_WAIT_MS		2000
#define NOBODY_ID		65534

static void sleep_ms(long ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * devtmpfs creates and removes the node before misc_register() and
 * misc_deregister() return, but allow some slack rather than fail on a slow
 * TCG guest. Returns true once the node's presence matches @present.
 */
static bool wait_for_node(bool present)
{
	struct stat st;
	int waited;

	for (waited = 0; waited <= NODE_WAIT_MS; waited += 10) {
		if ((stat(NTKL_DEV, &st) == 0) == present)
			return true;
		sleep_ms(10);
	}
	return false;
}

/* Can an unprivileged user open the device? Checked in a child process. */
static int open_as_nobody(void)
{
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) ||
		    setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID))
			_exit(100);
		fd = open(NTKL_DEV, O_RDWR);
		if (fd >= 0)
			_exit(0);
		_exit(errno == EACCES ? 1 : 101);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return WEXITSTATUS(status);
}

/*
 * crw-rw---- root root as the module makes it; udev/60-ntkl.rules (make
 * install) gives the group to "tracing", which the VM has no udev to do.
 */
TEST(device_for_root_and_its_group)
{
	struct stat st;

	if (geteuid() != 0)
		SKIP(return, "needs root");

	ASSERT_EQ(0, stat(NTKL_DEV, &st)) {
		TH_LOG("%s: %s (is the module loaded?)", NTKL_DEV,
		       strerror(errno));
	}
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0660U, st.st_mode & 07777) {
		TH_LOG("mode is %04o", st.st_mode & 07777);
	}
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
	/* 1: the open failed with EACCES, as it must for "nobody". */
	EXPECT_EQ(1, open_as_nobody());
}

FIXTURE(reload) {
	int kmsg_fd;
	const char *ko;
};

FIXTURE_SETUP(reload)
{
	self->ko = getenv("NTKL_KO");
	/* Only the messages logged from here on are this test's. */
	self->kmsg_fd = kmsg_open_at_end();
	ASSERT_LE(0, self->kmsg_fd);
}

FIXTURE_TEARDOWN(reload)
{
	struct stat st;

	/* Leave the module loaded even when a cycle failed half way. */
	if (self->ko && stat(NTKL_DEV, &st) && load_module(self->ko))
		TH_LOG("could not reload %s", self->ko);
	if (self->kmsg_fd >= 0)
		close(self->kmsg_fd);
}

TEST_F_TIMEOUT(reload, unload_reload_cycles, 300)
{
	char first_bad[1024];
	int i, ret;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (!self->ko || !*self->ko)
		SKIP(return, "NTKL_KO does not name the module file");

	ASSERT_TRUE(wait_for_node(true)) {
		TH_LOG("%s missing before the first cycle", NTKL_DEV);
	}
	for (i = 0; i < RELOAD_CYCLES; i++) {
		ret = delete_module(NTKL_MODULE_NAME);
		ASSERT_EQ(0, ret) {
			TH_LOG("cycle %d: delete_module: %s", i, strerror(-ret));
		}
		ASSERT_TRUE(wait_for_node(false)) {
			TH_LOG("cycle %d: %s still there after unload", i,
			       NTKL_DEV);
		}
		ret = load_module(self->ko);
		ASSERT_EQ(0, ret) {
			TH_LOG("cycle %d: finit_module(%s): %s", i, self->ko,
			       strerror(-ret));
		}
		ASSERT_TRUE(wait_for_node(true)) {
			TH_LOG("cycle %d: %s missing after load", i, NTKL_DEV);
		}
	}

	ret = kmsg_bad_since(self->kmsg_fd, first_bad, sizeof(first_bad));
	EXPECT_EQ(0, ret) {
		TH_LOG("%d kernel log lines report bugs, first: %s", ret,
		       first_bad);
	}
}

/* VmallocUsed of /proc/meminfo in kB (logger buffers are kvmalloc'ed), or -1. */
static long vmalloc_used_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * rmmod with all 64 loggers running under load: the unload stops every
 * one (context switches, process events, spin lock and profile samples
 * arriving all the while), several times over, and their memory goes.
 */
TEST_F_TIMEOUT(reload, unload_with_64_loggers_under_load, 600)
{
	static const uint32_t flags[] = { 0x10, 0x03, 0x800, 0x1000000, 0x60 };
	char first_bad[1024];
	long before, after;
	int cycle, i, ret;
	pid_t load;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (!self->ko || !*self->ko)
		SKIP(return, "NTKL_KO does not name the module file");
	load = fork();
	if (load == 0) {
		execlp("threadmix", "threadmix", "-q", "4", "1000000", (char *)NULL);
		_exit(127);
	}
	ASSERT_GT(load, 0);
	before = vmalloc_used_kb();
	for (cycle = 0; cycle < 3; cycle++) {
		int fd = open(NTKL_DEV, O_RDWR | O_CLOEXEC);

		ASSERT_LE(0, fd);
		for (i = 0; i < NTKL_MAX_LOGGERS; i++) {
			struct ntkl_properties p = {
				.size = sizeof(p),
				.buffer_size_kb = 16,
				.flush_timer = 1,
				.enable_flags = flags[i % 5],
			};

			snprintf(p.logger_name, sizeof(p.logger_name), "unload %d", i);
			ret = ioctl(fd, NTKL_IOC_START, &p) ? -errno : 0;
			ASSERT_EQ(0, ret) TH_LOG("cycle %d, logger %d: %s", cycle, i, strerror(-ret));
		}
		close(fd);	/* the module may go only when no descriptor is open */
		sleep_ms(1000);
		ret = delete_module(NTKL_MODULE_NAME);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: delete_module: %s", cycle, strerror(-ret));
		ASSERT_TRUE(wait_for_node(false));
		ret = load_module(self->ko);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: finit_module: %s", cycle, strerror(-ret));
		ASSERT_TRUE(wait_for_node(true));
	}
	kill(load, SIGKILL);
	waitpid(load, NULL, 0);
	after = vmalloc_used_kb();
	printf("# 64 loggers under load, unloaded %d times: VmallocUsed %ld kB before, %ld kB after\n",
	       cycle, before, after);
	fflush(stdout);
	/* 64 loggers hold ~32 MB: a leak of even one logger's buffers shows */
	EXPECT_LE(after - before, 256);
	ret = kmsg_bad_since(self->kmsg_fd, first_bad, sizeof(first_bad));
	EXPECT_EQ(0, ret) TH_LOG("%d kernel log lines report bugs, first: %s", ret, first_bad);
}

TEST_HARNESS_MAIN
