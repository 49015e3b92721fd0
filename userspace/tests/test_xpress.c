// SPDX-License-Identifier: GPL-2.0
/*
 * The [MS-XCA] plain LZ77 codec of compressed ETL buffers (etl_xpress.c):
 * the specification's examples both ways, round trips (random data,
 * every length class, synthetic ETW buffers, every buffer of every
 * uncompressed Windows sample), and corrupt input that must give an
 * error, never a read or write outside the buffers (ASan watches).
 */
#include <dirent.h>
#include <unistd.h>

#include "test.h"
#include "etl_synth.h"
#include "etl/etl_xpress.h"

/* [MS-XCA] 3.1: 26 literals; "abc" then one match of distance 3, length 297. */
static const uint8_t spec_alphabet[] = {
	0x3f, 0x00, 0x00, 0x00, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i',
	'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w',
	'x', 'y', 'z',
};
static const uint8_t spec_abc[] = {
	0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26,
	0x01,
};

/* The totals over every round trip of sample buffers, for the ratio line. */
static uint64_t sample_in, sample_out;

/* Compress src into an exactly-sized malloc (*n its size); NULL on failure. */
static uint8_t *compress_copy(const uint8_t *src, size_t len, size_t *n)
{
	size_t cap = etl_xpress_bound(len);
	uint8_t *buf = malloc(cap), *out = NULL;

	*n = 0;
	if (buf && !etl_xpress_compress(src, len, buf, cap, n))
		out = test_copy(buf, *n);
	free(buf);
	return out;
}

/*
 * Compress, check the bound, decompress into an exactly-sized buffer and
 * compare. Returns the compressed size, 0 after a failed check.
 */
static size_t round_trip(const uint8_t *src, size_t len)
{
	struct etl_xpress_error xe = { 0 };
	size_t n, got = 0;
	uint8_t *c = compress_copy(src, len, &n), *back;
	int rc;

	CHECK_MSG(c, "compressing %zu bytes failed", len);
	if (!c)
		return 0;
	CHECK_MSG(n <= etl_xpress_bound(len), "%zu bytes compressed to %zu, above the bound %zu",
		  len, n, etl_xpress_bound(len));
	back = malloc(len ? len : 1);
	rc = back ? etl_xpress_decompress(c, n, back, len, &got, &xe) : -1;
	CHECK_MSG(!rc, "%zu bytes: our own output does not decompress: %s at +0x%zx",
		  len, xe.what ? xe.what : "out of memory", xe.in_pos);
	if (!rc)
		CHECK_MSG(got == len && (!len || !memcmp(back, src, len)),
			  "%zu bytes came back as %zu different ones", len, got);
	free(back);
	free(c);
	return rc ? 0 : n;
}

static void test_spec_examples(void)
{
	uint8_t out[400], abc[300];
	struct etl_xpress_error xe;
	size_t got = 0, n;
	uint8_t *c;

	for (int i = 0; i < 300; i++)
		abc[i] = (uint8_t)('a' + i % 3);

	test_begin("spec_examples_decompress");
	CHECK_EQ(etl_xpress_decompress(spec_alphabet, sizeof(spec_alphabet), out,
				       sizeof(out), &got, &xe), 0);
	CHECK_EQ(got, 26);
	CHECK(!memcmp(out, "abcdefghijklmnopqrstuvwxyz", 26));
	CHECK_EQ(etl_xpress_decompress(spec_abc, sizeof(spec_abc), out, sizeof(out),
				       &got, &xe), 0);
	CHECK_EQ(got, 300);
	CHECK(!memcmp(out, abc, 300));
	/* One byte less room than the data needs: an error, not a short result. */
	CHECK_EQ(etl_xpress_decompress(spec_abc, sizeof(spec_abc), out, 299, &got, &xe), -1);
	CHECK_HAS(xe.what, "past the expected size");
	test_end();

	/* Our encoder makes the specification's bytes exactly. */
	test_begin("spec_examples_compress");
	c = compress_copy((const uint8_t *)"abcdefghijklmnopqrstuvwxyz", 26, &n);
	CHECK_EQ(n, sizeof(spec_alphabet));
	CHECK(c && !memcmp(c, spec_alphabet, sizeof(spec_alphabet)));
	free(c);
	c = compress_copy(abc, sizeof(abc), &n);
	CHECK_EQ(n, sizeof(spec_abc));
	CHECK(c && !memcmp(c, spec_abc, sizeof(spec_abc)));
	free(c);
	test_end();

	test_begin("empty_input");
	c = compress_copy(abc, 0, &n);
	CHECK_EQ(n, 4);		/* one flag word of match flags: the end */
	CHECK(c && etl_le32(c) == 0xFFFFFFFF);
	free(c);
	CHECK_EQ(round_trip(abc, 0), 4);
	test_end();
}

/* Random bytes, random text over a few letters, runs: every size to 300, some big. */
static void test_random(void)
{
	static const size_t big[] = { 4096, 8191, 8192, 8193, 65536, 200000 };
	uint64_t seed = 0x1234567;

	test_begin("round_trip_random");
	for (int kind = 0; kind < 3; kind++) {
		for (size_t i = 0; i < 300 + sizeof(big) / sizeof(big[0]); i++) {
			size_t len = i < 300 ? i : big[i - 300];
			uint8_t *p = malloc(len ? len : 1);

			for (size_t j = 0; j < len; j++) {
				uint64_t r = test_rand(&seed);

				if (kind == 0)
					p[j] = (uint8_t)r;
				else if (kind == 1)
					p[j] = (uint8_t)('a' + r % 4);
				else	/* runs of a byte, of random lengths */
					p[j] = j && r % 64 ? p[j - 1] : (uint8_t)r;
			}
			round_trip(p, len);
			free(p);
		}
	}
	test_end();

	/* Not enough room: an error, never a write past out_cap. */
	test_begin("compress_short_output");
	{
		uint8_t in[1000], *out;
		size_t n = 0, need;

		for (size_t j = 0; j < sizeof(in); j++)
			in[j] = (uint8_t)test_rand(&seed);
		out = malloc(etl_xpress_bound(sizeof(in)));
		CHECK_EQ(etl_xpress_compress(in, sizeof(in), out,
					     etl_xpress_bound(sizeof(in)), &n), 0);
		need = n;
		free(out);
		for (size_t cap = 0; cap < need; cap += cap < 40 ? 1 : 97) {
			out = malloc(cap ? cap : 1);
			CHECK_EQ(etl_xpress_compress(in, sizeof(in), out, cap, &n), -1);
			free(out);
		}
	}
	test_end();
}

/*
 * Matches of every length class: 3-9 in the word, 10-24 in a half byte
 * (two matches share one), 25-279 in a byte, then 16 bits, and past
 * 65,538 split into several matches.
 */
static void test_lengths(void)
{
	static const size_t lens[] = {
		3, 4, 9, 10, 11, 24, 25, 26, 279, 280, 281, 1000, 8192, 65537,
		65538, 65539, 70000, 140000,
	};

	test_begin("round_trip_match_lengths");
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			/* "xy", a run, "q", a second run: two long matches in a row. */
			size_t len = 2 + lens[i] + 1 + lens[j] + 1;
			uint8_t *p = malloc(len);
			size_t n;

			p[0] = 'x';
			p[1] = 'y';
			memset(p + 2, 'a', lens[i]);
			p[2 + lens[i]] = 'q';
			memset(p + 3 + lens[i], 'b', lens[j]);
			p[len - 1] = 'z';
			n = round_trip(p, len);
			if (len > 1000)
				CHECK(n < len / 50);	/* runs cost almost nothing */
			free(p);
		}
	}
	test_end();
}

/*
 * A CSwitch event as ntkl records them: a few threads switching on a
 * CPU, times a few hundred ticks apart.
 */
static void add_cswitch(struct synth *s, uint64_t *seed, int64_t *t, uint32_t *old)
{
	struct wmi_contextswap cs = { 0 };
	uint32_t next = 1000 + (uint32_t)(test_rand(seed) % 12) * 4;

	cs.new_thread_id = next;
	cs.old_thread_id = *old;
	cs.new_thread_priority = 8;
	cs.old_thread_priority = 9;
	cs.old_thread_wait_reason = (uint8_t)(test_rand(seed) % 3);
	cs.old_thread_state = 5;
	*t += 100 + (int64_t)(test_rand(seed) % 400);
	*old = next;
	synth_record(s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version,
		     *t, &cs, sizeof(cs));
}

/* Buffers of a synthetic CSwitch capture: they shrink to well under half. */
static void test_synthetic_buffers(void)
{
	struct synth s;
	uint64_t seed = 42, in = 0, out = 0;
	int64_t t = SYNTH_START_CLOCK;
	uint32_t old = 0;
	struct etl_error err;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_file f;
	uint8_t *img;
	size_t size;

	test_begin("round_trip_synthetic_buffers");
	synth_begin(&s, 65536, 4);
	for (int buf = 0; buf < 8; buf++) {
		synth_buffer(&s, (uint16_t)(buf % 4));
		/* Full, half full, nearly empty: 0xFF fill after the records. */
		for (int i = 0; i < (buf % 3 == 0 ? 1600 : buf % 3 == 1 ? 800 : 3); i++)
			add_cswitch(&s, &seed, &t, &old);
	}
	img = synth_end(&s, &size);
	CHECK(img != NULL);
	if (img && !etl_open_memory(&f, "synthetic", img, size, &err)) {
		etl_buffers_begin(&f, &bc);
		while (etl_next_buffer(&f, &bc, &b, &err) > 0) {
			in += b.hdr.buffer_size;
			out += round_trip(b.data, b.hdr.buffer_size);
		}
		etl_close(&f);
		CHECK_EQ(in, 9 * 65536);
		if (out * 3 > in)
			test_fail("synthetic CSwitch buffers: %llu bytes compressed to %llu, not below a third",
				  (unsigned long long)in, (unsigned long long)out);
	}
	free(img);
	test_end();
}

/* Every buffer of one uncompressed sample, whole (header, records, fill). */
static void round_trip_sample(const char *dir, const char *name)
{
	char path[4096];
	struct etl_error err;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_file f;
	unsigned long n = 0;
	int rc;

	if (etl_open(&f, test_path(path, sizeof(path), dir, name), &err)) {
		test_begin("round_trip_every_buffer_%s", name);
		test_fail("etl_open: %s", err.msg);
		test_end();
		return;
	}
	/* The compressed one's buffers are test_samples.c's business. */
	if (f.header.log_file_mode & EVENT_TRACE_COMPRESSED_MODE) {
		etl_close(&f);
		return;
	}
	test_begin("round_trip_every_buffer_%s", name);
	etl_buffers_begin(&f, &bc);
	while ((rc = etl_next_buffer(&f, &bc, &b, &err)) > 0) {
		sample_in += b.hdr.buffer_size;
		sample_out += round_trip(b.data, b.hdr.buffer_size);
		n++;
	}
	if (rc < 0)
		test_fail("reader: %s", err.msg);
	CHECK_EQ(n, f.header.buffers_written);
	etl_close(&f);
	test_end();
}

static void test_samples(void)
{
	const char *dir = test_samples_dir();
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (!test_samples_here("round_trip_every_buffer"))
		return;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".etl"))
			round_trip_sample(dir, de->d_name);
	}
	if (d)
		closedir(d);
	test_path(path, sizeof(path), test_samples_out_dir(), "TraceLoggingTester.etl");
	if (!access(path, R_OK))
		round_trip_sample(test_samples_out_dir(), "TraceLoggingTester.etl");
	printf("# uncompressed samples: %llu bytes of buffers compress to %llu (%.1f%%)\n",
	       (unsigned long long)sample_in, (unsigned long long)sample_out,
	       sample_in ? 100.0 * (double)sample_out / (double)sample_in : 0.0);
}

/*
 * Corrupt streams: every truncation and thousands of random bit flips of
 * a real compressed buffer. Cut short, a stream always fails; flipped, it
 * fails or gives other bytes, but never reaches outside in or out.
 */
static void test_corrupt(void)
{
	uint64_t seed = 7, flips_failed = 0;
	struct etl_xpress_error xe;
	uint8_t src[20000], *c, *out;
	size_t n, got;

	for (size_t j = 0; j < sizeof(src); j++)
		src[j] = j % 700 < 300 ? (uint8_t)('a' + test_rand(&seed) % 5) :
			 (uint8_t)(j / 7);
	c = compress_copy(src, sizeof(src), &n);
	out = malloc(sizeof(src));

	test_begin("corrupt_truncated");
	CHECK(c != NULL && out != NULL);
	for (size_t cut = 0; c && out && cut < n; cut++) {
		uint8_t *t = test_copy(c, cut);

		xe.what = NULL;
		if (!etl_xpress_decompress(t, cut, out, sizeof(src), &got, &xe) &&
		    got == sizeof(src))
			test_fail("cut to %zu of %zu bytes, the stream still gave all its data",
				  cut, n);
		free(t);
	}
	test_end();

	test_begin("corrupt_bit_flips");
	for (int i = 0; c && out && i < 20000; i++) {
		uint8_t *t = test_copy(c, n);
		int nflips = 1 + (int)(test_rand(&seed) % 4);

		for (int k = 0; k < nflips; k++) {
			size_t bit = test_rand(&seed) % (n * 8);

			t[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		if (etl_xpress_decompress(t, n, out, sizeof(src), &got, &xe)) {
			flips_failed++;
			if (!xe.what || xe.in_pos > n || xe.out_pos > sizeof(src))
				test_fail("flip %d: an error without a place", i);
		} else if (got > sizeof(src)) {
			test_fail("flip %d: %zu bytes out of %zu of room", i, got, sizeof(src));
		}
		free(t);
	}
	/* Most flips hit flags, match words or lengths: most must be caught. */
	CHECK(flips_failed > 20000 / 4);
	test_end();

	/* Hand-made: each kind of damage names itself. */
	test_begin("corrupt_messages");
	{
		/* a match one byte back with nothing decompressed yet */
		static const uint8_t before_start[] = { 0, 0, 0, 0x80, 0x00, 0x00 };
		/* a flag word cut short */
		static const uint8_t short_flags[] = { 0, 0, 0 };
		/* a literal flag, then no byte */
		static const uint8_t no_literal[] = { 0, 0, 0, 0 };
		/* a literal, then a match escaped to 16 bits of 5 (< 22) */
		static const uint8_t bad_len[] = {
			0xff, 0xff, 0xff, 0x7f, 'a', 0x07, 0x00, 0x0f, 0xff, 0x05, 0x00,
		};
		uint8_t o[64];

		CHECK_EQ(etl_xpress_decompress(before_start, sizeof(before_start), o,
					       sizeof(o), &got, &xe), -1);
		CHECK_HAS(xe.what, "before the start of the output");
		CHECK_EQ(xe.in_pos, 4);
		CHECK_EQ(etl_xpress_decompress(short_flags, sizeof(short_flags), o,
					       sizeof(o), &got, &xe), -1);
		CHECK_HAS(xe.what, "inside a flag word");
		CHECK_EQ(etl_xpress_decompress(no_literal, sizeof(no_literal), o,
					       sizeof(o), &got, &xe), -1);
		CHECK_HAS(xe.what, "literal");
		CHECK_EQ(etl_xpress_decompress(bad_len, sizeof(bad_len), o,
					       sizeof(o), &got, &xe), -1);
		CHECK_HAS(xe.what, "below its minimum");
	}
	test_end();
	free(c);
	free(out);
}

int main(void)
{
	test_spec_examples();
	test_random();
	test_lengths();
	test_synthetic_buffers();
	test_samples();
	test_corrupt();
	return test_exit();
}
