// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_image_test: Image events (LOADER), checked against what Linux
 * itself says of where code lies: /proc/kallsyms for the kernel image,
 * /proc/modules for each module, /proc/self/maps and /proc/self/exe for
 * this process's executable, and the modules this test loads and unloads
 * while the logger runs.
 *
 * As in Windows' kernel traces (shared/etl-samples): KernelBase (0x1421)
 * once, at the start rundown; Image DCStart (0x1403) and DCEnd (0x1404)
 * for the kernel, every module and every process's code files; Load
 * (0x140A) and UnLoad (0x1402) while the logger runs. Without LOADER, no
 * Image event at all.
 */
#include <limits.h>
#include <sys/auxv.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest image"
#define LOCKBENCH_KO	"/lib/modules/ntkl_lockbench.ko"
#define MAX_IMAGES	512

struct image {
	uint16_t hook;
	uint64_t base, size;
	uint32_t pid, header_pid;
	char name[PATH_MAX];
};

struct image_view {
	struct image *img;
	unsigned int n, kernel_base_events;
	uint64_t kernel_base;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct image_view *v = ctx;
	const struct etw_image_v3 *p;
	struct image *img;
	unsigned int i, len;

	if (!r || r->kind != ETL_KIND_KERNEL || (r->hook_id >> 8) != ETW_GROUP_IMAGE)
		return;
	if (r->hook_id == ETW_EVENT_IMAGE_KERNEL_BASE_HOOK) {
		if (r->payload_len == sizeof(struct etw_image_kernel_base))
			memcpy(&v->kernel_base, r->payload, sizeof(v->kernel_base));
		v->kernel_base_events++;
		return;
	}
	if (r->payload_len < sizeof(*p) + 2 || v->n == MAX_IMAGES)
		return;
	p = (const void *)r->payload;
	img = &v->img[v->n++];
	img->hook = r->hook_id;
	img->base = p->image_base;
	img->size = p->image_size;
	img->pid = p->process_id;
	img->header_pid = r->process_id;
	/* FileName: UTF-16, ASCII here */
	len = (r->payload_len - sizeof(*p)) / 2;
	for (i = 0; i < len && i < sizeof(img->name) - 1 &&
		    r->payload[sizeof(*p) + 2 * i]; i++)
		img->name[i] = (char)r->payload[sizeof(*p) + 2 * i];
	img->name[i] = 0;
}

static const struct image *find_image(const struct image_view *v, uint16_t hook,
				      const char *name, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < v->n; i++)
		if (v->img[i].hook == hook && v->img[i].pid == pid &&
		    !strcmp(v->img[i].name, name))
			return &v->img[i];
	return NULL;
}

/* A symbol's address from /proc/kallsyms; 0 if absent or hidden (zeros). */
static uint64_t kallsyms(const char *want)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], type, name[128];
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 && !strcmp(name, want)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

/* A loaded module's base from /proc/modules; 0 if not loaded or hidden. */
static uint64_t module_base(const char *want, uint64_t *size)
{
	FILE *f = fopen("/proc/modules", "r");
	char line[512], name[64];
	unsigned long long base;
	unsigned long sz;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu %*s %*s %*s %llx", name, &sz, &base) == 3 &&
		    !strcmp(name, want)) {
			found = base;
			*size = sz;
			break;
		}
	fclose(f);
	return found;
}

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Record with flags while body() runs; the records' images into v. */
static int record(struct __test_metadata *_metadata, int ctl, int reader, uint32_t flags,
		  void (*body)(void *), void *arg, struct image_view *v)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	int ret;

	props_init(&p, LOGGER, flags);
	if (ntkl_ctl(ctl, NTKL_IOC_START, &p) || ntkl_bind_id(reader, p.logger_id))
		return -1;
	if (body)
		body(arg);
	if (ntkl_stop_name(ctl, LOGGER) ||
	    capture_drain(reader, p.buffer_size_kb * 1024, &c, 0) ||
	    ntkl_ctl(reader, NTKL_IOC_QUERY, &final))
		return -1;
	capture_patch(&c, &final);
	memset(v, 0, sizeof(*v));
	v->img = calloc(MAX_IMAGES, sizeof(*v->img));
	if (!v->img)
		return -1;
	ret = capture_walk(&c, view_record, v, &v->verdict);
	capture_free(&c);
	EXPECT_EQ(0, v->verdict.violations) TH_LOG("first: %s", v->verdict.first_violation);
	return ret;
}

NTKL_READER_FIXTURE(image);

/*
 * The kernel: KernelBase once, one image from a page below _text (its code
 * at RVA 0x1000, as in a PE image: NTKL_IMAGE_HEADER_SIZE) to _end.
 */
TEST_F(image, kernel_image_is_kallsyms_text_to_end)
{
	uint64_t text = kallsyms("_text"), end = kallsyms("_end");
	const struct image *k = NULL;
	struct image_view v;
	unsigned int i;

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader,
			    EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_IMAGE_LOAD, NULL, NULL, &v));
	EXPECT_EQ(1, v.kernel_base_events);
	for (i = 0; i < v.n; i++)
		if (v.img[i].hook == ETW_EVENT_IMAGE_DC_START_HOOK && !v.img[i].pid &&
		    !strncmp(v.img[i].name, "/boot/vmlinux-", 14))
			k = &v.img[i];
	ASSERT_NE(NULL, k);
	if (!text || !end) {
		TH_LOG("/proc/kallsyms hides addresses: only their presence is checked");
	} else {
		EXPECT_EQ(text - NTKL_IMAGE_HEADER_SIZE, k->base);
		EXPECT_EQ(k->base, v.kernel_base);
		/* to _end's page: ntkl finds the image page by page */
		EXPECT_EQ((end + 4095) & ~4095ULL, k->base + k->size)
			TH_LOG("image ends at 0x%llx, _end is 0x%llx",
			       (unsigned long long)(k->base + k->size), (unsigned long long)end);
	}
	free(v.img);
}

/* Every module of /proc/modules, a page below its base, in both rundowns. */
TEST_F(image, every_module_at_its_base)
{
	FILE *f = fopen("/proc/modules", "r");
	char line[512], name[64], path[128];
	unsigned long long base;
	unsigned long size;
	unsigned int modules = 0;
	struct image_view v;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    NULL, NULL, &v));
	while (fgets(line, sizeof(line), f)) {
		const struct image *s, *e;

		if (sscanf(line, "%63s %lu %*s %*s %*s %llx", name, &size, &base) != 3)
			continue;
		modules++;
		snprintf(path, sizeof(path), "/sys/module/%s", name);
		s = find_image(&v, ETW_EVENT_IMAGE_DC_START_HOOK, path, 0);
		e = find_image(&v, ETW_EVENT_IMAGE_DC_END_HOOK, path, 0);
		EXPECT_NE(NULL, s) TH_LOG("no DCStart for %s", path);
		EXPECT_NE(NULL, e) TH_LOG("no DCEnd for %s", path);
		if (!s)
			continue;
		if (base)
			EXPECT_EQ(base - NTKL_IMAGE_HEADER_SIZE, s->base) TH_LOG("%s", path);
		/* its code: part of what /proc/modules counts */
		EXPECT_GT(s->size, NTKL_IMAGE_HEADER_SIZE);
		EXPECT_LE(s->size - NTKL_IMAGE_HEADER_SIZE, size) TH_LOG("%s", path);
	}
	fclose(f);
	EXPECT_GT(modules, 0);		/* ntkl itself at least */
	free(v.img);
}

/* This process: its executable, named as /proc/self/exe, covering its code. */
TEST_F(image, own_executable_covers_own_code)
{
	uint64_t code = (uint64_t)(uintptr_t)&view_record;
	char exe[PATH_MAX];
	const struct image *s, *e;
	struct image_view v;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = 0;
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    NULL, NULL, &v));
	s = find_image(&v, ETW_EVENT_IMAGE_DC_START_HOOK, exe, getpid());
	e = find_image(&v, ETW_EVENT_IMAGE_DC_END_HOOK, exe, getpid());
	ASSERT_NE(NULL, s) TH_LOG("no DCStart for %s in process %d", exe, getpid());
	ASSERT_NE(NULL, e);
	EXPECT_LE(s->base, code);
	EXPECT_GT(s->base + s->size, code);
	EXPECT_EQ(s->base, e->base);
	EXPECT_EQ(s->size, e->size);
	/* the header names the process, as Windows' rundown records do */
	EXPECT_EQ((uint32_t)getpid(), s->header_pid);
	free(v.img);
}

/* The vDSO: no file, but code every process runs: "[vdso]" where the aux vector says. */
TEST_F(image, vdso_where_auxv_says)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	const struct image *s;
	struct image_view v;

	if (!vdso)
		SKIP(return, "this process has no vDSO");
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    NULL, NULL, &v));
	s = find_image(&v, ETW_EVENT_IMAGE_DC_START_HOOK, "[vdso]", getpid());
	ASSERT_NE(NULL, s) TH_LOG("no [vdso] DCStart in process %d", getpid());
	EXPECT_EQ(vdso, s->base);
	EXPECT_GE(s->size, 4096);
	EXPECT_NE(NULL, find_image(&v, ETW_EVENT_IMAGE_DC_END_HOOK, "[vdso]", getpid()));
	free(v.img);
}

static void exec_true(void *arg)
{
	run_execs("/bin/true", 3);
}

/* Each exec: Image Load of the new executable, in the new process. */
TEST_F(image, exec_loads_its_executable)
{
	char exe[PATH_MAX];
	struct image_view v;
	unsigned int i, loads = 0;

	ASSERT_NE(NULL, realpath("/bin/true", exe));
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    exec_true, NULL, &v));
	for (i = 0; i < v.n; i++)
		if (v.img[i].hook == ETW_EVENT_IMAGE_LOAD_HOOK && !strcmp(v.img[i].name, exe) &&
		    v.img[i].pid && v.img[i].pid == v.img[i].header_pid)
			loads++;
	EXPECT_EQ(3, loads);
	free(v.img);
}

struct module_run {
	uint64_t base, size;
	int insmod, rmmod;
};

static void load_unload(void *arg)
{
	struct module_run *m = arg;

	m->insmod = run("insmod " LOCKBENCH_KO);
	m->base = module_base("ntkl_lockbench", &m->size);
	m->rmmod = run("rmmod ntkl_lockbench");
}

/* A module loaded and unloaded while the logger runs: Load, then UnLoad. */
TEST_F(image, module_load_and_unload)
{
	const char *path = "/sys/module/ntkl_lockbench";
	const struct image *l, *u;
	struct module_run m = { 0 };
	struct image_view v;

	if (access(LOCKBENCH_KO, R_OK))
		SKIP(return, "%s is not in this VM", LOCKBENCH_KO);
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    load_unload, &m, &v));
	ASSERT_EQ(0, m.insmod);
	ASSERT_EQ(0, m.rmmod);
	l = find_image(&v, ETW_EVENT_IMAGE_LOAD_HOOK, path, 0);
	u = find_image(&v, ETW_EVENT_IMAGE_UNLOAD_HOOK, path, 0);
	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, u);
	if (m.base)
		EXPECT_EQ(m.base - NTKL_IMAGE_HEADER_SIZE, l->base);
	EXPECT_EQ(l->base, u->base);
	EXPECT_EQ(l->size, u->size);
	EXPECT_EQ(NULL, find_image(&v, ETW_EVENT_IMAGE_DC_START_HOOK, path, 0));
	free(v.img);
}

/* Without LOADER: no Image event, not even in the rundowns. */
TEST_F(image, none_without_loader)
{
	struct image_view v;

	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader,
			    EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, exec_true, NULL, &v));
	EXPECT_EQ(0, v.n);
	EXPECT_EQ(0, v.kernel_base_events);
	free(v.img);
}

TEST_HARNESS_MAIN
