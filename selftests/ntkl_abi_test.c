// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_abi_test: the control ABI's size rules (uapi/ntkl.h, after
 * Documentation/process/botching-up-ioctls.rst), for every ioctl:
 *
 *  - a struct below its first published size: EINVAL;
 *  - the first published size, and anything up to the kernel's: accepted,
 *    and the kernel writes back no more than the caller's size;
 *  - longer than the kernel's: accepted if the bytes past it are zero,
 *    E2BIG if not;
 *  - an ioctl number whose encoded size is below the first published
 *    one, or whose number is unknown: ENOTTY.
 *
 * And GET_VERSION's answer, BIND's atomicity on one descriptor (two threads
 * binding it to two loggers: one wins, the other gives everything back),
 * a bound descriptor's QUERY of another logger by name, and mapped reading
 * (mmap and NEXT_BUFFER): its bounds, and that a buffer given stays as it
 * was until the next is asked for, read() and NEXT_BUFFER taking turns.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "etl_reader.h"
#include "kselftest_harness.h"
#include "ntkl_util.h"

#define CANARY		0xA5
#define EXTRA		64	/* bytes past the kernel's struct */

/* A struct of the kernel's size followed by EXTRA bytes the test controls. */
struct padded {
	union {
		struct ntkl_properties props;
		struct ntkl_list list;
		struct ntkl_bind bind;
		struct ntkl_spinlock_config spin;
		struct ntkl_version version;
		struct ntkl_stack_tracing stack;
		uint8_t bytes[sizeof(struct ntkl_properties)];
	};
	uint8_t extra[EXTRA];
};

/* An ioctl number with another encoded size. */
static unsigned long with_size(unsigned long cmd, unsigned int size)
{
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)size << _IOC_SIZESHIFT);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	while (n--)
		if (*p++ != v)
			return false;
	return true;
}

FIXTURE(abi) {
	int fd;
};

FIXTURE_SETUP(abi)
{
	self->fd = ntkl_open();
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(abi)
{
	/* a failed case leaves no logger running into the next */
	ntkl_stop_every_logger(self->fd);
	close(self->fd);
}

/* QUERY with every size from the first published one up, and past it. */
TEST_F(abi, properties_sizes)
{
	struct ntkl_properties p;
	struct padded u;
	uint32_t size;

	props_init(&p, "selftest abi", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	/* below the first published size */
	memset(&u, 0, sizeof(u));
	props_select(&u.props, "selftest abi");
	u.props.size = NTKL_PROPERTIES_SIZE_VER0 - 4;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));

	/* a shorter caller: nothing past its size is written */
	for (size = sizeof(struct ntkl_properties); size >= offsetof(struct ntkl_properties,
								       logger_name) + 16; size -= 8) {
		memset(&u, CANARY, sizeof(u));
		props_select(&u.props, "selftest abi");
		memset(u.bytes + size, CANARY, sizeof(u) - size);
		u.props.size = size;
		if (size < NTKL_PROPERTIES_SIZE_VER0) {
			EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));
		} else {
			EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));
			EXPECT_EQ(size, u.props.size);
			EXPECT_EQ(p.logger_id, u.props.logger_id);
		}
		EXPECT_TRUE(all_bytes(u.bytes + size, sizeof(u) - size, CANARY))
			TH_LOG("QUERY with size %u wrote past it", size);
	}

	/* an ABI 3 caller (no owner_uid) gets the first published size back */
	memset(&u, CANARY, sizeof(u));
	props_select(&u.props, "selftest abi");
	u.props.size = NTKL_PROPERTIES_SIZE_VER0;
	memset(u.bytes + NTKL_PROPERTIES_SIZE_VER0, CANARY, sizeof(u) - NTKL_PROPERTIES_SIZE_VER0);
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));
	EXPECT_EQ(NTKL_PROPERTIES_SIZE_VER0, u.props.size);
	EXPECT_TRUE(all_bytes(u.bytes + NTKL_PROPERTIES_SIZE_VER0,
			      sizeof(u) - NTKL_PROPERTIES_SIZE_VER0, CANARY));
	/* ...and the whole struct says whose the logger is: ours (root) */
	props_select(&u.props, "selftest abi");
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));
	EXPECT_EQ(NTKL_PROPERTIES_SIZE_VER2, u.props.size);
	EXPECT_EQ(geteuid(), u.props.owner_uid);
	EXPECT_EQ(0, u.props.__reserved1);
	/* ABI 8: every function it probes is on the kernels ntkl supports */
	EXPECT_EQ(0, u.props.absent_count);

	/* an ABI 4 to 7 caller (no absent events) gets its size back */
	memset(&u, CANARY, sizeof(u));
	props_select(&u.props, "selftest abi");
	u.props.size = NTKL_PROPERTIES_SIZE_VER1;
	memset(u.bytes + NTKL_PROPERTIES_SIZE_VER1, CANARY, sizeof(u) - NTKL_PROPERTIES_SIZE_VER1);
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_QUERY, &u));
	EXPECT_EQ(NTKL_PROPERTIES_SIZE_VER1, u.props.size);
	EXPECT_TRUE(all_bytes(u.bytes + NTKL_PROPERTIES_SIZE_VER1,
			      sizeof(u) - NTKL_PROPERTIES_SIZE_VER1, CANARY));

	/* a longer caller, its extra bytes zero: accepted, ours written back */
	memset(&u, 0, sizeof(u));
	props_select(&u.props, "selftest abi");
	u.props.size = sizeof(u);
	EXPECT_EQ(0, ntkl_ctl(self->fd, with_size(NTKL_IOC_QUERY, sizeof(u)), &u));
	EXPECT_EQ(sizeof(struct ntkl_properties), u.props.size);
	EXPECT_EQ(p.logger_id, u.props.logger_id);
	EXPECT_TRUE(all_bytes(u.extra, EXTRA, 0));

	/* ...its extra bytes not zero: a field this module does not know */
	u.extra[EXTRA - 1] = 1;
	props_select(&u.props, "selftest abi");
	u.props.size = sizeof(u);
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, with_size(NTKL_IOC_QUERY, sizeof(u)), &u));
}

/* LIST, BIND and the spin-lock settings follow the same rules. */
TEST_F(abi, other_structs_sizes)
{
	struct ntkl_properties p, got[2];
	int reader = ntkl_open();
	struct padded u;

	ASSERT_GE(reader, 0);
	props_init(&p, "selftest abi", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	/* LIST: larger struct with zero tail; props at a larger stride */
	memset(&u, 0, sizeof(u));
	u.list.size = sizeof(u.list) + 8;
	u.list.props_size = sizeof(struct ntkl_properties);
	u.list.count = 2;
	u.list.props = (uintptr_t)got;
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_LIST, &u));
	EXPECT_EQ(1, u.list.count);
	EXPECT_STREQ("selftest abi", got[0].logger_name);
	u.extra[0] = 0;
	u.bytes[sizeof(u.list) + 1] = 7;
	u.list.size = sizeof(u.list) + 8;
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, NTKL_IOC_LIST, &u));
	memset(&u, 0, sizeof(u));
	u.list.size = sizeof(u.list) - 4;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_LIST, &u));
	u.list.size = sizeof(u.list);
	u.list.props_size = NTKL_PROPERTIES_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_LIST, &u));

	/* BIND: larger with zero tail works; non-zero tail is E2BIG */
	memset(&u, 0, sizeof(u));
	u.bind.size = sizeof(u.bind) + 4;
	u.bind.logger_id = p.logger_id;
	u.bytes[sizeof(u.bind) + 2] = 1;
	EXPECT_EQ(-E2BIG, ntkl_ctl(reader, NTKL_IOC_BIND, &u));
	u.bytes[sizeof(u.bind) + 2] = 0;
	EXPECT_EQ(0, ntkl_ctl(reader, NTKL_IOC_BIND, &u));
	u.bind.size = sizeof(u.bind) - 8;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_BIND, &u));

	/* spin-lock settings: GET writes no more than the caller's size */
	memset(&u, CANARY, sizeof(u));
	memset(&u.spin, 0, sizeof(u.spin));
	u.spin.size = sizeof(u.spin);
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_GET_SPINLOCK_CONFIG, &u));
	EXPECT_GE(u.spin.spin_threshold, NTKL_SPIN_THRESHOLD_MIN);
	EXPECT_TRUE(all_bytes(u.bytes + sizeof(u.spin), sizeof(u) - sizeof(u.spin), CANARY));
	memset(&u, 0, sizeof(u));
	u.spin.size = sizeof(u.spin) + 8;
	u.bytes[sizeof(u.spin) + 4] = 1;
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, NTKL_IOC_SET_SPINLOCK_CONFIG, &u));
	close(reader);
}

/* Unknown numbers, and known numbers encoding a size below the first published one. */
/* The stack tracing list (-stackwalk) follows them too. */
TEST_F(abi, stack_tracing_sizes)
{
	uint16_t hooks[2] = { NTKL_STACK_HOOK_PROFILE };
	struct ntkl_properties p;
	struct padded u;

	props_init(&p, "selftest abi", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));

	/* SET: the first published size; below it EINVAL; a non-zero tail E2BIG */
	memset(&u, 0, sizeof(u));
	u.stack.size = NTKL_STACK_TRACING_SIZE_VER0;
	u.stack.logger_id = p.logger_id;
	u.stack.count = 1;
	u.stack.hooks = (uint64_t)(uintptr_t)hooks;
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_SET_STACK_TRACING, &u));
	u.stack.size = NTKL_STACK_TRACING_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_SET_STACK_TRACING, &u));
	u.stack.size = sizeof(u.stack) + 8;
	u.bytes[sizeof(u.stack) + 4] = 1;
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->fd, NTKL_IOC_SET_STACK_TRACING, &u));
	/* stacks_truncated and user_stops (ABI 7) are out only */
	u.bytes[sizeof(u.stack) + 4] = 0;
	u.stack.stacks_truncated = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_SET_STACK_TRACING, &u));
	u.stack.stacks_truncated = 0;
	u.stack.user_stops[NTKL_USTOP_COUNT - 1] = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_SET_STACK_TRACING, &u));
	u.stack.user_stops[NTKL_USTOP_COUNT - 1] = 0;

	/* GET writes no more than the caller's size, and the hooks it has room for */
	memset(&u, CANARY, sizeof(u));
	memset(&u.stack, 0, sizeof(u.stack));
	memset(hooks, 0, sizeof(hooks));
	u.stack.size = sizeof(u.stack);
	u.stack.logger_id = p.logger_id;
	u.stack.count = 2;
	u.stack.hooks = (uint64_t)(uintptr_t)hooks;
	EXPECT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_GET_STACK_TRACING, &u));
	EXPECT_EQ(1, u.stack.count);
	EXPECT_EQ(NTKL_STACK_HOOK_PROFILE, hooks[0]);
	EXPECT_EQ(0, hooks[1]);
	EXPECT_TRUE(all_bytes(u.bytes + sizeof(u.stack), sizeof(u) - sizeof(u.stack), CANARY));
	ASSERT_EQ(0, ntkl_stop_name(self->fd, "selftest abi"));
}

TEST_F(abi, enotty)
{
	struct padded u;

	memset(&u, 0, sizeof(u));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IOWR(NTKL_IOC_MAGIC, 0x7F, uint64_t), &u));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IOWR('x', 0x01, struct ntkl_properties), &u));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, with_size(NTKL_IOC_START, 8), &u));
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, with_size(NTKL_IOC_GET_VERSION, 4), &u));
	/* direction matters too: START written as read-only is not START */
	EXPECT_EQ(-ENOTTY, ntkl_ctl(self->fd, _IOR(NTKL_IOC_MAGIC, 0x01,
						    struct ntkl_properties), &u));
}

TEST_F(abi, version)
{
	static const uint32_t recorded[] = {
		PERF_PROCESS, PERF_THREAD, PERF_CONTEXT_SWITCH, PERF_COMPACT_CSWITCH,
		PERF_DISPATCHER, PERF_SPINLOCK, PERF_PROFILE, PERF_DPC, PERF_INTERRUPT,
		PERF_HARD_FAULTS, PERF_SYSCALL, PERF_MEMINFO_WS, PERF_NETWORK,
		PERF_ALL_FAULTS, PERF_VIRTUAL_ALLOC,
	};
	struct padded u;
	struct perfinfo_groupmask *gm = (struct perfinfo_groupmask *)u.version.group_masks;
	unsigned int i;

	memset(&u, CANARY, sizeof(u));
	memset(&u.version, 0, sizeof(u.version));
	u.version.size = sizeof(u.version);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_GET_VERSION, &u));
	EXPECT_EQ(NTKL_ABI_VERSION, u.version.abi_version);
	EXPECT_EQ(NTKL_MAX_LOGGERS, u.version.max_loggers);
	EXPECT_GT(u.version.events, 10);
	EXPECT_STREQ(NTKL_VERSION, u.version.module_version);
	EXPECT_TRUE(all_bytes(u.bytes + sizeof(u.version), sizeof(u) - sizeof(u.version), CANARY));
	/* what it records: the groups of the events it writes, no others */
	for (i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		EXPECT_TRUE(perf_group_is_on(gm, recorded[i])) TH_LOG("0x%08x", recorded[i]);
	EXPECT_FALSE(perf_group_is_on(gm, PERF_POOL));
}

/* Two threads bind one descriptor at once, to two loggers. */
struct bind_race {
	int fd;
	uint32_t id;
	pthread_barrier_t *go;
	int ret;
};

static void *bind_thread(void *arg)
{
	struct bind_race *r = arg;

	pthread_barrier_wait(r->go);
	r->ret = ntkl_bind_id(r->fd, r->id);
	return NULL;
}

TEST_F_TIMEOUT(abi, bind_race, 300)
{
	struct ntkl_properties a, b;
	pthread_barrier_t go;
	int fa, fb;
	int round, both = 0, none = 0, other = 0;

	props_init(&a, "selftest abi", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &a));
	props_init(&b, "selftest abi 2", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &b));
	pthread_barrier_init(&go, NULL, 2);

	for (round = 0; round < 1000; round++) {
		int fd = ntkl_open();
		struct bind_race ra = { fd, a.logger_id, &go, 0 };
		struct bind_race rb = { fd, b.logger_id, &go, 0 };
		pthread_t ta, tb;

		ASSERT_GE(fd, 0);
		pthread_create(&ta, NULL, bind_thread, &ra);
		pthread_create(&tb, NULL, bind_thread, &rb);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		both += !ra.ret && !rb.ret;
		none += ra.ret && rb.ret;
		other += (ra.ret && ra.ret != -EBUSY) || (rb.ret && rb.ret != -EBUSY);
		close(fd);
	}
	EXPECT_EQ(0, both) TH_LOG("both binds succeeded in %d rounds", both);
	EXPECT_EQ(0, none);
	EXPECT_EQ(0, other) TH_LOG("a loser's error was not EBUSY");
	/* the loser gave its logger back: both can be bound again */
	fa = ntkl_open();
	fb = ntkl_open();
	EXPECT_EQ(0, ntkl_bind_id(fa, a.logger_id));
	EXPECT_EQ(0, ntkl_bind_id(fb, b.logger_id));
	close(fa);
	close(fb);
	pthread_barrier_destroy(&go);
}

/* A bound descriptor's QUERY: its own logger by default, another by name. */
TEST_F(abi, bound_query_by_name)
{
	struct ntkl_properties a, b, q;
	int reader = ntkl_open();

	ASSERT_GE(reader, 0);
	props_init(&a, "selftest abi", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &a));
	props_init(&b, "selftest abi 2", EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &b));
	ASSERT_EQ(0, ntkl_bind_id(reader, a.logger_id));

	props_init(&q, "", 0);
	EXPECT_EQ(0, ntkl_ctl(reader, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(a.logger_id, q.logger_id);
	props_select(&q, "selftest abi 2");
	EXPECT_EQ(0, ntkl_ctl(reader, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(b.logger_id, q.logger_id);
	EXPECT_STREQ("selftest abi 2", q.logger_name);
	props_select(&q, "selftest nobody");
	EXPECT_EQ(-ENOENT, ntkl_ctl(reader, NTKL_IOC_QUERY, &q));
	/* its own logger, stopped: still there for its reader */
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest abi"));
	props_select(&q, "selftest abi");
	EXPECT_EQ(0, ntkl_ctl(reader, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(NTKL_STATUS_STOPPED, q.logger_status);
	close(reader);
}

/* Enough forks and exits to close a few 4 KB buffers of process events. */
static void churn(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/* Records in a buffer, as a file's reader walks them. */
static uint64_t walk_records(const uint8_t *data, size_t size)
{
	struct etl_buffer b;

	memset(&b, 0, sizeof(b));
	memcpy(&b.hdr, data, sizeof(b.hdr));
	b.data = data;
	b.filled = b.hdr.saved_offset <= size ? b.hdr.saved_offset : 0;
	return etl_count_records(&b);
}

/* NEXT_BUFFER with these flags and release, every out field zeroed. */
static long next_with(int fd, struct ntkl_next_buffer *nb, uint32_t flags, uint32_t release)
{
	memset(nb, 0, sizeof(*nb));
	nb->size = sizeof(*nb);
	nb->flags = flags;
	nb->release = release;
	return ntkl_ctl(fd, NTKL_IOC_NEXT_BUFFER, nb);
}

static long next_buffer(int fd, struct ntkl_next_buffer *nb)
{
	return next_with(fd, nb, 0, 0);
}

/* A PROCESS logger of bs-byte buffers started, reader bound to it, *p queried. */
static int start_bound(int ctl, int reader, const char *name, size_t bs,
		       struct ntkl_properties *p)
{
	props_init(p, name, EVENT_TRACE_FLAG_PROCESS);
	p->buffer_size_kb = bs / 1024;
	if (ntkl_ctl(ctl, NTKL_IOC_START, p) || ntkl_bind_id(reader, p->logger_id))
		return -1;
	return ntkl_ctl(reader, NTKL_IOC_QUERY, p) ? -1 : 0;
}

TEST_F(abi, mapped_reading)
{
	const size_t bs = 4096;
	struct ntkl_next_buffer nb;
	struct ntkl_properties p;
	struct wmi_buffer_header h;
	uint8_t *m, *copy = malloc(bs), *rd = malloc(bs);
	int reader = ntkl_open(), i, seq = 0;
	size_t len;

	ASSERT_GE(reader, 0);
	ASSERT_TRUE(copy && rd);
	/* unbound: nothing to map, no buffer to give */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, bs, PROT_READ, MAP_SHARED, reader, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, next_buffer(reader, &nb));

	ASSERT_EQ(0, start_bound(self->fd, reader, "selftest abi map", bs, &p));
	len = (1 + (size_t)p.number_of_buffers) * bs;

	/* never writable; not past the last slot */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, bs, PROT_READ | PROT_WRITE, MAP_SHARED, reader, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len + bs, PROT_READ, MAP_SHARED, reader, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, bs, PROT_READ, MAP_SHARED, reader, len));
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, reader, 0);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(-1, mprotect(m, bs, PROT_READ | PROT_WRITE));

	/* an unknown flag or a nonzero out field is EINVAL */
	memset(&nb, 0, sizeof(nb));
	nb.size = sizeof(nb);
	nb.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, ntkl_ctl(reader, NTKL_IOC_NEXT_BUFFER, &nb));
	memset(&nb, 0, sizeof(nb));
	nb.size = sizeof(nb);
	nb.held = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(reader, NTKL_IOC_NEXT_BUFFER, &nb));
	/* release with no NTKL_NEXT_KEEP: EINVAL (without it all go back) */
	memset(&nb, 0, sizeof(nb));
	nb.size = sizeof(nb);
	nb.release = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(reader, NTKL_IOC_NEXT_BUFFER, &nb));

	/* the header buffer first, at slot 0 */
	ASSERT_EQ(0, next_buffer(reader, &nb));
	EXPECT_EQ(0, nb.offset);
	EXPECT_EQ(bs, nb.length);
	EXPECT_EQ(0, nb.records);

	/*
	 * Data buffers, NEXT_BUFFER and read() taking turns: each held one
	 * stays as it was while more buffers close, and their sequence
	 * numbers run on from one reading to the other.
	 */
	for (i = 0; i < 6; i++) {
		churn(40);
		ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
		if (i % 2) {
			ASSERT_EQ((ssize_t)bs, read(reader, rd, bs));
			memcpy(&h, rd, sizeof(h));
		} else {
			ASSERT_EQ(0, next_buffer(reader, &nb));
			ASSERT_EQ(bs, nb.length);
			ASSERT_LE(nb.offset + bs, len);
			ASSERT_EQ(0, nb.offset % bs);
			memcpy(copy, m + nb.offset, bs);
			/* the kernel's count is the walk's */
			EXPECT_EQ(walk_records(copy, bs), nb.records);
			EXPECT_GT(nb.records, 0);
			churn(80);
			ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
			EXPECT_EQ(0, memcmp(copy, m + nb.offset, bs))
				TH_LOG("buffer %d changed while held", i);
			memcpy(&h, copy, sizeof(h));
		}
		EXPECT_EQ(bs, h.buffer_size);
		EXPECT_GT(h.saved_offset, sizeof(h));
		EXPECT_EQ(p.logger_id, h.logger_id);
		EXPECT_EQ(++seq, h.sequence_number);
	}
	/*
	 * poll() says POLLIN only when a buffer besides the one held is
	 * ready: NEXT_BUFFER then gives it without waiting. (A held buffer
	 * still sits at its ring's tail; taken for the next, it hung
	 * ntkl record in NEXT_BUFFER.)
	 */
	churn(40);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
	ASSERT_EQ(0, next_buffer(reader, &nb));
	ASSERT_EQ(bs, nb.length);
	ASSERT_EQ(0, fcntl(reader, F_SETFL, O_NONBLOCK));
	for (i = 0; i < 100; i++) {
		struct pollfd pfd = { .fd = reader, .events = POLLIN };

		ASSERT_LE(0, poll(&pfd, 1, 0));
		if (!(pfd.revents & POLLIN))
			break;
		ASSERT_EQ(0, next_buffer(reader, &nb)) TH_LOG("poll said POLLIN");
		ASSERT_EQ(bs, nb.length);
	}
	ASSERT_EQ(0, fcntl(reader, F_SETFL, 0));
	/* stopped and drained: length 0 */
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest abi map"));
	do {
		ASSERT_EQ(0, next_buffer(reader, &nb));
	} while (nb.length);
	EXPECT_EQ(0, nb.offset);
	munmap(m, len);
	close(reader);
	free(copy);
	free(rd);
}

static long next_keep(int fd, struct ntkl_next_buffer *nb, uint32_t flags, uint32_t release)
{
	return next_with(fd, nb, NTKL_NEXT_KEEP | flags, release);
}

/*
 * NTKL_NEXT_KEEP: a reader holds several buffers at once (for several
 * writes in flight), each unchanged until it gives it back, oldest first;
 * up to NTKL_NEXT_MAX_HELD (EBUSY), and not from a buffering-mode logger.
 */
TEST_F(abi, mapped_reading_keep)
{
	const size_t bs = 4096;
	struct ntkl_next_buffer nb;
	struct ntkl_properties p;
	struct wmi_buffer_header h;
	uint8_t (*copy)[4096] = calloc(NTKL_NEXT_MAX_HELD, bs);
	uint64_t offset[NTKL_NEXT_MAX_HELD];
	int reader = ntkl_open(), i, n = 0, round;
	long r;
	uint8_t *m;
	size_t len;

	ASSERT_GE(reader, 0);
	ASSERT_NE(NULL, copy);
	ASSERT_EQ(0, start_bound(self->fd, reader, "selftest abi keep", bs, &p));
	len = (1 + (size_t)p.number_of_buffers) * bs;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, reader, 0);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("mmap: %s", strerror(errno));

	/* giving back more than is held: EINVAL */
	EXPECT_EQ(-EINVAL, next_keep(reader, &nb, 0, 1));
	/* the header buffer is held like any other */
	ASSERT_EQ(0, next_keep(reader, &nb, 0, 0));
	EXPECT_EQ(0, nb.offset);
	EXPECT_EQ(bs, nb.length);
	EXPECT_EQ(1, nb.held);
	offset[n] = nb.offset;
	memcpy(copy[n++], m + nb.offset, bs);

	/*
	 * Hold every buffer the kernel lets us: all stay as they were. Once
	 * none is ready NTKL_NEXT_NOWAIT is EAGAIN, on a blocking descriptor.
	 */
	for (round = 0; round < 400 && n < NTKL_NEXT_MAX_HELD; round++) {
		if (round) {
			churn(20);
			ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
		}
		while (n < NTKL_NEXT_MAX_HELD) {
			r = next_keep(reader, &nb, NTKL_NEXT_NOWAIT, 0);
			if (r == -EAGAIN)
				break;
			ASSERT_EQ(0, r);
			ASSERT_EQ(bs, nb.length);
			EXPECT_EQ(n + 1, nb.held);
			memcpy(&h, m + nb.offset, sizeof(h));
			EXPECT_EQ(n, h.sequence_number);
			EXPECT_EQ(walk_records(m + nb.offset, bs), nb.records);
			offset[n] = nb.offset;
			memcpy(copy[n++], m + nb.offset, bs);
		}
	}
	ASSERT_EQ(NTKL_NEXT_MAX_HELD, n) TH_LOG("only %d buffers held", n);
	churn(80);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, memcmp(copy[i], m + offset[i], bs))
			TH_LOG("held buffer %d changed", i);
	/* the most held: EBUSY, until one goes back */
	EXPECT_EQ(-EBUSY, next_keep(reader, &nb, NTKL_NEXT_NOWAIT, 0));
	/* the oldest 3 back; the next is buffer n, the rest still held */
	ASSERT_EQ(0, next_keep(reader, &nb, 0, 3));
	EXPECT_EQ(NTKL_NEXT_MAX_HELD - 2, nb.held);
	memcpy(&h, m + nb.offset, sizeof(h));
	EXPECT_EQ(n, h.sequence_number);
	for (i = 3; i < n; i++)
		EXPECT_EQ(0, memcmp(copy[i], m + offset[i], bs))
			TH_LOG("held buffer %d changed", i);
	/* given back even when no buffer comes (EAGAIN): 13 back, 1 left */
	r = next_keep(reader, &nb, NTKL_NEXT_NOWAIT, NTKL_NEXT_MAX_HELD - 3);
	if (r == -EAGAIN) {
		churn(20);
		ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
		r = next_keep(reader, &nb, 0, 0);
	}
	ASSERT_EQ(0, r);
	EXPECT_EQ(2, nb.held);
	/* without NTKL_NEXT_KEEP, every buffer held goes back */
	churn(20);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_FLUSH, &p));
	ASSERT_EQ(0, next_buffer(reader, &nb));
	EXPECT_EQ(1, nb.held);
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest abi keep"));
	do {
		ASSERT_EQ(0, next_keep(reader, &nb, 0, nb.held));
	} while (nb.length);
	EXPECT_EQ(0, nb.held);
	munmap(m, len);
	close(reader);

	/* a buffering-mode logger's snapshot is read one buffer at a time */
	reader = ntkl_open();
	ASSERT_GE(reader, 0);
	props_init(&p, "selftest abi keep ring", EVENT_TRACE_FLAG_PROCESS);
	p.log_file_mode = NTKL_MODE_BUFFERING;
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	EXPECT_EQ(-EINVAL, next_keep(reader, &nb, 0, 0));
	EXPECT_EQ(0, ntkl_stop_name(self->fd, "selftest abi keep ring"));
	close(reader);
	free(copy);
}

TEST_HARNESS_MAIN
