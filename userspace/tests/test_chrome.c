// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl convert --to chrome-json (etl_chrome.c) under ASan and UBSan, on
 * the ntkl captures in fuzz/seeds: one "X" slice per interval between two
 * switches of a CPU whose old thread is not the idle thread (counted here
 * from etl_switches_read's list), one instant per SampledProfile record
 * (counted here by walking the records), the same intervals on the
 * threads' own tracks, metadata naming each CPU, thread and process, a
 * JSON string escaped where a name holds '"' or '\', and a write error
 * reported. scripts/test_chrome_json.py validates the same output
 * against the format's schema.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <unistd.h>

#include "test.h"
#include "analysis/etl_chrome.h"
#include "etl/etl_events.h"
#include "etl/etl_switches.h"

/* tests run from userspace/ (make -C userspace test) */
#define SEEDS	"fuzz/seeds"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static unsigned long samples_in(const struct etl_file *f)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record rec;
	struct etl_error err;
	unsigned long n = 0;

	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) > 0) {
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &rec, &err) > 0)
			n += rec.kind == ETL_KIND_KERNEL &&
			     rec.hook_id == ETW_EVENT_SAMPLED_PROFILE_HOOK;
	}
	etl_buffers_end(&bc);
	return n;
}

static void test_seed(const char *name)
{
	struct etl_chrome_stats st;
	struct etl_switches s;
	struct etl_error err;
	struct etl_file f;
	char path[256], *json = NULL, cpu[64];
	size_t size = 0, slices = 0;
	FILE *out;

	test_begin("seed_%s", name);
	snprintf(path, sizeof(path), "%s/%s", SEEDS, name);
	if (etl_open(&f, path, &err)) {
		test_fail("%s: %s", path, err.msg);
		test_end();
		return;
	}
	CHECK_EQ(etl_switches_read(&f, &s, &err), 0);
	for (size_t i = 1; i < s.n; i++)
		slices += s.v[i].cpu == s.v[i - 1].cpu && s.v[i].old_tid;
	out = open_memstream(&json, &size);
	CHECK_EQ(etl_chrome_write(out, &f, ETL_CHROME_SAMPLES, &st, &err), 0);
	fclose(out);
	CHECK(slices > 0);
	CHECK_EQ(st.slices, slices);
	/* each interval twice: on its CPU's track and on its thread's */
	CHECK_EQ(count(json, "\"ph\":\"X\",\"cat\":\"cpu\""), slices);
	CHECK_EQ(count(json, "\"ph\":\"X\",\"cat\":\"thread\""), slices);
	CHECK_EQ(count(json, "\"name\":\"process_name\""), st.processes + 1);
	CHECK_EQ(count(json, "\"name\":\"thread_name\""), st.threads + st.cpus);
	CHECK_EQ(st.samples, samples_in(&f));
	CHECK_EQ(count(json, "\"ph\":\"i\""), st.samples);
	CHECK_EQ(st.cpus, s.ncpus);
	for (uint32_t c = 0; c < st.cpus; c++) {
		snprintf(cpu, sizeof(cpu), "\"args\":{\"name\":\"CPU %u\"}", c);
		CHECK_HAS(json, cpu);
	}
	CHECK(json && !strncmp(json, "{\"displayTimeUnit\":\"ns\"", 23));
	CHECK(size > 4 && !strcmp(json + size - 4, "\n]}\n"));
	free(json);
	etl_switches_free(&s);
	etl_close(&f);
	test_end();
}

/* The file's name goes into otherData: '"' and '\' escaped, so JSON stays JSON. */
static void test_escaping(void)
{
	char path[] = "/tmp/ntkl-chrome-\"q\\b\".etl";
	struct etl_error err;
	struct etl_file f;
	char *json = NULL;
	size_t size = 0;
	uint8_t *data;
	FILE *out, *w;

	test_begin("escaped_names");
	data = test_read_file(SEEDS "/ntkl-full-4k.etl", &size);
	w = fopen(path, "wb");
	CHECK(data && w && fwrite(data, 1, size, w) == size);
	if (w)
		fclose(w);
	free(data);
	if (!etl_open(&f, path, &err)) {
		out = open_memstream(&json, &size);
		CHECK_EQ(etl_chrome_write(out, &f, 0, NULL, &err), 0);
		fclose(out);
		CHECK_HAS(json, "\"file\":\"/tmp/ntkl-chrome-\\\"q\\\\b\\\".etl\"");
		free(json);
		etl_close(&f);
	} else {
		test_fail("%s", err.msg);
	}
	unlink(path);
	test_end();

	/* a stream that cannot be written is an error, not a silent half file */
	test_begin("write_error");
	out = fopen("/dev/full", "w");
	if (out && !etl_open(&f, SEEDS "/ntkl-full-4k.etl", &err)) {
		CHECK_EQ(etl_chrome_write(out, &f, 0, NULL, &err), (unsigned long long)-1);
		CHECK_HAS(err.msg, "cannot write");
		etl_close(&f);
	}
	if (out)
		fclose(out);
	test_end();
}

int main(void)
{
	test_seed("ntkl-full-4k.etl");
	test_seed("ntkl-compact-compressed.etl");
	test_escaping();
	return test_exit();
}
