// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl dump --repair's plan (etl/etl_repair.h): a healthy file needs
 * nothing, whatever wrote it (the Windows samples, ntkl's captures in
 * fuzz/seeds); a cut capture is repaired keeping EventsLost and
 * BuffersLost, with EndTime from its latest buffer; what is not an ETL
 * file, or is damaged before its end, is refused. The command applies
 * the plan in place (scripts/test_file_safety runs it on copies).
 */
#include <dirent.h>

#include "test.h"
#include "etl/etl_check.h"
#include "etl/etl_repair.h"
#include "etl/etl_reader.h"

#define SEEDS	"fuzz/seeds"

/* the plan of the size bytes at data: 0 or -1, msg the reason */
static int plan(const uint8_t *data, size_t size, struct etl_repair *r, char *msg, size_t n)
{
	struct etl_error err = { "" };
	int ret = etl_repair_plan(data, size, r, &err);

	snprintf(msg, n, "%s", err.msg);
	return ret;
}

/* A file of dir needs no repair: nothing to change, nothing cut. */
static void healthy(const char *dir, const char *name)
{
	struct etl_repair r;
	char path[4096], msg[300];
	size_t size;
	uint8_t *data;

	test_begin("nothing_to_repair_%s", name);
	data = test_read_file(test_path(path, sizeof(path), dir, name), &size);
	CHECK(data != NULL);
	if (data) {
		CHECK_EQ(plan(data, size, &r, msg, sizeof(msg)), 0);
		CHECK(!r.needed);
		CHECK_EQ(r.whole, size);
		CHECK_EQ(r.buffers, r.old_buffers_written);
	}
	free(data);
	test_end();
}

static bool is_etl(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".etl");
}

static void test_healthy_files(void)
{
	struct dirent *e;
	DIR *d;

	d = opendir(SEEDS);
	while (d && (e = readdir(d)))
		if (is_etl(e->d_name))
			healthy(SEEDS, e->d_name);
	if (d)
		closedir(d);
	if (!test_samples_here("nothing_to_repair_windows_samples"))
		return;
	d = opendir(test_samples_dir());
	while (d && (e = readdir(d)))
		if (is_etl(e->d_name))
			healthy(test_samples_dir(), e->d_name);
	if (d)
		closedir(d);
	/* the 7z one, where the Makefile extracted it */
	d = opendir(test_samples_out_dir());
	while (d && (e = readdir(d)))
		if (is_etl(e->d_name))
			healthy(test_samples_out_dir(), e->d_name);
	if (d)
		closedir(d);
}

/* the FILETIME of the largest buffer TimeStamp in the first whole bytes */
static int64_t latest_buffer_filetime(const uint8_t *data, size_t whole)
{
	struct etl_error err;
	struct etl_file f;
	int64_t latest = INT64_MIN, ft = 0;

	for (size_t off = 0; off < whole;) {
		struct wmi_buffer_header bh;

		memcpy(&bh, data + off, sizeof(bh));
		if (bh.timestamp > latest)
			latest = bh.timestamp;
		off += bh.buffer_size;
	}
	if (!etl_open_memory(&f, "t", data, whole, &err)) {
		etl_time_to_filetime(&f, latest, &ft);
		etl_close(&f);
	}
	return ft;
}

/*
 * A capture cut inside its buffer 5 (a writer killed mid-write), whose
 * logger had lost 3 events and 1 buffer: the plan cuts the partial
 * buffer, counts the whole ones, takes EndTime from the latest buffer,
 * keeps the losses; applied, the file passes every check and needs no
 * second repair.
 */
static void test_cut_capture(void)
{
	struct trace_logfile_header h;
	struct etl_check_stats st;
	struct etl_repair r, again;
	struct etl_error err;
	struct etl_file f;
	char msg[300];
	size_t size, cut;
	uint8_t *data;

	test_begin("cut_capture_keeps_losses_and_gets_the_last_buffers_end_time");
	data = test_read_file(SEEDS "/ntkl-full-4k.etl", &size);
	CHECK(data != NULL && size > 6 * 4096);
	if (!data || size <= 6 * 4096) {
		free(data);
		test_end();
		return;
	}
	memcpy(&h, data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, sizeof(h));
	h.events_lost = 3;
	h.buffers_lost = 1;
	memcpy(data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, &h, sizeof(h));
	cut = 5 * 4096 + 1000;
	CHECK_EQ(plan(data, cut, &r, msg, sizeof(msg)), 0);
	CHECK(r.needed);
	CHECK_EQ(r.whole, 5 * 4096);
	CHECK_EQ(r.buffers, 5);
	CHECK_EQ(r.events_lost, 3);
	CHECK_EQ(r.buffers_lost, 1);
	CHECK_EQ(r.end_time, latest_buffer_filetime(data, r.whole));
	CHECK(r.end_time >= h.start_time);
	etl_repair_apply(data, &r);
	memcpy(&h, data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, sizeof(h));
	CHECK_EQ(h.events_lost, 3);
	CHECK_EQ(h.buffers_lost, 1);
	CHECK_EQ(h.buffers_written, 5);
	CHECK_EQ(h.end_time, r.end_time);
	CHECK_EQ(etl_open_memory(&f, "repaired", data, r.whole, &err), 0);
	CHECK_EQ(etl_check(&f, false, NULL, NULL, &st), 0);
	etl_close(&f);
	CHECK_EQ(plan(data, r.whole, &again, msg, sizeof(msg)), 0);
	CHECK(!again.needed);
	free(data);
	test_end();
}

/* Whole buffers but a stale BuffersWritten (killed between write and patch). */
static void test_stale_count(void)
{
	struct trace_logfile_header h;
	struct etl_repair r;
	char msg[300];
	size_t size;
	uint8_t *data;

	test_begin("stale_buffers_written_is_repaired_nothing_cut");
	data = test_read_file(SEEDS "/ntkl-compact-4k.etl", &size);
	CHECK(data != NULL);
	if (data) {
		memcpy(&h, data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, sizeof(h));
		h.buffers_written -= 2;
		memcpy(data + ETL_REPAIR_LOGFILE_HEADER_OFFSET, &h, sizeof(h));
		CHECK_EQ(plan(data, size, &r, msg, sizeof(msg)), 0);
		CHECK(r.needed);
		CHECK_EQ(r.whole, size);
		CHECK_EQ(r.buffers, h.buffers_written + 2);
	}
	free(data);
	test_end();
}

/* Zeros the file system never filled, after the last whole buffer: cut. */
static void test_zero_tail(void)
{
	struct etl_repair r;
	char msg[300];
	size_t size;
	uint8_t *data, *big;

	test_begin("zero_filled_tail_is_cut");
	data = test_read_file(SEEDS "/ntkl-compact-4k.etl", &size);
	big = data ? calloc(1, size + 8192) : NULL;
	CHECK(big != NULL);
	if (big) {
		memcpy(big, data, size);
		CHECK_EQ(plan(big, size + 8192, &r, msg, sizeof(msg)), 0);
		CHECK(r.needed);
		CHECK_EQ(r.whole, size);
	}
	free(big);
	free(data);
	test_end();
}

/* Not ETL, or damaged before the end: refused, with the reason. */
static void test_refused(void)
{
	static const char text[] = "this is a text file, not a trace\n";
	uint8_t junk[20000];
	struct etl_repair r;
	uint64_t seed = 33;
	char msg[300];
	size_t size;
	uint8_t *data;

	test_begin("random_bytes_are_not_an_etl_file");
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)test_rand(&seed);
	CHECK_EQ(plan(junk, sizeof(junk), &r, msg, sizeof(msg)), -1);
	CHECK_HAS(msg, "not an ETL file");
	/* a plausible BufferSize first, random after: still not one */
	memcpy(junk, (const uint32_t[]){ 4096 }, 4);
	CHECK_EQ(plan(junk, sizeof(junk), &r, msg, sizeof(msg)), -1);
	CHECK_HAS(msg, "not an ETL file");
	test_end();

	test_begin("text_file_is_not_an_etl_file");
	memset(junk, ' ', sizeof(junk));
	memcpy(junk, text, sizeof(text) - 1);
	CHECK_EQ(plan(junk, 4096, &r, msg, sizeof(msg)), -1);
	CHECK_HAS(msg, "not an ETL file");
	test_end();

	test_begin("cut_header_buffer_is_refused");
	data = test_read_file(SEEDS "/ntkl-full-4k.etl", &size);
	CHECK(data != NULL);
	if (data) {
		CHECK_EQ(plan(data, 2000, &r, msg, sizeof(msg)), -1);
		CHECK_HAS(msg, "the header buffer (buffer 0) itself is cut short");
	}
	test_end();

	test_begin("damage_before_the_end_is_refused");
	if (data) {
		/* buffer 3's BufferSize 0x10: nothing whole can follow it */
		memcpy(data + 3 * 4096, (const uint32_t[]){ 0x10 }, 4);
		CHECK_EQ(plan(data, size, &r, msg, sizeof(msg)), -1);
		CHECK_HAS(msg, "damaged before its end");
	}
	free(data);
	test_end();
}

int main(void)
{
	test_healthy_files();
	test_cut_capture();
	test_stale_count();
	test_zero_tail();
	test_refused();
	return test_exit();
}
