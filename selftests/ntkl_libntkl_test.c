// SPDX-License-Identifier: GPL-2.0
/*
 * libntkl beside a kernel capture: the example program (userspace/libntkl/
 * examples/units.c, /workloads/units in the VM) logs a UnitBegin/UnitEnd
 * pair around each unit of work through a private logger while `ntkl
 * record -on CSWITCH+PROC_THREAD` records the kernel's context switches.
 * The two files share a clock (QPC: CLOCK_MONOTONIC in 100 ns), so:
 *   - every unit event falls inside the kernel capture's time range;
 *   - each unit's thread (the event's ThreadId) appears in CSwitch
 *     records between its begin and end: a unit sleeps once, so its
 *     thread is switched out and back in within it.
 * Both files are read with the project's reader (libntkletl.a); then the
 * same holds in the one file `ntkl merge` makes of them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etl_reader.h"
#include "etl_switches.h"
#include "ntkl_util.h"

#define THREADS	4
#define UNITS	25


struct unit {
	uint32_t tid;
	int64_t begin, end;
};

/* The units of the libntkl file: begin and end by (thread index, unit). */
static int read_units(const char *path, struct unit u[THREADS][UNITS], int64_t *perf_freq,
		      uint32_t *clock_type, char *why, size_t size)
{
	struct etl_file f;
	struct etl_error err;
	struct etl_cursor cur;
	struct etl_buffer b;
	int ret;

	memset(u, 0, sizeof(struct unit) * THREADS * UNITS);
	if (etl_open(&f, path, &err)) {
		snprintf(why, size, "%s: %s", path, err.msg);
		return -1;
	}
	*perf_freq = f.header.perf_freq;
	*clock_type = f.header.reserved_flags;
	etl_buffers_begin(&f, &cur);
	while ((ret = etl_next_buffer(&f, &cur, &b, &err)) > 0) {
		struct etl_record_cursor rc;
		struct etl_record r;

		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) > 0) {
			uint32_t unit, thread;

			if (r.kind != ETL_KIND_EVENT || r.payload_len != 8)
				continue;
			memcpy(&unit, r.payload, 4);
			memcpy(&thread, r.payload + 4, 4);
			if (unit >= UNITS || thread >= THREADS)
				continue;
			u[thread][unit].tid = r.thread_id;
			if (r.descriptor.id == 1)
				u[thread][unit].begin = r.timestamp;
			else if (r.descriptor.id == 2)
				u[thread][unit].end = r.timestamp;
		}
	}
	etl_buffers_end(&cur);
	etl_close(&f);
	if (ret < 0)
		snprintf(why, size, "%s: %s", path, err.msg);
	return ret;
}

FIXTURE(libntkl) {
};

FIXTURE_SETUP(libntkl)
{
}

FIXTURE_TEARDOWN(libntkl)
{
}

/*
 * The units of upath against the switches of kpath: each inside the
 * capture, each with a switch of its thread between its begin and end.
 * Returns the units that have none (logged).
 */
static unsigned long match_units(struct __test_metadata *_metadata, const char *kpath,
				 const char *upath)
{
	struct unit u[THREADS][UNITS];
	char why[512] = "";
	struct etl_switches s = { 0 };
	struct etl_error err;
	struct etl_file k;
	int64_t freq = 0, kfirst = INT64_MAX, klast = 0;
	uint32_t clock_type = 0;
	unsigned long missing = 0;

	EXPECT_EQ(0, read_units(upath, u, &freq, &clock_type, why, sizeof(why)))
		TH_LOG("%s", why);
	if (etl_open(&k, kpath, &err)) {
		TH_LOG("%s: %s", kpath, err.msg);
		return THREADS * UNITS;
	}
	/* one clock: QPC at 10 MHz in both */
	EXPECT_EQ(1, clock_type);
	EXPECT_EQ(k.header.reserved_flags, clock_type);
	EXPECT_EQ(k.header.perf_freq, freq);
	EXPECT_EQ(0, etl_switches_read(&k, &s, &err)) TH_LOG("%s", err.msg);
	EXPECT_GT(s.n, 0);
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].time < kfirst)
			kfirst = s.v[i].time;
		if (s.v[i].time > klast)
			klast = s.v[i].time;
	}
	for (int t = 0; t < THREADS; t++) {
		for (int n = 0; n < UNITS; n++) {
			struct unit *x = &u[t][n];
			bool seen = false;

			if (!x->tid || !x->begin || !x->end) {
				TH_LOG("%s: unit %d of thread %d missing", upath, n, t);
				missing++;
				continue;
			}
			EXPECT_LE(x->begin, x->end);
			EXPECT_GE(x->begin, kfirst)
				TH_LOG("unit %d/%d begins at %lld, the kernel capture at %lld",
				       t, n, (long long)x->begin, (long long)kfirst);
			EXPECT_LE(x->end, klast)
				TH_LOG("unit %d/%d ends at %lld, the kernel capture at %lld",
				       t, n, (long long)x->end, (long long)klast);
			for (size_t i = 0; i < s.n && !seen; i++)
				seen = s.v[i].time >= x->begin && s.v[i].time <= x->end &&
				       (s.v[i].old_tid == x->tid ||
					((s.v[i].known & ETL_SWITCH_HAS_NEW) &&
					 s.v[i].new_tid == x->tid));
			if (!seen) {
				int64_t before = 0, after = 0;

				for (size_t i = 0; i < s.n; i++) {
					if (s.v[i].old_tid != x->tid && s.v[i].new_tid != x->tid)
						continue;
					if (s.v[i].time < x->begin && s.v[i].time > before)
						before = s.v[i].time;
					if (s.v[i].time > x->end && (!after || s.v[i].time < after))
						after = s.v[i].time;
				}
				missing++;
				TH_LOG("%s: unit %d/%d (tid %u, %lld..%lld): no CSwitch of its thread (its last before %lld, first after %lld; the capture lost %u events)",
				       kpath, t, n, x->tid, (long long)x->begin, (long long)x->end,
				       (long long)before, (long long)after, k.header.events_lost);
			}
		}
	}
	etl_switches_free(&s);
	etl_close(&k);
	return missing;
}

/*
 * The two files, then the two merged into one (ntkl merge): the merged
 * file passes the checker, holds every unit event and every switch, and
 * the units match the switches in it as they did across the two files.
 */
TEST_F_TIMEOUT(libntkl, units_inside_kernel_capture, 300)
{
	char out[8192], want[64];
	unsigned long missing;

	ASSERT_EQ(0, sh(out, sizeof(out),
			"ntkl record -on CSWITCH+PROC_THREAD -o /tmp/k.etl -- units -o /tmp/u.etl -t %d -n %d -w 1000",
			THREADS, UNITS)) TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --check /tmp/u.etl")) TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --events /tmp/u.etl | grep -c 'UnitBegin: unit='"));
	EXPECT_EQ(THREADS * UNITS, atoi(out));
	missing = match_units(_metadata, "/tmp/k.etl", "/tmp/u.etl");
	EXPECT_EQ(0, missing);

	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl merge -o /tmp/m.etl /tmp/k.etl /tmp/u.etl"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --check /tmp/m.etl")) TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --events /tmp/m.etl | grep -c 'UnitBegin: unit='"));
	EXPECT_EQ(THREADS * UNITS, atoi(out));
	/* every switch of the kernel capture, once */
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --switches /tmp/k.etl | wc -l"));
	snprintf(want, sizeof(want), "%.63s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --switches /tmp/m.etl | wc -l"));
	EXPECT_STREQ(want, out);
	EXPECT_EQ(0, match_units(_metadata, "/tmp/m.etl", "/tmp/m.etl"));

	/*
	 * Perfetto's view of the merged file: a slice per unit (an "X", its
	 * UnitBegin paired with its UnitEnd), each on a thread track where the
	 * thread's runs are too.
	 */
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl convert --to chrome-json /tmp/m.etl -o /tmp/m.json"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "grep -c '\"ph\":\"X\",\"cat\":\"event\"' /tmp/m.json"));
	EXPECT_EQ(THREADS * UNITS, atoi(out));
	ASSERT_EQ(0, sh(out, sizeof(out),
			"t() { grep \"\\\"ph\\\":\\\"$1\\\",\\\"cat\\\":\\\"$2\\\"\" /tmp/m.json |"
			" sed 's/.*\"pid\":\\([0-9]*\\),\"tid\":\\([0-9]*\\),.*/\\1 \\2/' | sort -u; };"
			" t X thread > /tmp/ran; t X event > /tmp/units;"
			" echo $(wc -l < /tmp/units) $(awk 'NR==FNR { ran[$0]; next } !($0 in ran)' /tmp/ran /tmp/units | wc -l)"));
	snprintf(want, sizeof(want), "%d 0\n", THREADS);
	EXPECT_STREQ(want, out) TH_LOG("unit tracks, of them without runs: %s", out);
	unlink("/tmp/m.json");

	/* in the test VM, keep the files of a failure for a look (vm-run --out) */
	if (missing || !_metadata->passed)
		sh(NULL, 0, "[ -d /out ] && cp /tmp/k.etl /tmp/u.etl /tmp/m.etl /out/");
	unlink("/tmp/k.etl");
	unlink("/tmp/u.etl");
	unlink("/tmp/m.etl");
}

TEST_F_TIMEOUT(libntkl, compressed_file_reads, 300)
{
	char out[8192];

	ASSERT_EQ(0, sh(out, sizeof(out), "units -c -o /tmp/uc.etl -t 2 -n 200 -w 10"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --check /tmp/uc.etl")) TH_LOG("%s", out);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump /tmp/uc.etl | grep -c COMPRESSED"));
	EXPECT_GT(atoi(out), 0);
	ASSERT_EQ(0, sh(out, sizeof(out), "ntkl dump --events /tmp/uc.etl | grep -c 'UnitEnd: unit='"));
	EXPECT_EQ(400, atoi(out));
	unlink("/tmp/uc.etl");
}

TEST_HARNESS_MAIN
