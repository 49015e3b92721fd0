// SPDX-License-Identifier: GPL-2.0
/*
 * The ETL writer: a synthetic logger built from the uapi structs (a
 * header buffer with the Header and HeaderExtension events, data buffers
 * of Thread DCStart records) is fed through a SOCK_SEQPACKET socket, which
 * like /dev/ntkl returns one whole buffer per read() and 0 at the end.
 * The file must then read back through the ETL reader (etl_open()) with the patched
 * header fields, and pass the strict checks of `ntkl dump --check`.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "etl/etl_check.h"
#include "analysis/etl_dump.h"
#include "etl/etl_reader.h"
#include "etl/etl_events.h"
#include "ctl/ntkl_time_zone.h"
#include "ctl/ntkl_writer.h"

#define BUF_SIZE	4096
#define START_CLOCK	1000000
#define PERF_FREQ	10000000

/* Append a SYSTEM64 record with payload_len bytes at *pos; its payload. */
static uint8_t *put_record(uint8_t *buf, uint32_t *pos, uint16_t hook,
			   uint16_t version, uint32_t payload_len, int64_t time)
{
	struct system_trace_header h = {
		.marker = ETW_MARKER_SYSTEM64(version),
		.size = (uint16_t)(sizeof(h) + payload_len),
		.hook_id = hook,
		.thread_id = 1,
		.process_id = 1,
		.system_time = time,
	};
	uint8_t *payload = buf + *pos + sizeof(h);

	memcpy(buf + *pos, &h, sizeof(h));
	memset(payload, 0, payload_len);
	*pos += (sizeof(h) + payload_len + ETW_RECORD_ALIGN - 1) & ~(ETW_RECORD_ALIGN - 1);
	return payload;
}

static void finish_buffer(uint8_t *buf, uint32_t filled, int64_t seq,
			  uint16_t type, uint16_t flag, uint16_t cpu)
{
	struct wmi_buffer_header bh = {
		.buffer_size = BUF_SIZE,
		.saved_offset = filled,
		.current_offset = filled,
		.sequence_number = seq,
		.processor_index = cpu,
		.logger_id = 1,
		.state = ETW_BUFFER_STATE_FLUSH,
		.offset = filled,
		.buffer_flag = flag,
		.buffer_type = type,
	};

	memcpy(buf, &bh, sizeof(bh));
	memset(buf + filled, ETW_BUFFER_FILL_BYTE, BUF_SIZE - filled);
}

/* Buffer 0 as the module builds it: BuffersWritten and EndTime still 0. */
static void build_header_buffer(uint8_t *buf)
{
	struct trace_logfile_header t = {
		.buffer_size = BUF_SIZE,
		.version = ETW_LOGFILE_VERSION,
		.provider_version = ETW_NTKL_PROVIDER_VERSION,
		.number_of_processors = 2,
		.timer_resolution = ETW_TIMER_RESOLUTION_DEFAULT,
		.log_file_mode = EVENT_TRACE_FILE_MODE_SEQUENTIAL |
				 EVENT_TRACE_SYSTEM_LOGGER_MODE,
		.start_buffers = 1,
		.pointer_size = 8,
		.perf_freq = PERF_FREQ,
		.start_time = ETW_FILETIME_UNIX_EPOCH,
		.reserved_flags = EVENT_TRACE_CLOCK_PERFCOUNTER,
	};
	/* logger name "t", then an empty log file name: UTF-16LE */
	static const uint8_t names[] = { 't', 0, 0, 0, 0, 0 };
	struct etw_header_extension ext = { .kernel_event_version = 70 };
	uint32_t pos = ETL_BUFFER_HEADER_SIZE;
	uint8_t *p;

	p = put_record(buf, &pos, ETW_EVENT_HEADER_HOOK, etw_events[ETW_EVENT_HEADER].version,
		       sizeof(t) + sizeof(names), START_CLOCK);
	memcpy(p, &t, sizeof(t));
	memcpy(p + sizeof(t), names, sizeof(names));
	ext.group_masks.masks[0] = PERF_PROCESS | PERF_THREAD;
	p = put_record(buf, &pos, ETW_EVENT_HEADER_EXTENSION_HOOK, etw_events[ETW_EVENT_HEADER].version,
		       sizeof(ext), START_CLOCK);
	memcpy(p, &ext, sizeof(ext));
	finish_buffer(buf, pos, 0, ETW_BUFFER_TYPE_HEADER,
		      ETW_BUFFER_FLAG_FLUSH_MARKER | ETW_BUFFER_FLAG_PROC_INDEX, 0);
}

/* A data buffer of n Thread DCStart records (empty thread names). */
static void build_data_buffer(uint8_t *buf, int64_t seq, int n, uint16_t cpu)
{
	uint32_t pos = ETL_BUFFER_HEADER_SIZE;

	for (int i = 0; i < n; i++) {
		struct etw_thread_v3 th = { .process_id = 1, .thread_id = (uint32_t)(i + 1) };
		uint8_t *p = put_record(buf, &pos, ETW_EVENT_THREAD_DC_START_HOOK,
					etw_events[ETW_EVENT_THREAD_START].version, sizeof(th) + 2,
					START_CLOCK + seq * 1000 + i);

		memcpy(p, &th, sizeof(th));
	}
	finish_buffer(buf, pos, seq, ETW_BUFFER_TYPE_GENERIC, ETW_BUFFER_FLAG_PROC_INDEX, cpu);
}

/* The synthetic logger: the header buffer, then buffers with 3 and 5 records. */
#define NBUFS		3
#define NRECORDS	8

static uint8_t bufs[NBUFS][BUF_SIZE];

static void build_logger(void)
{
	build_header_buffer(bufs[0]);
	build_data_buffer(bufs[1], 1, 3, 0);
	build_data_buffer(bufs[2], 2, 5, 1);
}

/* A "device": the read end of a socket holding n buffers, then EOF. */
static int fake_device(int n, size_t size)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (send(sv[0], bufs[i], size, 0) != (ssize_t)size)
			test_fail("send: %s", strerror(errno));
	close(sv[0]);
	return sv[1];
}

static int temp_file(char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");

	snprintf(path, size, "%s/ntkl-test-writer-XXXXXX", dir && *dir ? dir : "/tmp");
	return mkstemp(path);
}

static void ignore_violation(void *ctx, const char *msg)
{
	char *first = ctx;

	if (!first[0])
		snprintf(first, 512, "%s", msg);
}

static void test_patch_mem(void)
{
	struct etl_header_patch patch = {
		.end_time = 0x01D0000012345678LL,
		.buffers_written = 3,
		.events_lost = 7,
		.buffers_lost = 2,
	};
	struct trace_logfile_header h;
	uint8_t *copy;
	char err[256];

	test_begin("patch_mem_fields");
	build_logger();
	copy = test_copy(bufs[0], BUF_SIZE);
	CHECK_EQ(etl_header_patch_mem(copy, BUF_SIZE, &patch, err, sizeof(err)), 0);
	memcpy(&h, copy + ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header),
	       sizeof(h));
	CHECK_EQ(h.end_time, patch.end_time);
	CHECK_EQ(h.buffers_written, 3);
	CHECK_EQ(h.events_lost, 7);
	CHECK_EQ(h.buffers_lost, 2);
	/* everything else as it was */
	CHECK_EQ(h.perf_freq, PERF_FREQ);
	CHECK_EQ(h.start_time, ETW_FILETIME_UNIX_EPOCH);
	CHECK_EQ(h.pointer_size, 8);
	CHECK_EQ(h.log_file_mode, EVENT_TRACE_FILE_MODE_SEQUENTIAL |
				  EVENT_TRACE_SYSTEM_LOGGER_MODE);
	CHECK(!memcmp(copy + 0x1A8, bufs[0] + 0x1A8, BUF_SIZE - 0x1A8));
	CHECK(!memcmp(copy, bufs[0], 0x68 + offsetof(struct trace_logfile_header, end_time)));
	free(copy);
	test_end();

	test_begin("patch_mem_refuses_other_data");
	copy = test_copy(bufs[1], BUF_SIZE);	/* a data buffer: no Header event */
	CHECK_EQ(etl_header_patch_mem(copy, BUF_SIZE, &patch, err, sizeof(err)),
		 (unsigned long long)-1);
	CHECK_HAS(err, "does not start with the Header event");
	CHECK(!memcmp(copy, bufs[1], BUF_SIZE));
	free(copy);
	copy = test_copy(bufs[0], 0x100);
	CHECK_EQ(etl_header_patch_mem(copy, 0x100, &patch, err, sizeof(err)),
		 (unsigned long long)-1);
	CHECK_HAS(err, "too short");
	free(copy);
	test_end();

	test_begin("patch_clamps_counters");
	{
		struct ntkl_writer w = { .buffers = 5 };
		struct ntkl_properties final = {
			.events_lost = 1ULL << 40,
			.log_buffers_lost = 3,
		};
		int64_t before = etl_filetime_now();

		ntkl_writer_patch_from(&w, &final, &patch);
		CHECK_EQ(patch.buffers_written, 5);
		CHECK_EQ(patch.events_lost, UINT32_MAX);
		CHECK_EQ(patch.buffers_lost, 3);
		CHECK(patch.end_time >= before);
		CHECK(patch.end_time - before < 10 * ETW_FILETIME_PER_SECOND);
		/* FILETIME: 100 ns since 1601, so now is after 2020 */
		CHECK(patch.end_time > 132223104000000000LL);
		ntkl_writer_patch_from(&w, NULL, &patch);
		CHECK_EQ(patch.events_lost, 0);
	}
	test_end();
}

/* Write the synthetic logger to a file; returns the fd (path set) or -1. */
static int write_file(struct ntkl_writer *w, char *path, size_t size, bool finish,
		      const struct ntkl_properties *final)
{
	int in_fd = fake_device(NBUFS, BUF_SIZE);
	int out_fd = temp_file(path, size);

	CHECK(in_fd >= 0);
	CHECK(out_fd >= 0);
	CHECK_EQ(ntkl_writer_init(w, in_fd, out_fd, BUF_SIZE), 0);
	CHECK_EQ(ntkl_writer_drain(w), 0);
	if (finish)
		CHECK_EQ(ntkl_writer_finish(w, final), 0);
	close(in_fd);
	return out_fd;
}

static void test_pipeline(void)
{
	struct ntkl_properties final = { .events_lost = 7, .log_buffers_lost = 2 };
	struct etl_check_stats stats;
	struct ntkl_writer w;
	struct etl_error err;
	struct etl_file f;
	char path[256], first[512] = "";
	int64_t before;
	int fd;

	test_begin("drain_and_patch");
	build_logger();
	before = etl_filetime_now();
	fd = write_file(&w, path, sizeof(path), true, &final);
	CHECK_EQ(w.buffers, NBUFS);
	CHECK_EQ(w.bytes, NBUFS * BUF_SIZE);
	CHECK_EQ(w.events, NRECORDS);	/* data buffers only */
	close(fd);
	ntkl_writer_free(&w);

	CHECK_EQ(etl_open(&f, path, &err), 0);
	if (f.data) {
		CHECK_EQ(f.size, NBUFS * BUF_SIZE);
		CHECK_EQ(f.header.buffers_written, NBUFS);
		CHECK_EQ(etl_count_buffers(&f, &err), NBUFS);
		CHECK_EQ(f.header.events_lost, 7);
		CHECK_EQ(f.header.buffers_lost, 2);
		CHECK(f.header.end_time >= before);
		CHECK(f.header.end_time <= etl_filetime_now());
		CHECK_STR(f.logger_name, "t");
		/* the bytes after the patch are the logger's, untouched */
		CHECK(!memcmp(f.data + BUF_SIZE, bufs[1], BUF_SIZE));
		/* but the last one's flag: FLUSH_MARKER, as Windows' final flush */
		{
			uint8_t last[BUF_SIZE];
			struct wmi_buffer_header *lh = (void *)last;

			memcpy(last, bufs[2], BUF_SIZE);
			CHECK(!(lh->buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER));
			lh->buffer_flag |= ETW_BUFFER_FLAG_FLUSH_MARKER;
			CHECK(!memcmp(f.data + 2 * BUF_SIZE, last, BUF_SIZE));
		}
		CHECK_EQ(etl_check(&f, false, ignore_violation, first, &stats), 0);
		CHECK_STR(first, "");
		CHECK_EQ(stats.buffers, NBUFS);
		CHECK_EQ(stats.records, NRECORDS + 2);
		etl_close(&f);
	}
	/* ntkl dump --check and the plain dump on the same file */
	{
		FILE *devnull = fopen("/dev/null", "w");

		CHECK_EQ(etl_dump_path(path, ETL_DUMP_CHECK, devnull, devnull, ""), 0);
		CHECK_EQ(etl_dump_path(path, ETL_DUMP_EVENTS, devnull, devnull, ""), 0);
		fclose(devnull);
	}
	unlink(path);
	test_end();

	test_begin("end_drains_and_patches");
	build_logger();
	{
		int in_fd = fake_device(NBUFS, BUF_SIZE);
		struct ntkl_properties fin;

		fd = temp_file(path, sizeof(path));
		CHECK_EQ(ntkl_writer_init(&w, in_fd, fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_step(&w), 1);	/* the header; the rest at the end */
		CHECK_EQ(ntkl_writer_end(&w, 0, &fin), 0);
		CHECK_EQ(w.buffers, NBUFS);
		ntkl_writer_free(&w);
		close(in_fd);
		close(fd);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK_EQ(f.header.buffers_written, NBUFS);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
			etl_close(&f);
		}
		unlink(path);
	}
	test_end();

	/*
	 * A writer that dies before its end (kill -9) leaves a file whose
	 * header counts every buffer it wrote: each step rewrites it.
	 */
	test_begin("file_whole_without_its_end");
	build_logger();
	fd = write_file(&w, path, sizeof(path), false, NULL);
	close(fd);
	CHECK_EQ(etl_open(&f, path, &err), 0);
	if (f.data) {
		first[0] = '\0';
		CHECK_EQ(f.header.buffers_written, w.buffers);
		CHECK_EQ(etl_check(&f, false, ignore_violation, first, NULL), 0);
		CHECK_STR(first, "");
		etl_close(&f);
	}
	ntkl_writer_free(&w);
	unlink(path);
	test_end();

	test_begin("short_read_is_an_error");
	{
		int in_fd = fake_device(1, BUF_SIZE / 2);
		int out_fd = temp_file(path, sizeof(path));

		CHECK_EQ(ntkl_writer_init(&w, in_fd, out_fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_step(&w), (unsigned long long)-EIO);
		CHECK_HAS(w.error, "got 2048 bytes, a buffer is 4096");
		CHECK_EQ(w.buffers, 0);
		ntkl_writer_free(&w);
		close(in_fd);
		close(out_fd);
		unlink(path);
	}
	test_end();

	test_begin("no_buffer_no_file");
	{
		int in_fd = fake_device(0, BUF_SIZE);
		int out_fd = temp_file(path, sizeof(path));

		struct ntkl_properties final;

		CHECK_EQ(ntkl_writer_init(&w, in_fd, out_fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_drain(&w), 0);
		CHECK_EQ(ntkl_writer_finish(&w, NULL), (unsigned long long)-ENODATA);
		CHECK_HAS(w.error, "no buffer");
		w.error[0] = '\0';
		CHECK_EQ(ntkl_writer_end(&w, 0, &final), (unsigned long long)-ENODATA);
		CHECK_HAS(w.error, "no buffer");
		ntkl_writer_free(&w);
		close(in_fd);
		close(out_fd);
		unlink(path);
	}
	test_end();

	test_begin("write_error");
	{
		int in_fd = fake_device(NBUFS, BUF_SIZE);
		int out_fd = open("/dev/null", O_RDONLY);	/* not writable */

		CHECK_EQ(ntkl_writer_init(&w, in_fd, out_fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_step(&w), (unsigned long long)-EBADF);
		CHECK_HAS(w.error, "writing buffer 0");
		ntkl_writer_free(&w);
		close(in_fd);
		close(out_fd);
	}
	test_end();

	test_begin("disk_full_leaves_whole_buffers");
	{
		/* the file may grow by 1.5 buffers: the second write fails halfway */
		struct rlimit old, small = { BUF_SIZE + BUF_SIZE / 2, RLIM_INFINITY };
		int in_fd = fake_device(NBUFS, BUF_SIZE);
		int out_fd = temp_file(path, sizeof(path));
		struct stat st;

		build_logger();
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		small.rlim_max = old.rlim_max;
		CHECK_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
		CHECK_EQ(ntkl_writer_init(&w, in_fd, out_fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_step(&w), 1);
		CHECK_EQ(ntkl_writer_step(&w), (unsigned long long)-EFBIG);
		setrlimit(RLIMIT_FSIZE, &old);
		CHECK_HAS(w.error, "writing buffer 1: File too large");
		CHECK_EQ(fstat(out_fd, &st), 0);
		CHECK_EQ(st.st_size, BUF_SIZE);
		/* no step after a failure: the next buffer would land past a hole */
		CHECK_EQ(ntkl_writer_step(&w), (unsigned long long)-EFBIG);
		CHECK_EQ(w.buffers, 1);
		/* what was written is still made a valid file; the first error stays */
		{
			struct ntkl_properties final;

			CHECK_EQ(ntkl_writer_end(&w, -EFBIG, &final), (unsigned long long)-EFBIG);
			CHECK_HAS(w.error, "writing buffer 1: File too large");
			CHECK_EQ(final.events_lost, 0);	/* a socket answers no QUERY */
		}
		ntkl_writer_free(&w);
		close(in_fd);
		close(out_fd);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK_EQ(f.header.buffers_written, 1);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
			etl_close(&f);
		}
		unlink(path);
	}
	test_end();

	/*
	 * -compress: the header buffer whole with COMPRESSED_MODE, each data
	 * buffer compressed; the reader gives back the same records, the
	 * checks pass, and a cut mid-buffer is repaired buffer by buffer.
	 */
	test_begin("compressed_file");
	{
		struct ntkl_properties fin;
		struct etl_check_stats cs;
		struct stat st;
		uint64_t n = 0;
		char msg[256];
		int in_fd;

		build_logger();
		in_fd = fake_device(NBUFS, BUF_SIZE);
		fd = temp_file(path, sizeof(path));
		CHECK_EQ(ntkl_writer_init(&w, in_fd, fd, BUF_SIZE), 0);
		CHECK_EQ(ntkl_writer_compress(&w), 0);
		CHECK_EQ(ntkl_writer_drain(&w), 0);
		CHECK_EQ(ntkl_writer_end(&w, 0, &fin), 0);
		CHECK_EQ(w.buffers, NBUFS);
		CHECK_EQ(w.events, NRECORDS);
		CHECK(w.bytes < (uint64_t)NBUFS * BUF_SIZE / 2);
		ntkl_writer_free(&w);
		close(in_fd);
		close(fd);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			struct etl_cursor bc;
			struct etl_buffer b;
			uint16_t last_flag = 0;

			CHECK(f.header.log_file_mode & EVENT_TRACE_COMPRESSED_MODE);
			CHECK_EQ(f.header.buffers_written, NBUFS);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, &cs), 0);
			CHECK_EQ(cs.records, NRECORDS + 2);
			/* the flush marker on the last buffer, found by its own size */
			etl_buffers_begin(&f, &bc);
			while (etl_next_buffer(&f, &bc, &b, &err) > 0)
				last_flag = b.hdr.buffer_flag;
			CHECK(last_flag & ETW_BUFFER_FLAG_FLUSH_MARKER);
			CHECK(last_flag & ETW_BUFFER_FLAG_COMPRESSED);
			etl_close(&f);
		}
		/* cut into the last compressed buffer: --repair keeps the others */
		CHECK_EQ(stat(path, &st), 0);
		CHECK_EQ(truncate(path, st.st_size - 3), 0);
		CHECK_EQ(ntkl_file_complete(path, NULL, &n, msg, sizeof(msg)), 0);
		CHECK_EQ(n, NBUFS - 1);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK_EQ(etl_check(&f, false, NULL, NULL, &cs), 0);
			CHECK_EQ(cs.records, 3 + 2);
			etl_close(&f);
		}
		unlink(path);
	}
	test_end();

	test_begin("complete_after_the_writer_died");
	{
		struct ntkl_properties final = { .events_lost = 3 };
		uint64_t n = 99;
		char msg[256];
		struct stat st;

		build_logger();
		fd = temp_file(path, sizeof(path));
		/* two whole buffers and half of the third, never patched */
		CHECK(write(fd, bufs[0], BUF_SIZE) == BUF_SIZE);
		CHECK(write(fd, bufs[1], BUF_SIZE) == BUF_SIZE);
		CHECK(write(fd, bufs[2], BUF_SIZE / 2) == BUF_SIZE / 2);
		close(fd);
		CHECK_EQ(ntkl_file_complete(path, &final, &n, msg, sizeof(msg)), 0);
		CHECK_EQ(n, 2);
		CHECK_EQ(stat(path, &st), 0);
		CHECK_EQ(st.st_size, 2 * BUF_SIZE);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK_EQ(f.header.buffers_written, 2);
			CHECK_EQ(f.header.events_lost, 3);
			CHECK(f.header.end_time > 0);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
			etl_close(&f);
		}
		/* not an ETL file: refused, untouched */
		fd = open(path, O_WRONLY | O_TRUNC);
		CHECK(write(fd, "hello", 5) == 5);
		close(fd);
		CHECK(ntkl_file_complete(path, NULL, &n, msg, sizeof(msg)) < 0);
		CHECK_HAS(msg, "no header buffer");
		CHECK_EQ(n, 0);
		unlink(path);
		CHECK_EQ(ntkl_file_complete(path, NULL, &n, msg, sizeof(msg)),
			 (unsigned long long)-ENOENT);
		CHECK_HAS(msg, "cannot open");
	}
	test_end();

	/*
	 * A dead writer's file ends with its last buffer, not when ntkl stop
	 * completes it: EndTime is the latest whole buffer's TimeStamp, as
	 * `ntkl dump --repair` converts it (StartTime + (t - the Header
	 * event's time) / PerfFreq), here seconds after 1970 and so long
	 * before now. Whole (the writer patched EndTime "now" after its last
	 * buffer) or cut mid-buffer (the cut buffer's later time does not
	 * count).
	 */
	test_begin("complete_takes_end_time_from_the_last_buffer");
	{
		/* PerfFreq 10 MHz: one tick, one FILETIME unit */
		const int64_t t1 = START_CLOCK + 5 * (int64_t)PERF_FREQ;
		const int64_t t2 = START_CLOCK + 7 * (int64_t)PERF_FREQ;
		const int64_t t3 = START_CLOCK + 9 * (int64_t)PERF_FREQ;
		struct wmi_buffer_header bh;
		struct etl_header_patch patch;
		uint8_t third[BUF_SIZE];
		int64_t want;
		uint64_t n = 0;
		char msg[256];

		build_logger();
		memcpy(&bh, bufs[1], sizeof(bh));
		bh.timestamp = t1;
		memcpy(bufs[1], &bh, sizeof(bh));
		memcpy(&bh, bufs[2], sizeof(bh));
		bh.timestamp = t2;
		memcpy(bufs[2], &bh, sizeof(bh));
		memcpy(third, bufs[2], BUF_SIZE);
		memcpy(&bh, third, sizeof(bh));
		bh.timestamp = t3;
		bh.sequence_number = 3;
		memcpy(third, &bh, sizeof(bh));

		/* whole: three buffers, the header patched after each as the writer does */
		fd = temp_file(path, sizeof(path));
		for (int i = 0; i < NBUFS; i++)
			CHECK(write(fd, bufs[i], BUF_SIZE) == BUF_SIZE);
		etl_header_patch_init(&patch, NBUFS, NULL);
		CHECK_EQ(etl_header_patch_fd(fd, &patch, msg, sizeof(msg)), 0);
		close(fd);
		CHECK_EQ(ntkl_file_complete(path, NULL, &n, msg, sizeof(msg)), 0);
		CHECK_EQ(n, NBUFS);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK(etl_time_to_filetime(&f, t2, &want));
			CHECK_EQ(want, ETW_FILETIME_UNIX_EPOCH + 7 * ETW_FILETIME_PER_SECOND);
			CHECK_EQ(f.header.end_time, want);
			CHECK(f.header.end_time < patch.end_time);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
			etl_close(&f);
		}

		/* cut: two whole buffers and half of a later one, never patched */
		fd = open(path, O_WRONLY | O_TRUNC);
		CHECK(write(fd, bufs[0], BUF_SIZE) == BUF_SIZE);
		CHECK(write(fd, bufs[1], BUF_SIZE) == BUF_SIZE);
		CHECK(write(fd, bufs[2], BUF_SIZE) == BUF_SIZE);
		CHECK(write(fd, third, BUF_SIZE / 2) == BUF_SIZE / 2);
		close(fd);
		CHECK_EQ(ntkl_file_complete(path, NULL, &n, msg, sizeof(msg)), 0);
		CHECK_EQ(n, NBUFS);
		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK(etl_time_to_filetime(&f, t2, &want));
			CHECK_EQ(f.header.end_time, want);
			CHECK_EQ(f.header.buffers_written, NBUFS);
			etl_close(&f);
		}
		unlink(path);
		build_logger();
	}
	test_end();

	test_begin("patch_fd_on_a_foreign_file");
	{
		int out_fd = temp_file(path, sizeof(path));
		struct etl_header_patch patch = { 0 };
		char msg[256];

		CHECK(write(out_fd, bufs[1], BUF_SIZE) == BUF_SIZE);
		CHECK_EQ(etl_header_patch_fd(out_fd, &patch, msg, sizeof(msg)),
			 (unsigned long long)-EINVAL);
		CHECK_HAS(msg, "Header event");
		close(out_fd);
		unlink(path);
	}
	test_end();
}

/*
 * The writer completes the header buffer: LogFileName (the records after
 * the Header event move up, whole) and the TimeZone.
 */
static void test_header_complete(void)
{
	static const char name[] = "/out/trace-\xc3\xa9t\xc3\xa9.etl";	/* UTF-8 */
	struct etw_time_zone_information tz;
	struct etl_check_stats stats;
	struct etl_error err;
	struct etl_file f;
	uint8_t *img;
	char path[256], first[512] = "", e[256];
	size_t long_len = BUF_SIZE;
	char *long_name;
	int fd;

	test_begin("header_completed_by_writer");
	build_logger();
	img = malloc(NBUFS * BUF_SIZE);
	memcpy(img, bufs, NBUFS * BUF_SIZE);
	memset(&tz, 0, sizeof(tz));
	tz.bias = -60;
	tz.daylight_bias = -60;
	tz.standard_name[0] = 'C';
	CHECK_EQ(etl_header_complete(img, BUF_SIZE, name, &tz, e, sizeof(e)), 0);
	{
		struct etl_header_patch patch = {
			.end_time = ETW_FILETIME_UNIX_EPOCH + 10 * ETW_FILETIME_PER_SECOND,
			.buffers_written = NBUFS,
		};

		CHECK_EQ(etl_header_patch_mem(img, BUF_SIZE, &patch, e, sizeof(e)), 0);
	}
	fd = temp_file(path, sizeof(path));
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, img, NBUFS * BUF_SIZE), NBUFS * BUF_SIZE);
	close(fd);
	CHECK_EQ(etl_open(&f, path, &err), 0);
	if (f.data) {
		CHECK_STR(f.log_file_name, "/out/trace-\xc3\xa9t\xc3\xa9.etl");
		CHECK_STR(f.logger_name, "t");
		CHECK_EQ(f.header.time_zone.bias, -60);
		CHECK_EQ(f.header.time_zone.daylight_bias, -60);
		CHECK_EQ(f.header.time_zone.standard_name[0], 'C');
		/* HeaderExtension moved, whole: every check passes, every record is there */
		CHECK_EQ(etl_check(&f, false, ignore_violation, first, &stats), 0);
		CHECK_STR(first, "");
		CHECK_EQ(stats.records, NRECORDS + 2);
		etl_close(&f);
	}
	unlink(path);
	/* a name that does not fit leaves an error, not a broken buffer */
	long_name = malloc(long_len);
	memset(long_name, 'x', long_len - 1);
	long_name[long_len - 1] = 0;
	memcpy(img, bufs[0], BUF_SIZE);
	CHECK_EQ(etl_header_complete(img, BUF_SIZE, long_name, NULL, e, sizeof(e)),
		 (unsigned long long)-1);
	CHECK_HAS(e, "does not fit");
	CHECK(!memcmp(img, bufs[0], BUF_SIZE));
	free(long_name);
	/* a data buffer has no Header event to complete */
	CHECK_EQ(etl_header_complete(img + BUF_SIZE, BUF_SIZE, name, &tz, e, sizeof(e)),
		 (unsigned long long)-1);
	CHECK_HAS(e, "does not start with the Header event");
	free(img);
	test_end();

	test_begin("time_zone_without_summer_time");
	{
		char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

		setenv("TZ", "JST-9", 1);
		ntkl_time_zone((int64_t)time(NULL), &tz);
		CHECK_EQ(tz.bias, -540);
		CHECK_EQ(tz.daylight_bias, 0);
		CHECK_EQ(tz.standard_date.month, 0);
		CHECK_EQ(tz.daylight_date.month, 0);
		CHECK_EQ(tz.standard_name[0], 'J');
		setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
		ntkl_time_zone(1750000000, &tz);	/* June 2025 */
		CHECK_EQ(tz.bias, 300);
		CHECK_EQ(tz.daylight_bias, -60);
		/* second Sunday of March, 2:00; first Sunday of November, 2:00 (EDT) */
		CHECK_EQ(tz.daylight_date.month, 3);
		CHECK_EQ(tz.daylight_date.day, 2);
		CHECK_EQ(tz.daylight_date.day_of_week, 0);
		CHECK_EQ(tz.daylight_date.hour, 2);
		CHECK_EQ(tz.standard_date.month, 11);
		CHECK_EQ(tz.standard_date.day, 1);
		CHECK_EQ(tz.standard_date.hour, 2);
		if (old)
			setenv("TZ", old, 1);
		else
			unsetenv("TZ");
		free(old);
		tzset();
	}
	test_end();
}

/* Pages of [off, off + len) of the file at fd that are in the page cache. */
static int cached_pages(int fd, uint64_t off, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page;
	unsigned char vec[64];
	void *m;
	int in = 0;

	if (n > sizeof(vec) || off % page)
		return -1;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (m == MAP_FAILED)
		return -1;
	if (mincore(m, len, vec) < 0)
		in = -1;
	for (size_t i = 0; in >= 0 && i < n; i++)
		in += vec[i] & 1;
	munmap(m, len);
	return in;
}

/*
 * Direct I/O where the file system allows (ntkl_direct.h): the same file
 * as buffered writes make, and the data buffers never in the page cache
 * (mincore() is the independent witness: a buffered write leaves its
 * pages there). Asked for with NTKL_DIRECT_IO=1 (a pipe is no logger to
 * map: one write at a time; the VM's ntkl_cli_test direct_io_on_disk has
 * writes in flight); NTKL_DIRECT_IO=0, as without it, the buffered file
 * to compare.
 */
static void test_direct_io(void)
{
	const char *dir = getenv("TMPDIR");
	char path[256], plain_path[256];
	struct ntkl_direct probe;
	struct ntkl_writer w;
	uint8_t *direct = NULL, *plain = NULL;
	int fd, plain_fd;

	build_logger();
	fd = temp_file(path, sizeof(path));
	if (fd < 0 || ntkl_direct_open(&probe, fd, BUF_SIZE, (size_t)sysconf(_SC_PAGESIZE))) {
		test_skip("direct_io", "the file system of %s does no direct I/O (statx() "
			  "reports no STATX_DIOALIGN, as on tmpfs): set TMPDIR to a directory "
			  "on ext4 or xfs to run it", dir && *dir ? dir : "/tmp");
		if (fd >= 0)
			close(fd);
		unlink(path);
		return;
	}
	ntkl_direct_close(&probe);
	close(fd);
	unlink(path);

	test_begin("direct_io");
	setenv("NTKL_DIRECT_IO", "1", 1);
	fd = write_file(&w, path, sizeof(path), false, NULL);
	unsetenv("NTKL_DIRECT_IO");
	CHECK(w.direct.fd >= 0);
	CHECK(w.at_offsets);
	CHECK_EQ(w.bytes, NBUFS * BUF_SIZE);
	ntkl_writer_free(&w);
	CHECK_EQ(w.direct.fd, -1);
	/* a data buffer's page went to the disk without passing the cache */
	CHECK_EQ(cached_pages(fd, BUF_SIZE, BUF_SIZE), 0);

	setenv("NTKL_DIRECT_IO", "0", 1);
	plain_fd = write_file(&w, plain_path, sizeof(plain_path), false, NULL);
	unsetenv("NTKL_DIRECT_IO");
	CHECK_EQ(w.direct.fd, -1);
	CHECK(!w.at_offsets);
	ntkl_writer_free(&w);
	CHECK(cached_pages(plain_fd, BUF_SIZE, BUF_SIZE) > 0);

	direct = malloc(NBUFS * BUF_SIZE);
	plain = malloc(NBUFS * BUF_SIZE);
	CHECK(direct && plain);
	if (direct && plain) {
		CHECK_EQ(pread(fd, direct, NBUFS * BUF_SIZE, 0), NBUFS * BUF_SIZE);
		CHECK_EQ(pread(plain_fd, plain, NBUFS * BUF_SIZE, 0), NBUFS * BUF_SIZE);
		size_t end_time = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header) +
				  offsetof(struct trace_logfile_header, end_time);

		/* the same bytes, but for the header's EndTime (now, each time) */
		memcpy(direct + end_time, plain + end_time, sizeof(int64_t));
		CHECK(!memcmp(direct, plain, NBUFS * BUF_SIZE));
		CHECK(!memcmp(direct + BUF_SIZE, bufs[1], BUF_SIZE));
	}
	free(direct);
	free(plain);
	close(fd);
	close(plain_fd);
	unlink(path);
	unlink(plain_path);
	test_end();
}

int main(void)
{
	/* this machine's disks would add a SystemConfig buffer: none here */
	setenv("NTKL_SYSCONFIG_ROOT", "/nonexistent-ntkl-sysconfig-root", 1);
	test_header_complete();
	test_patch_mem();
	test_pipeline();
	test_direct_io();
	return test_exit();
}
