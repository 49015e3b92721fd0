// SPDX-License-Identifier: GPL-2.0
/*
 * How whole a trace's user stacks are, from the file alone (dump --stats'
 * and report's "User stacks:" line, symbols/sym_profile.h), on a
 * synthetic file whose image is this test program, so that its frames
 * are named from a real file as ntkl symbols names them: its _start
 * (crt1's) is the start routine, ustk_mid another function.
 *
 *   - whole: the outermost user frame is _start (a StackWalk, a trailing
 *     zero frame after it, and twice a StackKeyUser reference to one key
 *     beside a StackKeyKernel one);
 *   - early: it is ustk_mid (a StackWalk, and a short stack's single
 *     StackKeyUser reference whose key holds kernel and user frames);
 *   - not named here: an image this machine does not have, and an
 *     address in no image of the trace;
 *   - not counted: a stack with no user frame (a StackWalk, a lone
 *     StackKeyKernel reference), a reference no definition resolves, a
 *     stack ending in a Windows image;
 *   - the address-to-name rule every reader shares (sym_table_find()),
 *     the start routines' list, and an ELF file whose entry point's
 *     symbol is untyped (ld.so's _start) named by it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"
#include "report_string.h"

#define PID		42
#define TID		43
#define BASE		0x7f0000000000ull	/* this program */
#define GONE_BASE	0x7f1000000000ull	/* a library this machine does not have */
#define WIN_BASE	0x7ff800000000ull	/* a Windows DLL */
#define KADDR		0xffffffff81000100ull	/* kernel frames (in no image) */
#define KADDR2		0xffffffff81000200ull

static char err[4096];

/* The functions the synthetic stacks are made of: never called. */
__attribute__((noipa, used)) static void ustk_leaf(void)
{
	__asm__ volatile("");
}

__attribute__((noipa, used)) static void ustk_mid(void)
{
	__asm__ volatile("");
}

static void image_rec(struct synth *s, int64_t t, uint64_t base, uint64_t size, const char *path)
{
	synth_image_dc_start(s, t, PID, base, size, path);
}

static void sample(struct synth *s, int64_t t, uint64_t ip)
{
	synth_sample(s, t, TID, ip);
}

/* A StackWalk of frames f[0..n) (innermost first) for the event just before t. */
static void stack_walk(struct synth *s, int64_t t, const uint64_t *f, size_t n)
{
	synth_stack_walk(s, t, t - 1, PID, TID, f, n);
}

static void key_ref(struct synth *s, uint16_t hook, int64_t t, uint64_t key)
{
	synth_stack_key_ref(s, hook, t, t - 1, PID, TID, key);
}

/* Where this program's function name lies in the traced image: BASE + its offset. */
static uint64_t traced(const struct sym_table *t, const char *name)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!strcmp(t->funcs[i].name, name))
			return BASE + (t->funcs[i].addr - t->base);
	return 0;
}

struct prog {
	char path[PATH_MAX];
	uint64_t size;			/* the traced image's */
	uint64_t leaf, mid, start;	/* a frame in each (a return address: past the entry) */
};

/*
 * The file: this program and a library this machine lacks as pid 42's
 * images, the stacks of the top comment; with_sample: a SampledProfile
 * too (so the functions table has a row). NULL if a record did not fit.
 */
static uint8_t *make_file(const struct prog *p, bool with_sample, size_t *size)
{
	const uint64_t whole[] = { KADDR, p->leaf, p->mid, p->start };
	const uint64_t whole_zero[] = { p->mid, p->start, 0 };
	const uint64_t early[] = { p->leaf, p->mid };
	const uint64_t gone[] = { p->leaf, GONE_BASE + 0x1100 };
	const uint64_t nowhere[] = { p->leaf, 0x1234 };
	const uint64_t kernel_only[] = { KADDR, KADDR2 };
	const uint64_t user_key[] = { p->leaf, p->start };
	const uint64_t short_key[] = { KADDR, p->leaf, p->mid };
	struct synth s;

	synth_begin(&s, 16384, 1);
	synth_buffer(&s, 0);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 100, PID, TID, "prog");
	image_rec(&s, 100, BASE, p->size, p->path);
	image_rec(&s, 100, GONE_BASE, 0x10000, "/nonexistent/ntkl-test/libgone.so");
	if (with_sample)
		sample(&s, 999, p->leaf);
	stack_walk(&s, 1000, whole, 4);
	stack_walk(&s, 1010, whole_zero, 3);
	stack_walk(&s, 1020, early, 2);
	stack_walk(&s, 1030, gone, 2);
	stack_walk(&s, 1040, nowhere, 2);
	stack_walk(&s, 1050, kernel_only, 2);
	/* cached: a kernel and a user reference, twice to the same user key */
	key_ref(&s, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 1100, 0xA);
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 1100, 0xB);
	key_ref(&s, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 1110, 0xA);
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 1110, 0xB);
	/* a short stack: one user reference, its key kernel and user frames */
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 1120, 0xC);
	/* a kernel thread's: a kernel reference alone */
	key_ref(&s, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 1130, 0xA);
	/* a key no definition has */
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 1140, 0xD);
	synth_stack_key_def(&s, 9000, 0xA, kernel_only, 2);
	synth_stack_key_def(&s, 9001, 0xB, user_key, 2);
	synth_stack_key_def(&s, 9002, 0xC, short_key, 3);
	return synth_end(&s, size);
}

/* A trace whose one user stack ends in a Windows image. */
static uint8_t *make_windows_file(const struct prog *p, size_t *size)
{
	const uint64_t in_dll[] = { p->leaf, WIN_BASE + 0x1010 };
	struct synth s;

	synth_begin(&s, 8192, 1);
	synth_buffer(&s, 0);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 100, PID, TID, "prog");
	image_rec(&s, 100, BASE, p->size, p->path);
	image_rec(&s, 100, WIN_BASE, 0x10000, "\\SystemRoot\\System32\\ntdll.dll");
	sample(&s, 999, p->leaf);
	stack_walk(&s, 1000, in_dll, 2);
	return synth_end(&s, size);
}

/* dump --stats' way: the functions of the file, and their text. */
static char *functions_text(const uint8_t *img, size_t size, struct sym_functions *fn)
{
	struct sym_loader ld = { 0 };
	struct etl_error e;
	struct etl_file f;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	memset(fn, 0, sizeof(*fn));
	if (etl_open_memory(&f, "ustk.etl", img, size, &e)) {
		test_fail("%s", e.msg);
		return NULL;
	}
	if (sym_functions_read(&f, &ld, fn, err, sizeof(err))) {
		test_fail("%s", err);
	} else {
		out = open_memstream(&text, &len);
		if (out) {
			sym_functions_print(out, fn, 10);
			fclose(out);
		}
	}
	sym_loader_free(&ld);
	etl_close(&f);
	return text;
}

#define LINE_END	"; 2 end early, in another function (2 test_user_stacks!ustk_mid)" \
			"; 2 more end in a frame not named here (top: 1 in no image, 1 libgone.so!?)\n"
#define LINE		"User stacks: 4 of 6 whole (66.7%), ending in a process's or thread's " \
			"start routine (4 test_user_stacks!_start)" LINE_END

static void test_kinds(const struct prog *p)
{
	struct sym_functions fn;
	uint8_t *img;
	size_t size;
	char *text;

	test_begin("user_stacks_by_end");
	img = make_file(p, true, &size);
	CHECK(img);
	text = img ? functions_text(img, size, &fn) : NULL;
	CHECK_EQ(fn.user.n[SYM_END_WHOLE], 4);
	CHECK_EQ(fn.user.n[SYM_END_EARLY], 2);
	CHECK_EQ(fn.user.n[SYM_END_NOT_NAMED], 2);
	CHECK_EQ(fn.user.no_image, 1);
	CHECK_EQ(fn.user.windows, 0);
	CHECK_EQ(sym_user_stacks_counted(&fn.user), 8);
	CHECK_EQ(fn.user.nends[SYM_END_WHOLE], 1);
	CHECK(fn.user.nends[SYM_END_WHOLE] &&
	      !strcmp(fn.user.ends[SYM_END_WHOLE][0].name, "test_user_stacks!_start"));
	CHECK_EQ(fn.user.nends[SYM_END_NOT_NAMED], 2);
	/* after "Stack frames named:", with the reason the library is not named */
	CHECK_HAS(text, "\nStack frames named: ");
	CHECK_HAS(text, ")\n" LINE);
	CHECK_HAS(text, "  not named here: /nonexistent/ntkl-test/libgone.so: ");
	free(text);
	sym_functions_free(&fn);
	free(img);
	test_end();

	/* no sample in an image: no functions table, the stacks still */
	test_begin("user_stacks_without_samples");
	img = make_file(p, false, &size);
	CHECK(img);
	text = img ? functions_text(img, size, &fn) : NULL;
	CHECK_EQ(fn.n, 0);
	CHECK_STR(text, "\n" LINE "  not named here: /nonexistent/ntkl-test/libgone.so: deleted since "
		  "the trace was recorded: WPA shows libgone.so!0x... addresses; run ntkl symbols "
		  "before the file changes (right after the capture)\n");
	free(text);
	sym_functions_free(&fn);
	free(img);
	test_end();

	test_begin("user_stacks_windows_left_out");
	img = make_windows_file(p, &size);
	CHECK(img);
	text = img ? functions_text(img, size, &fn) : NULL;
	CHECK_EQ(fn.user.windows, 1);
	CHECK_EQ(sym_user_stacks_counted(&fn.user), 0);
	CHECK(text && !strstr(text, "User stacks"));
	free(text);
	sym_functions_free(&fn);
	free(img);
	test_end();
}

/* ntkl report: the same line after the functions, and "user_stacks" in the JSON. */
static void test_report(const struct prog *p)
{
	char *text = NULL, *json = NULL;
	size_t size;
	struct sym_loader ld = { 0 };
	struct etl_report r;
	struct etl_error e;
	struct etl_file f;
	uint8_t *img = make_file(p, true, &size);

	test_begin("user_stacks_report");
	if (!img || etl_open_memory(&f, "ustk.etl", img, size, &e)) {
		test_fail("the file: %s", img ? e.msg : "a record did not fit");
		free(img);
		test_end();
		return;
	}
	CHECK(!etl_report_read(&f, &r, &e));
	CHECK(!etl_report_functions(&r, &ld, &e));
	text = report_string(&r, false);
	json = report_string(&r, true);
	CHECK_HAS(text, ")\n" LINE);
	CHECK(text && strstr(text, "Functions by samples") < strstr(text, "User stacks:"));
	CHECK_HAS(json, "\"functions_not_named\": [");
	CHECK_HAS(json, "\n \"user_stacks\": {\"whole\": 4, \"early\": 2, \"not_named\": 2, "
			"\"no_image\": 1,\n"
			"  \"whole_ends\": [{\"function\": \"test_user_stacks!_start\", \"stacks\": 4}],\n"
			"  \"early_ends\": [{\"function\": \"test_user_stacks!ustk_mid\", \"stacks\": 2}],\n"
			"  \"not_named_ends\": [{\"function\": \"?\", \"stacks\": 1}, "
			"{\"function\": \"libgone.so!?\", \"stacks\": 1}]},\n \"storage\": ");
	free(text);
	free(json);
	etl_report_free(&r);
	sym_loader_free(&ld);
	etl_close(&f);
	free(img);
	test_end();
}

/* The address-to-name rule: aliases, unknown sizes, an ET_EXEC's base. */
static void test_find(void)
{
	struct sym_table t;
	const struct sym_func *f;

	test_begin("sym_table_find");
	sym_table_init(&t);
	CHECK(!sym_table_add(&t, 0x1100, 8, "sized"));
	CHECK(!sym_table_add(&t, 0x1020, 0, "unsized"));
	CHECK(!sym_table_add(&t, 0x1000, 0x10, "clone3"));
	CHECK(!sym_table_add(&t, 0x1000, 0x10, "__GI___clone3"));
	CHECK(!sym_table_add(&t, 0x1000, 0x10, "__clone3"));
	sym_table_sort(&t);
	CHECK(!sym_table_find(&t, 0x7000, 0x7000 + 0xfff));	/* below every function */
	f = sym_table_find(&t, 0x7000, 0x7000 + 0x1008);
	CHECK(f && !strcmp(f->name, "clone3"));		/* of aliases, the last by name */
	CHECK(!sym_table_find(&t, 0x7000, 0x7000 + 0x1010));	/* past its size */
	f = sym_table_find(&t, 0x7000, 0x7000 + 0x10ff);
	CHECK(f && !strcmp(f->name, "unsized"));		/* up to the next */
	f = sym_table_find(&t, 0x7000, 0x7000 + 0x1107);
	CHECK(f && !strcmp(f->name, "sized"));
	CHECK(!sym_table_find(&t, 0x7000, 0x7000 + 0x1108));
	/* an ET_EXEC's addresses: the trace's ImageBase stands for t.base */
	t.base = 0x1000;
	f = sym_table_find(&t, 0x400000, 0x400004);
	CHECK(f && !strcmp(f->name, "clone3"));
	sym_table_free(&t);
	CHECK(!sym_table_find(&t, 0, 0x1000));	/* an empty table */
	test_end();
}

static void test_start_routines(void)
{
	static const char *const starts[] = {
		"_start", "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
		"__libc_start_main@@GLIBC_2.34", "__libc_start_main@GLIBC_2.2.5", "start_thread",
		"clone3", "__clone3", "__GI___clone3", "clone", "__clone", "__GI___clone",
		"_start_c", "libc_start_main_stage2", "start", "start_c",
	};
	static const char *const others[] = {
		"main", "__restore_rt", "_dl_runtime_resolve_xsave", "startx", "_start_",
		"clone3x", "", "@", "__libc_start", "thread_start",
	};

	test_begin("start_routines");
	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++)
		CHECK_MSG(sym_start_routine(starts[i]), "%s is a start routine", starts[i]);
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
		CHECK_MSG(!sym_start_routine(others[i]), "%s is no start routine", others[i]);
	test_end();
}

/*
 * ld.so's and musl's _start are untyped symbols at the entry point: the
 * symbol there is named all the same, so their stacks are whole.
 */
static void test_untyped_entry(void)
{
	static const char asm_src[] =
		"\t.text\n\t.globl _start\n_start:\n\txor %ebp, %ebp\n\tcall f\n\thlt\n"
		"\t.type f, @function\nf:\n\tret\n\t.size f, .-f\n"
		"\t.globl label_not_entry\nlabel_not_entry:\n\tret\n";
	char dir[] = "/tmp/ntkl-test-ustk-XXXXXX", src[300], bin[300], cmd[1024];
	const struct sym_func *f;
	struct sym_table t;
	FILE *s;

	if (system("command -v cc >/dev/null")) {
		test_skip("elf_untyped_entry", "no C compiler: apt-get install gcc");
		return;
	}
	test_begin("elf_untyped_entry");
	sym_table_init(&t);
	if (!mkdtemp(dir)) {
		test_fail("mkdtemp failed");
		test_end();
		return;
	}
	snprintf(src, sizeof(src), "%s/entry.s", dir);
	snprintf(bin, sizeof(bin), "%s/entry", dir);
	s = fopen(src, "w");
	CHECK(s && fputs(asm_src, s) >= 0);
	if (s)
		fclose(s);
	snprintf(cmd, sizeof(cmd), "cc -nostdlib -static -Wl,--build-id -o %s %s", bin, src);
	if (system(cmd)) {
		test_fail("cc could not build the test program");
	} else if (sym_elf_read(bin, NULL, &t, err, sizeof(err))) {
		test_fail("%s", err);
	} else {
		sym_table_sort(&t);
		f = NULL;
		for (size_t i = 0; i < t.nfuncs; i++)
			if (!strcmp(t.funcs[i].name, "_start"))
				f = &t.funcs[i];
		CHECK(f && f->size == 0);
		/* its code up to f is _start's; an untyped label elsewhere is no function */
		CHECK(f && sym_table_find(&t, t.base, f->addr + 3) == f);
		for (size_t i = 0; i < t.nfuncs; i++)
			CHECK_MSG(strcmp(t.funcs[i].name, "label_not_entry"), "an untyped label is named");
		CHECK_EQ(t.nfuncs, 2);
	}
	sym_table_free(&t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(!system(cmd));
	test_end();
}

int main(void)
{
	ssize_t n;
	struct sym_table t;
	struct prog p = { .size = 0 };

	test_find();
	test_start_routines();
	test_untyped_entry();

	n = readlink("/proc/self/exe", p.path, sizeof(p.path) - 1);
	p.path[n > 0 ? n : 0] = 0;
	sym_table_init(&t);
	if (n <= 0 || sym_elf_read(p.path, NULL, &t, err, sizeof(err))) {
		test_skip("user_stacks_by_end", "this program's own symbols: %s", n > 0 ? err : "no /proc");
		return test_exit();
	}
	/* ustk_leaf and ustk_mid are one instruction; _start's return address is past its call */
	p.leaf = traced(&t, "ustk_leaf");
	p.mid = traced(&t, "ustk_mid");
	p.start = traced(&t, "_start");
	if (p.start)
		p.start += 1;
	for (size_t i = 0; i < t.nfuncs; i++)
		if (t.funcs[i].addr - t.base > p.size)
			p.size = t.funcs[i].addr - t.base;
	p.size += 0x10000;
	sym_table_free(&t);
	if (!p.leaf || !p.mid || !p.start) {
		test_skip("user_stacks_by_end", "this program has no _start, ustk_leaf or ustk_mid");
		return test_exit();
	}
	test_kinds(&p);
	test_report(&p);
	return test_exit();
}
