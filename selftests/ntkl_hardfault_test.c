// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_hardfault_test: HARD_FAULTS (HardFault 0x0220) against the kernel's
 * own count. A file of NPAGES pages on the VM's scratch disk ($NTKL_SCRATCH,
 * a real virtio disk), its pages dropped from the cache, is mapped and
 * touched page by page by one thread (MADV_RANDOM, and the disk's
 * readahead set to 0: each page is one fault that reads it) while a
 * HARD_FAULTS logger runs; then:
 *
 *  - that thread's HardFaults number what getrusage(RUSAGE_THREAD) says
 *    its major faults were (ru_majflt), nearly NPAGES of them;
 *  - each has the toucher's TThreadId, a VirtualAddress inside the
 *    mapping, ReadOffset = that page's offset in the file (the mapping
 *    starts at 0), one nonzero FileObject for all, ByteCount a page,
 *    InitialTime before the record's own time (the fault waited for the
 *    disk), PERFINFO64 version 2 and 40 bytes, as Windows writes it;
 *  - with the file in the cache (no drop) the same touching makes none;
 *  - a logger without HARD_FAULTS beside gets none; loggers of each clock
 *    type at once each get every fault, InitialTime in their clock;
 *  - FileObject is hashed for a reader that may not see kernel addresses;
 *  - another thread mapping and unmapping all the while (the mmap lock
 *    taken for writing) costs at most FileObjects (0), never a record;
 *  - a CPU taken offline and back records again; UPDATE turns it on and
 *    off, and the perf events exist only while a logger takes HardFault;
 *    unloading with one running releases them;
 *  - the capture passes the strict checker.
 * The kernel log must stay clean (vm-run fails the run otherwise).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define NPAGES		256
#define PAGE		4096
#define DROP_CACHES	"/proc/sys/vm/drop_caches"
#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"
#define HOTPLUG_STATES	"/sys/devices/system/cpu/hotplug/states"
#define HOTPLUG_NAME	"ntkl/hardfault:online"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define MAX_FAULTS	100000

struct fault {
	int64_t time;
	struct perfinfo_hard_fault p;
	uint16_t version;
	uint8_t header_type;
	uint16_t payload_len;
};

struct fault_view {
	struct fault *f;
	size_t n;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *file, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct fault_view *v = ctx;
	struct fault *f;

	if (!r || r->kind != ETL_KIND_KERNEL || r->hook_id != ETW_EVENT_HARD_FAULT_HOOK ||
	    v->n == MAX_FAULTS)
		return;
	f = &v->f[v->n++];
	memset(f, 0, sizeof(*f));
	f->time = r->timestamp;
	f->version = r->version;
	f->header_type = r->header_type;
	f->payload_len = r->payload_len;
	memcpy(&f->p, r->payload, r->payload_len < sizeof(f->p) ? r->payload_len : sizeof(f->p));
}

static int view_capture(struct capture *c, struct fault_view *v)
{
	memset(v, 0, sizeof(*v));
	v->f = calloc(MAX_FAULTS, sizeof(*v->f));
	if (!v->f)
		return -1;
	return capture_walk(c, view_record, v, &v->verdict);
}

/* The file: NPAGES pages, each page's first word its number. */
static int make_file(const char *path)
{
	static char page[PAGE];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int i;

	if (fd < 0)
		return -1;
	for (i = 0; i < NPAGES; i++) {
		memset(page, 'a' + i % 26, sizeof(page));
		memcpy(page, &i, sizeof(i));
		if (write(fd, page, sizeof(page)) != sizeof(page)) {
			close(fd);
			return -1;
		}
	}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * Every clean page out of the cache: the next touch reads the disk. A page
 * still held by a CPU's batch of pages on their way to the LRU stays (a
 * few on the debug kernel): twice, a moment apart, leaves fewer.
 */
static int drop_caches(void)
{
	sync();
	if (write_file(DROP_CACHES, "3"))
		return -1;
	usleep(100 * 1000);
	return write_file(DROP_CACHES, "3");
}

/* Nearly every page read from the disk: all but a CPU batch's worth. */
#define MOST_PAGES	(NPAGES - 16)

/* What the toucher did: its thread, the mapping, its major faults. */
struct toucher {
	const char *path;
	int cpu;		/* pinned there, if >= 0 */
	pid_t tid;
	uint64_t start;
	long majflt;
	long sum;		/* the pages' words, so no touch is optimised away */
	int err;
};

static void *touch_pages(void *arg)
{
	struct toucher *t = arg;
	struct rusage before, after;
	volatile int *page;
	char *map;
	int fd, i;

	t->tid = gettid();
	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			t->err = errno;
			return NULL;
		}
	}
	fd = open(t->path, O_RDONLY);
	if (fd < 0) {
		t->err = errno;
		return NULL;
	}
	map = mmap(NULL, (size_t)NPAGES * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		t->err = errno;
		return NULL;
	}
	/* the debug kernel has no madvise (ADVISE_SYSCALLS): its disk's readahead is 0 */
	if (madvise(map, (size_t)NPAGES * PAGE, MADV_RANDOM) && errno != ENOSYS) {
		t->err = errno;
		return NULL;
	}
	t->start = (uintptr_t)map;
	getrusage(RUSAGE_THREAD, &before);
	for (i = 0; i < NPAGES; i++) {
		page = (volatile int *)(map + (size_t)i * PAGE);
		t->sum += *page;
	}
	getrusage(RUSAGE_THREAD, &after);
	t->majflt = after.ru_majflt - before.ru_majflt;
	munmap(map, (size_t)NPAGES * PAGE);
	return NULL;
}

/* Touch the file's pages in a thread of its own (on cpu if >= 0); 0 or an errno. */
static int run_toucher_on(struct toucher *t, const char *path, int cpu)
{
	pthread_t th;
	int ret;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->cpu = cpu;
	ret = pthread_create(&th, NULL, touch_pages, t);
	if (ret)
		return ret;
	pthread_join(th, NULL);
	return t->err;
}

static int run_toucher(struct toucher *t, const char *path)
{
	return run_toucher_on(t, path, -1);
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

NTKL_READER_FIXTURE(hardfault);

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

#define FAULT_FLAGS	(EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD | \
			 EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS)

/*
 * The readahead of the scratch file system's disk, in KiB: set to kb,
 * the old value returned (-1 if it cannot be read). A file opened while
 * it is 0 reads only the page a fault needs, as MADV_RANDOM asks (which
 * a kernel without ADVISE_SYSCALLS, the debug one, refuses).
 */
static long set_readahead(const char *dir, long kb)
{
	char path[128], text[32];
	struct stat st;
	long old = -1;
	FILE *f;

	if (stat(dir, &st))
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	if (access(path, R_OK))	/* a partition: its disk's queue */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &old) != 1)
		old = -1;
	fclose(f);
	snprintf(text, sizeof(text), "%ld", kb);
	if (old >= 0 && write_file(path, text))
		return -1;
	return old;
}

static char scratch_dir[256];
static long scratch_readahead = -1;

static void __attribute__((destructor)) restore_readahead(void)
{
	if (scratch_readahead >= 0)
		set_readahead(scratch_dir, scratch_readahead);
}

/* The scratch file's path, or SKIP: only a disk makes hard faults. */
#define SCRATCH_FILE(buf)							\
	do {									\
		const char *scratch = getenv("NTKL_SCRATCH");			\
										\
		if (!scratch || !*scratch)					\
			SKIP(return, "no scratch disk ($NTKL_SCRATCH: vm-run mounts one)"); \
		snprintf(buf, sizeof(buf), "%s/hardfault.dat", scratch);	\
		snprintf(scratch_dir, sizeof(scratch_dir), "%s", scratch);	\
		if (scratch_readahead < 0)					\
			scratch_readahead = set_readahead(scratch, 0);		\
		ASSERT_LE(0, scratch_readahead);				\
	} while (0)

/* The toucher's HardFaults in v: checked one by one; how many. */
static size_t check_faults_of(struct __test_metadata *_metadata, const struct fault_view *v,
			      const struct toucher *t, size_t *waited, size_t *no_file)
{
	uint64_t file = 0;
	size_t i, n = 0;

	*waited = 0;
	*no_file = 0;
	for (i = 0; i < v->n; i++) {
		const struct fault *f = &v->f[i];
		const struct perfinfo_hard_fault *p = &f->p;

		if (p->thread_id != (uint32_t)t->tid)
			continue;
		n++;
		EXPECT_EQ(ETW_HEADER_TYPE_PERFINFO64, f->header_type);
		EXPECT_EQ(2, f->version & 0xFF);
		EXPECT_EQ(sizeof(*p), f->payload_len);
		EXPECT_GE(p->virtual_address, t->start);
		EXPECT_LT(p->virtual_address, t->start + (uint64_t)NPAGES * PAGE);
		EXPECT_EQ(PAGE, p->byte_count);
		EXPECT_LE((int64_t)p->initial_time, f->time);
		*waited += (int64_t)p->initial_time < f->time;
		if (!p->file_object) {
			/* its VMA not looked up: the mmap lock was not free; no offset either */
			++*no_file;
			EXPECT_EQ(0, p->read_offset);
			continue;
		}
		EXPECT_EQ((p->virtual_address & ~(uint64_t)(PAGE - 1)) - t->start, p->read_offset);
		EXPECT_EQ(0, p->read_offset % PAGE);
		if (!file)
			file = p->file_object;
		EXPECT_EQ(file, p->file_object);
	}
	return n;
}

/* The same, every one with its FileObject. */
static size_t check_faults(struct __test_metadata *_metadata, const struct fault_view *v,
			   const struct toucher *t, size_t *waited)
{
	size_t no_file, n = check_faults_of(_metadata, v, t, waited, &no_file);

	EXPECT_EQ(0, no_file);
	return n;
}

/* The FileObject of the toucher's first HardFault (0 if none). */
static uint64_t first_file(const struct fault_view *v, const struct toucher *t)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->f[i].p.thread_id == (uint32_t)t->tid)
			return v->f[i].p.file_object;
	return 0;
}

/* Cold pages: one HardFault per page, as many as the kernel's major faults. */
TEST_F(hardfault, cold_file_faults)
{
	struct drain_job job;
	struct fault_view v;
	struct toucher t;
	char path[256];
	size_t n, waited;
	pthread_t th;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	ASSERT_EQ(0, drop_caches());
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault", FAULT_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, run_toucher(&t, path));
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	/* for a look with ntkl dump --events on the host (vm-run brings /out back) */
	if (!access("/out", W_OK))
		capture_write(&job.c, "/out/ntkl_hardfault_test.etl");
	n = check_faults(_metadata, &v, &t, &waited);
	TH_LOG("toucher %d: %zu HardFaults (%zu with InitialTime before their time), %ld major faults by getrusage, %zu HardFaults in all",
	       t.tid, n, waited, t.majflt, v.n);
	EXPECT_LE(MOST_PAGES, t.majflt);
	EXPECT_EQ((size_t)t.majflt, n);
	/* each waited for the disk: its start is before its end */
	EXPECT_GE(waited * 10, n * 9);
	free(v.f);
	capture_free(&job.c);
}

/* Pages in the cache: no fault waits, no HardFault. */
TEST_F(hardfault, warm_file_none)
{
	struct drain_job job;
	struct fault_view v;
	struct toucher t;
	char path[256];
	size_t n, waited;
	pthread_t th;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	/* every page read once: in the cache */
	ASSERT_EQ(0, run_toucher(&t, path));
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault", FAULT_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, run_toucher(&t, path));
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	n = check_faults(_metadata, &v, &t, &waited);
	TH_LOG("toucher %d: %zu HardFaults, %ld major faults by getrusage", t.tid, n, t.majflt);
	EXPECT_EQ(0, t.majflt);
	EXPECT_EQ(0, n);
	free(v.f);
	capture_free(&job.c);
}

/* A logger without HARD_FAULTS beside one with it gets none. */
TEST_F(hardfault, only_hard_fault_loggers)
{
	struct drain_job job, other;
	struct fault_view v;
	struct toucher t;
	char path[256];
	size_t n, waited;
	pthread_t th, th2;
	int reader2;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	ASSERT_EQ(0, drop_caches());
	reader2 = ntkl_open();
	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, reader2, "selftest plain",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, &other, &th2);
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault", FAULT_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, run_toucher(&t, path));
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	stop_logger(_metadata, self->ctl, "selftest plain", &other, th2);
	close(reader2);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v));
	n = check_faults(_metadata, &v, &t, &waited);
	EXPECT_EQ((size_t)t.majflt, n);
	EXPECT_LE(MOST_PAGES, n);
	free(v.f);
	ASSERT_EQ(0, view_capture(&other.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.n);
	free(v.f);
	capture_free(&other.c);
	capture_free(&job.c);
}

/* A logger per clock type at once: each gets every fault, its start in its own clock. */
TEST_F(hardfault, every_clock)
{
	static const uint32_t clocks[] = { NTKL_CLOCK_QPC, NTKL_CLOCK_SYSTEM, NTKL_CLOCK_CYCLE };
	struct drain_job job[3];
	struct ntkl_properties p;
	struct fault_view v;
	struct toucher t;
	char path[256], name[64];
	int readers[3];
	size_t n, waited;
	pthread_t th[3];
	unsigned int i;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	ASSERT_EQ(0, drop_caches());
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "selftest hardfault %u", clocks[i]);
		readers[i] = ntkl_open();
		ASSERT_GE(readers[i], 0);
		props_init(&p, name, FAULT_FLAGS);
		p.clock_type = clocks[i];
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
		ASSERT_EQ(0, ntkl_bind_id(readers[i], p.logger_id));
		memset(&job[i], 0, sizeof(job[i]));
		job[i].fd = readers[i];
		job[i].size = p.buffer_size_kb * 1024;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, drain_thread, &job[i]));
	}
	ASSERT_EQ(0, run_toucher(&t, path));
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "selftest hardfault %u", clocks[i]);
		stop_logger(_metadata, self->ctl, name, &job[i], th[i]);
		close(readers[i]);
	}
	unlink(path);

	EXPECT_LE(MOST_PAGES, t.majflt);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, view_capture(&job[i].c, &v)) TH_LOG("%s", v.verdict.first_violation);
		EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
		n = check_faults(_metadata, &v, &t, &waited);
		TH_LOG("clock %u: %zu HardFaults, %zu with InitialTime before their time",
		       clocks[i], n, waited);
		EXPECT_EQ((size_t)t.majflt, n);
		EXPECT_GE(waited * 10, n * 9);
		free(v.f);
		capture_free(&job[i].c);
	}
}

/* The toucher's HardFaults of a hashing reader: user addresses raw, FileObject hashed. */
static size_t hashed_faults(struct __test_metadata *_metadata, const struct fault_view *v,
			    const struct toucher *t)
{
	size_t i, n = 0;

	for (i = 0; i < v->n; i++) {
		const struct perfinfo_hard_fault *p = &v->f[i].p;

		if (p->thread_id != (uint32_t)t->tid)
			continue;
		n++;
		EXPECT_EQ(0, p->file_object >> 32);
		EXPECT_GE(p->virtual_address, t->start);
		EXPECT_LT(p->virtual_address, t->start + (uint64_t)NPAGES * PAGE);
		EXPECT_EQ((p->virtual_address & ~(uint64_t)(PAGE - 1)) - t->start, p->read_offset);
	}
	return n;
}

/*
 * FileObject is a kernel address: raw for a reader that may see kernel
 * addresses (root, kptr_restrict 1), hashed (as %p hashes: 32 bits) for
 * one that may not (kptr_restrict 2); VirtualAddress, a user address, is
 * raw for both (check_faults() finds it in the mapping).
 */
TEST_F(hardfault, file_object_hashed)
{
	struct drain_job job;
	struct fault_view v;
	struct toucher t;
	char path[256];
	size_t n, waited;
	uint64_t file;
	pthread_t th;
	int round;

	SCRATCH_FILE(path);
	for (round = 0; round < 2; round++) {
		close(self->reader);
		self->reader = ntkl_open();
		ASSERT_GE(self->reader, 0);
		ASSERT_EQ(0, make_file(path));
		ASSERT_EQ(0, drop_caches());
		ASSERT_EQ(0, write_file(KPTR_RESTRICT, round ? "2" : "1"));
		start_logger(_metadata, self->ctl, self->reader, "selftest hardfault",
			     FAULT_FLAGS, &job, &th);
		ASSERT_EQ(0, run_toucher(&t, path));
		stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
		write_file(KPTR_RESTRICT, "1");
		unlink(path);
		ASSERT_EQ(0, view_capture(&job.c, &v));
		file = first_file(&v, &t);
		TH_LOG("kptr_restrict %d: FileObject 0x%llx", round ? 2 : 1,
		       (unsigned long long)file);
		if (round) {
			/*
			 * 32 bits of hash; 0 where %p has no key yet
			 * (early after boot, the debug kernel)
			 */
			n = hashed_faults(_metadata, &v, &t);
		} else {
			n = check_faults(_metadata, &v, &t, &waited);
			EXPECT_EQ(1, file >> 63);
		}
		EXPECT_EQ((size_t)t.majflt, n);
		EXPECT_LE(MOST_PAGES, n);
		free(v.f);
		capture_free(&job.c);
	}
}

/* A thread that maps and unmaps all the time: the mmap lock taken for writing. */
struct churn {
	volatile bool stop;
	unsigned long rounds;
};

static void *churn_mappings(void *arg)
{
	struct churn *c = arg;
	void *m;

	while (!c->stop) {
		m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, 1 << 16);
		c->rounds++;
	}
	return NULL;
}

/*
 * Faults while another thread of the process takes the mmap lock for
 * writing over and over: still one HardFault per major fault, each with
 * the file or, when the lock was not free, FileObject 0 (never a wrong
 * one), and no lockdep report (the debug kernel).
 */
TEST_F(hardfault, mmap_lock_contended)
{
	struct drain_job job;
	struct fault_view v;
	struct churn c = { 0 };
	struct toucher t;
	char path[256];
	size_t n, waited, no_file;
	pthread_t th, churner;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	ASSERT_EQ(0, drop_caches());
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault", FAULT_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, pthread_create(&churner, NULL, churn_mappings, &c));
	ASSERT_EQ(0, run_toucher(&t, path));
	c.stop = true;
	pthread_join(churner, NULL);
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	n = check_faults_of(_metadata, &v, &t, &waited, &no_file);
	TH_LOG("%zu HardFaults beside %lu mmap/munmap rounds: %zu without FileObject, %ld major faults",
	       n, c.rounds, no_file, t.majflt);
	EXPECT_LE(MOST_PAGES, t.majflt);
	EXPECT_EQ((size_t)t.majflt, n);
	free(v.f);
	capture_free(&job.c);
}

/* A CPU that goes offline and comes back: its faults are recorded again. */
TEST_F(hardfault, cpu_hotplug)
{
	struct drain_job job;
	struct fault_view v;
	struct toucher t;
	char path[256];
	size_t n, waited;
	pthread_t th;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	ASSERT_EQ(0, drop_caches());
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault", FAULT_FLAGS,
		     &job, &th);
	ASSERT_EQ(0, write_file(CPU1_ONLINE, "0"));
	usleep(50 * 1000);
	ASSERT_EQ(0, write_file(CPU1_ONLINE, "1"));
	/* its events come from a work item, a moment after it is up */
	usleep(100 * 1000);
	ASSERT_EQ(0, run_toucher_on(&t, path, 1));
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	n = check_faults(_metadata, &v, &t, &waited);
	TH_LOG("on CPU 1 after its hotplug: %zu HardFaults, %ld major faults", n, t.majflt);
	EXPECT_LE(MOST_PAGES, t.majflt);
	EXPECT_EQ((size_t)t.majflt, n);
	free(v.f);
	capture_free(&job.c);
}

/*
 * UPDATE turns HARD_FAULTS on and off: faults are recorded only between,
 * and the events (their hotplug state) exist only while a logger takes
 * HardFault.
 */
TEST_F(hardfault, update_turns_it_on_and_off)
{
	struct ntkl_properties p;
	struct drain_job job;
	struct fault_view v;
	struct toucher before, during, after;
	char path[256];
	size_t n, waited;
	pthread_t th;

	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	start_logger(_metadata, self->ctl, self->reader, "selftest hardfault",
		     EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, &job, &th);
	EXPECT_FALSE(hotplug_state_present());
	ASSERT_EQ(0, drop_caches());
	ASSERT_EQ(0, run_toucher(&before, path));
	props_select(&p, "selftest hardfault");
	p.enable_flags = FAULT_FLAGS;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	if (!access(HOTPLUG_STATES, R_OK))
		EXPECT_TRUE(hotplug_state_present());
	ASSERT_EQ(0, drop_caches());
	ASSERT_EQ(0, run_toucher(&during, path));
	props_select(&p, "selftest hardfault");
	p.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &p));
	EXPECT_FALSE(hotplug_state_present());
	ASSERT_EQ(0, drop_caches());
	ASSERT_EQ(0, run_toucher(&after, path));
	stop_logger(_metadata, self->ctl, "selftest hardfault", &job, th);
	unlink(path);

	ASSERT_EQ(0, view_capture(&job.c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	TH_LOG("major faults before, during, after: %ld, %ld, %ld; HardFaults %zu",
	       before.majflt, during.majflt, after.majflt, v.n);
	EXPECT_LE(MOST_PAGES, before.majflt);
	EXPECT_LE(MOST_PAGES, after.majflt);
	EXPECT_EQ(0, check_faults(_metadata, &v, &before, &waited));
	EXPECT_EQ(0, check_faults(_metadata, &v, &after, &waited));
	n = check_faults(_metadata, &v, &during, &waited);
	EXPECT_EQ((size_t)during.majflt, n);
	EXPECT_LE(MOST_PAGES, n);
	free(v.f);
	capture_free(&job.c);
}

/*
 * Unloading with a HardFault logger running releases the perf events and
 * their hotplug state; the module loads again and records again.
 */
TEST_F(hardfault, unload_while_recording)
{
	const char *ko = getenv("NTKL_KO");
	struct ntkl_properties p;
	struct toucher t;
	char path[256];

	ASSERT_NE(NULL, ko);
	SCRATCH_FILE(path);
	ASSERT_EQ(0, make_file(path));
	EXPECT_FALSE(hotplug_state_present());
	props_init(&p, "selftest hardfault", FAULT_FLAGS);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	if (!access(HOTPLUG_STATES, R_OK))
		EXPECT_TRUE(hotplug_state_present());
	ASSERT_EQ(0, drop_caches());
	ASSERT_EQ(0, run_toucher(&t, path));	/* records into a logger no one reads */
	close(self->reader);
	close(self->ctl);
	self->reader = self->ctl = -1;

	ASSERT_EQ(0, delete_module("ntkl"));
	EXPECT_FALSE(hotplug_state_present());
	ASSERT_EQ(0, drop_caches());
	ASSERT_EQ(0, run_toucher(&t, path));	/* a handler left behind would run now */
	ASSERT_EQ(0, load_module_wait(ko));
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->reader = ntkl_open();
	props_init(&p, "selftest hardfault", FAULT_FLAGS);
	EXPECT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	EXPECT_EQ(0, ntkl_stop_name(self->ctl, "selftest hardfault"));
	EXPECT_FALSE(hotplug_state_present());
	unlink(path);
}

TEST_HARNESS_MAIN
