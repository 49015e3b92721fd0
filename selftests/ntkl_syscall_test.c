// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_syscall_test: SYSCALL (SysClEnter 0x0F33, SysClExit 0x0F34) with a
 * known answer. A thread pinned to one CPU makes, between two umask()
 * calls (the markers), exactly NCALLS getppid() and NFAILS close(-1)
 * while a PROC_THREAD+CSWITCH+SYSCALL logger runs. The records carry no
 * thread (PERFINFO64 headers, as Windows writes them): a record is the
 * thread's that its CPU's last CSwitch switched in. Between the markers'
 * SysClEnter records, that thread has
 *
 *  - NCALLS SysClEnter whose SysCallAddress is __x64_sys_getppid's
 *    address (/proc/kallsyms) and NFAILS of __x64_sys_close's, nothing
 *    else;
 *  - NCALLS + 1 SysClExit of STATUS_SUCCESS (the calls, and the first
 *    marker's) and NFAILS of STATUS_INVALID_HANDLE (EBADF), nothing else;
 *  - each record PERFINFO64 version 2, 8 and 4 bytes;
 *
 * and a number with no system call (5000) is a SysClEnter of address 0
 * and a SysClExit of STATUS_INVALID_SYSTEM_SERVICE, as on Windows. An
 * ia32 and an x32 task's calls carry the routines of their ABIs. A logger without SYSCALL beside it gets
 * none; nothing is lost; the capture passes the strict checker (ntkl dump
 * --check's); ntkl report names the getppid routine by the kernel's
 * symbols. The kernel log must stay clean (vm-run fails the run
 * otherwise).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define NCALLS		1000
#define NFAILS		10
#define MAX_EVENTS	2000000
#define NO_SUCH_CALL	5000

/* the images too: ntkl report names SysCallAddress in the kernel's */
#define SYSCALL_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_CSWITCH | \
			 EVENT_TRACE_FLAG_SYSTEMCALL)

enum ev_kind { EV_SWITCH, EV_ENTER, EV_EXIT, EV_STACK };

struct ev {
	int64_t time;
	uint64_t offset;		/* in the file: the order of one CPU's records */
	uint64_t value;			/* new thread, address or status */
	uint16_t cpu;
	uint8_t kind;
};

struct sc_view {
	struct ev *ev;
	size_t n;
	unsigned long bad_header, bad_size;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct sc_view *v = ctx;
	struct ev *e;

	if (!r || r->kind != ETL_KIND_KERNEL || v->n == MAX_EVENTS)
		return;
	if (r->hook_id != ETW_EVENT_CSWITCH_HOOK && r->hook_id != ETW_EVENT_SYSCALL_ENTER_HOOK &&
	    r->hook_id != ETW_EVENT_SYSCALL_EXIT_HOOK && r->hook_id != ETW_EVENT_STACK_WALK_HOOK)
		return;
	e = &v->ev[v->n];
	e->time = r->timestamp;
	e->offset = r->file_offset;
	e->cpu = r->processor;
	if (r->hook_id == ETW_EVENT_STACK_WALK_HOOK) {
		const struct etw_stack_walk *sw = (const void *)r->payload;

		if (r->payload_len < sizeof(*sw))
			return;
		/* by its event's time and thread: no CPU to sort it with */
		e->kind = EV_STACK;
		e->time = sw->event_time_stamp;
		e->value = sw->stack_thread;
		e->cpu = UINT16_MAX;
	} else if (r->hook_id == ETW_EVENT_CSWITCH_HOOK) {
		if (r->payload_len < sizeof(struct wmi_contextswap))
			return;
		e->kind = EV_SWITCH;
		e->value = ((const struct wmi_contextswap *)r->payload)->new_thread_id;
	} else if (r->hook_id == ETW_EVENT_SYSCALL_ENTER_HOOK) {
		v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->version != 2;
		if (r->payload_len != sizeof(struct perfinfo_syscall_enter)) {
			v->bad_size++;
			return;
		}
		e->kind = EV_ENTER;
		e->value = ((const struct perfinfo_syscall_enter *)r->payload)->syscall_address;
	} else {
		v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->version != 2;
		if (r->payload_len != sizeof(struct perfinfo_syscall_exit)) {
			v->bad_size++;
			return;
		}
		e->kind = EV_EXIT;
		e->value = ((const struct perfinfo_syscall_exit *)r->payload)->syscall_nt_status;
	}
	v->n++;
}

static int by_cpu_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int view_capture(const struct capture *c, struct sc_view *v)
{
	memset(v, 0, sizeof(*v));
	v->ev = calloc(MAX_EVENTS, sizeof(*v->ev));
	if (!v->ev)
		return -1;
	if (capture_walk(c, view_record, v, &v->verdict))
		return -1;
	qsort(v->ev, v->n, sizeof(*v->ev), by_cpu_time);
	return 0;
}

/* A kernel function's address, as root sees it in /proc/kallsyms (0 if absent). */
static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

/* What the caller did: its thread and CPU. */
struct caller {
	int cpu;
	pid_t tid;
	long unknown_ret;
	int err;
};

static void marker(void)
{
	umask(022);
}

static void *make_calls(void *arg)
{
	struct caller *c = arg;
	cpu_set_t set;
	int i;

	c->tid = gettid();
	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		c->err = errno;
		return NULL;
	}
	usleep(2000);		/* switched in on that CPU: a CSwitch names it */
	marker();
	for (i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
	for (i = 0; i < NFAILS; i++)
		syscall(SYS_close, -1);
	marker();
	c->unknown_ret = syscall(NO_SUCH_CALL);
	marker();
	return NULL;
}

static int run_caller(struct caller *c)
{
	pthread_t th;
	int ret;

	memset(c, 0, sizeof(*c));
	c->cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	ret = pthread_create(&th, NULL, make_calls, c);
	if (ret)
		return ret;
	pthread_join(th, NULL);
	return c->err;
}

/* The caller's records between two of its marker SysClEnter records. */
struct window {
	unsigned long enters, exits;		/* all of them */
	unsigned long getppid, close, other_enters;
	unsigned long success, invalid_handle, other_exits;
	unsigned long markers;			/* marker enters seen in all */
	uint64_t other_address;			/* the first other enter's */
	int64_t getppid_time[NCALLS];		/* the getppid enters' times */
	uint64_t unknown_address;		/* after the second marker */
	uint32_t unknown_status;
	bool unknown_seen;
};

static void find_window(const struct sc_view *v, const struct caller *c, uint64_t umask,
			uint64_t getppid, uint64_t close_addr, struct window *w)
{
	uint64_t current = 0;
	bool mine;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < v->n; i++) {
		const struct ev *e = &v->ev[i];

		if (e->cpu != c->cpu)
			continue;
		if (e->kind == EV_SWITCH) {
			current = e->value;
			continue;
		}
		mine = current == (uint64_t)c->tid;
		if (!mine)
			continue;
		if (e->kind == EV_ENTER && e->value == umask) {
			w->markers++;
			continue;
		}
		if (w->markers == 2) {
			/* the unknown call, then the third marker */
			if (e->kind == EV_ENTER && !w->unknown_seen) {
				w->unknown_address = e->value;
				w->unknown_seen = true;
			} else if (e->kind == EV_EXIT && w->unknown_seen) {
				w->unknown_status = e->value;
			}
			continue;
		}
		if (w->markers != 1)
			continue;
		if (e->kind == EV_ENTER) {
			w->enters++;
			if (e->value == getppid && w->getppid < NCALLS)
				w->getppid_time[w->getppid++] = e->time;
			else if (e->value == getppid)
				w->getppid++;
			else if (e->value == close_addr)
				w->close++;
			else if (!w->other_enters++)
				w->other_address = e->value;
		} else {
			w->exits++;
			if (e->value == ETW_STATUS_SUCCESS)
				w->success++;
			else if (e->value == ETW_STATUS_INVALID_HANDLE)
				w->invalid_handle++;
			else
				w->other_exits++;
		}
	}
}

NTKL_READER_FIXTURE(syscall);

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, uint32_t flags, struct drain_job *job, pthread_t *th)
{
	struct ntkl_properties p;

	props_init(&p, name, flags);
	p.buffer_size_kb = 1024;
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
	memset(job, 0, sizeof(*job));
	job->fd = reader;
	job->size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(th, NULL, drain_thread, job));
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

TEST_F(syscall, known_calls)
{
	uint64_t getppid = kallsyms_addr("__x64_sys_getppid");
	uint64_t close_addr = kallsyms_addr("__x64_sys_close");
	uint64_t umask = kallsyms_addr("__x64_sys_umask");
	struct drain_job job;
	struct caller c;
	struct sc_view v;
	static struct window w;
	pthread_t th;

	ASSERT_NE(0, getppid);
	ASSERT_NE(0, close_addr);
	ASSERT_NE(0, umask);
	start_logger(_metadata, self->ctl, self->reader, "selftest syscall", SYSCALL_FLAGS, &job,
		     &th);
	ASSERT_EQ(0, run_caller(&c));
	stop_logger(_metadata, self->ctl, "selftest syscall", &job, th);
	capture_write(&job.c, "/out/ntkl_syscall_test.etl");

	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.bad_header);
	EXPECT_EQ(0, v.bad_size);
	find_window(&v, &c, umask, getppid, close_addr, &w);
	TH_LOG("thread %d on CPU %d: %lu enters (%lu getppid, %lu close, %lu other), %lu exits (%lu success, %lu invalid handle, %lu other); unknown call: %#llx, %#x",
	       c.tid, c.cpu, w.enters, w.getppid, w.close, w.other_enters, w.exits, w.success,
	       w.invalid_handle, w.other_exits, (unsigned long long)w.unknown_address,
	       w.unknown_status);
	EXPECT_EQ(3, w.markers);
	EXPECT_EQ(NCALLS, w.getppid);
	EXPECT_EQ(NFAILS, w.close);
	EXPECT_EQ(0, w.other_enters) TH_LOG("the first at %#llx",
					   (unsigned long long)w.other_address);
	EXPECT_EQ(NCALLS + 1, w.success);
	EXPECT_EQ(NFAILS, w.invalid_handle);
	EXPECT_EQ(0, w.other_exits);
	EXPECT_EQ(-1, c.unknown_ret);
	EXPECT_TRUE(w.unknown_seen);
	EXPECT_EQ(0, w.unknown_address);
	EXPECT_EQ(ETW_STATUS_INVALID_SYSTEM_SERVICE, w.unknown_status);
	/* ntkl report names the routine by this kernel's symbols */
	EXPECT_EQ(0, sh(NULL, 0, "ntkl report --top 1000 /out/ntkl_syscall_test.etl | "
			"grep -E '^ +%d +%d +0 .*vmlinux-[^!]+!__[a-z0-9]+_sys_getppid$'",
			getpid(), NCALLS)) {
		char out[4096];

		sh(out, sizeof(out), "ntkl report /out/ntkl_syscall_test.etl | grep -A8 '^System calls'");
		TH_LOG("%s", out);
	}
	free(v.ev);
	capture_free(&job.c);
}

/* A logger without SYSCALL, beside one with it, gets no SysCl record. */
TEST_F(syscall, only_syscall_loggers)
{
	struct drain_job job, other;
	pthread_t th, th2;
	struct caller c;
	int reader2;

	reader2 = ntkl_open();
	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, "selftest syscall", SYSCALL_FLAGS, &job,
		     &th);
	start_logger(_metadata, self->ctl, reader2, "selftest no syscall",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_CSWITCH, &other, &th2);
	ASSERT_EQ(0, run_caller(&c));
	stop_logger(_metadata, self->ctl, "selftest no syscall", &other, th2);
	stop_logger(_metadata, self->ctl, "selftest syscall", &job, th);
	EXPECT_LE(NCALLS, capture_count_hook(&job.c, ETW_EVENT_SYSCALL_ENTER_HOOK));
	EXPECT_LE(NCALLS, capture_count_hook(&job.c, ETW_EVENT_SYSCALL_EXIT_HOOK));
	EXPECT_EQ(0, capture_count_hook(&other.c, ETW_EVENT_SYSCALL_ENTER_HOOK));
	EXPECT_EQ(0, capture_count_hook(&other.c, ETW_EVENT_SYSCALL_EXIT_HOOK));
	close(reader2);
	capture_free(&other.c);
	capture_free(&job.c);
}

/*
 * -stackwalk SyscallEnter: each of the caller's getppid SysClEnter records
 * is followed by its stack (StackWalk: its time, the caller's thread).
 */
TEST_F(syscall, enter_stacks)
{
	uint64_t getppid = kallsyms_addr("__x64_sys_getppid");
	uint64_t umask = kallsyms_addr("__x64_sys_umask");
	uint16_t hook = ETW_EVENT_SYSCALL_ENTER_HOOK;
	struct ntkl_stack_tracing st = { .size = sizeof(st) };
	struct ntkl_properties p;
	static struct window w;
	struct drain_job job;
	unsigned long walked = 0, exit_stacks = 0;
	struct caller c;
	struct sc_view v;
	pthread_t th;
	size_t i, j;

	ASSERT_NE(0, getppid);
	props_init(&p, "selftest syscall", SYSCALL_FLAGS);
	p.buffer_size_kb = 1024;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	st.logger_id = p.logger_id;
	st.count = 1;
	st.hooks = (uint64_t)(uintptr_t)&hook;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_SET_STACK_TRACING, &st));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	memset(&job, 0, sizeof(job));
	job.fd = self->reader;
	job.size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(&th, NULL, drain_thread, &job));
	ASSERT_EQ(0, run_caller(&c));
	stop_logger(_metadata, self->ctl, "selftest syscall", &job, th);

	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	find_window(&v, &c, umask, getppid, 0, &w);
	ASSERT_EQ(NCALLS, w.getppid);
	/* the stacks sort last (CPU UINT16_MAX), by their events' time */
	for (i = 0; i < NCALLS; i++)
		for (j = v.n; j-- > 0 && v.ev[j].kind == EV_STACK;)
			if (v.ev[j].time == w.getppid_time[i] && v.ev[j].value == (uint64_t)c.tid) {
				walked++;
				break;
			}
	for (j = 0; j < v.n; j++)
		exit_stacks += v.ev[j].kind == EV_STACK && v.ev[j].value == (uint64_t)c.tid;
	TH_LOG("%lu of %d getppid calls walked; %lu stacks of the caller", walked, NCALLS,
	       exit_stacks);
	EXPECT_EQ(NCALLS, walked);
	free(v.ev);
	capture_free(&job.c);
}

/* getppid calls' SysClEnter records in a capture */
static unsigned long count_enters_of(const struct capture *cap, uint64_t addr)
{
	unsigned long n = 0;
	struct sc_view v;
	size_t i;

	if (view_capture(cap, &v))
		return 0;
	for (i = 0; i < v.n; i++)
		n += v.ev[i].kind == EV_ENTER && v.ev[i].value == addr;
	free(v.ev);
	return n;
}

/* UPDATE turns SYSCALL on and off in a running logger: one caller's worth of three. */
TEST_F(syscall, update_turns_it_on_and_off)
{
	uint64_t getppid = kallsyms_addr("__x64_sys_getppid");
	struct ntkl_properties p;
	struct drain_job job;
	struct caller c;
	pthread_t th;

	ASSERT_NE(0, getppid);
	start_logger(_metadata, self->ctl, self->reader, "selftest syscall",
		     EVENT_TRACE_FLAG_PROCESS, &job, &th);
	ASSERT_EQ(0, run_caller(&c));
	props_select(&p, "selftest syscall");
	p.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_SYSTEMCALL;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	ASSERT_EQ(0, run_caller(&c));
	props_select(&p, "selftest syscall");
	p.enable_flags = EVENT_TRACE_FLAG_PROCESS;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	ASSERT_EQ(0, run_caller(&c));
	stop_logger(_metadata, self->ctl, "selftest syscall", &job, th);
	EXPECT_EQ(NCALLS, count_enters_of(&job.c, getppid));
	capture_free(&job.c);
}

/*
 * Run /workloads/compat-calls-<abi> (its CALLS calls of one routine):
 * 0, or the errno its exec failed with (ENOEXEC: the kernel runs no such
 * binaries), or -1 if it did not exit 0.
 */
static int run_compat(const char *abi)
{
	char path[64];
	int status;
	pid_t pid;
	int pipefd[2], err = 0;

	snprintf(path, sizeof(path), "/workloads/compat-calls-%s", abi);
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execl(path, path, (char *)NULL);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (err)
		return err;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * A 32-bit (ia32) or x32 task's calls are named by the routine the
 * kernel runs for them: compat-calls-<abi>'s COMPAT_CALLS calls, and no
 * other task's, have routine's address.
 */
#define COMPAT_CALLS	1000

static void compat_calls(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *abi, const char *routine)
{
	uint64_t addr = kallsyms_addr(routine);
	struct drain_job job;
	unsigned long n;
	pthread_t th;
	int ret;

	if (!addr)
		SKIP(return, "this kernel has no %s system calls (no %s in /proc/kallsyms)", abi,
		     routine);
	start_logger(_metadata, ctl, reader, "selftest syscall", SYSCALL_FLAGS, &job, &th);
	ret = run_compat(abi);
	stop_logger(_metadata, ctl, "selftest syscall", &job, th);
	if (ret == ENOEXEC) {
		capture_free(&job.c);
		SKIP(return, "this kernel runs no %s binaries%s", abi,
		     strcmp(abi, "x32") ? "" : " (Debian's: boot it with syscall.x32=y)");
	}
	ASSERT_EQ(0, ret) TH_LOG("/workloads/compat-calls-%s", abi);
	n = count_enters_of(&job.c, addr);
	TH_LOG("%s: %lu SysClEnter records at %s", abi, n, routine);
	EXPECT_EQ(COMPAT_CALLS, n);	/* compat-calls.c's CALLS */
	capture_free(&job.c);
}

TEST_F(syscall, ia32_calls)
{
	compat_calls(_metadata, self->ctl, self->reader, "ia32", "__ia32_compat_sys_ioctl");
}

TEST_F(syscall, x32_calls)
{
	compat_calls(_metadata, self->ctl, self->reader, "x32", "__x64_compat_sys_ioctl");
}

TEST_HARNESS_MAIN
