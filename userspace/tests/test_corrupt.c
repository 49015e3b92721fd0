// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged files: truncated, one byte flipped, sizes and offsets out of
 * range, short payloads for every decoder, and a deterministic fuzz loop.
 * Every input lives in an exactly-sized malloc, so the ASan build of this
 * test catches any read past it; each case asserts on the message (buffer
 * index, offset, what is wrong) where there is one.
 */
#include <inttypes.h>
#include <unistd.h>

#include "test.h"
#include "etl_synth.h"
#include "etl/etl_check.h"
#include "analysis/etl_dump.h"
#include "etl/etl_reader.h"
#include "etl/etl_decode.h"

#define SPDL	"airbus-etl-parser__ShutdownPerfDiagLogger.etl"
#define LXCORE	"airbus-etl-parser__lxcore_kernel.etl"

static uint8_t *spdl, *lxcore;
static size_t spdl_size, lxcore_size;
static FILE *devnull;

/* Result of opening and checking an image: the first message, if any. */
struct outcome {
	bool opened;
	unsigned long violations;
	char msg[512];			/* open error or first violation */
};

static void first_violation(void *ctx, const char *msg)
{
	struct outcome *o = ctx;

	if (!o->msg[0])
		snprintf(o->msg, sizeof(o->msg), "%s", msg);
}

/* Collect every violation, one per line. */
static void append_msg(void *ctx, const char *msg)
{
	char *all = ctx;
	size_t n = strlen(all);

	snprintf(all + n, 2048 - n, "%s\n", msg);
}

/* Open (from an exactly-sized copy) and run the strict checks. */
static struct outcome check_image(const uint8_t *data, size_t size)
{
	struct outcome o = { 0 };
	uint8_t *copy = test_copy(data, size);
	struct etl_error err;
	struct etl_file f;

	if (etl_open_memory(&f, "image", copy, size, &err)) {
		snprintf(o.msg, sizeof(o.msg), "%s", err.msg);
	} else {
		o.opened = true;
		o.violations = etl_check(&f, false, first_violation, &o, NULL);
		etl_close(&f);
	}
	free(copy);
	return o;
}

/* The dump command's code paths on an image; returns the status of each. */
static int dump_image(const uint8_t *data, size_t size, unsigned int flags)
{
	uint8_t *copy = test_copy(data, size);
	int rc = etl_dump_memory("image", copy, size, flags, devnull, devnull, "");

	free(copy);
	return rc;
}

/* A copy of src with one byte set. */
static uint8_t *patched(const uint8_t *src, size_t size, size_t off, uint8_t v)
{
	uint8_t *p = test_copy(src, size);

	p[off] = v;
	return p;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

/*
 * Expect a check failure whose first message is exactly want. The plain
 * dump reads on: it fails only when the reader itself stops (read_error).
 */
static void expect_violation(const uint8_t *img, size_t size, const char *want,
			     bool read_error)
{
	struct outcome o = check_image(img, size);

	CHECK(o.opened);
	CHECK(o.violations >= 1);
	CHECK_STR(o.msg, want);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_CHECK), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_CHECK | ETL_DUMP_EVENTS), 1);
	if (read_error)
		CHECK_EQ(dump_image(img, size, ETL_DUMP_EVENTS), 1);
	else
		CHECK_EQ(dump_image(img, size, ETL_DUMP_EVENTS), 0);
}

/* A violation the reader also stops at (dump fails too). */
static void expect_first(const uint8_t *img, size_t size, const char *want)
{
	expect_violation(img, size, want, true);
}

/* A violation only the strict check sees (the file still reads). */
static void expect_strict(const uint8_t *img, size_t size, const char *want)
{
	expect_violation(img, size, want, false);
}

/* Expect etl_open itself to fail with exactly want. */
static void expect_open_error(const uint8_t *img, size_t size, const char *want)
{
	struct outcome o = check_image(img, size);

	CHECK(!o.opened);
	CHECK_STR(o.msg, want);
	CHECK_EQ(dump_image(img, size, 0), 1);
}

/* ---------------------------------------------------------------------- */
/* Tiny and truncated files                                                */
/* ---------------------------------------------------------------------- */

static void test_tiny_files(void)
{
	char path[] = "/tmp/ntkl-test-empty-XXXXXX";
	struct etl_error err;
	struct etl_file f;
	int fd;

	test_begin("empty_file");
	expect_open_error(lxcore, 0, "empty file (0 bytes): not an ETL file");
	/* Through etl_open too: a zero-length file cannot be mapped. */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		close(fd);
		CHECK_EQ(etl_open(&f, path, &err), -1);
		CHECK_STR(err.msg, "empty file (0 bytes): not an ETL file");
		CHECK_EQ(etl_dump_path(path, 0, devnull, devnull, ""), 1);
		unlink(path);
	}
	CHECK_EQ(etl_open(&f, "/nonexistent/ntkl.etl", &err), -1);
	CHECK_HAS(err.msg, "cannot open: No such file");
	test_end();

	test_begin("smaller_than_buffer_header");
	expect_open_error(lxcore, 1,
		"file is 1 bytes, smaller than one buffer header (0x48): not an ETL file");
	expect_open_error(lxcore, 0x47,
		"file is 71 bytes, smaller than one buffer header (0x48): not an ETL file");
	test_end();
}

/* Cut img at every 4 KiB boundary: never OK, never a crash. */
static void truncate_every_4k(const char *name, const uint8_t *img, size_t size,
			      uint32_t buffer_size, unsigned int dump_flags)
{
	test_begin("truncated_every_4k_%s", name);
	for (size_t cut = 0; cut < size; cut += 4096) {
		struct outcome o = check_image(img, cut);

		if (cut < buffer_size) {
			/* Buffer 0 itself is cut: the open fails. */
			CHECK_MSG(!o.opened, "cut at 0x%zx: opened", cut);
			CHECK_MSG(cut < 0x48 || strstr(o.msg, "truncated file"),
				  "cut at 0x%zx: \"%s\"", cut, o.msg);
		} else if (cut % buffer_size == 0) {
			/* Whole buffers missing: the count gives it away. */
			char want[128];

			snprintf(want, sizeof(want),
				 "file: %zu buffers in the file, but the header's BuffersWritten is",
				 cut / buffer_size);
			CHECK_MSG(o.opened && o.violations && strstr(o.msg, want),
				  "cut at 0x%zx: \"%s\"", cut, o.msg);
		} else {
			char want[128];

			snprintf(want, sizeof(want), "buffer %zu (file offset 0x%zx): BufferSize",
				 cut / buffer_size, cut / buffer_size * buffer_size);
			CHECK_MSG(o.opened && strstr(o.msg, want) &&
				  strstr(o.msg, "truncated file"),
				  "cut at 0x%zx: \"%s\"", cut, o.msg);
		}
		CHECK_MSG(dump_image(img, cut, dump_flags) == 1 &&
			  dump_image(img, cut, ETL_DUMP_CHECK) == 1,
			  "cut at 0x%zx: dump did not fail", cut);
	}
	test_end();
}

static void test_truncated(void)
{
	static const size_t odd[] = {
		0x48, 0x49, 0x4F, 0x50, 0x67, 0x68, 0x100, 0x1B7, 0x1FF,
		0x1FFF, 0x2001, 0x2047, 0x2048, 0x2049, 0x204B, 0x2097,
		0x21A0, 0x3FFF, 0x4001, 0x5FFF,
	};

	truncate_every_4k("lxcore_kernel", lxcore, lxcore_size, 0x2000,
			  ETL_DUMP_EVENTS);
	/* Summary only: 784 cuts of a 3 MiB file with every event printed is slow under ASan. */
	truncate_every_4k("ShutdownPerfDiagLogger", spdl, spdl_size, 0x10000, 0);

	test_begin("truncated_odd_offsets");
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		struct outcome o = check_image(lxcore, odd[i]);

		if (o.opened && !o.violations)
			test_fail("cut at 0x%zx: passed the check", odd[i]);
		if (!o.msg[0])
			test_fail("cut at 0x%zx: no message", odd[i]);
		if (dump_image(lxcore, odd[i], ETL_DUMP_EVENTS) != 1)
			test_fail("cut at 0x%zx: dump did not fail", odd[i]);
	}
	expect_open_error(lxcore, 0x100,
		"buffer 0 (file offset 0x0): BufferSize 0x2000 runs past the end of the file (0x100 bytes left): truncated file (ntkl dump --repair cuts the partial buffer off)");
	{
		struct outcome o = check_image(lxcore, 0x2049);

		/* 0x49 bytes: the buffer header fits, the buffer does not. */
		CHECK_STR(o.msg,
			  "buffer 1 (file offset 0x2000): BufferSize 0x2000 runs past the end of the file (0x49 bytes left): truncated file (ntkl dump --repair cuts the partial buffer off)");
	}
	test_end();

	test_begin("truncated_last_byte");
	{
		struct outcome o = check_image(lxcore, lxcore_size - 1);

		CHECK_STR(o.msg,
			  "buffer 2 (file offset 0x4000): BufferSize 0x2000 runs past the end of the file (0x1fff bytes left): truncated file (ntkl dump --repair cuts the partial buffer off)");
	}
	test_end();
}

/* ---------------------------------------------------------------------- */
/* One byte flipped                                                        */
/* ---------------------------------------------------------------------- */

/* SPDL buffer 1 starts at 0x10000; its first record (GroupMasksEnd,
 * PERFINFO64, Size 0x34) at +0x48, the second at +0x80. */
#define B1		0x10000
#define B1_REC0		(B1 + 0x48)
#define B1_REC1		(B1 + 0x80)

static void test_flipped(void)
{
	uint8_t *img;

	test_begin("flip_header_type");
	img = patched(spdl, spdl_size, B1_REC0 + 2, 0xEE);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: unknown header type 0xee (first dword 0xc0ee0002)");
	free(img);
	test_end();

	test_begin("flip_flags_byte");
	img = patched(spdl, spdl_size, B1_REC0 + 3, 0x40);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: flags byte 0x40, every record must have 0xC0 (PERFINFO64, Size 0x34)");
	free(img);
	test_end();

	test_begin("flip_size_byte_up");
	img = patched(spdl, spdl_size, B1_REC0 + 4, 0xFF);
	/* The layout size names the cause; the walk then trips on the next one. */
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: EventTrace/GroupMasksEnd payload is 0xef bytes, its layout has 0x24 (Size 0xff)");
	{
		struct etl_file f;
		struct etl_error err;
		char all[2048] = "";

		CHECK_EQ(etl_open_memory(&f, "img", img, spdl_size, &err), 0);
		CHECK_EQ(etl_check(&f, false, append_msg, all, NULL), 2);
		CHECK_HAS(all, "buffer 1 (file offset 0x10000): record at +0x148: unknown header type 0x06 (first dword 0x45066000) (after the record at +0x48: PERFINFO64 EventTrace/GroupMasksEnd, Size 0xff)");
		etl_close(&f);
	}
	free(img);
	test_end();

	test_begin("flip_size_byte_down");
	img = patched(spdl, spdl_size, B1_REC0 + 4, 0x08);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: Size 0x8 is smaller than its PERFINFO64 header (0x10)");
	free(img);
	test_end();

	test_begin("flip_size_high_byte");
	img = patched(spdl, spdl_size, B1_REC0 + 5, 0xFF);	/* Size 0xff34 */
	/* 0x48 + 0xff34 lands exactly on SavedOffset: only the layout size tells. */
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: EventTrace/GroupMasksEnd payload is 0xff24 bytes, its layout has 0x24 (Size 0xff34)");
	free(img);
	test_end();

	test_begin("size_past_filled_end");
	img = patched(spdl, spdl_size, B1_REC0 + 5, 0xFF);
	img[B1_REC0 + 4] = 0x40;	/* Size 0xff40 */
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: Size 0xff40 runs past the filled end of the buffer (0xff80)");
	free(img);
	test_end();

	test_begin("size_zero");
	img = test_copy(spdl, spdl_size);
	put_le16(img + B1_REC0 + 4, 0);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: Size 0x0 is smaller than its PERFINFO64 header (0x10)");
	free(img);
	test_end();

	test_begin("flip_to_32bit_kernel_header");
	img = patched(spdl, spdl_size, B1_REC0 + 2, ETW_HEADER_TYPE_PERFINFO32);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x48: 32-bit kernel header PERFINFO32 in a file with PointerSize 8");
	free(img);
	test_end();

	test_begin("timestamp_backwards");
	img = test_copy(spdl, spdl_size);
	memset(img + B1_REC1 + 8, 0, 8);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): record at +0x80: TimeStamp 0 is before the previous record's 295203045652 (at +0x48)");
	free(img);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Buffer header fields                                                    */
/* ---------------------------------------------------------------------- */

#define BUF_FIELD(b, field)	((b) + offsetof(struct wmi_buffer_header, field))
#define HDR_FIELD(field)	(0x48 + sizeof(struct system_trace_header) + \
				 offsetof(struct trace_logfile_header, field))

static void test_buffer_fields(void)
{
	uint8_t *img;

	test_begin("buffer_size_zero");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, buffer_size), 0);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): BufferSize 0x0 is smaller than the buffer header (0x48)");
	put_le32(img + BUF_FIELD(0, buffer_size), 0);
	expect_open_error(img, spdl_size,
		"buffer 0 (file offset 0x0): BufferSize 0x0 is smaller than the buffer header (0x48)");
	free(img);
	test_end();

	test_begin("buffer_size_past_eof");
	img = test_copy(lxcore, lxcore_size);
	put_le32(img + BUF_FIELD(0x4000, buffer_size), 0x4000);
	expect_first(img, lxcore_size,
		"buffer 2 (file offset 0x4000): BufferSize 0x4000 runs past the end of the file (0x2000 bytes left): truncated file (ntkl dump --repair cuts the partial buffer off)");
	free(img);
	test_end();

	test_begin("buffer_size_larger_than_header");
	img = test_copy(lxcore, lxcore_size);
	put_le32(img + BUF_FIELD(0x4000, buffer_size), 0x1FF8);	/* leaves 8 bytes */
	{
		struct outcome o = check_image(img, lxcore_size);

		CHECK(o.opened && o.violations);
		CHECK_STR(o.msg,
			  "buffer 3 (file offset 0x5ff8): only 0x8 bytes left, a buffer header needs 0x48: truncated file (ntkl dump --repair cuts the partial buffer off)");
	}
	put_le32(img + BUF_FIELD(0x4000, buffer_size), 0x2000);
	put_le32(img + BUF_FIELD(0, buffer_size), 0x2000);
	put_le32(img + HDR_FIELD(buffer_size), 0x1000);
	expect_strict(img, lxcore_size,
		"buffer 0 (file offset 0x0): BufferSize 0x2000 is larger than the header's BufferSize 0x1000");
	free(img);
	test_end();

	test_begin("buffer_size_not_multiple_of_8");
	img = test_copy(lxcore, lxcore_size);
	put_le32(img + BUF_FIELD(0x4000, buffer_size), 0x1FFC);	/* 4 bytes left after it */
	expect_first(img, lxcore_size,
		"buffer 2 (file offset 0x4000): BufferSize 0x1ffc is not a multiple of 8: the next buffer's records would be misaligned");
	free(img);
	test_end();

	test_begin("saved_offset_past_buffer_size");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, saved_offset), 0x20000);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): SavedOffset 0x20000 is past BufferSize 0x10000");
	free(img);
	test_end();

	test_begin("saved_offset_inside_header");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, saved_offset), 0x10);
	put_le32(img + BUF_FIELD(B1, offset), 0x10);
	expect_first(img, spdl_size,
		"buffer 1 (file offset 0x10000): SavedOffset 0x10 is inside the buffer header (< 0x48)");
	free(img);
	test_end();

	test_begin("saved_offset_mid_record");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, saved_offset), 0x7C);	/* 4 bytes short of record 1 */
	put_le32(img + BUF_FIELD(B1, offset), 0x7C);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): SavedOffset 0x7c is not a multiple of 8");
	{
		struct outcome o = check_image(img, spdl_size);

		CHECK_EQ(o.violations, 2);
	}
	free(img);
	test_end();

	test_begin("offset_differs_from_saved_offset");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, offset), 0xFF88);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): Offset 0xff88 differs from SavedOffset 0xff80");
	free(img);
	test_end();

	test_begin("header_buffer_type");
	img = test_copy(spdl, spdl_size);
	put_le16(img + BUF_FIELD(0, buffer_type), ETW_BUFFER_TYPE_GENERIC);
	expect_strict(img, spdl_size,
		"buffer 0 (file offset 0x0): BufferType 0 (GENERIC), the header buffer must be HEADER (4)");
	free(img);
	test_end();

	/* An uncompressed buffer flagged COMPRESSED is not an LZ77 stream. */
	test_begin("compressed_flag_on_plain_buffer");
	img = test_copy(spdl, spdl_size);
	put_le16(img + BUF_FIELD(0x20000, buffer_flag), 0x60);
	expect_first(img, spdl_size,
		"buffer 2 (file offset 0x20000): corrupt compressed data at +0x4c (of BufferSize 0x10000): a match reaches before the start of the output (0x48 of SavedOffset 0xff90 bytes decompressed)");
	put_le16(img + BUF_FIELD(0, buffer_flag), 0x61);
	expect_open_error(img, spdl_size,
		"buffer 0 (file offset 0x0): corrupt compressed data at +0x4c (of BufferSize 0x10000): a match reaches before the start of the output (0x48 of SavedOffset 0x2b0 bytes decompressed)");
	free(img);
	test_end();

	test_begin("sequence_number_duplicate");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(0x20000, sequence_number), 1);	/* buffer 1 has 1 */
	expect_strict(img, spdl_size,
		"buffer 2 (file offset 0x20000): SequenceNumber 1 was already used by an earlier buffer");
	free(img);
	test_end();

	test_begin("sequence_number_too_large");
	img = test_copy(spdl, spdl_size);
	put_le32(img + BUF_FIELD(B1, sequence_number), 49);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): SequenceNumber 49 is outside 1..48 (BuffersWritten 49 - 1)");
	free(img);
	test_end();

	test_begin("processor_index_too_large");
	img = test_copy(spdl, spdl_size);
	put_le16(img + BUF_FIELD(B1, processor_index), 2);
	expect_strict(img, spdl_size,
		"buffer 1 (file offset 0x10000): ProcessorIndex 2 is not below NumberOfProcessors 2");
	free(img);
	test_end();

	test_begin("buffers_written_mismatch");
	img = test_copy(spdl, spdl_size);
	put_le32(img + HDR_FIELD(buffers_written), 50);
	expect_first(img, spdl_size,
		"file: 49 buffers in the file, but the header's BuffersWritten is 50");
	free(img);
	test_end();

	test_begin("pointer_size_4");
	img = test_copy(spdl, spdl_size);
	put_le32(img + HDR_FIELD(pointer_size), 4);
	expect_strict(img, spdl_size, "file: Header PointerSize 4, expected 8 (64-bit)");
	free(img);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* The header event and record-level structure                             */
/* ---------------------------------------------------------------------- */

static void test_records(void)
{
	uint8_t *img;

	test_begin("header_event_payload_short");
	img = test_copy(spdl, spdl_size);
	put_le16(img + 0x48 + 4, 0x20 + 0x100);
	expect_open_error(img, spdl_size,
		"buffer 0 (file offset 0x0): record at +0x48: Header event payload is 0x100 bytes, TRACE_LOGFILE_HEADER needs 0x118");
	free(img);
	test_end();

	test_begin("first_record_not_header");
	img = test_copy(spdl, spdl_size);
	put_le16(img + 0x48 + 6, ETW_EVENT_HEADER_EXTENSION_HOOK);
	expect_open_error(img, spdl_size,
		"not an ETL file: no Header event at file offset 0x48, where every ETL file has one (first dword 0xc0020002, hook 0x0005)");
	free(img);
	test_end();

	test_begin("header_event_wrong_version");
	img = test_copy(spdl, spdl_size);
	img[0x48] = 3;		/* Marker version 2 -> 3 */
	expect_strict(img, spdl_size,
		"buffer 0 (file offset 0x0): record at +0x48: the first record must be the Header event (SYSTEM64, group 0, type 0, version 2), not SYSTEM64 hook 0x0000 version 3");
	free(img);
	test_end();

	test_begin("non_group0_in_header_buffer");
	img = test_copy(spdl, spdl_size);
	put_le16(img + 0x218 + 6, ETW_EVENT_THREAD_START_HOOK);	/* the Extension event */
	expect_strict(img, spdl_size,
		"buffer 0 (file offset 0x0): record at +0x218: the header buffer holds only group-0 (EventTrace) and SystemConfig CPU events, not SYSTEM64 Thread/Start");
	free(img);
	test_end();

	/* lxcore buffer 1: one EVENT_HEADER record at 0x2048 filling to 0x1a0. */
	test_begin("end_marker_then_garbage");
	img = test_copy(lxcore, lxcore_size);
	put_le32(img + 0x2048, ETW_END_OF_RECORDS_MARKER);
	expect_strict(img, lxcore_size,
		"buffer 1 (file offset 0x2000): end-of-records marker at +0x48, but the byte at +0x4c is 0x01, not 0xFF fill (records must fill up to SavedOffset 0x1a0)");
	free(img);
	test_end();

	test_begin("end_marker_then_fill_is_fine");
	img = test_copy(lxcore, lxcore_size);
	memset(img + 0x2048, 0xFF, 0x1A0 - 0x48);
	{
		struct outcome o = check_image(img, lxcore_size);

		CHECK(o.opened);
		CHECK_EQ(o.violations, 0);
		CHECK_STR(o.msg, "");
		CHECK_EQ(dump_image(img, lxcore_size, ETL_DUMP_EVENTS), 0);
	}
	free(img);
	test_end();

	test_begin("ext_item_size_zero");
	img = test_copy(lxcore, lxcore_size);
	put_le16(img + 0x2048 + 0x50, 0);
	expect_first(img, lxcore_size,
		"buffer 1 (file offset 0x2000): record at +0x48: extended data item at +0x50: size 0x0 is less than 8 + DataSize 0x38");
	free(img);
	test_end();

	test_begin("ext_item_past_record");
	img = test_copy(lxcore, lxcore_size);
	put_le16(img + 0x2048 + 0x50, 0xFFF0);
	expect_first(img, lxcore_size,
		"buffer 1 (file offset 0x2000): record at +0x48: extended data item at +0x50 (size 0xfff0) runs past the record end (Size 0x158)");
	/* A chain that never ends: linkage "more" on every item. */
	put_le16(img + 0x2048 + 0x50, 0x18);
	put_le16(img + 0x2048 + 0x68 + 4, 1);
	{
		struct outcome o = check_image(img, lxcore_size);

		CHECK_HAS(o.msg, "buffer 1 (file offset 0x2000): record at +0x48: extended data item at +0x");
	}
	free(img);
	test_end();
}

/*
 * What Windows 8 writes (the PerfView sample, build 9200) is not damage: a
 * Thread v3 event that ends at its fixed fields, and a SystemConfig event
 * a process logged with a SYSTEM32 header in a 64-bit file. A 32-bit
 * header on an event ntkl writes still is.
 */
static void test_windows8_shapes(void)
{
	struct etw_thread_v3 th = { .process_id = 4, .thread_id = 8 };
	struct system_trace_header h32 = {
		.marker = ETW_MARKER(ETW_HEADER_TYPE_SYSTEM32, 2),
		.size = sizeof(h32) + 36,
		.hook_id = ETW_EVENT_CONFIG_IDECHANNEL_HOOK,
		.system_time = SYNTH_START_CLOCK + 2,
	};
	uint8_t zeros[36] = { 0 };
	uint8_t *img;
	struct synth s;
	size_t size;

	test_begin("windows8_shapes_pass");
	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_system_record(&s, ETW_EVENT_THREAD_DC_START_HOOK,
			    etw_events[ETW_EVENT_THREAD_DC_START].version,
			    SYNTH_START_CLOCK + 1, &th, sizeof(th));
	synth_raw(&s, &h32, sizeof(h32), zeros, sizeof(zeros));
	img = synth_end(&s, &size);
	CHECK(img != NULL);
	if (img) {
		struct outcome o = check_image(img, size);
		char *text = NULL;
		size_t len;
		FILE *m = open_memstream(&text, &len);

		CHECK(o.opened);
		CHECK_STR(o.msg, "");
		etl_dump_memory("image", img, size, ETL_DUMP_EVENTS, m, m, "");
		fclose(m);
		CHECK_HAS(text, "ThreadFlags=0x0\n");	/* no ThreadName, not short */
		CHECK(text && !strstr(text, "short"));
		free(text);

		/* The same SYSTEM32 header on a Thread event is damage. */
		put_le32(img + 0x1000 + ETL_BUFFER_HEADER_SIZE,
			 ETW_MARKER(ETW_HEADER_TYPE_SYSTEM32, 3));
		expect_strict(img, size,
			"buffer 1 (file offset 0x1000): record at +0x48: 32-bit kernel header SYSTEM32 in a file with PointerSize 8");
	}
	free(img);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Compressed buffers (the PerfView sample's first two buffers)            */
/* ---------------------------------------------------------------------- */

#define NET		"perfview__net.4.5.2.x64.etl"
#define NET_B1		0x200		/* after the 0x200-byte header buffer */
#define NET_B1_DISK	0x3AA8		/* its BufferSize: compressed */
#define NET_B1_SAVED	0xFFB0		/* its SavedOffset: uncompressed */
#define NET_SLICE	(NET_B1 + NET_B1_DISK)

#define NET_B1_ERR	"buffer 1 (file offset 0x200): "

/* The first error of a walk over every buffer, "" if none. */
static void walk_error(const uint8_t *img, size_t size, char *msg, size_t len)
{
	struct etl_error err;
	struct etl_file f;

	msg[0] = '\0';
	if (etl_open_memory(&f, "image", img, size, &err)) {
		snprintf(msg, len, "%s", err.msg);
		return;
	}
	if (etl_count_buffers(&f, &err) < 0)
		snprintf(msg, len, "%s", err.msg);
	etl_close(&f);
}

/* A damaged buffer 1: one exact message, and every dump mode fails on it. */
static void expect_net_error(const uint8_t *img, size_t size, const char *want)
{
	char msg[256];

	walk_error(img, size, msg, sizeof(msg));
	CHECK_STR(msg, want);
	CHECK_EQ(dump_image(img, size, 0), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_EVENTS), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_CHECK), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_STATS), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_SWITCHES), 1);
}

/*
 * A compressed buffer of 15 bytes that decompresses to 16 MB: one literal,
 * then a match one byte back whose length takes the 32-bit escape; the
 * flag word's third bit, a match with no input left, ends the stream.
 */
#define BOMB_STREAM	15
#define BOMB_SIZE	(ETL_BUFFER_HEADER_SIZE + BOMB_STREAM)
#define BOMB_INFLATED	(16u << 20)

static void put_bomb(uint8_t *p, const uint8_t *header)
{
	static const uint8_t stream[BOMB_STREAM - 4] = {
		0x00, 0x00, 0x00, 0x60,	/* literal, match, end */
		'x', 0x07, 0x00,	/* distance 1, length 7 + the nibble's */
		0x0F, 0xFF, 0x00, 0x00,	/* 15, 255, 0: a 32-bit length follows */
	};

	memcpy(p, header, ETL_BUFFER_HEADER_SIZE);
	put_le32(p + offsetof(struct wmi_buffer_header, buffer_size), BOMB_SIZE);
	put_le32(p + offsetof(struct wmi_buffer_header, saved_offset),
		 ETL_BUFFER_HEADER_SIZE + BOMB_INFLATED);
	memcpy(p + ETL_BUFFER_HEADER_SIZE, stream, sizeof(stream));
	/* the length, less the 3 of every match: one byte is the literal */
	put_le32(p + ETL_BUFFER_HEADER_SIZE + sizeof(stream), BOMB_INFLATED - 1 - 3);
}

/*
 * Buffers of a few bytes that each decompress to 16 MB: the first few
 * read, then the walk stops where the file's buffers would decompress to
 * more than 64 MB plus ETL_INFLATE_PER_BYTE times its size, rather than
 * doing 16 MB of work for every 63 bytes of the file.
 */
static void test_compressed_bombs(const uint8_t *slice)
{
	enum { BOMBS = 64 };
	size_t size = NET_SLICE + BOMBS * BOMB_SIZE;
	uint8_t *img = malloc(size);
	uint64_t left = ETL_MAX_INFLATED_SIZE + (uint64_t)ETL_INFLATE_PER_BYTE * size;
	char msg[256], want[256];
	unsigned int i = 0;

	test_begin("compressed_bombs_bounded");
	memcpy(img, slice, NET_SLICE);
	for (int k = 0; k < BOMBS; k++)
		put_bomb(img + NET_SLICE + k * BOMB_SIZE, slice + NET_B1);
	left -= NET_B1_SAVED;
	while (left >= ETL_BUFFER_HEADER_SIZE + BOMB_INFLATED) {
		left -= ETL_BUFFER_HEADER_SIZE + BOMB_INFLATED;
		i++;
	}
	CHECK(i >= 4 && i < BOMBS);
	snprintf(want, sizeof(want),
		 "buffer %u (file offset 0x%zx): compressed, and with its SavedOffset 0x%x the file's buffers decompress to more than %u MB plus %u times the file's size, far beyond real traces (about 5 times): a corrupt file",
		 2 + i, (size_t)NET_SLICE + i * BOMB_SIZE, ETL_BUFFER_HEADER_SIZE + BOMB_INFLATED,
		 ETL_MAX_INFLATED_SIZE >> 20, ETL_INFLATE_PER_BYTE);
	/* the message as a user reads it, its figures spelled out once */
	CHECK(strstr(want, "more than 64 MB plus 64 times") != NULL);
	walk_error(img, size, msg, sizeof(msg));
	CHECK_STR(msg, want);
	/* every reader stops there too */
	CHECK_EQ(dump_image(img, size, ETL_DUMP_EVENTS), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_STATS), 1);
	CHECK_EQ(dump_image(img, size, ETL_DUMP_SWITCHES), 1);

	/* three of them, 48 MB, are within the floor: such a file reads whole */
	size = NET_SLICE + 3 * BOMB_SIZE;
	walk_error(img, size, msg, sizeof(msg));
	CHECK_STR(msg, "");
	free(img);
	test_end();
}

static void test_compressed(const uint8_t *slice)
{
	uint64_t seed = 0x5eed0003;
	unsigned long failed = 0;
	char msg[256];
	uint8_t *img;

	test_begin("compressed_slice_reads");
	walk_error(slice, NET_SLICE, msg, sizeof(msg));
	CHECK_STR(msg, "");
	CHECK_EQ(check_image(slice, NET_SLICE).violations, 0);
	test_end();

	/* Cut short by 1 byte to all of it: the stream ends early, always. */
	test_begin("compressed_truncated");
	for (uint32_t cut = 1; cut <= NET_B1_DISK - ETL_BUFFER_HEADER_SIZE;
	     cut += cut < 64 ? 1 : 251) {
		img = test_copy(slice, NET_SLICE - cut);
		put_le32(img + BUF_FIELD(NET_B1, buffer_size), NET_B1_DISK - cut);
		walk_error(img, NET_SLICE - cut, msg, sizeof(msg));
		if (strncmp(msg, NET_B1_ERR, strlen(NET_B1_ERR)) ||
		    (!strstr(msg, "corrupt compressed data at +0x") &&
		     !strstr(msg, "compressed data ends after")))
			test_fail("cut by %u: \"%s\"", cut, msg);
		free(img);
	}
	img = test_copy(slice, NET_SLICE - 1);
	put_le32(img + BUF_FIELD(NET_B1, buffer_size), NET_B1_DISK - 1);
	expect_net_error(img, NET_SLICE - 1,
		"buffer 1 (file offset 0x200): corrupt compressed data at +0x3aa7 (of BufferSize 0x3aa7): the input ends where a literal byte should be (0xffaf of SavedOffset 0xffb0 bytes decompressed)");
	free(img);
	test_end();

	test_begin("compressed_saved_offset");
	img = test_copy(slice, NET_SLICE);
	put_le32(img + BUF_FIELD(NET_B1, saved_offset), NET_B1_SAVED + 8);
	expect_net_error(img, NET_SLICE,
		"buffer 1 (file offset 0x200): compressed data ends after 0xffb0 bytes decompressed, SavedOffset says 0xffb8");
	put_le32(img + BUF_FIELD(NET_B1, saved_offset), NET_B1_SAVED - 8);
	expect_net_error(img, NET_SLICE,
		"buffer 1 (file offset 0x200): corrupt compressed data at +0x3aa0 (of BufferSize 0x3aa8): the data decompresses past the expected size (0xffa8 of SavedOffset 0xffa8 bytes decompressed)");
	put_le32(img + BUF_FIELD(NET_B1, saved_offset), 0x40);
	expect_net_error(img, NET_SLICE,
		"buffer 1 (file offset 0x200): compressed, but its SavedOffset (the uncompressed size) 0x40 is inside the buffer header (< 0x48)");
	put_le32(img + BUF_FIELD(NET_B1, saved_offset), 0xFFFFFFF0);
	expect_net_error(img, NET_SLICE,
		"buffer 1 (file offset 0x200): compressed, but its SavedOffset (the uncompressed size) 0xfffffff0 is above the 0x4000000 bytes ntkl decompresses");
	free(img);
	test_end();

	/* The compressed layout is only legal in a file that says it is compressed. */
	test_begin("compressed_without_compressed_mode");
	img = test_copy(slice, NET_SLICE);
	put_le32(img + HDR_FIELD(log_file_mode), 0x00010001);
	expect_strict(img, NET_SLICE,
		"buffer 1 (file offset 0x200): compressed (BufferFlag 0x0060), but the header's LogFileMode 0x00010001 lacks COMPRESSED_MODE (0x04000000)");
	free(img);
	test_end();

	/* Random damage to the stream: an error naming buffer 1, or other bytes; never a crash. */
	test_begin("compressed_bit_flips");
	for (int i = 0; i < 1500; i++) {
		int nflips = 1 + (int)(test_rand(&seed) % 3);

		img = test_copy(slice, NET_SLICE);
		for (int k = 0; k < nflips; k++) {
			uint64_t bit = test_rand(&seed) %
				       ((NET_B1_DISK - ETL_BUFFER_HEADER_SIZE) * 8);

			img[NET_B1 + ETL_BUFFER_HEADER_SIZE + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		walk_error(img, NET_SLICE, msg, sizeof(msg));
		if (msg[0]) {
			failed++;
			if (strncmp(msg, NET_B1_ERR, strlen(NET_B1_ERR)))
				test_fail("flip %d: \"%s\"", i, msg);
		}
		check_image(img, NET_SLICE);
		dump_image(img, NET_SLICE, ETL_DUMP_EVENTS);
		free(img);
	}
	CHECK(failed > 1500 / 4);
	test_end();

	test_compressed_bombs(slice);
}

/* ---------------------------------------------------------------------- */
/* Decoders on short and synthetic payloads                                */
/* ---------------------------------------------------------------------- */

static char *run_decoder(enum etw_layout_id layout, const uint8_t *p, uint32_t len)
{
	uint8_t *copy = test_copy(p, len);
	char *text = NULL;
	size_t n;
	FILE *m = open_memstream(&text, &n);

	etl_decode_layout(m, "", layout, copy, len);
	fclose(m);
	free(copy);
	return text;
}

/*
 * Every prefix of a full payload: shorter ones must say they are short (a
 * string cut in the middle may say "unterminated" instead). A CompCS batch
 * cut between two packets is a valid shorter batch: boundaries lists those.
 */
static void all_prefixes(const char *name, enum etw_layout_id layout, const uint8_t *p,
			 uint32_t full, bool strings, const uint32_t *boundaries)
{
	test_begin("decoder_short_%s", name);
	for (uint32_t len = 0; len <= full; len++) {
		char *s = run_decoder(layout, p, len);
		bool boundary = false;

		for (const uint32_t *b = boundaries; b && *b; b++)
			boundary |= *b == len;
		if (len == full)
			CHECK_MSG(!strstr(s, "short") && !strstr(s, "truncated"),
				  "full payload (%u bytes) reported short: %s", full, s);
		else if (!boundary)
			CHECK_MSG(strstr(s, "[payload short") ||
				  (strings && strstr(s, "(unterminated)")) ||
				  strstr(s, "truncated"),
				  "%u of %u bytes not reported short: %s", len, full, s);
		free(s);
	}
	test_end();
}

/* The payload of the first kernel record with this hook in img. */
static const uint8_t *find_payload(const uint8_t *img, size_t size, uint16_t hook,
				   uint32_t *len)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	struct etl_file f;
	const uint8_t *found = NULL;

	if (etl_open_memory(&f, "img", img, size, &err))
		return NULL;
	etl_buffers_begin(&f, &bc);
	while (!found && etl_next_buffer(&f, &bc, &b, &err) > 0) {
		struct etl_record_cursor rc;
		struct etl_record r;

		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) > 0) {
			if (r.kind == ETL_KIND_KERNEL && r.hook_id == hook) {
				found = r.payload;
				*len = r.payload_len;
				break;
			}
		}
	}
	etl_close(&f);
	return found;
}

static void build_cswitch(uint8_t *p)
{
	struct wmi_contextswap c = {
		.new_thread_id = 1234, .old_thread_id = 5678,
		.new_thread_priority = 9, .old_thread_priority = 8,
		.old_thread_wait_reason = ETW_KWAIT_WR_QUEUE,
		.old_thread_wait_mode = ETW_USER_MODE,
		.old_thread_state = ETW_KTHREAD_WAITING,
		.old_thread_ideal_processor = 3,
		.new_thread_wait_time = 42,
	};

	memcpy(p, &c, sizeof(c));
}

static void build_spinlock(uint8_t *p)
{
	struct wmi_spinlock s = {
		.spin_lock_address = 0xffff800012345678ULL,
		.caller_address = 0xffffffff81000000ULL,
		.acquire_time = 1000, .release_time = 2000,
		.wait_time_in_cycles = 300, .spin_count = 7, .thread_id = 99,
		.interrupt_count = 1, .irql = ETW_IRQL_DISPATCH, .acquire_depth = 1,
		.flags = WMI_SPINLOCK_ACQUIRE_QUEUED | WMI_SPINLOCK_EXECUTE_DPC,
	};

	memcpy(p, &s, sizeof(s));
}

/* A CompCS batch: header, then IDLE_SHORT, LITE, FULL, IDLE packets. */
static uint32_t build_compcs(uint8_t *p)
{
	struct perfinfo_ccswap_buffer h = { .first_timestamp = 1000 };
	struct perfinfo_ccswap_packet pk[] = {
		{ .type = PERF_CSWAP_IDLE_SHORT, .time_delta = 5 },
		{ .type = PERF_CSWAP_LITE, .time_delta = 10, .tid_index = 1,
		  .pri_inc = 2, .state_wr = ETW_KWAIT_WR_QUEUE },
		{ .type = PERF_CSWAP_FULL, .time_delta = 100, .tid_index = 0,
		  .state_wr = ETW_MAXIMUM_WAIT_REASON + ETW_KTHREAD_READY,
		  .priority = 12, .new_thread_wait_time = 7 },
		{ .type = PERF_CSWAP_IDLE, .time_delta = 20000 },
	};
	uint32_t len = sizeof(h);

	h.tid_table[0] = 100;
	h.tid_table[1] = 200;
	h.thread_base_priority[0] = 8;
	h.thread_base_priority[1] = 10;
	memcpy(p, &h, sizeof(h));
	for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++)
		len += perfinfo_ccswap_encode(p + len, &pk[i]);
	return len;
}

static void test_decoders(void)
{
	uint8_t buf[2048];
	const uint8_t *pl;
	uint32_t len = 0;
	char *s;

	pl = find_payload(spdl, spdl_size, ETW_EVENT_HEADER_HOOK, &len);
	CHECK(pl != NULL);
	if (pl)
		all_prefixes("logfile_header", ETW_LAYOUT_LOGFILE_HEADER, pl, len, true, NULL);
	pl = find_payload(spdl, spdl_size, ETW_EVENT_HEADER_EXTENSION_HOOK, &len);
	if (pl)
		all_prefixes("header_extension", ETW_LAYOUT_HEADER_EXTENSION, pl, len, false, NULL);
	pl = find_payload(spdl, spdl_size, ETW_EVENT_THREAD_DC_START_HOOK, &len);
	if (pl) {
		/* Windows 8 ends version 3 at the fixed fields, without a name. */
		static const uint32_t thread_ends[] = { sizeof(struct etw_thread_v3), 0 };

		all_prefixes("thread_v3", ETW_LAYOUT_THREAD_V3, pl, len, true, thread_ends);
	}
	pl = find_payload(spdl, spdl_size, ETW_EVENT_PROCESS_DC_START_HOOK, &len);
	if (pl)
		all_prefixes("process_v4", ETW_LAYOUT_PROCESS_V4, pl, len, true, NULL);

	build_cswitch(buf);
	all_prefixes("cswitch", ETW_LAYOUT_CSWITCH, buf, sizeof(struct wmi_contextswap), false, NULL);
	build_spinlock(buf);
	all_prefixes("spinlock", ETW_LAYOUT_SPINLOCK, buf, sizeof(struct wmi_spinlock), false, NULL);
	memset(buf, 0, 8);
	put_le32(buf, 77);
	buf[4] = ETW_ADJUST_UNWAIT;
	buf[5] = 2;
	buf[6] = ETW_READY_THREAD_READIED_FROM_DPC;
	all_prefixes("ready_thread", ETW_LAYOUT_READY_THREAD, buf, sizeof(struct etw_ready_thread), false, NULL);
	len = build_compcs(buf);
	{
		static const uint32_t packet_ends[] = {
			0x58, 0x5A, 0x5E, 0x66, 0
		};

		all_prefixes("compact_cswitch", ETW_LAYOUT_COMPACT_CSWITCH, buf,
			     len, false, packet_ends);
	}

	/* SystemConfig CPU: synthesized at the uapi offsets. */
	memset(buf, 0, ETW_CONFIG_CPU_SIZE);
	put_le32(buf, 2400);
	put_le32(buf + 4, 4);
	buf[20] = 'v';
	buf[22] = 'm';
	put_le16(buf + 816, ETW_PROCESSOR_ARCHITECTURE_AMD64);
	all_prefixes("config_cpu", ETW_LAYOUT_CONFIG_CPU, buf, ETW_CONFIG_CPU_SIZE, false, NULL);

	test_begin("decoder_values_cswitch");
	build_cswitch(buf);
	s = run_decoder(ETW_LAYOUT_CSWITCH, buf, sizeof(struct wmi_contextswap));
	CHECK_HAS(s, "NewThreadId=1234 OldThreadId=5678 NewThreadPriority=9 OldThreadPriority=8");
	CHECK_HAS(s, "OldThreadWaitReason=15(WrQueue) OldThreadWaitMode=1 OldThreadState=5(Waiting)");
	CHECK_HAS(s, "NewThreadWaitTime=42");
	free(s);
	test_end();

	test_begin("decoder_values_spinlock");
	build_spinlock(buf);
	s = run_decoder(ETW_LAYOUT_SPINLOCK, buf, sizeof(struct wmi_spinlock));
	CHECK_HAS(s, "SpinLockAddress=0xffff800012345678 CallerAddress=0xffffffff81000000");
	CHECK_HAS(s, "Irql=2 AcquireDepth=1 AcquireMode=1(queued) ExecuteDpc=1 ExecuteIsr=0");
	CHECK(!strstr(s, "not decoded"));
	free(s);
	test_end();

	test_begin("decoder_values_ready_thread");
	memset(buf, 0, 8);
	put_le32(buf, 77);
	buf[4] = ETW_ADJUST_UNWAIT;
	buf[5] = 2;
	buf[6] = ETW_READY_THREAD_READIED_FROM_DPC;
	s = run_decoder(ETW_LAYOUT_READY_THREAD, buf, 8);
	CHECK_HAS(s, "TThreadId=77 AdjustReason=1(Unwait) AdjustIncrement=2 Flag=0x1( ReadiedFromDPC)");
	free(s);
	test_end();

	test_begin("decoder_values_compact_cswitch");
	len = build_compcs(buf);
	CHECK_EQ(len, 0x58 + 2 + 4 + 8 + 4);
	s = run_decoder(ETW_LAYOUT_COMPACT_CSWITCH, buf, len);
	CHECK_HAS(s, "FirstTimeStamp=1000 TidTable=100/8,200/10,0/0");
	CHECK_HAS(s, "packet 0 at +0x58: IDLE_SHORT TimeDelta=5 Time=1005 OldThread=0(idle)");
	CHECK_HAS(s, "packet 1 at +0x5a: LITE TimeDelta=10 Time=1015 OldThread=200(TidTable[1]) State=Waiting WaitReason=15(WrQueue) Priority=12(base 10 + 2)");
	CHECK_HAS(s, "packet 2 at +0x5e: FULL TimeDelta=100 Time=1115 OldThread=100(TidTable[0]) State=1(Ready) Priority=12 NewThreadWaitTime=7");
	CHECK_HAS(s, "packet 3 at +0x66: IDLE TimeDelta=20000 Time=21115");
	free(s);
	/* Cut inside the FULL packet: the packets before print, then the cut. */
	s = run_decoder(ETW_LAYOUT_COMPACT_CSWITCH, buf, 0x58 + 2 + 4 + 5);
	CHECK_HAS(s, "packet 1 at +0x5a: LITE");
	CHECK_HAS(s, "packet 2 at +0x5e: truncated: 5 bytes left, a FULL packet needs 8");
	free(s);
	test_end();

	test_begin("decoder_values_config_cpu");
	memset(buf, 0, ETW_CONFIG_CPU_SIZE);
	put_le32(buf, 2400);
	put_le32(buf + 4, 4);
	buf[20] = 'v';
	buf[22] = 'm';
	put_le16(buf + 816, ETW_PROCESSOR_ARCHITECTURE_AMD64);
	s = run_decoder(ETW_LAYOUT_CONFIG_CPU, buf, ETW_CONFIG_CPU_SIZE);
	CHECK_HAS(s, "MHz=2400 NumberOfProcessors=4 ");
	CHECK_HAS(s, "ComputerName=\"vm\" DomainName=\"\"");
	CHECK_HAS(s, "ProcessorArchitecture=9 ");
	free(s);
	test_end();

	test_begin("decoder_sid");
	{
		/* S-1-5-21-1-2-3-500; an authority over 32 bits prints in hex. */
		uint8_t sid[8 + 5 * 4] = { 1, 5, 0, 0, 0, 0, 0, 5 };
		uint32_t used = 0;
		char out[128];

		put_le32(sid + 8, 21);
		put_le32(sid + 12, 1);
		put_le32(sid + 16, 2);
		put_le32(sid + 20, 3);
		put_le32(sid + 24, 500);
		CHECK(etl_sid_to_string(sid, sizeof(sid), out, sizeof(out), &used));
		CHECK_STR(out, "S-1-5-21-1-2-3-500");
		CHECK_EQ(used, sizeof(sid));
		CHECK(!etl_sid_to_string(sid, sizeof(sid) - 1, out, sizeof(out), &used));
		sid[1] = 0;
		sid[2] = 1;
		CHECK(etl_sid_to_string(sid, 8, out, sizeof(out), &used));
		CHECK_STR(out, "S-1-0x010000000005");
	}
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Fuzz                                                                    */
/* ---------------------------------------------------------------------- */

/* Offsets of the buffer and record headers of img, where damage matters most. */
static size_t header_offsets(const uint8_t *img, size_t size, size_t *offs, size_t max)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	struct etl_file f;
	size_t n = 0;

	if (etl_open_memory(&f, "img", img, size, &err))
		return 0;
	etl_buffers_begin(&f, &bc);
	while (n < max && etl_next_buffer(&f, &bc, &b, &err) > 0) {
		struct etl_record_cursor rc;
		struct etl_record r;

		offs[n++] = b.offset;
		if (b.compressed)	/* its records are not at file offsets */
			continue;
		etl_records_begin(&b, &rc);
		while (n < max && etl_next_record(&b, &rc, &r, &err) > 0)
			offs[n++] = r.file_offset;
	}
	etl_close(&f);
	return n;
}

static void fuzz(const char *name, const uint8_t *img, size_t size, int iterations,
		 uint64_t seed)
{
	static size_t offs[4096];
	size_t noffs = header_offsets(img, size, offs, 4096);
	unsigned long opened = 0, clean = 0;

	test_begin("fuzz_%s_%d", name, iterations);
	CHECK(noffs > 1);
	for (int i = 0; i < iterations && noffs; i++) {
		uint8_t *m = test_copy(img, size);
		size_t msize = size;
		int nmut = 1 + (int)(test_rand(&seed) % 8), rc1, rc2;
		struct outcome o;

		for (int k = 0; k < nmut; k++) {
			uint64_t r = test_rand(&seed);
			size_t pos;

			/* Half the time hit a header: the first 0x58 bytes of one. */
			if (r & 1)
				pos = offs[(r >> 1) % noffs] + (r >> 20) % 0x58;
			else
				pos = (r >> 1) % size;
			if (pos >= size)
				pos = size - 1;
			m[pos] = (uint8_t)(r >> 40);
		}
		/* Sometimes cut the file too (a copy, so ASan sees the end). */
		if (test_rand(&seed) % 10 == 0) {
			uint8_t *cut;

			msize = (size_t)(test_rand(&seed) % size);
			cut = test_copy(m, msize);
			free(m);
			m = cut;
		}
		o = check_image(m, msize);
		rc1 = dump_image(m, msize, ETL_DUMP_EVENTS);
		rc2 = dump_image(m, msize, ETL_DUMP_CHECK | ETL_DUMP_EVENTS);
		if ((rc1 != 0 && rc1 != 1) || (rc2 != 0 && rc2 != 1))
			test_fail("iteration %d: dump returned %d/%d", i, rc1, rc2);
		/* A clean check must mean a clean dump, and the reverse for the check. */
		if (o.opened && !o.violations && rc2 != 0)
			test_fail("iteration %d: check passed but dump --check says %d", i, rc2);
		if ((!o.opened || o.violations) && rc2 != 1)
			test_fail("iteration %d: check failed (%s) but dump --check says 0",
				  i, o.msg);
		opened += o.opened;
		clean += o.opened && !o.violations;
		free(m);
	}
	/* The mutations must reach past the open, or the loop tests little. */
	CHECK(opened > (unsigned long)iterations / 4);
	/* Some must stay clean too (damage in unchecked payload bytes). */
	CHECK(clean > 0);
	test_end();
}

int main(void)
{
	char path[4096];

	if (!test_samples_here("corrupted_samples"))
		return test_exit();
	devnull = fopen("/dev/null", "w");
	spdl = test_read_file(test_path(path, sizeof(path), test_samples_dir(), SPDL),
			      &spdl_size);
	lxcore = test_read_file(test_path(path, sizeof(path), test_samples_dir(), LXCORE),
				&lxcore_size);
	test_begin("inputs");
	CHECK(devnull != NULL);
	if (!spdl || !lxcore)
		test_fail("cannot read the samples in %s (set NTKL_SAMPLES)",
			  test_samples_dir());
	CHECK_EQ(spdl_size, 3211264);
	CHECK_EQ(lxcore_size, 24576);
	test_end();
	if (!spdl || !lxcore || !devnull)
		return test_exit();

	test_tiny_files();
	test_truncated();
	test_flipped();
	test_buffer_fields();
	test_records();
	test_windows8_shapes();
	test_decoders();

	fuzz("lxcore_kernel", lxcore, lxcore_size, 2000, 0x5eed0001);
	/* Two buffers of ShutdownPerfDiagLogger: the header and one full of rundown events. */
	{
		uint8_t *slice = test_copy(spdl, 2 * 0x10000);

		/* The slice is a whole file of its own: two buffers written. */
		put_le32(slice + HDR_FIELD(buffers_written), 2);
		fuzz("ShutdownPerfDiagLogger_2buffers", slice, 2 * 0x10000, 2000,
		     0x5eed0002);
		free(slice);
	}

	{
		size_t net_size = 0;
		uint8_t *net = test_read_file(test_path(path, sizeof(path),
							test_samples_dir(), NET), &net_size);

		test_begin("compressed_input");
		CHECK_MSG(net && net_size >= NET_SLICE, "cannot read %s in %s", NET,
			  test_samples_dir());
		test_end();
		if (net && net_size >= NET_SLICE) {
			uint8_t *slice = test_copy(net, NET_SLICE);

			/* Two buffers of a file of their own: numbered 0 and 1. */
			put_le32(slice + HDR_FIELD(buffers_written), 2);
			put_le32(slice + BUF_FIELD(NET_B1, sequence_number), 1);
			test_compressed(slice);
			fuzz("perfview_compressed_2buffers", slice, NET_SLICE, 1000,
			     0x5eed0004);
			free(slice);
		}
		free(net);
	}

	free(spdl);
	free(lxcore);
	fclose(devnull);
	return test_exit();
}
