// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_owner_test: who may do what with /dev/ntkl (module/control/access.c),
 * as users who are not root. The node gets udev's model (udev/60-ntkl.rules:
 * mode 0660, a group); children of this root test become:
 *
 *   A  uid 1000, in the group, CAP_PERFMON only (a tracing user)
 *   B  uid 1001, in the group, CAP_PERFMON only (another one)
 *   N  uid 1002, in the group, no capability
 *   O  uid 1003, not in the group, CAP_PERFMON
 *
 * and check: A starts, queries, updates, flushes, reads and stops its own
 * logger; B may see A's and root's loggers (QUERY, LIST, with their owners'
 * uids) but gets EACCES for STOP, UPDATE, FLUSH, BIND and stack tracing of
 * them, and EPERM for the machine-wide SETs; root stops A's logger; N is
 * refused START (EPERM), O cannot open the device (EACCES); `ntkl stop` of
 * root's logger as B prints one ERROR_ACCESS_DENIED line naming root, and
 * A's `ntkl start -f` writer works beside root's (the shared run directory).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "kselftest_harness.h"
#include "ntkl_util.h"

#define GROUP		2345	/* the node's group, as "tracing" would be */
#define NO_CAPS		0
#define PERFMON		1

struct user {
	uid_t uid;
	bool in_group;
	int caps;		/* NO_CAPS or PERFMON */
};

static const struct user user_a = { 1000, true, PERFMON };
static const struct user user_b = { 1001, true, PERFMON };
static const struct user user_n = { 1002, true, NO_CAPS };
static const struct user user_o = { 1003, false, PERFMON };

/* What a child reports back besides its exit status. */
struct shared {
	struct ntkl_properties props[NTKL_MAX_LOGGERS];
	uint32_t count;
	char out[4096];
};

/*
 * Become u: its uid and gid, the group if it is in it, and only the
 * capabilities it has (effective, permitted and inheritable; ambient too,
 * so a program it execs keeps CAP_PERFMON). 0, or -errno.
 */
static int become(const struct user *u)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	gid_t group = GROUP;

	if (setgroups(u->in_group ? 1 : 0, &group) ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    setresgid(u->uid, u->uid, u->uid) || setresuid(u->uid, u->uid, u->uid))
		return -errno;
	if (u->caps == PERFMON)
		d[CAP_TO_INDEX(CAP_PERFMON)].effective =
		d[CAP_TO_INDEX(CAP_PERFMON)].permitted =
		d[CAP_TO_INDEX(CAP_PERFMON)].inheritable = CAP_TO_MASK(CAP_PERFMON);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	if (u->caps == PERFMON &&
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_PERFMON, 0, 0))
		return -errno;
	return 0;
}

/* An operation a child does on the device as its user: 0 or -errno. */
typedef int (*op_fn)(int fd, const char *logger, struct shared *sh);

/*
 * Run op on logger as u, in a child that opens /dev/ntkl itself (as
 * that user, through the node's group): op's result, 0 or -errno;
 * OPEN_FAILED - errno if the device would not open.
 */
#define OPEN_FAILED	(-1000)
static int as_user(const struct user *u, op_fn op, const char *logger, struct shared *sh)
{
	int status, ret;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd;

		ret = become(u);
		if (ret)
			_exit(250);
		fd = ntkl_open();
		if (fd < 0)
			_exit(200 + errno);	/* errno < 55 here: EACCES, ENOENT */
		ret = op ? op(fd, logger, sh) : 0;
		_exit(-ret);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	ret = WEXITSTATUS(status);
	if (ret == 250)
		return -ECHILD;
	return ret >= 200 ? OPEN_FAILED - (ret - 200) : -ret;
}

static int op_start(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_properties p;

	props_init(&p, logger, EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode = NTKL_MODE_BUFFERING;
	return ntkl_ctl(fd, NTKL_IOC_START, &p);
}

/* START with NTKL_MODE_OWNED: stops when this child exits. */
static int op_start_owned(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_properties p;

	props_init(&p, logger, EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode = NTKL_MODE_BUFFERING | NTKL_MODE_OWNED;
	return ntkl_ctl(fd, NTKL_IOC_START, &p);
}

static int op_stop(int fd, const char *logger, struct shared *sh)
{
	return ntkl_stop_name(fd, logger);
}

static int op_query(int fd, const char *logger, struct shared *sh)
{
	props_select(&sh->props[0], logger);
	return ntkl_ctl(fd, NTKL_IOC_QUERY, &sh->props[0]);
}

/* UPDATE: turn CSWITCH on (what B must not do to another's logger). */
static int op_update(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_properties p;

	props_init(&p, logger, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_CSWITCH);
	return ntkl_ctl(fd, NTKL_IOC_UPDATE, &p);
}

static int op_flush(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_properties p;

	props_select(&p, logger);
	return ntkl_ctl(fd, NTKL_IOC_FLUSH, &p);
}

/* BIND, as ntkl save and a real-time reader do. */
static int op_bind(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_bind b = { .size = sizeof(b) };

	snprintf(b.logger_name, sizeof(b.logger_name), "%s", logger);
	return ntkl_ctl(fd, NTKL_IOC_BIND, &b);
}

static int op_set_stacks(int fd, const char *logger, struct shared *sh)
{
	uint16_t hook = NTKL_STACK_HOOK_CSWITCH;
	struct ntkl_stack_tracing st = {
		.size = sizeof(st), .count = 1, .hooks = (uintptr_t)&hook,
	};

	snprintf(st.logger_name, sizeof(st.logger_name), "%s", logger);
	return ntkl_ctl(fd, NTKL_IOC_SET_STACK_TRACING, &st);
}

static int op_get_stacks(int fd, const char *logger, struct shared *sh)
{
	uint16_t hooks[8];
	struct ntkl_stack_tracing st = {
		.size = sizeof(st), .count = 8, .hooks = (uintptr_t)hooks,
	};

	snprintf(st.logger_name, sizeof(st.logger_name), "%s", logger);
	return ntkl_ctl(fd, NTKL_IOC_GET_STACK_TRACING, &st);
}

static int op_list(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_list l = {
		.size = sizeof(l), .count = NTKL_MAX_LOGGERS,
		.props_size = sizeof(struct ntkl_properties), .props = (uintptr_t)sh->props,
	};
	int ret = ntkl_ctl(fd, NTKL_IOC_LIST, &l);

	sh->count = l.count;
	return ret;
}

/* The machine-wide settings: SET (to their defaults) and GET. */
static int op_set_spinlock(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_spinlock_config c = { .size = sizeof(c) };

	return ntkl_ctl(fd, NTKL_IOC_SET_SPINLOCK_CONFIG, &c);
}

static int op_get_spinlock(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_spinlock_config c = { .size = sizeof(c) };

	return ntkl_ctl(fd, NTKL_IOC_GET_SPINLOCK_CONFIG, &c);
}

static int op_set_profint(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_profile_interval p = { .size = sizeof(p) };

	return ntkl_ctl(fd, NTKL_IOC_SET_PROFILE_INTERVAL, &p);
}

static int op_get_profint(int fd, const char *logger, struct shared *sh)
{
	struct ntkl_profile_interval p = { .size = sizeof(p) };

	return ntkl_ctl(fd, NTKL_IOC_GET_PROFILE_INTERVAL, &p);
}

/* Run `logger` (a shell command line) as B: its exit status, output in sh->out. */
static int op_shell(int fd, const char *cmd, struct shared *sh)
{
	FILE *p;
	size_t n;
	int status;

	close(fd);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	n = fread(sh->out, 1, sizeof(sh->out) - 1, p);
	sh->out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -ECHILD;
}

FIXTURE(owner) {
	int fd;			/* root's */
	struct stat node;	/* the node as it was */
	struct shared *sh;
};

FIXTURE_SETUP(owner)
{
	ASSERT_EQ(0, geteuid()) TH_LOG("the test runs as root and becomes other users");
	ASSERT_EQ(0, stat(NTKL_DEVICE_PATH, &self->node));
	/* udev's rule, with a group of the test's own */
	ASSERT_EQ(0, chown(NTKL_DEVICE_PATH, 0, GROUP));
	ASSERT_EQ(0, chmod(NTKL_DEVICE_PATH, 0660));
	self->fd = ntkl_open();
	ASSERT_GE(self->fd, 0);
	ntkl_stop_every_logger(self->fd);
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
}

FIXTURE_TEARDOWN(owner)
{
	ntkl_stop_every_logger(self->fd);
	close(self->fd);
	munmap(self->sh, sizeof(*self->sh));
	chown(NTKL_DEVICE_PATH, self->node.st_uid, self->node.st_gid);
	chmod(NTKL_DEVICE_PATH, self->node.st_mode & 07777);
}

/* A tracing user runs its own logger from start to stop. */
TEST_F(owner, own_logger)
{
	struct ntkl_properties p;

	ASSERT_EQ(0, as_user(&user_a, op_start, "a log", self->sh));
	EXPECT_EQ(0, as_user(&user_a, op_query, "a log", self->sh));
	EXPECT_EQ(user_a.uid, self->sh->props[0].owner_uid);
	EXPECT_EQ(0, as_user(&user_a, op_update, "a log", self->sh));
	EXPECT_EQ(0, as_user(&user_a, op_flush, "a log", self->sh));
	EXPECT_EQ(0, as_user(&user_a, op_bind, "a log", self->sh));
	EXPECT_EQ(0, as_user(&user_a, op_set_stacks, "a log", self->sh));
	/* root sees what A did, and whose the logger is */
	props_select(&p, "a log");
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
	EXPECT_EQ(user_a.uid, p.owner_uid);
	EXPECT_NE(0, p.enable_flags & EVENT_TRACE_FLAG_CSWITCH);
	EXPECT_EQ(0, as_user(&user_a, op_stop, "a log", self->sh));
	EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
}

/* Another tracing user may look at A's and root's loggers, not act on them. */
TEST_F(owner, others_refused)
{
	static const op_fn acts[] = { op_stop, op_update, op_flush, op_bind, op_set_stacks };
	static const char *const loggers[] = { "a log", "root log" };
	struct ntkl_properties p;
	bool seen_a = false, seen_root = false;
	unsigned int i, j;

	ASSERT_EQ(0, as_user(&user_a, op_start, "a log", self->sh));
	props_init(&p, "root log", EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode = NTKL_MODE_BUFFERING;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	for (i = 0; i < ARRAY_SIZE(loggers); i++) {
		for (j = 0; j < ARRAY_SIZE(acts); j++)
			EXPECT_EQ(-EACCES, as_user(&user_b, acts[j], loggers[i], self->sh))
				TH_LOG("B's act %u (stop, update, flush, bind, stacks) on logger %u",
				       j, i);
		/* looking is allowed, and says whose it is */
		EXPECT_EQ(0, as_user(&user_b, op_query, loggers[i], self->sh));
		EXPECT_EQ(i ? 0 : user_a.uid, self->sh->props[0].owner_uid);
		EXPECT_EQ(0, as_user(&user_b, op_get_stacks, loggers[i], self->sh));
		/* and nothing changed: still running, CSWITCH still off */
		props_select(&p, loggers[i]);
		ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
		EXPECT_EQ(NTKL_STATUS_RUNNING, p.logger_status);
		EXPECT_EQ(0, p.enable_flags & EVENT_TRACE_FLAG_CSWITCH);
		EXPECT_EQ(0, p.readers);
	}
	/* LIST: every logger, with its owner */
	EXPECT_EQ(0, as_user(&user_b, op_list, NULL, self->sh));
	EXPECT_EQ(2, self->sh->count);
	for (i = 0; i < self->sh->count && i < NTKL_MAX_LOGGERS; i++) {
		const struct ntkl_properties *l = &self->sh->props[i];

		seen_a |= !strcmp(l->logger_name, "a log") && l->owner_uid == user_a.uid;
		seen_root |= !strcmp(l->logger_name, "root log") && l->owner_uid == 0;
	}
	EXPECT_TRUE(seen_a);
	EXPECT_TRUE(seen_root);
	/* machine-wide settings: read, not written */
	EXPECT_EQ(-EPERM, as_user(&user_b, op_set_spinlock, NULL, self->sh));
	EXPECT_EQ(-EPERM, as_user(&user_b, op_set_profint, NULL, self->sh));
	EXPECT_EQ(0, as_user(&user_b, op_get_spinlock, NULL, self->sh));
	EXPECT_EQ(0, as_user(&user_b, op_get_profint, NULL, self->sh));
	/* ...nor by A, whose logger it is not about */
	EXPECT_EQ(-EPERM, as_user(&user_a, op_set_profint, NULL, self->sh));
}

/* Root (CAP_SYS_ADMIN) acts on anyone's logger. */
TEST_F(owner, root_acts_on_others)
{
	struct ntkl_properties p;
	int reader = ntkl_open();

	ASSERT_GE(reader, 0);
	ASSERT_EQ(0, as_user(&user_a, op_start, "a log", self->sh));
	props_select(&p, "a log");
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
	EXPECT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "a log"));
	EXPECT_EQ(-ENOENT, as_user(&user_a, op_query, "a log", self->sh));
	close(reader);
}

/* An OWNED logger of A stops when A's starting descriptor closes, B cannot stop it. */
TEST_F(owner, owned_logger)
{
	struct ntkl_properties p;

	/* the child exits: its descriptor's last close stops the logger */
	ASSERT_EQ(0, as_user(&user_a, op_start_owned, "a owned", self->sh));
	props_select(&p, "a owned");
	EXPECT_EQ(-ENOENT, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));
}

/* No CAP_PERFMON: the device opens (the group), nothing else. */
TEST_F(owner, no_perfmon)
{
	EXPECT_EQ(0, as_user(&user_n, NULL, NULL, self->sh));
	EXPECT_EQ(-EPERM, as_user(&user_n, op_start, "n log", self->sh));
	EXPECT_EQ(-EPERM, as_user(&user_n, op_list, NULL, self->sh));
	EXPECT_EQ(-EPERM, as_user(&user_n, op_query, "n log", self->sh));
}

/* Not in the node's group: the device does not open, whatever the capabilities. */
TEST_F(owner, not_in_group)
{
	EXPECT_EQ(OPEN_FAILED - EACCES, as_user(&user_o, NULL, NULL, self->sh));
	/* the group is what lets A in */
	EXPECT_EQ(0, as_user(&user_a, NULL, NULL, self->sh));
}

/* The command line: one line naming ERROR_ACCESS_DENIED and the owner. */
TEST_F(owner, cli_stop_of_anothers_logger)
{
	struct ntkl_properties p;
	char *nl;
	int ret;

	props_init(&p, "root log", EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode = NTKL_MODE_BUFFERING;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	ret = as_user(&user_b, op_shell, "ntkl stop 'root log' 2>&1", self->sh);
	EXPECT_EQ(-1, ret) TH_LOG("%s", self->sh->out);
	nl = strchr(self->sh->out, '\n');
	EXPECT_TRUE(nl && !nl[1]) TH_LOG("not one line: %s", self->sh->out);
	EXPECT_NE(NULL, strstr(self->sh->out, "(ERROR_ACCESS_DENIED)")) TH_LOG("%s", self->sh->out);
	EXPECT_NE(NULL, strstr(self->sh->out, "belongs to root")) TH_LOG("%s", self->sh->out);
	props_select(&p, "root log");
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &p));

	/* A's logger: named by its uid or its name, never "another user" */
	ASSERT_EQ(0, as_user(&user_a, op_start, "a log", self->sh));
	EXPECT_EQ(-1, as_user(&user_b, op_shell, "ntkl stop 'a log' 2>&1", self->sh));
	EXPECT_NE(NULL, strstr(self->sh->out, "(ERROR_ACCESS_DENIED): logger a log belongs to "))
		TH_LOG("%s", self->sh->out);
	EXPECT_EQ(NULL, strstr(self->sh->out, "another user")) TH_LOG("%s", self->sh->out);
	/* and ntkl list, as B, shows the owners */
	EXPECT_EQ(0, as_user(&user_b, op_shell, "ntkl list 2>&1", self->sh));
	EXPECT_NE(NULL, strstr(self->sh->out, "OWNER")) TH_LOG("%s", self->sh->out);
	EXPECT_NE(NULL, strstr(self->sh->out, "root")) TH_LOG("%s", self->sh->out);
}

/*
 * A tracing user's background writer: root's first writer makes the run
 * directory the group's (sticky, group-writable), A then starts one of its
 * own to a file, B cannot stop it, A does, and the file is whole.
 */
TEST_F(owner, cli_writer_of_a_user)
{
	struct stat st;

	ASSERT_EQ(0, system("rm -rf /tmp/owner-run /tmp/owner && mkdir -m 1777 /tmp/owner"));
	ASSERT_EQ(0, setenv("NTKL_RUN_DIR", "/tmp/owner-run", 1));
	ASSERT_EQ(0, system("ntkl start rootw -on PROC_THREAD -f /tmp/owner/r.etl >/dev/null"));
	ASSERT_EQ(0, stat("/tmp/owner-run", &st));
	EXPECT_EQ(01775, st.st_mode & 07777);
	EXPECT_EQ(GROUP, st.st_gid);

	EXPECT_EQ(0, as_user(&user_a, op_shell,
			     "ntkl start aw -on PROC_THREAD -f /tmp/owner/a.etl 2>&1", self->sh))
		TH_LOG("%s", self->sh->out);
	EXPECT_EQ(-1, as_user(&user_b, op_shell, "ntkl stop aw 2>&1", self->sh));
	EXPECT_NE(NULL, strstr(self->sh->out, "(ERROR_ACCESS_DENIED): logger aw belongs to uid 1000"))
		TH_LOG("%s", self->sh->out);
	EXPECT_EQ(0, as_user(&user_a, op_shell, "ntkl stop aw 2>&1", self->sh))
		TH_LOG("%s", self->sh->out);
	EXPECT_EQ(0, as_user(&user_a, op_shell, "ntkl dump --check /tmp/owner/a.etl 2>&1",
			     self->sh))
		TH_LOG("%s", self->sh->out);
	EXPECT_EQ(0, system("ntkl stop rootw >/dev/null"));
	unsetenv("NTKL_RUN_DIR");
}

TEST_HARNESS_MAIN
