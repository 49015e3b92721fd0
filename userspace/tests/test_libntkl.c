// SPDX-License-Identifier: GPL-2.0
/*
 * libntkl (userspace/libntkl): private loggers written from many threads,
 * checked against an independent truth: what each writer thread itself
 * wrote (its sequence numbers and the calls that returned -ENOSPC),
 * counted back from the file by the project's ETL reader, and the file
 * passed through the checker (ntkl dump --check).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "etl/etl_check.h"
#include "analysis/etl_dump.h"
#include "etl/etl_reader.h"
#include "libntkl/libntkl.h"
#include "uapi/ntkl_etw.h"

#define THREADS		8
#define PER_THREAD	1000000u

static const uint8_t guid[16] = { 0x6c, 0x6b, 0x74, 0x6e, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

/* $TMPDIR or /tmp: the blocking 8 x 1M case writes a 1.2 GB file there */
static char tmpdir[512];

static const char *tmp_path(const char *name)
{
	static char path[4][600];
	static int n;
	char *p = path[n++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	return p;
}

struct writer {
	struct ntkl_um_provider *prov;
	struct ntkl_um_schema *schema;
	uint32_t n;
	uint32_t index;
	pid_t tid;
	uint64_t lost;			/* its own count of -ENOSPC */
	uint64_t errors;		/* any other failure */
};

static void *write_many(void *arg)
{
	struct writer *w = arg;
	struct ntkl_um_descriptor d = { .id = 7, .level = 4, .opcode = 0 };

	w->tid = gettid();
	for (uint32_t i = 0; i < w->n; i++) {
		struct ntkl_um_field f[] = {
			{ "writer", NTKL_UM_UINT32, &w->index, 4 },
			{ "seq", NTKL_UM_UINT32, &i, 4 },
		};
		int ret = ntkl_um_write(w->prov, &d, w->schema, f, 2);

		if (ret == -ENOSPC)
			w->lost++;
		else if (ret)
			w->errors++;
	}
	return NULL;
}

/* What the file holds, walked by the reader: events of each writer. */
struct census {
	uint64_t events;		/* EVENT_HEADER records */
	uint64_t per_writer[THREADS];
	uint8_t *seen[THREADS];		/* a bit per sequence number */
	uint64_t dup;			/* a sequence number seen twice */
	uint64_t out_of_order;		/* a writer's seq not rising in time */
	uint64_t bad;			/* a record not as written */
	uint64_t buffers;
	int64_t first_ts, last_ts;
};

static int census_file(const char *path, struct census *c, uint32_t per_writer)
{
	struct etl_file f;
	struct etl_error err;
	struct etl_cursor cur;
	struct etl_buffer b;
	int64_t last_ts[THREADS] = { 0 };
	int64_t last_seq[THREADS];
	int ret;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < THREADS; i++) {
		c->seen[i] = calloc(per_writer / 8 + 1, 1);
		last_seq[i] = -1;
	}
	if (etl_open(&f, path, &err))
		return -1;
	c->first_ts = INT64_MAX;
	etl_buffers_begin(&f, &cur);
	while ((ret = etl_next_buffer(&f, &cur, &b, &err)) > 0) {
		struct etl_record_cursor rc;
		struct etl_record r;

		c->buffers++;
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) > 0) {
			uint32_t wi, seq;

			if (r.kind != ETL_KIND_EVENT)
				continue;
			c->events++;
			if (r.payload_len != 8 || memcmp(r.guid, guid, 16) ||
			    r.descriptor.id != 7) {
				c->bad++;
				continue;
			}
			memcpy(&wi, r.payload, 4);
			memcpy(&seq, r.payload + 4, 4);
			if (wi >= THREADS || seq >= per_writer) {
				c->bad++;
				continue;
			}
			if (c->seen[wi][seq / 8] & (1u << (seq % 8)))
				c->dup++;
			c->seen[wi][seq / 8] |= (uint8_t)(1u << (seq % 8));
			c->per_writer[wi]++;
			/* a thread's later event has a later (or equal) time */
			if ((int64_t)seq > last_seq[wi] ? r.timestamp < last_ts[wi] :
							  r.timestamp > last_ts[wi])
				c->out_of_order++;
			if ((int64_t)seq > last_seq[wi]) {
				last_seq[wi] = seq;
				last_ts[wi] = r.timestamp;
			}
			if (r.timestamp < c->first_ts)
				c->first_ts = r.timestamp;
			if (r.timestamp > c->last_ts)
				c->last_ts = r.timestamp;
		}
	}
	etl_buffers_end(&cur);
	etl_close(&f);
	return ret;
}

static void census_free(struct census *c)
{
	for (int i = 0; i < THREADS; i++)
		free(c->seen[i]);
}

static void first_violation(void *ctx, const char *msg)
{
	char *first = ctx;

	if (!first[0])
		snprintf(first, 512, "%s", msg);
}

/* The checker (ntkl dump --check's) on the file: violations, the first in first. */
static unsigned long check_file(const char *path, char *first)
{
	struct etl_file f;
	struct etl_error err;
	unsigned long v;

	first[0] = 0;
	if (etl_open(&f, path, &err)) {
		snprintf(first, 512, "cannot open: %s", err.msg);
		return 1;
	}
	v = etl_check(&f, false, first_violation, first, NULL);
	etl_close(&f);
	return v;
}

static void run_writers(const char *name, uint32_t mode, uint32_t min, uint32_t max)
{
	struct ntkl_um_properties p = {
		.size = sizeof(p), .buffer_size_kb = 64, .minimum_buffers = min,
		.maximum_buffers = max, .log_file_mode = mode,
	};
	struct ntkl_um_field fields[] = {
		{ "writer", NTKL_UM_UINT32, NULL, 0 }, { "seq", NTKL_UM_UINT32, NULL, 0 },
	};
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *prov;
	struct ntkl_um_schema schema;
	struct writer w[THREADS];
	pthread_t t[THREADS];
	struct census c;
	uint64_t lost = 0, errors = 0;
	const char *path = tmp_path(name);
	char first[512];
	struct etl_file f;
	struct etl_error err;

	test_begin("%s_8x1M", name);
	CHECK_EQ(ntkl_um_start(&lg, name, path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "test-libntkl", guid, 0, 0, &prov), 0);
	CHECK_EQ(ntkl_um_schema(&schema, "Step", fields, 2), 0);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct writer){ .prov = prov, .schema = &schema, .n = PER_THREAD,
					.index = (uint32_t)i };
		pthread_create(&t[i], NULL, write_many, &w[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		lost += w[i].lost;
		errors += w[i].errors;
	}
	ntkl_um_unregister(prov);
	CHECK_EQ(ntkl_um_stop(lg, &p), 0);
	CHECK_EQ(errors, 0);
	/* the logger's count of losses is the writers' own */
	CHECK_EQ(p.events_lost, lost);
	CHECK_EQ(p.events_written + p.events_lost, (uint64_t)THREADS * PER_THREAD);
	if (mode & NTKL_UM_MODE_BLOCKING)
		CHECK_EQ(p.events_lost, 0);
	else
		CHECK(p.events_lost > 0);	/* 4 buffers for 8 writers: the loss path ran */
	CHECK_EQ(p.log_buffers_lost, 0);
	/* the file says the same, event by event */
	CHECK_EQ(census_file(path, &c, PER_THREAD), 0);
	CHECK_EQ(c.events, p.events_written);
	CHECK_EQ(c.bad, 0);
	CHECK_EQ(c.dup, 0);
	CHECK_EQ(c.out_of_order, 0);
	CHECK_EQ(c.buffers, p.buffers_written);
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ(c.per_writer[i] + w[i].lost, PER_THREAD);
	census_free(&c);
	CHECK_EQ(etl_open(&f, path, &err), 0);
	if (f.data) {
		CHECK_EQ(f.header.buffers_written, p.buffers_written);
		CHECK_EQ(f.header.events_lost, p.events_lost);
		CHECK_EQ(f.header.log_file_mode & (EVENT_TRACE_PRIVATE_LOGGER_MODE |
						   EVENT_TRACE_PRIVATE_IN_PROC),
			 EVENT_TRACE_PRIVATE_LOGGER_MODE | EVENT_TRACE_PRIVATE_IN_PROC);
		CHECK_STR(f.logger_name, name);
		etl_close(&f);
	}
	if (check_file(path, first))
		test_fail("%s: ntkl dump --check: %s", path, first);
	unlink(path);
	test_end();
}

/* Events of every type, compressed, read back field by field. */
static void test_compressed_round_trip(void)
{
	/* no flush in the run (a loaded machine's second): the same buffers */
	struct ntkl_um_properties p = { .size = sizeof(p), .buffer_size_kb = 16,
					.flush_timer = 3600,
					.log_file_mode = NTKL_UM_MODE_COMPRESSED |
							 NTKL_UM_MODE_BLOCKING };
	struct ntkl_um_properties q = { .size = sizeof(p), .buffer_size_kb = 16,
					.flush_timer = 3600,
					.log_file_mode = NTKL_UM_MODE_BLOCKING };
	struct ntkl_um_descriptor d = { .id = 3, .version = 1, .level = 2, .opcode = 9,
					.task = 5, .keyword = 0x10 };
	const char *cpath = tmp_path("rt_c.etl"), *ppath = tmp_path("rt_p.etl");
	const uint16_t name16[] = { 'h', 'i', 0 };
	struct ntkl_um_logger *lg[2];
	struct ntkl_um_provider *prov[2];
	struct ntkl_um_schema s;
	struct stat sc, sp;
	char first[512];
	const uint32_t n = 20000;
	cpu_set_t cpus, one;

	test_begin("compressed_round_trip");
	/*
	 * One CPU: the buffers are per CPU, and a migration in one run and
	 * not the other (a loaded machine) would fill one buffer more
	 */
	CHECK_EQ(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	CHECK_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
	CHECK_EQ(ntkl_um_start(&lg[0], "rt_c", cpath, &p), 0);
	CHECK_EQ(ntkl_um_start(&lg[1], "rt_p", ppath, &q), 0);
	for (int k = 0; k < 2; k++) {
		CHECK_EQ(ntkl_um_register(lg[k], "rt", guid, 0, 0, &prov[k]), 0);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t big = (uint64_t)i << 32 | i;
			double dv = i / 4.0;
			struct ntkl_um_field f[] = {
				{ "i", NTKL_UM_UINT32, &i, 4 },
				{ "big", NTKL_UM_HEXINT64, &big, 8 },
				{ "d", NTKL_UM_DOUBLE, &dv, 8 },
				{ "s", NTKL_UM_STRING, "text", 5 },
				{ "w", NTKL_UM_UTF16STRING, name16, 6 },
			};

			if (!i)
				CHECK_EQ(ntkl_um_schema(&s, "Kinds", f, 5), 0);
			CHECK_EQ(ntkl_um_write(prov[k], &d, &s, f, 5), 0);
		}
		ntkl_um_unregister(prov[k]);
	}
	CHECK_EQ(ntkl_um_stop(lg[0], &p), 0);
	CHECK_EQ(ntkl_um_stop(lg[1], &q), 0);
	CHECK_EQ(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
	CHECK_EQ(p.events_written, n);
	CHECK_EQ(q.events_written, n);
	CHECK_EQ(p.events_lost + p.log_buffers_lost, 0);
	/* the same trace buffers, fewer bytes */
	CHECK_EQ(p.buffers_written, q.buffers_written);
	CHECK(stat(cpath, &sc) == 0 && stat(ppath, &sp) == 0);
	CHECK(sc.st_size * 3 < sp.st_size);
	CHECK_EQ(sc.st_size, p.file_bytes);
	CHECK_EQ(check_file(cpath, first), 0);
	CHECK_STR(first, "");
	/* every record as written */
	{
		struct etl_file f;
		struct etl_error err;
		struct etl_cursor cur;
		struct etl_buffer b;
		uint64_t events = 0, compressed = 0, bad = 0;
		uint8_t want[40];

		CHECK_EQ(etl_open(&f, cpath, &err), 0);
		CHECK(f.header.log_file_mode & EVENT_TRACE_COMPRESSED_MODE);
		etl_buffers_begin(&f, &cur);
		while (f.data && etl_next_buffer(&f, &cur, &b, &err) > 0) {
			struct etl_record_cursor rc;
			struct etl_record r;

			compressed += !!(b.hdr.buffer_flag & ETW_BUFFER_FLAG_COMPRESSED);
			etl_records_begin(&b, &rc);
			while (etl_next_record(&b, &rc, &r, &err) > 0) {
				uint32_t i;

				if (r.kind != ETL_KIND_EVENT)
					continue;
				memcpy(&i, r.payload, 4);
				{
					uint64_t big = (uint64_t)i << 32 | i;
					double dv = i / 4.0;

					memcpy(want, &i, 4);
					memcpy(want + 4, &big, 8);
					memcpy(want + 12, &dv, 8);
					memcpy(want + 20, "text", 5);
					memcpy(want + 25, name16, 6);
				}
				if (r.payload_len != 31 || memcmp(r.payload, want, 31) ||
				    i != events || r.descriptor.task != 5 ||
				    r.descriptor.keyword != 0x10 || r.descriptor.version != 1)
					bad++;
				events++;
			}
		}
		etl_buffers_end(&cur);
		if (f.data)
			etl_close(&f);
		CHECK_EQ(events, n);
		CHECK_EQ(bad, 0);
		CHECK_EQ(compressed, p.buffers_written - 1);
	}
	/* ntkl dump --events decodes them from their schema */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		etl_dump_path(cpath, ETL_DUMP_EVENTS, out, out, "");
		fclose(out);
		CHECK_HAS(text, "PROV_TRAITS(5 bytes)=\"rt\" EVENT_SCHEMA_TL");
		CHECK_HAS(text, "Kinds: i=7 big=0x700000007 d=1.75 s=\"text\" w=\"hi\"\n");
		free(text);
	}
	unlink(cpath);
	unlink(ppath);
	test_end();
}

/*
 * A compressed logger whose file cannot grow (RLIMIT_FSIZE) for a while:
 * the trace buffers in the compression buffer are lost and counted; once
 * it can grow again the next flushes complete the file, which reads whole
 * with SequenceNumbers 1..BuffersWritten.
 */
static void test_compressed_write_failure(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p), .buffer_size_kb = 4,
					.log_file_mode = NTKL_UM_MODE_COMPRESSED |
							 NTKL_UM_MODE_BLOCKING };
	struct ntkl_um_descriptor d = { .id = 1, .level = 4 };
	const char *path = tmp_path("fail.etl");
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *prov;
	struct rlimit old, lim;
	char first[512];
	uint8_t noise[64];
	uint32_t seed = 1;

	test_begin("compressed_write_failure");
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 40 * 1024;
	CHECK_EQ(ntkl_um_start(&lg, "fail", path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "fail", guid, 0, 0, &prov), 0);
	setrlimit(RLIMIT_FSIZE, &lim);
	for (int i = 0; i < 5000; i++) {
		struct ntkl_um_field f = { "noise", NTKL_UM_UINT64, noise, sizeof(noise) };

		/* data LZ77 cannot shrink much: many trace buffers per flush */
		for (size_t k = 0; k < sizeof(noise); k++) {
			seed = seed * 1103515245u + 12345u;
			noise[k] = (uint8_t)(seed >> 16);
		}
		CHECK_EQ(ntkl_um_write(prov, &d, NULL, &f, 1), 0);
	}
	/* every trace buffer so far to the file (or lost), then room again */
	CHECK_EQ(ntkl_um_flush(lg), 0);
	setrlimit(RLIMIT_FSIZE, &old);
	{
		struct ntkl_um_properties mid;

		CHECK_EQ(ntkl_um_query(lg, &mid), 0);
		CHECK(mid.log_buffers_lost > 0);
		for (int i = 0; i < 1000; i++) {
			struct ntkl_um_field f = { "noise", NTKL_UM_UINT64, noise, sizeof(noise) };

			CHECK_EQ(ntkl_um_write(prov, &d, NULL, &f, 1), 0);
		}
		ntkl_um_unregister(prov);
		/* the first error stays the answer, though later flushes worked */
		CHECK_EQ(ntkl_um_stop(lg, &p), -EFBIG);
		CHECK_HAS(ntkl_um_last_error(), "File too large");
		CHECK_EQ(p.log_buffers_lost, mid.log_buffers_lost);
		CHECK(p.buffers_written > mid.buffers_written);
		CHECK(p.events_written > mid.events_written);
	}
	CHECK(p.events_written < 6000);
	CHECK_EQ(p.events_lost, 0);
	{
		struct etl_file f;
		struct etl_error err;

		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK_EQ(f.header.buffers_written, p.buffers_written);
			CHECK_EQ(f.header.buffers_lost, p.log_buffers_lost);
			CHECK_EQ(etl_count_buffers(&f, &err), (long)p.buffers_written);
			etl_close(&f);
		}
	}
	CHECK_EQ(check_file(path, first), 0);
	CHECK_STR(first, "");
	unlink(path);
	test_end();
}

/* Entries of dir other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * A start that fails leaves its path as it was: here the header buffer
 * cannot be written (RLIMIT_FSIZE below one buffer, as a full disk). A
 * file that was there is still there byte for byte, the same file; where
 * there was none there is none, and no temporary file is left either. A
 * start that succeeds replaces the file, with its permissions, through a
 * symlink that stays one.
 */
static void test_failed_start_keeps_the_file(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p), .buffer_size_kb = 4 };
	const char *dir = tmp_path("keep");
	char path[700], fresh[700], link[700], real[PATH_MAX];
	static uint8_t before[10000], after[sizeof(before) + 1];
	struct ntkl_um_logger *lg = NULL, *lg2;
	struct rlimit old, lim;
	struct stat st0, st1;
	int fd, ret;

	test_begin("failed_start_keeps_the_file_there");
	CHECK_EQ(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/old.etl", dir);
	snprintf(fresh, sizeof(fresh), "%s/new.etl", dir);
	snprintf(link, sizeof(link), "%s/link.etl", dir);
	for (size_t i = 0; i < sizeof(before); i++)
		before[i] = (uint8_t)(i * 7 + 1);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0640);
	CHECK(fd >= 0);
	CHECK(write(fd, before, sizeof(before)) == (ssize_t)sizeof(before));
	close(fd);
	CHECK_EQ(chmod(path, 0640), 0);
	CHECK_EQ(stat(path, &st0), 0);

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1024;
	setrlimit(RLIMIT_FSIZE, &lim);
	ret = ntkl_um_start(&lg, "keep", path, &p);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK_EQ(ret, -EFBIG);
	CHECK_HAS(ntkl_um_last_error(), "writing the header buffer");
	CHECK(lg == NULL);
	CHECK_EQ(stat(path, &st1), 0);
	CHECK_EQ(st1.st_ino, st0.st_ino);
	CHECK_EQ(st1.st_size, sizeof(before));
	CHECK_EQ(st1.st_mode & 07777, 0640);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(read(fd, after, sizeof(after)) == (ssize_t)sizeof(before));
	close(fd);
	CHECK(!memcmp(before, after, sizeof(before)));

	/* a new file: gone again */
	setrlimit(RLIMIT_FSIZE, &lim);
	ret = ntkl_um_start(&lg, "keep", fresh, &p);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK_EQ(ret, -EFBIG);
	CHECK(lg == NULL);
	CHECK(access(fresh, F_OK) < 0 && errno == ENOENT);
	/* old.etl alone: no temporary file beside it */
	CHECK_EQ(count_entries(dir), 1);
	test_end();

	test_begin("start_replaces_the_file_with_its_permissions_through_a_symlink");
	CHECK_EQ(symlink("old.etl", link), 0);
	CHECK_EQ(ntkl_um_start(&lg, "keep", link, &p), 0);
	/* while it runs, the file is the logger's: a second writer is refused */
	CHECK_EQ(ntkl_um_start(&lg2, "keep2", path, NULL), -EEXIST);
	CHECK_EQ(ntkl_um_stop(lg, NULL), 0);
	CHECK_EQ(lstat(link, &st1), 0);
	CHECK(S_ISLNK(st1.st_mode));
	CHECK_EQ(stat(path, &st1), 0);
	CHECK(st1.st_ino != st0.st_ino);
	CHECK_EQ(st1.st_mode & 07777, 0640);
	CHECK_EQ(count_entries(dir), 2);
	{
		struct etl_file f;
		struct etl_error err;

		CHECK_EQ(etl_open(&f, path, &err), 0);
		if (f.data) {
			CHECK(realpath(path, real) != NULL);
			CHECK_STR(f.log_file_name, real);
			CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
			etl_close(&f);
		}
	}
	unlink(link);
	unlink(path);
	rmdir(dir);
	test_end();
}

/* QPC is CLOCK_MONOTONIC in 100 ns: the kernel loggers' clock. */
static void test_clock(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p) };
	struct ntkl_um_descriptor d = { .id = 1 };
	const char *path = tmp_path("clock.etl");
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *prov;
	struct timespec a, b;
	struct census c;
	uint32_t zero[2] = { 0, 0 };
	struct ntkl_um_field f = { "x", NTKL_UM_UINT64, zero, 8 };

	test_begin("qpc_is_clock_monotonic");
	CHECK_EQ(ntkl_um_start(&lg, "clock", path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "clock", guid, 0, 0, &prov), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	d.id = 7;
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, &f, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ntkl_um_unregister(prov);
	CHECK_EQ(ntkl_um_stop(lg, &p), 0);
	CHECK_EQ(p.perf_freq, 10000000);
	CHECK_EQ(census_file(path, &c, 1), 0);
	CHECK_EQ(c.events, 1);
	CHECK(c.first_ts >= (int64_t)(a.tv_sec * 10000000LL + a.tv_nsec / 100));
	CHECK(c.first_ts <= (int64_t)(b.tv_sec * 10000000LL + b.tv_nsec / 100));
	census_free(&c);
	unlink(path);
	test_end();
}

/* SYSTEM stamps FILETIME; CYCLE the TSC, its PerfFreq measured. */
static void test_other_clocks(void)
{
	const char *path = tmp_path("clocks.etl");
	struct ntkl_um_descriptor d = { .id = 7 };
	uint32_t zero[2] = { 0, 0 };
	struct ntkl_um_field f = { "x", NTKL_UM_UINT64, zero, 8 };

	test_begin("system_and_cycle_clocks");
	for (uint32_t type = NTKL_UM_CLOCK_SYSTEM; type <= NTKL_UM_CLOCK_CYCLE; type++) {
		struct ntkl_um_properties p = { .size = sizeof(p), .clock_type = type };
		struct ntkl_um_logger *lg;
		struct ntkl_um_provider *prov;
		struct timespec a, b;
		struct census c;
		struct etl_file file;
		struct etl_error err;
		uint64_t c0 = 0, c1 = 0;

		CHECK_EQ(ntkl_um_start(&lg, "clocks", path, &p), 0);
		CHECK_EQ(ntkl_um_register(lg, "clocks", guid, 0, 0, &prov), 0);
		clock_gettime(CLOCK_REALTIME, &a);
		c0 = ntkl_um_clock(lg);
		CHECK_EQ(ntkl_um_write(prov, &d, NULL, &f, 1), 0);
		c1 = ntkl_um_clock(lg);
		clock_gettime(CLOCK_REALTIME, &b);
		ntkl_um_unregister(prov);
		CHECK_EQ(ntkl_um_stop(lg, &p), 0);
		CHECK_EQ(census_file(path, &c, 1), 0);
		CHECK_EQ(c.events, 1);
		/* the event's stamp is the logger's clock between the two readings */
		CHECK((uint64_t)c.first_ts >= c0 && (uint64_t)c.first_ts <= c1);
		if (type == NTKL_UM_CLOCK_SYSTEM) {
			CHECK_EQ(p.perf_freq, 10000000);
			CHECK(c.first_ts >= ETW_FILETIME_UNIX_EPOCH + a.tv_sec * 10000000LL +
					    a.tv_nsec / 100);
			CHECK(c.first_ts <= ETW_FILETIME_UNIX_EPOCH + b.tv_sec * 10000000LL +
					    b.tv_nsec / 100);
		} else {
			/* 20 ms measured against CLOCK_MONOTONIC: some MHz, to the kHz */
			CHECK(p.perf_freq >= 1000000);
			CHECK_EQ(p.perf_freq % 1000, 0);
		}
		CHECK_EQ(etl_open(&file, path, &err), 0);
		if (file.data) {
			CHECK_EQ(file.header.reserved_flags, type);
			CHECK_EQ(file.header.perf_freq, p.perf_freq);
			etl_close(&file);
		}
		census_free(&c);
		unlink(path);
	}
	test_end();
}

/* Flush writes partly filled buffers now; query and update see the logger. */
static void test_flush_query_update(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p), .flush_timer = 100,
					.minimum_buffers = 4, .maximum_buffers = 16 };
	struct ntkl_um_descriptor d = { .id = 1 };
	const char *path = tmp_path("flush.etl");
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *prov;
	struct ntkl_um_properties q;
	struct ntkl_um_properties u = { .size = sizeof(u) };

	test_begin("flush_query_update");
	CHECK_EQ(ntkl_um_start(&lg, "flush", path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "flush", guid, 0, 0, &prov), 0);
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, NULL, 0), 0);
	CHECK_EQ(ntkl_um_query(lg, &q), 0);
	CHECK_EQ(q.buffers_written, 1);	/* the header buffer only */
	CHECK_EQ(q.flush_timer, 100);
	CHECK_EQ(q.minimum_buffers, 4);
	CHECK_EQ(q.number_of_buffers, 4);
	CHECK(q.logger_thread_id != 0);
	CHECK_EQ(q.log_file_mode, NTKL_UM_MODE_SEQUENTIAL | NTKL_UM_MODE_PRIVATE |
		 NTKL_UM_MODE_IN_PROC);
	CHECK_EQ(ntkl_um_flush(lg), 0);
	CHECK_EQ(ntkl_um_query(lg, &q), 0);
	CHECK_EQ(q.buffers_written, 2);
	CHECK_EQ(q.events_written, 1);
	u.flush_timer = 5;
	u.maximum_buffers = 8;
	CHECK_EQ(ntkl_um_update(lg, &u), 0);
	CHECK_EQ(ntkl_um_query(lg, &q), 0);
	CHECK_EQ(q.flush_timer, 5);
	CHECK_EQ(q.maximum_buffers, 8);
	ntkl_um_unregister(prov);
	CHECK_EQ(ntkl_um_stop(lg, NULL), 0);
	unlink(path);
	test_end();
}

/* The flush timer writes a partly filled buffer; UPDATE changes it at once. */
static void test_flush_timer(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p), .flush_timer = 1000 };
	struct ntkl_um_properties u = { .size = sizeof(u), .flush_timer = 1 };
	struct ntkl_um_descriptor d = { .id = 1 };
	const char *path = tmp_path("timer.etl");
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *prov;
	struct ntkl_um_properties q = { 0 };
	int waited = 0;

	test_begin("flush_timer_and_update");
	CHECK_EQ(ntkl_um_start(&lg, "timer", path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "timer", guid, 0, 0, &prov), 0);
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, NULL, 0), 0);
	usleep(300000);
	CHECK_EQ(ntkl_um_query(lg, &q), 0);
	CHECK_EQ(q.buffers_written, 1);		/* 1000 s: not yet */
	CHECK_EQ(ntkl_um_update(lg, &u), 0);
	do {
		usleep(100000);
		CHECK_EQ(ntkl_um_query(lg, &q), 0);
	} while (q.buffers_written < 2 && ++waited < 50);
	CHECK_EQ(q.buffers_written, 2);
	CHECK_EQ(q.events_written, 1);
	CHECK(waited >= 5 && waited < 30);	/* about a second after the update */
	ntkl_um_unregister(prov);
	CHECK_EQ(ntkl_um_stop(lg, NULL), 0);
	unlink(path);
	test_end();
}

#define MISUSE(call, err, text)						\
	do {								\
		CHECK_EQ((call), (unsigned long long)(err));		\
		CHECK_HAS(ntkl_um_last_error(), text);			\
	} while (0)

static void test_misuse(void)
{
	struct ntkl_um_properties p = { .size = sizeof(p) };
	struct ntkl_um_descriptor d = { .id = 1 };
	const char *path = tmp_path("misuse.etl");
	struct ntkl_um_logger *lg = NULL, *lg2;
	struct ntkl_um_provider *prov;
	struct ntkl_um_schema s;
	struct ntkl_um_field bad = { "x", (enum ntkl_um_type)99, NULL, 0 };
	static uint8_t big[70000];
	struct ntkl_um_field huge = { "b", NTKL_UM_UINT8, big, sizeof(big) };
	char longname[100];

	test_begin("misuse_gives_clear_errors");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	MISUSE(ntkl_um_start(NULL, "x", path, NULL), -EINVAL, "out is NULL");
	MISUSE(ntkl_um_start(&lg, NULL, path, NULL), -EINVAL, "logger name is NULL");
	MISUSE(ntkl_um_start(&lg, longname, path, NULL), -EINVAL, "give 1..63 printable");
	MISUSE(ntkl_um_start(&lg, "x", NULL, NULL), -EINVAL, "give the ETL file");
	MISUSE(ntkl_um_start(&lg, "x", "/nonexistent/dir/x.etl", NULL), -ENOENT,
	       "cannot create /nonexistent/dir/x.etl");
	p.size = 3;
	MISUSE(ntkl_um_start(&lg, "x", path, &p), -EINVAL, "set size = sizeof");
	p.size = sizeof(p);
	p.buffer_size_kb = 1;
	MISUSE(ntkl_um_start(&lg, "x", path, &p), -EINVAL, "buffer_size_kb 1: give 4..16384");
	p.buffer_size_kb = 0;
	p.minimum_buffers = 8;
	p.maximum_buffers = 4;
	MISUSE(ntkl_um_start(&lg, "x", path, &p), -EINVAL, "give 2 <= minimum <= maximum");
	p.minimum_buffers = p.maximum_buffers = 0;
	p.log_file_mode = 0x2;	/* CIRCULAR */
	MISUSE(ntkl_um_start(&lg, "x", path, &p), -EINVAL, "SEQUENTIAL, COMPRESSED and BLOCKING only");
	p.log_file_mode = 0;
	p.clock_type = 9;
	MISUSE(ntkl_um_start(&lg, "x", path, &p), -EINVAL, "give 1 (QPC), 2 (SYSTEM) or 3 (CYCLE)");
	p.clock_type = 0;
	CHECK(lg == NULL);
	CHECK_EQ(ntkl_um_start(&lg, "x", path, &p), 0);
	/* a second writer of the same file */
	MISUSE(ntkl_um_start(&lg2, "y", path, NULL), -EEXIST, "is being written");
	MISUSE(ntkl_um_register(lg, NULL, guid, 0, 0, &prov), -EINVAL, "provider name is NULL");
	MISUSE(ntkl_um_register(lg, "p", NULL, 0, 0, &prov), -EINVAL, "GUID is NULL");
	MISUSE(ntkl_um_register(lg, longname, guid, 0, 0, &prov), -EINVAL, "give 1..63");
	CHECK_EQ(ntkl_um_register(lg, "p", guid, 3, 0x4, &prov), 0);
	MISUSE(ntkl_um_schema(&s, "E", &bad, 1), -EINVAL, "an unknown type");
	MISUSE(ntkl_um_schema(&s, longname, NULL, 0), 0, "");
	{
		struct ntkl_um_field many[20];

		for (int i = 0; i < 20; i++)
			many[i] = (struct ntkl_um_field){ longname, NTKL_UM_UINT8, NULL, 0 };
		MISUSE(ntkl_um_schema(&s, "E", many, 20), -ENAMETOOLONG, "shorten them");
	}
	MISUSE(ntkl_um_write(NULL, &d, NULL, NULL, 0), -EINVAL, "the provider is NULL");
	MISUSE(ntkl_um_write(prov, &d, NULL, &huge, 1), -EMSGSIZE, "raise buffer_size_kb");
	/* not enabled: level 4 > 3, keyword 0x8 outside 0x4: nothing written */
	d.level = 4;
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, NULL, 0), 0);
	d.level = 1;
	d.keyword = 0x8;
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, NULL, 0), 0);
	d.keyword = 0x4;
	CHECK_EQ(ntkl_um_write(prov, &d, NULL, NULL, 0), 0);
	{
		struct ntkl_um_properties u = { .size = sizeof(u), .buffer_size_kb = 128 };

		MISUSE(ntkl_um_update(lg, &u), -EINVAL, "changes only flush_timer and maximum_buffers");
		u.buffer_size_kb = 0;
		u.maximum_buffers = 1000000;
		MISUSE(ntkl_um_update(lg, &u), -EINVAL, "what start reserved");
	}
	MISUSE(ntkl_um_query(NULL, &p), -EINVAL, "the logger is NULL");
	MISUSE(ntkl_um_query(lg, NULL), -EINVAL, "props is NULL");
	MISUSE(ntkl_um_flush(NULL), -EINVAL, "the logger is NULL");
	MISUSE(ntkl_um_stop(NULL, NULL), -EINVAL, "the logger is NULL");
	ntkl_um_unregister(prov);
	CHECK_EQ(ntkl_um_stop(lg, &p), 0);
	CHECK_EQ(p.events_written, 1);
	unlink(path);
	test_end();
}

/*
 * The providers enabled for the session, as Windows 8 and later record
 * them: a ProviderBinaryPath per (binary, provider) registered, naming
 * this test program (it calls ntkl_um_register) and the provider's GUID,
 * once however often the provider registers, before its events.
 */
static void test_provider_binaries(void)
{
	static const uint8_t guid2[16] = { 0x6c, 0x6b, 0x74, 0x6e, 2 };
	struct ntkl_um_properties p = { .size = sizeof(p) };
	struct ntkl_um_descriptor d = { .id = 3 };
	const char *path = tmp_path("binaries.etl");
	struct ntkl_um_logger *lg;
	struct ntkl_um_provider *a, *a2, *b;
	char self[512], *text = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *out;
	int first_event_line, first_binary_line, line = 0;

	test_begin("provider_binary_paths");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	CHECK_EQ(ntkl_um_start(&lg, "binaries", path, &p), 0);
	CHECK_EQ(ntkl_um_register(lg, "a", guid, 0, 0, &a), 0);
	CHECK_EQ(ntkl_um_register(lg, "a", guid, 0, 0, &a2), 0);
	CHECK_EQ(ntkl_um_register(lg, "b", guid2, 0, 0, &b), 0);
	CHECK_EQ(ntkl_um_write(a, &d, NULL, NULL, 0), 0);
	CHECK_EQ(ntkl_um_write(b, &d, NULL, NULL, 0), 0);
	ntkl_um_unregister(a);
	ntkl_um_unregister(a2);
	ntkl_um_unregister(b);
	CHECK_EQ(ntkl_um_stop(lg, &p), 0);
	/* the program's events only: the logger's records are not counted */
	CHECK_EQ(p.events_written, 2);
	CHECK_EQ(p.events_lost, 0);

	out = open_memstream(&text, &len);
	etl_dump_path(path, ETL_DUMP_EVENTS, out, out, "");
	fclose(out);
	CHECK_HAS(text, "  2  SYSTEM64            2  0x0043 EventTrace/ProviderBinaryPath\n");
	{
		char want[700];

		snprintf(want, sizeof(want),
			 "ProviderBinaryPath: GuidCount=1 Guid[0]={6e746b6c-0201-0403-0506-0708090a0b0c} BinaryPath=\"%s\"\n",
			 self);
		CHECK_HAS(text, want);
		snprintf(want, sizeof(want),
			 "ProviderBinaryPath: GuidCount=1 Guid[0]={6e746b6c-0002-0000-0000-000000000000} BinaryPath=\"%s\"\n",
			 self);
		CHECK_HAS(text, want);
		/* the summary: each provider, its events, its name and binary */
		snprintf(want, sizeof(want),
			 "       1  {6e746b6c-0201-0403-0506-0708090a0b0c}  a, %s\n", self);
		CHECK_HAS(text, want);
		snprintf(want, sizeof(want),
			 "       1  {6e746b6c-0002-0000-0000-000000000000}  b, %s\n", self);
		CHECK_HAS(text, want);
	}
	/* named before any event of theirs */
	first_event_line = first_binary_line = -1;
	for (char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL, line++) {
		if (first_binary_line < 0 && !strncmp(s, "[buf", 4) && strstr(s, "ProviderBinaryPath") &&
		    strstr(s, "ProviderBinaryPath") < strchr(s, '\n'))
			first_binary_line = line;
		if (first_event_line < 0 && !strncmp(s, "[buf", 4) && strstr(s, " provider {") &&
		    strstr(s, " provider {") < strchr(s, '\n'))
			first_event_line = line;
	}
	CHECK(first_binary_line >= 0 && first_binary_line < first_event_line);
	free(text);
	{
		char first[512];

		CHECK_EQ(check_file(path, first), 0);
	}
	unlink(path);
	test_end();
}

/* The Windows TraceLogging sample decodes from its schemas. */
static void test_sample_decodes(void)
{
	const char *dir = getenv("NTKL_SAMPLES_OUT");
	char path[512];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	test_begin("tracelogging_sample_decodes");
	snprintf(path, sizeof(path), "%s/TraceLoggingTester.etl",
		 dir ? dir : NTKL_DEFAULT_SAMPLES_OUT);
	if (access(path, R_OK)) {
		test_skip("tracelogging_sample_decodes",
			  "%s not here: extract etwanalyzer__TraceLoggingTester.7z (make -C userspace test does, SAMPLES=DIR)",
			  path);
		return;
	}
	out = open_memstream(&text, &len);
	etl_dump_path(path, ETL_DUMP_EVENTS, out, out, "");
	fclose(out);
	CHECK_HAS(text, "    MarkStringInteger: input=\"Hello, ETW with number\" number1=42\n");
	CHECK_HAS(text, "i16=-32768 i32=2147483647 i64=9223372036854775807 sb=-128 u16=65535");
	CHECK_HAS(text, "WriteGuid: guid={00000000-0000-0000-0000-000000000001}");
	/*
	 * The EventTrace layouts ProviderBinaryPath comes from, checked on
	 * Windows' own file: LastDroppedTimes, 20 times, decoded to its end.
	 */
	CHECK_HAS(text, "    LastDroppedTimes: TimeStampCount=20 TimeStamp[0]=0 ");
	CHECK_HAS(text, " TimeStamp[19]=0\n");
	/* its providers: 7 TraceLogging events x 10 named, the manifest one not */
	CHECK_HAS(text, "\nProviders:\n");
	CHECK_HAS(text, "      70  {a214eced-be64-5e23-fac1-1d7b9052efa4}  CSharpTraceLoggingEventSource\n");
	CHECK_HAS(text, "   47490  {a669021c-c450-4609-a035-5af59af4df18}  -\n");
	free(text);
	test_end();
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_libntkl.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_misuse();
	test_clock();
	test_other_clocks();
	test_flush_query_update();
	test_flush_timer();
	test_compressed_round_trip();
	test_compressed_write_failure();
	test_failed_start_keeps_the_file();
	test_sample_decodes();
	test_provider_binaries();
	/* lossy: few buffers, every loss counted; blocking: none lost */
	run_writers("lossy", 0, 2, 4);
	run_writers("blocking", NTKL_UM_MODE_BLOCKING, 2, 4);
	rmdir(tmpdir);
	return test_exit();
}
