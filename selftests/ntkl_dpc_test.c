// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_dpc_test: ISR (0x0F43), DPC (0x0F44) and TimerDPC (0x0F45) are the
 * kernel's interrupt handlers, softirqs, tasklets and timer callbacks, one
 * for one. trace-cmd (ftrace, the reference) records irq:irq_handler_*,
 * irq:softirq_*, irq:tasklet_*, timer:timer_expire_* and
 * timer:hrtimer_expire_* on the mono clock while an ntkl logger with
 * DPC+INTERRUPT+LOADER records the same workload on the QPC clock
 * (CLOCK_MONOTONIC in 100 ns units). Over the window the logger surely
 * ran (after START returned, before STOP), for each kind:
 *
 *   - the same count of handlers that entered and returned in it (+-1 %);
 *   - about the same total time in them (InitialTime to the record's time
 *     against entry to exit), and each ntkl record paired with trace-cmd's
 *     of about its duration (median microseconds apart);
 *   - the same timer callbacks (Routine against the tracepoints' function);
 *
 * and in the ntkl file alone: InitialTime <= the record's time; on each
 * CPU the intervals nest (an interrupt's inside the softirq it
 * interrupted, never half in); every Routine inside the kernel image or a
 * module (the Image records); nothing lost. Without DPC and INTERRUPT no
 * such record at all.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest dpc"
#define TC_DAT		"/tmp/ntkl_dpc_tc.dat"
#define TC_LOG		"/tmp/ntkl_dpc_tc.log"
#define ETL_PATH	"/tmp/ntkl_dpc.etl"
#define SAVE_DIR	"/out/ntkl_dpc_test"
#define TRACEFS		"/sys/kernel/tracing"
#define MAX_CPUS	64
#define MAX_IMAGES	1024
#define MAX_ROUTINES	256

enum kind { K_ISR, K_DPC, K_TIMER, K_KINDS };
static const char *const kind_name[K_KINDS] = { "ISR", "DPC", "TimerDPC" };

struct interval {
	int64_t start, end;		/* ns, CLOCK_MONOTONIC */
	uint64_t routine;
	int sym;			/* trace-cmd: routine printed by name (syms[]) */
	enum kind kind;
	uint16_t cpu;
};

struct intervals {
	struct interval *v;
	size_t n, cap;
};

static int add_interval(struct intervals *iv, const struct interval *x)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 4096;
		struct interval *v = realloc(iv->v, cap * sizeof(*v));

		if (!v)
			return -1;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = *x;
	return 0;
}

/* ---- the ntkl capture ---- */

struct image {
	uint64_t base, size;
};

struct dpc_view {
	struct intervals iv;
	struct image img[MAX_IMAGES];
	unsigned int n_img;
	unsigned long bad_initial;	/* InitialTime after the record's time */
	unsigned long bad_size;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct dpc_view *v = ctx;
	struct interval x = { .sym = -1 };

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	if ((r->hook_id == ETW_EVENT_IMAGE_DC_START_HOOK ||
	     r->hook_id == ETW_EVENT_IMAGE_LOAD_HOOK) &&
	    r->payload_len >= sizeof(struct etw_image_v3) && v->n_img < MAX_IMAGES) {
		const struct etw_image_v3 *p = (const void *)r->payload;

		v->img[v->n_img].base = p->image_base;
		v->img[v->n_img++].size = p->image_size;
		return;
	}
	if (r->hook_id == ETW_EVENT_ISR_HOOK) {
		const struct perfinfo_isr *p = (const void *)r->payload;

		if (r->payload_len != ETW_ISR_SIZE) {
			v->bad_size++;
			return;
		}
		x.kind = K_ISR;
		x.start = (int64_t)p->initial_time * 100;
		x.routine = p->routine;
	} else if (r->hook_id == ETW_EVENT_DPC_HOOK || r->hook_id == ETW_EVENT_TIMER_DPC_HOOK) {
		const struct perfinfo_dpc *p = (const void *)r->payload;

		if (r->payload_len != sizeof(*p)) {
			v->bad_size++;
			return;
		}
		x.kind = r->hook_id == ETW_EVENT_DPC_HOOK ? K_DPC : K_TIMER;
		x.start = (int64_t)p->initial_time * 100;
		x.routine = p->routine;
	} else {
		return;
	}
	x.end = r->timestamp * 100;
	x.cpu = r->processor;
	if (x.start > x.end)
		v->bad_initial++;
	add_interval(&v->iv, &x);
}

static bool in_image(const struct dpc_view *v, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < v->n_img; i++)
		if (addr >= v->img[i].base && addr - v->img[i].base < v->img[i].size)
			return true;
	return false;
}

/* ---- trace-cmd ---- */

static pid_t spawn(char *const argv[], const char *out_path)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	signal(SIGINT, SIG_DFL);
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
	_exit(127);
}

static int wait_timeout(pid_t pid, unsigned int timeout_s)
{
	unsigned int waited_ms;
	int status;

	for (waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 20) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Recording: SIGINT caught, tracing on, the last event enabled, mono clock. */
static bool trace_cmd_ready(pid_t pid, unsigned int timeout_s)
{
	unsigned int waited_ms;

	for (waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 20) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		if (trace_cmd_recording(pid, "timer/hrtimer_expire_exit") &&
		    file_has(TRACEFS "/trace_clock", "[mono]"))
			return true;
		usleep(20000);
	}
	return false;
}

/* Entries in progress, per CPU and per kind of nesting (as the module's). */
struct open_entry {
	uint64_t key, routine;
	int sym;
	int64_t start;
	enum kind kind;
};

#define NEST	16
struct cpu_stack {
	struct open_entry e[2][NEST];	/* [0] ISR, [1] DPC and TimerDPC */
	unsigned int depth[2];
};

static uint64_t field(const char *line, const char *name)
{
	const char *p = strstr(line, name);

	return p ? strtoull(p + strlen(name), NULL, 0) : 0;
}

/*
 * trace-cmd prints timer_expire_entry's function by name: such names are
 * resolved, after the report is read, with one pass over /proc/kallsyms.
 */
#define MAX_SYMS	128
static struct {
	char name[128];
	uint64_t addr;
} syms[MAX_SYMS];
static int n_syms;

/* The routine of field name in line: its value, or *sym set to its name's slot. */
static uint64_t routine_field(const char *line, const char *name, int *sym)
{
	const char *p = strstr(line, name);
	char buf[128];
	int i;

	*sym = -1;
	if (!p)
		return 0;
	p += strlen(name);
	if (*p >= '0' && *p <= '9')
		return strtoull(p, NULL, 0);
	if (sscanf(p, "%127[A-Za-z0-9_.]", buf) != 1)
		return 0;
	for (i = 0; i < n_syms; i++)
		if (!strcmp(syms[i].name, buf))
			break;
	if (i == n_syms) {
		if (n_syms == MAX_SYMS)
			return 0;
		snprintf(syms[n_syms++].name, sizeof(syms[0].name), "%s", buf);
	}
	*sym = i;
	return 0;
}

static void resolve_syms(struct intervals *iv)
{
	char line[512], name[128], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t i;
	int k;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T'))
			for (k = 0; k < n_syms; k++)
				if (!syms[k].addr && !strcmp(syms[k].name, name))
					syms[k].addr = addr;
	fclose(f);
	for (i = 0; i < iv->n; i++)
		if (iv->v[i].sym >= 0)
			iv->v[i].routine = syms[iv->v[i].sym].addr;
}

static int read_trace_cmd(struct intervals *iv, unsigned long *lost, char *why, size_t len)
{
	static struct cpu_stack st[MAX_CPUS];
	char line[1024], frac[16], ev[64];
	unsigned long long sec;
	unsigned int cpu;
	FILE *f = popen("trace-cmd report -t -R -i " TC_DAT " 2>&1", "r");

	memset(st, 0, sizeof(st));
	*lost = 0;
	if (!f) {
		snprintf(why, len, "cannot run trace-cmd report");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct open_entry e = { .sym = -1 };
		const char *b;
		bool entry;
		int s, i;

		if (strstr(line, "LOST"))
			(*lost)++;
		b = strstr(line, "] ");
		for (b = b ? b : line; b > line && *b != '['; b--)
			;
		if (*b != '[' || sscanf(b, "[%u] %llu.%15[0-9]: %63[a-z_]:", &cpu, &sec, frac,
					ev) != 4 || strlen(frac) != 9 || cpu >= MAX_CPUS)
			continue;
		e.start = (int64_t)sec * 1000000000 + strtoll(frac, NULL, 10);
		entry = strstr(ev, "_entry") != NULL;
		if (!strncmp(ev, "irq_handler_", 12)) {
			e.kind = K_ISR;
			e.key = field(line, " irq=");
		} else if (!strncmp(ev, "softirq_", 8) && strcmp(ev, "softirq_raise")) {
			e.kind = K_DPC;
			e.key = 0x1000 + field(line, " vec=");
		} else if (!strncmp(ev, "tasklet_", 8)) {
			e.kind = K_DPC;
			e.key = field(line, " tasklet=");
			e.routine = routine_field(line, " func=", &e.sym);
		} else if (!strncmp(ev, "timer_expire_", 13)) {
			e.kind = K_TIMER;
			e.key = field(line, " timer=");
			e.routine = routine_field(line, " function=", &e.sym);
		} else if (!strncmp(ev, "hrtimer_expire_", 15)) {
			e.kind = K_TIMER;
			e.key = field(line, " hrtimer=");
			e.routine = routine_field(line, " function=", &e.sym);
		} else {
			continue;
		}
		s = e.kind != K_ISR;
		if (entry) {
			if (st[cpu].depth[s] < NEST)
				st[cpu].e[s][st[cpu].depth[s]] = e;
			st[cpu].depth[s]++;
			continue;
		}
		if (st[cpu].depth[s] > NEST) {
			st[cpu].depth[s]--;
			continue;
		}
		for (i = (int)st[cpu].depth[s] - 1; i >= 0; i--)
			if (st[cpu].e[s][i].key == e.key && st[cpu].e[s][i].kind == e.kind)
				break;
		if (i < 0)
			continue;
		{
			struct interval x = {
				.start = st[cpu].e[s][i].start,
				.end = e.start,
				.routine = st[cpu].e[s][i].routine,
				.sym = st[cpu].e[s][i].sym,
				.kind = e.kind,
				.cpu = (uint16_t)cpu,
			};

			st[cpu].depth[s] = i;
			if (add_interval(iv, &x)) {
				pclose(f);
				snprintf(why, len, "out of memory");
				return -1;
			}
		}
	}
	if (pclose(f)) {
		snprintf(why, len, "trace-cmd report failed");
		return -1;
	}
	resolve_syms(iv);
	return 0;
}

/* ---- the workload: timers, disk interrupts, IPIs ---- */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	struct timespec d = { 0, 200000 };
	int i;

	for (i = 0; i < 1500; i++)
		nanosleep(&d, NULL);
	return NULL;
}

/* Direct reads of the VM's virtio disk: block interrupts and completions. */
static void disk_reads(void)
{
	int fd = open("/dev/vda", O_RDONLY | O_DIRECT);
	void *buf;
	int i;

	if (fd < 0)
		return;
	if (posix_memalign(&buf, 4096, 4096)) {
		close(fd);
		return;
	}
	for (i = 0; i < 400; i++)
		if (pread(fd, buf, 4096, (off_t)(i % 64) * 4096) < 0)
			break;
	free(buf);
	close(fd);
}

static void workload(void)
{
	char *const mix[] = { "threadmix", "-q", "4", "100", NULL };
	pthread_t th[2];
	pid_t pid;
	int i;

	pid = spawn(mix, "/dev/null");
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, sleeper, NULL);
	disk_reads();
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (pid > 0)
		wait_timeout(pid, 120);
}

/* ---- checks ---- */

static int cmp_start(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* On each CPU, two intervals are disjoint or one holds the other. */
static size_t nesting_violations(struct intervals *iv, char *first, size_t len)
{
	struct interval *stack[64];
	size_t bad = 0, i;
	unsigned int depth = 0;
	uint16_t cpu = UINT16_MAX;

	qsort(iv->v, iv->n, sizeof(*iv->v), cmp_start);
	for (i = 0; i < iv->n; i++) {
		struct interval *x = &iv->v[i];

		if (x->cpu != cpu) {
			cpu = x->cpu;
			depth = 0;
		}
		while (depth && stack[depth - 1]->end <= x->start)
			depth--;
		if (depth && x->end > stack[depth - 1]->end) {
			if (!bad++)
				snprintf(first, len,
					 "cpu %u: %s [%lld, %lld] overlaps %s [%lld, %lld] without nesting",
					 cpu, kind_name[x->kind], (long long)x->start,
					 (long long)x->end, kind_name[stack[depth - 1]->kind],
					 (long long)stack[depth - 1]->start,
					 (long long)stack[depth - 1]->end);
			continue;
		}
		if (depth < 64)
			stack[depth++] = x;
	}
	return bad;
}

struct totals {
	size_t n[K_KINDS];
	int64_t ns[K_KINDS];
};

static void window_totals(const struct intervals *iv, int64_t a, int64_t b, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < iv->n; i++) {
		const struct interval *x = &iv->v[i];

		if (x->start < a || x->end > b)
			continue;
		t->n[x->kind]++;
		t->ns[x->kind] += x->end - x->start;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

struct match {
	size_t n, matched;
	int64_t median, p95;		/* |ntkl duration - trace-cmd's|, ns */
};

/*
 * Pair each of ntkl's intervals of kind k in [a, b] with trace-cmd's on
 * the same CPU whose entry and exit are nearest (both within 2 ms), and
 * sum up how far their durations are apart. tc must be sorted by
 * cmp_start().
 */
static void match_durations(const struct intervals *nt, const struct intervals *tc,
			    enum kind k, int64_t a, int64_t b, struct match *m)
{
	int64_t *diff = calloc(nt->n + 1, sizeof(*diff));
	size_t i, lo, hi, j;

	memset(m, 0, sizeof(*m));
	if (!diff)
		return;
	for (i = 0; i < nt->n; i++) {
		const struct interval *x = &nt->v[i];
		const struct interval *best = NULL;
		int64_t best_d = 0;

		if (x->kind != k || x->start < a || x->end > b)
			continue;
		m->n++;
		/* the first of tc on x's CPU starting at x->start - 2 ms or later */
		lo = 0;
		hi = tc->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const struct interval *y = &tc->v[mid];

			if (y->cpu < x->cpu || (y->cpu == x->cpu && y->start < x->start - 2000000))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < tc->n && tc->v[j].cpu == x->cpu &&
			     tc->v[j].start <= x->start + 2000000; j++) {
			const struct interval *y = &tc->v[j];
			int64_t d = llabs(y->end - x->end) + llabs(y->start - x->start);

			if (y->kind != k || llabs(y->end - x->end) > 2000000)
				continue;
			if (!best || d < best_d) {
				best = y;
				best_d = d;
			}
		}
		if (best)
			diff[m->matched++] = llabs((x->end - x->start) - (best->end - best->start));
	}
	if (m->matched) {
		qsort(diff, m->matched, sizeof(*diff), cmp_i64);
		m->median = diff[m->matched / 2];
		m->p95 = diff[m->matched * 95 / 100];
	}
	free(diff);
}

static bool has_routine(const struct intervals *iv, enum kind k, uint64_t routine, int64_t a,
			int64_t b)
{
	size_t i;

	for (i = 0; i < iv->n; i++)
		if (iv->v[i].kind == k && iv->v[i].routine == routine && iv->v[i].start >= a &&
		    iv->v[i].end <= b)
			return true;
	return false;
}

static void save_artifacts(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s %s %s %s/ 2>/dev/null", SAVE_DIR,
		 TC_DAT, TC_LOG, ETL_PATH, SAVE_DIR);
	if (system(cmd))
		fprintf(stderr, "# could not save the artifacts under %s\n", SAVE_DIR);
}

NTKL_READER_FIXTURE(dpc);

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 uint32_t flags, struct drain_job *job, pthread_t *th)
{
	struct ntkl_properties p;

	props_init(&p, LOGGER, flags);
	p.clock_type = NTKL_CLOCK_QPC;
	p.buffer_size_kb = 256;
	p.maximum_buffers = 64;
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	memset(job, 0, sizeof(*job));
	job->fd = reader;
	job->size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(th, NULL, drain_thread, job));
}

static void stop_logger(struct __test_metadata *_metadata, int ctl, struct drain_job *job,
			pthread_t th)
{
	struct ntkl_properties final = { .size = sizeof(final) };

	ASSERT_EQ(0, ntkl_stop_name(ctl, LOGGER));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, job->ret);
	ASSERT_EQ(0, ntkl_ctl(job->fd, NTKL_IOC_QUERY, &final));
	capture_patch(&job->c, &final);
	EXPECT_EQ(0, final.events_lost);
}

#define DPC_FLAGS	(EVENT_TRACE_FLAG_DPC | EVENT_TRACE_FLAG_INTERRUPT | \
			 EVENT_TRACE_FLAG_IMAGE_LOAD)

TEST_F_TIMEOUT(dpc, same_as_trace_cmd, 600)
{
	char *const tc_argv[] = {
		"trace-cmd", "record", "-C", "mono", "-o", TC_DAT,
		"-e", "irq:irq_handler_entry", "-e", "irq:irq_handler_exit",
		"-e", "irq:softirq_entry", "-e", "irq:softirq_exit",
		"-e", "irq:tasklet_entry", "-e", "irq:tasklet_exit",
		"-e", "timer:timer_expire_entry", "-e", "timer:timer_expire_exit",
		"-e", "timer:hrtimer_expire_entry", "-e", "timer:hrtimer_expire_exit", NULL
	};
	static struct dpc_view v;
	struct intervals tc = { 0 };
	struct totals tn, tt;
	struct drain_job job;
	unsigned long tc_lost;
	char why[512] = "";
	size_t bad, k, i, routines = 0, missing = 0;
	int64_t a, b;
	pthread_t th;
	pid_t tcpid;
	bool kprobes;
	int status;

	if (system("command -v trace-cmd >/dev/null 2>&1"))
		SKIP(return, "trace-cmd is not on $PATH");
	unlink(TC_DAT);
	tcpid = spawn(tc_argv, TC_LOG);
	ASSERT_GT(tcpid, 0);
	ASSERT_TRUE(trace_cmd_ready(tcpid, 120)) TH_LOG("trace-cmd record not ready, see %s",
							 TC_LOG);

	start_logger(_metadata, self->ctl, self->reader, DPC_FLAGS, &job, &th);
	a = mono_ns();
	workload();
	b = mono_ns();
	stop_logger(_metadata, self->ctl, &job, th);
	kill(tcpid, SIGINT);
	status = wait_timeout(tcpid, 300);
	capture_write(&job.c, ETL_PATH);
	if (status)
		save_artifacts();
	ASSERT_EQ(0, status) TH_LOG("trace-cmd record failed, see %s", TC_LOG);

	memset(&v, 0, sizeof(v));
	ASSERT_EQ(0, capture_walk(&job.c, view_record, &v, &v.verdict));
	capture_free(&job.c);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.bad_size);
	EXPECT_EQ(0, v.bad_initial) TH_LOG("InitialTime after the record's time");
	ASSERT_EQ(0, read_trace_cmd(&tc, &tc_lost, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, tc_lost) TH_LOG("trace-cmd lost events: no comparison");

	window_totals(&v.iv, a, b, &tn);
	window_totals(&tc, a, b, &tt);
	for (k = 0; k < K_KINDS; k++) {
		size_t d = tn.n[k] > tt.n[k] ? tn.n[k] - tt.n[k] : tt.n[k] - tn.n[k];
		int64_t dt = tn.ns[k] - tt.ns[k];

		TH_LOG("%s: ntkl %zu, %lld us; trace-cmd %zu, %lld us (over %lld ms)",
		       kind_name[k], tn.n[k], (long long)tn.ns[k] / 1000, tt.n[k],
		       (long long)tt.ns[k] / 1000, (long long)(b - a) / 1000000);
		EXPECT_GT(tt.n[k], 20) TH_LOG("too few %s to compare", kind_name[k]);
		/* the same handlers: counts within 1 % (and 2 at the window's edges) */
		EXPECT_LE(d * 100, tt.n[k] + 200) TH_LOG("%s counts differ", kind_name[k]);
		/* the same time in them: two probes on one tracepoint, microseconds apart */
		if (dt < 0)
			dt = -dt;
		EXPECT_LE(dt, tt.ns[k] / 4 + (int64_t)tt.n[k] * 20000)
			TH_LOG("%s total time differs", kind_name[k]);
	}
	/* one by one: each of ntkl's has trace-cmd's, of about its duration */
	qsort(tc.v, tc.n, sizeof(*tc.v), cmp_start);
	for (k = 0; k < K_KINDS; k++) {
		struct match m;

		match_durations(&v.iv, &tc, k, a, b, &m);
		TH_LOG("%s: %zu of %zu paired with trace-cmd's; duration apart by %lld us (median), %lld us (95th percentile)",
		       kind_name[k], m.matched, m.n, (long long)m.median / 1000,
		       (long long)m.p95 / 1000);
		/*
		 * a few are not paired: on the debug kernel under a busy host
		 * 0.5 to 0.7 % (a vCPU stalled between the two probes)
		 */
		EXPECT_GE(m.matched * 100, m.n * 97) TH_LOG("%s: unpaired", kind_name[k]);
		/* under TCG on a busy host, both clocks read microseconds apart */
		EXPECT_LE(m.median, 50000) TH_LOG("%s: durations apart", kind_name[k]);
	}

	/* every timer callback trace-cmd saw run in the window, ntkl names */
	for (i = 0; i < tc.n && routines < MAX_ROUTINES; i++) {
		if (tc.v[i].kind != K_TIMER || tc.v[i].start < a || tc.v[i].end > b)
			continue;
		routines++;
		if (!has_routine(&v.iv, K_TIMER, tc.v[i].routine, a, b) && !missing++)
			TH_LOG("TimerDPC of %#llx (%s) not in the ntkl file",
			       (unsigned long long)tc.v[i].routine,
			       tc.v[i].sym >= 0 ? syms[tc.v[i].sym].name : "by address");
	}
	EXPECT_EQ(0, missing);

	/*
	 * every Routine in the kernel or a module; a softirq's is 0 where the
	 * kernel has no kprobes to look its action up with (the debug kernel)
	 */
	kprobes = !system("grep -q ' register_kprobe$' /proc/kallsyms");
	if (!kprobes)
		TH_LOG("no kprobes in this kernel: softirq DPCs may have Routine 0");
	missing = 0;
	for (i = 0; i < v.iv.n; i++)
		if (!in_image(&v, v.iv.v[i].routine) &&
		    (kprobes || v.iv.v[i].kind != K_DPC || v.iv.v[i].routine) && !missing++)
			TH_LOG("%s Routine %#llx in no Image (of %u)", kind_name[v.iv.v[i].kind],
			       (unsigned long long)v.iv.v[i].routine, v.n_img);
	EXPECT_EQ(0, missing);

	bad = nesting_violations(&v.iv, why, sizeof(why));
	EXPECT_EQ(0, bad) TH_LOG("%zu: first %s", bad, why);

	if (!_metadata->passed)
		save_artifacts();
	free(v.iv.v);
	free(tc.v);
}

/* The flags off: no ISR, DPC or TimerDPC, however busy the CPUs. */
TEST_F(dpc, none_without_flags)
{
	struct drain_job job;
	pthread_t th;

	start_logger(_metadata, self->ctl, self->reader,
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_CSWITCH, &job, &th);
	disk_reads();
	sleeper(NULL);
	stop_logger(_metadata, self->ctl, &job, th);
	EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_ISR_HOOK));
	EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_DPC_HOOK));
	EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_TIMER_DPC_HOOK));
	EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_CSWITCH_HOOK));
	capture_free(&job.c);
}

/* DPC alone: no ISR; INTERRUPT alone: no DPC; both on one logger each. */
TEST_F(dpc, each_flag_its_events)
{
	struct drain_job job, job2;
	pthread_t th, th2;
	int reader2 = ntkl_open();
	struct ntkl_properties p, final = { .size = sizeof(final) };

	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_DPC, &job, &th);
	props_init(&p, "selftest isr", EVENT_TRACE_FLAG_INTERRUPT);
	p.clock_type = NTKL_CLOCK_CYCLE;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader2, p.logger_id));
	memset(&job2, 0, sizeof(job2));
	job2.fd = reader2;
	job2.size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(&th2, NULL, drain_thread, &job2));
	disk_reads();
	sleeper(NULL);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest isr"));
	ASSERT_EQ(0, pthread_join(th2, NULL));
	ASSERT_EQ(0, ntkl_ctl(reader2, NTKL_IOC_QUERY, &final));
	capture_patch(&job2.c, &final);
	stop_logger(_metadata, self->ctl, &job, th);

	EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_ISR_HOOK));
	EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_DPC_HOOK));
	EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_TIMER_DPC_HOOK));
	EXPECT_EQ(0, capture_count_hook(&job2.c, ETW_EVENT_DPC_HOOK));
	EXPECT_EQ(0, capture_count_hook(&job2.c, ETW_EVENT_TIMER_DPC_HOOK));
	/* virtio-blk's interrupts, if the VM has its disk */
	if (access("/dev/vda", R_OK) == 0)
		EXPECT_LT(0, capture_count_hook(&job2.c, ETW_EVENT_ISR_HOOK));
	capture_free(&job.c);
	capture_free(&job2.c);
	close(reader2);
}

TEST_HARNESS_MAIN
