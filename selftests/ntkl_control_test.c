// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_control_test: the logger table and its ioctl ABI. Every ETW error in
 * the map at the top of uapi/ntkl.h is provoked and must come back as its
 * errno, without disturbing the loggers that run (vm-run fails the run on
 * any kernel warning).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ntkl_util.h"

#define NOBODY	65534

FIXTURE(ctl) {
	int fd;
};

FIXTURE_SETUP(ctl)
{
	self->fd = ntkl_open();
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", NTKL_DEVICE_PATH, strerror(errno));
}

FIXTURE_TEARDOWN(ctl)
{
	/* a failed case leaves no logger running into the next */
	ntkl_stop_every_logger(self->fd);
	close(self->fd);
}

/* How many loggers run, or -errno if LIST itself failed. */
static int loggers_running(int fd)
{
	struct ntkl_list l = {
		.size = sizeof(l),
		.props_size = sizeof(struct ntkl_properties),
	};
	int ret;

	/* count 0: E2BIG if any run, and count says how many */
	ret = ntkl_ctl(fd, NTKL_IOC_LIST, &l);
	if (ret && ret != -E2BIG)
		return ret;
	return l.count;
}

TEST_F(ctl, start_query_stop)
{
	struct ntkl_properties p, q;

	props_init(&p, "selftest basic", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	EXPECT_GE(p.logger_id, 1);
	EXPECT_LE(p.logger_id, NTKL_MAX_LOGGERS);
	EXPECT_EQ(NTKL_STATUS_RUNNING, p.logger_status);
	EXPECT_EQ(NTKL_DEFAULT_BUFFER_KB, p.buffer_size_kb);
	EXPECT_EQ(NTKL_CLOCK_QPC, p.clock_type);
	EXPECT_EQ(10000000, p.perf_freq);
	EXPECT_GE(p.number_of_buffers, 2 * p.number_of_processors);
	EXPECT_EQ(p.enable_flags & 3, 3);
	EXPECT_NE(0, p.start_time);
	EXPECT_EQ(NTKL_LOGGER_FLAG_KERNEL_TRACE, p.flags);

	/* names compare case-insensitively; ids select too */
	props_select(&q, "SELFTEST BASIC");
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(p.logger_id, q.logger_id);
	EXPECT_STREQ("selftest basic", q.logger_name);
	props_init(&q, "", 0);
	q.logger_id = p.logger_id;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &q));
	EXPECT_STREQ("selftest basic", q.logger_name);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &q));

	props_select(&q, "selftest basic");
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_STOP, &q));
	EXPECT_EQ(NTKL_STATUS_STOPPED, q.logger_status);
	EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &q));
}

TEST_F(ctl, nt_kernel_logger_name)
{
	struct ntkl_properties p;

	props_init(&p, ETW_KERNEL_LOGGER_NAME, EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	props_init(&p, "nt kernel logger", 0);
	EXPECT_EQ(-EEXIST, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, ETW_KERNEL_LOGGER_NAME));
}

/* 64 loggers run at once, each its own session; the 65th is refused. */
TEST_F(ctl, sixty_four_loggers)
{
	struct ntkl_properties p;
	char name[32];
	int i;

	ASSERT_EQ(0, loggers_running(self->fd));
	for (i = 0; i < NTKL_MAX_LOGGERS; i++) {
		snprintf(name, sizeof(name), "selftest %d", i);
		props_init(&p, name, EVENT_TRACE_FLAG_PROCESS);
		p.buffer_size_kb = NTKL_MIN_BUFFER_KB + i % 4;
		p.clock_type = 1 + i % 3;
		ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p)) TH_LOG("logger %d", i);
		EXPECT_EQ(NTKL_MIN_BUFFER_KB + i % 4, p.buffer_size_kb);
		EXPECT_EQ(1 + i % 3, p.clock_type);
	}
	EXPECT_EQ(NTKL_MAX_LOGGERS, loggers_running(self->fd));
	props_init(&p, "selftest one too many", EVENT_TRACE_FLAG_PROCESS);
	EXPECT_EQ(-ENOSPC, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	for (i = 0; i < NTKL_MAX_LOGGERS; i++) {
		snprintf(name, sizeof(name), "selftest %d", i);
		EXPECT_EQ(0, ntkl_stop_name(self->fd, name));
	}
	EXPECT_EQ(0, loggers_running(self->fd));
}

TEST_F(ctl, list)
{
	struct ntkl_properties p, got[2];
	struct ntkl_list l = {
		.size = sizeof(l),
		.props_size = sizeof(struct ntkl_properties),
		.props = (uintptr_t)got,
	};

	props_init(&p, "selftest list a", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	props_init(&p, "selftest list b", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	l.count = 1;
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, NTKL_IOC_LIST, &l));	/* ERROR_MORE_DATA */
	EXPECT_EQ(2, l.count);
	l.count = 2;
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_LIST, &l));
	EXPECT_EQ(2, l.count);
	EXPECT_STREQ("selftest list a", got[0].logger_name);
	EXPECT_STREQ("selftest list b", got[1].logger_name);

	l.__reserved0 = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_LIST, &l));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest list a"));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest list b"));
}

TEST_F(ctl, unknown_logger)
{
	unsigned long cmds[] = { NTKL_IOC_STOP, NTKL_IOC_QUERY, NTKL_IOC_UPDATE, NTKL_IOC_FLUSH };
	struct ntkl_properties p;
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		props_select(&p, "selftest nobody");
		EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, cmds[i], &p));
		props_init(&p, "", 0);
		p.logger_id = NTKL_MAX_LOGGERS;
		EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, cmds[i], &p));
		p.logger_id = NTKL_MAX_LOGGERS + 1;
		EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, cmds[i], &p));
		p.logger_id = 0;	/* neither name nor id */
		EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, cmds[i], &p));
	}
	EXPECT_EQ(-ENOENT, ntkl_bind_id(self->fd, NTKL_MAX_LOGGERS));
}

/* One bad property at a time: each is EINVAL and starts nothing. */
static const char *make_invalid(struct ntkl_properties *p, int i)
{
	switch (i) {
	case 0: p->buffer_size_kb = NTKL_MIN_BUFFER_KB - 1; return "BufferSize below 4 KB";
	case 1: p->buffer_size_kb = NTKL_MAX_BUFFER_KB + 1; return "BufferSize above 16 MB";
	case 2: p->minimum_buffers = 16; p->maximum_buffers = 8;
		return "MinimumBuffers above MaximumBuffers";
	case 3: p->maximum_buffers = NTKL_MAX_BUFFERS + 1; return "MaximumBuffers above the ceiling";
	case 4: p->minimum_buffers = NTKL_MAX_BUFFERS + 1; return "MinimumBuffers above the ceiling";
	case 5: p->log_file_mode = 0x10000000; return "unsupported LogFileMode bit";
	case 6: p->log_file_mode = EVENT_TRACE_FILE_MODE_CIRCULAR; return "circular file mode";
	case 7: p->clock_type = EVENT_TRACE_CLOCK_MAX; return "clock type 4";
	case 8: p->flush_timer = NTKL_MAX_FLUSH_TIMER + 1; return "FlushTimer above an hour";
	case 9: p->logger_name[0] = 0; return "empty name";
	case 10: memset(p->logger_name, 'x', sizeof(p->logger_name)); return "name without NUL";
	case 11: p->logger_options = 0x80000000u; return "unknown logger option";
	case 12: p->events_lost = 1; return "out field on input";
	case 13: p->logger_id = 3; return "logger id on start";
	case 14: p->size = NTKL_PROPERTIES_SIZE_VER0 - 8; return "size below version 0";
	case 15: p->size = 0; return "size 0";
	default: return NULL;
	}
}

TEST_F(ctl, invalid_properties)
{
	struct ntkl_properties p;
	const char *what;
	int i;

	for (i = 0; ; i++) {
		props_init(&p, "selftest invalid", EVENT_TRACE_FLAG_PROCESS);
		what = make_invalid(&p, i);
		if (!what)
			break;
		EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_START, &p)) TH_LOG("%s", what);
	}
	EXPECT_EQ(16, i);
	EXPECT_EQ(0, loggers_running(self->fd));
}

/*
 * More buffers than the machine has memory (4096 of 16 MB): ENOMEM at
 * once, no OOM kill on the way, and the logger already running goes on.
 */
TEST_F(ctl, more_than_memory)
{
	struct ntkl_properties keep, huge, q;
	char line[8192];
	int kmsg = kmsg_open_at_end();
	ssize_t n;

	props_init(&keep, "selftest keeper", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &keep));
	props_init(&huge, "selftest huge", EVENT_TRACE_FLAG_PROCESS);
	huge.buffer_size_kb = NTKL_MAX_BUFFER_KB;
	huge.maximum_buffers = NTKL_MAX_BUFFERS;
	EXPECT_EQ(-ENOMEM, ntkl_ctl(self->fd, NTKL_IOC_START, &huge));
	EXPECT_EQ(1, loggers_running(self->fd));
	props_init(&q, "selftest keeper", 0);
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(NTKL_STATUS_RUNNING, q.logger_status);
	ASSERT_GE(kmsg, 0);
	while ((n = read(kmsg, line, sizeof(line) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		line[n] = 0;
		EXPECT_EQ(NULL, strstr(line, "oom-kill")) TH_LOG("%s", line);
		EXPECT_EQ(NULL, strstr(line, "Out of memory")) TH_LOG("%s", line);
	}
	close(kmsg);
}

/* A larger struct from a newer tool is fine while its tail is zero. */
TEST_F(ctl, larger_struct)
{
	struct {
		struct ntkl_properties p;
		uint64_t newer[4];
	} big;

	memset(&big, 0, sizeof(big));
	props_init(&big.p, "selftest bigger", EVENT_TRACE_FLAG_PROCESS);
	big.p.size = sizeof(big);
	big.newer[3] = 1;	/* a field this module does not know, set: E2BIG */
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, NTKL_IOC_START, &big));
	big.newer[3] = 0;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &big));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest bigger"));
}

TEST_F(ctl, update)
{
	struct ntkl_properties p, u;

	props_init(&p, "selftest update", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	props_select(&u, "selftest update");
	u.enable_flags = EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH;
	u.flush_timer = 2;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	EXPECT_EQ(EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH, u.group_masks[0]);
	/* EnableFlags CSWITCH stands for PERF_CONTEXT_SWITCH in Masks[1] */
	EXPECT_EQ(PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH),
		  u.group_masks[PERF_GET_MASK_INDEX(PERF_CONTEXT_SWITCH)]);
	EXPECT_EQ(2, u.flush_timer);

	props_select(&u, "selftest update");
	u.buffer_size_kb = 8;	/* cannot change while running */
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	/* the buffers are allocated at start: MaximumBuffers only as it is */
	props_select(&u, "selftest update");
	u.maximum_buffers = p.maximum_buffers + 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	props_select(&u, "selftest update");
	u.maximum_buffers = p.maximum_buffers - 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	props_select(&u, "selftest update");
	u.maximum_buffers = p.maximum_buffers;
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	EXPECT_EQ(p.maximum_buffers, u.maximum_buffers);
	props_select(&u, "selftest update");
	u.clock_type = NTKL_CLOCK_CYCLE;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_UPDATE, &u));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest update"));
}

TEST_F(ctl, unknown_ioctl)
{
	struct ntkl_properties p;

	props_init(&p, "selftest ioctl", 0);
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IO(NTKL_IOC_MAGIC, 0x7F), NULL));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IOWR('x', 0x01, struct ntkl_properties), &p));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IOWR(NTKL_IOC_MAGIC, 0x01, uint64_t), &p));
	EXPECT_EQ(0, loggers_running(self->fd));
}

/* Without CAP_SYS_ADMIN or CAP_PERFMON every operation is EPERM. */
TEST_F(ctl, no_capabilities)
{
	struct ntkl_properties p;
	pid_t pid;
	int status;

	props_init(&p, "selftest owned", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct ntkl_properties q;
		int bad = 0;

		/* keep the open fd, lose root */
		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(100);
		props_init(&q, "selftest intruder", EVENT_TRACE_FLAG_PROCESS);
		bad |= ntkl_ctl(self->fd, NTKL_IOC_START, &q) != -EPERM;
		props_select(&q, "selftest owned");
		bad |= (ntkl_ctl(self->fd, NTKL_IOC_QUERY, &q) != -EPERM) << 1;
		bad |= (ntkl_ctl(self->fd, NTKL_IOC_STOP, &q) != -EPERM) << 2;
		bad |= (ntkl_bind_id(self->fd, p.logger_id) != -EPERM) << 3;
		/* mode 0660, group root (or tracing): nobody is in neither */
		bad |= (open(NTKL_DEVICE_PATH, O_RDWR) >= 0) << 4;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("failed checks bitmap %d", WEXITSTATUS(status));
	/* the logger it could not touch still runs */
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest owned"));
}

#define TRACING_GID	4242	/* the group udev/60-ntkl.rules gives the device */

/*
 * As nobody, in the device's group or not, with only the capabilities of
 * the second word in cap_word1 (CAP_PERFMON is 38): start, query and stop
 * a logger.
 * The exit status: 1 open failed, 2 START failed with EPERM, 3 another
 * failure, 0 all went well.
 */
static int as_nobody(bool in_group, uint32_t cap_word1)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	struct ntkl_properties p;
	gid_t g = TRACING_GID;
	int fd, ret;

	if (setgroups(in_group ? 1 : 0, &g) || prctl(PR_SET_KEEPCAPS, 1) ||
	    setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return 3;
	data[1].effective = data[1].permitted = cap_word1;
	if (syscall(SYS_capset, &hdr, data))
		return 3;
	fd = open(NTKL_DEVICE_PATH, O_RDWR);
	if (fd < 0)
		return errno == EACCES ? 1 : 3;
	props_init(&p, "selftest perfmon", EVENT_TRACE_FLAG_PROCESS);
	ret = ntkl_ctl(fd, NTKL_IOC_START, &p);
	if (ret)
		return ret == -EPERM ? 2 : 3;
	props_select(&p, "selftest perfmon");
	if (ntkl_ctl(fd, NTKL_IOC_QUERY, &p) || ntkl_stop_name(fd, "selftest perfmon"))
		return 3;
	return 0;
}

static int child_status(int (*fn)(bool, uint32_t), bool in_group, uint32_t caps)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn(in_group, caps));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Who may trace (docs/design.md): the device's group opens it (as udev's
 * rule makes it: group tracing, 0660), CAP_PERFMON alone runs a logger;
 * outside the group the open fails, in it without CAP_PERFMON START does.
 */
TEST_F(ctl, tracing_group_and_cap_perfmon)
{
	uint32_t perfmon = 1u << (CAP_PERFMON - 32);
	struct stat st;

	ASSERT_EQ(0, stat(NTKL_DEVICE_PATH, &st));
	EXPECT_EQ(0660, st.st_mode & 0777);
	ASSERT_EQ(0, chown(NTKL_DEVICE_PATH, (uid_t)-1, TRACING_GID));
	EXPECT_EQ(0, child_status(as_nobody, true, perfmon));
	EXPECT_EQ(2, child_status(as_nobody, true, 0));
	EXPECT_EQ(1, child_status(as_nobody, false, perfmon));
	ASSERT_EQ(0, chown(NTKL_DEVICE_PATH, (uid_t)-1, st.st_gid));
}

/* As in ETW, a logger lives on after the process that started it exits. */
TEST_F(ctl, outlives_its_starter)
{
	struct ntkl_properties p;
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd = ntkl_open();

		props_init(&p, "selftest orphan", EVENT_TRACE_FLAG_PROCESS);
		_exit(ntkl_ctl(fd, NTKL_IOC_START, &p) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	props_select(&p, "selftest orphan");
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
	EXPECT_EQ(NTKL_STATUS_RUNNING, p.logger_status);
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest orphan"));
}

/*
 * NTKL_MODE_OWNED: the logger stops at the last close of the descriptor
 * that started it (a dup keeps it), and that one alone; a bound reader
 * then reads to the end of data.
 */
TEST_F(ctl, owned_stops_at_last_close)
{
	struct ntkl_properties p, q;
	int owner = ntkl_open(), copy, reader = ntkl_open();
	char buf[1 << 16];
	ssize_t n;

	ASSERT_GE(owner, 0);
	ASSERT_GE(reader, 0);
	props_init(&p, "selftest owned", EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode |= NTKL_MODE_OWNED;
	ASSERT_EQ(0, ntkl_ctl(owner, NTKL_IOC_START, &p));
	EXPECT_EQ(NTKL_MODE_OWNED, p.log_file_mode & NTKL_MODE_OWNED);
	props_init(&q, "selftest not owned", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(owner, NTKL_IOC_START, &q));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	copy = dup(owner);
	ASSERT_GE(copy, 0);
	close(owner);
	props_select(&p, "selftest owned");
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p)) TH_LOG("a dup still holds it");
	close(copy);
	props_select(&p, "selftest owned");
	EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
	/* the reader drains what there was, then end of data */
	do
		n = read(reader, buf, sizeof(buf));
	while (n > 0);
	EXPECT_EQ(0, n);
	close(reader);
	/* a logger it did not own runs on */
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest not owned"));
}

TEST_F(ctl, one_reader)
{
	struct ntkl_properties p;
	char buf[64];
	int r2 = ntkl_open();

	ASSERT_GE(r2, 0);
	props_init(&p, "selftest reader", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	EXPECT_EQ(-1, read(r2, buf, sizeof(buf)));	/* not bound */
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ntkl_bind_id(self->fd, p.logger_id));
	EXPECT_EQ(-EBUSY, ntkl_bind_id(self->fd, p.logger_id));	/* fd bound already */
	EXPECT_EQ(-EBUSY, ntkl_bind_id(r2, p.logger_id));	/* logger has a reader */
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));	/* whole buffers only */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ntkl_stop_name(r2, "selftest reader"));
	close(r2);
}

TEST_HARNESS_MAIN
