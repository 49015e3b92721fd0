// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_meminfo_test: MEMINFO_WS (ProcessMemInfo 0x027D) with a known
 * answer. While a PROCESS+MEMINFO_WS logger runs, the test itself
 *
 *   1. waits (its baseline),
 *   2. maps 64 MiB of private anonymous memory (no huge pages) and waits,
 *   3. touches every page of it and waits,
 *   4. unmaps it and waits,
 *
 * each wait PHASE_MS, several snapshots' worth. Its own entries in the
 * snapshots, against the first one, must then show
 *
 *   - a snapshot of step 2: CommitPageCount and VirtualSizeInPages up by
 *     the 16384 pages mapped, PrivateWorkingSetPageCount and
 *     WorkingSetPageCount not (nothing touched yet);
 *   - a snapshot of step 3: both working sets up by the 16384 pages too
 *     (less a little the kernel's counters may not have folded in yet);
 *   - the last snapshot: back to the first (less the same slack);
 *
 * its process once in every snapshot; snapshots half a second apart
 * (between 0.45 and 1.5 s: TCG is slow to run the work item); every
 * record PERFINFO64 version 2, Count entries of 68 bytes, 1 to 56 of
 * them; nothing lost; the capture passes the strict checker (ntkl dump
 * --check's). A logger without MEMINFO_WS beside it gets none.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define MAP_PAGES	16384			/* 64 MiB of 4 KiB pages */
#define PHASE_MS	1600
#define SLACK_PAGES	1024			/* counters folded in lazily, page tables */
#define MAX_RECORDS	4096

struct snap {
	int64_t time;
	uint64_t count[ETW_PMI_COUNTS];
	unsigned int seen;			/* this process's entries in the snapshot */
};

struct mi_view {
	uint32_t pid;
	uint64_t freq;
	struct snap rec[MAX_RECORDS];		/* each record, this process's entry if any */
	struct snap s[MAX_RECORDS];		/* the snapshots: records close in time */
	unsigned int nrec, n;
	unsigned long bad_header, bad_size, bad_count;
	struct capture_verdict verdict;
};

static uint64_t le64_at(const uint8_t *p)
{
	return (uint64_t)etw_get_le32(p) | (uint64_t)etw_get_le32(p + 4) << 32;
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct mi_view *v = ctx;
	uint32_t count, i;
	struct snap *s;

	if (!r || r->kind != ETL_KIND_KERNEL || r->hook_id != ETW_EVENT_PROCESS_MEMINFO_HOOK)
		return;
	v->freq = f->header.perf_freq;
	v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64 || r->version != 2;
	if (r->payload_len < 4) {
		v->bad_size++;
		return;
	}
	count = etw_get_le32(r->payload);
	if (r->payload_len != 4 + count * ETW_PROCESS_MEMINFO_ENTRY_SIZE) {
		v->bad_size++;
		return;
	}
	v->bad_count += count < 1 || count > 56;
	if (v->nrec == MAX_RECORDS)
		return;
	s = &v->rec[v->nrec++];
	s->time = r->timestamp;
	for (i = 0; i < count; i++) {
		const uint8_t *e = r->payload + 4 + i * ETW_PROCESS_MEMINFO_ENTRY_SIZE;

		if (etw_get_le32(e) != v->pid)
			continue;
		s->seen++;
		for (unsigned int c = 0; c < ETW_PMI_COUNTS; c++)
			s->count[c] = le64_at(e + ETW_PROCESS_MEMINFO_COUNT_OFFSET(c));
	}
}

static int by_time(const void *a, const void *b)
{
	const struct snap *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * The snapshots: the records in time order (the walk goes buffer by
 * buffer, and the work item runs on any CPU), a record more than 0.1 s
 * after its snapshot's first starting the next one; a snapshot of many
 * processes is several records written one after the other.
 */
static void view_snapshots(struct mi_view *v)
{
	struct snap *s = NULL;

	qsort(v->rec, v->nrec, sizeof(v->rec[0]), by_time);
	for (unsigned int i = 0; i < v->nrec; i++) {
		const struct snap *r = &v->rec[i];

		if (!s || r->time - s->time > (int64_t)v->freq / 10) {
			s = &v->s[v->n++];
			s->time = r->time;
		}
		if (r->seen) {
			s->seen += r->seen;
			memcpy(s->count, r->count, sizeof(s->count));
		}
	}
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The four steps; 0, or -1 if the memory could not be had. */
static int run_steps(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)MAP_PAGES * 4096;
	volatile char *m;

	if (page != 4096)
		return -1;
	sleep_ms(PHASE_MS);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	/* one fault, one page a time: no huge page fills 512 at once */
	madvise((void *)m, len, MADV_NOHUGEPAGE);
	sleep_ms(PHASE_MS);
	for (size_t off = 0; off < len; off += 4096)
		m[off] = 1;
	sleep_ms(PHASE_MS);
	munmap((void *)m, len);
	sleep_ms(PHASE_MS);
	return 0;
}

NTKL_READER_FIXTURE(meminfo);

static void start_logger(struct __test_metadata *_metadata, int ctl, int reader,
			 const char *name, bool meminfo_ws, struct drain_job *job, pthread_t *th)
{
	struct ntkl_properties p;

	props_init(&p, name, EVENT_TRACE_FLAG_PROCESS);
	if (meminfo_ws)
		p.group_masks[PERF_GET_MASK_INDEX(PERF_MEMINFO_WS)] |=
			PERF_GET_MASK_GROUP(PERF_MEMINFO_WS);
	p.buffer_size_kb = 256;
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

static int64_t delta(const struct snap *s, const struct snap *base, enum etw_process_meminfo_count c)
{
	return (int64_t)(s->count[c] - base->count[c]);
}

TEST_F(meminfo, known_answer)
{
	static struct mi_view v;
	const struct snap *base, *last;
	unsigned int i, mapped = 0, touched = 0, missing = 0, short_gap = 0, long_gap = 0;
	int64_t max_commit = 0, max_private = 0;
	uint64_t peak_ws = 0;
	struct drain_job job;
	pthread_t th;

	memset(&v, 0, sizeof(v));
	v.pid = getpid();
	start_logger(_metadata, self->ctl, self->reader, "selftest meminfo", true, &job, &th);
	ASSERT_EQ(0, run_steps());
	stop_logger(_metadata, self->ctl, "selftest meminfo", &job, th);
	capture_write(&job.c, "/out/ntkl_meminfo_test.etl");

	ASSERT_EQ(0, capture_walk(&job.c, view_record, &v, &v.verdict));
	ASSERT_NE(0, v.freq);
	view_snapshots(&v);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("checker: %s", v.verdict.first_violation);
	EXPECT_EQ(0, v.bad_header);
	EXPECT_EQ(0, v.bad_size);
	EXPECT_EQ(0, v.bad_count);
	ASSERT_LE(6, v.n) TH_LOG("%u snapshots in %u records", v.n, v.nrec);

	base = &v.s[0];
	last = &v.s[v.n - 1];
	for (i = 0; i < v.n; i++) {
		const struct snap *s = &v.s[i];
		int64_t commit = delta(s, base, ETW_PMI_COMMIT);
		int64_t vsize = delta(s, base, ETW_PMI_VIRTUAL_SIZE);
		int64_t priv = delta(s, base, ETW_PMI_PRIVATE_WORKING_SET);
		int64_t ws = delta(s, base, ETW_PMI_WORKING_SET);

		TH_LOG("snapshot %u at +%.2f s: seen %u, WS %+lld, commit %+lld, virtual %+lld, private WS %+lld, shared %llu",
		       i, (double)(s->time - base->time) / v.freq, s->seen, (long long)ws,
		       (long long)commit, (long long)vsize, (long long)priv,
		       (unsigned long long)s->count[ETW_PMI_SHARED_COMMIT]);
		missing += s->seen != 1;
		if (i) {
			int64_t gap = s->time - v.s[i - 1].time;

			short_gap += gap < (int64_t)v.freq * 45 / 100;
			long_gap += gap > (int64_t)v.freq * 3 / 2;
		}
		mapped += commit >= MAP_PAGES && vsize >= MAP_PAGES && priv < SLACK_PAGES &&
			  ws < SLACK_PAGES;
		touched += commit >= MAP_PAGES && priv >= MAP_PAGES - SLACK_PAGES &&
			   ws >= MAP_PAGES - SLACK_PAGES;
		if (commit > max_commit)
			max_commit = commit;
		if (priv > max_private)
			max_private = priv;
		/* Windows' store and commit debt have no Linux count: 0 */
		EXPECT_EQ(0, s->count[ETW_PMI_STORE_SIZE]);
		EXPECT_EQ(0, s->count[ETW_PMI_STORED]);
		EXPECT_EQ(0, s->count[ETW_PMI_COMMIT_DEBT]);
		EXPECT_LE(s->count[ETW_PMI_PRIVATE_WORKING_SET], s->count[ETW_PMI_WORKING_SET]);
		EXPECT_LE(s->count[ETW_PMI_COMMIT], s->count[ETW_PMI_VIRTUAL_SIZE]);
	}
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, short_gap);
	EXPECT_EQ(0, long_gap);
	EXPECT_LE(1, mapped);
	EXPECT_LE(1, touched);
	/* the mapping and nothing much else */
	EXPECT_GE(MAP_PAGES + SLACK_PAGES, max_commit);
	EXPECT_GE(MAP_PAGES + SLACK_PAGES, max_private);
	EXPECT_GT(SLACK_PAGES, delta(last, base, ETW_PMI_COMMIT));
	EXPECT_GT(SLACK_PAGES, delta(last, base, ETW_PMI_PRIVATE_WORKING_SET));
	/* ntkl report's working sets: this process's peak is its largest snapshot's */
	for (i = 0; i < v.n; i++)
		if (v.s[i].count[ETW_PMI_WORKING_SET] > peak_ws)
			peak_ws = v.s[i].count[ETW_PMI_WORKING_SET];
	EXPECT_EQ(0, sh(NULL, 0, "ntkl report --top 1000 /out/ntkl_meminfo_test.etl | "
			"sed -n '/^Working sets per process/,/^$/p' | grep -E '^ +%d +[0-9]+ +%.1f '",
			getpid(), (double)peak_ws / 256)) {
		char out[4096];

		sh(out, sizeof(out), "ntkl report /out/ntkl_meminfo_test.etl | grep -A5 '^Working sets'");
		TH_LOG("no row of peak %.1f MiB for %d: %s", (double)peak_ws / 256, getpid(), out);
	}
	capture_free(&job.c);
}

/* A logger without MEMINFO_WS, beside one with it, gets no ProcessMemInfo. */
TEST_F(meminfo, only_meminfo_loggers)
{
	struct drain_job job, other;
	pthread_t th, th2;
	int reader2;

	reader2 = ntkl_open();
	ASSERT_GE(reader2, 0);
	start_logger(_metadata, self->ctl, self->reader, "selftest meminfo", true, &job, &th);
	start_logger(_metadata, self->ctl, reader2, "selftest no meminfo", false, &other, &th2);
	sleep_ms(PHASE_MS);
	stop_logger(_metadata, self->ctl, "selftest no meminfo", &other, th2);
	stop_logger(_metadata, self->ctl, "selftest meminfo", &job, th);
	EXPECT_LE(2, capture_count_hook(&job.c, ETW_EVENT_PROCESS_MEMINFO_HOOK));
	EXPECT_EQ(0, capture_count_hook(&other.c, ETW_EVENT_PROCESS_MEMINFO_HOOK));
	close(reader2);
	capture_free(&other.c);
	capture_free(&job.c);
}

TEST_HARNESS_MAIN
