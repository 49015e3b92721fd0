// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_stack_test: stack walking (-stackwalk, StackWalk/Stack 0x1820)
 * against independent truth. A logger with PROC_THREAD, LOADER, CSWITCH,
 * PROFILE and DISPATCHER walks Profile, CSwitch and ReadyThread while a
 * child of this (static) program loops in its own code and two threads
 * of it ping-pong through pipes; then:
 *
 *  - every StackWalk is PERFINFO64 version 2 (as Windows', the PerfView
 *    sample's), 16 bytes and at least one 8-byte frame, and follows on
 *    its CPU an event of a walked hook with an equal timestamp, the
 *    thread it names being that event's (a sample's ThreadId, a CSwitch's
 *    NewThreadId);
 *  - Profile, CSwitch and ReadyThread each got stacks, and an event of
 *    a hook not asked for (none here is) never did;
 *  - its kernel frames lie in the kernel or a module, as their Image
 *    records (ImageBase, ImageSize) say: at least 99%; the user frames of
 *    this program's threads in its own text, which its Image record
 *    covers: at least 95%; the busy child's user samples' stacks begin
 *    at the sample's own IP;
 *  - with Profile walked alone, only samples have stacks;
 *  - a thread blocked in a known function of this program (its own read
 *    system call, frame pointers) and woken 200 times: the CSwitch stacks
 *    that bring it back hold its user frames, that function's among them
 *    (a whole New Thread Stack, not its user IP alone);
 *  - SpinLock stacks (threads contending for the file table and a pipe)
 *    follow their SpinLock with its ThreadId, kernel frames in an Image;
 *  - FileIo Read and Write, DiskIo ReadInit and WriteInit and HardFault,
 *    walked (-stackwalk FileRead+FileWrite+DiskReadInit+DiskWriteInit+
 *    HardFault) while this thread writes and reads a file on the scratch
 *    disk directly, touches its pages mapped (not in the page cache after
 *    direct I/O) and reads it through the page cache: each gets its
 *    stack, FileIo's and HardFault's this thread's, and this program's
 *    user frames lie in its text;
 *  - a stack deeper than the cap (a recursion 300 deep, built with frame
 *    pointers) is cut at 192 frames and counted by GET_STACK_TRACING;
 *  - with stack caching (NTKL_LOGGER_OPT_STACK_CACHING), a logger recording
 *    beside a plain one (CSwitch and Profile walked) gives each CSwitch
 *    stack the same frames through its references' definitions, every
 *    key it refers to is defined (StackKeyUser ones too, of samples),
 *    and its switches' stacks take much fewer bytes (under 0.6);
 *  - SET and GET take and give the list; a hook ntkl cannot walk, too
 *    long a list, a nonzero reserved field are EINVAL, no such logger
 *    ENOENT, too little room E2BIG with the count.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"
#include "etl_stack_keys.h"

#define WORK		60000000ULL	/* loop turns of the busy child */
#define ROUNDS		3000		/* ping-pong round trips */
#define DEPTH		300		/* the deep recursion */
#define MAX_EVENTS	64		/* walked events remembered per CPU */
#define MAX_IMAGES	4096
#define MAX_CPUS	64

#define STACK_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_CSWITCH | \
			 EVENT_TRACE_FLAG_PROFILE | EVENT_TRACE_FLAG_DISPATCHER)

struct walked_event {
	int64_t time;
	uint16_t hook;
	uint32_t tid;			/* whose stack it should be; ~0: any */
};

struct image {
	uint64_t base, size;
	uint32_t pid;
};

struct stack_view {
	/* per CPU, the last walked-hook events in file order */
	struct walked_event ev[MAX_CPUS][MAX_EVENTS];
	unsigned int next[MAX_CPUS];
	struct image img[MAX_IMAGES];
	unsigned int n_img;
	unsigned long stacks, bad_shape, unmatched, wrong_thread, max_frames;
	unsigned long by_hook[7];	/* Profile, CSwitch, ReadyThread, SpinLock, FileIo, DiskIo, HardFault */
	/* frames, checked after the walk against every Image */
	uint64_t *frames;		/* pid << 32 in the upper slot: pairs */
	size_t n_frames, cap_frames;
	/* this program's threads */
	uint32_t pid, child;
	uint64_t lo, hi;
	unsigned long own_user, own_user_in_text;
	unsigned long child_user_samples, child_first_is_ip;
	uint64_t last_child_ip;
	int64_t last_child_time;
	struct capture_verdict verdict;
};

static int hook_index(uint16_t hook)
{
	switch (hook) {
	case ETW_EVENT_SAMPLED_PROFILE_HOOK:
		return 0;
	case ETW_EVENT_CSWITCH_HOOK:
		return 1;
	case ETW_EVENT_READY_THREAD_HOOK:
		return 2;
	case ETW_EVENT_SPINLOCK_HOOK:
		return 3;
	case ETW_EVENT_FILEIO_READ_HOOK:
	case ETW_EVENT_FILEIO_WRITE_HOOK:
		return 4;
	case ETW_EVENT_DISKIO_READ_INIT_HOOK:
	case ETW_EVENT_DISKIO_WRITE_INIT_HOOK:
		return 5;
	case ETW_EVENT_HARD_FAULT_HOOK:
		return 6;
	}
	return -1;
}

static void add_frame(struct stack_view *v, uint32_t pid, uint64_t a)
{
	if (v->n_frames + 2 > v->cap_frames) {
		size_t cap = v->cap_frames ? v->cap_frames * 2 : 1 << 16;
		uint64_t *f = realloc(v->frames, cap * sizeof(*f));

		if (!f)
			return;
		v->frames = f;
		v->cap_frames = cap;
	}
	v->frames[v->n_frames++] = pid;
	v->frames[v->n_frames++] = a;
}

static void view_stack(struct stack_view *v, const struct etl_buffer *b,
		       const struct etl_record *r)
{
	const struct etw_stack_walk *sw = (const void *)r->payload;
	unsigned int cpu = b->hdr.processor_index % MAX_CPUS, i, n;
	struct walked_event match_ev, *match = NULL;
	const uint8_t *fp;

	v->stacks++;
	if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 || (r->version & 0xFF) != 2 ||
	    r->payload_len < sizeof(*sw) + 8 || (r->payload_len - sizeof(*sw)) % 8) {
		v->bad_shape++;
		return;
	}
	n = (r->payload_len - sizeof(*sw)) / 8;
	if (n > v->max_frames)
		v->max_frames = n;
	/* the latest first: only a nested interrupt's records come between */
	for (i = 1; i <= MAX_EVENTS && !match; i++) {
		struct walked_event *e = &v->ev[cpu][(v->next[cpu] - i) % MAX_EVENTS];

		if (e->hook && e->time == (int64_t)sw->event_time_stamp) {
			match_ev = *e;
			match = &match_ev;
			e->hook = 0;	/* one stack per event */
		}
	}
	if (!match || r->timestamp < match->time) {
		v->unmatched++;
		return;
	}
	v->by_hook[hook_index(match->hook)]++;
	if (match->tid != ~0u && match->tid != sw->stack_thread)
		v->wrong_thread++;
	fp = r->payload + sizeof(*sw);
	for (i = 0; i < n; i++) {
		uint64_t a;

		memcpy(&a, fp + 8 * i, 8);
		add_frame(v, a >> 63 ? 0 : sw->stack_process, a);
		if (!(a >> 63) && sw->stack_process == v->pid) {
			v->own_user++;
			v->own_user_in_text += a >= v->lo && a < v->hi;
		}
	}
	/* the child's user samples: the stack's first user frame is the IP */
	if (match->hook == ETW_EVENT_SAMPLED_PROFILE_HOOK && sw->stack_thread == v->child &&
	    match->time == v->last_child_time && !(v->last_child_ip >> 63)) {
		uint64_t first;

		memcpy(&first, fp, 8);
		v->child_user_samples++;
		v->child_first_is_ip += first == v->last_child_ip;
	}
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct stack_view *v = ctx;
	unsigned int cpu;
	uint32_t tid = ~0u;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	cpu = b->hdr.processor_index % MAX_CPUS;
	switch (r->hook_id) {
	case ETW_EVENT_STACK_WALK_HOOK:
		view_stack(v, b, r);
		return;
	case ETW_EVENT_IMAGE_DC_START_HOOK:
	case ETW_EVENT_IMAGE_LOAD_HOOK:
	case ETW_EVENT_IMAGE_DC_END_HOOK: {
		const struct etw_image_v3 *im = (const void *)r->payload;

		if (r->payload_len >= sizeof(*im) && v->n_img < MAX_IMAGES)
			v->img[v->n_img++] = (struct image){ im->image_base, im->image_size,
							     im->process_id };
		return;
	}
	case ETW_EVENT_SAMPLED_PROFILE_HOOK: {
		const struct perfinfo_sampled_profile *sp = (const void *)r->payload;

		tid = sp->thread_id;
		if (tid == v->child) {
			v->last_child_ip = sp->instruction_pointer;
			v->last_child_time = r->timestamp;
		}
		break;
	}
	case ETW_EVENT_CSWITCH_HOOK:
		tid = ((const struct wmi_contextswap *)r->payload)->new_thread_id;
		break;
	case ETW_EVENT_SPINLOCK_HOOK:
		tid = ((const struct wmi_spinlock *)r->payload)->thread_id;
		break;
	case ETW_EVENT_READY_THREAD_HOOK:
		break;
	case ETW_EVENT_FILEIO_READ_HOOK:
	case ETW_EVENT_FILEIO_WRITE_HOOK:
		tid = ((const struct etw_fileio_read_write *)r->payload)->ttid;
		break;
	case ETW_EVENT_DISKIO_READ_INIT_HOOK:
	case ETW_EVENT_DISKIO_WRITE_INIT_HOOK:
		/* the issuing context's stack: the submitter's, or a kworker's */
		break;
	case ETW_EVENT_HARD_FAULT_HOOK:
		tid = ((const struct perfinfo_hard_fault *)r->payload)->thread_id;
		break;
	default:
		return;
	}
	v->ev[cpu][v->next[cpu]++ % MAX_EVENTS] =
		(struct walked_event){ r->timestamp, r->hook_id, tid };
}

/* Do a frame's address and process lie in an Image record? */
static bool resolves(const struct stack_view *v, uint32_t pid, uint64_t a)
{
	unsigned int i;

	for (i = 0; i < v->n_img; i++)
		if ((v->img[i].pid == pid || (a >> 63)) && a >= v->img[i].base &&
		    a - v->img[i].base < v->img[i].size)
			return true;
	return false;
}

struct resolved {
	unsigned long kernel, kernel_ok, own, own_ok;
};

static void resolve_frames(const struct stack_view *v, struct resolved *res)
{
	size_t i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i + 1 < v->n_frames; i += 2) {
		uint32_t pid = (uint32_t)v->frames[i];
		uint64_t a = v->frames[i + 1];

		if (a >> 63) {
			res->kernel++;
			res->kernel_ok += resolves(v, 0, a);
		} else if (pid == v->pid) {
			res->own++;
			res->own_ok += resolves(v, pid, a);
		}
	}
}

/* The busy child's work: this program's code only, no system call. */
static __attribute__((noinline)) uint64_t busy(uint64_t turns)
{
	volatile uint64_t x = 1;
	uint64_t i;

	for (i = 0; i < turns; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* A recursion DEPTH deep, each frame with a frame pointer, busy at the bottom. */
static __attribute__((noinline, optimize("no-omit-frame-pointer")))
uint64_t deep(int depth, uint64_t turns)
{
	volatile uint64_t r;

	if (!depth)
		return busy(turns);
	r = deep(depth - 1, turns);
	return r + 1;
}

static pid_t run_child(uint64_t turns, int depth)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (depth)
			deep(depth, turns);
		else
			busy(turns);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return pid;
}

/* Two threads passing a byte back and forth: switches and wakeups. */
struct pong {
	int in, out;
};

static void *ponger(void *arg)
{
	struct pong *p = arg;
	char c;
	int i;

	for (i = 0; i < ROUNDS; i++)
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			break;
	return NULL;
}

static int ping_pong(void)
{
	int a[2], b[2], i;
	struct pong p;
	pthread_t th;
	char c = 'x';

	if (pipe(a) || pipe(b))
		return -1;
	p.in = a[0];
	p.out = b[1];
	if (pthread_create(&th, NULL, ponger, &p))
		return -1;
	for (i = 0; i < ROUNDS; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	pthread_join(th, NULL);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return i == ROUNDS ? 0 : -1;
}

static int set_stacks(int fd, uint32_t id, const uint16_t *hooks, uint32_t count)
{
	struct ntkl_stack_tracing st = {
		.size = sizeof(st), .logger_id = id, .count = count,
		.hooks = (uint64_t)(uintptr_t)hooks,
	};

	return ntkl_ctl(fd, NTKL_IOC_SET_STACK_TRACING, &st);
}

/*
 * Each recording case gets 180 s: on the debug kernel (KASAN, lockdep)
 * beside a busy host, walking and checking tens of thousands of stacks
 * takes more than the harness's default 30.
 */
NTKL_READER_FIXTURE(stack);

static void start_logger_mode(struct __test_metadata *_metadata, int ctl, int reader,
			      const char *name, uint32_t flags, uint32_t options,
			      const uint16_t *hooks, uint32_t count, struct drain_job *job,
			      pthread_t *th, uint32_t *id)
{
	struct ntkl_properties p;

	props_init(&p, name, flags);
	p.logger_options = options;
	if (!(flags & EVENT_TRACE_FLAG_CSWITCH)) {
		/* the spin lock case: SPINLOCK (a group mask, no flag) and room */
		perf_group_set((struct perfinfo_groupmask *)p.group_masks, PERF_SPINLOCK);
		p.maximum_buffers = 256;
	}
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	*id = p.logger_id;
	ASSERT_EQ(0, set_stacks(ctl, p.logger_id, hooks, count));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	memset(job, 0, sizeof(*job));
	job->fd = reader;
	job->size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(th, NULL, drain_thread, job));
}

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, uint32_t flags, const uint16_t *hooks,
			 uint32_t count, struct drain_job *job, pthread_t *th, uint32_t *id)
{
	start_logger_mode(_metadata, ctl, reader, name, flags, 0, hooks, count, job, th, id);
}

static void stop_logger(struct __test_metadata *_metadata, int ctl, const char *name,
			struct drain_job *job, pthread_t th, uint64_t *truncated)
{
	struct ntkl_properties final = { .size = sizeof(final) };
	struct ntkl_stack_tracing st = { .size = sizeof(st) };
	uint16_t hooks[8];

	snprintf(st.logger_name, sizeof(st.logger_name), "%s", name);
	st.count = 8;
	st.hooks = (uint64_t)(uintptr_t)hooks;
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_GET_STACK_TRACING, &st));
	*truncated = st.stacks_truncated;
	ASSERT_EQ(0, ntkl_stop_name(ctl, name));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, job->ret);
	ASSERT_EQ(0, ntkl_ctl(job->fd, NTKL_IOC_QUERY, &final));
	capture_patch(&job->c, &final);
	EXPECT_EQ(0, final.events_lost);
}

static struct stack_view *view_capture(struct capture *c, uint32_t child)
{
	struct stack_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->pid = getpid();
	v->child = child;
	if (own_text(&v->lo, &v->hi) || capture_walk(c, view_record, v, &v->verdict)) {
		free(v);
		return NULL;
	}
	return v;
}

static void view_free(struct stack_view *v)
{
	free(v->frames);
	free(v);
}

TEST_F_TIMEOUT(stack, profile_cswitch_ready_thread, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_PROFILE, NTKL_STACK_HOOK_CSWITCH,
					  NTKL_STACK_HOOK_READY_THREAD };
	struct stack_view *v;
	struct resolved res;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th;
	uint32_t id;
	pid_t child;

	start_logger(_metadata, self->ctl, self->reader, "selftest stack", STACK_FLAGS, hooks,
		     3, &job, &th, &id);
	child = run_child(WORK, 0);
	ASSERT_EQ(0, ping_pong());
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);
	ASSERT_GT(child, 0);

	/* for a look with ntkl dump, in the test VM (its /out comes back) */
	capture_write(&job.c, "/out/ntkl_stack_test.etl");
	v = view_capture(&job.c, child);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	resolve_frames(v, &res);
	TH_LOG("%lu stacks (Profile %lu, CSwitch %lu, ReadyThread %lu), up to %lu frames, %lu truncated",
	       v->stacks, v->by_hook[0], v->by_hook[1], v->by_hook[2], v->max_frames,
	       (unsigned long)truncated);
	TH_LOG("kernel frames %lu/%lu in an Image, this program's user frames %lu/%lu in an Image, %lu/%lu in its text, child's user samples %lu/%lu begin at the IP",
	       res.kernel_ok, res.kernel, res.own_ok, res.own, v->own_user_in_text, v->own_user,
	       v->child_first_is_ip, v->child_user_samples);
	EXPECT_EQ(0, v->bad_shape);
	EXPECT_EQ(0, v->unmatched);
	EXPECT_EQ(0, v->wrong_thread);
	EXPECT_GT(v->by_hook[0], 20);
	EXPECT_GT(v->by_hook[1], 100);
	EXPECT_GT(v->by_hook[2], 100);
	EXPECT_LE(v->max_frames, ETW_STACK_MAX_FRAMES);
	ASSERT_GT(res.kernel, 0);
	EXPECT_GE(res.kernel_ok * 100, res.kernel * 99);
	ASSERT_GT(res.own, 0);
	EXPECT_GE(res.own_ok * 100, res.own * 95);
	EXPECT_GE(v->own_user_in_text * 100, v->own_user * 95);
	EXPECT_GT(v->child_user_samples, 10);
	EXPECT_EQ(v->child_user_samples, v->child_first_is_ip);
	view_free(v);
	capture_free(&job.c);
}

/*
 * A thread blocked in a known function: raw_read() makes the read system
 * call itself, so that the thread's user frames at the switch are its own
 * (with frame pointers); parked_reader() calls it, and where raw_read()
 * returns to in parked_reader() is the frame a whole New Thread Stack has.
 */
static uint64_t parked_ret;

#ifdef __x86_64__
static __attribute__((noinline, optimize("no-omit-frame-pointer")))
long raw_read(int fd, void *buf, size_t n)
{
	long ret;

	parked_ret = (uint64_t)(uintptr_t)__builtin_return_address(0);
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_read), "D"((long)fd), "S"(buf),
		     "d"(n) : "rcx", "r11", "memory");
	return ret;
}

static __attribute__((noinline, optimize("no-omit-frame-pointer")))
long parked_reader(int fd, void *buf)
{
	long r = raw_read(fd, buf, 1);

	asm volatile("" ::: "memory");	/* a call, not a jump: its frame stays */
	return r;
}
#endif

#define PARKED_ROUNDS	200

struct parked_job {
	int fd;
	pid_t tid;
	int reads;
};

static void *parked_thread(void *arg)
{
	struct parked_job *job = arg;
	char c;

	job->tid = (pid_t)syscall(SYS_gettid);
#ifdef __x86_64__
	while (job->reads < PARKED_ROUNDS && parked_reader(job->fd, &c) == 1)
		job->reads++;
#endif
	return NULL;
}

struct parked_view {
	uint32_t tid;
	unsigned long stacks, user_frames, with_ret, with_kernel;
};

static void view_parked(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct parked_view *v = ctx;
	const struct etw_stack_walk *sw;
	unsigned int i, n, user = 0;
	bool ret = false;

	if (!r || r->kind != ETL_KIND_KERNEL || r->hook_id != ETW_EVENT_STACK_WALK_HOOK ||
	    r->payload_len < sizeof(*sw))
		return;
	sw = (const void *)r->payload;
	if (sw->stack_thread != v->tid)
		return;
	n = (r->payload_len - sizeof(*sw)) / 8;
	for (i = 0; i < n; i++) {
		uint64_t a;

		memcpy(&a, r->payload + sizeof(*sw) + 8 * i, 8);
		user += !(a >> 63);
		ret |= a == parked_ret;
	}
	v->stacks++;
	v->user_frames += user;
	v->with_ret += ret;
	v->with_kernel += user < n;
}

/*
 * Whole New Thread Stacks: a thread blocked in parked_reader() and woken
 * PARKED_ROUNDS times; each CSwitch that brings it back has its kernel
 * frames and its user frames as they were when it blocked,
 * parked_reader()'s among them (not its user IP alone, which is in
 * raw_read()). With FileIo on too, the thread blocks inside vfs_read(),
 * whose return a kretprobe holds: its kernel frames cannot be walked as
 * it switches in (the kernel's unwinder warns), so they are walked as it
 * switches out and parked, and must be there all the same.
 */
static void whole_new_thread_stacks(struct __test_metadata *_metadata,
				    FIXTURE_DATA(stack) *self, uint32_t flags)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_CSWITCH };
	struct parked_job pj = { 0 };
	struct parked_view pv = { 0 };
	struct capture_verdict verdict;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th, reader;
	int fds[2], i;
	uint32_t id;

	ASSERT_EQ(0, pipe(fds));
	pj.fd = fds[0];
	start_logger(_metadata, self->ctl, self->reader, "selftest stack", flags, hooks,
		     1, &job, &th, &id);
	ASSERT_EQ(0, pthread_create(&reader, NULL, parked_thread, &pj));
	for (i = 0; i < PARKED_ROUNDS; i++) {
		usleep(2000);	/* it blocks in parked_reader() meanwhile */
		if (write(fds[1], "x", 1) != 1)
			break;
	}
	pthread_join(reader, NULL);
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);
	close(fds[0]);
	close(fds[1]);
	ASSERT_EQ(PARKED_ROUNDS, pj.reads);

	pv.tid = (uint32_t)pj.tid;
	ASSERT_EQ(0, capture_walk(&job.c, view_parked, &pv, &verdict));
	EXPECT_EQ(0, verdict.violations) TH_LOG("first: %s", verdict.first_violation);
	TH_LOG("thread %u: %lu CSwitch stacks, %lu with kernel frames, %lu user frames, %lu with parked_reader() (return 0x%llx)",
	       pv.tid, pv.stacks, pv.with_kernel, pv.user_frames, pv.with_ret,
	       (unsigned long long)parked_ret);
	/* most reads block (a slow kernel may write before the next read) */
	EXPECT_GE(pv.stacks, PARKED_ROUNDS / 2);
	/* each return but the first few (parked before the start, or not at all) */
	EXPECT_GE(pv.with_ret * 10, pv.stacks * 9);
	EXPECT_GE(pv.with_kernel * 10, pv.stacks * 9);
	capture_free(&job.c);
}

TEST_F_TIMEOUT(stack, new_thread_stack_has_user_frames, 180)
{
#ifndef __x86_64__
	SKIP(return, "the blocked thread's own system call is x86-64's");
#endif
	whole_new_thread_stacks(_metadata, self, STACK_FLAGS);
}

TEST_F_TIMEOUT(stack, new_thread_stack_whole_inside_kretprobe, 180)
{
#ifndef __x86_64__
	SKIP(return, "the blocked thread's own system call is x86-64's");
#endif
	whole_new_thread_stacks(_metadata, self, STACK_FLAGS | EVENT_TRACE_FLAG_FILE_IO |
				EVENT_TRACE_FLAG_FILE_IO_INIT);
}

TEST_F_TIMEOUT(stack, only_the_hooks_asked, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_PROFILE };
	struct stack_view *v;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th;
	uint32_t id;
	pid_t child;

	start_logger(_metadata, self->ctl, self->reader, "selftest stack", STACK_FLAGS, hooks,
		     1, &job, &th, &id);
	child = run_child(WORK / 2, 0);
	ASSERT_EQ(0, ping_pong());
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);
	ASSERT_GT(child, 0);

	v = view_capture(&job.c, child);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	TH_LOG("%lu stacks (Profile %lu, CSwitch %lu, ReadyThread %lu)", v->stacks,
	       v->by_hook[0], v->by_hook[1], v->by_hook[2]);
	EXPECT_GT(v->by_hook[0], 10);
	EXPECT_EQ(0, v->by_hook[1]);
	EXPECT_EQ(0, v->by_hook[2]);
	EXPECT_EQ(0, v->unmatched);
	view_free(v);
	capture_free(&job.c);
}

TEST_F_TIMEOUT(stack, deep_stack_truncated_and_counted, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_PROFILE };
	struct stack_view *v;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th;
	uint32_t id;
	pid_t child;

	start_logger(_metadata, self->ctl, self->reader, "selftest stack", STACK_FLAGS, hooks,
		     1, &job, &th, &id);
	child = run_child(WORK / 2, DEPTH);
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);
	ASSERT_GT(child, 0);

	v = view_capture(&job.c, child);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	TH_LOG("%lu stacks, up to %lu frames, %llu truncated", v->stacks, v->max_frames,
	       (unsigned long long)truncated);
	EXPECT_EQ(ETW_STACK_MAX_FRAMES, v->max_frames);
	EXPECT_GT(truncated, 10);
	EXPECT_LE(truncated, v->stacks);
	view_free(v);
	capture_free(&job.c);
}

/*
 * The storage workload: FILE_CHUNKS chunks written and read back with
 * O_DIRECT (each a block request this thread issues), then read through
 * the page cache, in a file on the scratch disk.
 */
#define FILE_CHUNK	65536
#define FILE_CHUNKS	16

static int file_work(const char *dir)
{
	volatile const char *map;
	char path[4096];
	unsigned long sum = 0;
	void *buf;
	int fd, i, bad = 0;

	snprintf(path, sizeof(path), "%s/ntkl-stack.%d", dir, getpid());
	if (posix_memalign(&buf, 4096, FILE_CHUNK))
		return -1;
	memset(buf, 'x', FILE_CHUNK);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (i = 0; i < FILE_CHUNKS; i++)
		bad += pwrite(fd, buf, FILE_CHUNK, (off_t)i * FILE_CHUNK) != FILE_CHUNK;
	for (i = 0; i < FILE_CHUNKS; i++)
		bad += pread(fd, buf, FILE_CHUNK, (off_t)i * FILE_CHUNK) != FILE_CHUNK;
	close(fd);
	/* its pages mapped and touched: direct I/O left none in the cache */
	fd = open(path, O_RDONLY);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, FILE_CHUNK * FILE_CHUNKS, PROT_READ, MAP_SHARED,
					  fd, 0);
	if (map != MAP_FAILED) {
		madvise((void *)map, FILE_CHUNK * FILE_CHUNKS, MADV_RANDOM);
		for (i = 0; i < FILE_CHUNK * FILE_CHUNKS; i += 4096)
			sum += map[i];
		munmap((void *)map, FILE_CHUNK * FILE_CHUNKS);
	}
	bad += map == MAP_FAILED || sum != 'x' * (FILE_CHUNK * FILE_CHUNKS / 4096);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY);
	for (i = 0; fd >= 0 && i < FILE_CHUNKS; i++)
		bad += pread(fd, buf, FILE_CHUNK, (off_t)i * FILE_CHUNK) != FILE_CHUNK;
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(buf);
	return fd < 0 || bad ? -1 : 0;
}

TEST_F_TIMEOUT(stack, file_and_disk_io, 180)
{
	static const uint16_t hooks[] = { ETW_EVENT_FILEIO_READ_HOOK, ETW_EVENT_FILEIO_WRITE_HOOK,
					  ETW_EVENT_DISKIO_READ_INIT_HOOK,
					  ETW_EVENT_DISKIO_WRITE_INIT_HOOK, ETW_EVENT_HARD_FAULT_HOOK };
	const char *scratch = getenv("NTKL_SCRATCH");
	struct stack_view *v;
	struct resolved res;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th;
	uint32_t id;

	if (!scratch || !*scratch)
		SKIP(return, "no scratch disk (NTKL_SCRATCH): scripts/vm-run makes one");
	start_logger(_metadata, self->ctl, self->reader, "selftest stack",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD |
		     EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_CSWITCH |
		     EVENT_TRACE_FLAG_FILE_IO_INIT | EVENT_TRACE_FLAG_DISK_IO_INIT |
		     EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS, hooks, 5, &job, &th, &id);
	EXPECT_EQ(0, file_work(scratch));
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);

	v = view_capture(&job.c, 0);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	resolve_frames(v, &res);
	TH_LOG("%lu stacks (FileIo %lu, DiskIo %lu, HardFault %lu), up to %lu frames; kernel frames %lu/%lu in an Image, this program's user frames %lu/%lu in its text",
	       v->stacks, v->by_hook[4], v->by_hook[5], v->by_hook[6], v->max_frames, res.kernel_ok,
	       res.kernel,
	       v->own_user_in_text, v->own_user);
	EXPECT_EQ(0, v->bad_shape);
	EXPECT_EQ(0, v->unmatched);
	EXPECT_EQ(0, v->wrong_thread);
	/* every read and write of the workload: 3 x FILE_CHUNKS calls */
	EXPECT_GE(v->by_hook[4], 3 * FILE_CHUNKS);
	/* each O_DIRECT chunk is at least one request issued */
	EXPECT_GE(v->by_hook[5], 2 * FILE_CHUNKS);
	/* a page or more read for each fault: at least one fault, at most a page each */
	EXPECT_GE(v->by_hook[6], 1);
	EXPECT_LE(v->by_hook[6], FILE_CHUNK * FILE_CHUNKS / 4096);
	EXPECT_EQ(0, v->by_hook[0] + v->by_hook[1] + v->by_hook[2] + v->by_hook[3]);
	ASSERT_GT(res.kernel, 0);
	EXPECT_GE(res.kernel_ok * 100, res.kernel * 99);
	ASSERT_GT(v->own_user, 0);
	EXPECT_GE(v->own_user_in_text * 100, v->own_user * 95);
	view_free(v);
	capture_free(&job.c);
}

/*
 * Threads fighting over the file table and a pipe for SPIN_MS: spin lock
 * contention (for a time, not a count: the debug kernel walks slowly).
 */
#define SPIN_MS		1000
static int spin_pipe[2];

static void *spinner(void *arg)
{
	struct timespec start, now;
	char buf[256];

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		int fd = open("/proc/self/stat", O_RDONLY);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
			close(fd);
		}
		if (write(spin_pipe[1], "x", 1) != 1 || read(spin_pipe[0], buf, 1) != 1)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 <
		 SPIN_MS);
	return arg;
}

TEST_F_TIMEOUT(stack, spin_lock, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_SPINLOCK };
	struct ntkl_spinlock_config sc = { .size = sizeof(sc) };
	struct stack_view *v;
	struct resolved res;
	struct drain_job job;
	uint64_t truncated;
	pthread_t th, t[8];
	uint32_t id;
	int i;

	/* the defaults: every contended acquisition that spun */
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_SET_SPINLOCK_CONFIG, &sc));
	start_logger(_metadata, self->ctl, self->reader, "selftest stack",
		     EVENT_TRACE_FLAG_IMAGE_LOAD, hooks, 1, &job, &th, &id);
	ASSERT_EQ(0, pipe(spin_pipe));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, spinner, NULL));
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	close(spin_pipe[0]);
	close(spin_pipe[1]);
	stop_logger(_metadata, self->ctl, "selftest stack", &job, th, &truncated);

	v = view_capture(&job.c, 0);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	resolve_frames(v, &res);
	TH_LOG("%lu SpinLock stacks, kernel frames %lu/%lu in an Image", v->by_hook[3],
	       res.kernel_ok, res.kernel);
	if (!v->stacks)
		SKIP(goto out, "no spin lock contention on this machine");
	EXPECT_EQ(v->stacks, v->by_hook[3]);
	EXPECT_EQ(0, v->bad_shape);
	EXPECT_EQ(0, v->unmatched);
	EXPECT_EQ(0, v->wrong_thread);
	EXPECT_GE(res.kernel_ok * 100, res.kernel * 99);
out:
	view_free(v);
	capture_free(&job.c);
}

/*
 * Stack caching: the stacks of one workload, CSwitch walked, recorded by
 * two loggers at once, one writing Stack records and one with
 * NTKL_LOGGER_OPT_STACK_CACHING. A switch is written to both with one clock
 * value and one walk, so each stack of the cached logger (its
 * StackKeyKernel and StackKeyUser references' definitions, or a Stack
 * where its cache was busy) has the same frames as the plain logger's
 * Stack of the same EventTimeStamp, thread and processor. (The processor
 * too: every CPU's idle thread is thread 0, and two CPUs may switch to
 * idle within one 100 ns tick.)
 */
struct plain_stack {
	uint64_t time;
	uint32_t tid, cpu, n;
	size_t first;
};

/*
 * One StackWalk record of a capture: its size, headers included, and
 * whose it is: an event's whole stack or reference (time, tid, cpu), or
 * a key's definition (key).
 */
struct stack_record {
	enum { STACK_WHOLE, STACK_REF, STACK_DEF } what;
	uint32_t size, tid, cpu;
	uint64_t time, key;
};

/* A reference and the processor whose buffer holds it (its event's). */
struct cpu_ref {
	struct etl_stack_ref ref;
	uint32_t cpu;
};

struct stack_pair_view {
	struct plain_stack *v;
	size_t n, cap;
	uint64_t *frames;
	size_t nframes, frames_cap;
	unsigned long bytes;		/* StackWalk records, headers included */
	struct etl_stack_keys keys;
	struct cpu_ref *refs;
	size_t nrefs, refs_cap;
	unsigned long defs, full, full_long, user_refs;
	struct plain_stack *switches;	/* every CSwitch's time and new thread, then sorted */
	size_t nswitches, switches_cap;
	struct stack_record *records;	/* every StackWalk record's size and what it is */
	size_t nrecords, records_cap;
	struct capture_verdict verdict;
};

static void *grow_to(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 4096;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

static void add_stack(struct stack_pair_view *s, uint64_t time, uint32_t tid, uint32_t cpu,
		      const uint8_t *f, uint32_t n)
{
	struct plain_stack *v = grow_to(s->v, &s->cap, s->n + 1, sizeof(*v));
	uint64_t *fr;

	if (!v)
		return;
	s->v = v;
	fr = grow_to(s->frames, &s->frames_cap, s->nframes + n, sizeof(*fr));
	if (!fr)
		return;
	s->frames = fr;
	v[s->n++] = (struct plain_stack){ time, tid, cpu, n, s->nframes };
	memcpy(s->frames + s->nframes, f, 8 * n);
	s->nframes += n;
}

static void note_record(struct stack_pair_view *s, int what, const struct etl_record *r,
			uint64_t time, uint32_t tid, uint64_t key)
{
	struct stack_record *v = grow_to(s->records, &s->records_cap, s->nrecords + 1,
					 sizeof(*v));

	if (!v)
		return;
	s->records = v;
	v[s->nrecords++] = (struct stack_record){ what, (r->size + 7) & ~7u, tid, r->processor,
						  time, key };
}

static void pair_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct stack_pair_view *s = ctx;
	struct etl_stack_ref ref;

	if (r && r->kind == ETL_KIND_KERNEL && r->hook_id == ETW_EVENT_CSWITCH_HOOK) {
		struct plain_stack *t = grow_to(s->switches, &s->switches_cap, s->nswitches + 1,
						sizeof(*t));

		if (t) {
			s->switches = t;
			t[s->nswitches++] = (struct plain_stack){
				(uint64_t)r->timestamp,
				((const struct wmi_contextswap *)r->payload)->new_thread_id,
				r->processor, 0, 0 };
		}
		return;
	}
	if (!r || r->kind != ETL_KIND_KERNEL || (r->hook_id >> 8) != ETW_GROUP_STACKWALK)
		return;
	s->bytes += (r->size + 7) & ~7u;
	if (etl_stack_ref_parse(r, &ref)) {
		struct cpu_ref *v = grow_to(s->refs, &s->refs_cap, s->nrefs + 1, sizeof(*v));

		if (v) {
			s->refs = v;
			v[s->nrefs++] = (struct cpu_ref){ ref, r->processor };
		}
		s->user_refs += ref.user;
		note_record(s, STACK_REF, r, ref.event_time, ref.tid, ref.key);
		return;
	}
	if (etl_stack_keys_add(&s->keys, r) > 0) {
		uint64_t key;

		memcpy(&key, r->payload + offsetof(struct etw_stack_key_def, stack_key), 8);
		s->defs++;
		note_record(s, STACK_DEF, r, 0, 0, key);
		return;
	}
	if (r->hook_id == ETW_EVENT_STACK_WALK_HOOK && r->payload_len >= 24) {
		const struct etw_stack_walk *sw = (const void *)r->payload;

		s->full++;
		s->full_long += (r->payload_len - sizeof(*sw)) / 8 > 64;
		note_record(s, STACK_WHOLE, r, sw->event_time_stamp, sw->stack_thread, 0);
		add_stack(s, sw->event_time_stamp, sw->stack_thread, r->processor,
			  r->payload + sizeof(*sw), (r->payload_len - sizeof(*sw)) / 8);
	}
}

/* An event: its time, thread and processor. */
static int by_time_tid(const void *a, const void *b)
{
	const struct plain_stack *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The same, then a kernel part before a user part. */
static int by_event(const void *a, const void *b)
{
	const struct cpu_ref *x = a, *y = b;

	if (x->ref.event_time != y->ref.event_time)
		return x->ref.event_time < y->ref.event_time ? -1 : 1;
	if (x->ref.tid != y->ref.tid)
		return x->ref.tid < y->ref.tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ref.user - y->ref.user;
}

/* Are a and b one event's parts? */
static bool same_event(const struct cpu_ref *a, const struct cpu_ref *b)
{
	return a->ref.event_time == b->ref.event_time && a->ref.tid == b->ref.tid &&
	       a->cpu == b->cpu;
}

/* The cached logger's references, each event's parts joined (kernel first) as one stack. */
static unsigned long join_refs(struct stack_pair_view *s)
{
	unsigned long undefined = 0;
	size_t i;

	if (s->nrefs)
		qsort(s->refs, s->nrefs, sizeof(*s->refs), by_event);
	for (i = 0; i < s->nrefs; i++) {
		const struct cpu_ref *k = &s->refs[i], *u = NULL;
		uint8_t buf[8 * 2 * 192];
		const uint64_t *fr;
		uint32_t n = 0, m = 0;

		/* an event's kernel part, then its user part if it has one */
		if (!k->ref.user && i + 1 < s->nrefs && s->refs[i + 1].ref.user &&
		    same_event(&s->refs[i + 1], k))
			u = &s->refs[++i];
		fr = etl_stack_keys_find(&s->keys, k->ref.key, k->ref.time, &n);
		if (!fr) {
			undefined++;
			continue;
		}
		memcpy(buf, fr, 8 * n);
		if (u) {
			fr = etl_stack_keys_find(&s->keys, u->ref.key, u->ref.time, &m);
			if (!fr) {
				undefined++;
				continue;
			}
			memcpy(buf + 8 * n, fr, 8 * m);
		}
		add_stack(s, k->ref.event_time, k->ref.tid, k->cpu, buf, n + m);
	}
	return undefined;
}

/* Is st a CSwitch's stack? (Both loggers stamp a switch with one clock value.) */
static bool is_switch(struct stack_pair_view *s, const struct plain_stack *st)
{
	return s->nswitches && bsearch(st, s->switches, s->nswitches, sizeof(*st), by_time_tid);
}

static int by_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * The bytes the CSwitches' stacks take (s->switches sorted): their whole
 * stacks, their references and every definition of a key they refer to
 * (a key samples share counts here too). A sample's kernel part begins
 * at the interrupted IP, which seldom repeats, and the samples' share of
 * a capture grows with the machine's slowness: only the switches' bytes
 * say what caching saves, whatever the machine.
 */
static unsigned long switch_stack_bytes(struct stack_pair_view *s)
{
	uint64_t *keys = calloc(s->nrecords + 1, sizeof(*keys));
	unsigned long bytes = 0;
	size_t i, nkeys = 0;

	if (!keys)
		return ULONG_MAX;
	for (i = 0; i < s->nrecords; i++) {
		const struct stack_record *r = &s->records[i];
		struct plain_stack st = { r->time, r->tid, r->cpu, 0, 0 };

		if (r->what == STACK_DEF || !is_switch(s, &st))
			continue;
		bytes += r->size;
		if (r->what == STACK_REF)
			keys[nkeys++] = r->key;
	}
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), by_u64);
	for (i = 0; i < s->nrecords; i++) {
		const struct stack_record *r = &s->records[i];

		if (r->what == STACK_DEF && nkeys &&
		    bsearch(&r->key, keys, nkeys, sizeof(*keys), by_u64))
			bytes += r->size;
	}
	free(keys);
	return bytes;
}

static void pair_free(struct stack_pair_view *s)
{
	free(s->records);
	free(s->switches);
	free(s->v);
	free(s->frames);
	free(s->refs);
	etl_stack_keys_free(&s->keys);
}

TEST_F_TIMEOUT(stack, cached_same_frames, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_CSWITCH, NTKL_STACK_HOOK_PROFILE };
	struct stack_pair_view plain = { 0 }, cached = { 0 };
	unsigned long undefined, same = 0, differ = 0, missing = 0, samples = 0, twins = 0;
	unsigned long plain_switch_bytes, cached_switch_bytes;
	struct drain_job job_plain, job_cached;
	pthread_t th_plain, th_cached;
	uint64_t truncated;
	uint32_t id;
	size_t i;
	int reader2 = ntkl_open();

	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, "selftest plain", STACK_FLAGS, hooks, 2,
		     &job_plain, &th_plain, &id);
	start_logger_mode(_metadata, self->ctl, reader2, "selftest cached", STACK_FLAGS,
			  NTKL_LOGGER_OPT_STACK_CACHING, hooks, 2, &job_cached, &th_cached, &id);
	ASSERT_EQ(0, ping_pong());
	/* samples of a child 40 frames deep in its own code: user parts with keys of their own */
	ASSERT_GT(run_child(WORK / 10, 40), 0);
	ASSERT_EQ(0, ping_pong());
	stop_logger(_metadata, self->ctl, "selftest cached", &job_cached, th_cached, &truncated);
	stop_logger(_metadata, self->ctl, "selftest plain", &job_plain, th_plain, &truncated);
	close(reader2);

	ASSERT_EQ(0, capture_walk(&job_plain.c, pair_record, &plain, &plain.verdict));
	ASSERT_EQ(0, capture_walk(&job_cached.c, pair_record, &cached, &cached.verdict));
	EXPECT_EQ(0, plain.verdict.violations) TH_LOG("first: %s", plain.verdict.first_violation);
	EXPECT_EQ(0, cached.verdict.violations) TH_LOG("first: %s", cached.verdict.first_violation);
	/* the plain logger writes no reference; the cached one mostly references */
	EXPECT_EQ(0, plain.nrefs);
	undefined = join_refs(&cached);
	EXPECT_EQ(0, undefined);
	qsort(plain.v, plain.n, sizeof(*plain.v), by_time_tid);
	if (plain.nswitches)
		qsort(plain.switches, plain.nswitches, sizeof(*plain.switches), by_time_tid);
	if (cached.nswitches)
		qsort(cached.switches, cached.nswitches, sizeof(*cached.switches), by_time_tid);
	/* switches to one thread at one time on two CPUs: to their idle threads */
	for (i = 1; i < plain.nswitches; i++)
		twins += plain.switches[i].time == plain.switches[i - 1].time &&
			 plain.switches[i].tid == plain.switches[i - 1].tid;
	for (i = 0; i < cached.n; i++) {
		const struct plain_stack *c = &cached.v[i];
		const struct plain_stack *p;

		/* a sample is stamped by each logger's own clock reading: switches only */
		if (!is_switch(&cached, c)) {
			samples++;
			continue;
		}
		p = bsearch(c, plain.v, plain.n, sizeof(*plain.v), by_time_tid);
		if (!p)
			missing++;
		else if (p->n == c->n &&
			 !memcmp(plain.frames + p->first, cached.frames + c->first, 8 * c->n))
			same++;
		else if (!differ++)
			TH_LOG("first differing switch: time %llu, thread %u, cpu %u: %u frames "
			       "plain, %u cached", (unsigned long long)c->time, c->tid, c->cpu,
			       p->n, c->n);
	}
	plain_switch_bytes = switch_stack_bytes(&plain);
	cached_switch_bytes = switch_stack_bytes(&cached);
	TH_LOG("plain: %zu stacks, %lu bytes; cached: %zu stacks (%lu written whole, %lu of "
	       "them over 64 frames; %lu of samples), %zu references (%lu StackKeyUser), "
	       "%lu definitions, %lu bytes; switches: %lu same, %lu differ, %lu missing; "
	       "the switches' stacks: %lu bytes plain, %lu cached; %lu switches at the time "
	       "of another CPU's to the same thread",
	       plain.n, plain.bytes, cached.n, cached.full, cached.full_long, samples,
	       cached.nrefs, cached.user_refs, cached.defs, cached.bytes, same, differ, missing,
	       plain_switch_bytes, cached_switch_bytes, twins);
	EXPECT_GT(same, 2 * ROUNDS);
	EXPECT_GT(samples, 10);
	EXPECT_GT(cached.user_refs, 10);
	EXPECT_EQ(0, differ);
	EXPECT_EQ(0, missing);
	/*
	 * The same stacks again and again: far fewer definitions than
	 * references, and the switches' stacks in much fewer bytes: 0.44 to
	 * 0.46 of the plain logger's here on 6.12 and the debug kernel
	 * (docs/linux-to-nt.md: 0.43 on pingpong alone); the bound, 0.6,
	 * leaves room for a machine that defines a few more keys. Not the
	 * whole capture's bytes: how many samples it holds, whose kernel
	 * parts seldom repeat, depends on the machine's speed (on a slow one
	 * the samples took the whole over two thirds).
	 */
	EXPECT_LT(cached.defs * 2, cached.nrefs);
	EXPECT_GT(plain_switch_bytes, 0);
	EXPECT_LT(cached_switch_bytes * 5, plain_switch_bytes * 3);
	pair_free(&plain);
	pair_free(&cached);
	capture_free(&job_plain.c);
	capture_free(&job_cached.c);
}

/*
 * A snapshot's records and its stop's: every KeyRundown split at the stop
 * (its GroupMasksEnd, the last), where each CPU's came from, and the
 * references made before the snapshot's first definition.
 */
struct snapshot_view {
	int64_t stop;			/* the stop's GroupMasksEnd, once found */
	int64_t first_flush_def;	/* the earliest KeyRundown before the stop */
	struct etl_stack_keys keys;	/* definitions before the stop */
	struct etl_stack_ref *refs;	/* references before first_flush_def */
	size_t nrefs, refs_cap;
	unsigned long stop_defs, flush_defs;
	uint64_t stop_def_cpus;		/* the CPUs whose buffers hold the stop's KeyRundowns */
};

static void snapshot_stop(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			  const struct etl_record *r)
{
	struct snapshot_view *s = ctx;

	if (r && r->kind == ETL_KIND_KERNEL && r->hook_id == ETW_EVENT_GROUP_MASKS_END_HOOK &&
	    r->timestamp > s->stop)
		s->stop = r->timestamp;
}

static void snapshot_defs(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			  const struct etl_record *r)
{
	struct snapshot_view *s = ctx;

	if (!r || r->kind != ETL_KIND_KERNEL || r->hook_id != ETW_EVENT_STACK_KEY_RUNDOWN_HOOK)
		return;
	if (r->timestamp > s->stop) {
		s->stop_defs++;
		if (b->hdr.processor_index < 64)
			s->stop_def_cpus |= 1ULL << b->hdr.processor_index;
		return;
	}
	s->flush_defs++;
	if (!s->first_flush_def || r->timestamp < s->first_flush_def)
		s->first_flush_def = r->timestamp;
}

static void snapshot_refs(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			  const struct etl_record *r)
{
	struct snapshot_view *s = ctx;
	struct etl_stack_ref ref;

	if (!r || r->kind != ETL_KIND_KERNEL || r->timestamp > s->stop)
		return;
	if (etl_stack_keys_add(&s->keys, r))
		return;
	if (r->timestamp < s->first_flush_def && etl_stack_ref_parse(r, &ref)) {
		struct etl_stack_ref *v = grow_to(s->refs, &s->refs_cap, s->nrefs + 1, sizeof(*v));

		if (v) {
			s->refs = v;
			v[s->nrefs++] = ref;
		}
	}
}

/*
 * FLUSH of a caching logger defines every key cached then (KeyRundown,
 * each CPU's into its own buffers), so that the buffers up to a snapshot
 * resolve every reference in them without the stop's definitions; and the
 * stop's KeyRundowns are in the buffers of the CPUs whose caches held
 * the keys, not all in the stopping CPU's.
 */
TEST_F_TIMEOUT(stack, snapshot_defines_its_keys, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_CSWITCH };
	struct ntkl_properties q = { .size = sizeof(q) };
	struct snapshot_view s = { 0 };
	unsigned long undefined = 0;
	struct drain_job job;
	uint64_t truncated;
	uint32_t id, n;
	pthread_t th;
	size_t i;

	start_logger_mode(_metadata, self->ctl, self->reader, "selftest snapshot", STACK_FLAGS,
			  NTKL_LOGGER_OPT_STACK_CACHING, hooks, 1, &job, &th, &id);
	ASSERT_EQ(0, ping_pong());
	snprintf(q.logger_name, sizeof(q.logger_name), "selftest snapshot");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &q));
	ASSERT_EQ(0, ping_pong());
	stop_logger(_metadata, self->ctl, "selftest snapshot", &job, th, &truncated);

	ASSERT_EQ(0, capture_walk(&job.c, snapshot_stop, &s, NULL));
	ASSERT_NE(0, s.stop);
	ASSERT_EQ(0, capture_walk(&job.c, snapshot_defs, &s, NULL));
	ASSERT_NE(0, s.first_flush_def) TH_LOG("FLUSH wrote no KeyRundown");
	ASSERT_EQ(0, capture_walk(&job.c, snapshot_refs, &s, NULL));
	for (i = 0; i < s.nrefs; i++)
		undefined += !etl_stack_keys_find(&s.keys, s.refs[i].key, s.refs[i].time, &n);
	TH_LOG("%zu references before the snapshot, %lu undefined without the stop; "
	       "KeyRundown: %lu at FLUSH, %lu at stop (CPU mask %#llx)", s.nrefs, undefined,
	       s.flush_defs, s.stop_defs, (unsigned long long)s.stop_def_cpus);
	EXPECT_GT(s.nrefs, ROUNDS);
	EXPECT_EQ(0, undefined);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		EXPECT_NE(0, s.stop_def_cpus & (s.stop_def_cpus - 1))
			TH_LOG("the stop's KeyRundowns are all in one CPU's buffers");
	free(s.refs);
	etl_stack_keys_free(&s.keys);
	capture_free(&job.c);
}

/*
 * The same for the snapshot of a buffering logger (ntkl save): every
 * reference in what the reader saves resolves in it, though the logger
 * has not stopped.
 */
TEST_F_TIMEOUT(stack, saved_snapshot_defines_its_keys, 180)
{
	static const uint16_t hooks[] = { NTKL_STACK_HOOK_CSWITCH };
	struct snapshot_view s = { .stop = INT64_MAX, .first_flush_def = INT64_MAX };
	struct ntkl_properties p;
	unsigned long undefined = 0;
	struct capture c = { 0 };
	uint32_t n;
	size_t i;

	props_init(&p, "selftest saved", STACK_FLAGS);
	p.log_file_mode = NTKL_MODE_BUFFERING;
	p.logger_options = NTKL_LOGGER_OPT_STACK_CACHING;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, set_stacks(self->ctl, p.logger_id, hooks, 1));
	ASSERT_EQ(0, ping_pong());
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest saved"));

	ASSERT_EQ(0, capture_walk(&c, snapshot_refs, &s, NULL));
	for (i = 0; i < s.nrefs; i++)
		undefined += !etl_stack_keys_find(&s.keys, s.refs[i].key, s.refs[i].time, &n);
	TH_LOG("%u buffers saved, %zu references, %lu undefined", c.buffers, s.nrefs, undefined);
	EXPECT_GT(s.nrefs, ROUNDS);
	EXPECT_EQ(0, undefined);
	free(s.refs);
	etl_stack_keys_free(&s.keys);
	capture_free(&c);
}

TEST_F(stack, set_and_get)
{
	uint16_t hooks[NTKL_STACK_HOOKS_MAX + 1] = { NTKL_STACK_HOOK_CSWITCH,
						     NTKL_STACK_HOOK_PROFILE };
	struct ntkl_stack_tracing st = { .size = sizeof(st) };
	uint16_t got[4] = { 0 };
	struct ntkl_properties p;

	props_init(&p, "selftest stack", EVENT_TRACE_FLAG_CSWITCH);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, set_stacks(self->ctl, p.logger_id, hooks, 2));

	st.logger_id = p.logger_id;
	st.count = 4;
	st.hooks = (uint64_t)(uintptr_t)got;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_GET_STACK_TRACING, &st));
	EXPECT_EQ(2, st.count);
	EXPECT_EQ(NTKL_STACK_HOOK_CSWITCH, got[0]);
	EXPECT_EQ(NTKL_STACK_HOOK_PROFILE, got[1]);
	EXPECT_EQ(0, st.stacks_truncated);
	/* too little room: E2BIG, the count, the first hooks (out fields zero on input) */
	memset(st.user_stops, 0, sizeof(st.user_stops));
	st.count = 1;
	EXPECT_EQ(-E2BIG, ntkl_ctl(self->ctl, NTKL_IOC_GET_STACK_TRACING, &st));
	EXPECT_EQ(2, st.count);

	/* a hook ntkl cannot walk (Process/Start), too many, reserved, no logger */
	hooks[2] = ETW_EVENT_PROCESS_START_HOOK;
	EXPECT_EQ(-EINVAL, set_stacks(self->ctl, p.logger_id, hooks, 3));
	EXPECT_EQ(-EINVAL, set_stacks(self->ctl, p.logger_id, hooks, NTKL_STACK_HOOKS_MAX + 1));
	EXPECT_EQ(-ENOENT, set_stacks(self->ctl, NTKL_MAX_LOGGERS, hooks, 1));
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.logger_id = p.logger_id;
	st.__reserved0 = 1;
	EXPECT_EQ(-EINVAL, ntkl_ctl(self->ctl, NTKL_IOC_SET_STACK_TRACING, &st));
	/* the failed SETs left the list as it was; count 0 clears it */
	st.__reserved0 = 0;
	memset(st.user_stops, 0, sizeof(st.user_stops));
	st.count = 4;
	st.hooks = (uint64_t)(uintptr_t)got;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_GET_STACK_TRACING, &st));
	EXPECT_EQ(2, st.count);
	ASSERT_EQ(0, set_stacks(self->ctl, p.logger_id, NULL, 0));
	memset(st.user_stops, 0, sizeof(st.user_stops));
	st.count = 4;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_GET_STACK_TRACING, &st));
	EXPECT_EQ(0, st.count);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest stack"));
}

TEST_HARNESS_MAIN
