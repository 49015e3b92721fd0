// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_publish_test: a control call that fails changes nothing, one that
 * succeeds does all it was asked (issue 46).
 *
 * The module asks a fault point (module/control/fault.h) before each step
 * of START and UPDATE that can fail: its own allocations, each tracepoint
 * probe, kretprobe and set of perf events it attaches. On the debug
 * kernel (CONFIG_FAULT_INJECTION) /proc/thread-self/fail-nth makes the
 * k-th point this thread meets fail; the sweeps take k from 1 until a
 * call meets fewer than k points, and after each call check what the
 * logger recorded against what it was asked:
 *
 *  - update_fails_whole: a logger taking DiskIo is UPDATEd to FileIo,
 *    hard faults and samples instead (as in the issue). A failed UPDATE
 *    leaves it recording DiskIo (a direct read's) and nothing new; one
 *    that succeeds gives FileIo Create, Read, Write and Close of a copy,
 *    HardFaults of a page-in, samples of a busy loop, and no DiskIo;
 *  - disk_io_after_failed_update: the case alone, DiskIo off and
 *    PROFILE on with the samples' perf events failing: the block
 *    tracepoints must still be attached, so the direct read is recorded;
 *  - start_fails_whole: a START of all those kinds at once beside a
 *    running CSwitch logger: a failed START leaves the name free and the
 *    other logger recording; one that succeeds records every kind;
 *  - stop_meets_no_fault_point: STOP needs nothing new, so it meets no
 *    point and cannot fail.
 *
 * Elsewhere (no fail-nth) each case skips with its reason. The kernel log
 * stays clean and kmemleak finds nothing (vm-run checks both).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"publish"
#define BYSTANDER	"publish other"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FAULT_ABSENT	"/sys/kernel/debug/ntkl/fault_absent"
#define SWEEP_MAX	400		/* far more points than a call meets */
#define IO_BYTES	(256 * 1024)
#define MAP_BYTES	(1024 * 1024)

#define DISK_FLAGS	(EVENT_TRACE_FLAG_DISK_IO | EVENT_TRACE_FLAG_DISK_IO_INIT)
#define NEW_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_FILE_IO | EVENT_TRACE_FLAG_FILE_IO_INIT | \
			 EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS | EVENT_TRACE_FLAG_PROFILE)

#define MAX_CPUS	64

/* What a capture holds of the kinds the cases ask for. */
struct kinds {
	unsigned int disk_read, create, read, write, close, fault, sample, cswitch;
	unsigned int stack, set_interval;
	unsigned int sample_on[MAX_CPUS];	/* samples by processor */
};

static void count_kinds(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct kinds *k = ctx;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	k->disk_read += r->hook_id == ETW_EVENT_DISKIO_READ_HOOK;
	k->create += r->hook_id == ETW_EVENT_FILEIO_CREATE_HOOK;
	k->read += r->hook_id == ETW_EVENT_FILEIO_READ_HOOK;
	k->write += r->hook_id == ETW_EVENT_FILEIO_WRITE_HOOK;
	k->close += r->hook_id == ETW_EVENT_FILEIO_CLOSE_HOOK;
	k->fault += r->hook_id == ETW_EVENT_HARD_FAULT_HOOK;
	k->sample += r->hook_id == ETW_EVENT_SAMPLED_PROFILE_HOOK;
	k->cswitch += r->hook_id == ETW_EVENT_CSWITCH_HOOK;
	k->stack += r->hook_id == ETW_EVENT_STACK_WALK_HOOK;
	k->set_interval += r->hook_id == ETW_EVENT_PROFILE_SET_INTERVAL_HOOK;
	if (r->hook_id == ETW_EVENT_SAMPLED_PROFILE_HOOK && r->processor < MAX_CPUS)
		k->sample_on[r->processor]++;
}

/* The k-th fault point this thread meets fails (0: none). */
static int fail_nth(int k)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", k);
	return write_file(FAIL_NTH, v);
}

/* Points still to meet before the one asked for fails: 0 once it failed. */
static int fail_nth_left(void)
{
	char v[16] = "";
	int fd = open(FAIL_NTH, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	return n > 0 ? atoi(v) : -1;
}

/* A logger bound to a reader of its own, drained by a thread. */
struct run {
	struct drain_job job;
	pthread_t th;
	uint32_t id;
	struct ntkl_properties props;	/* START's answer */
};

static int run_start(int ctl, const char *name, uint32_t flags, struct run *run)
{
	struct ntkl_properties p;
	int ret;

	props_init(&p, name, flags);
	p.buffer_size_kb = 64;
	p.maximum_buffers = 64;
	ret = ntkl_ctl(ctl, NTKL_IOC_START, &p);
	if (ret)
		return ret;
	memset(run, 0, sizeof(*run));
	run->id = p.logger_id;
	run->props = p;
	run->job.fd = ntkl_open();
	run->job.size = p.buffer_size_kb * 1024;
	if (run->job.fd < 0 || ntkl_bind_id(run->job.fd, p.logger_id) ||
	    pthread_create(&run->th, NULL, drain_thread, &run->job))
		return -EIO;
	return 0;
}

/* Stop the logger, count what it recorded; 0, or why not. */
static int run_stop(int ctl, const char *name, struct run *run, struct kinds *k)
{
	struct capture_verdict v;
	int ret = ntkl_stop_name(ctl, name);

	pthread_join(run->th, NULL);
	close(run->job.fd);
	memset(k, 0, sizeof(*k));
	if (!ret && !run->job.ret)
		ret = capture_walk(&run->job.c, count_kinds, k, &v);
	capture_free(&run->job.c);
	return ret ? ret : run->job.ret;
}

/* The scratch files: read directly (DiskIo), copied (FileIo), mapped (HardFault). */
struct files {
	char direct[256], copy[256], mapped[256];
};

static int make_file(const char *path, size_t bytes)
{
	static char buf[IO_BYTES];
	size_t done;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (done = 0; done < bytes; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	fsync(fd);
	close(fd);
	return done >= bytes ? 0 : -1;
}

static bool files_make(struct files *fs)
{
	const char *dir = getenv("NTKL_SCRATCH");

	if (!dir)
		return false;
	snprintf(fs->direct, sizeof(fs->direct), "%s/publish_direct", dir);
	snprintf(fs->copy, sizeof(fs->copy), "%s/publish_copy", dir);
	snprintf(fs->mapped, sizeof(fs->mapped), "%s/publish_mapped", dir);
	return !make_file(fs->direct, IO_BYTES) && !make_file(fs->mapped, MAP_BYTES);
}

/*
 * What each kind asked for makes: a direct read (DiskIo: it reaches the
 * disk), a copy of that file (FileIo Create, Read, Write, Close), a
 * page-in of a mapped file dropped from the cache (HardFault) and 50 ms
 * of a busy loop (samples at the default 1 ms).
 */
static void workload(const struct files *fs)
{
	static char copied[IO_BYTES];
	volatile unsigned long spin = 0;
	struct timespec a, b;
	void *buf = NULL;
	unsigned char *m;
	size_t i;
	int fd, out;

	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	fd = open(fs->direct, O_RDONLY | O_DIRECT);
	if (fd >= 0 && !posix_memalign(&buf, 4096, IO_BYTES))
		if (pread(fd, buf, IO_BYTES, 0) != IO_BYTES)
			fprintf(stderr, "# direct read: %s\n", strerror(errno));
	free(buf);
	if (fd >= 0)
		close(fd);
	fd = open(fs->direct, O_RDONLY);
	out = open(fs->copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0 && out >= 0 && read(fd, copied, sizeof(copied)) > 0)
		if (write(out, copied, sizeof(copied)) < 0)
			fprintf(stderr, "# copy: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (out >= 0)
		close(out);
	fd = open(fs->mapped, O_RDONLY);
	m = fd >= 0 ? mmap(NULL, MAP_BYTES, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m != MAP_FAILED) {
		for (i = 0; i < MAP_BYTES; i += 4096)
			spin += m[i];
		munmap(m, MAP_BYTES);
	}
	if (fd >= 0)
		close(fd);
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (i = 0; i < 100000; i++)
			spin++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 50000000L);
}

static void kinds_log(const char *what, int k, int ret, const struct kinds *c)
{
	printf("# %s, point %d: %s; DiskIo Read %u, FileIo Create %u Read %u Write %u Close %u, HardFault %u, samples %u, CSwitch %u\n",
	       what, k, ret ? strerror(-ret) : "done", c->disk_read, c->create, c->read, c->write,
	       c->close, c->fault, c->sample, c->cswitch);
	fflush(stdout);
}

/* Every kind NEW_FLAGS asks for is there. */
static bool all_new_kinds(const struct kinds *c)
{
	return c->create && c->read && c->write && c->close && c->fault && c->sample;
}

/* None of the kinds NEW_FLAGS asks for is there. */
static bool no_new_kinds(const struct kinds *c)
{
	return !c->create && !c->read && !c->write && !c->close && !c->fault && !c->sample;
}

/*
 * The kernel's own fault points (failslab, fail_page_alloc) are kept out
 * of fail-nth while a case runs, so that the k-th point is ntkl's: every
 * slab cache filtered out (no cache is marked for failslab), every page
 * allocation below min-order, and quiet. Put back after.
 */
static const char *const quiet_attrs[][2] = {
	{ "/sys/kernel/debug/failslab/cache-filter", "Y" },
	{ "/sys/kernel/debug/failslab/verbose", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/min-order", "100" },
	{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
};
#define N_QUIET	(sizeof(quiet_attrs) / sizeof(quiet_attrs[0]))

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

FIXTURE(publish) {
	int ctl;
	struct files fs;
	const char *skip;	/* why the cases cannot run here, or NULL */
	char saved[N_QUIET][32];
};

/* (A SKIP in a fixture's setup would still run the case: each case skips.) */
FIXTURE_SETUP(publish)
{
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	if (access(FAIL_NTH, W_OK))
		self->skip = "no " FAIL_NTH " (CONFIG_FAULT_INJECTION: the debug kernel has it)";
	else if (!files_make(&self->fs))
		self->skip = "no scratch disk file system ($NTKL_SCRATCH unset or full)";
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (unsigned int i = 0; i < N_QUIET; i++) {
		read_line(quiet_attrs[i][0], self->saved[i], sizeof(self->saved[i]));
		if (self->saved[i][0])
			write_file(quiet_attrs[i][0], quiet_attrs[i][1]);
	}
}

FIXTURE_TEARDOWN(publish)
{
	fail_nth(0);
	write_file(FAULT_ABSENT, "N");
	for (unsigned int i = 0; i < N_QUIET; i++)
		if (self->saved[i][0])
			write_file(quiet_attrs[i][0], self->saved[i]);
	ntkl_stop_every_logger(self->ctl);
	close(self->ctl);
}

/*
 * UPDATE from DiskIo to new_flags with the k-th point failing, k = 1, 2,
 * ... until the call meets fewer than k: each call fails whole or
 * succeeds whole. Returns the points the call meets.
 */
static int update_sweep(struct __test_metadata *_metadata, FIXTURE_DATA(publish) *self,
			const char *what, uint32_t new_flags)
{
	int k, ret, left, failed = 0;
	struct ntkl_properties u;
	struct kinds c;
	struct run run;

	for (k = 1; k <= SWEEP_MAX; k++) {
		ASSERT_EQ(0, run_start(self->ctl, LOGGER, DISK_FLAGS, &run));
		props_select(&u, LOGGER);
		u.enable_flags = new_flags;
		ASSERT_EQ(0, fail_nth(k));
		ret = ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &u);
		left = fail_nth_left();
		fail_nth(0);
		workload(&self->fs);
		ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
		if (ret) {
			failed++;
			EXPECT_TRUE(ret == -ENOMEM) TH_LOG("%s, point %d: %s", what, k, strerror(-ret));
			/* as before: DiskIo recorded, nothing asked for by the UPDATE */
			EXPECT_LT(0, c.disk_read) TH_LOG("%s, point %d: failed, and no DiskIo since",
							 what, k);
			EXPECT_TRUE(no_new_kinds(&c));
		} else {
			/* whole: no point failed */
			EXPECT_EQ(0, c.disk_read);
			if (new_flags & EVENT_TRACE_FLAG_FILE_IO) {
				EXPECT_TRUE(all_new_kinds(&c));
			} else {
				EXPECT_LT(0, c.sample);
			}
		}
		/* k past the last point: the call met fewer, and none failed */
		if (left > 0) {
			EXPECT_EQ(0, ret) TH_LOG("%s: no point failed, yet: %s", what, strerror(-ret));
			kinds_log(what, k, ret, &c);
			break;
		}
		if (!_metadata->passed || k < 4)
			kinds_log(what, k, ret, &c);
		if (!_metadata->passed)
			break;
	}
	printf("# %s: %d fault points, %d calls failed at one, each whole\n", what, k - 1,
	       failed);
	fflush(stdout);
	EXPECT_LT(k, SWEEP_MAX);
	EXPECT_LT(0, failed);
	return k - 1;
}

TEST_F_TIMEOUT(publish, update_fails_whole, 900)
{
	if (self->skip)
		SKIP(return, "%s", self->skip);
	update_sweep(_metadata, self, "UPDATE DiskIo to FileIo, HardFault, samples", NEW_FLAGS);
}

/*
 * The case: DiskIo off, PROFILE on, the samples' events failing
 * (the last point such an UPDATE meets): DiskIo goes on, the UPDATE fails.
 */
TEST_F_TIMEOUT(publish, disk_io_after_failed_update, 300)
{
	int points;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	points = update_sweep(_metadata, self, "UPDATE DiskIo to samples",
			      EVENT_TRACE_FLAG_PROFILE);

	/* the set's allocation, then the profile's perf events */
	EXPECT_LE(2, points);
}

TEST_F_TIMEOUT(publish, start_fails_whole, 900)
{
	struct run other, run;
	struct kinds c, oc;
	int k, ret, left, failed = 0;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, run_start(self->ctl, BYSTANDER, EVENT_TRACE_FLAG_CSWITCH, &other));
	for (k = 1; k <= SWEEP_MAX; k++) {
		ASSERT_EQ(0, fail_nth(k));
		ret = run_start(self->ctl, LOGGER, NEW_FLAGS | DISK_FLAGS, &run);
		left = fail_nth_left();
		fail_nth(0);
		if (ret) {
			struct ntkl_properties q;

			failed++;
			EXPECT_EQ(-ENOMEM, ret) TH_LOG("START, point %d: %s", k, strerror(-ret));
			/* nothing half made: the name is free */
			props_select(&q, LOGGER);
			EXPECT_EQ(-ENOENT, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
			if (!_metadata->passed)
				break;
			continue;
		}
		workload(&self->fs);
		ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
		/* succeeded whole: no point failed */
		EXPECT_TRUE(all_new_kinds(&c) && c.disk_read) kinds_log("START", k, 0, &c);
		if (left > 0 || !_metadata->passed)
			break;
	}
	printf("# START of every kind: %d fault points, %d calls failed at one\n", k - 1, failed);
	fflush(stdout);
	EXPECT_LT(k, SWEEP_MAX);
	EXPECT_LT(0, failed);
	/* the other logger ran on through every failed START */
	ASSERT_EQ(0, run_stop(self->ctl, BYSTANDER, &other, &oc));
	EXPECT_LT(0, oc.cswitch);
	EXPECT_TRUE(no_new_kinds(&oc) && !oc.disk_read) kinds_log("the other logger", 0, 0, &oc);
}

TEST_F(publish, stop_meets_no_fault_point)
{
	struct ntkl_properties p;
	struct run run, other;
	struct kinds c;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, run_start(self->ctl, BYSTANDER, EVENT_TRACE_FLAG_CSWITCH, &other));
	ASSERT_EQ(0, run_start(self->ctl, LOGGER, NEW_FLAGS | DISK_FLAGS, &run));
	ASSERT_EQ(0, fail_nth(1));
	props_select(&p, LOGGER);
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_STOP, &p));
	EXPECT_EQ(1, fail_nth_left());
	fail_nth(0);
	pthread_join(run.th, NULL);
	close(run.job.fd);
	capture_free(&run.job.c);
	ASSERT_EQ(0, run_stop(self->ctl, BYSTANDER, &other, &c));
	EXPECT_LT(0, c.cswitch);
}

/* Busy for ms milliseconds on cpu, then back on any CPU. */
static void busy_on(int cpu, int ms)
{
	volatile unsigned long spin = 0;
	struct timespec a, b;
	cpu_set_t set, old;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			spin++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	sched_setaffinity(0, sizeof(old), &old);
}

static int profile_interval(int ctl, uint32_t *interval, uint32_t set)
{
	struct ntkl_profile_interval pi = { .size = sizeof(pi), .interval = set };

	if (set)
		return ntkl_ctl(ctl, NTKL_IOC_SET_PROFILE_INTERVAL, &pi);
	pi.interval = 0;
	if (ntkl_ctl(ctl, NTKL_IOC_GET_PROFILE_INTERVAL, &pi))
		return -errno;
	*interval = pi.interval;
	return 0;
}

/*
 * SET_PROFILE_INTERVAL while a PROFILE logger runs changes every CPU's
 * sampling event, one after the other: with the k-th failing, the call
 * fails and every CPU samples at the old interval (1 ms: a CPU kept busy
 * 100 ms gives tens of samples), not the new one (1 s: none or one), and
 * no SetInterval is written; or it succeeds, says the new interval and
 * writes SetInterval.
 */
TEST_F_TIMEOUT(publish, profile_interval_fails_whole, 600)
{
	uint32_t old = 0, now = 0;
	int k, ret, left = 0, failed = 0, cpu;
	int cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct kinds c;
	struct run run;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, profile_interval(self->ctl, &old, 0));
	ASSERT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, old);
	for (k = 1; k <= SWEEP_MAX; k++) {
		ASSERT_EQ(0, run_start(self->ctl, LOGGER, EVENT_TRACE_FLAG_PROFILE, &run));
		ASSERT_EQ(0, fail_nth(k));
		ret = profile_interval(self->ctl, NULL, NTKL_PROFILE_INTERVAL_MAX);
		left = fail_nth_left();
		fail_nth(0);
		ASSERT_EQ(0, profile_interval(self->ctl, &now, 0));
		for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++)
			busy_on(cpu, 100);
		ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
		if (ret) {
			failed++;
			EXPECT_EQ(-EINVAL, ret);
			EXPECT_EQ(old, now);
			EXPECT_EQ(0, c.set_interval);
			for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
				EXPECT_LE(5, c.sample_on[cpu])
					TH_LOG("point %d: CPU %d gave %u samples in 100 ms: its interval changed",
					       k, cpu, c.sample_on[cpu]);
			}
		} else {
			EXPECT_EQ(NTKL_PROFILE_INTERVAL_MAX, now);
			EXPECT_LT(0, c.set_interval);
			EXPECT_EQ(0, profile_interval(self->ctl, NULL, old));
		}
		if (left > 0 || !_metadata->passed)
			break;
	}
	profile_interval(self->ctl, NULL, old);
	printf("# SET_PROFILE_INTERVAL on %d CPUs: %d fault points, %d calls failed at one, each whole\n",
	       cpus, k - 1, failed);
	fflush(stdout);
	EXPECT_LT(0, left) TH_LOG("the sweep never got past the last point");
	EXPECT_EQ(cpus, failed);
}

static int stack_tracing(int ctl, const char *name, uint16_t hook, uint32_t *count)
{
	struct ntkl_stack_tracing st = { .size = sizeof(st) };
	uint16_t hooks[NTKL_STACK_HOOKS_MAX];

	snprintf(st.logger_name, sizeof(st.logger_name), "%s", name);
	if (!count) {
		st.count = 1;
		st.hooks = (uintptr_t)&hook;
		return ntkl_ctl(ctl, NTKL_IOC_SET_STACK_TRACING, &st);
	}
	st.count = NTKL_STACK_HOOKS_MAX;
	st.hooks = (uintptr_t)hooks;
	if (ntkl_ctl(ctl, NTKL_IOC_GET_STACK_TRACING, &st))
		return -errno;
	*count = st.count;
	return 0;
}

/*
 * SET_STACK_TRACING of CSwitch on a running CSwitch logger, with the k-th
 * point failing (the set, CSwitch's parked stacks, the stack cache): a
 * failed call leaves the logger walking nothing, recording CSwitch as
 * before; one that succeeds gives CSwitch stacks.
 */
TEST_F_TIMEOUT(publish, stack_tracing_fails_whole, 600)
{
	int k, ret, left, failed = 0;
	uint32_t walks;
	struct kinds c;
	struct run run;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	for (k = 1; k <= SWEEP_MAX; k++) {
		ASSERT_EQ(0, run_start(self->ctl, LOGGER, EVENT_TRACE_FLAG_PROCESS |
				       EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH, &run));
		ASSERT_EQ(0, fail_nth(k));
		ret = stack_tracing(self->ctl, LOGGER, NTKL_STACK_HOOK_CSWITCH, NULL);
		left = fail_nth_left();
		fail_nth(0);
		ASSERT_EQ(0, stack_tracing(self->ctl, LOGGER, 0, &walks));
		usleep(50000);
		ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
		EXPECT_LT(0, c.cswitch);
		if (ret) {
			failed++;
			EXPECT_EQ(-ENOMEM, ret);
			EXPECT_EQ(0, walks);
			EXPECT_EQ(0, c.stack) TH_LOG("point %d: failed, yet %u stacks", k, c.stack);
		} else {
			EXPECT_EQ(1, walks);
			EXPECT_LT(0, c.stack);
		}
		if (left > 0 || !_metadata->passed)
			break;
	}
	printf("# SET_STACK_TRACING CSwitch: %d fault points, %d calls failed at one, each whole\n",
	       k - 1, failed);
	fflush(stdout);
	EXPECT_LT(k, SWEEP_MAX);
	EXPECT_LT(0, failed);
}

/*
 * A child woken n times from read() of a pipe: switched in while FileIo's
 * kretprobe on vfs_read has its return address, with CSwitch stacks on.
 * The kernel's unwinder warns if such a task's kernel stack is walked
 * (ntkl_stack_switch() must not); vm-run fails on the warning.
 */
static void pipe_waits(int n)
{
	int fds[2];
	pid_t pid;
	char b = 0;

	if (pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		while (read(fds[0], &b, 1) == 1)
			;
		_exit(0);
	}
	close(fds[0]);
	for (int i = 0; pid > 0 && i < n; i++) {
		usleep(1000);
		if (write(fds[1], &b, 1) != 1)
			break;
	}
	close(fds[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * What needs nothing new meets no fault point and so cannot fail half
 * way: FLUSH (CompCS batches, stack key definitions, buffers), BIND,
 * SET_SPINLOCK_CONFIG, and the GETs and QUERY.
 */
TEST_F(publish, other_calls_meet_no_fault_point)
{
	struct ntkl_spinlock_config sc = { .size = sizeof(sc) };
	struct ntkl_properties p;
	uint32_t v, walks;
	struct run run;
	struct kinds c;
	int fd;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, run_start(self->ctl, LOGGER, NEW_FLAGS | DISK_FLAGS |
			       EVENT_TRACE_FLAG_CSWITCH, &run));
	ASSERT_EQ(0, stack_tracing(self->ctl, LOGGER, NTKL_STACK_HOOK_CSWITCH, NULL));
	usleep(20000);

	props_select(&p, LOGGER);
	ASSERT_EQ(0, fail_nth(1));
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &p));
	EXPECT_EQ(1, fail_nth_left()) TH_LOG("FLUSH met a fault point");

	props_select(&p, LOGGER);
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &p));
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_GET_SPINLOCK_CONFIG, &sc));
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_SET_SPINLOCK_CONFIG, &sc));
	EXPECT_EQ(0, profile_interval(self->ctl, &v, 0));
	EXPECT_EQ(0, stack_tracing(self->ctl, LOGGER, 0, &walks));
	EXPECT_EQ(1, fail_nth_left()) TH_LOG("QUERY, a GET or SET_SPINLOCK_CONFIG met a fault point");

	/* a second reader of one logger is refused, without a fault point */
	fd = ntkl_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, ntkl_bind_id(fd, run.id));
	close(fd);
	EXPECT_EQ(1, fail_nth_left()) TH_LOG("BIND met a fault point");
	fail_nth(0);

	workload(&self->fs);
	pipe_waits(100);
	ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
	EXPECT_TRUE(all_new_kinds(&c) && c.disk_read && c.stack) kinds_log("after them", 0, 0, &c);
}

/*
 * A probe whose kernel function is absent (made so by fault_absent: a
 * kretprobe point's failure then says -ENOENT) does not fail START: the
 * answer names each event it costs, and a capture lacks those of them
 * that come from nowhere else (Close) and has the rest. Once the function
 * is back, nothing is named.
 */
#define FILE_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_FILE_IO | EVENT_TRACE_FLAG_FILE_IO_INIT)

static bool names_hook(const struct ntkl_properties *p, uint16_t hook)
{
	for (unsigned int i = 0; i < p->absent_count && i < NTKL_ABSENT_HOOKS_MAX; i++)
		if (p->absent_hooks[i] == hook)
			return true;
	return false;
}

TEST_F_TIMEOUT(publish, absent_function_is_named, 900)
{
	int k, ret, left, named = 0;
	struct ntkl_properties q;
	struct run run = { 0 };
	struct kinds c;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, write_file(FAULT_ABSENT, "Y"));
	for (k = 1; k <= SWEEP_MAX; k++) {
		ASSERT_EQ(0, fail_nth(k));
		ret = run_start(self->ctl, LOGGER, FILE_FLAGS, &run);
		left = fail_nth_left();
		fail_nth(0);
		if (ret) {
			/* an allocation or a tracepoint: no memory, nothing half made */
			EXPECT_EQ(-ENOMEM, ret);
			if (!_metadata->passed)
				break;
			continue;
		}
		workload(&self->fs);
		props_select(&q, LOGGER);
		EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
		EXPECT_EQ(run.props.absent_count, q.absent_count);
		ASSERT_EQ(0, run_stop(self->ctl, LOGGER, &run, &c));
		EXPECT_GE(NTKL_ABSENT_HOOKS_MAX, run.props.absent_count);
		named += run.props.absent_count > 0;
		/* Close comes from __fput alone; Create, Read, Write from several */
		EXPECT_EQ(names_hook(&run.props, ETW_EVENT_FILEIO_CLOSE_HOOK), !c.close);
		EXPECT_TRUE(names_hook(&run.props, ETW_EVENT_FILEIO_CREATE_HOOK) || c.create);
		EXPECT_TRUE(names_hook(&run.props, ETW_EVENT_FILEIO_READ_HOOK) || c.read);
		EXPECT_TRUE(names_hook(&run.props, ETW_EVENT_FILEIO_WRITE_HOOK) || c.write);
		if (!_metadata->passed || run.props.absent_count || k < 4) {
			printf("# point %d: %u named (%#x %#x), Create %u Read %u Write %u Close %u\n",
			       k, run.props.absent_count, run.props.absent_hooks[0],
			       run.props.absent_hooks[1], c.create, c.read, c.write, c.close);
			fflush(stdout);
		}
		if (left > 0 || !_metadata->passed)
			break;
	}
	write_file(FAULT_ABSENT, "N");
	printf("# START of FileIo: %d fault points, %d named an absent function\n", k - 1, named);
	fflush(stdout);
	EXPECT_LT(k, SWEEP_MAX);
	/* each of FileIo's twelve probes, the one with two names twice */
	EXPECT_LE(11, named);
	/* the last START met no failure: nothing named */
	EXPECT_EQ(0, run.props.absent_count);
}

TEST_HARNESS_MAIN
