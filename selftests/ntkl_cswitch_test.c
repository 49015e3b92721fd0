// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_cswitch_test: ntkl's context switches are the kernel's, switch for
 * switch. One run of the pingpong and threadmix workloads is recorded at
 * the same time by
 *
 *   - trace-cmd record -C mono -e sched:sched_switch (ftrace, the reference),
 *   - an ntkl logger with CSWITCH (one CSwitch event per switch),
 *   - an ntkl logger with CSWITCH + COMPACT_CSWITCH (CCSWAP batches),
 *
 * both loggers on the QPC clock, which is CLOCK_MONOTONIC in 100 ns units:
 * the base of trace-cmd's "mono" clock. With nothing lost anywhere, each
 * CPU's sequence of (old thread, new thread) must be the same in all three
 * over the time all three were recording. Then, without trace-cmd:
 *
 *   - a CSwitch logger and a compact logger on one clock: a CSwitch event
 *     and the same switch expanded from a compact batch carry the same time;
 *   - loggers on the QPC, system and cycle clocks at once: the same
 *     switches, at the same wall-clock times once converted;
 *   - CPU 1 taken offline under a compact logger: the switches it batched
 *     are in that logger's file (or counted lost), and none reaches a
 *     logger started while it was down.
 *
 * The ntkl files are read back with "ntkl dump --switches" (the ntkl
 * command on $PATH), the trace-cmd file with "trace-cmd report". Everything the test recorded is kept under /out when a case
 * fails (scripts/vm-run brings /out back).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_util.h"

#define MAX_CPUS	64
/*
 * Two recorders stamp one switch microseconds apart, rarely more than
 * ALIGN_NS (a slow clock source under TCG, KASAN); but the host may
 * preempt a vCPU thread between two readings for up to ALIGN_WIDE_NS.
 */
#define ALIGN_NS	1000000
#define ALIGN_WIDE_NS	50000000
/* Switches that must match after a candidate first common switch. */
#define LOOKAHEAD	16
#define MSG_MAX		2048
#define MAX_RECS	3

#define WORK_DIR	"/tmp"
#define TC_DAT		WORK_DIR "/ntkl_cswitch_tc.dat"
#define TC_LOG		WORK_DIR "/ntkl_cswitch_tc.log"
#define SAVE_DIR	"/out/ntkl_cswitch_test"
#define TRACEFS		"/sys/kernel/tracing"

/* The workloads (build/workloads, on $PATH in the test VM), kept to seconds under TCG. */
static char *const pingpong_argv[] = { "pingpong", "-q", "-c", "1", "3000", NULL };
static char *const threadmix_argv[] = { "threadmix", "-q", "6", "200", NULL };

/* One context switch; t is in the case's common time base (ns). */
struct sw {
	int64_t t;
	int64_t raw;			/* the time as recorded */
	uint32_t old_tid;
	uint32_t new_tid;
	bool new_known;			/* false: the last compact switch of a CPU */
};

/* What one recorder saw, per CPU in time order. */
struct rec {
	const char *name;
	struct sw *v[MAX_CPUS];
	size_t n[MAX_CPUS];
	size_t cap[MAX_CPUS];
	size_t total;
	size_t start[MAX_CPUS];		/* index of the first common switch */
	uint32_t clock;			/* ntkl: the file's clock type */
	uint64_t freq;			/* ntkl: the file's PerfFreq */
};

/* ntkl raw time -> the case's base: offset_ns + (raw - start_clock) s / freq */
struct conv {
	uint64_t freq;
	int64_t start_clock;
	int64_t offset_ns;
};

static int rec_add(struct rec *r, unsigned int cpu, const struct sw *s)
{
	if (cpu >= MAX_CPUS)
		return -1;
	if (r->n[cpu] == r->cap[cpu]) {
		size_t cap = r->cap[cpu] ? 2 * r->cap[cpu] : 1024;
		struct sw *v = realloc(r->v[cpu], cap * sizeof(*v));

		if (!v)
			return -1;
		r->v[cpu] = v;
		r->cap[cpu] = cap;
	}
	r->v[cpu][r->n[cpu]++] = *s;
	r->total++;
	return 0;
}

static void rec_free(struct rec *r)
{
	unsigned int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		free(r->v[cpu]);
	memset(r, 0, sizeof(*r));
}

static int64_t conv_ns(const struct conv *c, int64_t raw)
{
	__int128 d = (__int128)(raw - c->start_clock) * 1000000000 / (__int128)c->freq;

	return c->offset_ns + (int64_t)d;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- ntkl loggers, drained by a thread each while they record ---- */

struct logger {
	const char *name;
	const char *path;
	uint32_t clock;			/* NTKL_CLOCK_* */
	bool compact;			/* COMPACT_CSWITCH as well */
	struct ntkl_properties p;	/* as START returned it */
	struct ntkl_properties final;	/* QUERY after the end of data */
	int reader;
	pthread_t thread;
	bool thread_started;
	struct capture cap;
	int drain_ret;
};

static void *drain_thread(void *arg)
{
	struct logger *lg = arg;

	lg->drain_ret = capture_drain(lg->reader, lg->p.buffer_size_kb * 1024, &lg->cap, 0);
	return NULL;
}

/* Start a logger (stopping a leftover of an earlier run first) and its reader. */
static int logger_start(int ctl, struct logger *lg)
{
	props_init(&lg->p, lg->name, 0);
	lg->p.clock_type = lg->clock;
	lg->p.group_masks[PERF_GET_MASK_INDEX(PERF_CONTEXT_SWITCH)] =
		PERF_GET_MASK_GROUP(PERF_CONTEXT_SWITCH) |
		(lg->compact ? PERF_GET_MASK_GROUP(PERF_COMPACT_CSWITCH) : 0);
	ntkl_stop_name(ctl, lg->name);
	lg->reader = ntkl_open();
	if (lg->reader < 0)
		return -errno;
	if (ntkl_ctl(ctl, NTKL_IOC_START, &lg->p))
		return -errno;
	if (ntkl_bind_id(lg->reader, lg->p.logger_id))
		return -errno;
	if (pthread_create(&lg->thread, NULL, drain_thread, lg))
		return -EAGAIN;
	lg->thread_started = true;
	return 0;
}

/* Stop, drain to the end, take the final counters and write the file. */
static int logger_finish(int ctl, struct logger *lg)
{
	int ret = ntkl_stop_name(ctl, lg->name);

	if (lg->thread_started) {
		pthread_join(lg->thread, NULL);
		lg->thread_started = false;
	}
	if (ret)
		return ret;
	if (lg->drain_ret)
		return lg->drain_ret;
	memset(&lg->final, 0, sizeof(lg->final));
	lg->final.size = sizeof(lg->final);
	ret = ntkl_ctl(lg->reader, NTKL_IOC_QUERY, &lg->final);
	if (ret)
		return ret;
	capture_patch(&lg->cap, &lg->final);
	return capture_write(&lg->cap, lg->path);
}

static void logger_cleanup(int ctl, struct logger *lg)
{
	if (lg->thread_started) {
		ntkl_stop_name(ctl, lg->name);
		pthread_join(lg->thread, NULL);
		lg->thread_started = false;
	}
	if (lg->reader >= 0)
		close(lg->reader);
	lg->reader = -1;
	capture_free(&lg->cap);
}

/* ---- child processes ---- */

static pid_t spawn(char *const argv[], const char *out_path, bool die_with_parent)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* trace-cmd stops on SIGINT: make sure it is not ignored */
	signal(SIGINT, SIG_DFL);
	if (die_with_parent)
		prctl(PR_SET_PDEATHSIG, SIGINT);
	if (out_path) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
	}
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for pid at most timeout_s seconds; its exit status, or -1 (killed if still running). */
static int wait_timeout(pid_t pid, unsigned int timeout_s)
{
	unsigned int waited_ms = 0;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0 || waited_ms >= timeout_s * 1000)
			break;
		sleep_ms(20);
		waited_ms += 20;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/*
 * trace-cmd record is ready once it has enabled the event and tracing on
 * the mono clock and catches SIGINT: a SIGINT before that would kill it
 * (or, if ignored, never stop it). Its "Hit Ctrl^C" line is no use: stdout
 * is a file, so that line only shows up when trace-cmd exits.
 */
static int trace_cmd_wait_ready(pid_t pid, unsigned int timeout_s, char *why, size_t len)
{
	unsigned int waited_ms;

	for (waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 20) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			snprintf(why, len, "trace-cmd record exited while starting (see %s)",
				 TC_LOG);
			return -1;
		}
		if (trace_cmd_recording(pid, "sched/sched_switch") &&
		    file_has(TRACEFS "/trace_clock", "[mono]"))
			return 0;
		sleep_ms(20);
	}
	snprintf(why, len, "trace-cmd record not recording after %u s", timeout_s);
	return -1;
}

/* ---- reading what the recorders wrote ---- */

/* "trace-cmd report --stat": events the ring buffer overwrote or dropped. */
static int trace_cmd_lost(uint64_t *lost, unsigned int *cpus, char *why, size_t len)
{
	char line[512];
	unsigned long long v;
	unsigned int cpu;
	FILE *f = popen("trace-cmd report --stat -i " TC_DAT " 2>&1", "r");

	*lost = 0;
	*cpus = 0;
	if (!f) {
		snprintf(why, len, "cannot run trace-cmd report --stat");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CPU: %u", &cpu) == 1)
			(*cpus)++;
		else if (sscanf(line, "overrun: %llu", &v) == 1 ||
			 sscanf(line, "commit overrun: %llu", &v) == 1 ||
			 sscanf(line, "dropped events: %llu", &v) == 1)
			*lost += v;
	}
	if (pclose(f)) {
		snprintf(why, len, "trace-cmd report --stat failed");
		return -1;
	}
	if (!*cpus) {
		snprintf(why, len,
			 "trace-cmd report --stat shows no CPU statistics: cannot tell whether events were lost");
		return -1;
	}
	return 0;
}

/*
 * "trace-cmd report -t -R": one line per event, raw fields, ns times:
 *   comm-pid [001] 12.607683499: sched_switch: prev_comm=.. prev_pid=0 ... next_pid=308 ...
 * A "[LOST n EVENTS]" line means the ring buffer lost events there.
 */
static int read_trace_cmd(struct rec *r, uint64_t *lost_lines, char *why, size_t len)
{
	char line[1024], frac[16];
	unsigned long long sec;
	unsigned int cpu;
	FILE *f = popen("trace-cmd report -t -R -i " TC_DAT " 2>&1", "r");

	*lost_lines = 0;
	if (!f) {
		snprintf(why, len, "cannot run trace-cmd report");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " sched_switch:"), *b, *pp, *np;
		struct sw s = { .new_known = true };

		if (strstr(line, "[LOST") || strstr(line, "LOST EVENTS"))
			(*lost_lines)++;
		if (!p)
			continue;
		/* the CPU: the last '[' before the event name (a comm may hold one) */
		for (b = p; b > line && *b != '['; b--)
			;
		pp = strstr(p, " prev_pid=");
		np = pp ? strstr(pp, " next_pid=") : NULL;
		if (*b != '[' || !np || sscanf(b, "[%u] %llu.%15[0-9]:", &cpu, &sec, frac) != 3 ||
		    strlen(frac) != 9 ||
		    sscanf(pp, " prev_pid=%u", &s.old_tid) != 1 ||
		    sscanf(np, " next_pid=%u", &s.new_tid) != 1) {
			snprintf(why, len, "unexpected trace-cmd report line: %.300s", line);
			pclose(f);
			return -1;
		}
		s.t = (int64_t)sec * 1000000000 + strtoll(frac, NULL, 10);
		s.raw = s.t;
		if (rec_add(r, cpu, &s)) {
			snprintf(why, len, "cpu %u out of range or out of memory", cpu);
			pclose(f);
			return -1;
		}
	}
	if (pclose(f)) {
		snprintf(why, len, "trace-cmd report failed");
		return -1;
	}
	return 0;
}

/*
 * "ntkl dump --switches FILE":
 *   # cpu time old new clock=<ReservedFlags> freq=<PerfFreq>
 *   <cpu> <time> <old_tid> <new_tid or ->     (sorted by cpu, then time)
 */
static int read_ntkl(struct rec *r, const char *path, const struct conv *cv,
		     char *why, size_t len)
{
	char cmd[512], line[256], new_tid[32];
	unsigned int cpu, last_cpu = 0;
	long long t, last_t = 0;
	bool first = true;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ntkl dump --switches %s 2>&1", path);
	f = popen(cmd, "r");
	if (!f) {
		snprintf(why, len, "cannot run %s", cmd);
		return -1;
	}
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "# cpu time old new clock=%u freq=%lu", &r->clock, &r->freq) != 2 ||
	    !r->freq) {
		snprintf(why, len, "%s: unexpected first line: %.200s", cmd, line);
		pclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct sw s = { 0 };

		if (sscanf(line, "%u %lld %u %31s", &cpu, &t, &s.old_tid, new_tid) != 4) {
			snprintf(why, len, "%s: unexpected line: %.200s", cmd, line);
			pclose(f);
			return -1;
		}
		if (!first && (cpu < last_cpu || (cpu == last_cpu && t < last_t))) {
			snprintf(why, len, "%s: not sorted by cpu and time at: %.200s", cmd, line);
			pclose(f);
			return -1;
		}
		first = false;
		last_cpu = cpu;
		last_t = t;
		s.raw = t;
		s.t = conv_ns(cv, t);
		s.new_known = strcmp(new_tid, "-") != 0;
		if (s.new_known)
			s.new_tid = strtoul(new_tid, NULL, 10);
		if (rec_add(r, cpu, &s)) {
			snprintf(why, len, "cpu %u out of range or out of memory", cpu);
			pclose(f);
			return -1;
		}
	}
	if (pclose(f)) {
		snprintf(why, len, "%s failed", cmd);
		return -1;
	}
	return 0;
}

/* ---- comparing recorders ---- */

struct cmp {
	struct rec **r;
	int nr;
	int64_t ws, we;			/* the workloads ran in [ws, we] */
	bool exact;			/* every recorder has recorder 0's raw times */
	int64_t tol_ns;			/* else max |t - t of recorder 0| per switch, or -1 */
	int64_t tol_ppm;		/* plus this many ppm of the time since ws */
	/* results */
	char msg[MSG_MAX];		/* the first difference */
	size_t compared;
	size_t time_diffs;		/* switches whose times differ (too much) */
	int64_t max_dt;			/* largest |t - t of recorder 0| */
	/* per recorder, every t - t of recorder 0, for the median */
	int64_t *dts[MAX_RECS];
	size_t ndts[MAX_RECS], cap_dts[MAX_RECS];
};

static bool same_switch(const struct sw *a, const struct sw *b)
{
	return a->old_tid == b->old_tid &&
	       (!a->new_known || !b->new_known || a->new_tid == b->new_tid);
}

static int fmt_sw(char *buf, size_t len, const struct rec *r, const struct sw *s)
{
	char new_tid[16] = "?";

	if (!s)
		return snprintf(buf, len, " %s: (none)", r->name);
	if (s->new_known)
		snprintf(new_tid, sizeof(new_tid), "%u", s->new_tid);
	return snprintf(buf, len, " %s: (t=%lld = %lld.%09lld s, %u -> %s)", r->name,
			(long long)s->raw, (long long)(s->t / 1000000000),
			(long long)llabs(s->t % 1000000000), s->old_tid, new_tid);
}

/* Describe index k of every recorder from its start on cpu into c->msg. */
static void describe(struct cmp *c, unsigned int cpu, size_t k, const char *what)
{
	size_t off = snprintf(c->msg, sizeof(c->msg),
			      "cpu %u, switch %zu of the common window: %s:", cpu, k, what);
	int i;

	for (i = 0; i < c->nr && off < sizeof(c->msg); i++) {
		const struct rec *r = c->r[i];
		size_t j = r->start[cpu] + k;

		off += fmt_sw(c->msg + off, sizeof(c->msg) - off, r,
			      j < r->n[cpu] ? &r->v[cpu][j] : NULL);
	}
}

/* Do count switches of a from ia and of b from ib match? */
static bool run_matches(const struct rec *a, size_t ia, const struct rec *b, size_t ib,
			unsigned int cpu, size_t count)
{
	size_t k;

	for (k = 0; k < count && ia + k < a->n[cpu] && ib + k < b->n[cpu]; k++)
		if (!same_switch(&a->v[cpu][ia + k], &b->v[cpu][ib + k]))
			return false;
	return true;
}

/*
 * Where in r is the switch s0 of ref: the nearest switch in time (within
 * win ns) with the same threads after which LOOKAHEAD switches match too;
 * else the nearest with the same threads (*run false); SIZE_MAX if none.
 */
static size_t find_switch(const struct rec *ref, const struct rec *r, unsigned int cpu,
			  int64_t win, bool *run)
{
	const struct sw *s0 = &ref->v[cpu][0];
	int64_t best_dt = INT64_MAX, best_run_dt = INT64_MAX;
	size_t j, best = SIZE_MAX, best_run = SIZE_MAX;

	for (j = 0; j < r->n[cpu] && r->v[cpu][j].t <= s0->t + win; j++) {
		int64_t dt = llabs(r->v[cpu][j].t - s0->t);

		if (dt > win || !same_switch(&r->v[cpu][j], s0))
			continue;
		if (dt < best_dt) {
			best_dt = dt;
			best = j;
		}
		if (dt < best_run_dt && run_matches(ref, 0, r, j, cpu, LOOKAHEAD)) {
			best_run_dt = dt;
			best_run = j;
		}
	}
	*run = best_run != SIZE_MAX;
	return *run ? best_run : best;
}

/*
 * The first common switch of cpu: the first switch of the recorder that
 * started last there, found in each other recorder near the same time
 * (find_switch), within ALIGN_NS or else ALIGN_WIDE_NS.
 */
static bool align_cpu(struct cmp *c, unsigned int cpu)
{
	struct rec *ref = c->r[0];
	const struct sw *s0;
	int i;

	for (i = 1; i < c->nr; i++)
		if (c->r[i]->v[cpu][0].t > ref->v[cpu][0].t)
			ref = c->r[i];
	ref->start[cpu] = 0;
	s0 = &ref->v[cpu][0];

	for (i = 0; i < c->nr; i++) {
		struct rec *r = c->r[i];
		bool run;
		size_t j;

		if (r == ref)
			continue;
		j = find_switch(ref, r, cpu, ALIGN_NS, &run);
		if (!run)
			j = find_switch(ref, r, cpu, ALIGN_WIDE_NS, &run);
		if (j == SIZE_MAX) {
			snprintf(c->msg, sizeof(c->msg),
				 "cpu %u: %s's first switch (t=%lld, %u -> %u) is not in %s within %d ms",
				 cpu, ref->name, (long long)s0->raw, s0->old_tid, s0->new_tid,
				 r->name, ALIGN_WIDE_NS / 1000000);
			return false;
		}
		r->start[cpu] = j;
	}
	return true;
}

/* Note (and describe the first of) the switches whose times differ. */
static void check_times(struct cmp *c, unsigned int cpu, size_t k)
{
	const struct sw *s0 = &c->r[0]->v[cpu][c->r[0]->start[cpu] + k];
	int i;

	for (i = 1; i < c->nr; i++) {
		const struct sw *s = &c->r[i]->v[cpu][c->r[i]->start[cpu] + k];
		int64_t dt = llabs(s->t - s0->t), tol;
		bool bad;

		if (dt > c->max_dt)
			c->max_dt = dt;
		if (c->ndts[i] == c->cap_dts[i]) {
			size_t cap = c->cap_dts[i] ? 2 * c->cap_dts[i] : 4096;
			int64_t *v = realloc(c->dts[i], cap * sizeof(*v));

			if (v) {
				c->dts[i] = v;
				c->cap_dts[i] = cap;
			}
		}
		if (c->ndts[i] < c->cap_dts[i])
			c->dts[i][c->ndts[i]++] = s->t - s0->t;
		if (c->exact) {
			bad = s->raw != s0->raw;
		} else if (c->tol_ns >= 0) {
			tol = c->tol_ns;
			if (s0->t > c->ws)
				tol += (s0->t - c->ws) / 1000000 * c->tol_ppm;
			bad = dt > tol;
		} else {
			bad = false;
		}
		if (!bad)
			continue;
		if (!c->time_diffs++)
			describe(c, cpu, k, c->exact ? "the times differ" :
				 "the wall-clock times differ too much");
		break;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of recorder i's t - t of recorder 0. */
static int64_t median_dt(struct cmp *c, int i)
{
	if (!c->ndts[i])
		return 0;
	qsort(c->dts[i], c->ndts[i], sizeof(*c->dts[i]), cmp_i64);
	return c->dts[i][c->ndts[i] / 2];
}

/* Every switch a recorder saw while the workloads ran must be in the compared run. */
static bool check_coverage(struct cmp *c, unsigned int cpu, size_t count)
{
	int i;

	for (i = 0; i < c->nr; i++) {
		const struct rec *r = c->r[i];
		size_t j;

		for (j = 0; j < r->n[cpu]; j++) {
			const struct sw *s = &r->v[cpu][j];

			if (s->t < c->ws || s->t > c->we ||
			    (j >= r->start[cpu] && j < r->start[cpu] + count))
				continue;
			snprintf(c->msg, sizeof(c->msg),
				 "cpu %u: %s has switch %zu (t=%lld, %u -> %u) inside the workload window but outside the common run [%zu, %zu): a recorder missed switches",
				 cpu, r->name, j, (long long)s->raw, s->old_tid, s->new_tid,
				 r->start[cpu], r->start[cpu] + count);
			return false;
		}
	}
	return true;
}

static bool compare_cpu(struct cmp *c, unsigned int cpu)
{
	size_t count = SIZE_MAX, k;
	int i, empty = 0;

	for (i = 0; i < c->nr; i++) {
		c->r[i]->start[cpu] = 0;
		empty += !c->r[i]->n[cpu];
	}
	if (empty)
		return empty == c->nr || check_coverage(c, cpu, 0);
	if (!align_cpu(c, cpu))
		return false;
	for (i = 0; i < c->nr; i++) {
		size_t left = c->r[i]->n[cpu] - c->r[i]->start[cpu];

		count = left < count ? left : count;
	}
	for (k = 0; k < count; k++) {
		const struct sw *s0 = &c->r[0]->v[cpu][c->r[0]->start[cpu] + k];

		for (i = 1; i < c->nr; i++) {
			const struct rec *r = c->r[i];

			if (!same_switch(s0, &r->v[cpu][r->start[cpu] + k])) {
				describe(c, cpu, k, "the threads differ");
				return false;
			}
		}
		check_times(c, cpu, k);
	}
	c->compared += count;
	return check_coverage(c, cpu, count);
}

/*
 * Compare every CPU: false at the first switch whose threads differ or
 * when a recorder missed switches (c->msg says which), or if the times of
 * any switch differ (c->msg: the first; c->time_diffs: how many).
 */
static bool compare_all(struct cmp *c)
{
	unsigned int cpu;

	c->compared = 0;
	c->time_diffs = 0;
	c->max_dt = 0;
	memset(c->ndts, 0, sizeof(c->ndts));
	c->msg[0] = 0;
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (!compare_cpu(c, cpu))
			return false;
	return !c->time_diffs;
}

static void cmp_free(struct cmp *c)
{
	int i;

	for (i = 0; i < MAX_RECS; i++) {
		free(c->dts[i]);
		c->dts[i] = NULL;
		c->ndts[i] = 0;
		c->cap_dts[i] = 0;
	}
}

/* Keep what a failed case recorded, for a look on the host. */
static void save_artifacts(const char *const *paths, int n)
{
	char cmd[1024];
	size_t off;
	int i;

	if (access("/out", W_OK))
		return;
	off = snprintf(cmd, sizeof(cmd), "mkdir -p " SAVE_DIR " && cp");
	for (i = 0; i < n && off < sizeof(cmd); i++)
		off += snprintf(cmd + off, sizeof(cmd) - off, " %s", paths[i]);
	snprintf(cmd + off, sizeof(cmd) - off, " " SAVE_DIR "/ 2>/dev/null");
	if (system(cmd))
		fprintf(stderr, "# could not save %d files to %s\n", n, SAVE_DIR);
}

/* Start each logger, in order. */
static int loggers_start(int ctl, struct logger *const *lgs, int n, char *why, size_t len)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = logger_start(ctl, lgs[i]);
		if (ret) {
			snprintf(why, len, "starting logger \"%s\": %s", lgs[i]->name,
				 strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* Stop each logger in order, write its file; fail if it lost events. */
static int loggers_finish(int ctl, struct logger *const *lgs, int n, char *why, size_t len)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = logger_finish(ctl, lgs[i]);
		if (ret) {
			snprintf(why, len, "stopping, draining or writing logger \"%s\": %s",
				 lgs[i]->name, strerror(-ret));
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		if (!lgs[i]->final.events_lost)
			continue;
		snprintf(why, len,
			 "logger \"%s\" lost %llu events: the comparison would mean nothing",
			 lgs[i]->name, (unsigned long long)lgs[i]->final.events_lost);
		return -1;
	}
	return 0;
}

/* Run the workloads side by side; ws and we: clk before and after. */
static int run_workloads(clockid_t clk, int64_t *ws, int64_t *we, char *why, size_t len)
{
	pid_t pp, tm;
	int s1, s2;

	*ws = clock_ns(clk);
	pp = spawn(pingpong_argv, NULL, false);
	tm = spawn(threadmix_argv, NULL, false);
	s1 = wait_timeout(pp, 120);
	s2 = wait_timeout(tm, 120);
	*we = clock_ns(clk);
	if (s1 || s2) {
		snprintf(why, len,
			 "workloads failed: pingpong status %d, threadmix status %d (127: not on $PATH)",
			 s1, s2);
		return -1;
	}
	/* let every CPU switch a few more times before the first logger stops */
	sleep_ms(50);
	return 0;
}

/* Read each logger's file with ntkl dump --switches, on the QPC clock at 10 MHz. */
static int read_qpc_loggers(struct logger *const *lgs, struct rec *const *recs, int n,
			    char *why, size_t len)
{
	/* QPC is CLOCK_MONOTONIC in 100 ns ticks: ns = ticks * 100 */
	const struct conv mono = { .freq = 10000000 };
	int i;

	for (i = 0; i < n; i++) {
		if (read_ntkl(recs[i], lgs[i]->path, &mono, why, len))
			return -1;
		if (recs[i]->clock == NTKL_CLOCK_QPC && recs[i]->freq == 10000000)
			continue;
		snprintf(why, len,
			 "%s: a QPC logger wrote clock %u at %llu Hz, not clock 1 at 10 MHz",
			 lgs[i]->path, recs[i]->clock, (unsigned long long)recs[i]->freq);
		return -1;
	}
	return 0;
}

/* 3000 pinned round trips alone are 6000 switches. */
#define MIN_COMPARED	6000

/*
 * Both fixtures below: a control descriptor and room for why a case
 * failed; a failed case leaves no logger running into the next.
 */
#define CS_FIXTURE(name)						\
	FIXTURE(name) {							\
		int ctl;						\
		char why[MSG_MAX];					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->ctl = ntkl_open();				\
		ASSERT_GE(self->ctl, 0);				\
		self->why[0] = 0;					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		ntkl_stop_every_logger(self->ctl);			\
		close(self->ctl);					\
	}

CS_FIXTURE(cs);

/* A logger of each form on the QPC clock, as most cases record with. */
#define FULL_LOGGER	{ .name = "ntkl_cswitch_test full", .reader = -1,		\
			  .path = WORK_DIR "/ntkl_cswitch_full.etl", .clock = NTKL_CLOCK_QPC }
#define COMPACT_LOGGER	{ .name = "ntkl_cswitch_test compact", .reader = -1,		\
			  .path = WORK_DIR "/ntkl_cswitch_compact.etl",			\
			  .clock = NTKL_CLOCK_QPC, .compact = true }

/*
 * trace-cmd and the n QPC loggers lgs record one run: the same switches
 * on every CPU, in each of them. 0 when they agree, else -1 and why.
 */
static int agree_with_trace_cmd(int ctl, struct logger *const *lgs, int n, char *why, size_t len)
{
	const char *const files[] = { TC_DAT, TC_LOG, lgs[0]->path, n > 1 ? lgs[1]->path : "" };
	char *const tc_argv[] = { "trace-cmd", "record", "-C", "mono", "-e", "sched:sched_switch",
				  "-o", TC_DAT, NULL };
	struct rec tc = { .name = "trace-cmd" }, rl[2] = { { .name = "cswitch" } };
	struct rec *recs[] = { &tc, &rl[0], &rl[1] };
	struct cmp cmp = { .r = recs, .nr = n + 1, .tol_ns = -1 };
	uint64_t tc_lost, tc_lost_lines;
	unsigned int tc_cpus;
	int i, status, ret = -1;
	pid_t tcpid;

	for (i = 0; i < n; i++)
		rl[i].name = lgs[i]->compact ? "compact" : "cswitch";
	unlink(TC_DAT);
	tcpid = spawn(tc_argv, TC_LOG, true);
	if (tcpid <= 0) {
		snprintf(why, len, "cannot start trace-cmd record");
		return -1;
	}
	if (trace_cmd_wait_ready(tcpid, 60, why, len))
		goto out;
	if (loggers_start(ctl, lgs, n, why, len) ||
	    run_workloads(CLOCK_MONOTONIC, &cmp.ws, &cmp.we, why, len) ||
	    loggers_finish(ctl, lgs, n, why, len))
		goto out;

	kill(tcpid, SIGINT);
	status = wait_timeout(tcpid, 90);
	tcpid = 0;
	if (status) {
		snprintf(why, len,
			 "trace-cmd record exited with status %d (-1: still running 90 s after SIGINT), see %s",
			 status, TC_LOG);
		goto out;
	}
	if (trace_cmd_lost(&tc_lost, &tc_cpus, why, len) ||
	    read_trace_cmd(&tc, &tc_lost_lines, why, len))
		goto out;
	if (tc_lost || tc_lost_lines) {
		snprintf(why, len,
			 "trace-cmd lost events (%llu overrun or dropped, %llu LOST markers): the comparison would mean nothing",
			 (unsigned long long)tc_lost, (unsigned long long)tc_lost_lines);
		goto out;
	}
	if (read_qpc_loggers(lgs, recs + 1, n, why, len))
		goto out;
	/* stderr, as TH_LOG's, which a helper outside a test cannot call */
	fprintf(stderr, "# switches recorded: trace-cmd %zu, %s %zu", tc.total, rl[0].name,
		rl[0].total);
	if (n > 1)
		fprintf(stderr, ", %s %zu", rl[1].name, rl[1].total);
	fprintf(stderr, "\n");

	if (!compare_all(&cmp)) {
		snprintf(why, len, "%s", cmp.msg);
		goto out;
	}
	fprintf(stderr, "# %zu switches identical in all %d over the common window\n",
		cmp.compared, n + 1);
	if (cmp.compared < MIN_COMPARED) {
		snprintf(why, len, "only %zu switches compared", cmp.compared);
		goto out;
	}
	ret = 0;
out:
	if (tcpid > 0) {
		kill(tcpid, SIGINT);
		wait_timeout(tcpid, 60);
	}
	for (i = 0; i < n; i++)
		logger_cleanup(ctl, lgs[i]);
	rec_free(&tc);
	rec_free(&rl[0]);
	rec_free(&rl[1]);
	cmp_free(&cmp);
	if (ret)
		save_artifacts(files, n + 2);
	return ret;
}

/*
 * trace-cmd and ntkl loggers record one run: the same switches on every
 * CPU. A variant per set of loggers: a CSwitch logger and a compact
 * logger together (three recorders), and each form alone, as most
 * captures have it: the switch probe has a path of its own for each of
 * those (module/producers/cswitch.c), which the two together do not take.
 */
CS_FIXTURE(trace_cmd);

FIXTURE_VARIANT(trace_cmd) {
	bool full, compact;
};

FIXTURE_VARIANT_ADD(trace_cmd, three_recorders) { .full = true, .compact = true };
FIXTURE_VARIANT_ADD(trace_cmd, cswitch_alone) { .full = true };
FIXTURE_VARIANT_ADD(trace_cmd, compact_alone) { .compact = true };

TEST_F_TIMEOUT(trace_cmd, agree, 150)
{
	struct logger full = FULL_LOGGER, compact = COMPACT_LOGGER;
	struct logger *lgs[2];
	int n = 0;

	if (variant->full)
		lgs[n++] = &full;
	if (variant->compact)
		lgs[n++] = &compact;
	if (!in_path("trace-cmd"))
		SKIP(return, "trace-cmd is not on $PATH");
	ASSERT_EQ(0, agree_with_trace_cmd(self->ctl, lgs, n, self->why, sizeof(self->why)))
		TH_LOG("%s", self->why);
}

/*
 * A CSwitch logger and a compact logger on the same clock: the same
 * switches at exactly the same times (one clock reading per switch). And
 * the compact file expanded by "ntkl relog --expand-compact" holds them
 * too, as CSwitch events (all but each CPU's last compact switch, which
 * names no new thread and falls after the workloads).
 */
#define EXPANDED	WORK_DIR "/ntkl_cswitch_expanded.etl"

/*
 * The expanded file has each compact switch that names its new thread
 * (all but a CPU's last), same threads, same raw time, nothing else.
 */
static bool expanded_matches(const struct rec *rc, const struct rec *re, char *why, size_t len)
{
	unsigned int cpu;
	size_t k;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		size_t known = rc->n[cpu] && !rc->v[cpu][rc->n[cpu] - 1].new_known ?
			       rc->n[cpu] - 1 : rc->n[cpu];

		if (re->n[cpu] != known) {
			snprintf(why, len, "cpu %u: %zu compact switches name their new thread, the expanded file has %zu CSwitch events",
				 cpu, known, re->n[cpu]);
			return false;
		}
		for (k = 0; k < known; k++) {
			const struct sw *a = &rc->v[cpu][k], *b = &re->v[cpu][k];

			if (a->raw != b->raw || a->old_tid != b->old_tid ||
			    !a->new_known || !b->new_known || a->new_tid != b->new_tid) {
				snprintf(why, len, "cpu %u switch %zu: compact t=%lld %u -> %u, expanded t=%lld %u -> %u",
					 cpu, k, (long long)a->raw, a->old_tid, a->new_tid,
					 (long long)b->raw, b->old_tid, b->new_tid);
				return false;
			}
		}
	}
	return true;
}

TEST_F_TIMEOUT(cs, full_and_compact_same_times, 90)
{
	struct logger full = FULL_LOGGER, compact = COMPACT_LOGGER;
	struct logger *lgs[] = { &full, &compact };
	const char *const files[] = { full.path, compact.path, EXPANDED };
	const struct conv mono = { .freq = 10000000 };
	struct rec rf = { .name = "cswitch" }, rc = { .name = "compact" },
		   re = { .name = "compact expanded" };
	struct rec *recs[] = { &rf, &rc };
	struct cmp cmp = { .r = recs, .nr = 2, .exact = true };
	bool ok = false;

	if (loggers_start(self->ctl, lgs, 2, self->why, sizeof(self->why)) ||
	    run_workloads(CLOCK_MONOTONIC, &cmp.ws, &cmp.we, self->why, sizeof(self->why)) ||
	    loggers_finish(self->ctl, lgs, 2, self->why, sizeof(self->why)) ||
	    read_qpc_loggers(lgs, recs, 2, self->why, sizeof(self->why)))
		goto out;
	if (system("ntkl relog --expand-compact " WORK_DIR "/ntkl_cswitch_compact.etl "
		   EXPANDED " >/dev/null")) {
		snprintf(self->why, sizeof(self->why), "ntkl relog --expand-compact failed");
		goto out;
	}
	if (read_ntkl(&re, EXPANDED, &mono, self->why, sizeof(self->why)))
		goto out;
	TH_LOG("switches recorded: cswitch %zu, compact %zu, expanded %zu", rf.total, rc.total,
	       re.total);
	if (!expanded_matches(&rc, &re, self->why, sizeof(self->why)))
		goto out;
	if (!compare_all(&cmp)) {
		if (cmp.time_diffs)
			snprintf(self->why, sizeof(self->why),
				 "%zu of %zu switches have different times (compact - cswitch: median %lld ns; max %lld ns apart); the first: %s",
				 cmp.time_diffs, cmp.compared, (long long)median_dt(&cmp, 1),
				 (long long)cmp.max_dt, cmp.msg);
		else
			snprintf(self->why, sizeof(self->why), "%s", cmp.msg);
		goto out;
	}
	TH_LOG("%zu switches identical, at the same times", cmp.compared);
	if (cmp.compared < MIN_COMPARED) {
		snprintf(self->why, sizeof(self->why), "only %zu switches compared", cmp.compared);
		goto out;
	}
	ok = true;
out:
	logger_cleanup(self->ctl, &full);
	logger_cleanup(self->ctl, &compact);
	rec_free(&rf);
	rec_free(&rc);
	rec_free(&re);
	cmp_free(&cmp);
	if (!ok)
		save_artifacts(files, 3);
	ASSERT_TRUE(ok) TH_LOG("%s", self->why);
}

/*
 * Loggers on the QPC, system and cycle clocks at once (compact batches are
 * kept per clock): the same switches, and each file's times, converted with
 * its logger's StartTime and start clock, the same wall-clock times.
 */
TEST_F_TIMEOUT(cs, clock_types_agree, 90)
{
	struct logger lq = { .name = "ntkl_cswitch_test qpc", .reader = -1,
			     .path = WORK_DIR "/ntkl_cswitch_qpc.etl",
			     .clock = NTKL_CLOCK_QPC, .compact = true };
	struct logger ls = { .name = "ntkl_cswitch_test system", .reader = -1,
			     .path = WORK_DIR "/ntkl_cswitch_system.etl",
			     .clock = NTKL_CLOCK_SYSTEM };
	struct logger lc = { .name = "ntkl_cswitch_test cycle", .reader = -1,
			     .path = WORK_DIR "/ntkl_cswitch_cycle.etl",
			     .clock = NTKL_CLOCK_CYCLE, .compact = true };
	struct logger *lgs[] = { &lq, &ls, &lc };
	const char *const files[] = { lq.path, ls.path, lc.path };
	struct rec rq = { .name = "qpc compact" }, rs = { .name = "system cswitch" },
		   rcy = { .name = "cycle compact" };
	struct rec *recs[] = { &rq, &rs, &rcy };
	/*
	 * Each logger reads its clocks on its own, microseconds apart, both
	 * for its start anchor (StartTime and the start clock) and per switch;
	 * but the host may preempt a vCPU thread between two readings (4 vCPUs
	 * on a 2-core host), which puts milliseconds between them. Hence a
	 * loose bound per switch and a tighter one on the median, which still
	 * catches a wrong unit, epoch, rate or anchor. The cycle clock's rate
	 * is the guest's tsc_khz, calibrated to some ppm.
	 */
	struct cmp cmp = { .r = recs, .nr = 3, .tol_ns = 50000000, .tol_ppm = 1000 };
	const int64_t max_median_ns = 2000000;
	int64_t ref_ft, median;
	bool ok = false;
	int i;

	if (loggers_start(self->ctl, lgs, 3, self->why, sizeof(self->why)) ||
	    run_workloads(CLOCK_REALTIME, &cmp.ws, &cmp.we, self->why, sizeof(self->why)) ||
	    loggers_finish(self->ctl, lgs, 3, self->why, sizeof(self->why)))
		goto out;

	/* the common base: ns since the first logger's StartTime (a FILETIME) */
	ref_ft = lq.p.start_time;
	cmp.ws = (cmp.ws / 100 + ETW_FILETIME_UNIX_EPOCH - ref_ft) * 100;
	cmp.we = (cmp.we / 100 + ETW_FILETIME_UNIX_EPOCH - ref_ft) * 100;
	for (i = 0; i < 3; i++) {
		struct conv cv = {
			.freq = lgs[i]->p.perf_freq,
			.start_clock = lgs[i]->p.start_clock,
			.offset_ns = ((int64_t)lgs[i]->p.start_time - ref_ft) * 100,
		};

		if (read_ntkl(recs[i], lgs[i]->path, &cv, self->why, sizeof(self->why)))
			goto out;
		if (recs[i]->clock != lgs[i]->p.clock_type ||
		    recs[i]->freq != lgs[i]->p.perf_freq) {
			snprintf(self->why, sizeof(self->why),
				 "%s: the file says clock %u at %llu Hz, the logger clock %u at %llu Hz",
				 lgs[i]->path, recs[i]->clock, (unsigned long long)recs[i]->freq,
				 lgs[i]->p.clock_type, (unsigned long long)lgs[i]->p.perf_freq);
			goto out;
		}
	}
	TH_LOG("switches recorded: qpc %zu, system %zu, cycle %zu (cycle clock at %llu Hz)",
	       rq.total, rs.total, rcy.total, (unsigned long long)lc.p.perf_freq);
	if (!compare_all(&cmp)) {
		snprintf(self->why, sizeof(self->why), "%s", cmp.msg);
		goto out;
	}
	for (i = 1; i < 3; i++) {
		median = median_dt(&cmp, i);
		TH_LOG("%s - %s: %lld ns (median)", recs[i]->name, recs[0]->name,
		       (long long)median);
		if (llabs(median) > max_median_ns) {
			snprintf(self->why, sizeof(self->why),
				 "%s and %s convert to wall-clock times %lld ns apart (median), more than %lld",
				 recs[i]->name, recs[0]->name, (long long)median,
				 (long long)max_median_ns);
			goto out;
		}
	}
	TH_LOG("%zu switches identical on all three clocks, at most %lld ns apart",
	       cmp.compared, (long long)cmp.max_dt);
	if (cmp.compared < MIN_COMPARED) {
		snprintf(self->why, sizeof(self->why), "only %zu switches compared", cmp.compared);
		goto out;
	}
	ok = true;
out:
	for (i = 0; i < 3; i++)
		logger_cleanup(self->ctl, lgs[i]);
	rec_free(&rq);
	rec_free(&rs);
	rec_free(&rcy);
	cmp_free(&cmp);
	if (!ok)
		save_artifacts(files, 3);
	ASSERT_TRUE(ok) TH_LOG("%s", self->why);
}

/*
 * A CPU taken offline while a compact logger runs: what it batched
 * before going down is in that logger's file, or counted lost, and none
 * of it reaches a logger started later, once the CPU is back. The second
 * logger starts while CPU 1 is still offline, as a capture started then
 * would: that START's flush finds CPU 1 down, and whatever CPU 1 still
 * held would go to that logger once it switches again.
 */
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define OFFLINE_A	WORK_DIR "/ntkl_cswitch_offline_a.etl"
#define OFFLINE_B	WORK_DIR "/ntkl_cswitch_offline_b.etl"

static char *const pingpong_cpu1_argv[] = { "pingpong", "-q", "-c", "1", "1000", NULL };

FIXTURE(hotplug) {
	int ctl;
	char why[MSG_MAX];
};

FIXTURE_SETUP(hotplug)
{
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->why[0] = 0;
}

/* Whatever happened: no logger left running, CPU 1 back online. */
FIXTURE_TEARDOWN(hotplug)
{
	ntkl_stop_every_logger(self->ctl);
	if (!access(CPU1_ONLINE, W_OK))
		write_file(CPU1_ONLINE, "1");
	close(self->ctl);
}

/* The thread id of the kernel thread named comm (a stopper: "migration/1"), or 0. */
static uint32_t kthread_tid(const char *comm)
{
	char path[sizeof(((struct dirent *)0)->d_name) + 16], name[64];
	struct dirent *d;
	uint32_t tid = 0;
	DIR *dir = opendir("/proc");

	while (dir && !tid && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, comm, strlen(comm)) &&
		    name[strlen(comm)] == '\n')
			tid = strtoul(d->d_name, NULL, 10);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/* Run pingpong pinned to CPU 1 (a few thousand switches there). */
static int pingpong_cpu1(char *why, size_t len)
{
	int status = wait_timeout(spawn(pingpong_cpu1_argv, NULL, false), 120);

	if (status)
		snprintf(why, len, "pingpong -c 1 failed with status %d", status);
	return status ? -1 : 0;
}

/*
 * The first logger's file: CPU 1's switches up to its going offline.
 * Those it made as it went down (its hotplug thread, at t_off or after)
 * are there; so is its very last switch, out of its stopper (which ran
 * take_cpu_down()), unless the logger counted events lost.
 */
static int check_offline_logger(const struct logger *lg, const struct rec *r, int64_t t_off,
				 uint32_t stopper, char *why, size_t len)
{
	const struct sw *v = r->v[1], *last;
	size_t n = r->n[1], k, after = 0;

	if (!n) {
		snprintf(why, len, "%s: no switch of CPU 1, where pingpong ran", lg->path);
		return -1;
	}
	for (k = 0; k < n; k++)
		after += v[k].t >= t_off;
	last = &v[n - 1];
	fprintf(stderr, "# first logger: %zu switches of CPU 1, %zu of them as it went offline, the last out of thread %u at %lld; %llu events lost; CPU 1's stopper is thread %u\n",
		n, after, last->old_tid, (long long)last->raw,
		(unsigned long long)lg->final.events_lost, stopper);
	if (!after) {
		snprintf(why, len,
			 "%s: CPU 1's last switch is at %lld ns, before it was taken offline (%lld ns): the switches it held back as it went down are missing",
			 lg->path, (long long)last->t, (long long)t_off);
		return -1;
	}
	if (!lg->final.events_lost && last->old_tid != stopper) {
		snprintf(why, len,
			 "%s: CPU 1's last switch is out of thread %u, not out of its stopper (thread %u), which took it down, and no event was counted lost",
			 lg->path, last->old_tid, stopper);
		return -1;
	}
	return 0;
}

/* The second logger's file: no switch from before its start, and some of CPU 1's. */
static int check_later_logger(const struct logger *lg, const struct rec *r,
			      char *why, size_t len)
{
	unsigned int cpu;
	size_t k;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		for (k = 0; k < r->n[cpu]; k++) {
			const struct sw *s = &r->v[cpu][k];

			if (s->raw >= (int64_t)lg->p.start_clock)
				continue;
			snprintf(why, len,
				 "%s: cpu %u switch %zu (%u -> ...) at %lld, before the logger started (%lld): a batch from before its start reached it",
				 lg->path, cpu, k, s->old_tid, (long long)s->raw,
				 (long long)lg->p.start_clock);
			return -1;
		}
	}
	if (!r->n[1]) {
		snprintf(why, len, "%s: no switch of CPU 1, back online and running pingpong",
			 lg->path);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(hotplug, offline_cpu_batches, 150)
{
	struct logger a = { .name = "ntkl_cswitch_test offline a", .reader = -1,
			    .path = OFFLINE_A, .clock = NTKL_CLOCK_QPC, .compact = true };
	struct logger b = { .name = "ntkl_cswitch_test offline b", .reader = -1,
			    .path = OFFLINE_B, .clock = NTKL_CLOCK_QPC, .compact = true };
	const char *const files[] = { OFFLINE_A, OFFLINE_B };
	/* QPC is CLOCK_MONOTONIC in 100 ns ticks */
	const struct conv mono = { .freq = 10000000 };
	struct rec ra = { .name = "offline a" }, rb = { .name = "offline b" };
	uint32_t stopper;
	int64_t t_off;
	bool ok = false;
	int ret;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access(CPU1_ONLINE, W_OK) ||
	    write_file(CPU1_ONLINE, "1"))
		SKIP(return, "CPU 1 cannot be taken offline here (%s not writable)", CPU1_ONLINE);
	stopper = kthread_tid("migration/1");
	ASSERT_NE(0, stopper) TH_LOG("no kernel thread migration/1 in /proc");

	if (loggers_start(self->ctl, (struct logger *[]){ &a }, 1, self->why, sizeof(self->why)) ||
	    pingpong_cpu1(self->why, sizeof(self->why)))
		goto out;
	t_off = clock_ns(CLOCK_MONOTONIC);
	ret = write_file(CPU1_ONLINE, "0");
	if (ret) {
		logger_cleanup(self->ctl, &a);
		SKIP(return, "CPU 1 cannot be taken offline here (writing 0 to %s: %s)",
		     CPU1_ONLINE, strerror(-ret));
	}
	sleep_ms(50);
	ret = logger_finish(self->ctl, &a);
	if (ret) {
		snprintf(self->why, sizeof(self->why), "stopping logger \"%s\": %s", a.name,
			 strerror(-ret));
		goto out;
	}

	/* started with CPU 1 down: its START's flush cannot reach CPU 1 */
	if (loggers_start(self->ctl, (struct logger *[]){ &b }, 1, self->why, sizeof(self->why)))
		goto out;
	ret = write_file(CPU1_ONLINE, "1");
	if (ret) {
		snprintf(self->why, sizeof(self->why), "bringing CPU 1 back online: %s",
			 strerror(-ret));
		goto out;
	}
	if (pingpong_cpu1(self->why, sizeof(self->why)))
		goto out;
	sleep_ms(50);
	ret = logger_finish(self->ctl, &b);
	if (ret) {
		snprintf(self->why, sizeof(self->why), "stopping logger \"%s\": %s", b.name,
			 strerror(-ret));
		goto out;
	}

	if (read_ntkl(&ra, OFFLINE_A, &mono, self->why, sizeof(self->why)) ||
	    read_ntkl(&rb, OFFLINE_B, &mono, self->why, sizeof(self->why)) ||
	    check_offline_logger(&a, &ra, t_off, stopper, self->why, sizeof(self->why)) ||
	    check_later_logger(&b, &rb, self->why, sizeof(self->why)))
		goto out;
	TH_LOG("second logger: %zu switches, %zu of CPU 1, none before its start", rb.total,
	       rb.n[1]);
	ok = true;
out:
	logger_cleanup(self->ctl, &a);
	logger_cleanup(self->ctl, &b);
	rec_free(&ra);
	rec_free(&rb);
	if (!ok)
		save_artifacts(files, 2);
	ASSERT_TRUE(ok) TH_LOG("%s", self->why);
}

TEST_HARNESS_MAIN
