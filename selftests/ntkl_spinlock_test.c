// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_spinlock_test: sampled spin lock records against the kernel's own
 * count. tracefs's lock:contention_begin events and an ntkl SPINLOCK
 * logger watch the same workload (threads fighting over a file table and a
 * pipe); with ContentionSampleRate 1 the workload threads' records equal
 * their contended spin acquisitions, with rate N all records are about
 * 1/N of all contentions. Records must be plausible, callers must resolve
 * in /proc/kallsyms when raw, and addresses must be hashed for a reader
 * without CAP_SYSLOG or when kptr_restrict forbids.
 *
 * The kernel's model decides what a spin lock contention is: spinning
 * locks (qspinlock, qrwlock: flags SPIN) everywhere, and on PREEMPT_RT
 * also spinlock_t and rwlock_t, rt_mutexes there (flags RT, from
 * rt_spin_lock(), rt_read_lock() or rt_write_lock(): the contention_begin
 * trigger's stack trace says which), where the same workload's spin_lock()
 * sites (the file table, the pipe's wait queue) contend.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define TRACEFS		"/sys/kernel/tracing"
#define WORKERS		8
#define WORK_MS		1500
#define MAX_PIDS	64

struct spin_census {
	unsigned int records;
	unsigned int per_pid[MAX_PIDS];		/* by index in pids[] */
	unsigned int bad_depth, bad_wait, bad_caller, unresolved, raw_looking;
	uint64_t first_caller;
	bool check_callers;
};

static pid_t pids[MAX_PIDS];
static unsigned int npids;
static pthread_mutex_t pids_lock = PTHREAD_MUTEX_INITIALIZER;
static int work_pipe[2];
static int work_efd = -1;	/* on RT, instead of the pipe */

static int pid_index(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < npids; i++)
		if (pids[i] == pid)
			return i;
	return -1;
}

static void *worker(void *arg)
{
	struct timespec start, now;
	char buf[256];

	pthread_mutex_lock(&pids_lock);
	pids[npids++] = syscall(SYS_gettid);
	pthread_mutex_unlock(&pids_lock);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int fd = open("/proc/self/stat", O_RDONLY);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
			close(fd);
		}
		if (work_efd >= 0) {
			uint64_t one = 1;

			/* another thread may have taken the count: EAGAIN */
			if (write(work_efd, &one, sizeof(one)) != sizeof(one) ||
			    (read(work_efd, &one, sizeof(one)) < 0 && errno != EAGAIN))
				break;
		} else if (write(work_pipe[1], "x", 1) != 1 || read(work_pipe[0], buf, 1) != 1) {
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 <
		 WORK_MS);
	return arg;
}

static bool preempt_rt(void);

/*
 * On PREEMPT_RT the pipe's mutex is an rt_mutex its threads sleep on in
 * turn, so the spin_lock() sites behind it (its wait queue) never meet: an
 * eventfd there, whose count and wait queue are behind a spinlock_t only.
 */
static void run_workload(void)
{
	pthread_t t[WORKERS];
	int i;

	npids = 0;
	if (pipe(work_pipe))
		return;
	work_efd = preempt_rt() ? eventfd(0, EFD_NONBLOCK) : -1;
	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	close(work_pipe[0]);
	close(work_pipe[1]);
	if (work_efd >= 0)
		close(work_efd);
	work_efd = -1;
}

/*
 * Per-CPU trace buffer size while the test counts: a contention storm on a
 * single-threaded TCG guest writes a few MB per CPU, more than the default
 * buffer holds, and tracefs would overwrite the oldest events.
 */
#define TRACEFS_BUFFER_KB	"16384"

static char saved_buffer_kb[32];

/* CONFIG_PREEMPT_RT in the running kernel: /sys/kernel/realtime, or uname -v */
static bool preempt_rt(void)
{
	struct utsname u;

	if (access("/sys/kernel/realtime", F_OK) == 0)
		return true;
	return uname(&u) == 0 && strstr(u.version, "PREEMPT_RT");
}

/*
 * On RT, a stack trace after each RT or RT|WRITE contention_begin (what a
 * sleeping spin lock's wait begins with; RT|READ is an rwlock reader's
 * outer begin, its wait the rt_mutex's RT), to tell spinlock_t and
 * rwlock_t (rt_spin_lock() and kin) from mutexes, also RT there.
 */
#define RT_TRIGGER	"stacktrace if flags == 8 || flags == 12"

static void tracefs_lock_events(bool on)
{
	/* the logger's QPC time base; setting it also empties the trace */
	if (on) {
		int fd = open(TRACEFS "/buffer_size_kb", O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, saved_buffer_kb, sizeof(saved_buffer_kb) - 1) : -1;

		saved_buffer_kb[n > 0 ? n : 0] = 0;
		if (fd >= 0)
			close(fd);
		write_file(TRACEFS "/buffer_size_kb", TRACEFS_BUFFER_KB);
		write_file(TRACEFS "/trace_clock", "mono");
	}
	if (preempt_rt())
		write_file(TRACEFS "/events/lock/contention_begin/trigger",
			   on ? RT_TRIGGER : "!" RT_TRIGGER);
	write_file(TRACEFS "/events/lock/contention_begin/enable", on ? "1" : "0");
	write_file(TRACEFS "/events/lock/contention_end/enable", on ? "1" : "0");
	write_file(TRACEFS "/tracing_on", on ? "1" : "0");
}

/* The CPU of a trace line ("comm-pid [003] ..."), or -1. */
static int line_cpu(const char *line)
{
	const char *b = strchr(line, '[');

	return b ? atoi(b + 1) : -1;
}

#define MAX_CPUS	256

/* The trace line's timestamp: the token before the event ("12.345678:"), in ns. */
static uint64_t line_time(const char *line, const char *event)
{
	const char *end = event, *start;
	double secs;

	while (end > line && end[-1] == ' ')
		end--;
	start = end;
	while (start > line && start[-1] != ' ')
		start--;
	return sscanf(start, "%lf", &secs) == 1 ? secs * 1e9 : 0;
}

/* The window both recorders watch, between two trace_marker lines (ns). */
static uint64_t window_begin, window_end;

static void mark(const char *text, uint64_t *when)
{
	struct timespec now;

	write_file(TRACEFS "/trace_marker", text);
	clock_gettime(CLOCK_MONOTONIC, &now);
	*when = now.tv_sec * 1000000000ULL + now.tv_nsec;
}

/* The workload thread of a trace line ("   comm-pid   [cpu] ..."), or -1. */
static int line_pid_index(char *line)
{
	char *dash = strchr(line, '[');

	while (dash && dash > line && *dash != '-')
		dash--;
	return dash ? pid_index(atoi(dash + 1)) : -1;
}

/* RT contentions in the window waiting for their stack trace, per CPU. */
struct rt_pending {
	bool waiting;
	int idx;
};

/* tracefs's RT-flagged contentions of sleeping spin locks, per thread */
static unsigned int rt_per_pid[MAX_PIDS];
static long rt_total;

/*
 * Count the contentions tracefs saw in the window that ntkl records: of
 * spinning locks (flags SPIN, SPIN|READ or SPIN|WRITE), and on RT of
 * sleeping spin locks (RT or RT|WRITE with rt_spin_lock(), rt_read_lock()
 * or rt_write_lock() on the stack, also counted in rt_per_pid), per
 * workload thread and in all. Returns -1 if tracefs lost or overwrote
 * events.
 */
static long tracefs_count(unsigned int per_pid[MAX_PIDS])
{
	FILE *f = fopen(TRACEFS "/trace", "r");
	static struct rt_pending pending[MAX_CPUS];
	unsigned long kept, written;
	struct rt_pending *stack = NULL;
	char line[512];
	long total = 0;

	if (!f)
		return -1;
	memset(per_pid, 0, MAX_PIDS * sizeof(*per_pid));
	memset(rt_per_pid, 0, sizeof(rt_per_pid));
	memset(pending, 0, sizeof(pending));
	rt_total = 0;
	while (fgets(line, sizeof(line), f)) {
		char *ev = strstr(line, "contention_begin:"), *flags;
		int idx, cpu;
		uint64_t t;

		/* a stack trace's frames: " => function" */
		if (!strncmp(line, " => ", 4)) {
			if (stack && (strstr(line, " rt_spin_lock") || strstr(line, " rt_read_lock") ||
				      strstr(line, " rt_write_lock"))) {
				total++;
				rt_total++;
				if (stack->idx >= 0) {
					per_pid[stack->idx]++;
					rt_per_pid[stack->idx]++;
				}
				stack->waiting = false;
				stack = NULL;
			}
			continue;
		}
		/* the trigger's entry follows its event on the same CPU */
		stack = NULL;
		cpu = line_cpu(line);
		if (line[0] != '#' && strstr(line, "<stack trace>")) {
			if (cpu >= 0 && cpu < MAX_CPUS && pending[cpu].waiting) {
				stack = &pending[cpu];
				stack->waiting = false;
			}
			continue;
		}

		if (strstr(line, "LOST") && strstr(line, "EVENTS")) {
			fclose(f);
			return -1;
		}
		/* fewer entries kept than written: the oldest were overwritten */
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &kept, &written) == 2 && kept != written) {
			fclose(f);
			return -1;
		}
		if (!ev || line[0] == '#')
			continue;
		t = line_time(line, ev);
		if (t < window_begin || t > window_end)
			continue;
		flags = strstr(ev, "flags=");
		if (flags && (!strncmp(flags, "flags=RT)", 9) || !strncmp(flags, "flags=RT|WRITE)", 15))) {
			if (cpu >= 0 && cpu < MAX_CPUS)
				pending[cpu] = (struct rt_pending){ true, line_pid_index(line) };
			continue;
		}
		if (!flags || (strncmp(flags, "flags=SPIN)", 11) && strncmp(flags, "flags=SPIN|READ)", 16) &&
			       strncmp(flags, "flags=SPIN|WRITE)", 17)))
			continue;
		total++;
		idx = line_pid_index(line);
		if (idx >= 0)
			per_pid[idx]++;
	}
	fclose(f);
	return total;
}

/* Does addr fall inside a kernel function per /proc/kallsyms? */
static bool resolves(uint64_t addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long best = 0, a;
	char type, name[256];

	if (!f)
		return false;
	while (fscanf(f, "%llx %c %255s%*[^\n]", &a, &type, name) == 3)
		if ((type == 't' || type == 'T') && a <= addr && a > best)
			best = a;
	fclose(f);
	/* no kernel function is longer than 1 MiB */
	return best && addr - best < (1 << 20);
}

static void spin_census_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct spin_census *s = ctx;
	const struct wmi_spinlock *sl;
	int idx;

	if (!r || r->hook_id != ETW_EVENT_SPINLOCK_HOOK || r->payload_len != sizeof(*sl))
		return;
	sl = (const void *)r->payload;
	if ((uint64_t)r->timestamp * 100 < window_begin ||
	    (uint64_t)r->timestamp * 100 > window_end)
		return;
	s->records++;
	idx = pid_index(sl->thread_id);
	if (idx >= 0)
		s->per_pid[idx]++;
	s->bad_depth += sl->acquire_depth < 1;
	s->bad_wait += sl->wait_time_in_cycles == 0 || sl->release_time != sl->acquire_time;
	s->bad_caller += !sl->caller_address;
	s->raw_looking += sl->spin_lock_address > 0xffffffffULL;
	if (!s->first_caller)
		s->first_caller = sl->caller_address;
	/* resolving is slow: the first few records say enough */
	if (s->check_callers && s->records <= 20 && !resolves(sl->caller_address))
		s->unresolved++;
}

static void spin_census_of(struct capture *c, struct spin_census *s, bool check_callers)
{
	memset(s, 0, sizeof(*s));
	s->check_callers = check_callers;
	capture_walk(c, spin_census_record, s, NULL);
}

static int set_config(int fd, uint32_t spin, uint32_t acquire, uint32_t contention,
		      uint32_t hold)
{
	struct ntkl_spinlock_config c = {
		.size = sizeof(c),
		.spin_threshold = spin,
		.acquire_sample_rate = acquire,
		.contention_sample_rate = contention,
		.hold_threshold = hold,
	};

	return ntkl_ctl(fd, NTKL_IOC_SET_SPINLOCK_CONFIG, &c);
}

/*
 * Record the workload with tracefs and one SPINLOCK logger, whose reader
 * drains while the workload runs (a contention storm can be large).
 */
static int record(int ctl, struct capture *c, unsigned int per_pid[MAX_PIDS], long *total)
{
	struct ntkl_properties p, q = { .size = sizeof(q) };
	struct drain_job d = { 0 };
	int rd = ntkl_open(), ret;
	pthread_t th;

	tracefs_lock_events(true);
	props_init(&p, "selftest spin", 0);
	perf_group_set((struct perfinfo_groupmask *)p.group_masks, PERF_SPINLOCK);
	p.maximum_buffers = 256;
	ret = ntkl_ctl(ctl, NTKL_IOC_START, &p);
	if (!ret)
		ret = ntkl_bind_id(rd, p.logger_id);
	d.fd = rd;
	d.size = p.buffer_size_kb * 1024;
	if (!ret)
		ret = -pthread_create(&th, NULL, drain_thread, &d);
	if (!ret) {
		mark("ntkl window begin", &window_begin);
		run_workload();
		mark("ntkl window end", &window_end);
		ret = ntkl_stop_name(ctl, "selftest spin");
		pthread_join(th, NULL);
		if (!ret)
			ret = d.ret;
		*c = d.c;	/* the caller frees it */
	}
	tracefs_lock_events(false);
	if (!ret)
		ret = ntkl_ctl(rd, NTKL_IOC_QUERY, &q);
	if (!ret && q.events_lost)
		ret = -ENOBUFS;
	close(rd);
	*total = tracefs_count(per_pid);
	if (saved_buffer_kb[0])
		write_file(TRACEFS "/buffer_size_kb", saved_buffer_kb);
	return ret;
}

FIXTURE(spin) {
	int fd;
};

FIXTURE_SETUP(spin)
{
	self->fd = ntkl_open();
	ASSERT_GE(self->fd, 0);
	write_file("/proc/sys/kernel/kptr_restrict", "1");
}

FIXTURE_TEARDOWN(spin)
{
	/* a failed case leaves no logger running into the next */
	ntkl_stop_every_logger(self->fd);
	set_config(self->fd, 0, 0, 0, 0);
	write_file("/proc/sys/kernel/kptr_restrict", "0");
	close(self->fd);
}

TEST_F(spin, config_bounds)
{
	struct ntkl_spinlock_config c = { .size = sizeof(c) };

	ASSERT_EQ(0, set_config(self->fd, 0, 0, 0, 0));
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_GET_SPINLOCK_CONFIG, &c));
	EXPECT_EQ(1, c.spin_threshold);
	EXPECT_EQ(1000, c.acquire_sample_rate);
	EXPECT_EQ(1, c.contention_sample_rate);
	EXPECT_EQ(1000000, c.hold_threshold);

	EXPECT_EQ(-EINVAL, set_config(self->fd, 0, 1000, 1, 1000000));	/* spin < 1 */
	EXPECT_EQ(-EINVAL, set_config(self->fd, 1, 999, 1, 1000000));	/* acquire < 1000 */
	EXPECT_EQ(-EINVAL, set_config(self->fd, 1, 1000, 0, 1000000));	/* contention < 1 */
	EXPECT_EQ(-EINVAL, set_config(self->fd, 1, 1000, 1, 999999));	/* hold below 1e6 */
	c.size = sizeof(c);
	c.__reserved0 = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->fd, NTKL_IOC_SET_SPINLOCK_CONFIG, &c));

	ASSERT_EQ(0, set_config(self->fd, 2, 5000, 7, 0));		/* hold 0: off */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(0, ntkl_ctl(self->fd, NTKL_IOC_GET_SPINLOCK_CONFIG, &c));
	EXPECT_EQ(2, c.spin_threshold);
	EXPECT_EQ(5000, c.acquire_sample_rate);
	EXPECT_EQ(7, c.contention_sample_rate);
	EXPECT_EQ(0, c.hold_threshold);
}

/* Rate 1: every contended spin acquisition of the workload is a record. */
TEST_F_TIMEOUT(spin, every_contention, 180)
{
	unsigned int traced[MAX_PIDS], i, workload = 0, rt_workload = 0;
	struct capture c = { 0 };
	struct spin_census s;
	bool rt = preempt_rt();
	long total;

	ASSERT_EQ(0, set_config(self->fd, 1, 1000, 1, 1000000));
	ASSERT_EQ(0, record(self->fd, &c, traced, &total));
	ASSERT_GE(total, 0) TH_LOG("tracefs lost events");
	spin_census_of(&c, &s, true);

	for (i = 0; i < npids; i++) {
		EXPECT_EQ(traced[i], s.per_pid[i]) TH_LOG("thread %d", pids[i]);
		workload += traced[i];
		rt_workload += rt_per_pid[i];
	}
	TH_LOG("%u records, %ld contentions in tracefs, %u by the workload", s.records, total,
	       workload);
	/*
	 * On RT the workload's spin_lock() sites wait as rt_mutexes: those
	 * must be there, not only the few raw spinlocks left.
	 */
	if (rt) {
		TH_LOG("PREEMPT_RT: %ld sleeping spin lock contentions, %u by the workload",
		       rt_total, rt_workload);
		EXPECT_GT(rt_workload, 10);
	} else {
		EXPECT_GT(workload, 10);
	}
	EXPECT_EQ(0, s.bad_depth);
	EXPECT_EQ(0, s.bad_wait);
	EXPECT_EQ(0, s.bad_caller);
	EXPECT_EQ(0, s.unresolved) TH_LOG("first caller 0x%llx",
					  (unsigned long long)s.first_caller);
	capture_free(&c);
}

/* Rate N: about one record for every N contentions, per CPU. */
TEST_F_TIMEOUT(spin, sampled_contention, 180)
{
	const unsigned int rate = 4;
	unsigned int traced[MAX_PIDS];
	struct capture c = { 0 };
	struct spin_census s;
	long total, expect, cpus = sysconf(_SC_NPROCESSORS_ONLN);

	ASSERT_EQ(0, set_config(self->fd, 1, 1000, rate, 1000000));
	ASSERT_EQ(0, record(self->fd, &c, traced, &total));
	ASSERT_GE(total, 0) TH_LOG("tracefs lost events");
	spin_census_of(&c, &s, false);

	/*
	 * Each CPU records its first contention, then every rate-th: one more
	 * per CPU at most; and a contention in flight on each CPU at either
	 * edge of the window may be counted on one side only.
	 */
	expect = total / rate;
	TH_LOG("%u records for %ld contentions at rate %u", s.records, total, rate);
	EXPECT_GE(s.records + 2 * cpus, expect);
	EXPECT_LE(s.records, expect + 3 * cpus);
	EXPECT_GT(s.records, 0);
	capture_free(&c);
}

static int drop_cap_syslog(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_SYSLOG / 32].effective &= ~(1u << (CAP_SYSLOG % 32));
	d[CAP_SYSLOG / 32].permitted &= ~(1u << (CAP_SYSLOG % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* Raw addresses only for a reader who may read them in /proc/kallsyms. */
TEST_F_TIMEOUT(spin, addresses_hashed_unless_allowed, 300)
{
	unsigned int traced[MAX_PIDS];
	struct capture c = { 0 };
	struct spin_census s;
	long total;
	pid_t pid;
	int status;

	/* kptr_restrict 1 and CAP_SYSLOG (root): raw, as every_contention saw */
	ASSERT_EQ(0, record(self->fd, &c, traced, &total));
	spin_census_of(&c, &s, false);
	EXPECT_GT(s.records, 0);
	EXPECT_EQ(s.records, s.raw_looking);
	capture_free(&c);

	/* kptr_restrict 2: hashed even for root */
	ASSERT_EQ(0, write_file("/proc/sys/kernel/kptr_restrict", "2"));
	ASSERT_EQ(0, record(self->fd, &c, traced, &total));
	spin_census_of(&c, &s, false);
	EXPECT_GT(s.records, 0);
	EXPECT_EQ(0, s.raw_looking);
	capture_free(&c);
	ASSERT_EQ(0, write_file("/proc/sys/kernel/kptr_restrict", "1"));

	/* a reader without CAP_SYSLOG: hashed */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (drop_cap_syslog() || record(self->fd, &c, traced, &total))
			_exit(2);
		spin_census_of(&c, &s, false);
		_exit(s.records > 0 && s.raw_looking == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
