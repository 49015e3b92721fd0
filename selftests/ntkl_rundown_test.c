// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_rundown_test: each rundown is closed the Windows way. In the
 * Windows samples (shared/docs/windows-event-catalogue.md) a kernel
 * logger's DCStart rundown and its DCEnd rundown each end with an
 * EventTrace/RundownComplete event (0x0008, PERFINFO64, version 2, no
 * payload) timed after every record of that rundown; tools take it as
 * "the rundown is whole".
 *
 * This is also the cost of a new event in ntkl (docs/design.md): its line
 * in uapi/ntkl_event_list.h, its producer (module/producers/process.c),
 * and this test.
 *
 * Each rundown is bracketed as in ShutdownPerfDiagLogger.etl: it starts
 * with GroupMasksEnd (0x0020) and, at start, a PERFINFO64 copy of the
 * HeaderExtension (0x0005) before the DCStart records; at stop that copy
 * follows the DCEnd records; both carry the logger's group masks.
 *
 * The rundown's records carry what Windows' do (the samples): a Thread
 * DCStart/DCEnd header names the thread it lists, each CPU's idle thread
 * is on its own CPU, a live process's ExitStatus is STILL_ACTIVE (259),
 * and Process End carries the exit status.
 *
 * Each checked against what Linux itself says: a process's name and
 * command line against /proc/<pid>/exe and /proc/<pid>/cmdline, its user
 * against /proc/<pid>/status, kernel threads (the children of kthreadd,
 * by /proc/<pid>/status) as threads of System, and an exiting thread's
 * last switch against trace-cmd's prev_state.
 */
#define _GNU_SOURCE		/* setresuid */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

struct rundown_view {
	unsigned int complete;			/* RundownComplete events */
	unsigned int dc_threads, dc_thread_header_mismatch;
	uint64_t idle_affinity;			/* OR of idle threads' Affinity, DCStart */
	unsigned int idle_threads, idle_named_by_cpu;
	uint32_t idle_ticks[64];		/* DCStart header KernelTime, by CPU */
	unsigned int dc_processes, dc_process_not_active, dc_process_with_ids;
	int32_t end_status[2];			/* Process End of the two children */
	uint32_t child[2];
	int64_t complete_time[4];
	int64_t masks_end_time[4], ext_time[4];	/* GroupMasksEnd, PERFINFO64 Extension */
	unsigned int masks_end, ext;
	bool masks_shape_ok;			/* PERFINFO64 v2, 36 bytes, our masks */
	struct perfinfo_groupmask want_masks;
	int64_t last_dcstart, first_dcend, last_dcend;
	bool complete_shape_ok;			/* header, version, size */
	struct capture_verdict verdict;
};

static bool is_dc(uint16_t hook, bool end)
{
	if (end)
		return hook == ETW_EVENT_PROCESS_DC_END_HOOK || hook == ETW_EVENT_THREAD_DC_END_HOOK;
	return hook == ETW_EVENT_PROCESS_DC_START_HOOK || hook == ETW_EVENT_THREAD_DC_START_HOOK;
}

/* Thread DCStart/DCEnd: the header's ids are the listed thread's. */
static void view_thread(struct rundown_view *v, const struct etl_record *r)
{
	const struct etw_thread_v3 *t = (const void *)r->payload;
	char name[32];

	if (r->hook_id != ETW_EVENT_THREAD_DC_START_HOOK &&
	    r->hook_id != ETW_EVENT_THREAD_DC_END_HOOK)
		return;
	if (r->payload_len < sizeof(*t) + 2)
		return;
	v->dc_threads++;
	if (r->process_id != t->process_id || r->thread_id != t->thread_id)
		v->dc_thread_header_mismatch++;
	if (t->thread_id || r->hook_id != ETW_EVENT_THREAD_DC_START_HOOK)
		return;
	/* an idle thread: "swapper/N" on CPU N only */
	v->idle_threads++;
	v->idle_affinity |= t->affinity;
	if (t->affinity && !(t->affinity & (t->affinity - 1))) {
		unsigned int cpu = __builtin_ctzll(t->affinity);
		const struct system_trace_header *h = (const void *)(r->payload - r->header_len);
		char want[32];
		unsigned int i, n = (r->payload_len - sizeof(*t)) / 2;

		v->idle_ticks[cpu] = h->kernel_time;

		for (i = 0; i < n && i < sizeof(name) - 1 && r->payload[sizeof(*t) + 2 * i]; i++)
			name[i] = (char)r->payload[sizeof(*t) + 2 * i];
		name[i] = 0;
		snprintf(want, sizeof(want), "swapper/%u", cpu);
		if (!strcmp(name, want))
			v->idle_named_by_cpu++;
	}
}

/* Process records: ExitStatus. */
static void view_process(struct rundown_view *v, const struct etl_record *r)
{
	const struct etw_process_v4 *p = (const void *)r->payload;
	int i;

	if (r->payload_len < ETW_PROCESS_V4_FIXED_SIZE)
		return;
	if (r->hook_id == ETW_EVENT_PROCESS_DC_START_HOOK ||
	    r->hook_id == ETW_EVENT_PROCESS_DC_END_HOOK) {
		v->dc_processes++;
		if (p->exit_status != 259)
			v->dc_process_not_active++;
		/* PERFINFO64, as Windows' (test_samples.c): no ids */
		if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->has_ids)
			v->dc_process_with_ids++;
	}
	if (r->hook_id != ETW_EVENT_PROCESS_END_HOOK)
		return;
	for (i = 0; i < 2; i++)
		if (p->process_id == v->child[i])
			v->end_status[i] = p->exit_status;
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct rundown_view *v = ctx;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	if (is_dc(r->hook_id, false) && r->timestamp > v->last_dcstart)
		v->last_dcstart = r->timestamp;
	view_thread(v, r);
	view_process(v, r);
	if (is_dc(r->hook_id, true)) {
		if (r->timestamp > v->last_dcend)
			v->last_dcend = r->timestamp;
		if (r->timestamp < v->first_dcend)
			v->first_dcend = r->timestamp;
	}
	if (r->hook_id == ETW_EVENT_GROUP_MASKS_END_HOOK ||
	    (r->hook_id == ETW_EVENT_HEADER_EXTENSION_HOOK &&
	     r->header_type == ETW_HEADER_TYPE_PERFINFO64)) {
		bool end = r->hook_id == ETW_EVENT_GROUP_MASKS_END_HOOK;
		unsigned int *n = end ? &v->masks_end : &v->ext;

		if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 || (r->version & 0xFF) != 2 ||
		    r->payload_len != sizeof(struct etw_header_extension) ||
		    memcmp(r->payload, &v->want_masks, sizeof(v->want_masks)))
			v->masks_shape_ok = false;
		if (*n < 4)
			(end ? v->masks_end_time : v->ext_time)[*n] = r->timestamp;
		(*n)++;
	}
	if (r->hook_id != ETW_EVENT_RUNDOWN_COMPLETE_HOOK)
		return;
	if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 ||
	    (r->version & 0xFF) != 2 || r->payload_len != 0)
		v->complete_shape_ok = false;
	if (v->complete < 4)
		v->complete_time[v->complete] = r->timestamp;
	v->complete++;
}

static int view_capture(struct capture *cap, struct rundown_view *v)
{
	uint32_t child[2] = { v->child[0], v->child[1] };
	struct perfinfo_groupmask masks = v->want_masks;

	memset(v, 0, sizeof(*v));
	v->child[0] = child[0];
	v->child[1] = child[1];
	v->want_masks = masks;
	v->masks_shape_ok = true;
	v->end_status[0] = v->end_status[1] = -1;
	v->complete_shape_ok = true;
	v->first_dcend = INT64_MAX;
	return capture_walk(cap, view_record, v, &v->verdict);
}

/* Each CPU's idle time in ns, from /proc/stat (USER_HZ, 100 a second); -1 if unread. */
static void proc_stat_idle(int64_t *idle_ns, unsigned int max)
{
	unsigned long long user, nice, sys, idle;
	unsigned int cpu, i;
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	for (i = 0; i < max; i++)
		idle_ns[i] = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%u %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle) == 5 &&
		    cpu < max)
			idle_ns[cpu] = (int64_t)idle * 10000000;
	if (f)
		fclose(f);
}

/* t[0] the earlier of two times, t[1] the later */
static void sort2(int64_t *t)
{
	if (t[0] > t[1]) {
		int64_t x = t[0];

		t[0] = t[1];
		t[1] = x;
	}
}

/* a failed case leaves no logger running into the next (ntkl_util.h) */
NTKL_READER_FIXTURE(rundown);

/* Two rundowns, each closed by one RundownComplete after all its records. */
TEST_F(rundown, complete_after_each_rundown)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	struct rundown_view v;
	int64_t first, second, idle_before[64], idle_after[64], tick_ns;
	unsigned int cpu;

	props_init(&p, "selftest rundown", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	proc_stat_idle(idle_before, 64);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	proc_stat_idle(idle_after, 64);
	run_execs("/bin/true", 3);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest rundown"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);

	memset(&v, 0, sizeof(v));
	memcpy(&v.want_masks, final.group_masks, sizeof(v.want_masks));
	ASSERT_EQ(0, view_capture(&c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	ASSERT_EQ(2, v.complete);
	EXPECT_TRUE(v.complete_shape_ok);
	first = v.complete_time[0] < v.complete_time[1] ? v.complete_time[0] : v.complete_time[1];
	second = v.complete_time[0] < v.complete_time[1] ? v.complete_time[1] : v.complete_time[0];
	/* the start rundown's closes it, before the stop rundown begins */
	EXPECT_GE(first, v.last_dcstart);
	EXPECT_LE(first, v.first_dcend);
	EXPECT_GE(second, v.last_dcend);
	/*
	 * GroupMasksEnd opens each rundown; the Extension copy as Windows
	 * places it. Buffers come in file order, not time order across CPUs:
	 * the earlier of each pair is the start rundown's.
	 */
	ASSERT_EQ(2, v.masks_end);
	ASSERT_EQ(2, v.ext);
	EXPECT_TRUE(v.masks_shape_ok);
	sort2(v.masks_end_time);
	sort2(v.ext_time);
	EXPECT_LE(v.masks_end_time[0], v.ext_time[0]);
	EXPECT_LE(v.ext_time[0], first);
	EXPECT_GE(v.masks_end_time[1], first);
	EXPECT_LE(v.masks_end_time[1], v.first_dcend);
	EXPECT_GE(v.ext_time[1], v.last_dcend);
	EXPECT_LE(v.ext_time[1], second);

	/* the rundown's records, as Windows writes them */
	EXPECT_GT(v.dc_threads, 0);
	EXPECT_EQ(0, v.dc_thread_header_mismatch);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), v.idle_threads);
	EXPECT_EQ(v.idle_threads, v.idle_named_by_cpu);
	EXPECT_EQ((1ULL << v.idle_threads) - 1, v.idle_affinity);
	/*
	 * Each idle thread's KernelTime (ticks of TimerResolution) is its
	 * CPU's idle time at DCStart, as /proc/stat counts it just before and
	 * after START (10 ms units: one of slack each side, and a tick).
	 */
	tick_ns = (int64_t)capture_logfile_header(&c)->timer_resolution * 100;
	ASSERT_GT(tick_ns, 0);
	for (cpu = 0; cpu < v.idle_threads && cpu < 64; cpu++) {
		int64_t ns = (int64_t)v.idle_ticks[cpu] * tick_ns;

		if (idle_before[cpu] < 0 || idle_after[cpu] < 0)
			continue;
		TH_LOG("cpu %u idle: %lld ms at DCStart, /proc/stat %lld..%lld ms", cpu,
		       (long long)ns / 1000000, (long long)idle_before[cpu] / 1000000,
		       (long long)idle_after[cpu] / 1000000);
		EXPECT_GT(v.idle_ticks[cpu], 0);
		EXPECT_GE(ns + tick_ns + 10000000, idle_before[cpu])
			TH_LOG("cpu %u: idle %lld ns, /proc/stat %lld ns before", cpu,
			       (long long)ns, (long long)idle_before[cpu]);
		EXPECT_LE(ns, idle_after[cpu] + 10000000)
			TH_LOG("cpu %u: idle %lld ns, /proc/stat %lld ns after", cpu,
			       (long long)ns, (long long)idle_after[cpu]);
	}
	EXPECT_GT(v.dc_processes, 0);
	EXPECT_EQ(0, v.dc_process_not_active);
	EXPECT_EQ(0, v.dc_process_with_ids);
	capture_free(&c);
}

/* Process End: exit(3) gives 3; SIGKILL gives 128 + 9, as a shell shows them. */
TEST_F(rundown, process_end_exit_status)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	struct rundown_view v;
	pid_t a, b;
	int status;

	props_init(&p, "selftest rundown", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	a = fork();
	if (!a)
		_exit(3);
	b = fork();
	if (!b) {
		pause();
		_exit(0);
	}
	ASSERT_EQ(a, waitpid(a, &status, 0));
	kill(b, SIGKILL);
	ASSERT_EQ(b, waitpid(b, &status, 0));
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest rundown"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);

	memset(&v, 0, sizeof(v));
	v.child[0] = a;
	v.child[1] = b;
	ASSERT_EQ(0, view_capture(&c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(3, v.end_status[0]);
	EXPECT_EQ(128 + SIGKILL, v.end_status[1]);
	capture_free(&c);
}

/* ---- processes, threads and switches, as records say them ---- */

struct proc_rec {
	uint16_t hook;
	uint32_t pid, parent, uid;
	int32_t exit_status;
	int64_t time;
	char name[300], cmdline[1100];
};

struct thread_rec {
	uint16_t hook;
	uint32_t pid, tid, header_pid, header_tid;
};

struct switch_rec {
	uint32_t old_tid, new_tid;
	uint8_t state, reason;
	int64_t time;
};

struct census {
	struct proc_rec *procs;
	struct thread_rec *threads;
	struct switch_rec *switches;
	unsigned int nprocs, nthreads, nswitches;
	struct capture_verdict verdict;
};

static void *grow(void *v, unsigned int n, size_t size)
{
	if (n & (n - 1) && n)
		return v;
	return realloc(v, (n ? 2 * n : 64) * size);
}

/* Process v4: fixed part, TOKEN_USER, ANSI image name, UTF-16 command line. */
static void census_process(struct census *c, const struct etl_record *r)
{
	const struct etw_process_v4 *p = (const void *)r->payload;
	uint32_t off = ETW_PROCESS_V4_FIXED_SIZE + sizeof(struct etw_sid_header), i;
	const struct etw_sid *sid;
	struct proc_rec *pr;

	if (r->payload_len < off + sizeof(*sid))
		return;
	sid = (const void *)(r->payload + off);
	c->procs = grow(c->procs, c->nprocs, sizeof(*c->procs));
	pr = &c->procs[c->nprocs++];
	memset(pr, 0, sizeof(*pr));
	pr->hook = r->hook_id;
	pr->pid = p->process_id;
	pr->parent = p->parent_id;
	pr->exit_status = p->exit_status;
	pr->time = r->timestamp;
	if (sid->sub_authority_count == 2)
		memcpy(&pr->uid, r->payload + off + sizeof(*sid) + 4, 4);
	off += sizeof(*sid) + 4 * sid->sub_authority_count;
	for (i = 0; off < r->payload_len && r->payload[off] && i < sizeof(pr->name) - 1; off++)
		pr->name[i++] = (char)r->payload[off];
	off++;
	for (i = 0; off + 1 < r->payload_len && (r->payload[off] || r->payload[off + 1]) &&
	     i < sizeof(pr->cmdline) - 1; off += 2)
		pr->cmdline[i++] = r->payload[off + 1] ? '?' : (char)r->payload[off];
}

static void census_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			  const struct etl_record *r)
{
	struct census *c = ctx;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	if (r->hook_id >= ETW_EVENT_PROCESS_START_HOOK &&
	    r->hook_id <= ETW_EVENT_PROCESS_DC_END_HOOK)
		census_process(c, r);
	if (r->hook_id >= ETW_EVENT_THREAD_START_HOOK &&
	    r->hook_id <= ETW_EVENT_THREAD_DC_END_HOOK &&
	    r->payload_len >= sizeof(struct etw_thread_v3)) {
		const struct etw_thread_v3 *t = (const void *)r->payload;

		c->threads = grow(c->threads, c->nthreads, sizeof(*c->threads));
		c->threads[c->nthreads++] = (struct thread_rec){
			.hook = r->hook_id, .pid = t->process_id, .tid = t->thread_id,
			.header_pid = r->process_id, .header_tid = r->thread_id,
		};
	}
	if (r->hook_id == ETW_EVENT_CSWITCH_HOOK &&
	    r->payload_len >= sizeof(struct wmi_contextswap)) {
		const struct wmi_contextswap *cs = (const void *)r->payload;

		c->switches = grow(c->switches, c->nswitches, sizeof(*c->switches));
		c->switches[c->nswitches++] = (struct switch_rec){
			.old_tid = cs->old_thread_id, .new_tid = cs->new_thread_id,
			.state = cs->old_thread_state, .reason = cs->old_thread_wait_reason,
			.time = r->timestamp,
		};
	}
}

static void census_free(struct census *c)
{
	free(c->procs);
	free(c->threads);
	free(c->switches);
	memset(c, 0, sizeof(*c));
}

/* The process record with this hook and id (the latest in time), or NULL. */
static const struct proc_rec *find_proc(const struct census *c, uint16_t hook, uint32_t pid)
{
	const struct proc_rec *found = NULL;
	unsigned int i;

	for (i = 0; i < c->nprocs; i++)
		if (c->procs[i].hook == hook && c->procs[i].pid == pid &&
		    (!found || c->procs[i].time > found->time))
			found = &c->procs[i];
	return found;
}

static bool has_proc(const struct census *c, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return true;
	return false;
}

/* The process a thread record gives tid, or -1 if none lists it. */
static int64_t thread_pid(const struct census *c, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].tid == tid)
			return c->threads[i].pid;
	return -1;
}

/* Start a logger with these flags, run fn, stop, read everything. */
static int record_census(struct __test_metadata *_metadata, int ctl, int reader, uint32_t flags,
			 void (*fn)(void *), void *arg, struct census *c)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture cap = { 0 };
	int ret;

	props_init(&p, "selftest rundown", flags);
	p.buffer_size_kb = 256;
	if (ntkl_ctl(ctl, NTKL_IOC_START, &p) || ntkl_bind_id(reader, p.logger_id))
		return -1;
	fn(arg);
	if (ntkl_stop_name(ctl, "selftest rundown") ||
	    capture_drain(reader, p.buffer_size_kb * 1024, &cap, 0) ||
	    ntkl_ctl(reader, NTKL_IOC_QUERY, &final))
		return -1;
	capture_patch(&cap, &final);
	memset(c, 0, sizeof(*c));
	ret = capture_walk(&cap, census_record, c, &c->verdict);
	EXPECT_EQ(0, final.events_lost);
	capture_free(&cap);
	return ret;
}

/* /proc/<pid>/cmdline as one line: arguments joined by spaces. */
static void proc_cmdline(pid_t pid, char *out, size_t len)
{
	char path[64];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, out, len - 1);
	if (fd >= 0)
		close(fd);
	while (n > 0 && !out[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!out[i])
			out[i] = ' ';
	out[n > 0 ? n : 0] = 0;
}

/* A line of /proc/<pid>/status, "Key:\tvalue", as a number; -1 if none. */
static long proc_status(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The state letter of /proc/<pid>/stat (R, S, D...); 0 if unreadable. */
static char proc_state(pid_t pid)
{
	char path[64], line[512], *paren;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	paren = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* "pid (comm) S ...": after the comm's last parenthesis */
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* A child renamed "old-image-name" that becomes uid 4321 and execs sleep. */
struct exec_child {
	pid_t pid;
	char cmdline[1100];
	long uid;
};

static void start_exec_child(void *arg)
{
	struct exec_child *x = arg;
	int i;

	x->pid = fork();
	if (!x->pid) {
		prctl(PR_SET_NAME, "old-image-name");
		if (setresuid(4321, 4321, 4321))
			_exit(126);
		execl("/bin/sleep", "sleep", "29", "1", (char *)NULL);
		_exit(127);
	}
	/*
	 * exec done when the kernel shows the new argv and sleep sleeps: the
	 * argv shows while exec still runs, before its sched_process_exec
	 * (the new image's Start), which a logger stopped then would miss
	 */
	for (i = 0; i < 500; i++) {
		proc_cmdline(x->pid, x->cmdline, sizeof(x->cmdline));
		if (!strncmp(x->cmdline, "sleep", 5) && proc_state(x->pid) == 'S')
			break;
		usleep(10000);
	}
	x->uid = proc_status(x->pid, "Uid");
}

/*
 * Names, command lines and users against what /proc says, in the rundown
 * (which reads other processes' memory) and at exec (which cannot sleep);
 * the End of the image an exec replaced carries that image's name.
 */
TEST_F(rundown, names_command_lines_users)
{
	char exe[PATH_MAX], self_cmdline[1100], *base;
	struct exec_child x = { 0 };
	const struct proc_rec *pr, *end, *start;
	struct census c;
	ssize_t n;
	int status;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = 0;
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	proc_cmdline(getpid(), self_cmdline, sizeof(self_cmdline));
	ASSERT_EQ(0, record_census(_metadata, self->ctl, self->reader,
				   EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD,
				   start_exec_child, &x, &c)) TH_LOG("%s", c.verdict.first_violation);
	kill(x.pid, SIGKILL);
	ASSERT_EQ(x.pid, waitpid(x.pid, &status, 0));
	EXPECT_EQ(0, c.verdict.violations) TH_LOG("first: %s", c.verdict.first_violation);

	/* this test: its whole file name (longer than comm's 15 bytes) and argv */
	ASSERT_GT(strlen(base), 15);
	pr = find_proc(&c, ETW_EVENT_PROCESS_DC_START_HOOK, getpid());
	ASSERT_NE(NULL, pr);
	EXPECT_STREQ(base, pr->name);
	EXPECT_STREQ(self_cmdline, pr->cmdline);
	EXPECT_EQ(getuid(), pr->uid);
	pr = find_proc(&c, ETW_EVENT_PROCESS_DC_END_HOOK, getpid());
	ASSERT_NE(NULL, pr);
	EXPECT_STREQ(base, pr->name);
	EXPECT_STREQ(self_cmdline, pr->cmdline);

	/* the child: old image's End, then the new one's Start, then DCEnd */
	ASSERT_EQ(4321, x.uid);
	ASSERT_EQ(0, strncmp(x.cmdline, "sleep", 5)) TH_LOG("child cmdline '%s'", x.cmdline);
	end = find_proc(&c, ETW_EVENT_PROCESS_END_HOOK, x.pid);
	start = find_proc(&c, ETW_EVENT_PROCESS_START_HOOK, x.pid);
	ASSERT_NE(NULL, end);
	ASSERT_NE(NULL, start);
	EXPECT_STREQ("old-image-name", end->name);
	EXPECT_EQ(0, end->exit_status);
	EXPECT_LE(end->time, start->time);
	EXPECT_STREQ("sleep", start->name);
	EXPECT_STREQ(x.cmdline, start->cmdline);
	EXPECT_EQ(4321, start->uid);
	EXPECT_EQ(259, start->exit_status);
	pr = find_proc(&c, ETW_EVENT_PROCESS_DC_END_HOOK, x.pid);
	ASSERT_NE(NULL, pr);
	EXPECT_STREQ("sleep", pr->name);
	EXPECT_STREQ(x.cmdline, pr->cmdline);
	EXPECT_EQ(4321, pr->uid);
	census_free(&c);
}

/* kthreadd (2) and its children, the kernel threads, by /proc/<pid>/status. */
static unsigned int kernel_threads(pid_t *out, unsigned int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && (pid == 2 || proc_status(pid, "PPid") == 2))
			out[n++] = pid;
	}
	closedir(d);
	return n;
}

static void busy_a_while(void *arg)
{
	run_execs("/bin/true", 3);
	usleep(100000);
}

/*
 * Kernel threads are threads of System (2), which alone of them has a
 * Process record; every thread of a switch belongs to a process of the
 * capture, and every process's parent too.
 */
TEST_F(rundown, kernel_threads_in_system)
{
	pid_t kt[1024];
	unsigned int nkt = kernel_threads(kt, 1024), i, j, listed = 0, misplaced = 0;
	unsigned int own_process = 0, orphans = 0, no_parent = 0;
	const struct proc_rec *sys;
	struct census c;

	ASSERT_GT(nkt, 1);
	ASSERT_EQ(0, record_census(_metadata, self->ctl, self->reader,
				   EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
				   EVENT_TRACE_FLAG_CSWITCH, busy_a_while, NULL, &c))
		TH_LOG("%s", c.verdict.first_violation);
	EXPECT_EQ(0, c.verdict.violations) TH_LOG("first: %s", c.verdict.first_violation);
	sys = find_proc(&c, ETW_EVENT_PROCESS_DC_START_HOOK, 2);
	ASSERT_NE(NULL, sys);
	EXPECT_STREQ("System", sys->name);
	EXPECT_STREQ("", sys->cmdline);
	for (i = 0; i < nkt; i++) {
		for (j = 0; j < c.nthreads; j++) {
			if (c.threads[j].tid != (uint32_t)kt[i] ||
			    c.threads[j].hook != ETW_EVENT_THREAD_DC_END_HOOK)
				continue;
			listed++;
			if (c.threads[j].pid != 2 || c.threads[j].header_pid != 2)
				misplaced++;
		}
		if (kt[i] != 2 && has_proc(&c, kt[i]))
			own_process++;
	}
	/* a kernel thread may end while the test runs: nearly all are listed */
	EXPECT_GE(listed, nkt - nkt / 10);
	EXPECT_EQ(0, misplaced);
	EXPECT_EQ(0, own_process);
	/* every thread switched is listed, in a process the capture has */
	EXPECT_GT(c.nswitches, 0);
	for (i = 0; i < c.nswitches; i++) {
		int64_t a = thread_pid(&c, c.switches[i].old_tid);
		int64_t b = thread_pid(&c, c.switches[i].new_tid);

		if (a < 0 || b < 0 || !has_proc(&c, a) || !has_proc(&c, b)) {
			if (!orphans++)
				TH_LOG("switch %u -> %u: thread or process not in the capture",
				       c.switches[i].old_tid, c.switches[i].new_tid);
		}
	}
	EXPECT_EQ(0, orphans);
	/* a parent is alive (orphans are adopted): in the capture, or 0 */
	for (i = 0; i < c.nprocs; i++)
		if (c.procs[i].parent && !has_proc(&c, c.procs[i].parent) && !no_parent++)
			TH_LOG("process %u: parent %u not in the capture", c.procs[i].pid,
			       c.procs[i].parent);
	EXPECT_EQ(0, no_parent);
	census_free(&c);
}

/* ---- an exiting thread's last switch, against trace-cmd ---- */

#define TC_DAT		"/tmp/ntkl_rundown_tc.dat"
#define TC_LOG		"/tmp/ntkl_rundown_tc.log"
#define TRACEFS		"/sys/kernel/tracing"
#define EXITERS		16

static void *exiter(void *arg)
{
	volatile unsigned long spin;

	*(pid_t *)arg = syscall(SYS_gettid);
	for (spin = 0; spin < 200000; spin++)
		;
	usleep(1000);
	return NULL;
}

struct exiters {
	pid_t tid[EXITERS];
	pid_t trace_cmd;
	bool tc_ready;
};

/* trace-cmd records sched_switch while EXITERS threads run and end. */
static void run_exiters(void *arg)
{
	struct exiters *x = arg;
	pthread_t th;
	int i;

	x->trace_cmd = fork();
	if (!x->trace_cmd) {
		int fd = open(TC_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGINT, SIG_DFL);
		execlp("trace-cmd", "trace-cmd", "record", "-e", "sched:sched_switch",
		       "-o", TC_DAT, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 3000 && !x->tc_ready; i++) {
		if (waitpid(x->trace_cmd, NULL, WNOHANG) == x->trace_cmd)
			return;
		x->tc_ready = trace_cmd_recording(x->trace_cmd, "sched/sched_switch");
		usleep(20000);
	}
	for (i = 0; i < EXITERS; i++) {
		pthread_create(&th, NULL, exiter, &x->tid[i]);
		pthread_join(th, NULL);
	}
	usleep(100000);
	kill(x->trace_cmd, SIGINT);
	waitpid(x->trace_cmd, NULL, 0);
}

/* prev_state X (EXIT_DEAD, 16) or Z (EXIT_ZOMBIE, 32), raw or as letters */
static bool is_dead_state(const char *state)
{
	char *end;
	unsigned long v = strtoul(state, &end, 0);

	if (end != state)
		return v == 16 || v == 32;
	return state[0] == 'X' || state[0] == 'Z';
}

/*
 * Each exiting thread's last switch: trace-cmd shows prev_state X (or Z),
 * ntkl Terminated with WrTerminated; no earlier switch of it is
 * Terminated, and no switch Terminated where trace-cmd saw no exit.
 */
TEST_F(rundown, exiting_thread_terminated)
{
	unsigned int i, j, tc_dead = 0, nt_last_dead = 0, nt_early_dead = 0;
	struct exiters x = { 0 };
	char line[1024], state[16];
	struct census c;
	FILE *f;

	ASSERT_EQ(0, record_census(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_CSWITCH,
				   run_exiters, &x, &c)) TH_LOG("%s", c.verdict.first_violation);
	ASSERT_TRUE(x.tc_ready) TH_LOG("trace-cmd did not start (see " TC_LOG ")");
	/* raw fields: prev_state is the tracepoint's, 1 << (state index - 1) */
	f = popen("trace-cmd report -R -i " TC_DAT " 2>/dev/null", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " prev_pid=");
		char *s = strstr(line, " prev_state=");
		unsigned int tid;

		if (!p || !s || sscanf(p, " prev_pid=%u", &tid) != 1 ||
		    sscanf(s, " prev_state=%15s", state) != 1)
			continue;
		for (i = 0; i < EXITERS; i++)
			if ((pid_t)tid == x.tid[i] && is_dead_state(state))
				tc_dead++;
	}
	pclose(f);
	EXPECT_EQ(EXITERS, tc_dead);
	for (i = 0; i < EXITERS; i++) {
		const struct switch_rec *last = NULL;

		for (j = 0; j < c.nswitches; j++) {
			const struct switch_rec *s = &c.switches[j];

			if (s->old_tid != (uint32_t)x.tid[i])
				continue;
			if (last && last->time < s->time)
				nt_early_dead += last->state == ETW_KTHREAD_TERMINATED;
			if (!last || last->time < s->time)
				last = s;
		}
		if (last && last->state == ETW_KTHREAD_TERMINATED &&
		    last->reason == ETW_KWAIT_WR_TERMINATED)
			nt_last_dead++;
	}
	EXPECT_EQ(EXITERS, nt_last_dead);
	EXPECT_EQ(0, nt_early_dead);
	census_free(&c);
}

TEST_HARNESS_MAIN
