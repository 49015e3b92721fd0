// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_memory_test: ALL_FAULTS (TransitionFault, DemandZeroFault,
 * CopyOnWrite, AccessViolation) and VIRT_ALLOC (VirtualAlloc,
 * VirtualFree) with a known answer. A child process, while a
 * PROC_THREAD+ALL_FAULTS+VIRT_ALLOC logger runs:
 *
 *  - maps 64 MiB of anonymous private memory (MADV_NOHUGEPAGE: no huge
 *    page takes 512 faults at once; refused where the kernel has no huge
 *    pages, the debug kernel) and writes a byte to each page:
 *    exactly one VirtualAlloc of it (MEM_COMMIT|MEM_RESERVE) and 16,384
 *    DemandZeroFaults, one at each page, nothing else there; unmaps it
 *    last (no later mapping reuses its addresses): exactly one
 *    VirtualFree of it (MEM_RELEASE);
 *  - writes 1 MiB (256 pages), then forks a grandchild that writes each
 *    page again: the child's 256 DemandZeroFaults, the grandchild's 256
 *    CopyOnWrites there, nothing else;
 *  - reads 1 MiB (each page the zero page), then writes it (each write
 *    copies the zero page): 512 DemandZeroFaults there, nothing else;
 *  - writes an 8 MiB file, maps it and reads one page of every 32 (the
 *    kernel maps up to 16 cached pages around a fault, "fault-around"):
 *    exactly 64 TransitionFaults, at those pages, nothing else there;
 *  - writes through a bad pointer (SIGSEGV, caught) and passes another to
 *    clock_gettime(2) (EFAULT): an AccessViolation at each address (the
 *    first with a user ProgramCounter; the second once or twice, as the
 *    kernel's copy tries);
 *  - grows its heap by 1 MiB with brk: one VirtualAlloc of the new part;
 *  - grows a 1 MiB mapping to 4 MiB with mremap: the part it grew by (in
 *    place), or the whole at its new place and a VirtualFree of the old.
 *
 * The rundown: 64 MiB writable and 1 MiB read-only, mapped before the
 * start, are one VirtualAllocDCStart and one VirtualAllocDCEnd each,
 * committed whole and reserved; 1 MiB of shared memory is none.
 *
 * Each record has Windows' header and size (SYSTEM64 v2, 16 bytes;
 * PERFINFO64 v2, 24 bytes; the rundown's 32). Nothing is lost; the capture passes the
 * strict checker, in-process and as `ntkl dump --check`. A logger without
 * the flags beside it gets none of the records; -stackwalk
 * PagefaultDemandZero and VirtualAlloc follow each with its stack; a
 * START that fails under fault injection leaves no probe behind.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define MAX_EVENTS	2000000
#define PAGE		4096UL
#define DZ_SIZE		(64UL << 20)
#define DZ_PAGES	(DZ_SIZE / PAGE)
#define COW_SIZE	(1UL << 20)
#define COW_PAGES	(COW_SIZE / PAGE)
#define ZP_SIZE		(1UL << 20)
#define ZP_PAGES	(ZP_SIZE / PAGE)
#define FILE_SIZE	(8UL << 20)
#define FILE_STRIDE	32			/* pages between two reads */
#define FILE_READS	(FILE_SIZE / PAGE / FILE_STRIDE)
#define BRK_GROW	(1UL << 20)
#define REMAP_OLD	(1UL << 20)
#define REMAP_NEW	(4UL << 20)
#define AV_USER		0x10UL
#define AV_KERNEL	0x30UL

#define MEM_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS | EVENT_TRACE_FLAG_VIRTUAL_ALLOC)

enum kind {
	K_TRANSITION, K_DEMAND_ZERO, K_COW, K_HARD, K_AV, K_ALLOC, K_FREE, K_DC_START, K_DC_END,
	K_STACK, K_KINDS
};

struct ev {
	int64_t time;
	uint64_t addr;		/* VirtualAddress, BaseAddress */
	uint64_t value;		/* ProgramCounter, RegionSize; a stack's thread */
	uint32_t pid, tid;	/* the header's (faults), ProcessId (VirtualAlloc) */
	uint32_t flags;
	uint64_t commit;	/* CommitSizeInBytes (the rundown's) */
	uint8_t kind;
};

struct mem_view {
	struct ev *ev;
	size_t n;
	unsigned long bad_header, bad_size;
	struct capture_verdict verdict;
};

static int hook_kind(uint16_t hook)
{
	switch (hook) {
	case ETW_EVENT_TRANSITION_FAULT_HOOK:
		return K_TRANSITION;
	case ETW_EVENT_DEMAND_ZERO_FAULT_HOOK:
		return K_DEMAND_ZERO;
	case ETW_EVENT_COPY_ON_WRITE_HOOK:
		return K_COW;
	case ETW_EVENT_HARD_PAGE_FAULT_HOOK:
		return K_HARD;
	case ETW_EVENT_ACCESS_VIOLATION_HOOK:
		return K_AV;
	case ETW_EVENT_VIRTUAL_ALLOC_HOOK:
		return K_ALLOC;
	case ETW_EVENT_VIRTUAL_FREE_HOOK:
		return K_FREE;
	case ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK:
		return K_DC_START;
	case ETW_EVENT_VIRTUAL_ALLOC_DC_END_HOOK:
		return K_DC_END;
	case ETW_EVENT_STACK_WALK_HOOK:
		return K_STACK;
	default:
		return -1;
	}
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct mem_view *v = ctx;
	struct ev *e;
	int k;

	if (!r || r->kind != ETL_KIND_KERNEL || v->n == MAX_EVENTS)
		return;
	k = hook_kind(r->hook_id);
	if (k < 0)
		return;
	e = &v->ev[v->n];
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->time = r->timestamp;
	if (k == K_STACK) {
		const struct etw_stack_walk *sw = (const void *)r->payload;

		if (r->payload_len < sizeof(*sw))
			return;
		e->time = sw->event_time_stamp;
		e->value = sw->stack_thread;
		e->pid = sw->stack_process;
	} else if (k >= K_ALLOC && k <= K_DC_END) {
		/* the rundown's payload is VirtualAlloc's and CommitSizeInBytes */
		const struct perfinfo_virtual_alloc_dc *p = (const void *)r->payload;
		size_t want = k >= K_DC_START ? sizeof(*p) : sizeof(struct perfinfo_virtual_alloc);

		v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->version != 2;
		if (r->payload_len != want) {
			v->bad_size++;
			return;
		}
		e->addr = p->base_address;
		e->value = p->region_size;
		e->pid = p->process_id;
		e->flags = p->flags;
		e->commit = k >= K_DC_START ? p->commit_size : 0;
	} else {
		const struct etw_page_fault *p = (const void *)r->payload;

		v->bad_header += r->header_type != ETW_HEADER_TYPE_SYSTEM64 || r->version != 2;
		if (r->payload_len != sizeof(*p)) {
			v->bad_size++;
			return;
		}
		e->addr = p->virtual_address;
		e->value = p->program_counter;
		e->pid = r->process_id;
		e->tid = r->thread_id;
	}
	v->n++;
}

static int view_capture(const struct capture *c, struct mem_view *v)
{
	memset(v, 0, sizeof(*v));
	v->ev = calloc(MAX_EVENTS, sizeof(*v->ev));
	if (!v->ev)
		return -1;
	return capture_walk(c, view_record, v, &v->verdict);
}

/* Records of kind by pid at addresses [base, base + size). */
static unsigned long count_in(const struct mem_view *v, int kind, uint32_t pid, uint64_t base,
			      uint64_t size)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		n += v->ev[i].kind == kind && v->ev[i].pid == pid && v->ev[i].addr >= base &&
		     v->ev[i].addr - base < size;
	return n;
}

/* Records of kind that cover [base, base + size) exactly, with that commit. */
static unsigned long count_committed(const struct mem_view *v, int kind, uint32_t pid,
				     uint64_t base, uint64_t size, uint32_t flags, uint64_t commit)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		n += v->ev[i].kind == kind && v->ev[i].pid == pid && v->ev[i].addr == base &&
		     v->ev[i].value == size && v->ev[i].flags == flags && v->ev[i].commit == commit;
	return n;
}

/* VirtualAlloc or VirtualFree records of exactly that region and flags. */
static unsigned long count_region(const struct mem_view *v, int kind, uint32_t pid,
				  uint64_t base, uint64_t size, uint32_t flags)
{
	return count_committed(v, kind, pid, base, size, flags, 0);
}

/* Is a kernel function in /proc/kallsyms (probed functions may be inlined)? */
static bool kallsyms_has(const char *name)
{
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name);
	fclose(f);
	return found;
}

/* What the child did, told to the parent through a pipe. */
struct work {
	pid_t pid, cow_pid;
	uint64_t dz, cow, zp, file, brk, remap_old, remap_new;
	uint64_t av_user_pc;		/* where its SIGSEGV handler saw the fault */
	int av_user_seen, av_kernel_errno;
	int madvise_errno;		/* MADV_NOHUGEPAGE refused: a kernel without huge pages */
	int err;			/* the first step that failed: its line */
};

static sigjmp_buf av_jump;

static void av_handler(int sig, siginfo_t *si, void *uc)
{
	siglongjmp(av_jump, 1);
}

#define STEP(cond)	do { if (!(cond)) { w->err = __LINE__; return; } } while (0)

static void touch(volatile char *p, unsigned long size, unsigned long stride)
{
	unsigned long off;

	for (off = 0; off < size; off += stride)
		p[off] = 1;
}

static void do_work(struct work *w)
{
	static volatile uintptr_t bad_user = AV_USER, bad_kernel = AV_KERNEL;
	struct sigaction sa = { .sa_sigaction = av_handler, .sa_flags = SA_SIGINFO };
	volatile char sink;
	static char chunk[64 << 10];
	char path[] = "/tmp/ntkl_memory_test.XXXXXX";
	int fd, status;
	unsigned long off;
	char *p;
	void *q;

	w->pid = getpid();
	/* demand zero, then a free */
	p = mmap(NULL, DZ_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP(p != MAP_FAILED);
	if (madvise(p, DZ_SIZE, MADV_NOHUGEPAGE))
		w->madvise_errno = errno;
	w->dz = (uintptr_t)p;
	touch(p, DZ_SIZE, PAGE);

	/* copy on write, in a grandchild */
	p = mmap(NULL, COW_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP(p != MAP_FAILED);
	if (madvise(p, COW_SIZE, MADV_NOHUGEPAGE))
		w->madvise_errno = errno;
	w->cow = (uintptr_t)p;
	touch(p, COW_SIZE, PAGE);
	w->cow_pid = fork();
	STEP(w->cow_pid >= 0);
	if (!w->cow_pid) {
		for (off = 0; off < COW_SIZE; off += PAGE)
			p[off] = 2;
		_exit(0);
	}
	STEP(waitpid(w->cow_pid, &status, 0) == w->cow_pid && WIFEXITED(status) &&
	     !WEXITSTATUS(status));

	/* the zero page, read, then written: each write copies the zero page */
	p = mmap(NULL, ZP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP(p != MAP_FAILED);
	if (madvise(p, ZP_SIZE, MADV_NOHUGEPAGE))
		w->madvise_errno = errno;
	w->zp = (uintptr_t)p;
	for (off = 0; off < ZP_SIZE; off += PAGE)
		sink = p[off];
	touch(p, ZP_SIZE, PAGE);

	/* transition: a cached file's pages, mapped */
	fd = mkstemp(path);
	STEP(fd >= 0);
	unlink(path);
	/* from a small buffer: a big one's mapping, gone, would leave its faults at these addresses */
	memset(chunk, 7, sizeof(chunk));
	for (off = 0; off < FILE_SIZE; off += sizeof(chunk))
		STEP(write(fd, chunk, sizeof(chunk)) == (ssize_t)sizeof(chunk));
	p = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	STEP(p != MAP_FAILED);
	w->file = (uintptr_t)p;
	for (off = 0; off < FILE_SIZE; off += FILE_STRIDE * PAGE)
		sink = p[off];
	(void)sink;
	close(fd);

	/* access violations: a user write, a kernel copy */
	STEP(!sigaction(SIGSEGV, &sa, NULL));
	if (!sigsetjmp(av_jump, 1))
		*(volatile char *)bad_user = 1;
	else
		w->av_user_seen = 1;
	signal(SIGSEGV, SIG_DFL);
	/* one copy to user memory (a write(2) may fault the buffer in, then copy: two) */
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (void *)bad_kernel) < 0)
		w->av_kernel_errno = errno;

	/* brk */
	q = sbrk(0);
	w->brk = ((uintptr_t)q + PAGE - 1) & ~(PAGE - 1);
	STEP(syscall(SYS_brk, w->brk + BRK_GROW) == (long)(w->brk + BRK_GROW));

	/* mremap */
	p = mmap(NULL, REMAP_OLD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STEP(p != MAP_FAILED);
	w->remap_old = (uintptr_t)p;
	q = mremap(p, REMAP_OLD, REMAP_NEW, MREMAP_MAYMOVE);
	STEP(q != MAP_FAILED);
	w->remap_new = (uintptr_t)q;

	/* last: no later mapping takes its addresses */
	STEP(!munmap((void *)(uintptr_t)w->dz, DZ_SIZE));
}

/* Run the work in a child: 0, or -1 if it could not tell what it did. */
static int run_child(struct work *w)
{
	int pipefd[2], status;
	pid_t pid;

	memset(w, 0, sizeof(*w));
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(pipefd[0]);
		do_work(w);
		_exit(write(pipefd[1], w, sizeof(*w)) == sizeof(*w) ? 0 : 1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], w, sizeof(*w)) != sizeof(*w))
		w->err = -1;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return w->err ? -1 : 0;
}

NTKL_READER_FIXTURE(memory);

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, uint32_t flags, const uint16_t *walk, unsigned int nwalk,
			 struct drain_job *job, pthread_t *th)
{
	struct ntkl_stack_tracing st = { .size = sizeof(st) };
	struct ntkl_properties p;

	props_init(&p, name, flags);
	p.buffer_size_kb = 1024;
	ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_START, &p));
	if (nwalk) {
		st.logger_id = p.logger_id;
		st.count = nwalk;
		st.hooks = (uint64_t)(uintptr_t)walk;
		ASSERT_EQ(0, ntkl_ctl(ctl, NTKL_IOC_SET_STACK_TRACING, &st));
	}
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

/*
 * The cases that run the whole workload (a 64 MiB mapping touched page by
 * page, forks, a file) take about 5 s each on the debug kernel alone; one
 * ran past the harness's default 30 s in make check's suite there, beside
 * another kernel's VM.
 */
#define WORKLOAD_TIMEOUT	120

TEST_F_TIMEOUT(memory, known_faults_and_allocations, WORKLOAD_TIMEOUT)
{
	const char *etl = "/out/ntkl_memory_test.etl";
	unsigned long dz, other, pages_seen = 0, n;
	struct drain_job job;
	struct mem_view v;
	unsigned char *seen;
	struct work w;
	pthread_t th;
	size_t i;
	int k;

	start_logger(_metadata, self->ctl, self->reader, "selftest memory", MEM_FLAGS, NULL, 0,
		     &job, &th);
	ASSERT_EQ(0, run_child(&w)) TH_LOG("the child failed at line %d", w.err);
	stop_logger(_metadata, self->ctl, "selftest memory", &job, th);
	if (w.madvise_errno)
		TH_LOG("madvise(MADV_NOHUGEPAGE): %s (no huge pages here)", strerror(w.madvise_errno));
	capture_write(&job.c, etl);
	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.bad_header);
	EXPECT_EQ(0, v.bad_size);
	EXPECT_EQ(0, system("ntkl dump --check /out/ntkl_memory_test.etl > /dev/null"));

	/* 64 MiB: one DemandZeroFault at each page, no other fault there */
	seen = calloc(DZ_PAGES, 1);
	ASSERT_NE(NULL, seen);
	for (i = 0; i < v.n; i++) {
		const struct ev *e = &v.ev[i];

		if (e->kind != K_DEMAND_ZERO || e->pid != (uint32_t)w.pid || e->addr < w.dz ||
		    e->addr - w.dz >= DZ_SIZE)
			continue;
		pages_seen += !seen[(e->addr - w.dz) / PAGE]++;
	}
	free(seen);
	dz = count_in(&v, K_DEMAND_ZERO, w.pid, w.dz, DZ_SIZE);
	for (k = 0, other = 0; k < K_ALLOC; k++)
		other += k != K_DEMAND_ZERO ? count_in(&v, k, w.pid, w.dz, DZ_SIZE) : 0;
	TH_LOG("64 MiB at %#llx: %lu DemandZeroFault at %lu pages, %lu other faults",
	       (unsigned long long)w.dz, dz, pages_seen, other);
	EXPECT_EQ(DZ_PAGES, dz);
	EXPECT_EQ(DZ_PAGES, pages_seen);
	EXPECT_EQ(0, other);
	EXPECT_EQ(1, count_region(&v, K_ALLOC, w.pid, w.dz, DZ_SIZE,
				  ETW_MEM_COMMIT | ETW_MEM_RESERVE));
	EXPECT_EQ(1, count_region(&v, K_FREE, w.pid, w.dz, DZ_SIZE, ETW_MEM_RELEASE));

	/* copy on write: the child's demand zero, the grandchild's copies */
	n = count_in(&v, K_COW, w.cow_pid, w.cow, COW_SIZE);
	TH_LOG("1 MiB at %#llx: %lu DemandZeroFault (child), %lu CopyOnWrite, %lu DemandZeroFault (grandchild)",
	       (unsigned long long)w.cow, count_in(&v, K_DEMAND_ZERO, w.pid, w.cow, COW_SIZE), n,
	       count_in(&v, K_DEMAND_ZERO, w.cow_pid, w.cow, COW_SIZE));
	EXPECT_EQ(COW_PAGES, count_in(&v, K_DEMAND_ZERO, w.pid, w.cow, COW_SIZE));
	EXPECT_EQ(COW_PAGES, n);
	EXPECT_EQ(0, count_in(&v, K_DEMAND_ZERO, w.cow_pid, w.cow, COW_SIZE));
	EXPECT_EQ(0, count_in(&v, K_TRANSITION, w.cow_pid, w.cow, COW_SIZE));

	/*
	 * the zero page: a read maps it, a write copies it; both
	 * DemandZeroFault, as Windows' first touch of a page is: no
	 * CopyOnWrite, and no TransitionFault, which a write that found its
	 * page its own would be (the copy missed)
	 */
	TH_LOG("1 MiB read, then written: %lu DemandZeroFault, %lu CopyOnWrite, %lu TransitionFault",
	       count_in(&v, K_DEMAND_ZERO, w.pid, w.zp, ZP_SIZE),
	       count_in(&v, K_COW, w.pid, w.zp, ZP_SIZE),
	       count_in(&v, K_TRANSITION, w.pid, w.zp, ZP_SIZE));
	EXPECT_EQ(2 * ZP_PAGES, count_in(&v, K_DEMAND_ZERO, w.pid, w.zp, ZP_SIZE));
	EXPECT_EQ(0, count_in(&v, K_COW, w.pid, w.zp, ZP_SIZE));
	EXPECT_EQ(0, count_in(&v, K_TRANSITION, w.pid, w.zp, ZP_SIZE));

	/* transition: one a read, nothing else */
	n = count_in(&v, K_TRANSITION, w.pid, w.file, FILE_SIZE);
	for (k = 0, other = 0; k < K_ALLOC; k++)
		other += k != K_TRANSITION ? count_in(&v, k, w.pid, w.file, FILE_SIZE) : 0;
	TH_LOG("8 MiB file at %#llx: %lu TransitionFault, %lu other faults",
	       (unsigned long long)w.file, n, other);
	EXPECT_EQ(FILE_READS, n);
	EXPECT_EQ(0, other);

	/* access violations */
	EXPECT_TRUE(w.av_user_seen);
	EXPECT_EQ(EFAULT, w.av_kernel_errno);
	EXPECT_EQ(1, count_in(&v, K_AV, w.pid, AV_USER, 1));
	/*
	 * the kernel's copy faults once (6.12), or twice where a failed copy
	 * is tried again a byte at a time (6.1's copy_user_handle_tail()):
	 * each a fault that failed, each an AccessViolation
	 */
	n = count_in(&v, K_AV, w.pid, AV_KERNEL, 1);
	EXPECT_LE(1, n);
	EXPECT_GE(2, n);
	for (i = 0; i < v.n; i++)
		if (v.ev[i].kind == K_AV && v.ev[i].pid == (uint32_t)w.pid &&
		    v.ev[i].addr == AV_USER) {
			EXPECT_NE(0, v.ev[i].value);
			EXPECT_GT(0x800000000000ULL, v.ev[i].value);
		}

	/* brk, if this kernel's do_brk_flags() is a function kprobes find */
	if (kallsyms_has("do_brk_flags")) {
		EXPECT_EQ(1, count_region(&v, K_ALLOC, w.pid, w.brk, BRK_GROW,
					  ETW_MEM_COMMIT | ETW_MEM_RESERVE));
	} else {
		TH_LOG("no do_brk_flags in /proc/kallsyms: brk's VirtualAlloc not checked");
	}

	/* mremap: grown in place, or moved */
	EXPECT_EQ(1, count_region(&v, K_ALLOC, w.pid, w.remap_old, REMAP_OLD,
				  ETW_MEM_COMMIT | ETW_MEM_RESERVE));
	TH_LOG("mremap: %#llx -> %#llx", (unsigned long long)w.remap_old,
	       (unsigned long long)w.remap_new);
	if (w.remap_new == w.remap_old) {
		EXPECT_EQ(1, count_region(&v, K_ALLOC, w.pid, w.remap_old + REMAP_OLD,
					  REMAP_NEW - REMAP_OLD, ETW_MEM_COMMIT | ETW_MEM_RESERVE));
	} else {
		EXPECT_EQ(1, count_region(&v, K_ALLOC, w.pid, w.remap_new, REMAP_NEW,
					  ETW_MEM_COMMIT | ETW_MEM_RESERVE));
		EXPECT_EQ(1, count_region(&v, K_FREE, w.pid, w.remap_old, REMAP_OLD,
					  ETW_MEM_RELEASE));
	}
	free(v.ev);
	capture_free(&job.c);
}

/* A logger without ALL_FAULTS and VIRT_ALLOC, beside one with them, gets none of their records. */
TEST_F_TIMEOUT(memory, only_their_loggers, WORKLOAD_TIMEOUT)
{
	static const uint16_t hooks[] = {
		ETW_EVENT_TRANSITION_FAULT_HOOK, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK,
		ETW_EVENT_COPY_ON_WRITE_HOOK, ETW_EVENT_ACCESS_VIOLATION_HOOK,
		ETW_EVENT_VIRTUAL_ALLOC_HOOK, ETW_EVENT_VIRTUAL_FREE_HOOK,
	};
	struct drain_job job, other;
	pthread_t th, th2;
	struct work w;
	unsigned int i;
	int reader2;

	reader2 = ntkl_open();
	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, "selftest memory", MEM_FLAGS, NULL, 0,
		     &job, &th);
	start_logger(_metadata, self->ctl, reader2, "selftest no memory",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS, NULL, 0, &other,
		     &th2);
	ASSERT_EQ(0, run_child(&w)) TH_LOG("the child failed at line %d", w.err);
	stop_logger(_metadata, self->ctl, "selftest no memory", &other, th2);
	stop_logger(_metadata, self->ctl, "selftest memory", &job, th);
	EXPECT_LE(DZ_PAGES, capture_count_hook(&job.c, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK));
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		EXPECT_LE(1, capture_count_hook(&job.c, hooks[i])) TH_LOG("%#x", hooks[i]);
		EXPECT_EQ(0, capture_count_hook(&other.c, hooks[i])) TH_LOG("%#x", hooks[i]);
	}
	close(reader2);
	capture_free(&other.c);
	capture_free(&job.c);
}

/*
 * Between guard pages (PROT_NONE: never merged with it, though they may
 * merge with a neighbour of their kind), a region of memory this process
 * mapped before the logger started.
 */
static char *guarded(unsigned long size, int prot)
{
	char *p = mmap(NULL, size + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + PAGE, size, prot)) {
		munmap(p, size + 2 * PAGE);
		return NULL;
	}
	return p + PAGE;
}

/*
 * The rundown: memory mapped before the start is one VirtualAllocDCStart
 * at the start and one VirtualAllocDCEnd at the stop, committed whole
 * when writable (mprotect() charged it to the commit limit), reserved
 * when read-only; shared memory (shmem, a section) is none.
 */
TEST_F(memory, rundown_lists_what_was_mapped)
{
	const char *etl = "/out/ntkl_memory_rundown.etl";
	const uint32_t pid = getpid();
	const uint32_t commit = ETW_MEM_COMMIT | ETW_MEM_RESERVE;
	char *rw, *ro, *shared;
	struct drain_job job;
	struct mem_view v;
	pthread_t th;

	rw = guarded(DZ_SIZE, PROT_READ | PROT_WRITE);
	ro = guarded(COW_SIZE, PROT_READ);
	shared = mmap(NULL, COW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(NULL, rw);
	ASSERT_NE(NULL, ro);
	ASSERT_NE(MAP_FAILED, shared);
	rw[0] = 1;	/* one page in use: the commit is the region's, not its pages' */

	start_logger(_metadata, self->ctl, self->reader, "selftest memory",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_VIRTUAL_ALLOC, NULL, 0, &job, &th);
	stop_logger(_metadata, self->ctl, "selftest memory", &job, th);
	capture_write(&job.c, etl);
	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.bad_header);
	EXPECT_EQ(0, v.bad_size);
	EXPECT_EQ(0, system("ntkl dump --check /out/ntkl_memory_rundown.etl > /dev/null"));
	TH_LOG("%lu DCStart, %lu DCEnd of this process's memory",
	       count_in(&v, K_DC_START, pid, 0, UINT64_MAX),
	       count_in(&v, K_DC_END, pid, 0, UINT64_MAX));

	EXPECT_EQ(1, count_committed(&v, K_DC_START, pid, (uintptr_t)rw, DZ_SIZE, commit, DZ_SIZE));
	EXPECT_EQ(1, count_committed(&v, K_DC_END, pid, (uintptr_t)rw, DZ_SIZE, commit, DZ_SIZE));
	EXPECT_EQ(1, count_committed(&v, K_DC_START, pid, (uintptr_t)ro, COW_SIZE,
				     ETW_MEM_RESERVE, 0));
	EXPECT_EQ(1, count_committed(&v, K_DC_END, pid, (uintptr_t)ro, COW_SIZE,
				     ETW_MEM_RESERVE, 0));
	EXPECT_EQ(0, count_in(&v, K_DC_START, pid, (uintptr_t)shared, COW_SIZE));
	EXPECT_EQ(0, count_in(&v, K_DC_END, pid, (uintptr_t)shared, COW_SIZE));
	/* nothing was mapped or unmapped while the logger ran */
	EXPECT_EQ(0, count_in(&v, K_ALLOC, pid, (uintptr_t)rw, DZ_SIZE));
	munmap(rw - PAGE, DZ_SIZE + 2 * PAGE);
	munmap(ro - PAGE, COW_SIZE + 2 * PAGE);
	munmap(shared, COW_SIZE);
	free(v.ev);
	capture_free(&job.c);
}

/*
 * -stackwalk PagefaultDemandZero+VirtualAlloc: this thread's faults in a
 * fresh mapping and the mapping's VirtualAlloc are each followed by a
 * stack of this thread, with the record's time.
 */
#define STACK_PAGES	256

TEST_F(memory, fault_and_alloc_stacks)
{
	static const uint16_t walk[] = {
		ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, ETW_EVENT_VIRTUAL_ALLOC_HOOK,
	};
	unsigned long faults = 0, walked = 0, allocs = 0, alloc_walked = 0;
	uint32_t tid = gettid(), pid = getpid();
	struct drain_job job;
	struct mem_view v;
	pthread_t th;
	size_t i, j;
	char *p;

	start_logger(_metadata, self->ctl, self->reader, "selftest memory", MEM_FLAGS, walk, 2,
		     &job, &th);
	p = mmap(NULL, STACK_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	if (madvise(p, STACK_PAGES * PAGE, MADV_NOHUGEPAGE))
		TH_LOG("madvise(MADV_NOHUGEPAGE): %s (no huge pages here)", strerror(errno));
	touch(p, STACK_PAGES * PAGE, PAGE);
	stop_logger(_metadata, self->ctl, "selftest memory", &job, th);
	ASSERT_EQ(0, view_capture(&job.c, &v));
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	for (i = 0; i < v.n; i++) {
		const struct ev *e = &v.ev[i];
		bool in = e->addr >= (uintptr_t)p && e->addr - (uintptr_t)p < STACK_PAGES * PAGE;
		bool mine_fault = e->kind == K_DEMAND_ZERO && e->tid == tid && in;
		bool mine_alloc = e->kind == K_ALLOC && e->pid == pid && e->addr == (uintptr_t)p;
		bool found = false;

		if (!mine_fault && !mine_alloc)
			continue;
		for (j = 0; j < v.n && !found; j++)
			found = v.ev[j].kind == K_STACK && v.ev[j].time == e->time &&
				v.ev[j].value == tid;
		faults += mine_fault;
		walked += mine_fault && found;
		allocs += mine_alloc;
		alloc_walked += mine_alloc && found;
	}
	TH_LOG("%lu of %lu DemandZeroFault walked, %lu of %lu VirtualAlloc", walked, faults,
	       alloc_walked, allocs);
	EXPECT_EQ(STACK_PAGES, faults);
	EXPECT_EQ(STACK_PAGES, walked);
	EXPECT_EQ(1, allocs);
	EXPECT_EQ(1, alloc_walked);
	munmap(p, STACK_PAGES * PAGE);
	free(v.ev);
	capture_free(&job.c);
}

/*
 * Under fault injection (the debug kernel), a START of ALL_FAULTS and
 * VIRT_ALLOC that fails at any of its fault points (an allocation, a
 * kretprobe, the tracepoint) fails whole: -ENOMEM, and none of the
 * producer's probes is left registered; one that succeeds has them, and
 * its STOP takes them all away.
 */
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

/* The producer's probes registered now (kprobes' own list). */
static int memory_probes(void)
{
	static const char *const fns[] = {
		"handle_mm_fault+", "do_wp_page+", "wp_page_copy+", "vma_alloc_folio", "do_swap_page+",
		"fixup_exception+", "do_mmap+", "do_brk_flags+", "__x64_sys_mremap+", "remove_vma+",
		"vm_area_free+",
	};
	char line[512];
	FILE *f = fopen(KPROBES_LIST, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			n += strstr(line, fns[i]) != NULL;
	fclose(f);
	return n;
}

#define MAX_POINTS	5000

/*
 * fail-nth through one descriptor opened beforehand: a write and a read
 * of it allocate nothing, so no point is spent outside START (an open of
 * /proc/thread-self does allocate: a countdown left over from a START
 * that met fewer points would fail it instead, and the walk go on).
 */
static int set_nth(int fd, int k)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%d", k);

	return pwrite(fd, v, len, 0) == len ? 0 : -1;
}

static int left_nth(int fd)
{
	char v[16];
	ssize_t len = pread(fd, v, sizeof(v) - 1, 0);

	if (len <= 0)
		return -1;
	v[len] = '\0';
	return atoi(v);
}

/* The kernel's fault points stay, but quiet: an injected failure's stack is no bug report. */
static const char *const quiet_paths[] = {
	"/sys/kernel/debug/failslab/verbose", "/sys/kernel/debug/fail_page_alloc/verbose",
};
#define N_QUIET	(sizeof(quiet_paths) / sizeof(quiet_paths[0]))

TEST_F_TIMEOUT(memory, start_fails_whole, 600)
{
	char saved[N_QUIET][16];
	struct ntkl_properties p;
	int k, ret, fd, left = 0, failed = 0;

	if (access(FAIL_NTH, W_OK) || memory_probes() < 0)
		SKIP(return, "no fault injection or no %s (the debug kernel has both)", KPROBES_LIST);
	ASSERT_EQ(0, memory_probes());
	fd = open(FAIL_NTH, O_RDWR);
	ASSERT_LE(0, fd);
	for (unsigned int i = 0; i < N_QUIET; i++) {
		FILE *f = fopen(quiet_paths[i], "r");

		saved[i][0] = '\0';
		if (f && fgets(saved[i], sizeof(saved[i]), f))
			saved[i][strcspn(saved[i], "\n")] = '\0';
		if (f)
			fclose(f);
		write_file(quiet_paths[i], "0");
	}
	/*
	 * Every point of the first 100, then every 13th, until a START meets
	 * fewer points than asked (the countdown is left over): every point
	 * has then failed once.
	 */
	for (k = 1; k < MAX_POINTS; k += k < 100 ? 1 : 13) {
		props_init(&p, "selftest memory", MEM_FLAGS);
		ASSERT_EQ(0, set_nth(fd, k));
		ret = ntkl_ctl(self->ctl, NTKL_IOC_START, &p);
		left = left_nth(fd);
		set_nth(fd, 0);
		if (ret) {
			failed++;
			EXPECT_EQ(-ENOMEM, ret) TH_LOG("point %d", k);
			EXPECT_EQ(0, memory_probes()) TH_LOG("point %d", k);
			if (!_metadata->passed)
				break;
			continue;
		}
		EXPECT_LT(0, memory_probes()) TH_LOG("point %d", k);
		ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest memory"));
		EXPECT_EQ(0, memory_probes()) TH_LOG("point %d", k);
		if (left > 0 || !_metadata->passed)
			break;
	}
	close(fd);
	for (unsigned int i = 0; i < N_QUIET; i++)
		if (saved[i][0])
			write_file(quiet_paths[i], saved[i]);
	TH_LOG("START of ALL_FAULTS+VIRT_ALLOC: %d fault points, %d failed it",
	       left > 0 ? k - left : k - 1, failed);
	EXPECT_LT(k, MAX_POINTS);
	/* the probes' registration fails at some of them; others are counted losses */
	EXPECT_LT(0, failed);
}

TEST_HARNESS_MAIN
