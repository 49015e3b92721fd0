// SPDX-License-Identifier: GPL-2.0
/*
 * The one model of a file's processes, threads and images
 * (etl/etl_model.h), on synthetic files, and that every analysis takes a
 * process's name from it:
 *
 *   - a process is named by its Process Start/DCStart record's image
 *     name, or by a later End/DCEnd record's where an exec changed it
 *     (Linux: fork starts "sh", exec makes it "ls"), by time, not file
 *     order; without a Process record, by its leader thread; pid 0 is
 *     "Idle"; nothing names an unknown pid;
 *   - a thread's process and name are its latest Thread record's in time;
 *   - of two images of a process at one base (fork, then exec), an
 *     address is the one loaded last before its time;
 *   - report, dump --stats' profile and chrome-json print the same name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"

#define PR_VERSION	4
#define IM_VERSION	3
#define SP_VERSION	2

/* Process v4: the fixed part, a null token, the image name, an empty command line. */
static void process_rec(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, const char *name)
{
	uint8_t rec[ETW_PROCESS_V4_FIXED_SIZE + 4 + 64 + 2] = { 0 };
	struct etw_process_v4 pr = { .process_id = pid };
	size_t n = strlen(name);

	memcpy(rec, &pr, ETW_PROCESS_V4_FIXED_SIZE);
	memcpy(rec + ETW_PROCESS_V4_FIXED_SIZE + 4, name, n + 1);
	synth_system_record(s, hook, PR_VERSION, t, rec,
			    (uint32_t)(ETW_PROCESS_V4_FIXED_SIZE + 4 + n + 1 + 2));
}

static void image_rec(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint64_t base,
		      const char *path)
{
	uint8_t rec[sizeof(struct etw_image_v3) + 128] = { 0 };
	struct etw_image_v3 im = { .image_base = base, .image_size = 0x10000, .process_id = pid };
	size_t n = strlen(path);

	memcpy(rec, &im, sizeof(im));
	for (size_t i = 0; i < n; i++)
		rec[sizeof(im) + 2 * i] = (uint8_t)path[i];
	synth_record(s, hook, IM_VERSION, t, rec, (uint32_t)(sizeof(im) + 2 * n + 2));
}

static void sample(struct synth *s, int64_t t, uint32_t tid, uint64_t ip)
{
	struct perfinfo_sampled_profile sp = {
		.instruction_pointer = ip, .thread_id = tid, .count = 1,
	};

	synth_record(s, ETW_EVENT_SAMPLED_PROFILE_HOOK, SP_VERSION, t, &sp, sizeof(sp));
}

/*
 * pid 184 forks as "sh" (busybox at 0x400000), execs "ls" (ntkl's own
 * binary at the same base) and ends as "ls"; its End record sits in an
 * earlier buffer than its Start (another CPU's). pid 200 has no Process
 * record: its leader "worker" names it. CSwitch records give report and
 * chrome-json their slices.
 */
static uint8_t *make_file(size_t *size)
{
	struct synth s;
	struct wmi_contextswap cs = { .new_thread_id = 184, .old_thread_id = 0 };
	struct wmi_contextswap cs2 = { .new_thread_id = 0, .old_thread_id = 184,
				   .old_thread_state = ETW_KTHREAD_WAITING };

	synth_begin(&s, 8192, 2);
	synth_buffer(&s, 1);
	process_rec(&s, ETW_EVENT_PROCESS_END_HOOK, 9000, 184, "ls");
	synth_thread(&s, ETW_EVENT_THREAD_END_HOOK, 9000, 184, 184, "ls");
	image_rec(&s, ETW_EVENT_IMAGE_LOAD_HOOK, 5000, 184, 0x400000, "/usr/bin/ls");
	synth_buffer(&s, 0);
	process_rec(&s, ETW_EVENT_PROCESS_START_HOOK, 1000, 184, "sh");
	synth_thread(&s, ETW_EVENT_THREAD_START_HOOK, 1000, 184, 184, "sh");
	image_rec(&s, ETW_EVENT_IMAGE_DC_START_HOOK, 1000, 184, 0x400000, "/bin/busybox");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 1000, 200, 200, "worker");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 1000, 200, 201, "helper");
	synth_record(&s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, 2000,
		     &cs, sizeof(cs));
	sample(&s, 3000, 184, 0x400100);	/* busybox's, before the exec */
	sample(&s, 6000, 184, 0x400100);	/* ls's */
	sample(&s, 6500, 184, 0x400200);
	synth_record(&s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, 7000,
		     &cs2, sizeof(cs2));
	return synth_end(&s, size);
}

static void test_names(void)
{
	struct etl_model m;
	struct etl_error err;
	struct etl_file f;
	const struct etl_model_thread *t;
	const struct etl_image *im;
	uint8_t *img;
	size_t size;

	test_begin("one_name_per_process");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "model.etl", img, size, &err), 0);
	CHECK_EQ(etl_model_read(&f, &m, NULL, &err), 0);
	/* the exec's name, from the End record later in time though earlier in the file */
	CHECK_STR(etl_model_process_name(&m, 184), "ls");
	CHECK_STR(etl_model_process_name(&m, 200), "worker");
	CHECK_STR(etl_model_process_name(&m, 0), "Idle");
	CHECK(etl_model_process_name(&m, 999) == NULL);
	t = etl_model_thread(&m, 201);
	CHECK(t && t->pid == 200 && !strcmp(t->name, "helper"));
	t = etl_model_thread(&m, 184);
	CHECK(t && !strcmp(t->name, "ls"));
	CHECK_EQ(etl_model_pid(&m, 12345), ETL_MODEL_NO_PID);
	/* two images at one base: the one loaded last before the time */
	CHECK_EQ(m.images.n, 2);
	im = etl_images_find(&m.images, 184, 0x400100, 3000);
	CHECK(im && !strcmp(im->name, "busybox"));
	im = etl_images_find(&m.images, 184, 0x400100, 6000);
	CHECK(im && !strcmp(im->name, "ls") && !strcmp(im->path, "/usr/bin/ls"));
	im = etl_images_find(&m.images, 184, 0x400100, INT64_MAX);
	CHECK(im && !strcmp(im->name, "ls"));
	CHECK(etl_images_find(&m.images, 184, 0x500000, 6000) == NULL);
	etl_model_free(&m);
	etl_close(&f);
	free(img);
	test_end();
}

/* report, dump --stats' profile and chrome-json: the same name, "ls". */
static void test_analyses_agree(void)
{
	struct etl_report r;
	struct etl_profile p;
	struct etl_error err;
	struct etl_file f;
	char *json = NULL;
	size_t json_size = 0, size;
	uint8_t *img;
	FILE *mem;

	test_begin("analyses_use_the_one_name");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "model.etl", img, size, &err), 0);
	CHECK_EQ(etl_report_read(&f, &r, &err), 0);
	CHECK_EQ(r.nprocs, 1);
	CHECK_EQ(r.procs[0].pid, 184);
	CHECK_STR(r.procs[0].name, "ls");
	etl_report_free(&r);

	CHECK_EQ(etl_profile_read(&f, &p, &err), 0);
	CHECK_EQ(p.nprocs, 1);
	CHECK_STR(p.procs[0].name, "ls");
	/* images by the time of each sample: 1 busybox, 2 ls */
	CHECK_EQ(p.nmodules, 2);
	CHECK_STR(p.modules[0].name, "ls");
	CHECK_EQ(p.modules[0].samples, 2);
	CHECK_STR(p.modules[1].name, "busybox");
	CHECK_EQ(p.modules[1].samples, 1);
	etl_profile_free(&p);

	mem = open_memstream(&json, &json_size);
	CHECK(mem != NULL);
	if (mem) {
		CHECK_EQ(etl_chrome_write(mem, &f, 0, NULL, &err), 0);
		fclose(mem);
	}
	CHECK_HAS(json, "\"name\":\"process_name\",\"args\":{\"name\":\"ls\"}");
	CHECK(json && !strstr(json, "\"sh\""));
	free(json);
	etl_close(&f);
	free(img);
	test_end();
}

int main(void)
{
	test_names();
	test_analyses_agree();
	return test_exit();
}
