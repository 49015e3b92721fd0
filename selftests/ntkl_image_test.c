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
 * (0x140A) and UnLoad (0x1402) while the logger runs: of modules, of an
 * exec's executable, and of each library a process maps after exec (ld.so's,
 * dlopen's), once each, in a process that ends before the stop; UnLoad of
 * every image of a process as it goes, at exec (before the old program's
 * Process End) and at its end, so that no two images of a process are
 * ever loaded at once over the same addresses. Without LOADER, no Image
 * event at all.
 */
#include <elf.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define LOGGER		"selftest image"
#define LOCKBENCH_KO	"/lib/modules/ntkl_lockbench.ko"
#define MAX_IMAGES	2048
/* vm-run's copies of the host's build: a program against libc.so.6, the library it opens */
#define DYNAMIC_PROG	"/workloads/unwind-dynamic"
#define DL_LIB		"/workloads/libunwind_dl.so"
/* busybox in the VM: static at 0x400000, as this test is, which a fork's child inherits */
#define EXEC_PROG	"/bin/true"
#define MAX_ENDS	256

struct image {
	uint16_t hook;
	uint64_t base, size;
	uint32_t pid, header_pid;
	int64_t time;
	unsigned int seq;		/* its place in the file */
	char name[PATH_MAX];
};

/* A Process End: whose (its payload's ProcessId), and when. */
struct process_end {
	uint32_t pid;
	int64_t time;
};

struct image_view {
	struct image *img;
	unsigned int n, kernel_base_events;
	uint64_t kernel_base;
	struct process_end end[MAX_ENDS];
	unsigned int ends;
	struct capture_verdict verdict;
};

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			const struct etl_record *r)
{
	struct image_view *v = ctx;
	const struct etw_image_v3 *p;
	struct image *img;
	unsigned int i, len;

	if (r && r->kind == ETL_KIND_KERNEL && r->hook_id == ETW_EVENT_PROCESS_END_HOOK &&
	    r->payload_len >= ETW_PROCESS_V4_FIXED_SIZE && v->ends < MAX_ENDS) {
		v->end[v->ends].pid = ((const struct etw_process_v4 *)r->payload)->process_id;
		v->end[v->ends++].time = r->timestamp;
		return;
	}
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
	img->time = r->timestamp;
	img->seq = v->n - 1;
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

/* Does name's last part equal base? */
static bool named(const struct image *img, const char *base)
{
	const char *slash = strrchr(img->name, '/');

	return slash && !strcmp(slash + 1, base);
}

/* The Loads of process pid named base (its last part): how many, the first in *first. */
static unsigned int loads_named(const struct image_view *v, uint32_t pid, const char *base,
				const struct image **first)
{
	unsigned int i, n = 0;

	*first = NULL;
	for (i = 0; i < v->n; i++) {
		const struct image *img = &v->img[i];

		if (img->hook != ETW_EVENT_IMAGE_LOAD_HOOK || img->pid != pid || !named(img, base))
			continue;
		if (!n++)
			*first = img;
	}
	return n;
}

/*
 * From an ELF file's program headers: where its code ends and where its
 * last segment ends, both from the page its first segment begins in (the
 * image's base, where it is loaded): 0, or -1 if it cannot be read.
 */
static int elf_extent(const char *path, uint64_t *text_end, uint64_t *load_end)
{
	uint64_t first = UINT64_MAX, text = 0, last = 0;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f = fopen(path, "rb");
	unsigned int i;
	int ok = 0;

	if (!f)
		return -1;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (fseek(f, (long)(eh.e_phoff + i * sizeof(ph)), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			goto out;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < first)
			first = ph.p_vaddr & ~4095ULL;
		if ((ph.p_flags & PF_X) && ph.p_vaddr + ph.p_memsz > text)
			text = ph.p_vaddr + ph.p_memsz;
		if (ph.p_vaddr + ph.p_memsz > last)
			last = ph.p_vaddr + ph.p_memsz;
	}
	if (first == UINT64_MAX || !text)
		goto out;
	*text_end = text - first;
	*load_end = ((last + 4095) & ~4095ULL) - first;
	ok = 1;
out:
	fclose(f);
	return ok ? 0 : -1;
}

/* The library's one Load in pid: covering its code, no further than its last segment. */
static void expect_one_library(struct __test_metadata *_metadata, const struct image_view *v,
			       uint32_t pid, const char *base)
{
	const struct image *img;
	uint64_t text, end;

	ASSERT_EQ(1, loads_named(v, pid, base, &img)) TH_LOG("Image Loads of %s in %u", base, pid);
	EXPECT_EQ(pid, img->header_pid);
	EXPECT_EQ(0, img->base % 4096)
		TH_LOG("%s at 0x%llx", img->name, (unsigned long long)img->base);
	ASSERT_EQ(0, elf_extent(img->name, &text, &end)) TH_LOG("%s: no ELF headers", img->name);
	EXPECT_GE(img->size, text) TH_LOG("%s: %llu bytes, its code ends at %llu", img->name,
					  (unsigned long long)img->size,
					  (unsigned long long)text);
	EXPECT_LE(img->size, end) TH_LOG("%s: %llu bytes, its segments end at %llu", img->name,
					 (unsigned long long)img->size, (unsigned long long)end);
}

/* No two Loads of process pid at one base. */
static void expect_no_duplicate(struct __test_metadata *_metadata, const struct image_view *v,
				uint32_t pid)
{
	unsigned int i, k;

	for (i = 0; i < v->n; i++) {
		if (v->img[i].hook != ETW_EVENT_IMAGE_LOAD_HOOK || v->img[i].pid != pid)
			continue;
		for (k = i + 1; k < v->n; k++)
			if (v->img[k].hook == ETW_EVENT_IMAGE_LOAD_HOOK && v->img[k].pid == pid)
				EXPECT_NE(v->img[i].base, v->img[k].base)
					TH_LOG("two Loads at 0x%llx: %s, %s",
					       (unsigned long long)v->img[i].base, v->img[i].name,
					       v->img[k].name);
	}
}

struct child_run {
	const char *mode;
	pid_t pid;
	int status;
};

/* unwind-dynamic MODE for 300 ms, to its end, while the logger runs. */
static void run_dynamic(void *arg)
{
	struct child_run *c = arg;

	c->pid = fork();
	if (c->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(DYNAMIC_PROG, "unwind-dynamic", "-q", c->mode, "300", (char *)NULL);
		_exit(127);
	}
	if (c->pid > 0)
		waitpid(c->pid, &c->status, 0);
}

/*
 * A dynamically linked program that opens a library, run from start to
 * end while the logger runs (no rundown sees it): Image Load of its
 * executable and ld.so (at exec), and of libc.so.6 (ld.so maps it) and
 * libunwind_dl.so (dlopen), each once, each covering its code.
 */
TEST_F(image, libraries_mapped_after_exec_load_once)
{
	struct child_run c = { .mode = "dlopen" };
	const struct image *img;
	char exe[PATH_MAX];
	struct image_view v;

	if (access(DYNAMIC_PROG, X_OK) || access(DL_LIB, R_OK))
		SKIP(return, "%s or %s is not in this VM", DYNAMIC_PROG, DL_LIB);
	ASSERT_NE(NULL, realpath(DYNAMIC_PROG, exe));
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    run_dynamic, &c, &v));
	ASSERT_GT(c.pid, 0);
	ASSERT_TRUE(WIFEXITED(c.status));
	ASSERT_EQ(0, WEXITSTATUS(c.status));
	ASSERT_LT(v.n, MAX_IMAGES);
	/* exec's two, from the exec's probe, not again as they are mapped */
	EXPECT_EQ(1, loads_named(&v, c.pid, strrchr(exe, '/') + 1, &img));
	EXPECT_EQ(1, loads_named(&v, c.pid, "ld-linux-x86-64.so.2", &img));
	expect_one_library(_metadata, &v, c.pid, "libc.so.6");
	expect_one_library(_metadata, &v, c.pid, "libunwind_dl.so");
	expect_no_duplicate(_metadata, &v, c.pid);
	/* it ended before the stop: no rundown lists it */
	EXPECT_EQ(NULL, find_image(&v, ETW_EVENT_IMAGE_DC_END_HOOK, exe, c.pid));
	free(v.img);
}

struct protect_run {
	uint64_t *addr;		/* shared with the child: where it mapped the file */
	pid_t pid;
	int status;
};

/*
 * In a child: a file mapped read-only, then given code by mprotect (as
 * loaders of other formats do), then its first and last pages made
 * read-only again: the file has code from the first mprotect on, and
 * its mapping, split in three, is still one image.
 */
static void map_then_protect(void *arg)
{
	struct protect_run *m = arg;

	m->pid = fork();
	if (m->pid == 0) {
		int fd = open(DL_LIB, O_RDONLY);
		char *p = fd < 0 ? MAP_FAILED : mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			_exit(1);
		*m->addr = (uintptr_t)p;
		if (mprotect(p, 3 * 4096, PROT_READ | PROT_EXEC) ||
		    mprotect(p, 4096, PROT_READ) ||
		    mprotect(p + 2 * 4096, 4096, PROT_READ))
			_exit(2);
		_exit(munmap(p, 3 * 4096) ? 3 : 0);
	}
	if (m->pid > 0)
		waitpid(m->pid, &m->status, 0);
}

/* mprotect(PROT_EXEC) gives a file mapping code: one Load, the whole mapping. */
TEST_F(image, mprotect_exec_loads_once)
{
	struct protect_run m = { 0 };
	const struct image *img;
	struct image_view v;

	if (access(DL_LIB, R_OK))
		SKIP(return, "%s is not in this VM", DL_LIB);
	m.addr = mmap(NULL, sizeof(*m.addr), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	ASSERT_NE(MAP_FAILED, m.addr);
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader, EVENT_TRACE_FLAG_IMAGE_LOAD,
			    map_then_protect, &m, &v));
	ASSERT_GT(m.pid, 0);
	ASSERT_TRUE(WIFEXITED(m.status));
	ASSERT_EQ(0, WEXITSTATUS(m.status));
	ASSERT_EQ(1, loads_named(&v, m.pid, "libunwind_dl.so", &img));
	EXPECT_EQ(*m.addr, img->base);
	EXPECT_EQ(3 * 4096, img->size);
	munmap(m.addr, sizeof(*m.addr));
	free(v.img);
}

/* Image records in the order they were written: by time, then by place in the file. */
static int by_time(const void *a, const void *b)
{
	const struct image *x = *(const struct image *const *)a, *y = *(const struct image *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Process pid's Load and UnLoad records, in time order, into *list: how many. */
static unsigned int lifetime_records(const struct image_view *v, uint32_t pid,
				     const struct image ***list)
{
	unsigned int i, n = 0;

	*list = calloc(v->n ? v->n : 1, sizeof(**list));
	if (!*list)
		return 0;
	for (i = 0; i < v->n; i++)
		if (v->img[i].pid == pid && (v->img[i].hook == ETW_EVENT_IMAGE_LOAD_HOOK ||
					     v->img[i].hook == ETW_EVENT_IMAGE_UNLOAD_HOOK))
			(*list)[n++] = &v->img[i];
	qsort(*list, n, sizeof(**list), by_time);
	return n;
}

/* Process pid's Process Ends' times, in order, into t[max]: how many. */
static unsigned int process_ends(const struct image_view *v, uint32_t pid, int64_t *t,
				 unsigned int max)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < v->ends; i++) {
		if (v->end[i].pid != pid || n == max)
			continue;
		for (k = n++; k && t[k - 1] > v->end[i].time; k--)
			t[k] = t[k - 1];
		t[k] = v->end[i].time;
	}
	return n;
}

/*
 * Process pid's images over its life, as a reader that keeps a list per
 * process sees them (a Load adds one, an UnLoad takes away the one at its
 * base): never two at once over the same addresses, none UnLoaded that
 * was not loaded, and none left when the process has ended (before its
 * last Process End, at end). How many were loaded at once at most.
 */
static unsigned int expect_lifetimes(struct __test_metadata *_metadata,
				     const struct image_view *v, uint32_t pid, int64_t end)
{
	const struct image **rec, **live;
	unsigned int i, k, n, nlive = 0, most = 0;

	n = lifetime_records(v, pid, &rec);
	live = calloc(n ? n : 1, sizeof(*live));
	if (!rec || !live) {
		free(rec);
		free(live);
		EXPECT_TRUE(false) TH_LOG("out of memory");
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct image *img = rec[i];

		if (img->hook == ETW_EVENT_IMAGE_UNLOAD_HOOK) {
			for (k = 0; k < nlive && live[k]->base != img->base; k++)
				;
			EXPECT_LT(k, nlive) TH_LOG("%u: UnLoad of %s at 0x%llx, not loaded", pid,
						   img->name, (unsigned long long)img->base);
			EXPECT_LE(img->time, end) TH_LOG("%u: UnLoad of %s after its End", pid,
							 img->name);
			if (k < nlive)
				live[k] = live[--nlive];
			continue;
		}
		for (k = 0; k < nlive; k++) {
			EXPECT_TRUE(img->base >= live[k]->base + live[k]->size ||
				    live[k]->base >= img->base + img->size)
				TH_LOG("%u: %s loaded at 0x%llx+0x%llx over %s at 0x%llx+0x%llx", pid,
				       img->name, (unsigned long long)img->base,
				       (unsigned long long)img->size, live[k]->name,
				       (unsigned long long)live[k]->base,
				       (unsigned long long)live[k]->size);
		}
		live[nlive++] = img;
		if (nlive > most)
			most = nlive;
	}
	for (k = 0; k < nlive; k++) {
		EXPECT_TRUE(false) TH_LOG("%u: %s at 0x%llx never UnLoaded", pid, live[k]->name,
					  (unsigned long long)live[k]->base);
	}
	free(live);
	free(rec);
	return most;
}

struct fork_run {
	pid_t exec_pid, exit_pid;
	int exec_status, exit_status;
};

/* Two children of this process: one execs EXEC_PROG, one exits as it is. */
static void fork_exec_and_exit(void *arg)
{
	struct fork_run *f = arg;

	f->exec_pid = fork();
	if (f->exec_pid == 0) {
		execl(EXEC_PROG, "true", (char *)NULL);
		_exit(127);
	}
	f->exit_pid = fork();
	if (f->exit_pid == 0)
		_exit(0);
	if (f->exec_pid > 0)
		waitpid(f->exec_pid, &f->exec_status, 0);
	if (f->exit_pid > 0)
		waitpid(f->exit_pid, &f->exit_status, 0);
}

/*
 * A forked child that execs: the images it inherited (this test's own,
 * static at 0x400000 as busybox is, and its vDSO) are Loads of its pid at
 * the fork; at the exec each is UnLoaded, at the same base, before the
 * old program's Process End, which comes before the first Load of the
 * new program; at its exit, the new program's too, before its End. A
 * child that exits without exec: its inherited images UnLoaded before its
 * End. In neither are two images ever loaded over the same addresses.
 */
TEST_F(image, exec_and_exit_unload_a_process_images)
{
	const struct image **rec, *exec_load = NULL;
	unsigned int i, k, n, before = 0;
	struct fork_run f = { 0 };
	int64_t ends[4];
	char exe[PATH_MAX];
	struct image_view v;

	ASSERT_NE(NULL, realpath(EXEC_PROG, exe));
	ASSERT_EQ(0, record(_metadata, self->ctl, self->reader,
			    EVENT_TRACE_FLAG_IMAGE_LOAD | EVENT_TRACE_FLAG_PROCESS,
			    fork_exec_and_exit, &f, &v));
	ASSERT_GT(f.exec_pid, 0);
	ASSERT_GT(f.exit_pid, 0);
	ASSERT_TRUE(WIFEXITED(f.exec_status) && WEXITSTATUS(f.exec_status) == 0);
	ASSERT_TRUE(WIFEXITED(f.exit_status) && WEXITSTATUS(f.exit_status) == 0);
	ASSERT_LT(v.n, MAX_IMAGES);
	ASSERT_LT(v.ends, MAX_ENDS);

	/* the exec's child: the old program's End at the exec, the new one's at exit */
	ASSERT_EQ(2, process_ends(&v, f.exec_pid, ends, 4));
	n = lifetime_records(&v, f.exec_pid, &rec);
	ASSERT_NE(NULL, rec);
	for (i = 0; i < n && !exec_load; i++)
		if (rec[i]->hook == ETW_EVENT_IMAGE_LOAD_HOOK && !strcmp(rec[i]->name, exe))
			exec_load = rec[i];
	ASSERT_NE(NULL, exec_load) TH_LOG("no Load of %s in %d", exe, f.exec_pid);
	EXPECT_LE(ends[0], exec_load->time) TH_LOG("the exec's Process End after its Load");
	for (i = 0; rec[i] != exec_load; i++) {
		const struct image *img = rec[i];

		if (img->hook != ETW_EVENT_IMAGE_LOAD_HOOK)
			continue;
		before++;
		for (k = i + 1; rec[k] != exec_load; k++)
			if (rec[k]->hook == ETW_EVENT_IMAGE_UNLOAD_HOOK &&
			    rec[k]->base == img->base)
				break;
		EXPECT_NE(exec_load, rec[k])
			TH_LOG("%s at 0x%llx, inherited, not UnLoaded before the exec's Load of %s",
			       img->name, (unsigned long long)img->base, exe);
		if (rec[k] != exec_load) {
			EXPECT_LE(rec[k]->time, ends[0])
				TH_LOG("%s UnLoaded after the old program's End", img->name);
		}
	}
	/* this test's executable and its vDSO, at least */
	EXPECT_GE(before, 2);
	free(rec);
	EXPECT_GE(expect_lifetimes(_metadata, &v, f.exec_pid, ends[1]), 2);

	/* the child that only exits */
	ASSERT_EQ(1, process_ends(&v, f.exit_pid, ends, 4));
	EXPECT_GE(expect_lifetimes(_metadata, &v, f.exit_pid, ends[0]), 2);
	free(v.img);
}

TEST_HARNESS_MAIN
