// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_profile_test: PROFILE (SampledProfile 0x0F2E) against independent
 * truth. A child pinned to one CPU does a fixed amount of work in a loop
 * of this program's own code while a PROFILE logger runs; then:
 *
 *  - that CPU has samples, and the large majority of them while the child
 *    ran carry the child's thread id, with an IP inside this program's
 *    text (its r-xp mapping in /proc/self/maps, which the child shares);
 *    idle CPUs' samples carry the idle thread (0);
 *  - the child's samples times the interval come near the CPU time the
 *    kernel charged it (wait4's rusage);
 *  - the samples of that CPU are spaced by the interval in the file's own
 *    clock, and by another after the interval is changed (ioctl, as
 *    -setprofint does), which writes SetInterval;
 *  - CollectionStart and CollectionEnd carry the interval (timer source,
 *    "Timer");
 *  - a logger without PROFILE beside it gets no sample; two PROFILE
 *    loggers both sample, and the one left after the other stops goes on;
 *  - a CPU taken offline and back keeps its samples coming;
 *  - user IPs are never hashed, kernel IPs are for readers that may not
 *    see kernel addresses;
 *  - the interval's bounds are xperf's, and unloading with a profiling
 *    logger running releases everything (the hotplug state goes).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"
#include "etl_profile.h"

#define HOTPLUG_STATES	"/sys/devices/system/cpu/hotplug/states"
#define HOTPLUG_NAME	"ntkl/profile:online"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"
#define WORK		150000000ULL	/* loop turns of the busy child */
#define MAX_SAMPLES	200000

struct sample {
	int64_t time;
	uint64_t ip;
	uint32_t tid;
	uint16_t cpu;
	uint8_t flags;
};

struct profile_view {
	struct sample *s;
	size_t n;
	unsigned int starts, ends, sets;
	uint32_t start_interval, end_interval, set_new, set_old;
	int64_t set_time;
	bool interval_shape_ok;		/* header, version, source, name */
	int64_t perf_freq;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct profile_view *v = ctx;
	const struct etw_sampled_profile_interval *pi;
	static const uint8_t timer[] = { 'T', 0, 'i', 0, 'm', 0, 'e', 0, 'r', 0, 0, 0 };

	v->perf_freq = f->header.perf_freq;
	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	if (r->hook_id == ETW_EVENT_SAMPLED_PROFILE_HOOK) {
		const struct perfinfo_sampled_profile *sp = (const void *)r->payload;

		if (r->payload_len != sizeof(*sp) || v->n == MAX_SAMPLES)
			return;
		v->s[v->n++] = (struct sample){ r->timestamp, sp->instruction_pointer,
						sp->thread_id, b->hdr.processor_index,
						sp->flags };
		return;
	}
	if (r->hook_id < ETW_EVENT_PROFILE_SET_INTERVAL_HOOK ||
	    r->hook_id > ETW_EVENT_PROFILE_COLLECTION_END_HOOK)
		return;
	pi = (const void *)r->payload;
	if (r->header_type != ETW_HEADER_TYPE_SYSTEM64 || (r->version & 0xFF) != 3 ||
	    r->payload_len != sizeof(*pi) + sizeof(timer) || pi->source != 0 ||
	    memcmp(r->payload + sizeof(*pi), timer, sizeof(timer)))
		v->interval_shape_ok = false;
	if (r->hook_id == ETW_EVENT_PROFILE_COLLECTION_START_HOOK) {
		v->starts++;
		v->start_interval = pi->new_interval;
	} else if (r->hook_id == ETW_EVENT_PROFILE_COLLECTION_END_HOOK) {
		v->ends++;
		v->end_interval = pi->new_interval;
	} else {
		v->sets++;
		v->set_new = pi->new_interval;
		v->set_old = pi->old_interval;
		v->set_time = r->timestamp;
	}
}

static int view_capture(struct capture *c, struct profile_view *v)
{
	memset(v, 0, sizeof(*v));
	v->s = calloc(MAX_SAMPLES, sizeof(*v->s));
	v->interval_shape_ok = true;
	if (!v->s)
		return -1;
	return capture_walk(c, view_record, v, &v->verdict);
}

/* The child's work: this program's code only, no system call. */
static __attribute__((noinline)) uint64_t busy(uint64_t turns)
{
	volatile uint64_t x = 1;
	uint64_t i;

	for (i = 0; i < turns; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* The CPU the child is pinned to: 1 if there is one, so the tests' own
 * threads have CPU 0 to run on. */
static int busy_cpu(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
}

/* Run turns of work pinned to cpu in a child; its pid (= tid) and CPU time (100 ns). */
static pid_t run_busy(int cpu, uint64_t turns, uint64_t *cpu_time)
{
	struct rusage ru;
	cpu_set_t set, mine;
	int status;
	pid_t pid;

	/*
	 * Born on cpu: the child inherits the affinity we have at fork, so
	 * none of its samples come from before it is pinned (on the debug
	 * kernel a child that pinned itself ran 2% of its time elsewhere).
	 */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_getaffinity(0, sizeof(mine), &mine) || sched_setaffinity(0, sizeof(set), &set))
		return -1;
	pid = fork();
	if (pid == 0) {
		busy(turns);
		_exit(0);
	}
	sched_setaffinity(0, sizeof(mine), &mine);
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	*cpu_time = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 10000000 +
		    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 10;
	return pid;
}

static int set_interval(int fd, uint32_t interval)
{
	struct ntkl_profile_interval pi = { .size = sizeof(pi), .interval = interval };

	return ntkl_ctl(fd, NTKL_IOC_SET_PROFILE_INTERVAL, &pi);
}

static uint32_t get_interval(int fd)
{
	struct ntkl_profile_interval pi = { .size = sizeof(pi) };

	return ntkl_ctl(fd, NTKL_IOC_GET_PROFILE_INTERVAL, &pi) ? 0 : pi.interval;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median gap between consecutive samples of cpu with from <= time <
 * to, in 100 ns units of the file's clock; 0 if fewer than 20 gaps.
 */
static int64_t median_gap(const struct profile_view *v, int cpu, int64_t from, int64_t to)
{
	int64_t *gaps = calloc(v->n, sizeof(*gaps)), prev = INT64_MIN, m;
	size_t i, n = 0;

	if (!gaps)
		return 0;
	for (i = 0; i < v->n; i++) {
		if (v->s[i].cpu != cpu || v->s[i].time < from || v->s[i].time >= to)
			continue;
		/* a CPU's buffers are in time order in the file */
		if (prev != INT64_MIN)
			gaps[n++] = (v->s[i].time - prev) * 10000000 / v->perf_freq;
		prev = v->s[i].time;
	}
	qsort(gaps, n, sizeof(*gaps), cmp_i64);
	m = n >= 20 ? gaps[n / 2] : 0;
	free(gaps);
	return m;
}

/* What the busy child left in the view. */
struct busy_view {
	unsigned long cpu_samples;	/* on its CPU while it ran */
	unsigned long tid_samples;	/* of its thread */
	unsigned long in_text;		/* of its thread, IP in our text */
	unsigned long user;		/* of its thread, IP in the lower half (user, or hashed) */
	unsigned long other_cpu;	/* of its thread elsewhere (never: born pinned) */
	unsigned long idle;		/* of the idle threads, anywhere */
	unsigned long idle_prio16;	/* ... with Priority 16, as Windows' */
	unsigned long prio8;		/* of its thread, with Priority 8 (nice 0) */
	int64_t first, last;
};

static void view_busy(const struct profile_view *v, int cpu, uint32_t tid, uint64_t lo,
		      uint64_t hi, struct busy_view *bv)
{
	size_t i;

	memset(bv, 0, sizeof(*bv));
	bv->first = INT64_MAX;
	bv->last = INT64_MIN;
	for (i = 0; i < v->n; i++) {
		unsigned int prio = v->s[i].flags >> ETW_PROFILE_PRIORITY_SHIFT;

		bv->idle += !v->s[i].tid;
		bv->idle_prio16 += !v->s[i].tid && prio == ETW_PROFILE_IDLE_PRIORITY;
		if (v->s[i].tid != tid)
			continue;
		bv->prio8 += prio == 8;
		bv->tid_samples++;
		bv->in_text += v->s[i].ip >= lo && v->s[i].ip < hi;
		bv->user += !(v->s[i].ip >> 63);
		bv->other_cpu += v->s[i].cpu != cpu;
		if (v->s[i].time < bv->first)
			bv->first = v->s[i].time;
		if (v->s[i].time > bv->last)
			bv->last = v->s[i].time;
	}
	for (i = 0; i < v->n; i++)
		bv->cpu_samples += v->s[i].cpu == cpu && v->s[i].time >= bv->first &&
				   v->s[i].time <= bv->last;
}

static bool hotplug_state_present(void)
{
	char line[256];
	FILE *f = fopen(HOTPLUG_STATES, "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, HOTPLUG_NAME) != NULL;
	fclose(f);
	return found;
}

/* a failed case leaves no logger running into the next (ntkl_util.h) */
NTKL_READER_FIXTURE(profile);

/* Start a logger with flags, its reader draining it in a thread. */
static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, uint32_t flags, struct drain_job *job, pthread_t *th)
{
	struct ntkl_properties p;

	props_init(&p, name, flags);
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	memset(job, 0, sizeof(*job));
	job->fd = reader;
	job->size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(th, NULL, drain_thread, job));
}

#define PROFILE_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_PROFILE)

/*
 * Two loggers at once: name2 (flags2) on a reader of its own, *reader2,
 * then "selftest profile" (PROFILE_FLAGS) on reader.
 */
static void start_pair(struct __test_metadata *_metadata, int ctl, int reader, int *reader2,
		       const char *name2, uint32_t flags2, struct drain_job *job2, pthread_t *th2,
		       struct drain_job *job, pthread_t *th)
{
	*reader2 = ntkl_open();
	ASSERT_GE(*reader2, 0);
	start_logger(_metadata, ctl, *reader2, name2, flags2, job2, th2);
	start_logger(_metadata, ctl, reader, "selftest profile", PROFILE_FLAGS, job, th);
}

static void stop_logger(struct __test_metadata *_metadata, int ctl, const char *name,
			struct drain_job *job, pthread_t th)
{
	struct ntkl_properties final = { .size = sizeof(final) };

	ASSERT_EQ(0, ntkl_stop_name(ctl, name));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, job->ret);
	ASSERT_EQ(0, ntkl_ctl(job->fd, NTKL_IOC_QUERY, &final));
	capture_patch(&job->c, &final);
	EXPECT_EQ(0, final.events_lost);
}


/* The busy child's samples: its CPU, its thread, its code, its CPU time. */
TEST_F(profile, busy_thread_sampled)
{
	struct drain_job job;
	struct profile_view v;
	struct busy_view bv;
	uint64_t lo, hi, cpu_time;
	int cpu = busy_cpu();
	pthread_t th;
	int64_t gap;
	pid_t tid;

	ASSERT_EQ(0, own_text(&lo, &hi));
	ASSERT_EQ(0, set_interval(self->ctl, 0));	/* the default */
	ASSERT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, get_interval(self->ctl));
	start_logger(_metadata, self->ctl, self->reader, "selftest profile", PROFILE_FLAGS,
		     &job, &th);
	tid = run_busy(cpu, WORK, &cpu_time);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	ASSERT_GT(tid, 0);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	view_busy(&v, cpu, tid, lo, hi, &bv);
	TH_LOG("busy child %d on CPU %d: %lu samples (%lu in its text), %lu on the CPU meanwhile, cpu time %.3f s",
	       tid, cpu, bv.tid_samples, bv.in_text, bv.cpu_samples, cpu_time / 1e7);
	ASSERT_GE(bv.tid_samples, 50);
	EXPECT_LE(bv.other_cpu * 50, bv.tid_samples);
	/* the other CPUs idle meanwhile: the idle thread, 0, as Windows */
	EXPECT_GT(bv.idle, 0);
	EXPECT_EQ(bv.idle, bv.idle_prio16);
	/* nice 0 is NT priority 8 (docs/linux-to-nt.md) */
	EXPECT_EQ(bv.tid_samples, bv.prio8);
	/* the large majority: of the CPU's samples while it ran, of its own in its code */
	EXPECT_GE(bv.tid_samples * 10, bv.cpu_samples * 8);
	/*
	 * Its code: every user IP of it lies in its text (a static program
	 * in a loop), and most of its samples are user ones. How many catch
	 * it in the kernel (ticks, faults) depends on the host's load: 14% on
	 * the debug kernel beside a busy host.
	 */
	EXPECT_EQ(bv.user, bv.in_text);
	EXPECT_GE(bv.in_text * 4, bv.tid_samples * 3);
	/*
	 * samples x interval against the CPU time the kernel charged it. A
	 * vCPU the host does not run keeps its task's clock going, but the
	 * sampling hrtimer then fires once for all the periods it missed
	 * (perf's cpu-clock forwards the timer, overruns uncounted): beside
	 * a busy host (a parallel build) samples covered 68% of the CPU
	 * time, 95-100% on a quiet one.
	 */
	EXPECT_GE(bv.tid_samples * NTKL_PROFILE_INTERVAL_DEFAULT * 10, cpu_time * 5);
	EXPECT_LE(bv.tid_samples * NTKL_PROFILE_INTERVAL_DEFAULT * 10, cpu_time * 13);

	/* spaced by the interval in the file's own clock */
	gap = median_gap(&v, cpu, bv.first, bv.last);
	TH_LOG("median gap %lld x 100 ns", (long long)gap);
	EXPECT_GE(gap, NTKL_PROFILE_INTERVAL_DEFAULT * 8 / 10);
	EXPECT_LE(gap, NTKL_PROFILE_INTERVAL_DEFAULT * 12 / 10);

	/* CollectionStart and CollectionEnd, with the interval */
	EXPECT_TRUE(v.interval_shape_ok);
	EXPECT_EQ(1, v.starts);
	EXPECT_EQ(1, v.ends);
	EXPECT_EQ(0, v.sets);
	EXPECT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, v.start_interval);
	EXPECT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, v.end_interval);
	free(v.s);
	capture_free(&job.c);
}

/*
 * With LOADER, what WPA does with a sample: its IP in an Image record (the
 * kernel's or a module's for a kernel IP, its process's executable, a
 * library or the vDSO for a user one), as etl_profile reads them for
 * `ntkl dump --stats`. Issue 10's bar: 99 % kernel, 95 % user.
 */
TEST_F(profile, samples_resolve_to_images)
{
	struct etl_profile p;
	struct etl_error err;
	struct etl_file f;
	struct drain_job job;
	uint64_t cpu_time;
	unsigned long kernel;
	pthread_t th;

	ASSERT_EQ(0, set_interval(self->ctl, 0));
	start_logger(_metadata, self->ctl, self->reader, "selftest profile",
		     PROFILE_FLAGS | EVENT_TRACE_FLAG_IMAGE_LOAD, &job, &th);
	ASSERT_GT(run_busy(busy_cpu(), WORK, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	ASSERT_EQ(0, etl_open_memory(&f, "capture", job.c.data, job.c.size, &err))
		TH_LOG("%s", err.msg);
	ASSERT_EQ(0, etl_profile_read(&f, &p, &err)) TH_LOG("%s", err.msg);
	kernel = p.samples - p.user_samples;
	TH_LOG("kernel IPs resolved %lu of %lu, user %lu of %lu; top image %s",
	       p.kernel_resolved, kernel, p.user_resolved, p.user_samples,
	       p.nmodules ? p.modules[0].name : "-");
	EXPECT_GT(p.user_samples, 0);
	EXPECT_GE(p.kernel_resolved * 100, kernel * 99);
	EXPECT_GE(p.user_resolved * 100, p.user_samples * 95);
	etl_profile_free(&p);
	etl_close(&f);
	capture_free(&job.c);
}

/* A kernel IP as the hash %p prints: 32 bits, never in the kernel's half. */
static bool raw_kernel(uint64_t ip)
{
	return ip >> 63;
}

/*
 * Sample IPs: a user one always raw (the program's own address), a kernel
 * one raw only for a reader allowed kernel addresses (root with
 * kptr_restrict 1), else hashed; the idle thread runs only kernel code.
 */
TEST_F(profile, kernel_ips_hashed_user_ips_kept)
{
	struct drain_job job;
	struct profile_view v;
	struct busy_view bv;
	uint64_t lo, hi, cpu_time;
	unsigned long idle_raw, idle;
	int round, cpu = busy_cpu();
	pthread_t th;
	pid_t tid;
	size_t i;

	ASSERT_EQ(0, own_text(&lo, &hi));
	for (round = 0; round < 2; round++) {
		/* a descriptor reads one logger: a new one for the second */
		close(self->reader);
		self->reader = ntkl_open();
		ASSERT_GE(self->reader, 0);
		ASSERT_EQ(0, write_file(KPTR_RESTRICT, round ? "2" : "1"));
		start_logger(_metadata, self->ctl, self->reader, "selftest profile",
			     PROFILE_FLAGS, &job, &th);
		tid = run_busy(cpu, WORK / 4, &cpu_time);
		stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
		write_file(KPTR_RESTRICT, "1");
		ASSERT_GT(tid, 0);
		ASSERT_EQ(0, view_capture(&job.c, &v));
		view_busy(&v, cpu, tid, lo, hi, &bv);
		for (i = 0, idle = idle_raw = 0; i < v.n; i++) {
			idle += !v.s[i].tid;
			idle_raw += !v.s[i].tid && raw_kernel(v.s[i].ip);
		}
		TH_LOG("kptr_restrict %d: %lu of %lu busy samples in its text, %lu of %lu idle raw",
		       round ? 2 : 1, bv.in_text, bv.tid_samples, idle_raw, idle);
		EXPECT_GE(bv.tid_samples, 10);
		/* kernel IPs are hashed here, into the lower half: only most in its text */
		EXPECT_GE(bv.in_text * 4, bv.tid_samples * 3);
		EXPECT_GT(idle, 0);
		EXPECT_EQ(round ? 0 : idle, idle_raw);
		free(v.s);
		capture_free(&job.c);
	}
}

/* -setprofint before a logger starts, and while it runs (SetInterval). */
TEST_F(profile, interval_changes_spacing)
{
	struct drain_job job;
	struct profile_view v;
	uint64_t cpu_time;
	int cpu = busy_cpu();
	pthread_t th;
	int64_t before, after;

	ASSERT_EQ(0, set_interval(self->ctl, 20000));	/* 2 ms */
	start_logger(_metadata, self->ctl, self->reader, "selftest profile", PROFILE_FLAGS,
		     &job, &th);
	ASSERT_GT(run_busy(cpu, WORK / 2, &cpu_time), 0);
	ASSERT_EQ(0, set_interval(self->ctl, 5000));	/* 0.5 ms, while it runs */
	ASSERT_EQ(5000, get_interval(self->ctl));
	ASSERT_GT(run_busy(cpu, WORK / 2, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	ASSERT_EQ(0, set_interval(self->ctl, 0));

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_TRUE(v.interval_shape_ok);
	EXPECT_EQ(20000, v.start_interval);
	ASSERT_EQ(1, v.sets);
	EXPECT_EQ(5000, v.set_new);
	EXPECT_EQ(20000, v.set_old);
	EXPECT_EQ(5000, v.end_interval);
	before = median_gap(&v, cpu, INT64_MIN, v.set_time);
	after = median_gap(&v, cpu, v.set_time, INT64_MAX);
	TH_LOG("median gap %lld before SetInterval, %lld after (x 100 ns)", (long long)before,
	       (long long)after);
	EXPECT_GE(before, 20000 * 8 / 10);
	EXPECT_LE(before, 20000 * 12 / 10);
	EXPECT_GE(after, 5000 * 8 / 10);
	/*
	 * A slow guest (the debug kernel under TCG on a busy host) overruns
	 * a 0.5 ms timer now and then: 6334 in one CI run. The interval's
	 * change is what this asserts: well under half the gap before.
	 */
	EXPECT_LE(after, 5000 * 3 / 2);
	EXPECT_LT(after * 2, before);
	free(v.s);
	capture_free(&job.c);
}

/* A logger without PROFILE beside a profiling one gets no sample. */
TEST_F(profile, only_profile_loggers_sampled)
{
	struct drain_job job, other;
	struct profile_view v;
	uint64_t cpu_time;
	pthread_t th, th2;
	int reader2;

	start_pair(_metadata, self->ctl, self->reader, &reader2, "selftest plain",
		   EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH,
		   &other, &th2, &job, &th);
	ASSERT_GT(run_busy(busy_cpu(), WORK / 4, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	stop_logger(_metadata, self->ctl, "selftest plain", &other, th2);
	close(reader2);

	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_GT(v.n, 10);
	free(v.s);
	ASSERT_EQ(0, view_capture(&other.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.n);
	EXPECT_EQ(0, v.starts + v.ends + v.sets);
	EXPECT_GT(capture_count_hook(&other.c, ETW_EVENT_CSWITCH_HOOK), 0);
	free(v.s);
	capture_free(&other.c);
	capture_free(&job.c);
}

/*
 * Two profiling loggers share the counters: both sample, and the first to
 * stop leaves them to the other; the last releases them.
 */
TEST_F(profile, loggers_share_the_counters)
{
	struct drain_job job, first;
	struct profile_view v;
	uint64_t cpu_time;
	int64_t first_end;
	unsigned long after;
	pthread_t th, th2;
	int reader2;
	size_t i;

	start_pair(_metadata, self->ctl, self->reader, &reader2, "selftest first", PROFILE_FLAGS,
		   &first, &th2, &job, &th);
	ASSERT_GT(run_busy(busy_cpu(), WORK / 8, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest first", &first, th2);
	close(reader2);
	if (!access(HOTPLUG_STATES, R_OK))
		EXPECT_TRUE(hotplug_state_present());
	ASSERT_GT(run_busy(busy_cpu(), WORK / 8, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	EXPECT_FALSE(hotplug_state_present());

	ASSERT_EQ(0, view_capture(&first.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(1, v.starts);
	EXPECT_EQ(1, v.ends);
	EXPECT_GT(v.n, 10);
	first_end = INT64_MIN;
	for (i = 0; i < v.n; i++)
		if (v.s[i].time > first_end)
			first_end = v.s[i].time;
	free(v.s);
	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(1, v.starts);
	EXPECT_EQ(1, v.ends);
	for (i = 0, after = 0; i < v.n; i++)
		after += v.s[i].time > first_end;
	TH_LOG("%lu samples after the first logger's last", after);
	EXPECT_GT(after, 10);
	free(v.s);
	capture_free(&first.c);
	capture_free(&job.c);
}

/* UPDATE turns profiling on and off: CollectionStart and End each time. */
TEST_F(profile, update_turns_profiling_on_and_off)
{
	struct ntkl_properties p;
	struct drain_job job;
	struct profile_view v;
	uint64_t cpu_time;
	pthread_t th;

	start_logger(_metadata, self->ctl, self->reader, "selftest profile",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, &job, &th);
	ASSERT_GT(run_busy(busy_cpu(), WORK / 8, &cpu_time), 0);
	props_select(&p, "selftest profile");
	p.enable_flags = PROFILE_FLAGS;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	ASSERT_GT(run_busy(busy_cpu(), WORK / 8, &cpu_time), 0);
	props_select(&p, "selftest profile");
	p.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	ASSERT_GT(run_busy(busy_cpu(), WORK / 8, &cpu_time), 0);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(1, v.starts);
	EXPECT_EQ(1, v.ends);
	EXPECT_GT(v.n, 10);
	free(v.s);
	capture_free(&job.c);
}

/* A CPU that goes offline and comes back samples again. */
TEST_F(profile, cpu_hotplug)
{
	struct drain_job job;
	struct profile_view v;
	struct busy_view bv;
	uint64_t lo, hi, cpu_time;
	pthread_t th;
	pid_t tid;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	ASSERT_EQ(0, own_text(&lo, &hi));
	start_logger(_metadata, self->ctl, self->reader, "selftest profile", PROFILE_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, write_file(CPU1_ONLINE, "0"));
	usleep(50 * 1000);
	ASSERT_EQ(0, write_file(CPU1_ONLINE, "1"));
	tid = run_busy(1, WORK / 4, &cpu_time);
	stop_logger(_metadata, self->ctl, "selftest profile", &job, th);
	ASSERT_GT(tid, 0);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	view_busy(&v, 1, tid, lo, hi, &bv);
	EXPECT_GE(bv.tid_samples, 10);
	/* its code, as in busy_thread_sampled */
	EXPECT_EQ(bv.user, bv.in_text);
	EXPECT_GE(bv.in_text * 4, bv.tid_samples * 3);
	free(v.s);
	capture_free(&job.c);
}

/* xperf's bounds: 1221..10000000 x 100 ns; source 0 only; reserved zero. */
TEST_F(profile, interval_bounds)
{
	struct ntkl_profile_interval pi = { .size = sizeof(pi) };

	EXPECT_EQ(-EINVAL, set_interval(self->ctl, 1220));
	EXPECT_EQ(-EINVAL, set_interval(self->ctl, 10000001));
	EXPECT_EQ(0, set_interval(self->ctl, 1221));
	EXPECT_EQ(1221, get_interval(self->ctl));
	EXPECT_EQ(0, set_interval(self->ctl, 10000000));
	EXPECT_EQ(10000000, get_interval(self->ctl));
	pi.interval = 10000;
	pi.source = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->ctl, NTKL_IOC_SET_PROFILE_INTERVAL, &pi));
	pi.source = 0;
	pi.__reserved0 = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->ctl, NTKL_IOC_SET_PROFILE_INTERVAL, &pi));
	EXPECT_EQ(0, set_interval(self->ctl, 0));
	EXPECT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, get_interval(self->ctl));
}


/*
 * Unloading with a profiling logger running releases its perf events and
 * hotplug state; the module loads again and profiles again.
 */
TEST_F(profile, unload_while_profiling)
{
	const char *ko = getenv("NTKL_KO");
	struct ntkl_properties p;

	ASSERT_NE(NULL, ko);
	EXPECT_FALSE(hotplug_state_present());
	props_init(&p, "selftest profile", PROFILE_FLAGS);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	if (!access(HOTPLUG_STATES, R_OK))
		EXPECT_TRUE(hotplug_state_present());
	usleep(100 * 1000);
	close(self->reader);
	close(self->ctl);
	self->reader = self->ctl = -1;

	ASSERT_EQ(0, delete_module("ntkl"));
	EXPECT_FALSE(hotplug_state_present());
	usleep(100 * 1000);	/* a sample handler left behind would run now */
	ASSERT_EQ(0, load_module_wait(ko));
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->reader = ntkl_open();
	EXPECT_EQ(NTKL_PROFILE_INTERVAL_DEFAULT, get_interval(self->ctl));
	props_init(&p, "selftest profile", PROFILE_FLAGS);
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	EXPECT_EQ(0, ntkl_stop_name(self->ctl, "selftest profile"));
	EXPECT_FALSE(hotplug_state_present());
}

TEST_HARNESS_MAIN
