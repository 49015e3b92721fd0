// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_disk_test: DiskIo (0x010A-0x010F) are the block layer's requests,
 * one for one. On the VM's scratch disk (/scratch, $NTKL_SCRATCH) a
 * workload of known size runs while an ntkl logger with
 * DISK_IO+DISK_IO_INIT records on the QPC clock (CLOCK_MONOTONIC in 100 ns
 * units) and trace-cmd records block:block_rq_issue and
 * block:block_rq_complete on the mono clock:
 *
 *   - O_DIRECT: a thread of its own writes then reads N MiB of a file
 *     already on disk; the Read and Write records inside the file's
 *     extents (FIEMAP) add up to exactly 2 N MiB, and name that thread
 *     as IssuingThreadId;
 *   - buffered: M MiB written and fsync'ed, the caches dropped, read
 *     again: M MiB of Write and of Read records inside that file's
 *     extents;
 *
 * and over the window the logger surely ran (after START returned,
 * before STOP), on the scratch disk: ReadInit and WriteInit as many as
 * trace-cmd's reads and writes issued, Read and Write as many as its
 * first completions (those of a request's bytes: the flush machinery
 * completes a request once more, with none), FlushInit and FlushBuffers
 * as many as its flush requests issued and completed. In the ntkl file
 * alone: every completion paired with exactly one Init of its Irp before
 * it, every Init of the window with its completion; HighResResponseTime
 * above 0 and below the trace's length; DiskNumber the scratch disk's
 * diskseq. A file `ntkl record` writes has a SystemConfig PhyDisk record
 * for the DiskNumber its DiskIo records name.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest disk"
#define TC_DAT		"/tmp/ntkl_disk_tc.dat"
#define TC_LOG		"/tmp/ntkl_disk_tc.log"
#define ETL_PATH	"/tmp/ntkl_disk.etl"
#define SAVE_DIR	"/out/ntkl_disk_test"
#define TRACEFS		"/sys/kernel/tracing"
#define MIB		(1024 * 1024)
#define DIRECT_MIB	8		/* N: written, then read, with O_DIRECT */
#define BUFFERED_MIB	6		/* M: written and fsync'ed, then read */
#define MAX_EXTENTS	64

/* ---- the scratch disk ---- */

struct disk {
	unsigned int major, minor;	/* the whole disk's */
	uint32_t diskseq;
	uint64_t part_start;		/* the file system's first byte on the disk */
};

static uint64_t read_u64(const char *path)
{
	char line[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strtoull(line, NULL, 10);
}

/* The disk under path (its partition's parent, if it is one). */
static int find_disk(const char *path, struct disk *d)
{
	char sys[256], dev[64] = "";
	struct stat st;
	FILE *f;

	if (stat(path, &st))
		return -1;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/partition", major(st.st_dev),
		 minor(st.st_dev));
	d->part_start = 0;
	if (access(sys, F_OK) == 0) {
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/start", major(st.st_dev),
			 minor(st.st_dev));
		d->part_start = read_u64(sys) * 512;
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/../", major(st.st_dev),
			 minor(st.st_dev));
	} else {
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/", major(st.st_dev),
			 minor(st.st_dev));
	}
	{
		char p[300];

		snprintf(p, sizeof(p), "%sdiskseq", sys);
		d->diskseq = (uint32_t)read_u64(p);
		snprintf(p, sizeof(p), "%sdev", sys);
		f = fopen(p, "r");
		if (!f)
			return -1;
		if (!fgets(dev, sizeof(dev), f))
			dev[0] = 0;
		fclose(f);
	}
	return sscanf(dev, "%u:%u", &d->major, &d->minor) == 2 ? 0 : -1;
}

/* A file's extents on the disk, in bytes. */
struct extents {
	uint64_t start[MAX_EXTENTS], len[MAX_EXTENTS];
	unsigned int n;
};

static int file_extents(int fd, uint64_t part_start, struct extents *x)
{
	static char buf[sizeof(struct fiemap) + MAX_EXTENTS * sizeof(struct fiemap_extent)];
	struct fiemap *fm = (void *)buf;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	fm->fm_length = ~0ULL;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		return -1;
	x->n = fm->fm_mapped_extents;
	for (i = 0; i < x->n; i++) {
		x->start[i] = part_start + fm->fm_extents[i].fe_physical;
		x->len[i] = fm->fm_extents[i].fe_length;
	}
	return 0;
}

/* Bytes of [off, off + len) inside the extents. */
static uint64_t inside(const struct extents *x, uint64_t off, uint64_t len)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		uint64_t a = off > x->start[i] ? off : x->start[i];
		uint64_t b = off + len < x->start[i] + x->len[i] ? off + len :
								   x->start[i] + x->len[i];

		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* ---- the ntkl capture ---- */

enum op { OP_READ, OP_WRITE, OP_FLUSH, OPS };
static const char *const op_name[OPS] = { "read", "write", "flush" };

struct dio {
	int64_t t;			/* ns, CLOCK_MONOTONIC */
	uint64_t irp, offset, elapsed;
	uint32_t disk, size, tid;
	enum op op;
	bool init;
};

struct disk_view {
	struct dio *v;
	size_t n, cap;
	unsigned long bad_size, bad_header;
	int64_t first, last;		/* any record's time, ns */
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct disk_view *v = ctx;
	struct dio x = { 0 };
	uint16_t hook;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	x.t = r->timestamp * 100;
	if (!v->first || x.t < v->first)
		v->first = x.t;
	if (x.t > v->last)
		v->last = x.t;
	hook = r->hook_id;
	if (hook == ETW_EVENT_DISKIO_READ_HOOK || hook == ETW_EVENT_DISKIO_WRITE_HOOK) {
		const struct etw_diskio_rw *p = (const void *)r->payload;

		if (r->payload_len != ETW_DISKIO_RW_SIZE) {
			v->bad_size++;
			return;
		}
		x.op = hook == ETW_EVENT_DISKIO_READ_HOOK ? OP_READ : OP_WRITE;
		x.irp = p->irp;
		x.disk = p->disk_number;
		x.size = p->transfer_size;
		x.offset = p->byte_offset;
		x.elapsed = p->high_res_response_time;
		x.tid = p->issuing_thread_id;
		v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64;
	} else if (hook == ETW_EVENT_DISKIO_FLUSH_BUFFERS_HOOK) {
		const struct etw_diskio_flush *p = (const void *)r->payload;

		if (r->payload_len != ETW_DISKIO_FLUSH_SIZE) {
			v->bad_size++;
			return;
		}
		x.op = OP_FLUSH;
		x.irp = p->irp;
		x.disk = p->disk_number;
		x.elapsed = p->high_res_response_time;
		x.tid = p->issuing_thread_id;
		v->bad_header += r->header_type != ETW_HEADER_TYPE_PERFINFO64;
	} else if (hook == ETW_EVENT_DISKIO_READ_INIT_HOOK ||
		   hook == ETW_EVENT_DISKIO_WRITE_INIT_HOOK ||
		   hook == ETW_EVENT_DISKIO_FLUSH_INIT_HOOK) {
		const struct etw_diskio_init *p = (const void *)r->payload;

		if (r->payload_len != ETW_DISKIO_INIT_SIZE) {
			v->bad_size++;
			return;
		}
		x.init = true;
		x.op = hook == ETW_EVENT_DISKIO_READ_INIT_HOOK ? OP_READ :
		       hook == ETW_EVENT_DISKIO_WRITE_INIT_HOOK ? OP_WRITE : OP_FLUSH;
		x.irp = p->irp;
		x.tid = p->issuing_thread_id;
		v->bad_header += r->header_type != ETW_HEADER_TYPE_SYSTEM64;
	} else {
		return;
	}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		struct dio *n = realloc(v->v, cap * sizeof(*n));

		if (!n)
			return;
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

static int cmp_time(const void *a, const void *b)
{
	const struct dio *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* an Init before a completion of the same time */
	return (int)y->init - (int)x->init;
}

/*
 * Pair each completion with the Inits of its Irp since the last one:
 * exactly one, before it. Fills each Init's disk from its completion.
 * Returns the violations; first says the first.
 */
static size_t pair(struct disk_view *v, int64_t b, char *first, size_t len,
		   size_t *unfinished)
{
	size_t i, j, bad = 0;

	*unfinished = 0;
	for (i = 0; i < v->n; i++) {
		struct dio *c = &v->v[i];
		size_t inits = 0, last = 0;

		if (c->init)
			continue;
		for (j = i; j-- > 0;) {
			if (v->v[j].irp != c->irp)
				continue;
			if (!v->v[j].init)
				break;
			inits++;
			last = j;
		}
		if (inits != 1 || v->v[last].op != c->op || v->v[last].tid != c->tid) {
			if (!bad++)
				snprintf(first, len, "%s completion of Irp %#llx at %lld: %zu Inits",
					 op_name[c->op], (unsigned long long)c->irp,
					 (long long)c->t, inits);
			continue;
		}
		v->v[last].disk = c->disk;
		v->v[last].size = 1;		/* completed */
	}
	for (i = 0; i < v->n; i++)
		if (v->v[i].init && !v->v[i].size && v->v[i].t < b)
			(*unfinished)++;
	return bad;
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

static bool trace_cmd_ready(pid_t pid, unsigned int timeout_s)
{
	unsigned int waited_ms;

	for (waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 20) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		if (trace_cmd_recording(pid, "block/block_rq_complete") &&
		    file_has(TRACEFS "/trace_clock", "[mono]"))
			return true;
		usleep(20000);
	}
	return false;
}

/* trace-cmd's counts in [a, b] on one disk: issued, completed with bytes. */
struct tc_counts {
	size_t issued[OPS], completed[OPS];
	unsigned long lost;
};

/* A request's operation from its rwbs: R, W, or a flush (F alone, or FF). */
static int rwbs_op(const char *rwbs)
{
	if (strchr(rwbs, 'R'))
		return OP_READ;
	if (strchr(rwbs, 'W'))
		return OP_WRITE;
	if (rwbs[0] == 'F' && !strpbrk(rwbs, "DNE"))
		return OP_FLUSH;
	return -1;
}

/*
 * The events as trace-cmd prints them: "MAJ,MIN RWBS ..." then, after
 * " + ", the request's sectors (the completion's: those it completed).
 */
static int read_trace_cmd(const struct disk *d, int64_t a, int64_t b, struct tc_counts *tc,
			  char *why, size_t len)
{
	char line[1024], frac[16], ev[64], rwbs[16];
	unsigned long long sec;
	unsigned int cpu, maj, min, nsec;
	FILE *f = popen("trace-cmd report -t -i " TC_DAT " 2>&1", "r");

	memset(tc, 0, sizeof(*tc));
	if (!f) {
		snprintf(why, len, "cannot run trace-cmd report");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "] "), *plus;
		int64_t t;
		int op;

		if (strstr(line, "LOST"))
			tc->lost++;
		for (p = p ? p : line; p > line && *p != '['; p--)
			;
		if (*p != '[' || sscanf(p, "[%u] %llu.%15[0-9]: %63[a-z_]:", &cpu, &sec, frac,
					ev) != 4 || strlen(frac) != 9)
			continue;
		t = (int64_t)sec * 1000000000 + strtoll(frac, NULL, 10);
		if (t < a || t > b)
			continue;
		p = strstr(p, ev) + strlen(ev) + 1;
		if (sscanf(p, " %u,%u %15s", &maj, &min, rwbs) != 3 || maj != d->major ||
		    min != d->minor)
			continue;
		op = rwbs_op(rwbs);
		plus = strstr(p, " + ");
		if (op < 0 || !plus)
			continue;
		nsec = (unsigned int)strtoul(plus + 3, NULL, 10);
		if (!strcmp(ev, "block_rq_issue"))
			tc->issued[op]++;
		else if (!strcmp(ev, "block_rq_complete") && (nsec || op == OP_FLUSH))
			tc->completed[op]++;
	}
	if (pclose(f)) {
		snprintf(why, len, "trace-cmd report failed");
		return -1;
	}
	return 0;
}

/* ---- the workload ---- */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
}

struct direct_job {
	const char *path;
	uint32_t tid;
	int ret;
};

/* N MiB overwritten, then read, with O_DIRECT, 1 MiB a call, in a thread of its own. */
static void *direct_io(void *arg)
{
	struct direct_job *job = arg;
	void *buf = NULL;
	int fd, i;

	job->tid = (uint32_t)syscall(SYS_gettid);
	job->ret = -1;
	if (posix_memalign(&buf, 4096, MIB))
		return NULL;
	memset(buf, 0x5a, MIB);
	fd = open(job->path, O_RDWR | O_DIRECT);
	if (fd < 0)
		goto out;
	for (i = 0; i < DIRECT_MIB; i++)
		if (pwrite(fd, buf, MIB, (off_t)i * MIB) != MIB)
			goto out_close;
	for (i = 0; i < DIRECT_MIB; i++)
		if (pread(fd, buf, MIB, (off_t)i * MIB) != MIB)
			goto out_close;
	job->ret = 0;
out_close:
	close(fd);
out:
	free(buf);
	return NULL;
}

/* A file of mib MiB, written and fsync'ed; its descriptor. */
static int make_file(const char *path, int mib)
{
	static char buf[MIB];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int i;

	if (fd < 0)
		return -1;
	memset(buf, 0xa5, sizeof(buf));
	for (i = 0; i < mib; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			close(fd);
			return -1;
		}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int read_all(const char *path)
{
	static char buf[MIB];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

static void save_artifacts(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s %s %s %s/ 2>/dev/null", SAVE_DIR,
		 TC_DAT, TC_LOG, ETL_PATH, SAVE_DIR);
	if (system(cmd))
		fprintf(stderr, "# could not save the artifacts under %s\n", SAVE_DIR);
}

NTKL_READER_FIXTURE(disk);

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

#define DISK_FLAGS	(EVENT_TRACE_FLAG_DISK_IO | EVENT_TRACE_FLAG_DISK_IO_INIT)

TEST_F_TIMEOUT(disk, same_as_trace_cmd, 600)
{
	char *const tc_argv[] = {
		"trace-cmd", "record", "-C", "mono", "-o", TC_DAT,
		"-e", "block:block_rq_issue", "-e", "block:block_rq_complete", NULL
	};
	const char *scratch = getenv("NTKL_SCRATCH");
	char direct_path[256], buffered_path[256], why[512] = "";
	struct direct_job dj = { 0 };
	static struct disk_view v;
	size_t i, bad, unfinished, n[2][OPS] = { { 0 } };
	uint64_t direct_bytes = 0, bufw_bytes = 0, bufr_bytes = 0;
	size_t direct_tid_bad = 0, elapsed_bad = 0, other_disk = 0;
	struct extents dx, bx;
	struct tc_counts tc;
	struct drain_job job;
	struct disk d;
	int64_t a, b;
	pthread_t th, dt;
	pid_t tcpid;
	int status, fd, k;

	if (!scratch)
		SKIP(return, "no disk file system here ($NTKL_SCRATCH unset)");
	if (system("command -v trace-cmd >/dev/null 2>&1"))
		SKIP(return, "trace-cmd is not on $PATH");
	ASSERT_EQ(0, find_disk(scratch, &d));
	TH_LOG("scratch disk %u:%u, diskseq %u", d.major, d.minor, d.diskseq);
	ASSERT_NE(0, d.diskseq);

	/* the O_DIRECT file, on disk before the logger starts: no allocation in it */
	snprintf(direct_path, sizeof(direct_path), "%s/ntkl_disk_direct", scratch);
	snprintf(buffered_path, sizeof(buffered_path), "%s/ntkl_disk_buffered", scratch);
	unlink(buffered_path);
	fd = make_file(direct_path, DIRECT_MIB);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, file_extents(fd, d.part_start, &dx));
	close(fd);
	drop_caches();

	unlink(TC_DAT);
	tcpid = spawn(tc_argv, TC_LOG);
	ASSERT_GT(tcpid, 0);
	ASSERT_TRUE(trace_cmd_ready(tcpid, 120)) TH_LOG("trace-cmd record not ready, see %s",
							 TC_LOG);
	start_logger(_metadata, self->ctl, self->reader, DISK_FLAGS, &job, &th);
	a = mono_ns();
	/* O_DIRECT: a thread of its own */
	dj.path = direct_path;
	ASSERT_EQ(0, pthread_create(&dt, NULL, direct_io, &dj));
	ASSERT_EQ(0, pthread_join(dt, NULL));
	ASSERT_EQ(0, dj.ret);
	/* buffered: written, fsync'ed, dropped, read again */
	fd = make_file(buffered_path, BUFFERED_MIB);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, file_extents(fd, d.part_start, &bx));
	close(fd);
	drop_caches();
	ASSERT_EQ(0, read_all(buffered_path));
	sync();
	usleep(200000);
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
	EXPECT_EQ(0, v.bad_header);
	qsort(v.v, v.n, sizeof(*v.v), cmp_time);

	bad = pair(&v, b, why, sizeof(why), &unfinished);
	EXPECT_EQ(0, bad) TH_LOG("%zu unpaired completions, first: %s", bad, why);
	EXPECT_EQ(0, unfinished) TH_LOG("Inits in the window without their completion");

	for (i = 0; i < v.n; i++) {
		const struct dio *x = &v.v[i];

		if (x->init) {
			if (x->t >= a && x->t <= b && x->disk == d.diskseq)
				n[0][x->op]++;
			continue;
		}
		if (x->elapsed == 0 || (int64_t)x->elapsed * 100 > v.last - v.first)
			elapsed_bad++;
		if (x->disk != d.diskseq) {
			other_disk++;
			continue;
		}
		if (x->t >= a && x->t <= b)
			n[1][x->op]++;
		if (x->op == OP_FLUSH)
			continue;
		/* each file's blocks: only its own I/O touches them */
		if (inside(&dx, x->offset, x->size)) {
			direct_bytes += inside(&dx, x->offset, x->size);
			direct_tid_bad += x->tid != dj.tid;
		}
		if (x->op == OP_WRITE)
			bufw_bytes += inside(&bx, x->offset, x->size);
		else
			bufr_bytes += inside(&bx, x->offset, x->size);
	}
	TH_LOG("O_DIRECT: %llu bytes in the file's extents (%d MiB written and read), thread %u",
	       (unsigned long long)direct_bytes, DIRECT_MIB, dj.tid);
	EXPECT_EQ((uint64_t)2 * DIRECT_MIB * MIB, direct_bytes);
	EXPECT_EQ(0, direct_tid_bad) TH_LOG("O_DIRECT records of another IssuingThreadId");
	TH_LOG("buffered: %llu bytes written, %llu read in the file's extents (%d MiB)",
	       (unsigned long long)bufw_bytes, (unsigned long long)bufr_bytes, BUFFERED_MIB);
	EXPECT_EQ((uint64_t)BUFFERED_MIB * MIB, bufw_bytes);
	EXPECT_EQ((uint64_t)BUFFERED_MIB * MIB, bufr_bytes);
	EXPECT_EQ(0, elapsed_bad) TH_LOG("HighResResponseTime 0 or past the trace's length");
	TH_LOG("%zu completions on other disks", other_disk);

	ASSERT_EQ(0, read_trace_cmd(&d, a, b, &tc, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, tc.lost) TH_LOG("trace-cmd lost events: no comparison");
	for (k = 0; k < OPS; k++) {
		TH_LOG("%s: ntkl %zu issued, %zu completed; trace-cmd %zu, %zu", op_name[k],
		       n[0][k], n[1][k], tc.issued[k], tc.completed[k]);
		EXPECT_EQ(tc.issued[k], n[0][k]) TH_LOG("%s: issues differ", op_name[k]);
		EXPECT_EQ(tc.completed[k], n[1][k]) TH_LOG("%s: completions differ", op_name[k]);
	}
	EXPECT_LT(0, n[0][OP_READ]);
	EXPECT_LT(0, n[0][OP_WRITE]);

	if (!_metadata->passed)
		save_artifacts();
	unlink(direct_path);
	unlink(buffered_path);
	free(v.v);
}

/* DISK_IO alone: completions, no Init; DISK_IO_INIT alone: Inits, no completion. */
TEST_F(disk, each_flag_its_events)
{
	const char *scratch = getenv("NTKL_SCRATCH");
	struct drain_job job;
	char path[256];
	pthread_t th;
	int fd, pass;

	if (!scratch)
		SKIP(return, "no disk file system here ($NTKL_SCRATCH unset)");
	snprintf(path, sizeof(path), "%s/ntkl_disk_flags", scratch);
	for (pass = 0; pass < 2; pass++) {
		/* a reader binds one logger in its life: a new one for the second */
		int reader = pass ? ntkl_open() : self->reader;

		ASSERT_GE(reader, 0);
		start_logger(_metadata, self->ctl, reader,
			     pass ? EVENT_TRACE_FLAG_DISK_IO_INIT : EVENT_TRACE_FLAG_DISK_IO, &job,
			     &th);
		fd = make_file(path, 2);
		ASSERT_GE(fd, 0);
		close(fd);
		drop_caches();
		ASSERT_EQ(0, read_all(path));
		stop_logger(_metadata, self->ctl, &job, th);
		if (pass) {
			EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_WRITE_INIT_HOOK));
			EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_READ_INIT_HOOK));
			EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_WRITE_HOOK));
			EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_READ_HOOK));
		} else {
			EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_WRITE_HOOK));
			EXPECT_LT(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_READ_HOOK));
			EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_WRITE_INIT_HOOK));
			EXPECT_EQ(0, capture_count_hook(&job.c, ETW_EVENT_DISKIO_READ_INIT_HOOK));
		}
		capture_free(&job.c);
		if (pass)
			close(reader);
	}
	unlink(path);
}

/* A file `ntkl record` writes: a PhyDisk record for each DiskNumber of its DiskIo. */
TEST(phydisk_of_every_disk_number)
{
	const char *scratch = getenv("NTKL_SCRATCH");
	char out[4096], all[4096], cmd[1024];
	unsigned int n;
	char *p, *save = NULL;

	if (!scratch)
		SKIP(return, "no disk file system here ($NTKL_SCRATCH unset)");
	if (system("command -v ntkl >/dev/null 2>&1"))
		SKIP(return, "ntkl is not on $PATH");
	snprintf(cmd, sizeof(cmd),
		 "ntkl record -on DISK_IO+DISK_IO_INIT -o /tmp/ntkl_disk_pd.etl -- "
		 "sh -c 'dd if=/dev/zero of=%s/ntkl_disk_pd bs=1M count=2 oflag=direct "
		 "2>/dev/null; sync'", scratch);
	ASSERT_EQ(0, sh(out, sizeof(out), "%s", cmd)) TH_LOG("%s", out);
	/* the DiskNumbers of the DiskIo records, then those of the PhyDisk records */
	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl dump --events /tmp/ntkl_disk_pd.etl | "
			"sed -n 's/^ *DiskIo: DiskNumber=\\([0-9]*\\).*/io \\1/p; "
			"s/^ *PhyDisk: DiskNumber=\\([0-9]*\\).*/pd \\1/p' | sort -u"));
	TH_LOG("%s", out);
	memcpy(all, out, sizeof(all));
	n = 0;
	for (p = strtok_r(out, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char want[64];

		if (strncmp(p, "io ", 3))
			continue;
		n++;
		snprintf(want, sizeof(want), "pd %s\n", p + 3);
		EXPECT_NE(NULL, strstr(all, want)) TH_LOG("DiskNumber %s has no PhyDisk record",
							   p + 3);
	}
	EXPECT_LT(0, n) TH_LOG("no DiskIo record");
	unlink("/tmp/ntkl_disk_pd.etl");
}

TEST_HARNESS_MAIN
