// SPDX-License-Identifier: GPL-2.0
/*
 * The background writer's state file: its name, its contents, and the
 * lock `ntkl stop` waits on (flock locks belong to an open file, so two
 * opens in this one process contend as two processes would).
 */
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "test.h"
#include "ctl/ntkl_state.h"

static char dir[PATH_MAX / 2];

static void waited(void *ctx)
{
	(*(int *)ctx)++;
}

static void test_state(void)
{
	static const uint8_t guid[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	};
	struct ntkl_writer_state st = {
		.pid = 1234, .logger = "foo bar", .file = "/out/s.etl",
		.state = "done", .buffers = 7, .bytes = 458752, .events = 368,
		.events_lost = 1ULL << 33, .buffers_lost = 2,
	}, back;
	char path[PATH_MAX], want[PATH_MAX + 64], sub[PATH_MAX];
	int fd, calls = 0;

	test_begin("path");
	snprintf(sub, sizeof(sub), "%s/run/ntkl", dir);
	setenv("NTKL_RUN_DIR", sub, 1);
	CHECK_STR(ntkl_run_dir(), sub);
	ntkl_state_path(path, sizeof(path), 12, guid);
	snprintf(want, sizeof(want), "%s/12-0123456789abcdef1032547698badcfe.pid", sub);
	CHECK_STR(path, want);
	test_end();

	test_begin("create_write_read");
	fd = ntkl_state_create(path);	/* makes run/ntkl too */
	CHECK(fd >= 0);
	CHECK_EQ(ntkl_state_write(fd, &st), 0);
	CHECK_EQ(ntkl_state_read(path, &back), 0);
	CHECK_EQ(back.pid, 1234);
	CHECK_STR(back.logger, "foo bar");
	CHECK_STR(back.file, "/out/s.etl");
	CHECK_STR(back.state, "done");
	CHECK_EQ(back.buffers, 7);
	CHECK_EQ(back.bytes, 458752);
	CHECK_EQ(back.events, 368);
	CHECK_EQ(back.events_lost, 1ULL << 33);
	CHECK_EQ(back.buffers_lost, 2);
	CHECK_STR(back.error, "");
	/* a shorter rewrite leaves nothing of the longer one */
	snprintf(st.state, sizeof(st.state), "failed");
	snprintf(st.error, sizeof(st.error), "writing buffer 3: No space left on device");
	snprintf(st.file, sizeof(st.file), "/a");
	CHECK_EQ(ntkl_state_write(fd, &st), 0);
	CHECK_EQ(ntkl_state_read(path, &back), 0);
	CHECK_STR(back.file, "/a");
	CHECK_STR(back.state, "failed");
	CHECK_STR(back.error, "writing buffer 3: No space left on device");
	test_end();

	test_begin("lock_held_while_writing");
	CHECK(ntkl_state_busy(path));
	CHECK_EQ(ntkl_state_wait(path, 60, 20, waited, &calls),
		 (unsigned long long)-ETIMEDOUT);
	CHECK_EQ(calls, 1);
	/* a second writer for the same logger is refused */
	CHECK_EQ(ntkl_state_create(path), (unsigned long long)-EWOULDBLOCK);
	test_end();

	test_begin("lock_gone_with_the_writer");
	close(fd);
	CHECK(!ntkl_state_busy(path));
	calls = 0;
	CHECK_EQ(ntkl_state_wait(path, 1000, 0, waited, &calls), 0);
	CHECK_EQ(calls, 0);
	unlink(path);
	test_end();

	test_begin("no_state_file");
	CHECK(!ntkl_state_busy(path));
	CHECK_EQ(ntkl_state_wait(path, 10, 0, NULL, NULL), (unsigned long long)-ENOENT);
	CHECK_EQ(ntkl_state_read(path, &back), (unsigned long long)-ENOENT);
	test_end();

	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/run", dir);
	rmdir(sub);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/ntkl-test-state-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("FAIL: unit test_state.c setup: mkdtemp %s failed\n", dir);
		return 1;
	}
	test_state();
	rmdir(dir);
	return test_exit();
}
